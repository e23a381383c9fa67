//! Poolside's six events, their names, and the payload each hook reads.

use std::borrow::Cow;
use std::fmt;

use serde_json::Value;

use crate::dialect::payload::{Json, JsonObject};
use crate::event::{Event, EventKind};

/// The `hook_api_version` written in every payload.
pub const HOOK_API_VERSION: &str = "1.0";

/// A poolside hook event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PoolEvent {
    /// Before a tool executes.
    PreToolUse,
    /// As a tool result is recorded.
    PostToolUse,
    /// When a prompt arrives.
    UserPromptSubmit,
    /// When a turn is about to end.
    Stop,
    /// When compaction is certain to run.
    PreCompact,
    /// When a session starts or resumes.
    SessionStart,
}

impl PoolEvent {
    /// All six, in the spec's order.
    pub const ALL: [PoolEvent; 6] = [
        PoolEvent::PreToolUse,
        PoolEvent::PostToolUse,
        PoolEvent::UserPromptSubmit,
        PoolEvent::Stop,
        PoolEvent::PreCompact,
        PoolEvent::SessionStart,
    ];

    /// The name used in `settings.yaml` and in `hook_event_name`.
    pub fn as_str(self) -> &'static str {
        match self {
            PoolEvent::PreToolUse => "PreToolUse",
            PoolEvent::PostToolUse => "PostToolUse",
            PoolEvent::UserPromptSubmit => "UserPromptSubmit",
            PoolEvent::Stop => "Stop",
            PoolEvent::PreCompact => "PreCompact",
            PoolEvent::SessionStart => "SessionStart",
        }
    }

    /// Parses a configuration key.
    pub fn from_name(name: &str) -> Option<PoolEvent> {
        PoolEvent::ALL.into_iter().find(|e| e.as_str() == name)
    }

    /// The poolside event a neutral event fires, if any. A failed tool call
    /// is still a recorded tool result, so it fires `PostToolUse` with the
    /// error as its output.
    pub fn from_kind(kind: EventKind) -> Option<PoolEvent> {
        Some(match kind {
            EventKind::ToolBefore => PoolEvent::PreToolUse,
            EventKind::ToolAfter | EventKind::ToolFailure => PoolEvent::PostToolUse,
            EventKind::UserPrompt => PoolEvent::UserPromptSubmit,
            EventKind::Stop => PoolEvent::Stop,
            EventKind::CompactBefore => PoolEvent::PreCompact,
            EventKind::SessionStart => PoolEvent::SessionStart,
            _ => return None,
        })
    }

    /// The neutral event this one stands for (`PostToolUse`: `tool_after`;
    /// it also runs on `tool_failure`).
    pub fn kind(self) -> EventKind {
        match self {
            PoolEvent::PreToolUse => EventKind::ToolBefore,
            PoolEvent::PostToolUse => EventKind::ToolAfter,
            PoolEvent::UserPromptSubmit => EventKind::UserPrompt,
            PoolEvent::Stop => EventKind::Stop,
            PoolEvent::PreCompact => EventKind::CompactBefore,
            PoolEvent::SessionStart => EventKind::SessionStart,
        }
    }

    /// Whether `matcher` selects hooks on this event (tool events only).
    pub fn uses_matcher(self) -> bool {
        matches!(self, PoolEvent::PreToolUse | PoolEvent::PostToolUse)
    }
}

impl fmt::Display for PoolEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The values that thread from hook to hook within one event. They borrow
/// the event's values until a hook rewrites them, so a large tool input or
/// output is not copied.
#[derive(Debug, Clone, PartialEq)]
pub struct Threaded<'a> {
    /// The tool input (PreToolUse rewrites it), kept as the event's JSON
    /// text until a hook rewrites it.
    pub tool_input: Json<'a>,
    /// The tool output (PostToolUse rewrites it), kept as the event's
    /// JSON text until a hook rewrites it.
    pub tool_output: Json<'a>,
    /// The prompt (UserPromptSubmit rewrites it).
    pub prompt: Option<String>,
}

const NULL: Value = Value::Null;

impl<'a> Threaded<'a> {
    /// The starting values, taken from the event.
    pub fn from_event(event: &'a Event) -> Threaded<'a> {
        let tool = event.tool.as_ref();
        Threaded {
            tool_input: tool.map_or(Json::Value(Cow::Borrowed(&NULL)), |t| {
                Json::raw(t.input.get())
            }),
            tool_output: match tool {
                Some(t) => match (&t.output, &t.error) {
                    (Some(o), _) => Json::raw(o.get()),
                    (None, Some(e)) => Json::Value(Cow::Owned(Value::String(e.clone()))),
                    (None, None) => Json::Value(Cow::Borrowed(&NULL)),
                },
                None => Json::Value(Cow::Borrowed(&NULL)),
            },
            prompt: event.prompt.clone(),
        }
    }
}

/// Builds the JSON object a hook reads on stdin: the envelope, then the
/// event's own fields, exactly as poolside documents them. The tool input
/// and output are borrowed, not copied.
pub fn payload<'a>(
    pe: PoolEvent,
    event: &'a Event,
    event_id: &'a str,
    now: &'a Threaded<'a>,
) -> JsonObject<'a> {
    let mut m = JsonObject::new();
    let mut put = |k: &'static str, v: Value| {
        m.insert(k, Cow::Owned(v));
    };
    put("hook_api_version", Value::from(HOOK_API_VERSION));
    put("hook_event_name", Value::from(pe.as_str()));
    put("event_id", Value::from(event_id));
    if let Some(s) = &event.session_id {
        put("session_id", Value::from(s.as_str()));
    }
    if let Some(cwd) = &event.cwd {
        put("cwd", Value::from(cwd.to_string_lossy()));
    }
    if let Some(t) = &event.transcript_path {
        put("trajectory_path", Value::from(t.to_string_lossy()));
    }
    let tool = event.tool.as_ref();
    match pe {
        PoolEvent::PreToolUse | PoolEvent::PostToolUse => {
            put(
                "tool_name",
                Value::from(tool.map_or("", |t| t.name.as_str())),
            );
            m.insert("tool_input", now.tool_input.clone());
            if pe == PoolEvent::PostToolUse {
                m.insert("tool_output", now.tool_output.clone());
            }
            let mut put = |k: &'static str, v: Value| {
                m.insert(k, Cow::Owned(v));
            };
            if let Some(id) = tool.and_then(|t| t.call_id.as_deref()) {
                put("tool_call_id", Value::from(id));
            }
        }
        PoolEvent::UserPromptSubmit => {
            put(
                "prompt",
                Value::from(now.prompt.clone().unwrap_or_default()),
            );
        }
        PoolEvent::Stop => {
            if let Some(r) = &event.reason {
                put("reason", Value::from(r.as_str()));
            }
        }
        PoolEvent::PreCompact => {
            if let Some(t) = &event.trigger {
                put("trigger", Value::from(t.as_str()));
            }
        }
        PoolEvent::SessionStart => {
            if let Some(s) = &event.source {
                put("source", Value::from(s.as_str()));
            }
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_and_from_kind_agree() {
        for e in PoolEvent::ALL {
            assert_eq!(PoolEvent::from_kind(e.kind()), Some(e));
        }
        assert_eq!(
            PoolEvent::from_kind(EventKind::ToolFailure),
            Some(PoolEvent::PostToolUse)
        );
    }
}
