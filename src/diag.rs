//! Diagnostics: every problem latch finds in a configuration or a hook run.
//!
//! Loading never fails as a whole: it returns what is usable plus a list of
//! [`Diagnostic`]s, each naming the file, the line and column where there is
//! one, and the hook and event it concerns.
//!
//! # Example
//!
//! ```
//! use latch::{Diagnostic, Position};
//!
//! let d = Diagnostic::warning("unknown field `comand`")
//!     .in_file(".poolside/settings.yaml")
//!     .at(Some(Position { line: 4, column: 7 }))
//!     .for_hook("block-sudo")
//!     .with_hint("did you mean `command`?");
//! assert_eq!(
//!     d.to_string(),
//!     ".poolside/settings.yaml:4:7: warning: unknown field `comand` [hook block-sudo]\n  \
//!      help: did you mean `command`?"
//! );
//! ```

use std::fmt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// How serious a diagnostic is.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Something that does not change behaviour but is worth knowing.
    Info,
    /// Something was skipped, ignored or replaced; the rest still works.
    Warning,
    /// A file, hook or value could not be used at all.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// A 1-based line and column in a source file.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
pub struct Position {
    /// 1-based line number.
    pub line: u32,
    /// 1-based column number, in characters.
    pub column: u32,
}

/// Where a hook was declared: the file and the position of its entry.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SourceRef {
    /// The configuration file.
    pub file: PathBuf,
    /// The position of the declaration, when the parser knows it.
    #[serde(default, skip_serializing_if = "Option::is_none", flatten)]
    pub position: Option<Position>,
}

impl fmt::Display for SourceRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(p) = self.position {
            write!(f, ":{}:{}", p.line, p.column)?;
        }
        Ok(())
    }
}

/// One problem found while loading configuration or running hooks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Diagnostic {
    /// How serious it is.
    pub severity: Severity,
    /// What is wrong, in one sentence.
    pub message: String,
    /// The file it concerns, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<PathBuf>,
    /// The position in `file`, if the parser knows it.
    #[serde(default, skip_serializing_if = "Option::is_none", flatten)]
    pub position: Option<Position>,
    /// The dialect that produced it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialect: Option<String>,
    /// The hook it concerns (its label), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hook: Option<String>,
    /// The event it concerns, in the dialect's own spelling, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    /// A suggestion for how to fix it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl Diagnostic {
    /// A diagnostic with the given severity and message and nothing else.
    pub fn new(severity: Severity, message: impl Into<String>) -> Self {
        Diagnostic {
            severity,
            message: message.into(),
            file: None,
            position: None,
            dialect: None,
            hook: None,
            event: None,
            hint: None,
        }
    }

    /// An error diagnostic.
    pub fn error(message: impl Into<String>) -> Self {
        Self::new(Severity::Error, message)
    }

    /// A warning diagnostic.
    pub fn warning(message: impl Into<String>) -> Self {
        Self::new(Severity::Warning, message)
    }

    /// Sets the file.
    pub fn in_file(mut self, file: impl Into<PathBuf>) -> Self {
        self.file = Some(file.into());
        self
    }

    /// Sets the position.
    pub fn at(mut self, position: Option<Position>) -> Self {
        self.position = position;
        self
    }

    /// Sets the dialect.
    pub fn for_dialect(mut self, dialect: &str) -> Self {
        self.dialect = Some(dialect.to_owned());
        self
    }

    /// Sets the hook label.
    pub fn for_hook(mut self, hook: impl Into<String>) -> Self {
        self.hook = Some(hook.into());
        self
    }

    /// Sets the event name.
    pub fn for_event(mut self, event: impl Into<String>) -> Self {
        self.event = Some(event.into());
        self
    }

    /// Sets the hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

/// Renders `path:line:col: severity: message [hook …, event …]` and the hint on
/// a second line.
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{}", file.display())?;
            if let Some(p) = self.position {
                write!(f, ":{}:{}", p.line, p.column)?;
            }
            f.write_str(": ")?;
        }
        write!(f, "{}: {}", self.severity, self.message)?;
        match (&self.hook, &self.event) {
            (Some(h), Some(e)) => write!(f, " [hook {h}, event {e}]")?,
            (Some(h), None) => write!(f, " [hook {h}]")?,
            (None, Some(e)) => write!(f, " [event {e}]")?,
            (None, None) => {}
        }
        if let Some(hint) = &self.hint {
            write!(f, "\n  help: {hint}")?;
        }
        Ok(())
    }
}
