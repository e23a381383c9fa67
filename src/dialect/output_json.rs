//! A hook's output read as JSON the way the agents' own readers read it.
//!
//! `serde_json` refuses two things that JavaScript's `JSON.parse` (Claude
//! Code) and Go's `encoding/json` accept: nesting deeper than 128 levels,
//! and a `\u` escape of a lone UTF-16 surrogate (`"\ud800"`). Refusing
//! them would turn a hook's deny into "output that is not JSON", so a deny
//! would be lost. This reader takes the fast path first and, only when
//! `serde_json` refused for one of those two reasons, reads again:
//!
//! - a lone surrogate escape becomes U+FFFD, as Go's decoder does (a Rust
//!   string cannot hold a lone surrogate);
//! - nesting up to [`MAX_DEPTH`] levels is read whole;
//! - deeper nesting is read field by field in the answer's top two levels
//!   of objects, and a field whose value is still too deep is left out and
//!   named in [`Parsed::ignored`], so that the answer's decision, which
//!   sits at those levels, is still read.
//!
//! Written by hand because no JSON crate offers these rules; it leans on
//! `serde_json` for all the parsing (a `RawValue` is read without recursion,
//! so any depth can be split into fields).

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Deserialize;
use serde::de::Error as _;
use serde_json::Value;
use serde_json::value::RawValue;

/// The most levels of nesting read whole: deep enough for any real answer,
/// shallow enough for `serde_json`'s recursive reader on a 2 MiB thread
/// stack, the default of threads an embedding harness may dispatch on
/// (measured: 700 levels fit in a debug build, 1000 do not; a release
/// build needs about a third of that).
pub(crate) const MAX_DEPTH: usize = 500;

/// How many levels of objects a too-deep answer is split into fields.
const SPLIT_LEVELS: usize = 2;

/// A hook's JSON output.
#[derive(Debug)]
pub(crate) struct Parsed {
    /// The value read.
    pub value: Value,
    /// The fields left out because they nest deeper than [`MAX_DEPTH`], as
    /// dotted paths (`hookSpecificOutput.updatedInput`).
    pub ignored: Vec<String>,
}

/// Notes `ignored` fields (see [`Parsed::ignored`]) where a user sees
/// them: an `ignored_fields` entry `FIELD (nested deeper than 500 levels)`
/// in `record`, and a warning naming the hook, `who()` (`PreToolUse hook
/// check`). Nothing when none was left out.
pub(crate) fn note_ignored(
    ignored: &[String],
    who: impl FnOnce() -> String,
    record: &mut crate::outcome::HookRun,
    warnings: &mut Vec<String>,
) {
    if ignored.is_empty() {
        return;
    }
    record.ignored_fields.extend(
        ignored
            .iter()
            .map(|p| format!("{p} (nested deeper than {MAX_DEPTH} levels)")),
    );
    let fields: Vec<String> = ignored.iter().map(|p| format!("`{p}`")).collect();
    warnings.push(format!(
        "{} printed JSON nested deeper than {MAX_DEPTH} levels; latch ignored {}",
        who(),
        fields.join(", ")
    ));
}

/// Reads `text` as JSON (see the module docs).
pub(crate) fn parse(text: &str) -> Result<Parsed, serde_json::Error> {
    let first = match serde_json::from_str::<Value>(text) {
        Ok(value) => {
            return Ok(Parsed {
                value,
                ignored: Vec::new(),
            });
        }
        Err(e) => e,
    };
    let message = first.to_string();
    let too_deep = message.starts_with("recursion limit exceeded");
    // serde_json names a lone high surrogate "unexpected end of hex escape".
    let surrogate = message.contains("surrogate") || message.contains("hex escape");
    if !too_deep && !surrogate {
        return Err(first);
    }
    // serde_json names only its first problem: deep nesting may hide a
    // lone surrogate after it, so both are always dealt with (the text is
    // borrowed, not copied, when it has no lone surrogate).
    let text = replace_lone_surrogates(text);
    let mut ignored = Vec::new();
    let value = read(&text, 0, "", &mut ignored)?.ok_or_else(|| {
        serde_json::Error::custom(format!("the JSON nests deeper than {MAX_DEPTH} levels"))
    })?;
    Ok(Parsed { value, ignored })
}

/// Reads one value; `None` when it is too deep and cannot be split.
fn read(
    text: &str,
    level: usize,
    path: &str,
    ignored: &mut Vec<String>,
) -> Result<Option<Value>, serde_json::Error> {
    if max_depth(text) <= MAX_DEPTH {
        let mut de = serde_json::Deserializer::from_str(text);
        de.disable_recursion_limit();
        let value = Value::deserialize(&mut de)?;
        de.end()?;
        return Ok(Some(value));
    }
    if level >= SPLIT_LEVELS || !text.trim_start().starts_with('{') {
        return Ok(None);
    }
    // Duplicate keys: the last wins, as in `JSON.parse` and Go.
    let fields: BTreeMap<String, Box<RawValue>> = serde_json::from_str(text)?;
    let mut object = serde_json::Map::new();
    for (key, raw) in fields {
        let inner = if path.is_empty() {
            key.clone()
        } else {
            format!("{path}.{key}")
        };
        match read(raw.get(), level + 1, &inner, ignored)? {
            Some(value) => {
                object.insert(key, value);
            }
            None => ignored.push(inner),
        }
    }
    Ok(Some(Value::Object(object)))
}

/// The deepest nesting of arrays and objects in `text`, outside strings.
fn max_depth(text: &str) -> usize {
    let (mut depth, mut max, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for b in text.bytes() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// `text` with every `\u` escape of a surrogate that is not half of a
/// pair replaced by `\ufffd`. Escapes only occur in strings, and a `\\` is
/// skipped whole, so the scan needs no other JSON state.
fn replace_lone_surrogates(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let unit = |at: usize| -> Option<u16> {
        let hex = bytes.get(at..at + 6)?;
        if &hex[..2] != b"\\u" || !hex[2..].iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        u16::from_str_radix(std::str::from_utf8(&hex[2..]).ok()?, 16).ok()
    };
    let mut out = String::with_capacity(text.len());
    let (mut i, mut copied) = (0, 0);
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        let Some(u) = unit(i) else {
            i += 2; // `\\`, `\"`, `\n`…: never the start of a `\u`.
            continue;
        };
        let high = (0xD800..0xDC00).contains(&u);
        let low = (0xDC00..0xE000).contains(&u);
        if high && unit(i + 6).is_some_and(|n| (0xDC00..0xE000).contains(&n)) {
            i += 12; // A whole pair.
            continue;
        }
        if high || low {
            out.push_str(&text[copied..i]);
            out.push_str("\\ufffd");
            copied = i + 6;
        }
        i += 6;
    }
    if copied == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(n: usize) -> String {
        format!("{}{}", "[".repeat(n), "]".repeat(n))
    }

    #[test]
    fn ordinary_json_takes_the_fast_path() {
        let p = parse(r#"{"decision":"block","n":[1,{"a":2}]}"#).unwrap();
        assert_eq!(p.value["decision"], "block");
        assert!(p.ignored.is_empty());
    }

    #[test]
    fn not_json_stays_an_error() {
        assert!(parse("{nope").is_err());
        assert!(parse(r#"{"a":1} trailing"#).is_err());
    }

    #[test]
    fn nesting_past_serde_json_s_limit_is_read_whole() {
        let text = format!(r#"{{"decision":"block","x":{}}}"#, nested(200));
        let p = parse(&text).unwrap();
        assert_eq!(p.value["decision"], "block");
        assert!(p.value["x"].is_array());
        assert!(p.ignored.is_empty());
    }

    #[test]
    fn a_field_too_deep_is_ignored_and_named_and_the_rest_is_read() {
        let deep = nested(MAX_DEPTH + 10);
        let text = format!(
            r#"{{"decision":"block","x":{deep},"hookSpecificOutput":{{"permissionDecision":"deny","y":{deep}}}}}"#
        );
        let p = parse(&text).unwrap();
        assert_eq!(p.value["decision"], "block");
        assert_eq!(p.value["hookSpecificOutput"]["permissionDecision"], "deny");
        assert_eq!(p.ignored, ["hookSpecificOutput.y", "x"]);
        let mut record = crate::outcome::HookRun::new("h", "claude", "PreToolUse", None);
        let mut warnings = Vec::new();
        note_ignored(
            &p.ignored,
            || "PreToolUse hook h".to_owned(),
            &mut record,
            &mut warnings,
        );
        assert!(
            warnings[0].contains("latch ignored `hookSpecificOutput.y`, `x`"),
            "{warnings:?}"
        );
        assert_eq!(
            record.ignored_fields[1],
            "x (nested deeper than 500 levels)"
        );
    }

    #[test]
    fn a_deep_array_alone_is_an_error_and_does_not_overflow() {
        assert!(parse(&nested(100_000)).is_err());
    }

    #[test]
    fn deep_nesting_before_a_lone_surrogate_is_read_too() {
        for depth in [200, MAX_DEPTH + 10] {
            let text = format!(
                r#"{{"x":{},"decision":"block","reason":"bad \ud800 half"}}"#,
                nested(depth)
            );
            let p = parse(&text).unwrap();
            assert_eq!(p.value["decision"], "block", "{depth}");
            assert_eq!(p.value["reason"], "bad \u{fffd} half", "{depth}");
        }
    }

    /// Nesting at the limit is read whole on a thread with a 2 MiB stack
    /// (an embedding harness's worker), in whatever build runs the tests.
    #[test]
    fn the_limit_fits_a_2_mib_thread() {
        let text = format!(r#"{{"decision":"block","x":{}}}"#, nested(MAX_DEPTH - 1));
        let ok = std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || parse(&text).map(|p| p.ignored.is_empty()).unwrap_or(false))
            .unwrap()
            .join()
            .unwrap();
        assert!(ok);
    }

    #[test]
    fn lone_surrogates_become_the_replacement_character() {
        let p = parse(r#"{"reason":"bad \ud800 and \uDC00 x","ok":"\ud83d\ude00"}"#).unwrap();
        assert_eq!(p.value["reason"], "bad \u{fffd} and \u{fffd} x");
        assert_eq!(p.value["ok"], "\u{1F600}");
    }

    #[test]
    fn an_escaped_backslash_before_u_is_not_an_escape() {
        let p = parse(r#"{"a":"\\ud800","b":"\ud800"}"#).unwrap();
        assert_eq!(p.value["a"], "\\ud800");
        assert_eq!(p.value["b"], "\u{fffd}");
    }

    #[test]
    fn a_high_surrogate_at_the_end_of_the_text_is_replaced() {
        let p = parse(r#"["\ud800"]"#).unwrap();
        assert_eq!(p.value[0], "\u{fffd}");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// Any text of JSON's characters: no panic, and wherever
        /// `serde_json` reads it, the same value.
        #[test]
        fn agrees_with_serde_json_where_it_reads(text in r#"[\[\]{}"\\u0-9a-fdD:,]{0,40}"#) {
            let ours = parse(&text);
            if let Ok(theirs) = serde_json::from_str::<Value>(&text) {
                proptest::prop_assert_eq!(ours.map(|p| p.value).ok(), Some(theirs));
            }
        }
    }

    #[test]
    fn depth_ignores_brackets_in_strings() {
        assert_eq!(max_depth(r#"{"a":"[[[{{{\"[["}"#), 1);
        assert_eq!(max_depth("[[1],[[2]]]"), 3);
    }
}
