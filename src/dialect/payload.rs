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

/// A JSON object whose values may be borrowed; keys keep insertion order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JsonObject<'a> {
    entries: Vec<(Cow<'a, str>, Cow<'a, Value>)>,
}

impl<'a> JsonObject<'a> {
    /// An empty object.
    pub fn new() -> Self {
        JsonObject::default()
    }

    /// Sets `key` (replacing an earlier value of the same key in place).
    pub fn insert(&mut self, key: impl Into<Cow<'a, str>>, value: Cow<'a, Value>) {
        let key = key.into();
        match self.entries.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => self.entries.push((key, value)),
        }
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_ref())
    }

    /// The object as an owned `Value` (copies everything; for tests and
    /// explanations, not for the hot path).
    pub fn to_value(&self) -> Value {
        Value::Object(
            self.entries
                .iter()
                .map(|(k, v)| (k.to_string(), v.as_ref().clone()))
                .collect(),
        )
    }
}

impl Serialize for JsonObject<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.entries.len()))?;
        for (k, v) in &self.entries {
            map.serialize_entry(k.as_ref(), v.as_ref())?;
        }
        map.end()
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

/// `value` as compact JSON in a buffer of exactly its size (a first pass
/// counts the bytes), so a large payload is never over-allocated by a
/// growing buffer. Empty if it cannot be serialized.
pub fn to_bytes(value: &impl Serialize) -> Vec<u8> {
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

    #[test]
    fn serializes_in_order_with_borrowed_values() {
        let big = Value::from("x".repeat(100));
        let mut o = JsonObject::new();
        o.insert("b", Cow::Owned(Value::from(1)));
        o.insert("a", Cow::Borrowed(&big));
        o.insert("b", Cow::Owned(Value::from(2)));
        let bytes = to_bytes(&o);
        assert_eq!(bytes.capacity(), bytes.len());
        assert_eq!(
            String::from_utf8(bytes).unwrap(),
            format!("{{\"b\":2,\"a\":\"{}\"}}", "x".repeat(100))
        );
        assert_eq!(o.get("a"), Some(&big));
    }
}
