//! Handlers only the harness can run: a sub-agent (the claude dialect's
//! `agent` handlers) and a call to one of its tool servers (`mcp_tool`
//! handlers). latch has neither, so a harness that wants them gives the
//! engine a [`HarnessHandlers`] (`Engine::with_harness_handlers`); without
//! one, such handlers are skipped with a record saying so.

use serde_json::Value;

use super::BoxFuture;

/// The harness's sub-agents and tool servers, for hooks that use them.
pub trait HarnessHandlers: Send + Sync {
    /// Calls `tool` of the tool server `server` with `input` and returns
    /// the text of its result (the hook reads it as a command hook's
    /// stdout), or why the call failed. The server must already be
    /// connected: a harness does not start one for a hook.
    fn call_tool<'a>(
        &'a self,
        server: &'a str,
        tool: &'a str,
        input: Value,
    ) -> BoxFuture<'a, Result<String, String>>;

    /// Runs a sub-agent with `prompt` and returns its final answer, which
    /// should be a JSON object `{"ok": bool, "reason": string}` as for a
    /// `prompt` handler, or why it failed. Claude Code gives its agent
    /// read-only tools (Read, Grep, Glob) and at most 50 turns.
    fn run_agent<'a>(&'a self, prompt: &'a str) -> BoxFuture<'a, Result<String, String>>;
}
