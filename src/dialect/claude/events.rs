//! Claude Code's hook events: their names, which neutral event fires each,
//! and what a matcher is tested against. The JSON a hook reads on stdin
//! is in `payload.rs`.

use std::fmt;
use std::path::Path;

use crate::event::{Event, EventKind};

/// Declares [`ClaudeEvent`] from one table: each event's variant, its name
/// in settings and the neutral kind that fires it.
macro_rules! claude_events {
    ($($(#[$doc:meta])* $variant:ident = $name:literal <- $kind:ident,)*) => {
        /// A Claude Code hook event. Every one Claude Code documents fires,
        /// each from one neutral [`EventKind`].
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ClaudeEvent {
            $($(#[$doc])* $variant,)*
        }

        impl ClaudeEvent {
            /// Every event, in the order of Claude Code's docs.
            pub const ALL: &'static [ClaudeEvent] = &[$(ClaudeEvent::$variant,)*];

            /// The name as written in settings.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(ClaudeEvent::$variant => $name,)*
                }
            }

            /// The neutral event that fires this one.
            pub fn kind(self) -> EventKind {
                match self {
                    $(ClaudeEvent::$variant => EventKind::$kind,)*
                }
            }

            /// The event a neutral event fires, if any.
            pub fn from_kind(kind: EventKind) -> Option<ClaudeEvent> {
                match kind {
                    $(EventKind::$kind => Some(ClaudeEvent::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

claude_events! {
    /// `SessionStart`.
    SessionStart = "SessionStart" <- SessionStart,
    /// `Setup` (`--init`, `--maintenance`).
    Setup = "Setup" <- Setup,
    /// `InstructionsLoaded`: a `CLAUDE.md` or rules file was loaded.
    InstructionsLoaded = "InstructionsLoaded" <- InstructionsLoaded,
    /// `PreModelSwitch` (Claude Code 2.1.332): the model is about to change.
    PreModelSwitch = "PreModelSwitch" <- ModelSwitchBefore,
    /// `PostModelSwitch` (Claude Code 2.1.332): the model changed.
    PostModelSwitch = "PostModelSwitch" <- ModelSwitchAfter,
    /// `UserPromptSubmit`.
    UserPromptSubmit = "UserPromptSubmit" <- UserPrompt,
    /// `UserPromptExpansion`: a typed `/command` expands into a prompt.
    UserPromptExpansion = "UserPromptExpansion" <- PromptExpansion,
    /// `PreSkillShellCommand` (Claude Code 2.1.332): a skill's or typed
    /// command's `` !`cmd` `` is about to run.
    PreSkillShellCommand = "PreSkillShellCommand" <- SkillShellBefore,
    /// `MessageDisplay`: assistant text is about to be shown.
    MessageDisplay = "MessageDisplay" <- MessageDisplay,
    /// `PreToolUse`.
    PreToolUse = "PreToolUse" <- ToolBefore,
    /// `PermissionRequest`.
    PermissionRequest = "PermissionRequest" <- PermissionRequest,
    /// `PermissionDenied`: the automatic permission check refused a tool.
    PermissionDenied = "PermissionDenied" <- PermissionDenied,
    /// `PostToolUse`.
    PostToolUse = "PostToolUse" <- ToolAfter,
    /// `PostToolUseFailure`.
    PostToolUseFailure = "PostToolUseFailure" <- ToolFailure,
    /// `PostToolBatch`: a parallel batch of tool calls resolved.
    PostToolBatch = "PostToolBatch" <- ToolBatch,
    /// `Notification`.
    Notification = "Notification" <- Notification,
    /// `SubagentStart`.
    SubagentStart = "SubagentStart" <- SubagentStart,
    /// `SubagentStop`.
    SubagentStop = "SubagentStop" <- SubagentStop,
    /// `TaskCreated`.
    TaskCreated = "TaskCreated" <- TaskCreated,
    /// `TaskCompleted`.
    TaskCompleted = "TaskCompleted" <- TaskCompleted,
    /// `Stop`.
    Stop = "Stop" <- Stop,
    /// `StopFailure`: the turn ended on a failed model request.
    StopFailure = "StopFailure" <- StopFailure,
    /// `TeammateIdle`.
    TeammateIdle = "TeammateIdle" <- TeammateIdle,
    /// `ConfigChange`.
    ConfigChange = "ConfigChange" <- ConfigChange,
    /// `CwdChanged`.
    CwdChanged = "CwdChanged" <- CwdChanged,
    /// `DirectoryAdded`.
    DirectoryAdded = "DirectoryAdded" <- DirectoryAdded,
    /// `FileChanged`.
    FileChanged = "FileChanged" <- FileChanged,
    /// `WorktreeCreate`.
    WorktreeCreate = "WorktreeCreate" <- WorktreeCreate,
    /// `WorktreeRemove`.
    WorktreeRemove = "WorktreeRemove" <- WorktreeRemove,
    /// `PreCompact`.
    PreCompact = "PreCompact" <- CompactBefore,
    /// `PostCompact`.
    PostCompact = "PostCompact" <- CompactAfter,
    /// `Elicitation`: a tool server asks the user for input.
    Elicitation = "Elicitation" <- Elicitation,
    /// `ElicitationResult`: the user answered it.
    ElicitationResult = "ElicitationResult" <- ElicitationResult,
    /// `SessionEnd`.
    SessionEnd = "SessionEnd" <- SessionEnd,
}

impl ClaudeEvent {
    /// The event of that name.
    pub fn from_name(name: &str) -> Option<ClaudeEvent> {
        ClaudeEvent::ALL
            .iter()
            .copied()
            .find(|e| e.as_str() == name)
    }

    /// Whether the event concerns one tool call.
    pub fn is_tool(self) -> bool {
        matches!(
            self,
            ClaudeEvent::PreToolUse
                | ClaudeEvent::PermissionRequest
                | ClaudeEvent::PermissionDenied
                | ClaudeEvent::PostToolUse
                | ClaudeEvent::PostToolUseFailure
                | ClaudeEvent::PreSkillShellCommand
        )
    }

    /// Whether the event is one of the model switch's.
    pub fn is_model_switch(self) -> bool {
        matches!(
            self,
            ClaudeEvent::PreModelSwitch | ClaudeEvent::PostModelSwitch
        )
    }

    /// The field a matcher is tested against on this event, `None` when
    /// Claude Code ignores matchers on it (recorded: `o7`, a `Stop` or
    /// `UserPromptSubmit` matcher naming no tool still fires).
    fn target_field(self) -> Option<TargetField> {
        use ClaudeEvent as E;
        Some(match self {
            E::PreToolUse
            | E::PermissionRequest
            | E::PermissionDenied
            | E::PostToolUse
            | E::PostToolUseFailure
            | E::PreSkillShellCommand => TargetField::Tool,
            E::PreModelSwitch | E::PostModelSwitch => TargetField::Model,
            E::SessionStart | E::ConfigChange | E::DirectoryAdded => TargetField::Source,
            E::SessionEnd => TargetField::Reason,
            E::Notification => TargetField::NotificationType,
            E::PreCompact | E::PostCompact | E::Setup => TargetField::Trigger,
            E::SubagentStart | E::SubagentStop => TargetField::AgentType,
            E::InstructionsLoaded => TargetField::LoadReason,
            E::UserPromptExpansion => TargetField::CommandName,
            E::StopFailure => TargetField::Error,
            E::FileChanged => TargetField::FileName,
            E::Elicitation | E::ElicitationResult => TargetField::Server,
            E::UserPromptSubmit
            | E::Stop
            | E::MessageDisplay
            | E::PostToolBatch
            | E::TaskCreated
            | E::TaskCompleted
            | E::TeammateIdle
            | E::CwdChanged
            | E::WorktreeCreate
            | E::WorktreeRemove => return None,
        })
    }

    /// What a matcher is tested against for `event`; `tool` is the tool's
    /// name as hooks see it. `None` when Claude Code ignores matchers, and
    /// when the value is empty: Claude Code then runs every group (read
    /// from its 2.1.197 code).
    pub fn target<'a>(self, event: &'a Event, tool: &'a str) -> Option<&'a str> {
        self.target_value(event, tool).filter(|t| !t.is_empty())
    }

    /// Whether Claude Code tests this event's matchers at all.
    pub fn has_matchers(self) -> bool {
        self.target_field().is_some()
    }

    fn target_value<'a>(self, event: &'a Event, tool: &'a str) -> Option<&'a str> {
        let or = |v: &'a Option<String>, default: &'static str| v.as_deref().unwrap_or(default);
        Some(match self.target_field()? {
            TargetField::Tool => tool,
            TargetField::Source => or(&event.source, self.default_source()),
            TargetField::Reason => or(&event.reason, "other"),
            TargetField::NotificationType => or(&event.notification_type, ""),
            TargetField::Trigger => or(&event.trigger, self.default_trigger()),
            TargetField::AgentType => or(&event.agent_type, ""),
            TargetField::LoadReason => event
                .instructions
                .as_ref()
                .and_then(|i| i.load_reason.as_deref())
                .unwrap_or("session_start"),
            TargetField::CommandName => event
                .expansion
                .as_ref()
                .and_then(|x| x.command_name.as_deref())
                .unwrap_or(""),
            TargetField::Error => or(&event.error, "unknown"),
            TargetField::FileName => event
                .file_path
                .as_deref()
                .and_then(Path::file_name)
                .and_then(|n| n.to_str())
                .unwrap_or(""),
            TargetField::Server => event
                .elicitation
                .as_ref()
                .and_then(|x| x.server.as_deref())
                .unwrap_or(""),
            // A model the harness does not know makes every group run
            // (Claude Code 2.1.332's `Jkn`); a `[1m]` suffix is not part of
            // the name matched (`ZMt`).
            TargetField::Model => {
                let switch = event.model_switch.as_ref()?;
                if switch.known == Some(false) {
                    return None;
                }
                strip_context_suffix(switch.to.as_deref().unwrap_or(""))
            }
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
            TargetField::LoadReason => "load_reason",
            TargetField::CommandName => "command_name",
            TargetField::Error => "error",
            TargetField::FileName => "the file's name",
            TargetField::Server => "mcp_server_name",
            TargetField::Model => "to_model",
        })
    }

    /// `source` when the event gives none.
    pub(super) fn default_source(self) -> &'static str {
        match self {
            ClaudeEvent::ConfigChange => "project_settings",
            ClaudeEvent::DirectoryAdded => "slash_command",
            _ => "startup",
        }
    }

    /// `trigger` when the event gives none.
    fn default_trigger(self) -> &'static str {
        if self == ClaudeEvent::Setup {
            "init"
        } else {
            "auto"
        }
    }

    /// Whether the payload carries `permission_mode`: on the prompt, tool
    /// and stop events only (recorded: absent on `SessionStart`,
    /// `SessionEnd`, `SubagentStart`, `Setup`, `InstructionsLoaded`,
    /// `StopFailure`, `TaskCreated`, `TaskCompleted`, `CwdChanged` and
    /// `FileChanged`; the docs' examples leave it out of `Notification`,
    /// `PreCompact` and `PostCompact` too).
    pub(super) fn has_permission_mode(self) -> bool {
        use ClaudeEvent as E;
        matches!(
            self,
            E::UserPromptSubmit
                | E::UserPromptExpansion
                | E::PreToolUse
                | E::PermissionRequest
                | E::PermissionDenied
                | E::PostToolUse
                | E::PostToolUseFailure
                | E::PostToolBatch
                | E::Stop
                | E::SubagentStop
                | E::PreSkillShellCommand
        )
    }

    /// Whether the payload carries `effort` (after `permission_mode`) when
    /// the event has one (recorded: `r3_effort_fields`).
    pub(super) fn has_effort(self) -> bool {
        use ClaudeEvent as E;
        matches!(
            self,
            E::PreToolUse
                | E::PermissionDenied
                | E::PostToolUse
                | E::PostToolUseFailure
                | E::PostToolBatch
                | E::Stop
                | E::SubagentStop
                | E::PreSkillShellCommand
        )
    }

    /// Whether `handler` has `onFailure: "block"` and it counts on this
    /// event (Claude Code 2.1.332's `Bkn`): not on `Stop`, `SubagentStop`,
    /// `TaskCompleted` and `TeammateIdle`, nor, for an `mcp_tool`
    /// handler, on `SessionStart` and `Setup`.
    pub fn on_failure_blocks(self, handler: &super::load::Handler) -> bool {
        use ClaudeEvent as E;
        if !handler.on_failure_blocks {
            return false;
        }
        let kind = &handler.kind;
        let never = matches!(
            self,
            E::Stop | E::SubagentStop | E::TaskCompleted | E::TeammateIdle
        );
        let mcp_never = matches!(kind, super::load::HandlerKind::McpTool { .. })
            && matches!(self, E::SessionStart | E::Setup);
        !(never || mcp_never)
    }

    /// Whether Claude Code starts the event's hooks without waiting for
    /// them, ignoring what they say (recorded: `r3_instructions_loaded_slow_ctx`,
    /// `r3_stop_failure_outputs`). Claude Code does not wait for
    /// `CwdChanged` hooks either (`r3_cwd_changed_slow`), but latch does,
    /// so that their `watchPaths` reach the outcome.
    pub fn is_unawaited(self) -> bool {
        matches!(
            self,
            ClaudeEvent::InstructionsLoaded | ClaudeEvent::StopFailure
        )
    }

    /// Whether Claude Code gives the event's handlers a `CLAUDE_ENV_FILE`
    /// whose exports reach later shell tool calls.
    pub fn has_env_file(self) -> bool {
        matches!(
            self,
            ClaudeEvent::SessionStart
                | ClaudeEvent::Setup
                | ClaudeEvent::CwdChanged
                | ClaudeEvent::FileChanged
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
    LoadReason,
    CommandName,
    Error,
    FileName,
    Server,
    Model,
}

/// A model name without the `[1m]` suffix (any case) that asks for the
/// long context window (Claude Code 2.1.332's `/\[1m\]$/i`).
fn strip_context_suffix(model: &str) -> &str {
    let n = model.len();
    if n >= 4 && model.is_char_boundary(n - 4) && model[n - 4..].eq_ignore_ascii_case("[1m]") {
        &model[..n - 4]
    } else {
        model
    }
}

impl fmt::Display for ClaudeEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether a `config_change` concerns managed policy, which Claude Code
/// applies whatever its hooks say (they cannot block it).
pub fn is_policy_change(event: &Event) -> bool {
    event.source.as_deref() == Some("policy_settings")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_documented() {
        for &e in ClaudeEvent::ALL {
            assert_eq!(ClaudeEvent::from_name(e.as_str()), Some(e));
            assert_eq!(ClaudeEvent::from_kind(e.kind()), Some(e));
        }
        assert_eq!(ClaudeEvent::ALL.len(), 34);
        for k in EventKind::ALL {
            if let Some(e) = ClaudeEvent::from_kind(k) {
                assert_eq!(e.is_tool(), k.is_tool_event(), "{k}");
            }
        }
    }
}
