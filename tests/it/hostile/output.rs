//! A standard output that cannot be written (`> /dev/full`): every command
//! ends with exit 4 and says so, never exit 0 over output that was lost,
//! and never a panic.

use std::process::Stdio;

#[test]
fn every_command_fails_with_exit_4_when_its_output_cannot_be_written() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let scenario = dir.path().join("s.yaml");
    std::fs::write(
        &scenario,
        "dialect: poolside\nconfig: {}\ncases:\n  - name: a\n    event: {event: stop, session_id: s}\n    expect: {decision: proceed}\n",
    )
    .unwrap();
    let event = dir.path().join("event.json");
    std::fs::write(&event, r#"{"event": "stop", "session_id": "s"}"#).unwrap();
    let d = dir.path().to_str().unwrap();
    let s = state.to_str().unwrap();
    let runs: [&[&str]; 8] = [
        &["schema", "serve"],
        &["completions", "bash"],
        &["log", "--state-dir", s],
        &["trust", "--project", d, "--home", d, "--state-dir", s],
        &["test", scenario.to_str().unwrap()],
        &["lint", d],
        &["convert", "--from", "poolside", "--to", "evener", d],
        &[
            "explain",
            "--project",
            d,
            "--home",
            d,
            event.to_str().unwrap(),
        ],
    ];
    for args in runs {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("latch"))
            .args(args)
            .env_remove("LATCH_STATE_DIR")
            .stdin(Stdio::null())
            .stdout(full)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(4), "{args:?}: {err}");
        assert!(
            err.contains("could not write the output") && !err.contains("panicked"),
            "{args:?}: {err}"
        );
    }
}
