//! Explanations: for one event, every configured hook and whether it would
//! run, and why. Nothing runs. `latch explain` prints them.

use serde::Serialize;

use crate::diag::SourceRef;

/// Whether one configured hook would run for an event, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Explanation {
    /// The dialect that declared it.
    pub dialect: String,
    /// The event it is declared for, in the dialect's spelling.
    pub event: String,
    /// Its label (poolside: name or command file; evener: plugin; peen:
    /// `group/action`).
    pub hook: String,
    /// Where it was declared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceRef>,
    /// Whether it would run.
    pub runs: bool,
    /// Why it would run, or why not.
    pub reason: String,
}

impl Explanation {
    /// An explanation.
    pub fn new(
        dialect: &str,
        event: impl Into<String>,
        hook: impl Into<String>,
        source: Option<SourceRef>,
        runs: bool,
        reason: impl Into<String>,
    ) -> Self {
        Explanation {
            dialect: dialect.to_owned(),
            event: event.into(),
            hook: hook.into(),
            source,
            runs,
            reason: reason.into(),
        }
    }
}

/// Puts the hooks that would run first, in their run order, then the rest
/// in configuration order. `list` must be in configuration order, with the
/// running ones already in run order relative to each other.
pub fn run_order_first(mut list: Vec<Explanation>) -> Vec<Explanation> {
    list.sort_by_key(|e| !e.runs);
    list
}
