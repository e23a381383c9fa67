//! Converting hook configuration between dialects, where the meaning
//! survives: event names, tool names, matchers, handler forms, timeouts and
//! their units. Every construct the target cannot express is reported with
//! its position, and what was done with it.
//!
//! Each dialect's loaded configuration is read into neutral [`Rule`]s, then
//! written out in the target's syntax.

mod read;
mod write;

use std::time::Duration;

use crate::diag::{Diagnostic, SourceRef};
use crate::event::EventKind;

pub use read::{from_evener, from_peen, from_poolside};
pub use write::{to_evener, to_peen, to_poolside};

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
    /// What it runs.
    pub handler: Handler,
    /// Its own time limit.
    pub timeout: Option<Duration>,
    /// Its name, if the source gave one.
    pub name: Option<String>,
    /// Where it was declared.
    pub source: SourceRef,
    /// The dialect it came from.
    pub origin: Side,
}

/// One tool: its neutral name, then what poolside, evener and peen call
/// it (`None`: the dialect has no such tool).
pub type ToolRow = (
    &'static str,
    Option<&'static str>,
    Option<&'static str>,
    Option<&'static str>,
);

/// Neutral tool names and what each dialect calls them.
pub const TOOLS: [ToolRow; 7] = [
    ("shell", Some("shell"), Some("Bash"), Some("runCommand")),
    ("read", Some("read"), Some("Read"), Some("readFile")),
    ("write", Some("write"), Some("Write"), Some("writeFile")),
    ("edit", Some("edit"), Some("Edit"), Some("editFile")),
    ("remove", Some("remove"), None, Some("removePath")),
    ("web_fetch", Some("web_fetch"), Some("WebFetch"), None),
    ("web_search", Some("web_search"), Some("WebSearch"), None),
];

/// A dialect, for the tool table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// poolside.
    Poolside,
    /// evener.
    Evener,
    /// peen.
    Peen,
}

fn column(
    side: Side,
    row: &(
        &'static str,
        Option<&'static str>,
        Option<&'static str>,
        Option<&'static str>,
    ),
) -> Option<&'static str> {
    match side {
        Side::Poolside => row.1,
        Side::Evener => row.2,
        Side::Peen => row.3,
    }
}

/// A dialect's tool name in neutral terms (unknown names pass through).
pub fn to_neutral(side: Side, name: &str) -> String {
    TOOLS
        .iter()
        .find(|row| column(side, row) == Some(name))
        .map_or_else(|| name.to_owned(), |row| row.0.to_owned())
}

/// Whether `name` is another dialect's name for a tool `side` calls
/// something else (or does not have): such a matcher never matched in
/// `side` (evener's `shell`, poolside's `Bash`).
pub fn foreign_name(side: Side, name: &str) -> bool {
    TOOLS.iter().any(|row| {
        column(side, row) != Some(name)
            && [Side::Poolside, Side::Evener, Side::Peen]
                .iter()
                .any(|s| *s != side && column(*s, row) == Some(name))
    })
}

/// A neutral tool name in a dialect's terms: `Ok(name)`, or `Err(name)`
/// when the dialect has no such tool or the name is not in the table (kept
/// as is, and reported).
pub fn from_neutral(side: Side, name: &str) -> Result<String, String> {
    match TOOLS.iter().find(|row| row.0 == name) {
        Some(row) => column(side, row)
            .map(str::to_owned)
            .ok_or_else(|| name.to_owned()),
        None => Err(name.to_owned()),
    }
}

/// A report entry: what could not be expressed, where, and what was done.
pub fn report(source: &SourceRef, message: String) -> Diagnostic {
    Diagnostic::warning(message)
        .in_file(&source.file)
        .at(source.position)
}
