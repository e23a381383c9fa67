//! Any text as a tool call's input: the scan that finds it written as
//! JavaScript writes it never panics, and when it says so and the text is
//! JSON, rewriting it gives the text compacted.
#![no_main]

use latch::dialect::js_json::{restringify, stringified_already};
use latch::dialect::payload::Json;
use libfuzzer_sys::fuzz_target;
use serde_json::value::RawValue;

fuzz_target!(|text: &str| {
    let already = stringified_already(text);
    let Ok(raw) = RawValue::from_string(text.to_owned()) else {
        return;
    };
    if already {
        let compact = match Json::compact(&raw) {
            Json::Raw(c) => c.get().to_owned(),
            Json::Value(v) => v.to_string(),
        };
        assert_eq!(restringify(text), Some(compact), "{text}");
    }
});
