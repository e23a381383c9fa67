//! `latch schema`: the committed schemas under `schemas/` are exactly what
//! the loaders' tables generate.

use serde_json::Value;

use crate::util::latch;

#[test]
fn committed_schemas_match_the_generated_ones() {
    for dialect in ["poolside", "evener", "peen", "claude", "serve"] {
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
    use latch::dialect::{evener, peen, poolside};
    let schema = |d: &str| -> Value {
        serde_json::from_slice(&latch().args(["schema", d]).output().unwrap().stdout).unwrap()
    };
    let keys = |v: &Value| -> Vec<String> { v.as_object().unwrap().keys().cloned().collect() };

    let pool = schema("poolside");
    let events = keys(&pool["properties"]["hooks"]["properties"]);
    for e in poolside::events::PoolEvent::ALL {
        assert!(events.contains(&e.as_str().to_owned()), "{e}");
    }
    assert!(events.contains(&"stop_hook_max_continuations".to_owned()));
    assert_eq!(
        keys(&pool["$defs"]["hook"]["properties"]),
        poolside::load::ENTRY_FIELDS.map(str::to_owned)
    );

    let ev = schema("evener");
    let events = keys(&ev["$defs"]["events"]["properties"]);
    for e in evener::events::EvEvent::ALL {
        assert!(events.contains(&e.as_str().to_owned()), "{e}");
    }
    for e in evener::events::RESERVED_EVENTS {
        assert!(events.contains(&e.to_owned()), "{e}");
    }
    let handler = keys(&ev["$defs"]["handler"]["properties"]);
    for f in evener::load::COMMON_FIELDS
        .iter()
        .chain(&evener::load::COMMAND_FIELDS)
        .chain(&evener::load::PROMPT_FIELDS)
    {
        assert!(handler.contains(&(*f).to_owned()), "{f}");
    }

    let cl = schema("claude");
    let events = keys(&cl["$defs"]["events"]["properties"]);
    for e in latch::dialect::claude::events::ClaudeEvent::ALL {
        assert!(events.contains(&e.as_str().to_owned()), "{e}");
    }
    assert_eq!(
        keys(&cl["$defs"]["handler"]["properties"]),
        latch::dialect::claude::load::HANDLER_KEYS.map(str::to_owned)
    );

    let pe = schema("peen");
    let events = keys(&pe["properties"]);
    for e in peen::events::PeenEvent::all() {
        assert!(events.contains(&e.name()), "{e}");
    }
    assert_eq!(
        keys(&pe["$defs"]["action"]["properties"]),
        peen::load::ACTION_FIELDS.map(str::to_owned)
    );
    assert_eq!(
        keys(&pe["$defs"]["match"]["properties"]),
        peen::load::MATCH_FIELDS.map(str::to_owned)
    );
    assert_eq!(
        keys(&pe["$defs"]["group"]["properties"]),
        peen::load::GROUP_FIELDS.map(str::to_owned)
    );
    assert_eq!(
        keys(&pe["$defs"]["check"]["properties"]),
        peen::load::CHECK_FIELDS.map(str::to_owned)
    );
}
