//! A JSON document as a located tree.
//!
//! serde_json knows where a syntax error is but not where each value is, so
//! a JSON file is read twice: serde_json checks it (its error messages are
//! the ones JSON users know), then `Builder` builds the located [`Node`]
//! tree from the checked text. Duplicate keys are all kept, in file order;
//! [`Node::get`] reads the last one, as JSON parsers do.
//!
//! The builder is hand-written. No crate gives located JSON values in our
//! [`Node`] type cheaply: serde_json has no spans, and `jsonc-parser`
//! (the AST parser of JSON with comments) gives byte ranges in its own
//! tree, which would have to be walked again node by node to compute
//! character columns and convert values, and decodes strings with its own
//! escape rules, which would have to agree with serde_json's. The YAML
//! parser, for which JSON is a subset, was used before and was the whole
//! cost of loading a large `hooks.json` (10,000 hook groups: about 150 ms,
//! now 45 ms for the whole load). The text is already valid JSON when the
//! builder sees it, so it only records where each value starts and hands
//! escaped strings to serde_json to decode; it still checks every byte
//! it reads and never panics on any input.

use crate::diag::Position;

use super::yaml::{Node, SyntaxError, Value};

/// Containers nest at most this deep, as in serde_json (which refuses
/// deeper documents before the builder runs).
const MAX_DEPTH: usize = 128;

/// Parses a JSON document into a located tree.
pub fn parse(text: &str) -> Result<Node, SyntaxError> {
    if let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(text) {
        return Err(SyntaxError {
            message: json_message(&e),
            position: (e.line() > 0).then(|| Position {
                line: e.line() as u32,
                // serde_json says column 0 for an error at a line's start.
                column: (e.column() as u32).max(1),
            }),
        });
    }
    Builder::new(text).document()
}

/// serde_json's message without the " at line L column C" it appends;
/// latch shows the position itself.
fn json_message(e: &serde_json::Error) -> String {
    let message = e.to_string();
    message
        .rsplit_once(" at line ")
        .map_or(message.as_str(), |(m, _)| m)
        .to_owned()
}

/// Builds the located tree of a JSON text, tracking the line and the
/// character column as it reads (a line break is `\n`, `\r\n` or a lone
/// `\r`, as the YAML reader counted them).
struct Builder<'a> {
    text: &'a str,
    bytes: &'a [u8],
    /// The byte offset of the next byte to read.
    at: usize,
    line: u32,
    column: u32,
}

impl<'a> Builder<'a> {
    fn new(text: &'a str) -> Self {
        Builder {
            text,
            bytes: text.as_bytes(),
            at: 0,
            line: 1,
            column: 1,
        }
    }

    fn document(mut self) -> Result<Node, SyntaxError> {
        let root = self.value(0)?;
        self.whitespace();
        if self.at < self.bytes.len() {
            return Err(self.error("trailing characters"));
        }
        Ok(root)
    }

    fn position(&self) -> Position {
        Position {
            line: self.line,
            column: self.column,
        }
    }

    fn error(&self, message: &str) -> SyntaxError {
        SyntaxError {
            message: message.to_owned(),
            position: Some(self.position()),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    /// Steps over one byte that is not a line break.
    fn bump(&mut self) {
        self.at += 1;
        self.column = self.column.saturating_add(1);
    }

    fn whitespace(&mut self) {
        while let Some(b) = self.peek() {
            match b {
                b' ' | b'\t' => self.bump(),
                b'\n' | b'\r' => {
                    self.at += 1;
                    if b == b'\r' && self.peek() == Some(b'\n') {
                        self.at += 1;
                    }
                    self.line = self.line.saturating_add(1);
                    self.column = 1;
                }
                _ => break,
            }
        }
    }

    /// Skips whitespace, then expects `byte`.
    fn expect(&mut self, byte: u8, what: &str) -> Result<(), SyntaxError> {
        self.whitespace();
        if self.peek() == Some(byte) {
            self.bump();
            Ok(())
        } else {
            Err(self.error(what))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Node, SyntaxError> {
        self.whitespace();
        let position = self.position();
        let value = match self.peek() {
            Some(b'{') => self.object(depth)?,
            Some(b'[') => self.array(depth)?,
            Some(b'"') => Value::Str(self.string()?),
            Some(b't') => self.word("true", Value::Bool(true))?,
            Some(b'f') => self.word("false", Value::Bool(false))?,
            Some(b'n') => self.word("null", Value::Null)?,
            Some(b'-' | b'0'..=b'9') => self.number()?,
            _ => return Err(self.error("expected value")),
        };
        Ok(Node { value, position })
    }

    fn enter(&self, depth: usize) -> Result<usize, SyntaxError> {
        if depth >= MAX_DEPTH {
            Err(self.error("recursion limit exceeded"))
        } else {
            Ok(depth + 1)
        }
    }

    fn object(&mut self, depth: usize) -> Result<Value, SyntaxError> {
        let depth = self.enter(depth)?;
        self.bump();
        let mut entries = Vec::new();
        self.whitespace();
        if self.peek() == Some(b'}') {
            self.bump();
            return Ok(Value::Map(entries));
        }
        loop {
            self.whitespace();
            let position = self.position();
            if self.peek() != Some(b'"') {
                return Err(self.error("key must be a string"));
            }
            let key = Node {
                value: Value::Str(self.string()?),
                position,
            };
            self.expect(b':', "expected `:`")?;
            let value = self.value(depth)?;
            entries.push((key, value));
            self.whitespace();
            match self.peek() {
                Some(b',') => self.bump(),
                Some(b'}') => {
                    self.bump();
                    return Ok(Value::Map(entries));
                }
                _ => return Err(self.error("expected `,` or `}`")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Value, SyntaxError> {
        let depth = self.enter(depth)?;
        self.bump();
        let mut items = Vec::new();
        self.whitespace();
        if self.peek() == Some(b']') {
            self.bump();
            return Ok(Value::Seq(items));
        }
        loop {
            items.push(self.value(depth)?);
            self.whitespace();
            match self.peek() {
                Some(b',') => self.bump(),
                Some(b']') => {
                    self.bump();
                    return Ok(Value::Seq(items));
                }
                _ => return Err(self.error("expected `,` or `]`")),
            }
        }
    }

    fn word(&mut self, word: &str, value: Value) -> Result<Value, SyntaxError> {
        if self
            .bytes
            .get(self.at..)
            .is_some_and(|rest| rest.starts_with(word.as_bytes()))
        {
            self.at += word.len();
            self.column = self.column.saturating_add(word.len() as u32);
            Ok(value)
        } else {
            Err(self.error("expected value"))
        }
    }

    /// A number: an integer that fits in 64 bits is an `Int`, any other
    /// number a `Float` (the nearest one, as Rust reads decimals).
    fn number(&mut self) -> Result<Value, SyntaxError> {
        let start = self.at;
        let end = self
            .bytes
            .get(start..)
            .unwrap_or_default()
            .iter()
            .position(|b| !matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
            .map_or(self.bytes.len(), |n| start + n);
        // ASCII bytes only, so these are character boundaries.
        let token = self.text.get(start..end).unwrap_or_default();
        let integer = !token.contains(['.', 'e', 'E']);
        let value = match integer.then(|| token.parse::<i64>()) {
            Some(Ok(i)) => Value::Int(i),
            _ => match token.parse::<f64>() {
                Ok(f) => Value::Float(f),
                Err(_) => return Err(self.error("invalid number")),
            },
        };
        self.at = end;
        self.column = self.column.saturating_add((end - start) as u32);
        Ok(value)
    }

    /// A string, decoded by serde_json when it has escapes.
    fn string(&mut self) -> Result<String, SyntaxError> {
        let start = self.at;
        let mut escaped = false;
        let mut i = start + 1;
        let end = loop {
            match self.bytes.get(i) {
                Some(b'"') => break i,
                Some(b'\\') => {
                    escaped = true;
                    i += 2;
                }
                Some(b'\n' | b'\r') | None => return Err(self.error("EOF while parsing a string")),
                Some(_) => i += 1,
            }
        };
        // `"` and `\` are ASCII, so these are character boundaries.
        let token = self.text.get(start..=end).unwrap_or_default();
        let body = token
            .get(1..token.len().saturating_sub(1))
            .unwrap_or_default();
        let decoded = if escaped {
            serde_json::from_str::<String>(token).map_err(|e| SyntaxError {
                message: json_message(&e),
                position: Some(self.position()),
            })?
        } else {
            body.to_owned()
        };
        let chars = token.bytes().filter(|b| b & 0xC0 != 0x80).count();
        self.at = end + 1;
        self.column = self.column.saturating_add(chars as u32);
        Ok(decoded)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_have_positions() {
        let n = parse("{\n  \"a\": {\"b\": [1, \"x\"]}\n}").unwrap();
        let b = n.get("a").unwrap().get("b").unwrap();
        assert_eq!(
            b.position,
            Position {
                line: 2,
                column: 14
            }
        );
    }

    #[test]
    fn syntax_errors_use_json_messages() {
        let e = parse("{\n  \"a\": 1,\n}").unwrap_err();
        assert_eq!(e.message, "key must be a string");
        assert_eq!(e.position, Some(Position { line: 3, column: 1 }));
    }

    #[test]
    fn escapes_and_duplicate_keys() {
        let n = parse(r#"{"a": "\u00e9\/\n", "a": 2}"#).unwrap();
        assert_eq!(n.get("a").map(|v| v.value.clone()), Some(Value::Int(2)));
    }
}

/// The new builder against the YAML reader it replaced, on generated JSON.
#[cfg(test)]
mod against_yaml {
    use super::*;
    use crate::config::yaml;
    use proptest::prelude::*;

    fn ws() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop::sample::select(vec![" ", "\t", "\n", "\r\n", "\r", "  "]),
            0..3,
        )
        .prop_map(|v| v.concat())
    }

    fn string() -> impl Strategy<Value = String> {
        let piece = prop::sample::select(vec![
            "a",
            "Bash",
            "x y",
            "é",
            "😀",
            "中",
            "\\\"",
            "\\\\",
            "\\/",
            "\\n",
            "\\t",
            "\\r",
            "\\b",
            "\\f",
            "\\u00e9",
            "\\u0000",
            "\\u001f",
            "\\ud83d\\ude00",
            "\\u2028",
            "'",
            "#",
            ":",
            "- ",
            "{",
            "}",
            "[",
            "]",
            ",",
            "&a",
            "*a",
            "!t",
            "%",
            "@",
            "\u{85}",
            "\u{a0}",
            "\u{feff}",
            "\u{2029}",
        ]);
        prop::collection::vec(piece, 0..5).prop_map(|v| format!("\"{}\"", v.concat()))
    }

    fn number() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<i64>().prop_map(|i| i.to_string()),
            any::<u64>().prop_map(|i| i.to_string()),
            "-?(0|[1-9][0-9]{0,24})(\\.[0-9]{1,6})?([eE][-+]?[0-9]{1,2})?",
            Just("-0".to_owned()),
            Just("-9223372036854775808".to_owned()),
            Just("-9223372036854775809".to_owned()),
        ]
    }

    fn json() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            Just("null".to_owned()),
            Just("true".to_owned()),
            Just("false".to_owned()),
            number(),
            string(),
        ];
        leaf.prop_recursive(5, 64, 6, |inner| {
            prop_oneof![
                prop::collection::vec((ws(), inner.clone(), ws()), 0..6).prop_map(|items| {
                    let items: Vec<String> = items
                        .into_iter()
                        .map(|(a, v, b)| format!("{a}{v}{b}"))
                        .collect();
                    format!("[{}]", items.join(","))
                }),
                prop::collection::vec(
                    (
                        ws(),
                        prop_oneof![string(), Just("\"a\"".to_owned())],
                        ws(),
                        ws(),
                        inner
                    ),
                    0..6
                )
                .prop_map(|entries| {
                    let entries: Vec<String> = entries
                        .into_iter()
                        .map(|(a, k, b, c, v)| format!("{a}{k}{b}:{c}{v}"))
                        .collect();
                    format!("{{{}}}", entries.join(","))
                }),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn same_tree_as_the_yaml_reader((before, doc, after) in (ws(), json(), ws())) {
            let text = format!("{before}{doc}{after}");
            let new = parse(&text);
            // Valid JSON the YAML reader refused (a lone surrogate, a
            // character YAML forbids) used to lose its positions; there
            // is nothing to compare with.
            if let Ok(old) = yaml::parse_with_last_key_wins(&text) {
                prop_assert_eq!(new, Ok(old), "{:?}", text);
            } else if let Ok(node) = &new {
                let json: serde_json::Value = serde_json::from_str(&text).unwrap();
                prop_assert_eq!(node.to_json().to_string(), json.to_string());
            }
        }

        #[test]
        fn never_panics_on_any_text(text in "[\\[\\]{}\",:0-9a-z\\\\ \n\r\té-]{0,64}") {
            let _ = parse(&text);
            let _ = Builder::new(&text).document();
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let text = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(parse(&text).is_err());
        assert!(Builder::new(&text).document().is_err());
        let ok = format!("{}{}", "[".repeat(100), "]".repeat(100));
        assert!(parse(&ok).is_ok());
    }

    #[test]
    fn line_breaks_and_columns_count_like_the_yaml_reader() {
        let text = "{\r\"a\":\r1,\r\n\"é😀\":\t[\"中\", 2]}";
        assert_eq!(parse(text), yaml::parse_with_last_key_wins(text));
        let n = parse(text).unwrap();
        let list = n.get("é😀").unwrap();
        assert_eq!(list.position, Position { line: 4, column: 7 });
    }

    #[test]
    fn duplicate_keys_are_all_kept_in_order() {
        let text = r#"{"a": 1, "b": 2, "a": {"c": 3}}"#;
        let n = parse(text).unwrap();
        assert_eq!(n.as_map().map(<[_]>::len), Some(3));
        assert_eq!(Ok(n), yaml::parse_with_last_key_wins(text));
    }

    #[test]
    fn a_lone_surrogate_is_an_error_with_a_position() {
        let e = parse("[1, \"\\ud800\"]").unwrap_err();
        assert_eq!(e.position, Some(Position { line: 1, column: 5 }));
    }
}
