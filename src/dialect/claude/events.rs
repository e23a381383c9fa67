//! Claude Code's hook events: their names, which neutral event fires each,
//! what a matcher is tested against, and the JSON a hook reads on stdin.
//!
//! Payload fields come in the order the real CLI writes them (recorded with
//! Claude Code 2.1.197, `peers/claude` cases `a`, `e3`, `f2`, `g2`, `h`,
//! `r2_subagent`): `session_id`, `transcript_path`, `cwd`, then `prompt_id`
//! and `permission_mode` on the events that carry them, `agent_id` and
//! `agent_type` inside a sub-agent, `hook_event_name`, then the event's
//! own fields.

use std::borrow::Cow;
use std::fmt;
use std::path::Path;

use serde_json::Value;

use crate::dialect::payload::{Json, JsonObject};
use crate::event::{Event, EventKind};

/// Every event name Claude Code documents, so a configuration that names
/// one latch cannot fire yet loads with a note rather than a typo warning.
pub const KNOWN_EVENTS: [&str; 29] = [
    "SessionStart",
    "Setup",
    "InstructionsLoaded",
    "UserPromptSubmit",
    "UserPromptExpansion",
    "MessageDisplay",
    "PreToolUse",
    "PermissionRequest",
    "PermissionDenied",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "Notification",
    "SubagentStart",
    "SubagentStop",
    "TaskCreated",
    "TaskCompleted",
    "Stop",
    "StopFailure",
    "TeammateIdle",
    "ConfigChange",
    "CwdChanged",
    "DirectoryAdded",
    "FileChanged",
    "WorktreeCreate",
    "WorktreeRemove",
    "PreCompact",
    "PostCompact",
    "SessionEnd",
];

/// A Claude Code event latch fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClaudeEvent {
    /// `SessionStart` (neutral `session_start`).
    SessionStart,
    /// `UserPromptSubmit` (`user_prompt`).
    UserPromptSubmit,
    /// `PreToolUse` (`tool_before`).
    PreToolUse,
    /// `PermissionRequest` (`permission_request`).
    PermissionRequest,
    /// `PostToolUse` (`tool_after`).
    PostToolUse,
    /// `PostToolUseFailure` (`tool_failure`).
    PostToolUseFailure,
    /// `Notification` (`notification`).
    Notification,
    /// `Stop` (`stop`).
    Stop,
    /// `SubagentStart` (`subagent_start`).
    SubagentStart,
    /// `SubagentStop` (`subagent_stop`).
    SubagentStop,
    /// `PreCompact` (`compact_before`).
    PreCompact,
    /// `PostCompact` (`compact_after`).
    PostCompact,
    /// `SessionEnd` (`session_end`).
    SessionEnd,
}

impl ClaudeEvent {
    /// Every event latch fires.
    pub const ALL: [ClaudeEvent; 13] = [
        ClaudeEvent::SessionStart,
        ClaudeEvent::UserPromptSubmit,
        ClaudeEvent::PreToolUse,
        ClaudeEvent::PermissionRequest,
        ClaudeEvent::PostToolUse,
        ClaudeEvent::PostToolUseFailure,
        ClaudeEvent::Notification,
        ClaudeEvent::Stop,
        ClaudeEvent::SubagentStart,
        ClaudeEvent::SubagentStop,
        ClaudeEvent::PreCompact,
        ClaudeEvent::PostCompact,
        ClaudeEvent::SessionEnd,
    ];

    /// The name as written in settings.
    pub fn as_str(self) -> &'static str {
        match self {
            ClaudeEvent::SessionStart => "SessionStart",
            ClaudeEvent::UserPromptSubmit => "UserPromptSubmit",
            ClaudeEvent::PreToolUse => "PreToolUse",
            ClaudeEvent::PermissionRequest => "PermissionRequest",
            ClaudeEvent::PostToolUse => "PostToolUse",
            ClaudeEvent::PostToolUseFailure => "PostToolUseFailure",
            ClaudeEvent::Notification => "Notification",
            ClaudeEvent::Stop => "Stop",
            ClaudeEvent::SubagentStart => "SubagentStart",
            ClaudeEvent::SubagentStop => "SubagentStop",
            ClaudeEvent::PreCompact => "PreCompact",
            ClaudeEvent::PostCompact => "PostCompact",
            ClaudeEvent::SessionEnd => "SessionEnd",
        }
    }

    /// The event of that name, if latch fires it.
    pub fn from_name(name: &str) -> Option<ClaudeEvent> {
        ClaudeEvent::ALL.into_iter().find(|e| e.as_str() == name)
    }

    /// The event a neutral event fires, if any.
    pub fn from_kind(kind: EventKind) -> Option<ClaudeEvent> {
        Some(match kind {
            EventKind::SessionStart => ClaudeEvent::SessionStart,
            EventKind::UserPrompt => ClaudeEvent::UserPromptSubmit,
            EventKind::ToolBefore => ClaudeEvent::PreToolUse,
            EventKind::ToolAfter => ClaudeEvent::PostToolUse,
            EventKind::ToolFailure => ClaudeEvent::PostToolUseFailure,
            EventKind::Notification => ClaudeEvent::Notification,
            EventKind::Stop => ClaudeEvent::Stop,
            EventKind::SubagentStop => ClaudeEvent::SubagentStop,
            EventKind::SubagentStart => ClaudeEvent::SubagentStart,
            EventKind::PermissionRequest => ClaudeEvent::PermissionRequest,
            EventKind::CompactBefore => ClaudeEvent::PreCompact,
            EventKind::CompactAfter => ClaudeEvent::PostCompact,
            EventKind::SessionEnd => ClaudeEvent::SessionEnd,
            EventKind::UserPromptReady | EventKind::TurnStart | EventKind::TurnCancelled => {
                return None;
            }
        })
    }

    /// The neutral event that fires this one.
    pub fn kind(self) -> EventKind {
        match self {
            ClaudeEvent::SessionStart => EventKind::SessionStart,
            ClaudeEvent::UserPromptSubmit => EventKind::UserPrompt,
            ClaudeEvent::PreToolUse => EventKind::ToolBefore,
            ClaudeEvent::PermissionRequest => EventKind::PermissionRequest,
            ClaudeEvent::PostToolUse => EventKind::ToolAfter,
            ClaudeEvent::PostToolUseFailure => EventKind::ToolFailure,
            ClaudeEvent::Notification => EventKind::Notification,
            ClaudeEvent::Stop => EventKind::Stop,
            ClaudeEvent::SubagentStart => EventKind::SubagentStart,
            ClaudeEvent::SubagentStop => EventKind::SubagentStop,
            ClaudeEvent::PreCompact => EventKind::CompactBefore,
            ClaudeEvent::PostCompact => EventKind::CompactAfter,
            ClaudeEvent::SessionEnd => EventKind::SessionEnd,
        }
    }

    /// Whether the event concerns one tool call.
    pub fn is_tool(self) -> bool {
        matches!(
            self,
            ClaudeEvent::PreToolUse
                | ClaudeEvent::PermissionRequest
                | ClaudeEvent::PostToolUse
                | ClaudeEvent::PostToolUseFailure
        )
    }

    /// The field a matcher is tested against on this event, `None` when
    /// Claude Code ignores matchers on it (recorded: `o7`, a `Stop` or
    /// `UserPromptSubmit` matcher naming no tool still fires).
    fn target_field(self) -> Option<TargetField> {
        Some(match self {
            ClaudeEvent::PreToolUse
            | ClaudeEvent::PermissionRequest
            | ClaudeEvent::PostToolUse
            | ClaudeEvent::PostToolUseFailure => TargetField::Tool,
            ClaudeEvent::SessionStart => TargetField::Source,
            ClaudeEvent::SessionEnd => TargetField::Reason,
            ClaudeEvent::Notification => TargetField::NotificationType,
            ClaudeEvent::PreCompact | ClaudeEvent::PostCompact => TargetField::Trigger,
            ClaudeEvent::SubagentStart | ClaudeEvent::SubagentStop => TargetField::AgentType,
            ClaudeEvent::UserPromptSubmit | ClaudeEvent::Stop => return None,
        })
    }

    /// What a matcher is tested against for `event`; `tool` is the tool's
    /// name as hooks see it. `None` when Claude Code ignores matchers.
    pub fn target<'a>(self, event: &'a Event, tool: &'a str) -> Option<&'a str> {
        Some(match self.target_field()? {
            TargetField::Tool => tool,
            TargetField::Source => event.source.as_deref().unwrap_or("startup"),
            TargetField::Reason => event.reason.as_deref().unwrap_or("other"),
            TargetField::NotificationType => event.notification_type.as_deref().unwrap_or(""),
            TargetField::Trigger => event.trigger.as_deref().unwrap_or("auto"),
            TargetField::AgentType => event.agent_type.as_deref().unwrap_or(""),
        })
    }

    /// What matchers of this event are tested against, in words; `None`
    /// when Claude Code ignores them.
    pub fn target_kind(self) -> Option<&'static str> {
        Some(match self.target_field()? {
            TargetField::Tool => "the tool name",
            TargetField::Source => "source",
            TargetField::Reason => "reason",
            TargetField::NotificationType => "notification_type",
            TargetField::Trigger => "trigger",
            TargetField::AgentType => "agent_type",
        })
    }

    /// Whether the payload carries `permission_mode` (recorded: absent on
    /// `SessionStart`, `SessionEnd` and `SubagentStart`; the docs' examples
    /// leave it out of `Notification`, `PreCompact` and `PostCompact` too).
    fn has_permission_mode(self) -> bool {
        !matches!(
            self,
            ClaudeEvent::SessionStart
                | ClaudeEvent::SubagentStart
                | ClaudeEvent::SessionEnd
                | ClaudeEvent::Notification
                | ClaudeEvent::PreCompact
                | ClaudeEvent::PostCompact
        )
    }
}

/// The event field a matcher is tested against.
#[derive(Debug, Clone, Copy)]
enum TargetField {
    Tool,
    Source,
    Reason,
    NotificationType,
    Trigger,
    AgentType,
}

impl fmt::Display for ClaudeEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a payload needs besides the event.
pub struct PayloadFacts<'a> {
    /// The working directory hooks run in (`cwd`).
    pub cwd: &'a Path,
    /// The tool's name as hooks see it.
    pub tool: &'a str,
    /// `stop_hook_active` on `Stop` and `SubagentStop`: the agent is
    /// already continuing because of a Stop hook.
    pub stop_hook_active: bool,
    /// The tool's arguments in Claude Code's shape, when the vocabulary
    /// reshapes them (else the event's are sent as written, compacted).
    pub input: Option<&'a Value>,
    /// The tool's result in Claude Code's shape, when the vocabulary
    /// reshapes it.
    pub output: Option<&'a Value>,
}

/// The JSON a hook reads on stdin. The tool input and output are borrowed
/// from the event, not copied.
pub fn payload<'a>(ce: ClaudeEvent, event: &'a Event, facts: &PayloadFacts<'a>) -> JsonObject<'a> {
    let mut m = JsonObject::new();
    let put = |m: &mut JsonObject<'a>, k: &'static str, v: Value| {
        m.insert(k, Cow::Owned(v));
    };
    let text = |s: &Option<String>| Value::from(s.clone().unwrap_or_default());
    let path = |p: &Option<std::path::PathBuf>| {
        Value::from(
            p.as_ref()
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default(),
        )
    };
    put(&mut m, "session_id", text(&event.session_id));
    put(&mut m, "transcript_path", path(&event.transcript_path));
    put(&mut m, "cwd", Value::from(facts.cwd.to_string_lossy()));
    if ce != ClaudeEvent::SessionStart
        && let Some(id) = &event.prompt_id
    {
        put(&mut m, "prompt_id", Value::from(id.as_str()));
    }
    if ce.has_permission_mode() {
        put(
            &mut m,
            "permission_mode",
            Value::from(event.permission_mode.as_deref().unwrap_or("default")),
        );
    }
    if let (Some(id), Some(ty)) = (&event.agent_id, &event.agent_type) {
        put(&mut m, "agent_id", Value::from(id.as_str()));
        put(&mut m, "agent_type", Value::from(ty.as_str()));
    }
    put(&mut m, "hook_event_name", Value::from(ce.as_str()));
    let tool = event.tool.as_ref();
    match ce {
        ClaudeEvent::PreToolUse | ClaudeEvent::PostToolUse | ClaudeEvent::PostToolUseFailure => {
            put(&mut m, "tool_name", Value::from(facts.tool));
            match (facts.input, tool) {
                (Some(v), _) => m.insert("tool_input", Json::Value(Cow::Borrowed(v))),
                (None, Some(t)) => m.insert("tool_input", Json::compact(t.input.get())),
                (None, None) => {}
            }
            if ce == ClaudeEvent::PostToolUse {
                match (facts.output, tool.and_then(|t| t.output.as_ref())) {
                    (Some(v), _) => m.insert("tool_response", Json::Value(Cow::Borrowed(v))),
                    (None, Some(o)) => m.insert("tool_response", Json::compact(o.get())),
                    (None, None) => put(&mut m, "tool_response", Value::Null),
                }
            }
            put(
                &mut m,
                "tool_use_id",
                Value::from(tool.and_then(|t| t.call_id.clone()).unwrap_or_default()),
            );
            if ce == ClaudeEvent::PostToolUseFailure {
                put(
                    &mut m,
                    "error",
                    Value::from(tool.and_then(|t| t.error.clone()).unwrap_or_default()),
                );
                put(
                    &mut m,
                    "is_interrupt",
                    Value::from(tool.is_some_and(|t| t.interrupted)),
                );
            }
            if ce != ClaudeEvent::PreToolUse
                && let Some(ms) = tool.and_then(|t| t.duration_ms)
            {
                put(&mut m, "duration_ms", Value::from(ms));
            }
        }
        ClaudeEvent::PermissionRequest => {
            put(&mut m, "tool_name", Value::from(facts.tool));
            match (facts.input, tool) {
                (Some(v), _) => m.insert("tool_input", Json::Value(Cow::Borrowed(v))),
                (None, Some(t)) => m.insert("tool_input", Json::compact(t.input.get())),
                (None, None) => {}
            }
        }
        ClaudeEvent::SubagentStart => {}
        ClaudeEvent::UserPromptSubmit => put(&mut m, "prompt", text(&event.prompt)),
        ClaudeEvent::SessionStart => {
            put(
                &mut m,
                "source",
                Value::from(event.source.as_deref().unwrap_or("startup")),
            );
            if let Some(model) = &event.model {
                put(&mut m, "model", Value::from(model.as_str()));
            }
        }
        ClaudeEvent::SessionEnd => put(
            &mut m,
            "reason",
            Value::from(event.reason.as_deref().unwrap_or("other")),
        ),
        ClaudeEvent::Stop | ClaudeEvent::SubagentStop => {
            put(
                &mut m,
                "stop_hook_active",
                Value::from(facts.stop_hook_active),
            );
            if ce == ClaudeEvent::SubagentStop {
                put(
                    &mut m,
                    "agent_transcript_path",
                    path(&event.agent_transcript_path),
                );
            }
            put(
                &mut m,
                "last_assistant_message",
                text(&event.last_assistant_message),
            );
            // latch knows no background tasks or scheduled prompts.
            put(&mut m, "background_tasks", Value::Array(Vec::new()));
            put(&mut m, "session_crons", Value::Array(Vec::new()));
        }
        ClaudeEvent::Notification => {
            put(&mut m, "message", text(&event.message));
            if let Some(title) = &event.title {
                put(&mut m, "title", Value::from(title.as_str()));
            }
            put(&mut m, "notification_type", text(&event.notification_type));
        }
        ClaudeEvent::PreCompact | ClaudeEvent::PostCompact => {
            let c = event.compaction.as_ref();
            put(
                &mut m,
                "trigger",
                Value::from(event.trigger.as_deref().unwrap_or("auto")),
            );
            let (key, value) = if ce == ClaudeEvent::PreCompact {
                (
                    "custom_instructions",
                    c.and_then(|c| c.instructions.clone()),
                )
            } else {
                ("compact_summary", c.and_then(|c| c.summary.clone()))
            };
            put(&mut m, key, Value::from(value.unwrap_or_default()));
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_documented() {
        for e in ClaudeEvent::ALL {
            assert_eq!(ClaudeEvent::from_name(e.as_str()), Some(e));
            assert_eq!(ClaudeEvent::from_kind(e.kind()), Some(e));
            assert!(KNOWN_EVENTS.contains(&e.as_str()));
        }
        for k in EventKind::ALL {
            if let Some(e) = ClaudeEvent::from_kind(k) {
                assert_eq!(e.is_tool(), k.is_tool_event(), "{k}");
            }
        }
    }
}
