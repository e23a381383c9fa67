//! A JavaScript pattern without back-references or look-arounds, written
//! in the `regex` crate's syntax with the same meaning on text made of
//! Basic Multilingual Plane characters (no astral character, so one
//! character is one UTF-16 code unit, as JavaScript counts).
//!
//! Nothing is left to the crate's defaults, which differ from JavaScript's:
//! - `\d`, `\w`, `\s` are Unicode-aware in `regex` (`\d` matches `٣`, `\w`
//!   matches `é`); the parser already turned them into JavaScript's explicit
//!   ranges (ASCII digits and word characters; ECMAScript's white space);
//! - `.` is written as a class without `\n`, `\r`, U+2028 and U+2029 (the
//!   crate's `.` excludes only `\n`);
//! - `^` and `$` are written `\A` and `\z` (the text's ends, as without the
//!   `m` flag);
//! - `\b` is ASCII (`(?-u:\b)`), as JavaScript's (`\B` is left to the
//!   backtracking matcher, see [`to_regex`]);
//! - every group is non-capturing and every repetition greedy: whether a
//!   match exists does not depend on either;
//! - a lone surrogate code unit (`\uD800`) matches nothing in such a text.

use std::fmt::Write;

use super::parse::Node;

/// Never matches (the crate refuses an empty class `[]`).
const NEVER: &str = r"[^\x{0}-\x{10FFFF}]";

/// The pattern in `regex` syntax, or `None` if it needs backtracking (a
/// back-reference or look-around) or has `\B`: the crate's `(?-u:\B)` can
/// match inside a multi-byte character, and such an empty match hid a
/// real one (`(?:\B|\W)` did not match `aéa`, regex 1.13).
pub fn to_regex(node: &Node) -> Option<String> {
    if node.needs_backtracking() || node.any(&|n| matches!(n, Node::WordBoundary(false))) {
        return None;
    }
    let mut out = String::new();
    emit(node, &mut out);
    Some(out)
}

fn is_surrogate(u: u16) -> bool {
    (0xD800..=0xDFFF).contains(&u)
}

fn unit(u: u16, out: &mut String) {
    match char::from_u32(u32::from(u)) {
        Some(c) if c.is_ascii_alphanumeric() || c == '_' => out.push(c),
        Some(_) => {
            let _ = write!(out, r"\x{{{u:X}}}");
        }
        None => out.push_str(NEVER),
    }
}

fn range(a: u16, b: u16, out: &mut String) {
    if a == b {
        let _ = write!(out, r"\x{{{a:X}}}");
    } else {
        let _ = write!(out, r"\x{{{a:X}}}-\x{{{b:X}}}");
    }
}

/// The ranges without the surrogate code units (which never occur in the
/// text this form runs on).
fn without_surrogates(ranges: &[(u16, u16)]) -> Vec<(u16, u16)> {
    let mut out = Vec::new();
    for &(a, b) in ranges {
        if b < 0xD800 || a > 0xDFFF {
            out.push((a, b));
            continue;
        }
        if a < 0xD800 {
            out.push((a, 0xD7FF));
        }
        if b > 0xDFFF {
            out.push((0xE000, b));
        }
    }
    out
}

fn emit(node: &Node, out: &mut String) {
    match node {
        Node::Empty => out.push_str("(?:)"),
        Node::Unit(u) if is_surrogate(*u) => out.push_str(NEVER),
        Node::Unit(u) => unit(*u, out),
        Node::Class { ranges, negated } => {
            let ranges = without_surrogates(ranges);
            match (ranges.is_empty(), negated) {
                // `[]`: nothing; `[^]`: any character.
                (true, false) => out.push_str(NEVER),
                (true, true) => out.push_str(r"[\x{0}-\x{10FFFF}]"),
                (false, _) => {
                    out.push_str(if *negated { "[^" } else { "[" });
                    for (a, b) in ranges {
                        range(a, b, out);
                    }
                    out.push(']');
                }
            }
        }
        Node::Dot => out.push_str(r"[^\x{A}\x{D}\x{2028}\x{2029}]"),
        Node::Start => out.push_str(r"\A"),
        Node::End => out.push_str(r"\z"),
        Node::WordBoundary(true) => out.push_str(r"(?-u:\b)"),
        Node::Group(n, _) => {
            out.push_str("(?:");
            emit(n, out);
            out.push(')');
        }
        Node::Repeat { node, min, max, .. } => {
            out.push_str("(?:");
            emit(node, out);
            out.push(')');
            let _ = match max {
                None => write!(out, "{{{min},}}"),
                Some(m) => write!(out, "{{{min},{m}}}"),
            };
        }
        Node::Concat(ns) => {
            for n in ns {
                emit(n, out);
            }
        }
        Node::Alt(ns) => {
            out.push_str("(?:");
            for (i, n) in ns.iter().enumerate() {
                if i > 0 {
                    out.push('|');
                }
                emit(n, out);
            }
            out.push(')');
        }
        // Refused by `to_regex` before emitting.
        Node::BackRef(_) | Node::Look { .. } | Node::WordBoundary(false) => out.push_str(NEVER),
    }
}
