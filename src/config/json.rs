//! A JSON document as a located tree.
//!
//! serde_json knows where a syntax error is but not where each value is, so
//! a JSON file is read twice: serde_json checks it (its error messages are
//! the ones JSON users know), then the YAML parser, for which JSON is a
//! subset, builds the located [`Node`] tree. Duplicate keys keep the last
//! value, as JSON parsers do.

use crate::diag::Position;

use super::yaml::{self, Node, SyntaxError, Value};

/// Parses a JSON document into a located tree.
pub fn parse(text: &str) -> Result<Node, SyntaxError> {
    if let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(text) {
        let message = e.to_string();
        // serde_json appends " at line L column C"; latch shows the position itself.
        let message = message
            .rsplit_once(" at line ")
            .map_or(message.as_str(), |(m, _)| m)
            .to_owned();
        return Err(SyntaxError {
            message,
            position: (e.line() > 0).then(|| Position {
                line: e.line() as u32,
                // serde_json says column 0 for an error at a line's start.
                column: (e.column() as u32).max(1),
            }),
        });
    }
    match yaml::parse_with_last_key_wins(text) {
        Ok(node) => Ok(node),
        // Valid JSON the YAML reader does not take (very rare): keep the
        // content, at the cost of positions.
        Err(_) => match serde_json::from_str::<serde_json::Value>(text) {
            Ok(v) => Ok(from_json(&v)),
            Err(e) => Err(SyntaxError {
                message: e.to_string(),
                position: None,
            }),
        },
    }
}

/// A tree from a JSON value, every node at 1:1 (positions unknown).
fn from_json(v: &serde_json::Value) -> Node {
    use serde_json::Value as J;
    let value = match v {
        J::Null => Value::Null,
        J::Bool(b) => Value::Bool(*b),
        J::Number(n) => n
            .as_i64()
            .map_or(Value::Float(n.as_f64().unwrap_or(0.0)), Value::Int),
        J::String(s) => Value::Str(s.clone()),
        J::Array(items) => Value::Seq(items.iter().map(from_json).collect()),
        J::Object(m) => Value::Map(
            m.iter()
                .map(|(k, v)| (from_json(&J::String(k.clone())), from_json(v)))
                .collect(),
        ),
    };
    Node {
        value,
        position: Position { line: 1, column: 1 },
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
