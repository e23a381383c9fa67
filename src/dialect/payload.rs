//! Hook payloads serialized without copying the event's bulky values.
//!
//! A 4 MB tool output would otherwise be cloned into each dialect's
//! payload `Value` before being serialized. A [`JsonObject`] borrows the
//! event's values (`Cow::Borrowed`) and owns only what it builds, and
//! [`to_bytes`] serializes into a buffer of the exact size, so a payload
//! costs its serialized bytes and nothing more.

use std::borrow::Cow;
use std::io;

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

/// One value of a payload: a [`Value`] (borrowed or owned) or JSON text
/// embedded as it is (a tool's output, see [`crate::event::RawJson`]).
#[derive(Debug, Clone)]
pub enum Json<'a> {
    /// A parsed value.
    Value(Cow<'a, Value>),
    /// JSON text, written verbatim.
    Raw(Cow<'a, RawValue>),
}

impl<'a> Json<'a> {
    /// JSON text borrowed from the event, written verbatim.
    pub fn raw(text: &'a RawValue) -> Json<'a> {
        Json::Raw(Cow::Borrowed(text))
    }

    /// JSON text without the whitespace between its tokens (strings are
    /// kept as written), as one compact line: borrowed when the text is
    /// compact already.
    pub fn compact(text: &'a RawValue) -> Json<'a> {
        match minify(text.get()) {
            None => Json::Raw(Cow::Borrowed(text)),
            Some(min) => match RawValue::from_string(min) {
                Ok(raw) => Json::Raw(Cow::Owned(raw)),
                Err(_) => Json::Raw(Cow::Borrowed(text)),
            },
        }
    }
}

/// `text` (valid JSON) without whitespace outside strings; `None` when it
/// has none. A byte scan: JSON whitespace is ASCII and never occurs inside
/// a multi-byte character. The copy starts at the first whitespace found.
fn minify(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out: Option<Vec<u8>> = None;
    let (mut in_string, mut escaped) = (false, false);
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
        } else if b == b'"' {
            in_string = true;
        } else if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
            out.get_or_insert_with(|| bytes[..i].to_vec());
            continue;
        }
        if let Some(o) = out.as_mut() {
            o.push(b);
        }
    }
    out.and_then(|o| String::from_utf8(o).ok())
}

impl Json<'_> {
    /// Whether this is `null`, `""`, `{}` or `[]`.
    pub fn is_empty(&self) -> bool {
        match self {
            Json::Value(v) => match v.as_ref() {
                Value::Null => true,
                Value::String(s) => s.is_empty(),
                Value::Object(m) => m.is_empty(),
                Value::Array(a) => a.is_empty(),
                _ => false,
            },
            Json::Raw(r) => {
                let t = r.get().trim();
                let inner = |open: char, close: char| {
                    t.strip_prefix(open)
                        .and_then(|t| t.strip_suffix(close))
                        .is_some_and(|i| i.trim().is_empty())
                };
                t == "null" || t == "\"\"" || inner('{', '}') || inner('[', ']')
            }
        }
    }

    /// The text a person or model reads: a string as it is, anything else
    /// as JSON.
    pub fn to_text(&self) -> String {
        match self {
            Json::Value(v) => match v.as_ref() {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            },
            Json::Raw(r) => match serde_json::from_str::<String>(r.get()) {
                Ok(s) => s,
                Err(_) => r.get().trim().to_owned(),
            },
        }
    }
}

impl Json<'_> {
    /// The value, parsed if it is JSON text.
    pub fn to_value(&self) -> Value {
        match self {
            Json::Value(v) => v.as_ref().clone(),
            Json::Raw(r) => serde_json::from_str(r.get()).unwrap_or(Value::Null),
        }
    }

    /// Whether both hold the same value, however it is written. Text is
    /// parsed only when the other side is a parsed value (after a rewrite).
    pub fn same_value(&self, other: &Json<'_>) -> bool {
        match (self, other) {
            (Json::Raw(a), Json::Raw(b)) if a.get() == b.get() => true,
            (Json::Value(a), Json::Value(b)) => a == b,
            _ => self.to_value() == other.to_value(),
        }
    }
}

impl PartialEq for Json<'_> {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Json::Value(a), Json::Value(b)) => a == b,
            (Json::Raw(a), Json::Raw(b)) => a.get() == b.get(),
            _ => false,
        }
    }
}

impl<'a> From<Cow<'a, Value>> for Json<'a> {
    fn from(v: Cow<'a, Value>) -> Self {
        Json::Value(v)
    }
}

impl<'a> From<&'a RawValue> for Json<'a> {
    fn from(v: &'a RawValue) -> Self {
        Json::raw(v)
    }
}

impl Serialize for Json<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Value(v) => v.serialize(serializer),
            Json::Raw(r) => r.serialize(serializer),
        }
    }
}

/// A JSON object whose values may be borrowed; keys keep insertion order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JsonObject<'a> {
    entries: Vec<(Cow<'a, str>, Json<'a>)>,
}

impl<'a> JsonObject<'a> {
    /// An empty object.
    pub fn new() -> Self {
        JsonObject::default()
    }

    /// Sets `key` (replacing an earlier value of the same key in place).
    pub fn insert(&mut self, key: impl Into<Cow<'a, str>>, value: impl Into<Json<'a>>) {
        let (key, value) = (key.into(), value.into());
        match self.entries.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => self.entries.push((key, value)),
        }
    }
}

#[cfg(test)]
impl<'a> JsonObject<'a> {
    /// The value of `key`.
    fn get(&self, key: &str) -> Option<&Json<'a>> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
}

impl Serialize for JsonObject<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.entries.len()))?;
        for (k, v) in &self.entries {
            map.serialize_entry(k.as_ref(), v)?;
        }
        map.end()
    }
}

/// The size up to which [`to_bytes`] writes a payload in one pass (most
/// are a few hundred bytes).
const SMALL: usize = 4096;

/// A buffer that refuses to grow past [`SMALL`] bytes.
struct Bounded(Vec<u8>);

impl io::Write for Bounded {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.0.len() + buf.len() > SMALL {
            return Err(io::ErrorKind::WriteZero.into());
        }
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Counts bytes written.
struct Counter(usize);

impl io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// `value` as compact JSON. A payload of up to [`SMALL`] bytes is written
/// in one pass; a larger one goes in a buffer of exactly its size (a
/// first pass counts the bytes), so it is never over-allocated by a
/// growing buffer. Empty if it cannot be serialized.
pub fn to_bytes(value: &impl Serialize) -> Vec<u8> {
    let mut small = Bounded(Vec::with_capacity(SMALL));
    if serde_json::to_writer(&mut small, value).is_ok() {
        return small.0;
    }
    let mut counter = Counter(0);
    if serde_json::to_writer(&mut counter, value).is_err() {
        return Vec::new();
    }
    let mut out = Vec::with_capacity(counter.0);
    if serde_json::to_writer(&mut out, value).is_err() {
        return Vec::new();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Compacting a pretty-printed value gives serde_json's compact
        /// text of the same value.
        #[test]
        fn compact_is_the_compact_serialization(
            v in proptest::collection::vec(("[a-z \\\\\"\n]{0,8}", proptest::collection::vec(proptest::arbitrary::any::<i64>(), 0..4)), 0..6)
        ) {
            let value = serde_json::json!(v.into_iter().collect::<std::collections::BTreeMap<_, _>>());
            let pretty = RawValue::from_string(serde_json::to_string_pretty(&value).unwrap()).unwrap();
            let Json::Raw(c) = Json::compact(&pretty) else { panic!() };
            proptest::prop_assert_eq!(c.get(), value.to_string());
        }
    }

    #[test]
    fn compact_drops_whitespace_between_tokens_only() {
        let raw = RawValue::from_string("{ \"a b\" :\n [1, \"x \\\" y\"],\t\"c\": {} }".to_owned())
            .unwrap();
        let Json::Raw(c) = Json::compact(&raw) else {
            panic!()
        };
        assert_eq!(c.get(), r#"{"a b":[1,"x \" y"],"c":{}}"#);
        let tight = RawValue::from_string(r#"{"a":1}"#.to_owned()).unwrap();
        assert!(matches!(Json::compact(&tight), Json::Raw(Cow::Borrowed(_))));
    }

    #[test]
    fn same_value_ignores_spacing_only_against_a_parsed_value() {
        let raw = RawValue::from_string(r#"{"a": [1, 2]}"#.to_owned()).unwrap();
        let compact = RawValue::from_string(r#"{"a":[1,2]}"#.to_owned()).unwrap();
        let parsed = serde_json::json!({"a": [1, 2]});
        assert!(Json::raw(&raw).same_value(&Json::raw(&raw)));
        assert!(Json::raw(&raw).same_value(&Json::raw(&compact)));
        assert!(Json::Value(Cow::Owned(parsed.clone())).same_value(&Json::raw(&raw)));
        let other = serde_json::json!({"a": [2, 1]});
        assert!(!Json::Value(Cow::Owned(other)).same_value(&Json::raw(&raw)));
        assert_eq!(Json::raw(&raw).to_value(), parsed);
    }

    #[test]
    fn serializes_in_order_with_borrowed_values() {
        // A small payload in one pass, a large one in a buffer of its size.
        for len in [100, SMALL, 10 * SMALL] {
            let big = Value::from("x".repeat(len));
            let mut o = JsonObject::new();
            o.insert("b", Cow::Owned(Value::from(1)));
            o.insert("a", Cow::Borrowed(&big));
            o.insert("b", Cow::Owned(Value::from(2)));
            let bytes = to_bytes(&o);
            if bytes.len() > SMALL {
                assert_eq!(bytes.capacity(), bytes.len());
            }
            assert_eq!(
                String::from_utf8(bytes).unwrap(),
                format!("{{\"b\":2,\"a\":\"{}\"}}", "x".repeat(len))
            );
            assert_eq!(o.get("a"), Some(&Json::Value(Cow::Borrowed(&big))));
        }
    }

    #[test]
    fn raw_json_is_embedded_verbatim_and_judged_empty_by_its_value() {
        let raw = RawValue::from_string("[ 1,2 ]".to_owned()).unwrap();
        let mut o = JsonObject::new();
        o.insert("r", raw.as_ref());
        assert_eq!(to_bytes(&o), b"{\"r\":[ 1,2 ]}");
        for empty in ["null", "\"\"", "{ }", "[]", "[\n]"] {
            let r = RawValue::from_string(empty.to_owned()).unwrap();
            assert!(Json::raw(&r).is_empty(), "{empty}");
        }
        let r = RawValue::from_string("\"a\\nb\"".to_owned()).unwrap();
        assert!(!Json::raw(&r).is_empty());
        assert_eq!(Json::raw(&r).to_text(), "a\nb");
    }
}
