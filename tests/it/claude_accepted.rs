//! A session whose settings have a ConfigChange hook goes on with the
//! settings it has until a change is let through
//! (`src/dialect/claude/accepted.rs`): what it keeps, and when it lets go.

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
    assert!(warnings.contains("kept no earlier settings"), "{warnings}");
    c.fire(&bash_after("ls", json!("x")));
    assert_eq!(c.runs_of("added"), 1);
}

#[test]
fn managed_settings_are_never_kept_back() {
    // Claude Code applies a managed policy change whatever its hooks say:
    // latch keeps only user, project and local settings.
    let (c, added, marker) = rejecting();
    std::fs::write(&marker, "").unwrap();
    c.fire(&event("session_start", json!({"source": "startup"})));
    let managed = c.write(
        "managed/managed-settings.json",
        &json!({"hooks": {"PostToolUse": [{"matcher": "Bash",
            "hooks": [{"type": "command", "command": added}]}]}})
        .to_string(),
    );
    let f = c.fire(&change(&managed, "policy_settings"));
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
    assert!(!dir.join("claude-settings.json").exists());
}

#[test]
fn the_config_change_runs_with_the_settings_the_session_has() {
    // The edit removes the rejecting hook: the hooks that judge it are
    // still the session's, so it is rejected.
    let (c, added, marker) = rejecting();
    std::fs::write(&marker, "").unwrap();
    c.fire(&event("session_start", json!({"source": "startup"})));
    let c = c.project_settings(&json!({"hooks": {"PostToolUse": [{"matcher": "Bash",
        "hooks": [{"type": "command", "command": added}]}]}}));
    let file = c.project().join(".claude/settings.json");
    let f = c.fire(&change(&file, "project_settings"));
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);
    c.fire(&bash_after("ls", json!("x")));
    assert_eq!(c.runs_of("added"), 0);
}

#[test]
fn events_between_an_edit_and_its_config_change_keep_the_settings_the_session_has() {
    // Claude Code notices an edit about a second after the write; until
    // its ConfigChange hooks let it through, the session's hooks are the
    // ones it had (r3_config_change_exit2_hook_added).
    let (c, added, marker) = rejecting();
    c.fire(&event("session_start", json!({"source": "startup"})));
    let c = c.project_settings(&config(&marker, Some(&added)));
    c.fire(&bash_after("ls", json!("x")));
    assert_eq!(
        c.runs_of("added"),
        0,
        "an edit not yet let through was applied"
    );
    let file = c.project().join(".claude/settings.json");
    let f = c.fire(&change(&file, "project_settings"));
    assert_eq!(f.outcome["decision"], "proceed", "{}", f.outcome);
    c.fire(&bash_after("ls", json!("x")));
    assert_eq!(c.runs_of("added"), 1);
}

#[test]
fn a_relative_or_indirect_path_names_the_same_file() {
    let (c, added, marker) = rejecting();
    c.fire(&event("session_start", json!({"source": "startup"})));
    let c = c.project_settings(&config(&marker, Some(&added)));
    let indirect = c.project().join(".claude/../.claude/settings.json");
    let f = c.fire(&change(&indirect, "project_settings"));
    assert_eq!(f.outcome["decision"], "proceed", "{}", f.outcome);
    assert!(f.outcome.get("warnings").is_none(), "{}", f.outcome);
    c.fire(&bash_after("ls", json!("x")));
    assert_eq!(
        c.runs_of("added"),
        1,
        "the change let through was not applied"
    );
}

#[test]
fn two_changes_let_through_at_once_both_count() {
    // One tool call edits both files; the harness fires both
    // config_change events at once, in two `latch fire` processes.
    let (c, added, marker) = rejecting();
    let other = c.hook("other", "");
    c.fire(&event("session_start", json!({"source": "startup"})));
    let c = c.project_settings(&config(&marker, Some(&added)));
    let c = c.local_settings(&json!({"hooks": {"PostToolUse": [{"matcher": "Bash",
        "hooks": [{"type": "command", "command": other}]}]}}));
    let project = change(
        &c.project().join(".claude/settings.json"),
        "project_settings",
    );
    let local = change(
        &c.project().join(".claude/settings.local.json"),
        "local_settings",
    );
    std::thread::scope(|s| {
        let a = s.spawn(|| c.fire(&project));
        let b = s.spawn(|| c.fire(&local));
        for f in [a.join().unwrap(), b.join().unwrap()] {
            assert_eq!(f.outcome["decision"], "proceed", "{}", f.outcome);
        }
    });
    c.fire(&bash_after("ls", json!("x")));
    assert_eq!((c.runs_of("added"), c.runs_of("other")), (1, 1));
}

#[test]
fn a_deletion_let_through_counts_even_with_its_directory_gone() {
    // The ConfigChange hook lives in the user's settings; the project's
    // `.claude/` goes away whole.
    let c = Claude::new();
    let marker = c.root.path().join("reject");
    let added = c.hook("added", "");
    let c = c.user_settings(&config(&marker, None));
    let c = c.project_settings(&json!({"hooks": {"PostToolUse": [{"matcher": "Bash",
        "hooks": [{"type": "command", "command": added}]}]}}));
    c.fire(&event("session_start", json!({"source": "startup"})));
    c.fire(&bash_after("ls", json!("x")));
    assert_eq!(c.runs_of("added"), 1);
    std::fs::remove_dir_all(c.project().join(".claude")).unwrap();
    let file = c.project().join(".claude/settings.json");
    let f = c.fire(&change(&file, "project_settings"));
    assert_eq!(f.outcome["decision"], "proceed", "{}", f.outcome);
    assert!(f.outcome.get("warnings").is_none(), "{}", f.outcome);
    c.fire(&bash_after("ls", json!("x")));
    assert_eq!(c.runs_of("added"), 1, "the deleted settings still ran");
}

#[test]
fn a_config_change_hook_given_as_settings_text_keeps_the_settings_too() {
    // `--claude-settings` JSON text is no file, yet its ConfigChange hook
    // counts as one in a settings file does.
    let c = Claude::new();
    let marker = c.root.path().join("reject");
    let added = c.hook("added", "");
    let inline = config(&marker, None).to_string();
    let flags = ["--claude-settings", inline.as_str()];
    c.fire_with(
        &event("session_start", json!({"source": "startup"})),
        &flags,
    );
    let c = c.project_settings(&json!({"hooks": {"PostToolUse": [{"matcher": "Bash",
        "hooks": [{"type": "command", "command": added}]}]}}));
    std::fs::write(&marker, "").unwrap();
    let file = c.project().join(".claude/settings.json");
    let f = c.fire_with(&change(&file, "project_settings"), &flags);
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);
    c.fire_with(&bash_after("ls", json!("x")), &flags);
    assert_eq!(c.runs_of("added"), 0, "the rejected edit was applied");
}
