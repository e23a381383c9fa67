//! The neutral [`Event`]: what happened in the harness, in terms no dialect owns.
//!
//! Harnesses build an `Event` (or write its JSON for `latch fire`); each
//! dialect translates it into its own event name and payload. See
//! `docs/events.md` for the JSON form, field by field.
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

use std::fmt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

/// The kind of point in a turn where hooks run.
///
/// One kind covers the equivalent event of every dialect: `tool_before` is
/// poolside's and evener's `PreToolUse` and peen's `preToolUse` (plus its
/// per-file-tool `pre<Tool>` event).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// A session starts or resumes (`source` says which).
    SessionStart,
    /// A user prompt arrived, before the agent processes it.
    UserPrompt,
    /// The turn for a user prompt has been prepared (peen's `postUserMessage`).
    UserPromptReady,
    /// A turn is about to call the model for the first time.
    TurnStart,
    /// A tool is about to run.
    ToolBefore,
    /// A tool ran and its result is being recorded.
    ToolAfter,
    /// A tool ran and failed.
    ToolFailure,
    /// The harness is about to ask the user whether a tool may run.
    PermissionRequest,
    /// The agent is about to end its turn.
    Stop,
    /// The user cancelled the turn.
    TurnCancelled,
    /// A delegated sub-agent was started.
    SubagentStart,
    /// A delegated sub-agent finished and is about to settle.
    SubagentStop,
    /// Context compaction is about to run.
    CompactBefore,
    /// Context compaction finished and its summary is stored.
    CompactAfter,
    /// The harness shows the user a notification.
    Notification,
    /// The session is ending.
    SessionEnd,
    /// Every tool call of a parallel batch has resolved, before the next
    /// model call (`tool_calls`).
    ToolBatch,
    /// A typed command (`/name args`) expanded into a prompt (`expansion`,
    /// `prompt`).
    PromptExpansion,
    /// The harness's automatic permission check refused a tool (`tool`,
    /// `reason`).
    PermissionDenied,
    /// The turn ended because the model request failed (`error`,
    /// `error_details`).
    StopFailure,
    /// The harness runs its one-time setup or maintenance (`trigger`).
    Setup,
    /// An instructions file (`CLAUDE.md`, a rules file) was loaded into
    /// context (`instructions`).
    InstructionsLoaded,
    /// A settings or skills file changed during the session (`source`,
    /// `file_path`).
    ConfigChange,
    /// The agent's working directory changed (`old_cwd`, `cwd`).
    CwdChanged,
    /// A directory was added to the session's workspace (`directory`,
    /// `source`).
    DirectoryAdded,
    /// A watched file changed on disk (`file_path`, `change`).
    FileChanged,
    /// The harness is about to create a worktree (`worktree`).
    WorktreeCreate,
    /// The harness removed a worktree (`worktree`).
    WorktreeRemove,
    /// A task was created (`task`, `team`).
    TaskCreated,
    /// A task was marked done (`task`, `team`).
    TaskCompleted,
    /// A teammate of an agent team is about to go idle (`team`).
    TeammateIdle,
    /// A tool server asks the user for input (`elicitation`).
    Elicitation,
    /// The user answered a tool server's request (`elicitation`).
    ElicitationResult,
    /// Assistant text is about to be shown to the user (`display`).
    MessageDisplay,
    /// The session is about to switch to another model (`model_switch`,
    /// `source`); hooks may refuse or ask.
    ModelSwitchBefore,
    /// The session switched to another model (`model_switch`, `source`).
    ModelSwitchAfter,
    /// A shell command written in a typed command or skill (Claude Code's
    /// `` !`cmd` ``) is about to run while the command expands (`tool`,
    /// `expansion`); hooks may refuse it.
    SkillShellBefore,
}

impl EventKind {
    /// Every kind, in the order of a typical session.
    pub const ALL: [EventKind; 37] = [
        EventKind::SessionStart,
        EventKind::Setup,
        EventKind::InstructionsLoaded,
        EventKind::ModelSwitchBefore,
        EventKind::ModelSwitchAfter,
        EventKind::UserPrompt,
        EventKind::PromptExpansion,
        EventKind::SkillShellBefore,
        EventKind::UserPromptReady,
        EventKind::TurnStart,
        EventKind::MessageDisplay,
        EventKind::ToolBefore,
        EventKind::PermissionRequest,
        EventKind::PermissionDenied,
        EventKind::ToolAfter,
        EventKind::ToolFailure,
        EventKind::ToolBatch,
        EventKind::Elicitation,
        EventKind::ElicitationResult,
        EventKind::TaskCreated,
        EventKind::TaskCompleted,
        EventKind::TeammateIdle,
        EventKind::Stop,
        EventKind::StopFailure,
        EventKind::TurnCancelled,
        EventKind::SubagentStart,
        EventKind::SubagentStop,
        EventKind::CompactBefore,
        EventKind::CompactAfter,
        EventKind::Notification,
        EventKind::ConfigChange,
        EventKind::CwdChanged,
        EventKind::DirectoryAdded,
        EventKind::FileChanged,
        EventKind::WorktreeCreate,
        EventKind::WorktreeRemove,
        EventKind::SessionEnd,
    ];

    /// The snake_case name used in the event JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::SessionStart => "session_start",
            EventKind::UserPrompt => "user_prompt",
            EventKind::UserPromptReady => "user_prompt_ready",
            EventKind::TurnStart => "turn_start",
            EventKind::ToolBefore => "tool_before",
            EventKind::ToolAfter => "tool_after",
            EventKind::ToolFailure => "tool_failure",
            EventKind::PermissionRequest => "permission_request",
            EventKind::Stop => "stop",
            EventKind::TurnCancelled => "turn_cancelled",
            EventKind::SubagentStart => "subagent_start",
            EventKind::SubagentStop => "subagent_stop",
            EventKind::CompactBefore => "compact_before",
            EventKind::CompactAfter => "compact_after",
            EventKind::Notification => "notification",
            EventKind::SessionEnd => "session_end",
            EventKind::ToolBatch => "tool_batch",
            EventKind::PromptExpansion => "prompt_expansion",
            EventKind::PermissionDenied => "permission_denied",
            EventKind::StopFailure => "stop_failure",
            EventKind::Setup => "setup",
            EventKind::InstructionsLoaded => "instructions_loaded",
            EventKind::ConfigChange => "config_change",
            EventKind::CwdChanged => "cwd_changed",
            EventKind::DirectoryAdded => "directory_added",
            EventKind::FileChanged => "file_changed",
            EventKind::WorktreeCreate => "worktree_create",
            EventKind::WorktreeRemove => "worktree_remove",
            EventKind::TaskCreated => "task_created",
            EventKind::TaskCompleted => "task_completed",
            EventKind::TeammateIdle => "teammate_idle",
            EventKind::Elicitation => "elicitation",
            EventKind::ElicitationResult => "elicitation_result",
            EventKind::MessageDisplay => "message_display",
            EventKind::ModelSwitchBefore => "model_switch_before",
            EventKind::ModelSwitchAfter => "model_switch_after",
            EventKind::SkillShellBefore => "skill_shell_before",
        }
    }

    /// Whether this kind concerns one tool call (and so needs [`Event::tool`]).
    pub fn is_tool_event(self) -> bool {
        matches!(
            self,
            EventKind::ToolBefore
                | EventKind::ToolAfter
                | EventKind::ToolFailure
                | EventKind::PermissionRequest
                | EventKind::PermissionDenied
                | EventKind::SkillShellBefore
        )
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

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

/// A JSON value kept as its text, exactly as the harness wrote it.
///
/// A tool's input and output are the bulkiest parts of an event and are
/// usually only passed on to hooks. Parsed into a [`Value`], each array element or
/// object member costs a node of about 80 bytes plus its own allocation,
/// so 4 MB of small numbers would take hundreds of megabytes; as text it
/// takes its own size, and payloads embed it verbatim. Parse it with
/// [`RawJson::to_value`] only where its content matters.
#[derive(Clone)]
pub struct RawJson(Box<RawValue>);

impl schemars::JsonSchema for RawJson {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "AnyJson".into()
    }

    /// Any JSON value.
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"description": "Any JSON value, kept as written."})
    }
}

impl RawJson {
    /// The JSON of `value`.
    pub fn from_value(value: &Value) -> RawJson {
        // Serializing a `Value` cannot fail (its keys are strings).
        RawJson(
            serde_json::value::to_raw_value(value).unwrap_or_else(|_| RawValue::NULL.to_owned()),
        )
    }

    /// JSON `null`.
    pub fn null() -> RawJson {
        RawJson(RawValue::NULL.to_owned())
    }

    /// The raw value, to embed in serialized output as it is.
    pub fn get(&self) -> &RawValue {
        &self.0
    }

    /// The JSON text.
    pub fn text(&self) -> &str {
        self.0.get()
    }

    /// The value, parsed (`null` if the text were not JSON, which
    /// deserialization rules out).
    pub fn to_value(&self) -> Value {
        serde_json::from_str(self.text()).unwrap_or(Value::Null)
    }
}

impl From<Value> for RawJson {
    fn from(value: Value) -> RawJson {
        RawJson::from_value(&value)
    }
}

impl Default for RawJson {
    /// `null`.
    fn default() -> RawJson {
        RawJson::null()
    }
}

impl PartialEq for RawJson {
    /// Equal when the texts are equal (`[1,2]` and `[1, 2]` differ).
    fn eq(&self, other: &RawJson) -> bool {
        self.text() == other.text()
    }
}

impl fmt::Debug for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RawJson({})", self.text())
    }
}

impl Serialize for RawJson {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for RawJson {
    /// Takes any JSON value nested at most 128 levels deep (serde_json's
    /// limit, which its capture of raw text does not apply by itself), so
    /// parsing it later never fails.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<RawJson, D::Error> {
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        serde_json::from_str::<WellNested>(raw.get())
            .map_err(|e| serde::de::Error::custom(format_args!("in a value: {e}")))?;
        Ok(RawJson(raw))
    }
}

/// Any JSON value, read and dropped as it is read, through serde_json's
/// recursion limit (128 levels). `IgnoredAny` and the capture of a
/// [`RawValue`] skip values without that limit; this is the cheap check
/// that a text can later be parsed.
pub(crate) struct WellNested;

impl<'de> Deserialize<'de> for WellNested {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<WellNested, D::Error> {
        d.deserialize_any(WellNestedVisitor)
    }
}

struct WellNestedVisitor;

impl<'de> serde::de::Visitor<'de> for WellNestedVisitor {
    type Value = WellNested;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<WellNested, E> {
        Ok(WellNested)
    }
    fn visit_i64<E>(self, _: i64) -> Result<WellNested, E> {
        Ok(WellNested)
    }
    fn visit_u64<E>(self, _: u64) -> Result<WellNested, E> {
        Ok(WellNested)
    }
    fn visit_f64<E>(self, _: f64) -> Result<WellNested, E> {
        Ok(WellNested)
    }
    fn visit_str<E>(self, _: &str) -> Result<WellNested, E> {
        Ok(WellNested)
    }
    fn visit_unit<E>(self) -> Result<WellNested, E> {
        Ok(WellNested)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<WellNested, A::Error> {
        while seq.next_element::<WellNested>()?.is_some() {}
        Ok(WellNested)
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<WellNested, A::Error> {
        while map
            .next_entry::<serde::de::IgnoredAny, WellNested>()?
            .is_some()
        {}
        Ok(WellNested)
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
