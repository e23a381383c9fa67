//! Peen through the library: re-reading layers per turn and per directory change.

use serde_json::json;

use latch::dialect::peen::{Options, Peen};
use latch::{Engine, Event, Session};

fn deny_yaml(reason: &str) -> String {
    format!("version: 1\npreToolUse:\n  - actions: [{{type: deny, reason: {reason}}}]\n")
}

#[tokio::test]
async fn a_hop_runs_under_the_old_scope_and_later_calls_under_the_new_one() {
    let root = tempfile::tempdir().unwrap();
    for (dir, reason) in [("a", "from-a"), ("b", "from-b")] {
        std::fs::create_dir_all(root.path().join(dir).join(".agents")).unwrap();
        std::fs::write(
            root.path().join(dir).join(".agents/hooks.yaml"),
            deny_yaml(reason),
        )
        .unwrap();
    }
    let a = root.path().join("a");
    let b = root.path().join("b");
    let mut peen = Peen::load(Options {
        workspace: Some(a.clone()),
        ..Options::default()
    });
    let session = Session::in_memory(None);
    let hop = Event::tool_before("changeDirectory", json!({"directory": b})).with_cwd(&a);
    let engine = Engine::new().with_dialect(peen.clone());
    let outcome = engine.dispatch(&hop, &session).await.unwrap();
    assert_eq!(
        outcome.reasons[0].text, "from-a",
        "the hop runs under the old scope"
    );

    peen.change_directory(&b);
    let engine = Engine::new().with_dialect(peen.clone());
    let later = Event::tool_before("readFile", json!({"path": "x"})).with_cwd(&b);
    let outcome = engine.dispatch(&later, &session).await.unwrap();
    assert_eq!(outcome.reasons[0].text, "from-b");

    // A new turn re-reads the files: an edit shows up.
    std::fs::write(b.join(".agents/hooks.yaml"), deny_yaml("edited")).unwrap();
    peen.reload();
    let engine = Engine::new().with_dialect(peen);
    let outcome = engine.dispatch(&later, &session).await.unwrap();
    assert_eq!(outcome.reasons[0].text, "edited");
}
