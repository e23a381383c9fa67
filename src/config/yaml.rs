//! A YAML document as a tree of values that know where they were written.

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;

use crate::diag::Position;

/// One YAML value and where it stands in the file.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// The value.
    pub value: Value,
    /// Where the value starts (for an alias: where the alias is used).
    pub position: Position,
}

/// A YAML value. Mappings keep their order.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null`, `~` or nothing.
    Null,
    /// `true` or `false` (YAML 1.2 spellings only: `yes` is a string).
    Bool(bool),
    /// An integer that fits in 64 bits.
    Int(i64),
    /// Any other number.
    Float(f64),
    /// A string.
    Str(String),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping, in file order.
    Map(Vec<(Node, Node)>),
}

/// A YAML syntax error, with its position when the parser knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// What is wrong.
    pub message: String,
    /// Where.
    pub position: Option<Position>,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Parses one YAML document. A second document, duplicate keys, invalid
/// syntax and alias bombs are errors with a position.
///
/// Plain documents are built straight from the parser's events (see
/// `config/yaml_fast.rs`, about three times faster); anything else, every
/// error included, is parsed by serde-saphyr ([`parse_with_serde_saphyr`]),
/// with the same result either way.
pub fn parse(text: &str) -> Result<Node, SyntaxError> {
    match super::yaml_fast::parse(text) {
        Some(node) => Ok(node),
        None => parse_with_serde_saphyr(text),
    }
}

/// Parses like [`parse`], always with serde-saphyr. [`parse`] must give the
/// same result for every text; tests and the `yaml_paths` fuzz target
/// compare the two.
pub fn parse_with_serde_saphyr(text: &str) -> Result<Node, SyntaxError> {
    let mut options = serde_saphyr::Options::default();
    options.strict_booleans = true;
    // `.inf`, `.nan` and a float too large for `f64` (`1e309`) are read
    // as their canonical text (`.inf`): the field that gets one then says
    // it is not the number it needs, instead of the whole file failing
    // to parse and every hook in it, a deny included, being lost.
    options.non_finite_float_policy = serde_saphyr::NonFiniteFloatPolicy::AsString;
    parse_with(text, options)
}

/// Parses like [`parse`], but a duplicate key is allowed (JSON's rule).
/// Only the tests of the JSON reader use it, to compare with it.
#[cfg(test)]
pub(crate) fn parse_with_last_key_wins(text: &str) -> Result<Node, SyntaxError> {
    let mut options = serde_saphyr::Options::default();
    options.strict_booleans = true;
    // `.inf`, `.nan` and a float too large for `f64` (`1e309`) are read
    // as their canonical text (`.inf`): the field that gets one then says
    // it is not the number it needs, instead of the whole file failing
    // to parse and every hook in it, a deny included, being lost.
    options.non_finite_float_policy = serde_saphyr::NonFiniteFloatPolicy::AsString;
    options.duplicate_keys = serde_saphyr::options::DuplicateKeyPolicy::LastWins;
    parse_with(text, options)
}

fn parse_with(text: &str, options: serde_saphyr::Options) -> Result<Node, SyntaxError> {
    match serde_saphyr::from_str_with_options::<Spanned<Value>>(text, options) {
        Ok(spanned) => Ok(Node::from(spanned)),
        Err(err) => Err(SyntaxError {
            message: budget_message(&err)
                .unwrap_or_else(|| without_api_advice(bare_message(&err.to_string()))),
            position: err.location().map(|l| Position {
                line: l.line() as u32,
                column: l.column() as u32,
            }),
        }),
    }
}

/// A budget breach in words: serde-saphyr renders it in Rust's debug
/// form (`budget breached: Depth { depth: 65 }`). The numbers are the
/// limits of [`serde_saphyr::Budget::default`], which latch uses.
fn budget_message(err: &serde_saphyr::Error) -> Option<String> {
    use serde_saphyr::budget::BudgetBreach;
    let mut err = err.without_snippet();
    while let serde_saphyr::Error::AliasError { error, .. } = err {
        err = error.without_snippet();
    }
    let serde_saphyr::Error::Budget { breach, .. } = err else {
        return None;
    };
    let limits = serde_saphyr::Budget::default();
    Some(match breach {
        BudgetBreach::Depth { .. } => format!(
            "nested deeper than {} levels, latch's limit",
            limits.max_depth
        ),
        BudgetBreach::Nodes { .. } => {
            format!("more than {} nodes, latch's limit", limits.max_nodes)
        }
        BudgetBreach::Aliases { .. } | BudgetBreach::AliasAnchorRatio { .. } => {
            "too many aliases (`*name`) for latch's limit".to_owned()
        }
        BudgetBreach::Anchors { .. } => "too many anchors (`&name`) for latch's limit".to_owned(),
        BudgetBreach::Documents { .. } => "too many YAML documents for latch's limit".to_owned(),
        BudgetBreach::ScalarBytes { .. } => {
            "text values too large in all for latch's limit".to_owned()
        }
        other => format!("too large for latch's limits ({other:?})"),
    })
}

/// serde-saphyr renders its errors with a snippet; latch renders its own, so
/// keep only the message: the first line, without the `error: line L column
/// C:` prefix.
fn bare_message(rendered: &str) -> String {
    let first = rendered.lines().next().unwrap_or(rendered);
    let first = first.strip_prefix("error: ").unwrap_or(first);
    if let Some(rest) = first.strip_prefix("line ")
        && let Some((_, msg)) = rest.split_once(": ")
    {
        return msg.to_owned();
    }
    first.to_owned()
}

/// serde-saphyr's messages sometimes end with advice for its API users,
/// which means nothing to someone editing a settings file.
fn without_api_advice(message: String) -> String {
    for advice in [", set DuplicateKeyPolicy", "; use from_str_multiple"] {
        if let Some((head, _)) = message.split_once(advice) {
            return head.to_owned();
        }
    }
    message
}

impl From<Spanned<Value>> for Node {
    fn from(s: Spanned<Value>) -> Self {
        Node {
            value: s.value,
            position: Position {
                line: s.referenced.line() as u32,
                column: s.referenced.column() as u32,
            },
        }
    }
}

impl Node {
    /// The string, if this is a string.
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The mapping entries, if this is a mapping.
    pub fn as_map(&self) -> Option<&[(Node, Node)]> {
        match &self.value {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The items, if this is a sequence.
    pub fn as_seq(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Seq(items) => Some(items),
            _ => None,
        }
    }

    /// The value under a string key, if this is a mapping that has it (the
    /// last one, if a JSON document repeats the key).
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.as_map()?
            .iter()
            .rfind(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v)
    }

    /// A short name of the value's type, for messages ("a string", "a list").
    pub fn kind(&self) -> &'static str {
        match self.value {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Int(_) | Value::Float(_) => "a number",
            Value::Str(_) => "a string",
            Value::Seq(_) => "a list",
            Value::Map(_) => "a mapping",
        }
    }

    /// Like [`Node::kind`], in JSON's words ("an object", "an array").
    pub fn json_kind(&self) -> &'static str {
        match self.value {
            Value::Seq(_) => "an array",
            Value::Map(_) => "an object",
            _ => self.kind(),
        }
    }

    /// A positive number of seconds (at most 10^9, fractions allowed), or
    /// `Err` with what was found instead, for the message.
    pub fn seconds(&self) -> Result<std::time::Duration, String> {
        let secs = match self.value {
            Value::Int(i) => i as f64,
            Value::Float(f) => f,
            _ => return Err(self.kind().to_owned()),
        };
        if secs > 0.0 && secs.is_finite() && secs <= 1e9 {
            Ok(std::time::Duration::from_secs_f64(secs))
        } else {
            Err(self.scalar_text())
        }
    }

    /// The value as JSON. Mapping keys that are not strings are written as
    /// their YAML text.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match &self.value {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Int(i) => J::from(*i),
            Value::Float(f) => serde_json::Number::from_f64(*f).map_or(J::Null, J::Number),
            Value::Str(s) => J::String(s.clone()),
            Value::Seq(items) => J::Array(items.iter().map(Node::to_json).collect()),
            Value::Map(entries) => J::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.scalar_text(), v.to_json()))
                    .collect(),
            ),
        }
    }

    /// The text of a scalar (for keys and messages).
    pub fn scalar_text(&self) -> String {
        match &self.value {
            Value::Null => "null".to_owned(),
            Value::Bool(b) => b.to_string(),
            Value::Int(i) => i.to_string(),
            Value::Float(f) => f.to_string(),
            Value::Str(s) => s.clone(),
            Value::Seq(_) => "[…]".to_owned(),
            Value::Map(_) => "{…}".to_owned(),
        }
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Value::deserialize(d)
    }
    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }
    fn visit_i64<E>(self, i: i64) -> Result<Value, E> {
        Ok(Value::Int(i))
    }
    fn visit_u64<E>(self, u: u64) -> Result<Value, E> {
        Ok(i64::try_from(u).map_or(Value::Float(u as f64), Value::Int))
    }
    fn visit_i128<E>(self, i: i128) -> Result<Value, E> {
        Ok(i64::try_from(i).map_or(Value::Float(i as f64), Value::Int))
    }
    fn visit_u128<E>(self, u: u128) -> Result<Value, E> {
        Ok(i64::try_from(u).map_or(Value::Float(u as f64), Value::Int))
    }
    fn visit_f64<E>(self, f: f64) -> Result<Value, E> {
        Ok(Value::Float(f))
    }
    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::Str(s.to_owned()))
    }
    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::Str(s))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Spanned<Value>>()? {
            items.push(Node::from(item));
        }
        Ok(Value::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut entries = Vec::new();
        while let Some((k, v)) = map.next_entry::<Spanned<Value>, Spanned<Value>>()? {
            entries.push((Node::from(k), Node::from(v)));
        }
        Ok(Value::Map(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_one_based_and_exact() {
        let n = parse("a: 1\nhooks:\n  PreToolUse:\n    - command: x\n").expect("parses");
        let hooks = n.get("hooks").expect("hooks");
        let list = hooks.get("PreToolUse").expect("event");
        let Value::Seq(items) = &list.value else {
            panic!("not a list")
        };
        let cmd = items[0].get("command").expect("command");
        assert_eq!(
            cmd.position,
            Position {
                line: 4,
                column: 16
            }
        );
    }

    #[test]
    fn yes_is_a_string() {
        let n = parse("on: yes\n").expect("parses");
        assert_eq!(n.get("on").and_then(Node::as_str), Some("yes"));
    }

    #[test]
    fn syntax_errors_have_positions() {
        let e = parse("a: [1\n").expect_err("fails");
        assert_eq!(e.position, Some(Position { line: 1, column: 4 }));
        assert_eq!(e.message, "unclosed bracket '['");
    }

    #[test]
    fn budget_breaches_are_said_in_words() {
        let deep = format!("a: {}{}\n", "[".repeat(70), "]".repeat(70));
        // An unoptimised serde-saphyr needs more than a test thread's 2 MiB
        // for 64 levels (`latch` parses on its main thread).
        let e = std::thread::Builder::new()
            .stack_size(16 << 20)
            .spawn(move || parse(&deep).expect_err("too deep"))
            .expect("thread")
            .join()
            .expect("no panic");
        assert_eq!(e.message, "nested deeper than 64 levels, latch's limit");
        assert!(e.position.is_some());
    }

    #[test]
    fn a_second_document_is_an_error() {
        let e = parse("a: 1\n---\nb: 2\n").expect_err("fails");
        assert_eq!(e.position.map(|p| p.line), Some(3));
    }

    #[test]
    fn aliases_resolve() {
        let n = parse("x: &c hello\ny: *c\n").expect("parses");
        assert_eq!(n.get("y").and_then(Node::as_str), Some("hello"));
    }
}
