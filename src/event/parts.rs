//! The parts of an [`Event`](super::Event) that describe one kind of
//! point: a tool call, a compaction, a model switch, and so on.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::RawJson;

/// One tool call, as the model made it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolCall {
    /// The harness's name for the tool (dialects may present another name).
    pub name: String,
    /// The arguments, exactly as the model passed them, kept as their JSON
    /// text like the output (see [`RawJson`]); `null` when absent.
    #[serde(default)]
    pub input: RawJson,
    /// The harness's id for this call, shared by its before and after events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// The tool's result, on `tool_after`: any JSON, kept as its text
    /// (see [`RawJson`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<RawJson>,
    /// The tool's error, on `tool_failure`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// How long the tool ran, in milliseconds, on `tool_after` and
    /// `tool_failure`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// On `tool_failure`: the user interrupted the tool.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    /// The tool server (MCP) the tool belongs to, when it belongs to one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<ToolServer>,
}

/// The tool server (an MCP server) a tool belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolServer {
    /// The server's name, as configured.
    pub name: String,
    /// Where it is configured: Claude Code's scopes are `user`,
    /// `project`, `local`, `dynamic` (given on the command line),
    /// `managed`, `enterprise`, `claudeai`, `agent`, and `plugin` or `sdk`
    /// for a plugin's or an SDK's server. Passed on as given.
    pub source: String,
}

impl ToolCall {
    /// What the tool gave back: its output (parsed), else its error as a
    /// string.
    pub fn result(&self) -> Option<Value> {
        self.output
            .as_ref()
            .map(RawJson::to_value)
            .or_else(|| self.error.clone().map(Value::String))
    }
}

/// Figures that describe one compaction.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Compaction {
    /// The estimated size of the request that went over budget, in tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated_tokens: Option<u64>,
    /// The prompt budget that was exceeded, in tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_tokens: Option<u64>,
    /// The model round within the turn where compaction started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<u64>,
    /// How many conversation units the summary replaces.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub units_covered: Option<u64>,
    /// How many stored messages the summary replaces.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages_covered: Option<u64>,
    /// The size of the stored summary, in tokens (after compaction only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary_tokens: Option<u64>,
    /// The user's instructions for the summary (`/compact <instructions>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// The summary, after compaction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
}

/// A typed command that expanded into a prompt, on `prompt_expansion`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Expansion {
    /// What expanded: `slash_command` or `mcp_prompt` (claude's
    /// `expansion_type`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The command's name, without the slash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_name: Option<String>,
    /// The text typed after the command's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_args: Option<String>,
    /// Where the command is defined (`projectSettings`, `userSettings`,
    /// a plugin's name, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_source: Option<String>,
    /// Who ran the command, on `skill_shell_before`: `user` (typed it),
    /// `claude` (the model's skill tool) or `other`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invoked_by: Option<String>,
}

/// A change of the session's model, on `model_switch_before` and
/// `model_switch_after` (the change's `source` is the event's).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ModelSwitch {
    /// The model the session runs now (before) or ran (after).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// The model the session switches to, as the harness resolved it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// What the user or client asked for (an alias or a full name); absent
    /// for the default model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested: Option<String>,
    /// Whether the harness knows `to` (claude: a model of Claude Code's
    /// catalogue). `false` makes every matcher group run, whatever its
    /// matcher, as Claude Code does for a model it does not know.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub known: Option<bool>,
    /// Whether the prompt cache is warm for the conversation so far.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_cache_warm: Option<bool>,
    /// How long the new model's prompt cache lives: `5m` or `1h`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_ttl: Option<String>,
    /// Where the cost estimate's prices come from: `configured`, `catalog`
    /// or `default`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pricing: Option<String>,
}

/// An instructions file loaded into context, on `instructions_loaded`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Instructions {
    /// The file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_path: Option<PathBuf>,
    /// Whose file it is: `User`, `Project`, `Local` or `Managed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_type: Option<String>,
    /// Why it was loaded: `session_start`, `nested_traversal`,
    /// `path_glob_match`, `include` or `compact`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_reason: Option<String>,
    /// The file's path globs, when it has some.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub globs: Option<Vec<String>>,
    /// The file whose access loaded it (lazy loads).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger_file_path: Option<PathBuf>,
    /// The file that included it (`include`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_file_path: Option<PathBuf>,
}

/// A worktree, on `worktree_create` and `worktree_remove`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Worktree {
    /// The name asked for, on `worktree_create`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Where the worktree is, on `worktree_remove`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
}

/// A task, on `task_created` and `task_completed`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Task {
    /// The task's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Its one-line subject.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// Its description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// A member of an agent team, on task events and `teammate_idle`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Team {
    /// The teammate's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub teammate_name: Option<String>,
    /// The team's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team_name: Option<String>,
}

/// A tool server's request for user input, on `elicitation` and
/// `elicitation_result`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Elicitation {
    /// The tool server that asks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// What it asks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// `form` or `url`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// The page to open, in `url` mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The request's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The JSON Schema of the answer, in `form` mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_schema: Option<Value>,
    /// The user's answer, on `elicitation_result`: `accept`, `decline` or
    /// `cancel`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    /// The answer's content, with `accept`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Value>,
}

/// Assistant text about to be shown, on `message_display`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MessageChunk {
    /// The assistant message the text belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    /// The batch's position in the message, from 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<u64>,
    /// Whether this is the message's last batch.
    #[serde(default, rename = "final")]
    pub last: bool,
    /// The text of this batch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta: Option<String>,
}
