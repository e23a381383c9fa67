//! Misbehaving evener hooks: each is a non-blocking error with a record,
//! and another plugin's deny is never lost.

use serde_json::json;

use crate::evener_util::{Plugins, pre};
use crate::util::{read_pid, wait_dead};

fn with_guard(bad: &str, timeout: f64) -> Plugins {
    let hooks = json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": bad, "timeout": timeout}]}]}});
    Plugins::new().plugin("bad", &hooks.to_string()).command(
        "guard",
        "PreToolUse",
        "*",
        "echo guarded >&2; exit 2",
    )
}

fn check(p: &Plugins, category: &str) -> crate::util::Fired {
    let f = p.fire(&pre(
        "shell",
        json!({"command": "x".repeat(4 * 1024 * 1024)}),
    ));
    assert_eq!(f.code, 0, "{}", f.stderr);
    assert_eq!(f.runs()[0]["error"], category, "{}", f.outcome);
    assert_eq!(f.outcome["decision"], "deny");
    assert_eq!(f.reasons(), ["guarded"]);
    f
}

#[test]
fn hang_with_grandchild() {
    let p = with_guard("sleep 1000 & echo $! > pid; sleep 1000", 0.3);
    check(&p, "timeout");
    assert!(wait_dead(read_pid(&p.project().join("pid"))));
}

#[test]
fn flood_is_capped() {
    let p = with_guard("head -c 5000000 /dev/zero | tr '\\0' a", 10.0);
    let f = p.fire(&pre("shell", json!({})));
    assert_eq!(f.runs()[0]["stdout_truncated"], true);
    assert!(f.warnings().contains(
        &"PreToolUse hook bad printed more than 1 MiB; latch kept the first 1 MiB".to_owned()
    ));
    assert_eq!(f.reasons(), ["guarded"]);
}

#[test]
fn invalid_utf8_is_replaced_and_reported() {
    let p = with_guard("printf 'bad \\377 bytes'", 10.0);
    let f = p.fire(&pre("shell", json!({})));
    assert!(
        f.warnings().contains(
            &"PreToolUse hook bad printed invalid UTF-8; latch replaced the bad bytes with U+FFFD"
                .to_owned()
        )
    );
    assert!(
        f.warnings()
            .contains(&"PreToolUse hook bad: bad \u{FFFD} bytes".to_owned()),
        "{:?}",
        f.warnings()
    );
}

#[test]
fn malformed_json() {
    check(
        &with_guard("echo '{\"systemMessage\": '", 10.0),
        "parse_error",
    );
}

#[test]
fn signal_death() {
    let f = check(&with_guard("kill -9 $$", 10.0), "command_error");
    assert_eq!(f.runs()[0]["signal"], 9);
}

#[test]
fn not_found_and_not_executable() {
    let f = check(&with_guard("/nonexistent/hook", 10.0), "command_error");
    assert_eq!(f.runs()[0]["exit_code"], 127);
    let p = with_guard("./noexec.sh", 10.0);
    std::fs::write(p.project().join("noexec.sh"), "#!/bin/sh\n").unwrap();
    let f = check(&p, "command_error");
    assert_eq!(f.runs()[0]["exit_code"], 126);
    // Exec form: the program itself cannot start.
    let p = Plugins::new().plugin("x", r#"{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"/nonexistent/prog","args":["a"]}]}]}}"#);
    let f = p.fire(&pre("shell", json!({})));
    assert_eq!(f.runs()[0]["error"], "command_error");
    assert!(f.runs()[0].get("exit_code").is_none());
}

#[test]
fn unread_stdin() {
    let p = with_guard("sleep 0.1", 10.0);
    let f = p.fire(&pre(
        "shell",
        json!({"command": "x".repeat(4 * 1024 * 1024)}),
    ));
    assert_eq!(f.runs()[0]["status"], "ok");
    assert_eq!(f.reasons(), ["guarded"]);
}
