//! JSON as JavaScript writes it: `JSON.stringify(JSON.parse(text))`.
//!
//! A harness gives latch its tool calls as JSON text, written by whatever
//! language it is in: Go escapes `<`, `>` and `&` (`\u003c`), Python
//! escapes every non-ASCII character, numbers may read `1e2` or `1.50`,
//! and a key may come twice. Claude Code hands a hook the objects it holds,
//! written by `JSON.stringify`, so a guard that greps its stdin for
//! `> /etc/` finds it there. The claude dialect writes the harness's
//! values the same way:
//!
//! - strings escape only `"`, `\` and control characters (`\b`, `\t`,
//!   `\n`, `\f`, `\r`, else `\u00xx`), as serde_json does too;
//! - numbers are JavaScript doubles, written as `Number.prototype.toString`
//!   writes them (`100`, `1.5`, `1e+21`, `1e-7`; a 64-bit integer past
//!   2^53 loses its last digits, as in JavaScript);
//! - of a key given twice, the last value counts, in the first one's place;
//! - an object's keys that are array indices (`"0"`, `"17"`) come first,
//!   in numeric order, then the others in their order, as in a JavaScript
//!   object.
//!
//! [`stringify_pretty`] writes `JSON.stringify(value, null, 2)`, as Claude
//! Code shows a hook's answer that fails its schema.
//!
//! Written by hand: no crate writes JavaScript's number and key order.
//! Text that serde_json cannot read as a value (a number past `f64`, a lone
//! surrogate `\ud800`), and text over [`MAX_REWRITTEN`] (whose parsed tree
//! could take many times its size in memory), is left as it is.

use std::fmt::Write;

use serde_json::{Map, Number, Value};

/// `value` written as `JSON.stringify` writes it.
pub fn stringify(value: &Value) -> String {
    let mut out = Vec::new();
    write_value(&mut out, value, None, usize::MAX);
    // Only serde_json's strings and ASCII are written: valid UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

/// `value` written as `JSON.stringify(value, null, 2)` writes it: each
/// member on a line of its own, indented two spaces a level, `"key": value`,
/// an empty object or array as `{}` or `[]`.
pub fn stringify_pretty(value: &Value) -> String {
    let mut out = Vec::new();
    write_value(&mut out, value, Some(0), usize::MAX);
    String::from_utf8(out).unwrap_or_default()
}

/// [`stringify_pretty`], stopped once past `limit` bytes: the text cut at
/// `limit` (at a character's boundary) and `true`, or the whole text and
/// `false`. Pretty-printing a deeply nested value multiplies its size by
/// its depth, so a hook's answer is written this way.
pub fn stringify_pretty_within(value: &Value, limit: usize) -> (String, bool) {
    let mut out = Vec::new();
    write_value(&mut out, value, Some(0), limit);
    let cut = out.len() > limit;
    if cut {
        out.truncate(limit);
    }
    // A cut may split a character: keep the valid part.
    let text = match String::from_utf8(out) {
        Ok(t) => t,
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            let mut bytes = e.into_bytes();
            bytes.truncate(valid);
            String::from_utf8(bytes).unwrap_or_default()
        }
    };
    (text, cut)
}

/// Where a member starts: nothing in one line (`depth` is `None`), else a
/// new line indented to `depth`.
fn new_line(out: &mut Vec<u8>, depth: Option<usize>) {
    if let Some(depth) = depth {
        out.push(b'\n');
        out.extend(std::iter::repeat_n(b' ', 2 * depth));
    }
}

/// The largest JSON text [`restringify`] rewrites: 1 MiB.
pub const MAX_REWRITTEN: usize = 1 << 20;

/// JSON `text` as `JSON.stringify(JSON.parse(text))` writes it; `None`
/// when serde_json cannot read it as a value, or it is over
/// [`MAX_REWRITTEN`] (see the module's notes).
pub fn restringify(text: &str) -> Option<String> {
    if text.len() > MAX_REWRITTEN {
        return None;
    }
    let value: Value = serde_json::from_str(text).ok()?;
    Some(stringify(&value))
}

/// Whether JSON `text`, once the whitespace between its tokens is
/// dropped, reads as [`restringify`] would write it, found without
/// parsing it: no number, no escape, no key that is all digits or given
/// twice in its object. Most tool calls' inputs are so (`{"command":
/// "ls"}`), and are then handed on compacted, unparsed. Only a text of up
/// to 4 KiB is looked at, with at most 32 keys an object; anything else is
/// left to [`restringify`].
pub fn stringified_already(text: &str) -> bool {
    /// An open object's keys so far, or an open array.
    enum Open<'a> {
        Object(Vec<&'a [u8]>),
        Array,
    }
    let bytes = text.as_bytes();
    if bytes.len() > 4096 {
        return false;
    }
    let mut open: Vec<Open<'_>> = Vec::new();
    // Whether the next string is an object's key.
    let mut key_next = false;
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'{' => {
                open.push(Open::Object(Vec::new()));
                key_next = true;
            }
            b'[' => {
                open.push(Open::Array);
                key_next = false;
            }
            b'}' | b']' => {
                open.pop();
                key_next = false;
            }
            b',' => key_next = matches!(open.last(), Some(Open::Object(_))),
            b':' => key_next = false,
            // `true`, `false` and `null`: the only words valid JSON has;
            // and the whitespace between tokens.
            b'a'..=b'z' | b' ' | b'\t' | b'\n' | b'\r' => {}
            b'"' => {
                let start = at + 1;
                let quote_or_escape = |b: &u8| *b == b'"' || *b == b'\\';
                let Some(len) = bytes[start..].iter().position(quote_or_escape) else {
                    return false;
                };
                let end = start + len;
                if bytes[end] == b'\\' {
                    return false;
                }
                if key_next {
                    let key = &bytes[start..end];
                    let Some(Open::Object(keys)) = open.last_mut() else {
                        return false;
                    };
                    let index_like = !key.is_empty() && key.iter().all(u8::is_ascii_digit);
                    if index_like || keys.len() == 32 || keys.contains(&key) {
                        return false;
                    }
                    keys.push(key);
                    key_next = false;
                }
                at = end;
            }
            // A number.
            _ => return false,
        }
        at += 1;
    }
    true
}

/// Writes `value`; `depth` is its level when pretty-printed, `None` for
/// one line. Once `out` is past `limit` bytes nothing more is written.
fn write_value(out: &mut Vec<u8>, value: &Value, depth: Option<usize>, limit: usize) {
    if out.len() > limit {
        return;
    }
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Value::Number(n) => out.extend_from_slice(number(n).as_bytes()),
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            let inner = depth.map(|d| d + 1);
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if out.len() > limit {
                    return;
                }
                if i > 0 {
                    out.push(b',');
                }
                new_line(out, inner);
                write_value(out, item, inner, limit);
            }
            if !items.is_empty() {
                new_line(out, depth);
            }
            out.push(b']');
        }
        Value::Object(map) => write_object(out, map, depth, limit),
    }
}

fn write_string(out: &mut Vec<u8>, s: &str) {
    // serde_json escapes exactly what JSON.stringify escapes, in the same
    // forms (lower-case `\u00xx`); writing to a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, s);
}

fn write_object(out: &mut Vec<u8>, map: &Map<String, Value>, depth: Option<usize>, limit: usize) {
    let mut indices: Vec<(u32, &String, &Value)> = map
        .iter()
        .filter_map(|(k, v)| array_index(k).map(|i| (i, k, v)))
        .collect();
    indices.sort_by_key(|(i, _, _)| *i);
    let others = map.iter().filter(|(k, _)| array_index(k).is_none());
    let inner = depth.map(|d| d + 1);
    out.push(b'{');
    let entries = indices.into_iter().map(|(_, k, v)| (k, v)).chain(others);
    for (n, (k, v)) in entries.enumerate() {
        if out.len() > limit {
            return;
        }
        if n > 0 {
            out.push(b',');
        }
        new_line(out, inner);
        write_string(out, k);
        out.extend_from_slice(if depth.is_some() { b": " } else { b":" });
        write_value(out, v, inner, limit);
    }
    if !map.is_empty() {
        new_line(out, depth);
    }
    out.push(b'}');
}

/// The key as a JavaScript array index: a canonical decimal integer below
/// 2^32 − 1 (`"0"`, `"42"`; not `"01"`, `"-1"` or `"4294967295"`).
fn array_index(key: &str) -> Option<u32> {
    if key.is_empty() || (key.len() > 1 && key.starts_with('0')) {
        return None;
    }
    if !key.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    key.parse::<u32>().ok().filter(|i| *i != u32::MAX)
}

/// A JSON number as a JavaScript double, written as JavaScript writes it.
fn number(n: &Number) -> String {
    match (n.as_i64(), n.as_u64(), n.as_f64()) {
        // Exact as a double: written as an integer.
        (Some(i), _, _) if i.unsigned_abs() <= 1 << 53 => i.to_string(),
        (_, Some(u), _) if u <= 1 << 53 => u.to_string(),
        (_, _, Some(f)) => js_number(f),
        _ => "null".to_owned(),
    }
}

/// `Number.prototype.toString()` of `f` (ECMA-262, Number::toString):
/// the shortest digits that read back as `f`, in fixed notation from
/// 1e-7 up to 1e21, else as `d.ddde±n`.
pub fn js_number(f: f64) -> String {
    if !f.is_finite() {
        return "null".to_owned();
    }
    if f == 0.0 {
        return "0".to_owned();
    }
    // Rust writes the shortest round-trip digits, as ECMAScript asks:
    // `d.ddde±x` here.
    let sci = format!("{:e}", f.abs());
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let exponent: i64 = exponent.parse().unwrap_or(0);
    let k = i64::try_from(digits.len()).unwrap_or(i64::MAX);
    let n = exponent + 1;
    let mut out = String::new();
    if f < 0.0 {
        out.push('-');
    }
    if k <= n && n <= 21 {
        out.push_str(&digits);
        out.extend(std::iter::repeat_n(
            '0',
            usize::try_from(n - k).unwrap_or(0),
        ));
    } else if 0 < n && n <= 21 {
        let (int, frac) = digits.split_at(usize::try_from(n).unwrap_or(0));
        out.push_str(int);
        out.push('.');
        out.push_str(frac);
    } else if -6 < n && n <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', usize::try_from(-n).unwrap_or(0)));
        out.push_str(&digits);
    } else {
        let (first, rest) = digits.split_at(1);
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        let _ = write!(
            out,
            "e{}{}",
            if n - 1 < 0 { '-' } else { '+' },
            (n - 1).abs()
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn most_tool_inputs_are_stringified_already_and_the_rest_are_not() {
        for text in [
            r#"{"command":"ls"}"#,
            "{\"command\": \"ls\",\n  \"a\" : [ true ]}",
            r#"{"file_path":"/p/a.rs","content":"fn main() {}","old":"é → ü"}"#,
            r#"{"a":[true,false,null,{"b":[],"":"x"}],"c":{}}"#,
            r#"[{"a":"x"},{"a":"y"}]"#,
            r#""a string""#,
            "null",
        ] {
            assert!(stringified_already(text), "{text}");
            assert_eq!(restringify(text), Some(compacted(text)));
        }
        for text in [
            r#"{"n":1}"#,
            r#"{"a":"line\nbreak"}"#,
            r#"{"a":"\u003c"}"#,
            r#"["\uabcd","\uabcd"]"#,
            r#"{"a":"x","a":"y"}"#,
            r#"{"b":"x","0":"y"}"#,
            r#"[-1]"#,
        ] {
            assert!(!stringified_already(text), "{text}");
        }
        let many: Vec<String> = (0..33).map(|i| format!("\"k{i}\":true")).collect();
        assert!(!stringified_already(&format!("{{{}}}", many.join(","))));
        assert!(!stringified_already(&format!("\"{}\"", "x".repeat(5000))));
    }

    /// `text` without the whitespace between its tokens.
    fn compacted(text: &str) -> String {
        let raw = serde_json::value::RawValue::from_string(text.to_owned()).unwrap();
        match crate::dialect::payload::Json::compact(&raw) {
            crate::dialect::payload::Json::Raw(c) => c.get().to_owned(),
            crate::dialect::payload::Json::Value(v) => v.to_string(),
        }
    }

    /// JSON text in a small alphabet, mostly already as JavaScript writes
    /// it, and sometimes not: a number, a key given twice or all digits,
    /// an escape that JavaScript writes otherwise, a space.
    fn json_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            3 => Just("true".to_owned()),
            2 => Just("null".to_owned()),
            1 => "-?[0-9]{1,3}(\\.[0-9]{1,2})?",
            6 => "\"([a-c é]|\\\\n|\\\\\"){0,4}\"",
            1 => "\"a?\\\\u(0041|abcd)\"",
        ];
        leaf.prop_recursive(4, 32, 5, |inner| {
            let key = prop_oneof![
                6 => "\"[a-d]?\"",
                2 => "\"(0|1|01)\"",
                1 => Just("\"\\u0061\"".to_owned()),
            ];
            let space = prop_oneof![6 => Just(""), 2 => Just(" "), 1 => Just("\n  ")];
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5)
                    .prop_map(|items| format!("[{}]", items.join(","))),
                prop::collection::vec((key, inner, space), 0..5).prop_map(|members| {
                    let members: Vec<String> = members
                        .into_iter()
                        .map(|(k, v, space)| format!("{k}:{space}{v}"))
                        .collect();
                    format!("{{{}}}", members.join(","))
                }),
            ]
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2048))]
        /// A text found stringified already is what rewriting it gives.
        #[test]
        fn a_text_stringified_already_is_its_own_rewrite(text in json_text()) {
            if stringified_already(&text) {
                proptest::prop_assert_eq!(restringify(&text), Some(compacted(&text)));
            }
        }
    }

    #[test]
    fn numbers_read_as_javascript_writes_them() {
        for (f, js) in [
            (100.0, "100"),
            (1.5, "1.5"),
            (-0.0, "0"),
            (1e21, "1e+21"),
            (1.5e21, "1.5e+21"),
            (123456789012345680000.0, "123456789012345680000"),
            (1e-7, "1e-7"),
            (1.25e-7, "1.25e-7"),
            (0.000001, "0.000001"),
            (0.1 + 0.2, "0.30000000000000004"),
            (-2.5, "-2.5"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
        ] {
            assert_eq!(js_number(f), js, "{f:e}");
        }
    }

    #[test]
    fn pretty_text_is_json_stringify_s_with_two_spaces() {
        // `JSON.stringify(JSON.parse(text), null, 2)`, from Node.
        let text = r#"{"b":{"x":[],"y":{}},"1":[1,{"k":null},[]],"n":-0,"f":1e21,"s":"\u00e9\u2028\u0001\"","0":true}"#;
        let value: Value = serde_json::from_str(text).expect("JSON");
        assert_eq!(
            stringify_pretty(&value),
            "{\n  \"0\": true,\n  \"1\": [\n    1,\n    {\n      \"k\": null\n    },\n    []\n  ],\n  \"b\": {\n    \"x\": [],\n    \"y\": {}\n  },\n  \"n\": 0,\n  \"f\": 1e+21,\n  \"s\": \"\u{e9}\u{2028}\\u0001\\\"\"\n}"
        );
        assert_eq!(stringify_pretty(&serde_json::json!({})), "{}");
        assert_eq!(stringify_pretty(&serde_json::json!([])), "[]");
    }

    #[test]
    fn text_is_rewritten_as_json_stringify_writes_it() {
        let cases = [
            (
                r#"{"command":"echo x \u003e /etc/passwd \u0026\u0026 ls","n":1e2,"m":1.50,"d":1,"d":2}"#,
                r#"{"command":"echo x > /etc/passwd && ls","n":100,"m":1.5,"d":2}"#,
            ),
            (
                r#"{"b":1,"2":0,"a":[1.0,-0,"\u00e9\/"],"1":0,"01":3}"#,
                r#"{"1":0,"2":0,"b":1,"a":[1,0,"é/"],"01":3}"#,
            ),
            (
                r#""tab\there \u001f \u2028""#,
                "\"tab\\there \\u001f \u{2028}\"",
            ),
            ("12345678901234567890", "12345678901234567000"),
            ("-9007199254740993", "-9007199254740992"),
        ];
        for (text, js) in cases {
            assert_eq!(restringify(text).as_deref(), Some(js), "{text}");
        }
        // serde_json cannot hold these: left as they are.
        assert_eq!(restringify("1e400"), None);
        assert_eq!(restringify(r#""\ud800""#), None);
    }
}
