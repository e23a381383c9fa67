//! Converting hook configuration between dialects, where the meaning
//! survives: event names, tool names, matchers, handler forms, timeouts and
//! their units. Every construct the target cannot express is reported with
//! its position, and what was done with it.
//!
//! Each dialect's loaded configuration is read into neutral [`Rule`]s, then
//! written out in the target's syntax.

mod env;
mod read;
pub mod shell;
mod write;

use std::time::Duration;

use crate::diag::{Diagnostic, Position, SourceRef};
use crate::event::EventKind;

pub use env::EnvRead;
pub use read::{from_claude, from_evener, from_peen, from_poolside};
pub use write::{to_claude, to_evener, to_peen, to_poolside};

/// Which tools a rule applies to, in the neutral vocabulary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tools {
    /// Every tool (and events without tools).
    Any,
    /// These tools, by neutral name.
    Names(Vec<String>),
    /// A regular expression that must match the whole name, as written in
    /// the source (tool names inside it are not translated).
    Regex(String),
}

/// The ways a session starts, as Claude Code and evener name them (the
/// target a `SessionStart` matcher is tested against).
pub const START_KINDS: [&str; 4] = ["startup", "resume", "clear", "compact"];

/// The starts a matcher accepts, in [`START_KINDS`] order. The set is
/// finite, so any matcher, a list or a regex, converts exactly.
pub fn starts_where(accepts: impl Fn(&str) -> bool) -> Vec<&'static str> {
    START_KINDS.into_iter().filter(|k| accepts(k)).collect()
}

/// What a rule does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Handler {
    /// A shell script.
    Shell(String),
    /// A program and its arguments, no shell.
    Exec(String, Vec<String>),
    /// Deny with this reason.
    Deny(String),
}

/// One hook in neutral terms.
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    /// The point in the turn.
    pub kind: EventKind,
    /// The tools it applies to (tool events).
    pub tools: Tools,
    /// The starts a `SessionStart` rule runs on, in [`START_KINDS`] order
    /// (every one for the other events).
    pub starts: Vec<&'static str>,
    /// What it runs.
    pub handler: Handler,
    /// Its own time limit.
    pub timeout: Option<Duration>,
    /// Its name, if the source gave one.
    pub name: Option<String>,
    /// Where it was declared.
    pub source: SourceRef,
    /// Where its command is written, if it has one.
    pub command_at: Option<Position>,
    /// The environment variables it reads (its script, and the files it
    /// runs from its plugin), to check against what the target sets.
    pub reads: Vec<EnvRead>,
    /// The dialect it came from.
    pub origin: Side,
}

pub use crate::dialect::tools::{Side, foreign_name, from_neutral, to_neutral};

/// A report entry: what could not be expressed, where, and what was done.
pub fn report(source: &SourceRef, message: String) -> Diagnostic {
    Diagnostic::warning(message)
        .in_file(&source.file)
        .at(source.position)
}
