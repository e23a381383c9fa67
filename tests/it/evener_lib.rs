//! Evener through the library, where the harness supplies its own validator.

use serde_json::{Value, json};

use latch::dialect::evener::{Evener, Options};
use latch::{Engine, Event, Session};

#[tokio::test]
async fn a_merged_rewrite_that_fails_the_harness_validator_denies_and_names_the_hooks() {
    let dir = tempfile::tempdir().unwrap();
    let plugin = dir.path().join("rw");
    std::fs::create_dir_all(plugin.join("hooks")).unwrap();
    std::fs::write(
        plugin.join("hooks/hooks.json"),
        r#"{"PreToolUse":[{"hooks":[{"type":"command","command":"echo '{\"hookSpecificOutput\":{\"updatedInput\":{\"command\":\"\"}}}'"}]}]}"#,
    )
    .unwrap();
    let engine = Engine::new()
        .with_dialect(Evener::load(Options {
            plugin_dirs: vec![plugin],
            project: Some(dir.path().to_path_buf()),
            ..Options::default()
        }))
        .with_validator(|_tool: &str, input: &Value| {
            if input["command"].as_str().is_some_and(|c| !c.is_empty()) {
                Ok(())
            } else {
                Err("command must not be empty".to_owned())
            }
        });
    let event = Event::tool_before("shell", json!({"command": "ls"}));
    let outcome = engine
        .dispatch(&event, &Session::in_memory(None))
        .await
        .unwrap();
    assert!(outcome.is_denied());
    assert_eq!(outcome.reasons[0].hook, "rw");
    assert_eq!(
        outcome.reasons[0].text,
        "the arguments rewritten by rw failed validation: command must not be empty"
    );
    let last = outcome.runs.last().unwrap();
    assert_eq!(serde_json::to_value(last.error).unwrap(), "invalid_rewrite");
    assert_eq!(serde_json::to_value(last.status).unwrap(), "blocked");
}
