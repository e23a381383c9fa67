//! Hooks that misbehave: each fails open with a clear record, and a deny
//! from another hook is never lost.

use serde_json::json;

use crate::util::{Fired, Project};

/// One misbehaving hook followed by a guard that always denies.
fn with_guard(bad: &str) -> Project {
    Project::new().settings(&format!(
        "hooks:\n  PreToolUse:\n    - name: bad\n      command: {bad:?}\n      timeout: 5\n    - name: guard\n      command: 'echo guarded >&2; exit 2'\n"
    ))
}

fn fire_big(p: &Project, input_bytes: usize) -> Fired {
    p.fire(&json!({"event": "tool_before", "tool": {"name": "shell", "input": {"blob": "x".repeat(input_bytes)}}}))
}

fn assert_failed_but_guarded(f: &Fired, category: &str, message: &str) {
    assert_eq!(f.code, 0, "{}", f.stderr);
    assert_eq!(f.status(0), "failed");
    assert_eq!(f.runs()[0]["error"], category);
    let msg = f.runs()[0]["message"].as_str().unwrap();
    assert!(msg.contains(message), "{msg}");
    assert_eq!(f.outcome["decision"], "deny", "the guard's deny is kept");
    assert_eq!(f.reasons(), ["guarded"]);
}

#[test]
fn killed_by_sigkill() {
    let f = fire_big(&with_guard("kill -9 $$"), 10);
    assert_failed_but_guarded(&f, "command_error", "killed by signal 9");
    assert_eq!(f.runs()[0]["signal"], 9);
}

#[test]
fn command_not_found() {
    let f = fire_big(&with_guard("/nonexistent/hook.sh"), 10);
    assert_failed_but_guarded(
        &f,
        "command_error",
        "exited with code 127 (the command was not found)",
    );
}

#[test]
fn command_not_executable() {
    let p = with_guard("./not-executable.sh");
    p.write("not-executable.sh", "#!/bin/sh\nexit 0\n");
    let f = fire_big(&p, 10);
    assert_failed_but_guarded(
        &f,
        "command_error",
        "exited with code 126 (the command is not executable)",
    );
}

#[test]
fn never_reads_a_4_mib_stdin() {
    let p = Project::new().settings("hooks:\n  PreToolUse:\n    - {name: deaf, command: 'exit 0'}\n    - {name: sleepy, command: 'sleep 0.2'}\n");
    let f = fire_big(&p, 4 * 1024 * 1024);
    assert_eq!(f.code, 0);
    assert_eq!(f.status(0), "ok");
    assert_eq!(f.status(1), "ok");
}

#[test]
fn prints_invalid_utf8_that_is_not_json() {
    let p = with_guard("printf '\\377\\376'");
    let f = fire_big(&p, 10);
    assert_failed_but_guarded(&f, "parse_error", "stdout is not valid JSON");
}

#[test]
fn leaves_a_child_holding_its_output() {
    let p = with_guard("sleep 1000 & echo $! > pid");
    let f = fire_big(&p, 10);
    assert_eq!(f.status(0), "ok");
    assert!(f.stderr.contains("hook bad (PreToolUse) exited but left processes holding its output open; latch killed them and every other descendant of the hook"), "{}", f.stderr);
    let pid = crate::util::read_pid(&p.dir().join("pid"));
    assert!(crate::util::wait_dead(pid));
}
