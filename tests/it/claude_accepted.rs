//! A session that rejected a change of its settings goes on with the
//! settings it had (`src/dialect/claude/accepted.rs`): what it keeps, and
//! when it lets go.

use serde_json::{Value, json};

use crate::claude_events::event;
use crate::claude_util::{Claude, bash_after, settings};

/// A project whose ConfigChange hook rejects every change while the file
/// `reject` exists; returns it with the hook that counts PostToolUse runs
/// (not configured yet) and the marker.
fn rejecting() -> (Claude, String, std::path::PathBuf) {
    let c = Claude::new();
    let marker = c.root.path().join("reject");
    let added = c.hook("added", "");
    let c = c.project_settings(&config(&marker, None));
    (c, added, marker)
}

/// The settings: the rejecting ConfigChange hook, and `added` on
/// PostToolUse when given.
fn config(marker: &std::path::Path, added: Option<&str>) -> Value {
    let reject = format!("if [ -f '{}' ]; then exit 2; fi", marker.display());
    let mut hooks = json!({"ConfigChange": [{"hooks": [{"type": "command", "command": reject}]}]});
    if let Some(added) = added {
        hooks["PostToolUse"] =
            json!([{"matcher": "Bash", "hooks": [{"type": "command", "command": added}]}]);
    }
    json!({ "hooks": hooks })
}

fn change(file: &std::path::Path, source: &str) -> Value {
    event(
        "config_change",
        json!({"source": source, "file_path": file}),
    )
}

#[test]
fn a_new_start_reads_the_settings_afresh_but_a_clear_keeps_what_was_rejected() {
    let (c, added, marker) = rejecting();
    c.fire(&event("session_start", json!({"source": "startup"})));
    let c = c.project_settings(&config(&marker, Some(&added)));
    std::fs::write(&marker, "").unwrap();
    let file = c.project().join(".claude/settings.json");
    assert_eq!(
        c.fire(&change(&file, "project_settings")).outcome["decision"],
        "deny"
    );
    c.fire(&event("session_start", json!({"source": "clear"})));
    c.fire(&bash_after("ls", json!("x")));
    assert_eq!(c.runs_of("added"), 0, "a clear dropped the rejection");
    c.fire(&event("session_start", json!({"source": "resume"})));
    c.fire(&bash_after("ls", json!("x")));
    assert_eq!(c.runs_of("added"), 1, "a resume kept the rejection");
}

#[test]
fn a_rejected_new_file_stays_absent() {
    // settings.local.json did not exist when the session started.
    let (c, added, marker) = rejecting();
    c.fire(&event("session_start", json!({"source": "startup"})));
    let c = c.local_settings(&config(&marker, Some(&added)));
    std::fs::write(&marker, "").unwrap();
    let file = c.project().join(".claude/settings.local.json");
    let f = c.fire(&change(&file, "local_settings"));
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);
    c.fire(&bash_after("ls", json!("x")));
    assert_eq!(c.runs_of("added"), 0, "the rejected file was read");
}

#[test]
fn without_an_earlier_version_the_change_stays_and_a_warning_says_so() {
    let (c, added, marker) = rejecting();
    let c = c.project_settings(&config(&marker, Some(&added)));
    std::fs::write(&marker, "").unwrap();
    let file = c.project().join(".claude/settings.json");
    // No event of the session came before the change: nothing was kept.
    let f = c.fire(&change(&file, "project_settings"));
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);
    let warnings = f.outcome["warnings"].to_string();
    assert!(warnings.contains("kept no earlier version"), "{warnings}");
    c.fire(&bash_after("ls", json!("x")));
    assert_eq!(c.runs_of("added"), 1);
}

#[test]
fn a_managed_policy_change_is_never_kept_back() {
    let (c, added, marker) = rejecting();
    c.fire(&event("session_start", json!({"source": "startup"})));
    let c = c.project_settings(&config(&marker, Some(&added)));
    std::fs::write(&marker, "").unwrap();
    let file = c.project().join(".claude/settings.json");
    let f = c.fire(&change(&file, "policy_settings"));
    assert_ne!(f.outcome["decision"], "deny", "{}", f.outcome);
    c.fire(&bash_after("ls", json!("x")));
    assert_eq!(c.runs_of("added"), 1);
}

#[test]
fn the_settings_are_not_kept_without_a_config_change_hook() {
    let c = Claude::new();
    let c = c.project_settings(&settings("PostToolUse", Some("Bash"), &["true"]));
    c.fire(&event("session_start", json!({"source": "startup"})));
    let dir = c.root.path().join("state/sessions/s1");
    assert!(dir.is_dir());
    assert!(!dir.join("claude-config-accepted.json").exists());
}
