//! Stop continuations, the cap, and session state across `latch fire` runs.

use std::os::unix::fs::PermissionsExt;

use serde_json::json;

use crate::util::{Fired, Project};

const CONTINUE: &str =
    r#"{"continue":true,"hook_specific_output":{"additional_context":"keep going"}}"#;

fn stop_project(cap: Option<&str>, stop_hooks: &[&str]) -> Project {
    let p = Project::new();
    let mut yaml = "hooks:\n".to_owned();
    if let Some(c) = cap {
        yaml.push_str(&format!("  stop_hook_max_continuations: {c}\n"));
    }
    yaml.push_str("  Stop:\n");
    for (i, out) in stop_hooks.iter().enumerate() {
        let cmd = p.hook(&format!("s{i}"), out.as_bytes(), b"", 0);
        yaml.push_str(&format!("    - name: s{i}\n      command: {cmd:?}\n"));
    }
    yaml.push_str("  UserPromptSubmit:\n    - {name: noop, command: 'true'}\n");
    p.settings(&yaml)
}

fn stop(p: &Project) -> Fired {
    p.fire(&json!({"event": "stop", "session_id": "sess"}))
}

fn prompt(p: &Project) -> Fired {
    p.fire(&json!({"event": "user_prompt", "session_id": "sess", "prompt": "next"}))
}

fn continued(f: &Fired) -> bool {
    f.outcome.get("continuation").is_some()
}

#[test]
fn continue_true_continues_with_the_joined_context() {
    let p = stop_project(
        None,
        &[
            CONTINUE,
            r#"{"continue":true,"hook_specific_output":{"additional_context":"and more"}}"#,
        ],
    );
    let f = stop(&p);
    assert_eq!(
        f.outcome["continuation"],
        json!({"prompt": "keep going\nand more", "hooks": ["s0", "s1"]})
    );
    assert_eq!(f.status(0), "continued");
    assert_eq!(
        f.notice_texts()[0],
        "<hook name=\"s0\" event=\"Stop\">Asked the agent to keep working instead of stopping.</hook>"
    );
}

#[test]
fn without_context_the_continuation_is_a_default_line_naming_the_hook() {
    let p = stop_project(None, &[r#"{"continue":true}"#]);
    assert_eq!(
        stop(&p).outcome["continuation"]["prompt"],
        "The Stop hook `s0` asked you to keep working before you stop."
    );
}

#[test]
fn exit_2_on_stop_continues_with_stderr_as_the_instruction() {
    let p = Project::new();
    let cmd = p.hook("s", b"", b"write the summary first\n", 2);
    let p = p.settings(&format!("hooks:\n  Stop:\n    - command: {cmd:?}\n"));
    let f = p.fire(&json!({"event": "stop"}));
    assert_eq!(
        f.outcome["continuation"]["prompt"],
        "write the summary first"
    );
    assert_eq!(f.outcome["decision"], "proceed");
}

#[test]
fn unset_cap_means_unlimited_continuations() {
    let p = stop_project(None, &[CONTINUE]);
    for _ in 0..4 {
        assert!(continued(&stop(&p)));
    }
}

#[test]
fn a_cap_of_zero_refuses_every_continuation() {
    let p = stop_project(Some("0"), &[CONTINUE]);
    let f = stop(&p);
    assert!(!continued(&f));
    assert!(
        f.stderr
            .contains("Stop hook continuation refused: stop_hook_max_continuations (0) reached"),
        "{}",
        f.stderr
    );
    assert_eq!(
        f.runs()[0]["message"],
        "continuation refused by stop_hook_max_continuations"
    );
}

#[test]
fn the_cap_counts_consecutive_continuations_across_fires_and_resets_on_a_real_prompt() {
    let p = stop_project(Some("2"), &[CONTINUE]);
    assert!(continued(&stop(&p)));
    assert!(continued(&stop(&p)));
    assert!(
        !continued(&stop(&p)),
        "third continuation in a row is refused"
    );
    prompt(&p);
    assert!(continued(&stop(&p)), "a real prompt resets the counter");
    // Another session has its own counter.
    let other = p.fire(&json!({"event": "stop", "session_id": "other"}));
    assert!(continued(&other));
}

#[test]
fn the_most_specific_level_sets_the_cap() {
    let p = stop_project(Some("5"), &[CONTINUE]);
    p.write(
        ".poolside/settings.local.yaml",
        "hooks:\n  stop_hook_max_continuations: 0\n",
    );
    assert!(!continued(&stop(&p)));
}

#[test]
fn a_negative_cap_is_rejected_at_load() {
    let p = stop_project(Some("-1"), &[CONTINUE]);
    let f = stop(&p);
    assert!(f.stderr.contains(":2:32: error: `stop_hook_max_continuations` must not be negative, found -1; the value is ignored"), "{}", f.stderr);
    assert!(
        continued(&f),
        "the rejected value leaves continuations unlimited"
    );
}

#[test]
fn state_directories_are_private() {
    let p = stop_project(Some("1"), &[CONTINUE]);
    stop(&p);
    for dir in [
        p.state(),
        p.state().join("sessions"),
        p.state().join("sessions/sess"),
    ] {
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700, "{}", dir.display());
    }
}

#[test]
fn overlapping_fires_of_one_session_never_lose_a_count() {
    let p = stop_project(Some("1000"), &[CONTINUE]);
    let handles: Vec<_> = (0..8)
        .map(|_| {
            let event =
                serde_json::to_vec(&json!({"event": "stop", "session_id": "sess"})).unwrap();
            let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("latch"));
            cmd.args(["fire", "--project"])
                .arg(p.dir())
                .arg("--home")
                .arg(p.home())
                .arg("--state-dir")
                .arg(p.state())
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::null());
            let mut child = cmd.spawn().unwrap();
            use std::io::Write;
            child.stdin.take().unwrap().write_all(&event).unwrap();
            child
        })
        .collect();
    for mut h in handles {
        assert!(h.wait().unwrap().success());
    }
    let state: serde_json::Value =
        serde_json::from_slice(&std::fs::read(p.state().join("sessions/sess/state.json")).unwrap())
            .unwrap();
    assert_eq!(state["values"]["poolside.stop_continuations"], 8);
}
