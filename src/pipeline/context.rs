//! What a dialect gets from the engine for one dispatch.

use serde_json::Value;

use crate::run::{Cancel, Runner};
use crate::session::Session;

pub use crate::join::BoxFuture;

/// The harness's check for a rewritten tool input, run after every rewrite
/// so each hook sees the previous hook's *validated* rewrite.
pub trait InputValidator: Send + Sync {
    /// `Ok` if `input` is acceptable arguments for `tool`, else why not.
    fn validate(&self, tool: &str, input: &Value) -> Result<(), String>;
}

/// The default validator: tool arguments must be a JSON object.
#[derive(Debug, Clone, Copy, Default)]
pub struct ObjectArguments;

impl InputValidator for ObjectArguments {
    fn validate(&self, _tool: &str, input: &Value) -> Result<(), String> {
        if input.is_object() {
            Ok(())
        } else {
            Err("tool arguments must be a JSON object".to_owned())
        }
    }
}

impl<F> InputValidator for F
where
    F: Fn(&str, &Value) -> Result<(), String> + Send + Sync,
{
    fn validate(&self, tool: &str, input: &Value) -> Result<(), String> {
        self(tool, input)
    }
}

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
    /// Where background hooks start, if the harness runs them.
    pub background: Option<&'a dyn super::Background>,
    /// The harness's sub-agents and tool servers, if it offers them.
    pub harness: Option<&'a dyn super::HarnessHandlers>,
    /// The trust policies and approvals, if the harness asks for any (see
    /// [`crate::trust`]): a dialect asks it about each hook it would run.
    pub trust: Option<&'a crate::trust::Gate>,
    /// How long this dispatch may block its thread while its hooks run,
    /// beyond what the runner's own [`Runner::lend_thread`] allows.
    pub(crate) lend: Option<crate::run::Lend<'a>>,
}

#[cfg(test)]
impl<'a> DispatchContext<'a> {
    /// A dispatch with `runner`, `session` and `cancel`, and nothing of a
    /// harness's: arguments checked as objects, no background, no trust.
    pub(crate) fn bare(runner: &'a Runner, session: &'a Session, cancel: &'a Cancel) -> Self {
        DispatchContext {
            runner,
            session,
            validator: &ObjectArguments,
            event_id: "e1",
            cancel,
            background: None,
            harness: None,
            trust: None,
            lend: None,
        }
    }
}

impl DispatchContext<'_> {
    /// How the hooks that run alone may wait: on the thread as this
    /// dispatch or its runner allows, else on the reactor.
    pub(crate) fn lending(&self) -> Option<crate::run::Lend<'_>> {
        self.lend.or_else(|| self.runner.lend())
    }
}
