//! The neutral [`Event`]: what happened in the harness, in terms no dialect owns.
//!
//! Harnesses build an `Event` (or write its JSON for `latch fire`); each
//! dialect translates it into its own event name and payload. See
//! `docs/events.md` for the JSON form, field by field.

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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
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
}

impl EventKind {
    /// Every kind, in the order of a typical session.
    pub const ALL: [EventKind; 16] = [
        EventKind::SessionStart,
        EventKind::UserPrompt,
        EventKind::UserPromptReady,
        EventKind::TurnStart,
        EventKind::ToolBefore,
        EventKind::PermissionRequest,
        EventKind::ToolAfter,
        EventKind::ToolFailure,
        EventKind::Stop,
        EventKind::TurnCancelled,
        EventKind::SubagentStart,
        EventKind::SubagentStop,
        EventKind::CompactBefore,
        EventKind::CompactAfter,
        EventKind::Notification,
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
        )
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One tool call, as the model made it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
pub struct WellNested;

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
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
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

/// Something that happened in the harness, at a point where hooks run.
///
/// Only `event` is required; everything else is filled in when the harness
/// knows it. Unknown fields are rejected so a misspelled field is an error,
/// not a silently missing value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// How the session started: `startup`, `resume`, `clear` or `compact`.
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
    /// The harness's estimate of the current context size, in tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_tokens: Option<u64>,
    /// Compaction figures, on `compact_before` and `compact_after`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compaction: Option<Compaction>,
    /// On `stop`: the round ended with questions to the user still unanswered.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pending_questions: bool,
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
            context_tokens: None,
            compaction: None,
            pending_questions: false,
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
