//! [`RawJson`]: a JSON value kept as its text, and the check that such a
//! text is within serde_json's nesting limit.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

/// A JSON value kept as its text, exactly as the harness wrote it.
///
/// A tool's input and output are the bulkiest parts of an event and are
/// usually only passed on to hooks. Parsed into a [`Value`], each array element or
/// object member costs a node of about 80 bytes plus its own allocation,
/// so 4 MB of small numbers would take hundreds of megabytes; as text it
/// takes its own size, and payloads embed it verbatim. Parse it with
/// [`RawJson::to_value`] only where its content matters.
#[derive(Clone)]
pub struct RawJson(Box<RawValue>);

impl schemars::JsonSchema for RawJson {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "AnyJson".into()
    }

    /// Any JSON value.
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"description": "Any JSON value, kept as written."})
    }
}

impl RawJson {
    /// The JSON of `value`.
    pub fn from_value(value: &Value) -> RawJson {
        // Serializing a `Value` cannot fail (its keys are strings).
        RawJson(
            serde_json::value::to_raw_value(value).unwrap_or_else(|_| RawValue::NULL.to_owned()),
        )
    }

    /// JSON `null`.
    pub fn null() -> RawJson {
        RawJson(RawValue::NULL.to_owned())
    }

    /// The raw value, to embed in serialized output as it is.
    pub fn get(&self) -> &RawValue {
        &self.0
    }

    /// The JSON text.
    pub fn text(&self) -> &str {
        self.0.get()
    }

    /// The value, parsed (`null` if the text were not JSON, which
    /// deserialization rules out).
    pub fn to_value(&self) -> Value {
        serde_json::from_str(self.text()).unwrap_or(Value::Null)
    }
}

impl From<Value> for RawJson {
    fn from(value: Value) -> RawJson {
        RawJson::from_value(&value)
    }
}

impl Default for RawJson {
    /// `null`.
    fn default() -> RawJson {
        RawJson::null()
    }
}

impl PartialEq for RawJson {
    /// Equal when the texts are equal (`[1,2]` and `[1, 2]` differ).
    fn eq(&self, other: &RawJson) -> bool {
        self.text() == other.text()
    }
}

impl fmt::Debug for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RawJson({})", self.text())
    }
}

impl Serialize for RawJson {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for RawJson {
    /// Takes any JSON value nested at most 128 levels deep (serde_json's
    /// limit, which its capture of raw text does not apply by itself), so
    /// parsing it later never fails.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<RawJson, D::Error> {
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        serde_json::from_str::<WellNested>(raw.get())
            .map_err(|e| serde::de::Error::custom(format_args!("in a value: {e}")))?;
        Ok(RawJson(raw))
    }
}

/// Any JSON value, read and dropped as it is read, through serde_json's
/// recursion limit (128 levels). `IgnoredAny` and the capture of a
/// [`RawValue`] skip values without that limit; this is the cheap check
/// that a text can later be parsed.
pub(crate) struct WellNested;

impl<'de> Deserialize<'de> for WellNested {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<WellNested, D::Error> {
        d.deserialize_any(WellNestedVisitor)
    }
}

struct WellNestedVisitor;

impl<'de> serde::de::Visitor<'de> for WellNestedVisitor {
    type Value = WellNested;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<WellNested, E> {
        Ok(WellNested)
    }
    fn visit_i64<E>(self, _: i64) -> Result<WellNested, E> {
        Ok(WellNested)
    }
    fn visit_u64<E>(self, _: u64) -> Result<WellNested, E> {
        Ok(WellNested)
    }
    fn visit_f64<E>(self, _: f64) -> Result<WellNested, E> {
        Ok(WellNested)
    }
    fn visit_str<E>(self, _: &str) -> Result<WellNested, E> {
        Ok(WellNested)
    }
    fn visit_unit<E>(self) -> Result<WellNested, E> {
        Ok(WellNested)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<WellNested, A::Error> {
        while seq.next_element::<WellNested>()?.is_some() {}
        Ok(WellNested)
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<WellNested, A::Error> {
        while map
            .next_entry::<serde::de::IgnoredAny, WellNested>()?
            .is_some()
        {}
        Ok(WellNested)
    }
}
