//! Any bytes as a line on `latch serve`'s stdin: the envelope parser never
//! panics, an error is a JSON-RPC error response with an id a response may
//! carry, a request's id is echoed as written, and the id found in the
//! head of an over-long line is `null`, a number or a string.
//!
//! Ids are compared as JSON text, not parsed into numbers: JSON's grammar
//! has no range, and an id such as `1e400` is echoed as the client wrote it.
#![no_main]

use std::collections::HashMap;

use latch::cli::serve::rpc::{self, Incoming};
use libfuzzer_sys::fuzz_target;
use serde_json::value::RawValue;

/// A response's members, each as JSON text.
fn members(response: &str) -> HashMap<String, Box<RawValue>> {
    serde_json::from_str(response).expect("a response is a JSON object")
}

/// Whether `text` is a JSON `null`, number or string.
fn response_id(text: &str) -> bool {
    serde_json::from_str::<Box<RawValue>>(text).is_ok()
        && matches!(
            text.as_bytes().first(),
            Some(b'n' | b'"' | b'-' | b'0'..=b'9')
        )
}

fuzz_target!(|line: &[u8]| {
    match rpc::parse(line) {
        Err(response) => {
            let m = members(&response);
            assert_eq!(m["jsonrpc"].get(), r#""2.0""#, "{response}");
            assert!(response_id(m["id"].get()), "{response}");
            let error: serde_json::Value =
                serde_json::from_str(m["error"].get()).expect("an error object");
            assert!(error["code"].is_i64(), "{response}");
            assert!(error["message"].is_string(), "{response}");
        }
        Ok(Incoming::Request { id, params, .. }) => {
            let answer = rpc::result(&id, &serde_json::Value::Null);
            assert_eq!(members(&answer)["id"].get(), id.text(), "{answer}");
            assert!(
                response_id(id.text()) && !id.text().starts_with('n'),
                "{answer}"
            );
            let _ = rpc::key_of(id.text());
            assert!(serde_json::from_str::<Box<RawValue>>(params.get()).is_ok());
        }
        Ok(Incoming::Notification { params, .. }) => {
            assert!(serde_json::from_str::<Box<RawValue>>(params.get()).is_ok());
        }
    }
    let head = rpc::id_in(line);
    assert!(response_id(head.text()), "{}", head.text());
});
