//! Any bytes as a line on `latch serve`'s stdin: the envelope parser never
//! panics, an error is a JSON-RPC error response with an id a response may
//! carry, a request's id is echoed as written, and the id found in the
//! head of an over-long line is `null`, a number or a string.
#![no_main]

use latch::cli::serve::rpc::{self, Incoming};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fn response_id(id: &Value) -> bool {
    id.is_null() || id.is_number() || id.is_string()
}

fuzz_target!(|line: &[u8]| {
    match rpc::parse(line) {
        Err(response) => {
            let v: Value = serde_json::from_str(&response).expect("an error response is JSON");
            assert_eq!(v["jsonrpc"], "2.0", "{response}");
            assert!(response_id(&v["id"]), "{response}");
            assert!(v["error"]["code"].is_i64(), "{response}");
            assert!(v["error"]["message"].is_string(), "{response}");
        }
        Ok(Incoming::Request { id, params, .. }) => {
            let answer = rpc::result(&id, &Value::Null);
            let v: Value = serde_json::from_str(&answer).expect("an answer is JSON");
            let written: Value = serde_json::from_str(id.text()).expect("an id is JSON");
            assert_eq!(v["id"], written, "{answer}");
            assert!(v["id"].is_number() || v["id"].is_string(), "{answer}");
            let _ = rpc::key_of(id.text());
            assert!(serde_json::from_str::<Value>(params.get()).is_ok());
        }
        Ok(Incoming::Notification { params, .. }) => {
            assert!(serde_json::from_str::<Value>(params.get()).is_ok());
        }
    }
    let head = rpc::id_in(line);
    let id: Value = serde_json::from_str(head.text()).expect("a head's id is JSON");
    assert!(response_id(&id), "{}", head.text());
});
