//! The event input that peen's `match.input` checks read, without parsing
//! a tool's arguments whole.
//!
//! A tool's input is kept as the harness's JSON text
//! ([`crate::event::RawJson`]): parsed into a `Value`, 4 MB of small
//! numbers or nested arrays would take hundreds of megabytes. A JSON
//! Pointer is followed by scanning the text (skipping every member it does
//! not name), and the checks (`equals`, `regex` on Go's formatting) read the
//! value the pointer reaches as they stream through it. Each pointer is
//! followed once per event, however many actions check it.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::Mutex;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::dialect::payload::Json;

use super::matching::{go_float, go_text, json_equal};

/// The most characters of a value an explanation shows.
const SHOWN_CHARS: usize = 200;

/// The input of one event, as the checks see it.
#[derive(Debug)]
pub struct EventInput<'a> {
    root: Root<'a>,
    /// Pointer tokens → what they reach in a raw input.
    reached: Mutex<HashMap<Vec<String>, Option<&'a RawValue>>>,
}

#[derive(Debug)]
enum Root<'a> {
    /// A tool's arguments, as the harness wrote them.
    Raw(&'a RawValue),
    /// A lifecycle event's small object, built by latch.
    Value(Value),
}

/// What a JSON Pointer reached.
#[derive(Debug, Clone, Copy)]
pub enum Reached<'v> {
    /// A part of a raw input.
    Raw(&'v RawValue),
    /// A part of a built object.
    Value(&'v Value),
}

impl<'a> EventInput<'a> {
    /// A tool's arguments.
    pub fn raw(input: &'a RawValue) -> Self {
        Self::with(Root::Raw(input))
    }

    /// A lifecycle event's object.
    pub fn value(input: Value) -> Self {
        Self::with(Root::Value(input))
    }

    fn with(root: Root<'a>) -> Self {
        EventInput {
            root,
            reached: Mutex::new(HashMap::new()),
        }
    }

    /// Whether the input is `null` (a hook's payload then leaves it out).
    pub fn is_null(&self) -> bool {
        match &self.root {
            Root::Raw(r) => r.get() == "null",
            Root::Value(v) => v.is_null(),
        }
    }

    /// The input, to embed in a payload.
    pub fn json(&self) -> Json<'_> {
        match &self.root {
            Root::Raw(r) => Json::raw(r),
            Root::Value(v) => Json::Value(std::borrow::Cow::Borrowed(v)),
        }
    }

    /// Follows a JSON Pointer (as tokens) through objects only: a pointer
    /// cannot index into an array. Duplicate keys: the last one counts, as
    /// in Go's decoder.
    pub fn pointer(&self, tokens: &[String]) -> Option<Reached<'_>> {
        match &self.root {
            Root::Value(v) => tokens
                .iter()
                .try_fold(v, |cur, t| match cur {
                    Value::Object(m) => m.get(t),
                    _ => None,
                })
                .map(Reached::Value),
            Root::Raw(r) => {
                // A poisoned lock only means another check panicked; the
                // map itself is still sound.
                let mut reached = self
                    .reached
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                if let Some(found) = reached.get(tokens) {
                    return found.map(Reached::Raw);
                }
                let found = tokens.iter().try_fold(*r, |cur, t| member(cur, t));
                reached.insert(tokens.to_vec(), found);
                found.map(Reached::Raw)
            }
        }
    }

    /// The string member `key` of an object input.
    pub fn string_member(&self, key: &str) -> Option<String> {
        match self.pointer(&[key.to_owned()])? {
            Reached::Value(v) => v.as_str().map(str::to_owned),
            Reached::Raw(r) => serde_json::from_str::<String>(r.get()).ok(),
        }
    }
}

impl Reached<'_> {
    /// Equality as Go sees decoded JSON (`5` equals `5.0`).
    pub fn equals(&self, want: &Value) -> bool {
        match self {
            Reached::Value(v) => json_equal(v, want),
            Reached::Raw(r) => {
                let mut de = serde_json::Deserializer::from_str(r.get());
                Equals(want).deserialize(&mut de).unwrap_or(false)
            }
        }
    }

    /// The value as Go's `fmt` prints it (see [`go_text`]).
    pub fn go_text(&self) -> String {
        match self {
            Reached::Value(v) => go_text(v),
            Reached::Raw(r) => serde_json::from_str::<GoText>(r.get())
                .map(|g| g.0)
                .unwrap_or_default(),
        }
    }
}

impl fmt::Display for Reached<'_> {
    /// Compact JSON, shortened past 200 characters.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match self {
            Reached::Value(v) => v.to_string(),
            Reached::Raw(r) if r.get().len() <= 4 * SHOWN_CHARS => {
                serde_json::from_str::<Value>(r.get())
                    .map_or_else(|_| r.get().to_owned(), |v| v.to_string())
            }
            Reached::Raw(r) => r.get().to_owned(),
        };
        f.write_str(&shorten(&text))
    }
}

/// `text` cut to 200 characters, with `…` when cut.
pub fn shorten(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(SHOWN_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]).into(),
        None => text.into(),
    }
}

/// The member `key` of `object`, if it is an object that has one.
fn member<'a>(object: &'a RawValue, key: &str) -> Option<&'a RawValue> {
    struct Find<'k>(&'k str);
    impl<'de> Visitor<'de> for Find<'_> {
        type Value = Option<&'de RawValue>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut found = None;
            while let Some(hit) = map.next_key_seed(KeyIs(self.0))? {
                if hit {
                    found = Some(map.next_value::<&'de RawValue>()?);
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            Ok(found)
        }
    }
    let mut de = serde_json::Deserializer::from_str(object.get());
    de.deserialize_map(Find(key)).ok().flatten()
}

/// Reads a key and says whether it is the one wanted, without keeping it.
struct KeyIs<'k>(&'k str);

impl<'de> DeserializeSeed<'de> for KeyIs<'_> {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeyIs<'_> {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<bool, E> {
        Ok(v == self.0)
    }
}

/// Compares the value being read with `0`, as [`json_equal`] does, reading
/// every part of it (so the reader stays in step) but keeping none.
struct Equals<'w>(&'w Value);

impl<'de> DeserializeSeed<'de> for Equals<'_> {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_any(self)
    }
}

impl Equals<'_> {
    fn number(&self, n: f64) -> bool {
        matches!(self.0, Value::Number(w) if w.as_f64() == Some(n))
    }
}

impl<'de> Visitor<'de> for Equals<'_> {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<bool, E> {
        Ok(self.0.as_bool() == Some(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<bool, E> {
        Ok(self.number(v as f64))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<bool, E> {
        Ok(self.number(v as f64))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<bool, E> {
        Ok(self.number(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<bool, E> {
        Ok(self.0.as_str() == Some(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<bool, E> {
        Ok(self.0.is_null())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        let want = self.0.as_array().map_or(&[][..], Vec::as_slice);
        let mut same = self.0.is_array();
        let mut count = 0;
        loop {
            let item = match want.get(count) {
                Some(w) if same => seq.next_element_seed(Equals(w))?,
                _ => seq.next_element::<IgnoredAny>()?.map(|_| false),
            };
            match item {
                Some(equal) => same &= equal,
                None => break,
            }
            count += 1;
        }
        Ok(same && count == want.len())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let Some(want) = self.0.as_object() else {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            return Ok(false);
        };
        // Per wanted key, whether its last occurrence was equal: a later
        // duplicate replaces an earlier one, as in the decoded map.
        let mut seen: HashMap<String, bool> = HashMap::new();
        let mut extra = false;
        while let Some(key) = map.next_key::<String>()? {
            match want.get(&key) {
                Some(w) => {
                    let equal = map.next_value_seed(Equals(w))?;
                    seen.insert(key, equal);
                }
                None => {
                    extra = true;
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(!extra && seen.len() == want.len() && seen.values().all(|e| *e))
    }
}

/// A value formatted as Go's `fmt` prints decoded JSON, built as it is read
/// (see [`go_text`], which it matches for every value).
struct GoText(String);

impl<'de> de::Deserialize<'de> for GoText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<GoText, D::Error> {
        d.deserialize_any(GoTextVisitor)
    }
}

struct GoTextVisitor;

impl<'de> Visitor<'de> for GoTextVisitor {
    type Value = GoText;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<GoText, E> {
        Ok(GoText(v.to_string()))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<GoText, E> {
        Ok(GoText(go_float(v as f64)))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<GoText, E> {
        Ok(GoText(go_float(v as f64)))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<GoText, E> {
        Ok(GoText(go_float(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<GoText, E> {
        Ok(GoText(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<GoText, E> {
        Ok(GoText(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<GoText, E> {
        Ok(GoText("<nil>".to_owned()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<GoText, A::Error> {
        let mut out = String::from("[");
        let mut first = true;
        while let Some(GoText(item)) = seq.next_element()? {
            if !first {
                out.push(' ');
            }
            first = false;
            out.push_str(&item);
        }
        out.push(']');
        Ok(GoText(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<GoText, A::Error> {
        // Sorted keys; a later duplicate replaces an earlier one.
        let mut members = BTreeMap::new();
        while let Some((key, GoText(value))) = map.next_entry::<String, GoText>()? {
            members.insert(key, value);
        }
        let parts: Vec<String> = members.iter().map(|(k, v)| format!("{k}:{v}")).collect();
        Ok(GoText(format!("map[{}]", parts.join(" "))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).unwrap()
    }

    fn tokens(ptr: &str) -> Vec<String> {
        super::super::matching::parse_pointer(ptr).unwrap()
    }

    #[test]
    fn pointers_walk_objects_and_the_last_duplicate_counts() {
        let r = raw(r#"{"a": {"b": 1, "b": "two"}, "list": [{"x": 1}], "k\/e\u0079": true}"#);
        let input = EventInput::raw(&r);
        let reached = |p: &str| input.pointer(&tokens(p)).map(|r| r.to_string());
        assert_eq!(reached("/a/b").as_deref(), Some(r#""two""#));
        assert_eq!(reached("/list/0"), None, "arrays are not indexed");
        assert_eq!(reached("/a/c"), None);
        assert_eq!(reached("/k~1ey").as_deref(), Some("true"));
        assert_eq!(reached("/k\\/ey"), None);
        assert_eq!(input.string_member("a"), None);
        assert_eq!(
            reached("").as_deref(),
            Some(r#"{"a":{"b":"two"},"list":[{"x":1}],"k/ey":true}"#)
        );
    }

    #[test]
    fn escaped_keys_are_compared_decoded() {
        let r = raw(r#"{"p\u0061th": "src/x.rs"}"#);
        let input = EventInput::raw(&r);
        assert_eq!(input.string_member("path").as_deref(), Some("src/x.rs"));
    }

    #[test]
    fn long_values_are_shortened_in_explanations() {
        let text = format!("\"{}\"", "y".repeat(10_000));
        let r = raw(&text);
        let shown = Reached::Raw(&r).to_string();
        assert_eq!(shown.chars().count(), SHOWN_CHARS + 1);
        assert!(shown.ends_with('…'));
    }

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            (-5i64..5).prop_map(Value::from),
            prop_oneof![Just(0.5f64), Just(5.0), Just(1e21), Just(-0.0001)].prop_map(Value::from),
            "[ab~/]{0,3}".prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 32, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
                prop::collection::vec(("[ab]{1,2}", inner), 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        /// The streaming checks agree with the parsed ones on every value,
        /// including duplicate keys written into the text.
        #[test]
        fn streaming_matches_parsed(a in json_value(), b in json_value(), dup in any::<bool>()) {
            let mut text = a.to_string();
            if dup && text.starts_with('{') && text.len() > 2 {
                // A duplicate first key whose earlier value differs.
                text = format!("{{\"dupkey\":1,\"dupkey\":{b},{}", &text[1..]);
            }
            let parsed: Value = serde_json::from_str(&text).unwrap();
            let r = raw(&text);
            prop_assert_eq!(Reached::Raw(&r).go_text(), go_text(&parsed));
            prop_assert_eq!(Reached::Raw(&r).equals(&b), json_equal(&parsed, &b));
            prop_assert_eq!(Reached::Raw(&r).equals(&parsed), true);
            let input = EventInput::raw(&r);
            if let Value::Object(m) = &parsed {
                for (k, v) in m {
                    let got = input.pointer(std::slice::from_ref(k)).map(|x| x.equals(v));
                    prop_assert_eq!(got, Some(true));
                }
            }
        }
    }
}
