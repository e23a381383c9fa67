//! A dialect that failed to load (latch caught a panic in its loader): it
//! keeps the failure as a diagnostic and answers every event by its
//! dialect's rule for a failure, so `latch fire` still prints an outcome
//! and a dialect whose failures deny still denies.

use crate::diag::Diagnostic;
use crate::dialect::{BoxFuture, Dialect, DispatchContext};
use crate::event::Event;
use crate::explain::Explanation;
use crate::outcome::{Decision, Outcome, Reason};

/// Whether a failure denies an event, by the failed dialect's rules.
pub type DenyRule = Box<dyn Fn(&Event) -> bool + Send + Sync>;

/// The stand-in for a dialect whose load panicked.
pub struct FailedLoad {
    name: &'static str,
    why: String,
    diagnostics: Vec<Diagnostic>,
    denies: DenyRule,
    watched: Vec<std::path::PathBuf>,
}

impl FailedLoad {
    /// A stand-in for dialect `name`, whose loader panicked with `message`.
    /// `denies` says on which events the dialect's failures deny (never,
    /// for a dialect that fails open).
    pub fn new(name: &'static str, message: &str, denies: DenyRule) -> Self {
        let why = format!(
            "latch failed internally while loading the {name} configuration ({message}); none of its hooks run"
        );
        let diagnostics = vec![Diagnostic::error(why.clone()).for_dialect(name)];
        FailedLoad {
            name,
            why,
            diagnostics,
            denies,
            watched: Vec::new(),
        }
    }

    /// The paths the failed load looked at (its `config_paths`): a fix to
    /// one of them is what makes the next load work.
    pub fn watching(mut self, paths: Vec<std::path::PathBuf>) -> Self {
        self.watched = paths;
        self
    }
}

impl super::sealed::Sealed for FailedLoad {
    fn dispatch<'a>(
        &'a self,
        event: &'a Event,
        _cx: &'a DispatchContext<'a>,
    ) -> BoxFuture<'a, Outcome> {
        let out = failure_outcome(self.name, event, &self.why, (self.denies)(event));
        Box::pin(async move { out })
    }

    fn internal_failure(&self, event: &Event, what: &str) -> Outcome {
        super::fail_open(self.name, event, what)
    }
}

impl Dialect for FailedLoad {
    fn name(&self) -> &'static str {
        self.name
    }

    fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    fn explain(&self, _event: &Event) -> Vec<Explanation> {
        Vec::new()
    }

    fn config_paths(&self) -> Vec<std::path::PathBuf> {
        self.watched.clone()
    }
}

/// The outcome of a dialect's internal failure: a warning naming the
/// dialect and, when `deny`, a deny whose reason says what failed.
pub fn failure_outcome(dialect: &str, event: &Event, why: &str, deny: bool) -> Outcome {
    let mut out = Outcome::proceed(event.event);
    out.warnings.push(format!("{dialect}: {why}"));
    if deny {
        out.decision = Decision::Deny;
        out.reasons.push(Reason {
            hook: dialect.to_owned(),
            text: format!("{dialect}: {why}"),
        });
    }
    out
}
