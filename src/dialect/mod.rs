//! Dialects: one module per hook-configuration format, all feeding the same
//! pipeline.
//!
//! A dialect *finds* its files, *loads* them into typed hooks (with
//! diagnostics), and on each event *selects* its hooks, *runs* them through
//! the shared [`Runner`](crate::run::Runner), *judges* each result and
//! *combines* them into one [`Outcome`]. Nothing outside a dialect's module
//! knows its field names.

pub mod evener;
pub mod failed;
pub mod payload;
pub mod peen;
pub mod poolside;
pub mod tools;

use std::future::Future;
use std::pin::Pin;

use crate::diag::Diagnostic;
use crate::engine::InputValidator;
use crate::event::Event;
use crate::explain::Explanation;
use crate::outcome::{HookRun, Outcome};
use crate::run::{Cancel, Exit, RunResult, Runner};
use crate::session::Session;

/// A boxed future, so dialects can be held as trait objects.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What a dialect gets from the engine for one dispatch.
pub struct DispatchContext<'a> {
    /// The process runner.
    pub runner: &'a Runner,
    /// The session the event belongs to.
    pub session: &'a Session,
    /// The harness's check for rewritten tool input.
    pub validator: &'a dyn InputValidator,
    /// The id of this event occurrence, shared by every hook that handles it.
    pub event_id: &'a str,
    /// Fires when the harness cancels the dispatch.
    pub cancel: &'a Cancel,
}

/// The user warning for a hook that exited but left processes holding its
/// output open (latch killed every descendant of the hook), if it did.
pub fn leftovers_warning(hook: &str, event: &str, result: &RunResult) -> Option<String> {
    result.killed_leftovers.then(|| {
        if result.leftovers_escaped {
            format!(
                "hook {hook} ({event}) exited but left processes holding its output open; latch killed every descendant of the hook it could find, but the output is still held by a process out of its reach"
            )
        } else {
            format!(
                "hook {hook} ({event}) exited but left processes holding its output open; latch killed them and every other descendant of the hook"
            )
        }
    })
}

/// Copies the process facts of a run (duration, exit code or signal,
/// truncation) into its record.
pub fn record_process(record: &mut HookRun, result: &RunResult) {
    record.took(result.duration);
    match result.termination.exit() {
        Some(Exit::Code(c)) => record.exit_code = Some(c),
        Some(Exit::Signal(s)) => record.signal = Some(s),
        None => {}
    }
    record.stdout_truncated = result.stdout.truncated;
    record.stderr_truncated = result.stderr.truncated;
}

/// One loaded hook configuration format.
pub trait Dialect: Send + Sync {
    /// The dialect's name, such as `poolside`.
    fn name(&self) -> &'static str;

    /// The problems found while loading, in file order.
    fn diagnostics(&self) -> &[Diagnostic];

    /// For one event, every configured hook and whether it would run, and
    /// why; runs nothing. The hooks that would run come first, in run order.
    fn explain(&self, event: &Event) -> Vec<Explanation>;

    /// Runs this dialect's hooks for one event and combines their answers.
    fn dispatch<'a>(
        &'a self,
        event: &'a Event,
        cx: &'a DispatchContext<'a>,
    ) -> BoxFuture<'a, Outcome>;

    /// This dialect's answer for `event` when latch itself failed while
    /// dispatching it (the engine caught a panic); `what` says what failed.
    /// The default fails open, as poolside and evener treat a failed hook:
    /// the event proceeds with a warning. A dialect whose failures deny
    /// overrides it.
    fn internal_failure(&self, event: &Event, what: &str) -> Outcome {
        let mut out = Outcome::proceed(event.event);
        out.warnings
            .push(format!("{}: {what}; its hooks did not run", self.name()));
        out
    }
}
