//! Handlers only the harness can run: a sub-agent (the claude dialect's
//! `agent` handlers) and a call to one of its tool servers (`mcp_tool`
//! handlers). latch has neither, so a harness that wants them gives the
//! engine a [`HarnessHandlers`] (`Engine::with_harness_handlers`); without
//! one, such handlers are skipped with a record saying so.

use serde_json::Value;

use super::BoxFuture;

/// What a tool answered a hook's call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolAnswer {
    /// The tool's result: its text blocks joined with newlines (another
    /// block as `[<type>]`, as Claude Code writes it). The hook reads it
    /// as a command hook's stdout.
    Text(String),
    /// A result the tool flagged as an error (MCP's `isError`), with its
    /// text, which may be empty: the hook failed, with that text as its
    /// error.
    Error(String),
}

/// The harness's sub-agents and tool servers, for hooks that use them.
pub trait HarnessHandlers: Send + Sync {
    /// Calls `tool` of the tool server `server` with `input` and returns
    /// what the tool answered, or why the call failed (`MCP server
    /// '<server>' not connected` when it is not, as Claude Code says). The
    /// server must already be connected: a harness does not start one for
    /// a hook.
    fn call_tool<'a>(
        &'a self,
        server: &'a str,
        tool: &'a str,
        input: Value,
    ) -> BoxFuture<'a, Result<ToolAnswer, String>>;

    /// Runs a sub-agent with `prompt` and returns its final answer, which
    /// should be a JSON object `{"ok": bool, "reason": string}` as for a
    /// `prompt` handler, or why it failed. Claude Code gives its agent
    /// read-only tools (Read, Grep, Glob) and at most 50 turns.
    fn run_agent<'a>(&'a self, prompt: &'a str) -> BoxFuture<'a, Result<String, String>>;
}
