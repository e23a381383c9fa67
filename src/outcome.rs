//! The [`Outcome`]: the one decision the harness applies after an event's hooks ran.
//!
//! Every field is documented for users in `docs/outcome.md`.
//!
//! # Example
//!
//! ```
//! use latch::{Decision, Outcome};
//!
//! // `latch fire` prints the same outcome as JSON; a harness in another
//! // language reads it with the same field names.
//! let outcome: Outcome = serde_json::from_str(
//!     r#"{"event": "tool_before", "decision": "deny",
//!         "reasons": [{"hook": "no-sudo", "text": "no sudo"}]}"#,
//! )?;
//! assert_eq!(outcome.decision, Decision::Deny);
//! assert!(outcome.is_denied());
//! assert_eq!(outcome.reasons[0].text, "no sudo");
//! # Ok::<(), serde_json::Error>(())
//! ```

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::diag::SourceRef;
use crate::event::EventKind;

/// Whether the harness goes on with what the event describes.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Go on (possibly with rewritten input, output or prompt).
    #[default]
    Proceed,
    /// Go on, and skip the harness's own permission prompt: a hook allowed
    /// the tool call (the claude dialect's `permissionDecision: "allow"`).
    Allow,
    /// Ask the user before running the tool, showing `reasons`; a harness
    /// that cannot ask treats it as a deny (claude `ask`).
    Ask,
    /// Stop the agent here without running the tool, so that the session
    /// can be resumed later (claude `defer`); nothing runs after it.
    Defer,
    /// Refuse the tool call, prompt or operation; `reasons` says why.
    Deny,
}

impl Decision {
    /// How strongly the decision holds back the event: when dialects or
    /// hooks disagree, the strongest wins (deny, then defer, ask, allow,
    /// proceed).
    pub fn strength(self) -> u8 {
        match self {
            Decision::Proceed => 0,
            Decision::Allow => 1,
            Decision::Ask => 2,
            Decision::Defer => 3,
            Decision::Deny => 4,
        }
    }
}

/// One hook's reason for a deny.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Reason {
    /// The label of the hook that denied.
    pub hook: String,
    /// The reason, as the hook gave it.
    pub text: String,
}

/// Where injected context lands in what the model reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Placement {
    /// Appended to the system prompt (session and turn start events).
    SystemPrompt,
    /// Added beside the user's prompt, for this turn.
    WithPrompt,
    /// A message right after the tool's result.
    AfterToolResult,
    /// Added after compaction ran, so it survives compaction verbatim.
    AfterCompaction,
    /// Leading blocks of the session's first user message, before the
    /// prompt (claude `SessionStart`).
    FirstUserMessage,
    /// Appended to the text of the tool's result, after a blank line
    /// (claude `async` hooks' answers and `PostToolBatch` context; Claude
    /// Code does so only when nothing but tool results comes before it,
    /// see `dialect::claude::message`).
    AppendToToolResult,
    /// Added to the instructions of the compaction request, on
    /// `compact_before` (claude `PreCompact` plain stdout).
    CompactionPrompt,
}

/// Context a hook asked to show the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Injection {
    /// The label of the hook that injected it.
    pub hook: String,
    /// Where it lands.
    pub placement: Placement,
    /// The text, already capped and rendered as the dialect shows it.
    pub text: String,
    /// The agent sends this text as a message of its own rather than as an
    /// attachment folded into the tool result before it. Only the claude
    /// `PermissionDenied` retry reminder is one (Claude Code sends it so;
    /// see the claude dialect's `message` module). Left out of the JSON
    /// when `false`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub own_message: bool,
}

/// Why the model is told something about a hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NoticeKind {
    /// A hook rewrote the tool input, the tool output or the prompt.
    Rewrite,
    /// A hook blocked the event.
    Block,
    /// A hook made the agent keep working.
    Continuation,
    /// A hook failed and was skipped.
    Failure,
    /// A hook asked for something the event cannot do, and it was ignored.
    Ignored,
    /// A hook's rewrite or text was rejected and the original kept.
    Rejected,
}

/// A message for the model about what a hook did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Notice {
    /// The hook's label.
    pub hook: String,
    /// The event, in the dialect's spelling.
    pub event: String,
    /// Why the model is told.
    pub kind: NoticeKind,
    /// The rendered text the model reads (for example a `<hook>` tag).
    pub text: String,
}

/// A request that the agent keep working instead of stopping.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Continuation {
    /// The text that arrives as the next input, as if the user sent it.
    pub prompt: String,
    /// The labels of the hooks that asked for it.
    pub hooks: Vec<String>,
}

/// A hook's request that the agent loop end once the event is handled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Halt {
    /// The labels of the hooks that asked.
    pub hooks: Vec<String>,
    /// What to tell the user (never the model), if a hook said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// On a prompt (claude: `user_prompt`, `prompt_expansion`): the text
    /// the user reads, `Operation stopped by hook: …`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// With `message`: what the harness keeps in the conversation after
    /// the prompt, as a user message the model reads with the next prompt
    /// (claude: `message` in a reminder that says it came from a hook, as
    /// Claude Code 2.1.332 keeps it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept: Option<String>,
}

/// A session event a hook published.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PublishedEvent {
    /// The session event's type, such as `repo.file.changed`.
    #[serde(rename = "type")]
    pub event_type: String,
    /// One line the model reads.
    #[serde(default)]
    pub summary: String,
    /// Structured data, a JSON object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    /// `queue` or `wake`, when the hook chose.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delivery: Option<String>,
    /// Who published it.
    pub source: String,
}

/// How one hook run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// It ran and its answer was applied (or it had nothing to say).
    Ok,
    /// It ran and blocked (or denied) the event.
    Blocked,
    /// It ran and asked the agent to continue.
    Continued,
    /// It failed; the event went on without it.
    Failed,
    /// It was not run (disabled at load, or unsupported).
    Skipped,
    /// It was not run: its source needs the user's approval and it is not
    /// approved (or changed since), under the `require` trust policy.
    Untrusted,
}

/// A coarse, sanitized category for a failed or unusual run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCategory {
    /// The hook's output could not be parsed.
    ParseError,
    /// The hook is declared for an event that never fires.
    UnsupportedEvent,
    /// The handler type is not supported.
    UnsupportedHandler,
    /// The matcher did not compile.
    InvalidMatcher,
    /// The hook ran past its time limit and was killed.
    Timeout,
    /// The dispatch was cancelled while the hook ran.
    Cancelled,
    /// The command could not start, exited with an unexpected code, or died by a signal.
    CommandError,
    /// A prompt handler failed.
    PromptError,
    /// The hook blocked the event.
    HookBlocked,
    /// The hook printed more than the dialect allows.
    OutputTooLarge,
    /// The hook's text was not valid UTF-8.
    InvalidText,
    /// The hook's rewrite failed the harness's validation.
    InvalidRewrite,
}

/// The record of one hook run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HookRun {
    /// The hook's label (its name, or a fallback the dialect documents).
    pub hook: String,
    /// The dialect that ran it.
    pub dialect: String,
    /// The event, in the dialect's spelling.
    pub event: String,
    /// Where the hook was declared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceRef>,
    /// How it ended.
    pub status: RunStatus,
    /// The exit code, when the process exited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The signal that killed the process, when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// Wall-clock time from spawn to the end of the output, in milliseconds.
    pub duration_ms: f64,
    /// The category of what went wrong, if anything did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorCategory>,
    /// A one-line explanation of the status, for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Whether stdout went over the cap and was cut.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stdout_truncated: bool,
    /// Whether stderr went over the cap and was cut.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stderr_truncated: bool,
    /// Output fields the hook set that this event does not honour.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ignored_fields: Vec<String>,
    /// Its trust state, when a trust policy checked it (see
    /// [`crate::trust`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trust: Option<TrustWord>,
    /// When its process started, for telemetry (not serialized).
    #[serde(skip)]
    #[schemars(skip)]
    pub started: Option<std::time::SystemTime>,
}

/// A hook's trust state in its run record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TrustWord {
    /// Its source needs no approval.
    NotRequired,
    /// Approved and unchanged.
    Approved,
    /// Never approved.
    New,
    /// Changed since it was approved.
    Changed,
    /// The trust store could not be read.
    Unknown,
}

impl HookRun {
    /// A record with the given identity, status `Ok` and no details.
    pub(crate) fn new(hook: &str, dialect: &str, event: &str, source: Option<SourceRef>) -> Self {
        HookRun {
            hook: hook.to_owned(),
            dialect: dialect.to_owned(),
            event: event.to_owned(),
            source,
            status: RunStatus::Ok,
            exit_code: None,
            signal: None,
            duration_ms: 0.0,
            error: None,
            message: None,
            stdout_truncated: false,
            stderr_truncated: false,
            ignored_fields: Vec::new(),
            trust: None,
            started: None,
        }
    }

    /// Sets the duration.
    pub(crate) fn took(&mut self, d: Duration) {
        // Microsecond precision is plenty and keeps the JSON readable.
        self.duration_ms = (d.as_secs_f64() * 1_000_000.0).round() / 1000.0;
    }

    /// Marks the run failed with a category and a message.
    pub(crate) fn fail(&mut self, category: ErrorCategory, message: impl Into<String>) {
        self.status = RunStatus::Failed;
        self.error = Some(category);
        self.message = Some(message.into());
    }
}

/// What the harness must do after an event's hooks ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Outcome {
    /// The event kind this outcome answers.
    pub event: EventKind,
    /// Proceed or deny.
    pub decision: Decision,
    /// Every deny reason, in configuration order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<Reason>,
    /// The tool input as rewritten by hooks, when a hook rewrote it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_input: Option<Value>,
    /// The tool output as the model should read it, when a hook rewrote it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_output: Option<String>,
    /// The prompt as rewritten by hooks, when a hook rewrote it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// Context to inject for the model, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub context: Vec<Injection>,
    /// What the model is told about hooks that rewrote, blocked, continued or failed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<Notice>,
    /// Messages for the user (never sent to the model).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Session events hooks published.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<PublishedEvent>,
    /// On a stop event: keep the agent working with this prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continuation: Option<Continuation>,
    /// Variables the harness sets for its later shell tool calls in this
    /// session (claude: what `SessionStart` hooks wrote to `CLAUDE_ENV_FILE`).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub shell_env: std::collections::BTreeMap<String, String>,
    /// End the agent loop once this event is handled (for a `tool_before`
    /// that proceeds: after the tool ran); no further model call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub halt: Option<Halt>,
    /// On `permission_denied`: a hook asks the harness to let the model
    /// try the tool call again.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub retry: bool,
    /// Files the harness should watch and report with `file_changed`
    /// events (claude: `watchPaths`), in the order hooks gave them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub watch_paths: Vec<String>,
    /// On `worktree_create`: where a hook created the worktree (the
    /// harness uses it instead of making one itself).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worktree_path: Option<String>,
    /// On `elicitation` and `elicitation_result`: a hook's answer for the
    /// user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationAnswer>,
    /// On `message_display`: the text to show instead of the model's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display: Option<String>,
    /// On `permission_request`: permission rules hooks ask the harness to
    /// apply (claude: `updatedPermissions` with an allow or a deny), in
    /// configuration order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub permission_updates: Vec<PermissionUpdates>,
    /// The session's new title, when a hook gave one that differs from its
    /// title (claude: `sessionTitle`, on a `user_prompt` that goes on and
    /// on a `session_start` from `startup` or `resume`), without control
    /// characters and at most 200 characters long.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_title: Option<String>,
    /// On `session_start`: a user message the harness sends, as a prompt
    /// of its own, before the user's first (claude: `initialUserMessage`,
    /// on `startup` and `resume`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_user_message: Option<String>,
    /// On `session_start`: a hook added skills or commands, and the
    /// harness looks for them again before the session goes on (claude:
    /// `reloadSkills`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reload_skills: bool,
    /// Terminal escape sequences (titles, desktop notifications, progress,
    /// the bell) hooks ask the harness to write to the user's terminal
    /// (claude: `terminalSequence`, as Claude Code's allowlist lets it
    /// through), in configuration order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub terminal_sequences: Vec<String>,
    /// One record per hook that matched the event, in run order.
    #[serde(default)]
    pub runs: Vec<HookRun>,
}

/// The permission rules one hook asks the harness to apply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PermissionUpdates {
    /// Which hook asked.
    pub hook: String,
    /// The entries, as the hook wrote them (claude: `addRules`,
    /// `replaceRules`, `removeRules`, `setMode`, `addDirectories`,
    /// `removeDirectories`, each with its `destination`).
    pub updates: Vec<Value>,
}

/// A hook's answer to a tool server's request for user input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ElicitationAnswer {
    /// Which hook answered.
    pub hook: String,
    /// `accept`, `decline` or `cancel`.
    pub action: String,
    /// The answer's content, with `accept`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Value>,
}

impl Outcome {
    /// An outcome that lets the event proceed unchanged.
    pub fn proceed(event: EventKind) -> Self {
        Outcome {
            event,
            decision: Decision::Proceed,
            reasons: Vec::new(),
            tool_input: None,
            tool_output: None,
            prompt: None,
            context: Vec::new(),
            notices: Vec::new(),
            warnings: Vec::new(),
            events: Vec::new(),
            continuation: None,
            shell_env: std::collections::BTreeMap::new(),
            halt: None,
            retry: false,
            watch_paths: Vec::new(),
            worktree_path: None,
            elicitation: None,
            display: None,
            permission_updates: Vec::new(),
            session_title: None,
            initial_user_message: None,
            reload_skills: false,
            terminal_sequences: Vec::new(),
            runs: Vec::new(),
        }
    }

    /// Whether the event is denied.
    pub fn is_denied(&self) -> bool {
        self.decision == Decision::Deny
    }

    /// Folds the outcome of a later dialect into this one: the strongest
    /// decision wins (see [`Decision::strength`]),
    /// reasons, context, notices, warnings, events and runs append in order,
    /// and a later rewrite replaces an earlier one (the later dialect saw it).
    pub(crate) fn absorb(&mut self, later: Outcome) {
        if later.decision.strength() > self.decision.strength() {
            self.decision = later.decision;
        }
        self.reasons.extend(later.reasons);
        if later.tool_input.is_some() {
            self.tool_input = later.tool_input;
        }
        if later.tool_output.is_some() {
            self.tool_output = later.tool_output;
        }
        if later.prompt.is_some() {
            self.prompt = later.prompt;
        }
        self.context.extend(later.context);
        self.notices.extend(later.notices);
        self.warnings.extend(later.warnings);
        self.events.extend(later.events);
        match (&mut self.continuation, later.continuation) {
            (Some(mine), Some(theirs)) => {
                mine.prompt.push('\n');
                mine.prompt.push_str(&theirs.prompt);
                mine.hooks.extend(theirs.hooks);
            }
            (slot @ None, Some(theirs)) => *slot = Some(theirs),
            (_, None) => {}
        }
        self.shell_env.extend(later.shell_env);
        match (&mut self.halt, later.halt) {
            (Some(mine), Some(theirs)) => {
                mine.hooks.extend(theirs.hooks);
                if mine.reason.is_none() {
                    mine.reason = theirs.reason;
                }
                if mine.message.is_none() {
                    (mine.message, mine.kept) = (theirs.message, theirs.kept);
                }
            }
            (slot @ None, Some(theirs)) => *slot = Some(theirs),
            (_, None) => {}
        }
        self.retry |= later.retry;
        self.watch_paths.extend(later.watch_paths);
        if later.worktree_path.is_some() {
            self.worktree_path = later.worktree_path;
        }
        if later.elicitation.is_some() {
            self.elicitation = later.elicitation;
        }
        if later.display.is_some() {
            self.display = later.display;
        }
        self.permission_updates.extend(later.permission_updates);
        if later.session_title.is_some() {
            self.session_title = later.session_title;
        }
        if later.initial_user_message.is_some() {
            self.initial_user_message = later.initial_user_message;
        }
        self.reload_skills |= later.reload_skills;
        self.terminal_sequences.extend(later.terminal_sequences);
        self.runs.extend(later.runs);
    }
}
