//! The neutral [`Event`]: what happened in the harness, in terms no dialect owns.
//!
//! Harnesses build an `Event` (or write its JSON for `latch fire`); each
//! dialect translates it into its own event name and payload. See
//! `docs/events.md` for the JSON form, field by field.
//!
//! The kinds of event are in `kind.rs`, the parts an event of one kind
//! carries (a tool call, a compaction, …) in `parts.rs`, and [`RawJson`],
//! the JSON kept as its text, in `raw_json.rs`.
//!
//! # Example
//!
//! ```
//! use latch::{Event, EventKind};
//!
//! // The JSON a harness sends to `latch fire` or `latch serve`.
//! let event: Event = serde_json::from_str(
//!     r#"{"event": "tool_before", "session_id": "s1",
//!         "tool": {"name": "shell", "input": {"cmd": "ls -la"}}}"#,
//! )?;
//! event.validate()?;
//! assert_eq!(event.event, EventKind::ToolBefore);
//! assert_eq!(event.tool_name(), Some("shell"));
//! // A `tool_before` without its tool is refused.
//! let bad: Event = serde_json::from_str(r#"{"event": "tool_before"}"#)?;
//! assert!(bad.validate().is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

mod kind;
mod parts;
mod raw_json;

pub use kind::EventKind;
pub use parts::{
    Compaction, Elicitation, Expansion, Instructions, MessageChunk, ModelSwitch, Task, Team,
    ToolCall, ToolServer, Worktree,
};
pub use raw_json::RawJson;
pub(crate) use raw_json::WellNested;

/// Something that happened in the harness, at a point where hooks run.
///
/// Only `event` is required; everything else is filled in when the harness
/// knows it. Unknown fields are rejected so a misspelled field is an error,
/// not a silently missing value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Event {
    /// What kind of point this is.
    pub event: EventKind,
    /// An id for this occurrence, shared by every hook that handles it.
    /// latch makes one up when it is absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The session this event belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The agent's working directory (the workspace).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<PathBuf>,
    /// Where the harness records the session's transcript or trajectory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript_path: Option<PathBuf>,
    /// A directory the session may use for scratch files, when the
    /// harness gives it one (claude: `scratchpad_dir`, after `cwd`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scratchpad_dir: Option<PathBuf>,
    /// The id of the client request that started the turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// The id of the turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    /// The id of the child agent run, when the event happens inside one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_run_id: Option<String>,
    /// The model the turn runs (or the one-turn override the client sent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The session's reasoning-effort level, when configured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<String>,
    /// The harness's permission mode (`default`, `plan`, `acceptEdits`,
    /// `auto`, `dontAsk`, `bypassPermissions`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_mode: Option<String>,
    /// The id of the user prompt the turn answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_id: Option<String>,
    /// The id of the sub-agent the event happens in (or that starts or stops).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    /// The type of that sub-agent (`general-purpose`, `Explore`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_type: Option<String>,
    /// Where the sub-agent's transcript is, on `subagent_stop`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_transcript_path: Option<PathBuf>,
    /// The text of the agent's last answer, on `stop` and `subagent_stop`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_assistant_message: Option<String>,
    /// The tool call, on tool events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<ToolCall>,
    /// The user's prompt, on `user_prompt` and `user_prompt_ready`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// Why the turn or session ended (`stop`, `turn_cancelled`, `session_end`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Why the model's last response ended (`stop`, `length`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// How the session started: `startup`, `resume`, `fork`, `clear` or
    /// `compact`. Other events give their own sources: `config_change` and
    /// `directory_added` what changed or added, the model-switch events
    /// what switched (`command`, `picker`, `sdk`; after also `auto`,
    /// `resume`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// What triggered compaction: `auto`, `forced` or `manual`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<String>,
    /// The notification text, on `notification`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The notification type, on `notification`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notification_type: Option<String>,
    /// The notification title, on `notification`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The session's title, when it has one (claude: `session_title` on
    /// `UserPromptSubmit` and `SessionStart`; without it, the last title a
    /// hook gave the session through latch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_title: Option<String>,
    /// The harness's estimate of the current context size, in tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_tokens: Option<u64>,
    /// On `session_start` when a session resumes: seconds since the
    /// model's last answer in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds_since_last_response: Option<u64>,
    /// On `session_start` when a session resumes: whether the model's
    /// prompt cache has likely expired since its last answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_cache_likely_expired: Option<bool>,
    /// On `session_start` when a session resumes, and on the model-switch
    /// events: what writing the context to the prompt cache again would
    /// cost, in US dollars.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated_cache_write_usd: Option<f64>,
    /// Compaction figures, on `compact_before` and `compact_after`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compaction: Option<Compaction>,
    /// On `stop`: the round ended with questions to the user still unanswered.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pending_questions: bool,
    /// Every call of the batch, on `tool_batch`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// What went wrong, on `stop_failure` (`rate_limit`, `overloaded`,
    /// `server_error`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The error's details, on `stop_failure`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_details: Option<String>,
    /// The command that expanded, on `prompt_expansion` and
    /// `skill_shell_before`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expansion: Option<Expansion>,
    /// The model change, on `model_switch_before` and `model_switch_after`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_switch: Option<ModelSwitch>,
    /// The file loaded, on `instructions_loaded`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<Instructions>,
    /// The file concerned, on `config_change` and `file_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_path: Option<PathBuf>,
    /// What happened to it, on `file_changed`: `change`, `add` or `unlink`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<String>,
    /// The previous working directory, on `cwd_changed` (`cwd` is the new one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_cwd: Option<PathBuf>,
    /// The directory added, on `directory_added`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub directory: Option<PathBuf>,
    /// The worktree, on `worktree_create` and `worktree_remove`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worktree: Option<Worktree>,
    /// The task, on `task_created` and `task_completed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<Task>,
    /// The teammate, on task events and `teammate_idle`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team: Option<Team>,
    /// The tool server's request, on `elicitation` and `elicitation_result`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<Elicitation>,
    /// The text to show, on `message_display`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display: Option<MessageChunk>,
    /// The permission rules the harness would offer the user with the
    /// prompt, on `permission_request`, in the harness's own form (claude:
    /// `permission_suggestions`, Claude Code's permission-update entries).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_suggestions: Option<RawJson>,
}

/// Why an [`Event`] cannot be dispatched.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EventError {
    /// A tool event without its `tool` object.
    #[error("a `{0}` event needs a `tool` object with at least a `name`")]
    MissingTool(EventKind),
    /// A tool call with an empty name.
    #[error("`tool.name` must not be empty")]
    EmptyToolName,
    /// A model-switch event without `model_switch.to`, the model its
    /// hooks are matched against.
    #[error("a `{0}` event needs a `model_switch` object with at least `to`")]
    MissingModelSwitch(EventKind),
    /// A `session_id` with a NUL character, which no hook's environment
    /// or state path can carry.
    #[error("`session_id` must not contain a NUL character")]
    NulInSessionId,
}

impl Event {
    /// An event of the given kind with no data.
    pub fn new(event: EventKind) -> Self {
        Event {
            event,
            id: None,
            session_id: None,
            cwd: None,
            transcript_path: None,
            scratchpad_dir: None,
            request_id: None,
            turn_id: None,
            agent_run_id: None,
            model: None,
            effort: None,
            permission_mode: None,
            prompt_id: None,
            agent_id: None,
            agent_type: None,
            agent_transcript_path: None,
            last_assistant_message: None,
            tool: None,
            prompt: None,
            reason: None,
            finish_reason: None,
            source: None,
            trigger: None,
            message: None,
            notification_type: None,
            title: None,
            session_title: None,
            context_tokens: None,
            seconds_since_last_response: None,
            prompt_cache_likely_expired: None,
            estimated_cache_write_usd: None,
            compaction: None,
            pending_questions: false,
            tool_calls: Vec::new(),
            error: None,
            error_details: None,
            expansion: None,
            model_switch: None,
            instructions: None,
            file_path: None,
            change: None,
            old_cwd: None,
            directory: None,
            worktree: None,
            task: None,
            team: None,
            elicitation: None,
            display: None,
            permission_suggestions: None,
        }
    }

    /// A `tool_before` event for one call.
    pub fn tool_before(name: impl Into<String>, input: Value) -> Self {
        let mut e = Event::new(EventKind::ToolBefore);
        e.tool = Some(ToolCall {
            name: name.into(),
            input: RawJson::from_value(&input),
            call_id: None,
            output: None,
            error: None,
            duration_ms: None,
            interrupted: false,
            server: None,
        });
        e
    }

    /// Sets the session id.
    pub fn with_session(mut self, id: impl Into<String>) -> Self {
        self.session_id = Some(id.into());
        self
    }

    /// Sets the working directory.
    pub fn with_cwd(mut self, cwd: impl Into<PathBuf>) -> Self {
        self.cwd = Some(cwd.into());
        self
    }

    /// Checks the fields the kind requires.
    pub fn validate(&self) -> Result<(), EventError> {
        if self
            .session_id
            .as_deref()
            .is_some_and(|id| id.contains('\0'))
        {
            return Err(EventError::NulInSessionId);
        }
        if matches!(
            self.event,
            EventKind::ModelSwitchBefore | EventKind::ModelSwitchAfter
        ) && self
            .model_switch
            .as_ref()
            .and_then(|m| m.to.as_deref())
            .is_none_or(str::is_empty)
        {
            return Err(EventError::MissingModelSwitch(self.event));
        }
        if self.event.is_tool_event() {
            match &self.tool {
                None => return Err(EventError::MissingTool(self.event)),
                Some(t) if t.name.is_empty() => return Err(EventError::EmptyToolName),
                Some(_) => {}
            }
        }
        Ok(())
    }

    /// The directory hooks run in: the event's `cwd` when it is an existing
    /// directory, else `fallback` (the project).
    pub fn workdir(&self, fallback: Option<&std::path::Path>) -> Option<PathBuf> {
        self.cwd
            .clone()
            .filter(|d| d.is_dir())
            .or_else(|| fallback.map(std::path::Path::to_path_buf))
    }

    /// The tool name, on tool events.
    pub fn tool_name(&self) -> Option<&str> {
        self.tool.as_ref().map(|t| t.name.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_input_and_output_are_kept_as_written() {
        let text = r#"{"event":"tool_after","tool":{"name":"x","input":{"b": 1, "a": [1.0]},"output":[2]}}"#;
        let e: Event = serde_json::from_str(text).unwrap();
        let tool = e.tool.unwrap();
        assert_eq!(tool.input.text(), r#"{"b": 1, "a": [1.0]}"#);
        assert_eq!(
            tool.output.map(|o| o.text().to_owned()).as_deref(),
            Some("[2]")
        );
        let bare: Event =
            serde_json::from_str(r#"{"event":"tool_before","tool":{"name":"x"}}"#).unwrap();
        assert_eq!(bare.tool.unwrap().input.text(), "null");
    }

    #[test]
    fn raw_values_keep_the_nesting_limit() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let text = format!(r#"{{"event":"tool_before","tool":{{"name":"x","input":{deep}}}}}"#);
        let err = serde_json::from_str::<Event>(&text).unwrap_err();
        assert!(
            err.to_string().contains("recursion limit exceeded"),
            "{err}"
        );
        let ok = format!("{}{}", "[".repeat(120), "]".repeat(120));
        let text = format!(r#"{{"event":"tool_before","tool":{{"name":"x","input":{ok}}}}}"#);
        assert!(serde_json::from_str::<Event>(&text).is_ok());
    }
}
