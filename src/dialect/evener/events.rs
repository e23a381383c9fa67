//! Evener's event vocabulary: the nine fired events, the reserved Claude
//! events, matcher targets, and the stdin payload.

use std::borrow::Cow;
use std::fmt;

use serde_json::Value;

use crate::dialect::payload::{Json, JsonObject};
use crate::event::{Event, EventKind};

use super::toolname::ToolNames;

/// The nine events Evener fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EvEvent {
    /// Before the first model turn.
    SessionStart,
    /// After a user prompt is submitted.
    UserPromptSubmit,
    /// Before a tool runs (before schema validation).
    PreToolUse,
    /// After a tool runs.
    PostToolUse,
    /// Before the assistant stops.
    Stop,
    /// After a delegate run finishes, before it settles.
    SubagentStop,
    /// Before context compaction.
    PreCompact,
    /// At session teardown.
    SessionEnd,
    /// On a user-visible notification.
    Notification,
}

/// Real Claude events Evener recognises but does not fire. Data, so the
/// vocabulary can grow without code changes.
pub const RESERVED_EVENTS: [&str; 25] = [
    "PostToolUseFailure",
    "PermissionRequest",
    "PermissionDenied",
    "SubagentStart",
    "PostCompact",
    "Setup",
    "FileChanged",
    "CwdChanged",
    "ConfigChange",
    "InstructionsLoaded",
    "StopFailure",
    "TeammateIdle",
    "TaskCreated",
    "TaskCompleted",
    "WorktreeCreate",
    "WorktreeRemove",
    "Elicitation",
    "ElicitationResult",
    "UserPromptExpansion",
    "MessageDisplay",
    "PostToolBatch",
    "DirectoryAdded",
    "PreModelSwitch",
    "PostModelSwitch",
    "PreSkillShellCommand",
];

impl EvEvent {
    /// The nine, in the spec's order.
    pub const ALL: [EvEvent; 9] = [
        EvEvent::SessionStart,
        EvEvent::UserPromptSubmit,
        EvEvent::PreToolUse,
        EvEvent::PostToolUse,
        EvEvent::Stop,
        EvEvent::SubagentStop,
        EvEvent::PreCompact,
        EvEvent::SessionEnd,
        EvEvent::Notification,
    ];

    /// The event's name in hooks files and payloads.
    pub fn as_str(self) -> &'static str {
        match self {
            EvEvent::SessionStart => "SessionStart",
            EvEvent::UserPromptSubmit => "UserPromptSubmit",
            EvEvent::PreToolUse => "PreToolUse",
            EvEvent::PostToolUse => "PostToolUse",
            EvEvent::Stop => "Stop",
            EvEvent::SubagentStop => "SubagentStop",
            EvEvent::PreCompact => "PreCompact",
            EvEvent::SessionEnd => "SessionEnd",
            EvEvent::Notification => "Notification",
        }
    }

    /// Parses a fired event name.
    pub fn from_name(name: &str) -> Option<EvEvent> {
        EvEvent::ALL.into_iter().find(|e| e.as_str() == name)
    }

    /// The Evener event a neutral event fires. A failed tool call still ran,
    /// so it fires `PostToolUse` with the error as the response.
    pub fn from_kind(kind: EventKind) -> Option<EvEvent> {
        Some(match kind {
            EventKind::SessionStart => EvEvent::SessionStart,
            EventKind::UserPrompt => EvEvent::UserPromptSubmit,
            EventKind::ToolBefore => EvEvent::PreToolUse,
            EventKind::ToolAfter | EventKind::ToolFailure => EvEvent::PostToolUse,
            EventKind::Stop => EvEvent::Stop,
            EventKind::SubagentStop => EvEvent::SubagentStop,
            EventKind::CompactBefore => EvEvent::PreCompact,
            EventKind::SessionEnd => EvEvent::SessionEnd,
            EventKind::Notification => EvEvent::Notification,
            _ => return None,
        })
    }

    /// The neutral event this one stands for (`PostToolUse`: `tool_after`;
    /// it also runs on `tool_failure`).
    pub fn kind(self) -> EventKind {
        match self {
            EvEvent::SessionStart => EventKind::SessionStart,
            EvEvent::UserPromptSubmit => EventKind::UserPrompt,
            EvEvent::PreToolUse => EventKind::ToolBefore,
            EvEvent::PostToolUse => EventKind::ToolAfter,
            EvEvent::Stop => EventKind::Stop,
            EvEvent::SubagentStop => EventKind::SubagentStop,
            EvEvent::PreCompact => EventKind::CompactBefore,
            EvEvent::SessionEnd => EventKind::SessionEnd,
            EvEvent::Notification => EventKind::Notification,
        }
    }

    /// The matcher target: the Claude tool name on tool events, the start
    /// kind on SessionStart, and the empty string on every other event
    /// (their targets are not wired in Evener yet).
    pub fn target<'a>(self, event: &'a Event, names: &'a ToolNames) -> &'a str {
        match self {
            EvEvent::PreToolUse | EvEvent::PostToolUse => {
                event.tool_name().map_or("", |n| names.claude_name(n))
            }
            EvEvent::SessionStart => event.source.as_deref().unwrap_or(""),
            _ => "",
        }
    }
}

impl fmt::Display for EvEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a hooks file names an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventName {
    /// One of the nine fired events.
    Fired(EvEvent),
    /// A real Claude event Evener does not fire.
    Reserved(String),
    /// Neither: likely a typo.
    Unknown(String),
}

impl EventName {
    /// Classifies a key of a hooks file.
    pub fn classify(name: &str) -> EventName {
        if let Some(e) = EvEvent::from_name(name) {
            EventName::Fired(e)
        } else if RESERVED_EVENTS.contains(&name) {
            EventName::Reserved(name.to_owned())
        } else {
            EventName::Unknown(name.to_owned())
        }
    }

    /// The name as written.
    pub fn as_str(&self) -> &str {
        match self {
            EventName::Fired(e) => e.as_str(),
            EventName::Reserved(n) | EventName::Unknown(n) => n,
        }
    }
}

/// The JSON a command hook reads on stdin. Empty fields are omitted. The
/// tool input and result are borrowed from the event, not copied.
pub fn payload<'a>(ev: EvEvent, event: &'a Event, names: &ToolNames) -> JsonObject<'a> {
    let mut m = JsonObject::new();
    let mut put = |k: &'static str, v: Option<Json<'a>>| {
        if let Some(v) = v.filter(|v| !v.is_empty()) {
            m.insert(k, v);
        }
    };
    let owned = |v: Value| Json::Value(Cow::Owned(v));
    let s = |o: Option<&str>| o.map(|v| owned(Value::from(v)));
    let path = |p: Option<&std::path::PathBuf>| p.map(|p| owned(Value::from(p.to_string_lossy())));
    put("session_id", s(event.session_id.as_deref()));
    put("cwd", path(event.cwd.as_ref()));
    put("hook_event_name", Some(owned(Value::from(ev.as_str()))));
    let tool = event
        .tool
        .as_ref()
        .filter(|_| matches!(ev, EvEvent::PreToolUse | EvEvent::PostToolUse));
    if let Some(t) = tool {
        put(
            "tool_name",
            Some(owned(Value::from(names.claude_name(&t.name)))),
        );
        put("tool_input", Some(Json::raw(t.input.get())));
        put("tool_use_id", s(t.call_id.as_deref()));
    }
    let response: Option<Json<'a>> =
        tool.filter(|_| ev == EvEvent::PostToolUse)
            .and_then(|t| match (&t.output, &t.error) {
                (Some(o), _) => Some(Json::raw(o.get())),
                (None, Some(e)) => Some(owned(Value::from(e.as_str()))),
                (None, None) => None,
            });
    put("tool_response", response.clone());
    put("transcript_path", path(event.transcript_path.as_ref()));
    put("effort", s(event.effort.as_deref()));
    let prompt = s(event.prompt.as_deref()).filter(|_| ev == EvEvent::UserPromptSubmit);
    put("prompt", prompt.clone());
    put("message", s(event.message.as_deref()));
    put("reason", s(event.reason.as_deref()));
    // Legacy aliases, kept during Evener's migration.
    put("tool_result", response);
    put("user_prompt", prompt);
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_and_from_kind_agree() {
        for e in EvEvent::ALL {
            assert_eq!(EvEvent::from_kind(e.kind()), Some(e));
        }
        assert_eq!(
            EvEvent::from_kind(EventKind::ToolFailure),
            Some(EvEvent::PostToolUse)
        );
    }
}
