//! `latch schema`: the committed schemas under `schemas/` are exactly what
//! the loaders' tables generate.

use serde_json::Value;

use crate::util::latch;

#[test]
fn committed_schemas_match_the_generated_ones() {
    for dialect in ["poolside", "evener", "peen"] {
        let out = latch().args(["schema", dialect]).output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        let path = format!(
            "{}/schemas/{dialect}.schema.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let committed = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            committed,
            "{path} is stale: run `latch schema {dialect} > schemas/{dialect}.schema.json`"
        );
    }
}

#[test]
fn schemas_name_every_event_and_field_the_loaders_accept() {
    let schema = |d: &str| -> Value {
        serde_json::from_slice(&latch().args(["schema", d]).output().unwrap().stdout).unwrap()
    };
    let pool = schema("poolside");
    assert_eq!(
        pool["properties"]["hooks"]["properties"]
            .as_object()
            .unwrap()
            .len(),
        7,
        "six events and the cap"
    );
    assert_eq!(
        pool["$defs"]["hook"]["required"],
        serde_json::json!(["command"])
    );
    let peen = schema("peen");
    assert!(peen["properties"]["preWriteFile"].is_object());
    assert!(peen["properties"]["readFileFailure"].is_object());
    assert_eq!(
        peen["$defs"]["action"]["properties"]
            .as_object()
            .unwrap()
            .len(),
        16
    );
    let evener = schema("evener");
    assert!(
        evener["$defs"]["events"]["properties"]["PostToolUseFailure"]["description"]
            .as_str()
            .unwrap()
            .contains("never run")
    );
}
