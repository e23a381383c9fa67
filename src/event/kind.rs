//! [`EventKind`]: the points of a turn where hooks run.

use std::fmt;

use serde::{Deserialize, Serialize};

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

    /// Whether this kind concerns one tool call (and so needs
    /// [`Event::tool`](super::Event::tool)).
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
