//! The [`Engine`]: holds the loaded dialects and dispatches events to them.
//!
//! # Example
//!
//! ```
//! use latch::{Decision, Engine, Event, Session};
//!
//! // An engine without dialects lets everything through; add dialects with
//! // `with_dialect` (see `latch::dialect`).
//! let engine = Engine::new();
//! let event = Event::tool_before("shell", serde_json::json!({"cmd": "ls"}));
//! let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
//! let outcome = runtime.block_on(engine.dispatch(&event, &Session::in_memory(None)))?;
//! assert_eq!(outcome.decision, Decision::Proceed);
//! assert!(outcome.runs.is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;

use crate::diag::Diagnostic;
use crate::dialect::Dialect;
use crate::event::{Event, EventError};
use crate::outcome::Outcome;
use crate::pipeline::DispatchContext;
// The traits a harness implements to plug into the engine.
pub use crate::pipeline::{
    Background, BackgroundJob, BoxFuture, DetachedJob, HarnessHandlers, InputValidator,
    ObjectArguments, ToolAnswer,
};
use crate::run::{Cancel, Runner};
use crate::session::Session;

/// Runs every loaded dialect's hooks for an event and merges the outcomes.
///
/// Dialects run one after another in the order they were added; each sees
/// the tool input, tool output and prompt as the previous one rewrote them,
/// and any deny wins.
pub struct Engine {
    dialects: Vec<Box<dyn Dialect>>,
    runner: Runner,
    validator: Box<dyn InputValidator>,
    background: Option<Box<dyn crate::pipeline::Background>>,
    harness: Option<Box<dyn crate::pipeline::HarnessHandlers>>,
    trust: Option<crate::trust::Gate>,
    audit: crate::audit::AuditMode,
    telemetry: Option<std::sync::Arc<crate::telemetry::Telemetry>>,
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new()
    }
}

impl Engine {
    /// An engine with no dialects, the default runner and validator.
    pub fn new() -> Self {
        Engine {
            dialects: Vec::new(),
            runner: Runner::default(),
            validator: Box::new(ObjectArguments),
            background: None,
            harness: None,
            trust: None,
            audit: crate::audit::AuditMode::Off,
            telemetry: None,
        }
    }

    /// Sends a span per dispatch, with a child span per hook run, to the
    /// OpenTelemetry collector of `telemetry` (see [`crate::telemetry`]).
    pub fn with_telemetry(
        mut self,
        telemetry: std::sync::Arc<crate::telemetry::Telemetry>,
    ) -> Self {
        self.telemetry = Some(telemetry);
        self
    }

    /// Appends one record per hook run to the session's audit log (see
    /// [`crate::audit`]); off by default. A session in memory keeps none.
    pub fn with_audit(mut self, mode: crate::audit::AuditMode) -> Self {
        self.audit = mode;
        self
    }

    /// Checks each hook against the trust policies and approvals of `gate`
    /// before it runs (see [`crate::trust`]), and the settings of files
    /// that need approval which shape every hook (claude's `env` and
    /// `disableAllHooks`), for the dialects added before and after. A gate
    /// whose policies are all `off` is dropped: nothing is checked.
    pub fn with_trust(mut self, gate: crate::trust::Gate) -> Self {
        self.trust = gate.active().then_some(gate);
        if let Some(gate) = &self.trust {
            for d in &mut self.dialects {
                d.gate_settings(gate);
            }
        }
        self
    }

    /// Every hook the loaded dialects would run, as trust sees it, in
    /// dialect and file order.
    pub fn definitions(&self) -> Vec<crate::trust::Definition> {
        self.dialects.iter().flat_map(|d| d.definitions()).collect()
    }

    /// [`Engine::definitions`] as a dispatch of `event` checks them:
    /// relative paths in commands resolve where the hooks run for it.
    pub fn definitions_for(&self, event: &Event) -> Vec<crate::trust::Definition> {
        self.dialects
            .iter()
            .flat_map(|d| d.definitions_for(event))
            .collect()
    }

    /// Adds a loaded dialect.
    pub fn with_dialect(mut self, dialect: impl Dialect + 'static) -> Self {
        let mut dialect: Box<dyn Dialect> = Box::new(dialect);
        if let Some(gate) = &self.trust {
            dialect.gate_settings(gate);
        }
        self.dialects.push(dialect);
        self
    }

    /// Runs background hooks (the claude dialect's `async` handlers)
    /// through `background`; without one they are skipped.
    pub fn with_background(mut self, background: impl Background + 'static) -> Self {
        self.background = Some(Box::new(background));
        self
    }

    /// Runs the claude dialect's `agent` and `mcp_tool` handlers through
    /// the harness's sub-agents and tool servers; without this they are
    /// skipped.
    pub fn with_harness_handlers(mut self, handlers: impl HarnessHandlers + 'static) -> Self {
        self.harness = Some(Box::new(handlers));
        self
    }

    /// Replaces the validator for rewritten tool input.
    pub fn with_validator(mut self, validator: impl InputValidator + 'static) -> Self {
        self.validator = Box::new(validator);
        self
    }

    /// Replaces the runner (for example to change the kill grace period).
    pub fn with_runner(mut self, runner: Runner) -> Self {
        self.runner = runner;
        self
    }

    /// The loaded dialects.
    pub fn dialects(&self) -> impl Iterator<Item = &dyn Dialect> {
        self.dialects.iter().map(|d| d.as_ref())
    }

    /// The trust policies and approvals the dispatches check, if any
    /// policy asks for anything (see [`Engine::with_trust`]).
    pub fn trust_gate(&self) -> Option<&crate::trust::Gate> {
        self.trust.as_ref()
    }

    /// Every load diagnostic of every dialect.
    pub fn diagnostics(&self) -> impl Iterator<Item = &Diagnostic> {
        self.dialects.iter().flat_map(|d| d.diagnostics())
    }

    /// Runs the hooks for `event`. Fails only if the event itself is
    /// malformed; every hook failure is part of the [`Outcome`].
    pub async fn dispatch(&self, event: &Event, session: &Session) -> Result<Outcome, EventError> {
        self.dispatch_cancellable(event, session, &Cancel::never())
            .await
    }

    /// Like [`Engine::dispatch`]; when `cancel` fires, the running hook's
    /// process group is killed, its record says `cancelled`, and no further
    /// hook runs. The outcome keeps everything decided before (a deny stays).
    pub async fn dispatch_cancellable(
        &self,
        event: &Event,
        session: &Session,
        cancel: &Cancel,
    ) -> Result<Outcome, EventError> {
        self.dispatch_lending(event, session, cancel, None).await
    }

    /// Like [`Engine::dispatch_cancellable`]; the hooks that run alone may
    /// also block the thread as `lend` allows (`latch serve` lends its
    /// thread while it has nothing else to do).
    pub(crate) async fn dispatch_lending(
        &self,
        event: &Event,
        session: &Session,
        cancel: &Cancel,
        lend: Option<crate::run::Lend<'_>>,
    ) -> Result<Outcome, EventError> {
        event.validate()?;
        let started = std::time::SystemTime::now();
        let event_id = event.id.clone().unwrap_or_else(new_event_id);
        let cx = DispatchContext {
            runner: &self.runner,
            session,
            validator: self.validator.as_ref(),
            event_id: &event_id,
            cancel,
            background: self.background.as_deref(),
            harness: self.harness.as_deref(),
            trust: self.trust.as_ref(),
            lend,
        };
        let mut outcome = Outcome::proceed(event.event);
        // Whether `outcome` is still the empty one: the first dialect's
        // part then becomes it whole (absorbing into an empty outcome
        // gives the part itself), without copying each list.
        let mut empty = true;
        let mut absorb = |outcome: &mut Outcome, part: Outcome| {
            if std::mem::take(&mut empty) {
                let kind = outcome.event;
                *outcome = part;
                outcome.event = kind;
            } else {
                outcome.absorb(part);
            }
        };
        // The event is copied only if a dialect rewrites it: a large tool
        // input or output is not duplicated for nothing.
        let mut current = std::borrow::Cow::Borrowed(event);
        for dialect in &self.dialects {
            // Once cancelled, later dialects start nothing (a peen
            // checkpoint begun now would be left uncertain for no run), but
            // each answers by its own failure rule: a dialect whose
            // failures deny must not read as "nothing objected".
            if cancel.is_cancelled() {
                let why = "the dispatch was cancelled before its hooks ran";
                if let Ok(part) = crate::panic::catch(|| dialect.internal_failure(&current, why)) {
                    absorb(&mut outcome, part);
                }
                continue;
            }
            // A panic inside one dialect (a latch bug) is that dialect's
            // failure, answered by its own rule; the others still run and
            // the outcome is still printed.
            let part = match crate::panic::catch_future(|| dialect.dispatch(&current, &cx)).await {
                Ok(part) => part,
                Err(m) => internal_failure(dialect.as_ref(), &current, &m),
            };
            if let Some(input) = &part.tool_input
                && current.tool.is_some()
                && let Some(tool) = current.to_mut().tool.as_mut()
            {
                tool.input = crate::event::RawJson::from_value(input);
            }
            if let Some(output) = &part.tool_output
                && current.tool.is_some()
                && let Some(tool) = current.to_mut().tool.as_mut()
            {
                tool.output = Some(crate::event::RawJson::from(Value::String(output.clone())));
            }
            if let Some(prompt) = &part.prompt {
                current.to_mut().prompt = Some(prompt.clone());
            }
            absorb(&mut outcome, part);
        }
        if let Some(id) = session
            .id()
            .filter(|_| self.audit != crate::audit::AuditMode::Off)
        {
            let records = crate::audit::records(self.audit, id, event, &event_id, &outcome);
            if let Err(e) = session.append_audit(&crate::audit::to_lines(&records)) {
                outcome
                    .warnings
                    .push(format!("latch could not write the audit log: {e}"));
            }
        }
        if let Some(telemetry) = &self.telemetry {
            telemetry.record(session.id(), event, &event_id, &outcome, started);
        }
        Ok(outcome)
    }
}

/// A dialect's answer for a dispatch that panicked with `message`: its own
/// failure rule, or a deny if even that panics. On an event a hook can
/// deny (a tool call, a prompt) the answer is a deny whatever the rule: the
/// dialect may have decided a deny before it failed, and the outcome it
/// was building is lost with the panic.
fn internal_failure(dialect: &dyn Dialect, event: &Event, message: &str) -> Outcome {
    use crate::event::EventKind;
    let what = format!("latch failed internally while running its hooks ({message})");
    let mut out =
        crate::panic::catch(|| dialect.internal_failure(event, &what)).unwrap_or_else(|m| {
            crate::dialect::failed::failure_outcome(
                dialect.name(),
                event,
                &format!("{what}; then its failure rule failed too ({m})"),
                true,
            )
        });
    if !out.is_denied() && matches!(event.event, EventKind::ToolBefore | EventKind::UserPrompt) {
        out.decision = crate::outcome::Decision::Deny;
        out.reasons.push(crate::outcome::Reason {
            hook: dialect.name().to_owned(),
            text: format!(
                "{}: {what}; a deny it decided may have been lost",
                dialect.name()
            ),
        });
    }
    out
}

/// A fresh id for an event occurrence.
fn new_event_id() -> String {
    unique_id("evt")
}

/// A fresh id, `<prefix>-…`: time, process and a counter, so ids from
/// overlapping `latch fire` processes never collide.
pub(crate) fn unique_id(prefix: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    // `process::id` is a system call each time; latch never forks.
    static PID: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    let pid = *PID.get_or_init(std::process::id);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("{prefix}-{nanos:x}-{pid:x}-{n}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::BoxFuture;
    use crate::dialect::failed::FailedLoad;
    use crate::explain::Explanation;

    /// The engine takes the first dialect's part as the outcome whole:
    /// that is only right while absorbing a part into an empty outcome
    /// gives the part itself, every field of it.
    #[test]
    fn absorbing_into_an_empty_outcome_gives_the_part() {
        use crate::outcome::*;
        use serde_json::json;
        let mut part = Outcome::proceed(crate::EventKind::ToolBefore);
        part.decision = Decision::Ask;
        part.reasons.push(Reason {
            hook: "h".into(),
            text: "why".into(),
        });
        part.tool_input = Some(json!({"a": 1}));
        part.tool_output = Some("out".into());
        part.prompt = Some("p".into());
        part.context.push(Injection {
            hook: "h".into(),
            placement: Placement::WithPrompt,
            text: "c".into(),
            own_message: true,
        });
        part.notices.push(Notice {
            hook: "h".into(),
            event: "PreToolUse".into(),
            kind: NoticeKind::Block,
            text: "n".into(),
        });
        part.warnings.push("w".into());
        part.events.push(PublishedEvent {
            event_type: "build.done".into(),
            summary: "s".into(),
            data: Some(json!([1])),
            delivery: Some("async".into()),
            source: "h".into(),
        });
        part.continuation = Some(Continuation {
            prompt: "go on".into(),
            hooks: vec!["h".into()],
        });
        part.shell_env.insert("K".into(), "V".into());
        part.halt = Some(Halt {
            hooks: vec!["h".into()],
            reason: Some("r".into()),
            message: Some("m".into()),
            kept: Some("k".into()),
        });
        part.retry = true;
        part.watch_paths.push("/w".into());
        part.worktree_path = Some("/t".into());
        part.display = Some("d".into());
        part.elicitation = Some(ElicitationAnswer {
            hook: "h".into(),
            action: "accept".into(),
            content: Some(json!({"x": 1})),
        });
        part.permission_updates.push(PermissionUpdates {
            hook: "h".into(),
            updates: vec![json!({"type": "setMode"})],
        });
        part.session_title = Some("title".into());
        part.initial_user_message = Some("hi".into());
        part.reload_skills = true;
        part.terminal_sequences.push("\u{1b}]0;x\u{7}".into());
        part.runs
            .push(HookRun::new("h", "claude", "PreToolUse", None));
        let mut empty = Outcome::proceed(crate::EventKind::ToolBefore);
        empty.absorb(part.clone());
        assert_eq!(empty, part);
    }

    /// A dialect whose dispatch panics after its first await; `denies`
    /// picks its failure rule.
    struct Panics {
        denies: bool,
    }

    impl Dialect for Panics {
        fn name(&self) -> &'static str {
            "panics"
        }
        fn diagnostics(&self) -> &[Diagnostic] {
            &[]
        }
        fn explain(&self, _event: &Event) -> Vec<Explanation> {
            Vec::new()
        }
        fn config_paths(&self) -> Vec<std::path::PathBuf> {
            Vec::new()
        }
    }

    impl crate::dialect::sealed::Sealed for Panics {
        fn dispatch<'a>(
            &'a self,
            _event: &'a Event,
            _cx: &'a DispatchContext<'a>,
        ) -> BoxFuture<'a, Outcome> {
            Box::pin(async {
                tokio::task::yield_now().await;
                panic!("a bug in a dialect")
            })
        }
        fn internal_failure(&self, event: &Event, what: &str) -> Outcome {
            crate::dialect::failed::failure_outcome(self.name(), event, what, self.denies)
        }
    }

    fn event() -> Event {
        serde_json::from_value(serde_json::json!(
            {"event": "tool_before", "tool": {"name": "shell", "input": {}}}
        ))
        .expect("event")
    }

    fn dispatch(engine: &Engine) -> Outcome {
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let out = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime")
            .block_on(engine.dispatch(&event(), &Session::in_memory(None)));
        std::panic::set_hook(hook);
        out.expect("a valid event")
    }

    #[test]
    fn a_panicking_dispatch_is_that_dialect_s_failure_and_the_others_still_run() {
        let engine = Engine::new()
            .with_dialect(Panics { denies: false })
            .with_dialect(Panics { denies: true });
        let out = dispatch(&engine);
        assert!(out.is_denied(), "the second dialect's rule denies");
        assert_eq!(out.warnings.len(), 2, "{:?}", out.warnings);
        assert!(
            out.warnings[0].starts_with(
                "panics: latch failed internally while running its hooks (a bug in a dialect)"
            ),
            "{:?}",
            out.warnings
        );
        assert_eq!(out.reasons.len(), 2, "each dialect's deny is a reason");
        // A dialect that fails open still denies a tool call: a deny it
        // decided before the panic would otherwise be lost.
        let open = dispatch(&Engine::new().with_dialect(Panics { denies: false }));
        assert!(open.is_denied(), "a panic on tool_before denies");
        assert!(
            open.reasons[0].text.contains("may have been lost"),
            "{:?}",
            open.reasons
        );
    }

    #[test]
    fn a_failed_load_answers_by_its_rule() {
        let deny = Engine::new().with_dialect(FailedLoad::new("peen", "boom", Box::new(|_| true)));
        let out = dispatch(&deny);
        assert!(out.is_denied());
        assert!(
            out.reasons[0]
                .text
                .contains("loading the peen configuration (boom)")
        );
        assert_eq!(deny.diagnostics().count(), 1);
        let open =
            Engine::new().with_dialect(FailedLoad::new("poolside", "boom", Box::new(|_| false)));
        let out = dispatch(&open);
        assert!(!out.is_denied());
        assert_eq!(out.warnings.len(), 1);
    }
}
