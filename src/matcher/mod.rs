//! Matchers, compiled once at load and never rebuilt per event.
//!
//! - [`NameMatcher`]: one hook's tool-name matcher (any, exact, pipe list, regex).
//! - [`NameIndex`]: every matcher of one event folded into one lookup, so
//!   selecting the hooks for an event is a hash lookup plus one pass of a
//!   `RegexSet`, whatever the number of hooks.

mod name;

pub use name::{NameIndex, NameMatcher, RegexMode, compile_regex, regex_error_message};
