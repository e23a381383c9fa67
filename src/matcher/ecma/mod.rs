//! JavaScript regular expressions, as `new RegExp(pattern).test(text)`
//! answers (no flags), for dialects whose reference implementation is
//! written in JavaScript (Claude Code's hook matchers).
//!
//! # Why latch runs them itself
//!
//! The candidates, and why none is used alone:
//! - the `regex` crate (RE2 semantics, linear time) has another syntax and
//!   other defaults: Unicode `\d`/`\w`/`\s`, a `.` that matches `\r`,
//!   `(?i)` flags, no look-around or back-reference;
//! - `regress` implements ECMAScript, but has no step limit: a
//!   catastrophic pattern ran 75 s on a 30-character text
//!   (`/work/shared/CRATES.md`), and a matcher comes from a repository's
//!   file, so an attacker writes it;
//! - `fancy-regex` has a backtrack limit, but Perl's syntax and semantics:
//!   a back-reference to a group that has not matched fails (JavaScript
//!   matches the empty string), captures are not reset at each iteration,
//!   and its classes are Unicode.
//!
//! So latch parses the pattern with JavaScript's own grammar ([`parse`]:
//! ECMAScript with Annex B, over UTF-16 code units, V8's error messages),
//! then:
//! 1. if it is regular (no back-reference, no look-around — almost every
//!    matcher), writes it in the `regex` crate's syntax with every default
//!    spelled out ([`translate`]) and runs it there, in linear time, through
//!    the checked path of [`crate::matcher::pattern`] (size estimate,
//!    per-file budget, lazy compile). That form is exact on text without
//!    astral characters (where a character is one UTF-16 unit); text with
//!    an astral character goes to 2.;
//! 2. otherwise (or if the translated form is over the `regex` limits),
//!    runs it on latch's own backtracking matcher ([`vm`]), which follows
//!    the specification's semantics over UTF-16 code units and gives up
//!    after [`vm::STEP_LIMIT`] steps (6 ms) instead of hanging.
//!
//! The two paths are compared on random patterns by a property test, and
//! both against `regress` (a real ECMAScript engine) in the tests.

pub mod parse;
pub mod translate;
pub mod vm;

use std::fmt;
use std::sync::OnceLock;

use super::pattern::{
    LazyRegex, MAX_PATTERN_LEN, PatternBudget, PatternError, check_regex_as, shown,
};
pub use vm::Exhausted;

/// A checked JavaScript regular expression, matched unanchored.
#[derive(Clone)]
pub struct EcmaRegex {
    source: String,
    engine: Engine,
}

#[derive(Clone)]
enum Engine {
    /// Run by the `regex` crate; the pattern is kept to build the
    /// backtracking program for text with astral characters.
    Translated {
        regex: LazyRegex,
        pattern: Box<parse::Pattern>,
        program: OnceLock<Option<vm::Program>>,
    },
    /// Run by the backtracking matcher.
    Backtracking(Box<vm::Program>),
}

impl fmt::Debug for EcmaRegex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EcmaRegex")
            .field("source", &self.source)
            .field("engine", &self.engine_name())
            .finish()
    }
}

impl EcmaRegex {
    /// Checks `source` as JavaScript reads `new RegExp(source)`, within
    /// latch's pattern limits, charging `budget` (one per configuration
    /// file). A syntax error says what V8 says
    /// (`Invalid regular expression: /(?i)/: Invalid group`) and where.
    pub fn new(source: &str, budget: &mut PatternBudget) -> Result<EcmaRegex, PatternError> {
        budget.check_open()?;
        if source.len() > MAX_PATTERN_LEN {
            return Err(PatternError::TooLong { len: source.len() });
        }
        let pattern = parse::parse(source).map_err(|e| {
            PatternError::Syntax(format!(
                "Invalid regular expression: /{}/: {} (at character {})",
                shown(source),
                e.message,
                e.offset + 1
            ))
        })?;
        if let Some(translated) = translate::to_regex(&pattern.node) {
            match check_regex_as(&translated, translated.clone(), budget) {
                Ok(regex) => {
                    return Ok(EcmaRegex {
                        source: source.to_owned(),
                        engine: Engine::Translated {
                            regex,
                            pattern: Box::new(pattern),
                            program: OnceLock::new(),
                        },
                    });
                }
                Err(e @ PatternError::OverBudget { .. }) => return Err(e),
                // Over the `regex` crate's limits (its spelled-out form is
                // longer than the source): the backtracking matcher, with
                // its own limits, runs it.
                Err(e) => {
                    tracing::debug!(pattern = %shown(source), error = %e, "a JavaScript regex runs on the backtracking matcher");
                }
            }
        }
        let size = vm::size(&pattern.node);
        if size > vm::MAX_PROGRAM as u64 {
            return Err(PatternError::TooLarge { size });
        }
        let program = vm::compile(&pattern).ok_or(PatternError::TooLarge { size })?;
        budget.charge_checked(size, source.len())?;
        Ok(EcmaRegex {
            source: source.to_owned(),
            engine: Engine::Backtracking(Box::new(program)),
        })
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The `regex` crate's form, when that is how it runs (on text without
    /// astral characters).
    pub fn translated(&self) -> Option<&LazyRegex> {
        match &self.engine {
            Engine::Translated { regex, .. } => Some(regex),
            Engine::Backtracking(_) => None,
        }
    }

    /// Which engine runs it, for explanations: `regex` or `backtracking`.
    pub fn engine_name(&self) -> &'static str {
        match self.engine {
            Engine::Translated { .. } => "regex",
            Engine::Backtracking(_) => "backtracking",
        }
    }

    /// Whether it matches anywhere in `text`, as `RegExp.prototype.test`
    /// answers; an error if the backtracking matcher gave up.
    pub fn test(&self, text: &str) -> Result<bool, Exhausted> {
        self.test_within(text, &mut { vm::STEP_LIMIT })
    }

    /// [`EcmaRegex::test`] with the backtracking matcher's steps taken
    /// from `allowance` (shared by the matchers of one event, so that
    /// many slow ones together stay bounded); with none left it gives up
    /// at once.
    pub fn test_within(&self, text: &str, allowance: &mut u64) -> Result<bool, Exhausted> {
        let program = match &self.engine {
            Engine::Translated { regex, .. } if !has_astral(text) => {
                return Ok(regex.is_match(text));
            }
            Engine::Translated {
                pattern, program, ..
            } => program
                .get_or_init(|| vm::compile(pattern))
                .as_ref()
                .ok_or(Exhausted::Steps)?,
            Engine::Backtracking(p) => p,
        };
        run(program, text, allowance)
    }

    /// Like [`EcmaRegex::test`], always on the backtracking matcher (for
    /// comparing the two).
    // Reached by the claude_matcher fuzz target.
    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    pub fn test_backtracking(&self, text: &str) -> Result<bool, Exhausted> {
        match &self.engine {
            Engine::Translated {
                pattern, program, ..
            } => run(
                program
                    .get_or_init(|| vm::compile(pattern))
                    .as_ref()
                    .ok_or(Exhausted::Steps)?,
                text,
                &mut { vm::STEP_LIMIT },
            ),
            Engine::Backtracking(p) => run(p, text, &mut { vm::STEP_LIMIT }),
        }
    }
}

fn run(program: &vm::Program, text: &str, allowance: &mut u64) -> Result<bool, Exhausted> {
    // A UTF-16 text has at least a third as many units as UTF-8 bytes.
    if text.len() > 3 * vm::MAX_TEXT {
        return Err(Exhausted::Text);
    }
    let units: Vec<u16> = text.encode_utf16().collect();
    program.is_match_within(&units, allowance)
}

/// Whether `text` has a character outside the Basic Multilingual Plane
/// (two UTF-16 units).
pub fn has_astral(text: &str) -> bool {
    text.chars().any(|c| u32::from(c) > 0xFFFF)
}

impl fmt::Display for Exhausted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Exhausted::Steps => write!(
                f,
                "the regular expression needs more than latch's limit of {} backtracking steps on this text",
                vm::STEP_LIMIT
            ),
            Exhausted::Text => write!(
                f,
                "the text is longer than latch's limit of {} UTF-16 units for a backtracking regex",
                vm::MAX_TEXT
            ),
        }
    }
}

#[cfg(test)]
mod tests;
