//! Matchers, compiled once at load and never rebuilt per event.
//!
//! - [`NameMatcher`]: one hook's tool-name matcher (any, exact, pipe list, regex).
//! - [`NameIndex`]: every matcher of one event folded into one lookup, so
//!   selecting the hooks for an event is a hash lookup plus one pass of a
//!   `RegexSet`, whatever the number of hooks.

//! - [`claude`]: Claude Code's matchers (exact names, or an unanchored
//!   JavaScript regex), with [`ecma`], latch's JavaScript regex engine.
//! - [`pattern`]: the one path every configuration regex and glob takes:
//!   length, parse and size checks at load, a budget per file, a lazy
//!   compile within a size limit.

pub mod claude;
pub mod ecma;
mod glob_hir;
mod name;
pub mod pattern;

pub use claude::{ClaudeIndex, ClaudeMatcher, WordSet};
pub use name::{NameIndex, NameMatcher, RegexMode, regex_error_message};
pub use pattern::{LazyRegex, PathGlob, PatternBudget, compile_regex};
