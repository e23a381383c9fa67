//! A command hook whose first stdout line is `{"async":true}` goes on in
//! the background (round-6 recordings, `recordings/claude/r6_*`, read with
//! `FINDINGS.md` §27–34): the event does not wait for it, its decision is
//! ignored, and its `systemMessage` and `additionalContext` reach the model
//! with the session's next tool result. With `latch fire`, a detached latch
//! process follows the hook.
//!
//! "The event did not wait" is asserted without a clock: each hook touches
//! a marker only after it slept, and the marker is still missing when
//! `latch fire` has answered.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::claude_events::event;
use crate::claude_util::{Claude, bash_after, bash_before, settings, texts};

/// A hook's JSON answer for `event` with `additionalContext`.
fn context(event: &str, text: &str) -> String {
    json!({"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}).to_string()
}

/// A marker file in the fixture, and the shell words that touch it.
fn marker(c: &Claude, name: &str) -> (PathBuf, String) {
    let path = c.root.path().join(name);
    let touch = format!("touch '{}'", path.display());
    (path, touch)
}

/// Waits up to 20 s for `path` to exist.
fn wait_for_file(path: &std::path::Path) {
    let start = Instant::now();
    while !path.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The run record of the only hook that ran.
fn only_run(outcome: &Value) -> &Value {
    &outcome["runs"][0]
}

fn went_to_the_background(outcome: &Value) -> bool {
    only_run(outcome)["message"]
        .as_str()
        .is_some_and(|m| m.contains("went to the background"))
}

/// A tool result no test hook matches (they match Bash): polling with it
/// takes the answers waiting without starting the hook again.
fn next_result() -> Value {
    let mut after = bash_after("x", json!({"content": "read"}));
    after["tool"]["name"] = json!("Read");
    after["tool"]["input"] = json!({"file_path": "a.txt"});
    after
}

fn reminder(text: &str) -> String {
    format!("<system-reminder>\n{text}\n</system-reminder>")
}

/// Recorded: `r6_async_first_line_pre_deny`.
#[test]
fn r6_async_first_line_pre_deny_the_tool_runs_and_the_late_deny_is_ignored() {
    let c = Claude::new();
    let (done, touch) = marker(&c, "done");
    let deny = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "deny", "permissionDecisionReason": "too late"}});
    let hook = format!(
        r#"printf '{{"async":true}}\n'; sleep 2; printf '%s\n' '{deny}'; echo PRE_DENY_STDERR >&2; {touch}; exit 2"#
    );
    let c = c.project_settings(&settings("PreToolUse", Some("Bash"), &[&hook]));
    let f = c.fire(&bash_before("date"));
    assert!(!done.exists(), "latch fire waited for the hook");
    assert_ne!(f.outcome["decision"], "deny", "{}", f.outcome);
    assert!(went_to_the_background(&f.outcome), "{}", f.outcome);
    assert!(f.outcome.get("reasons").is_none(), "{}", f.outcome);
    // The hook ends; its deny, stderr and exit 2 reach nobody.
    wait_for_file(&done);
    std::thread::sleep(Duration::from_millis(500));
    let after = c.fire(&next_result());
    assert!(after.outcome.get("context").is_none(), "{}", after.outcome);
    assert!(after.outcome.get("warnings").is_none(), "{}", after.outcome);
}

/// Recorded: `r6_async_first_line_pre_deny_ctx`.
#[test]
fn r6_async_first_line_pre_deny_ctx_late_texts_reach_the_next_tool_result() {
    let c = Claude::new();
    let late = json!({"systemMessage": "PRE_SYSMSG", "hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "deny", "additionalContext": "PRE_LATE_CTX"}});
    let hook = format!(r#"printf '{{"async":true}}\n'; sleep 0.5; printf '%s\n' '{late}'"#);
    let c = c.project_settings(&settings("PreToolUse", Some("Bash"), &[&hook]));
    let f = c.fire(&bash_before("date"));
    assert_ne!(f.outcome["decision"], "deny", "{}", f.outcome);
    let ctx = c.context_arriving(&next_result());
    assert_eq!(
        texts(&ctx),
        [reminder("PRE_SYSMSG"), reminder("PRE_LATE_CTX")]
    );
    assert_eq!(ctx[0]["placement"], "append_to_tool_result");
}

/// Recorded: `r6_async_first_line_no_newline`.
#[test]
fn r6_async_first_line_no_newline_the_closing_brace_is_enough() {
    let c = Claude::new();
    let (done, touch) = marker(&c, "done");
    let hook = format!(
        r#"printf '{{"async":true}}'; sleep 2; {touch}; printf '\n%s\n' '{}'"#,
        context("PostToolUse", "LATE_CTX")
    );
    let c = c.project_settings(&settings("PostToolUse", Some("Bash"), &[&hook]));
    let after = bash_after("date", json!({"stdout": "hi"}));
    let f = c.fire(&after);
    assert!(!done.exists(), "latch fire waited for the hook");
    assert!(f.outcome.get("context").is_none(), "{}", f.outcome);
    let ctx = c.context_arriving(&next_result());
    assert_eq!(texts(&ctx), [reminder("LATE_CTX")]);
}

/// Recorded: `r6_async_first_line_timeout`, `r6_async_first_line_cfg_timeout`
/// (and `r6_async_first_line_over_default`, the same rule past 15 s).
#[test]
fn r6_async_first_line_timeout_and_r6_async_first_line_cfg_timeout_do_not_stop_it() {
    // Neither `asyncTimeout` nor the handler's own `timeout` applies once
    // the hook went (and the 15 s default neither:
    // r6_async_first_line_over_default).
    let c = Claude::new();
    let (done, touch) = marker(&c, "done");
    let hook = format!(
        r#"printf '{{"async":true,"asyncTimeout":300}}\n'; sleep 1.5; {touch}; printf '%s\n' '{}'"#,
        context("PostToolUse", "TOO_LATE_CTX")
    );
    let c = c.project_settings(&json!({"hooks": {"PostToolUse": [{"matcher": "Bash",
        "hooks": [{"type": "command", "command": hook, "timeout": 1}]}]}}));
    let after = bash_after("date", json!({"stdout": "hi"}));
    c.fire(&after);
    let ctx = c.context_arriving(&next_result());
    assert_eq!(texts(&ctx), [reminder("TOO_LATE_CTX")]);
    assert!(done.exists());
}

/// Recorded: `r6_async_first_line_split`.
#[test]
fn r6_async_first_line_split_the_event_waits_for_the_closing_brace() {
    let c = Claude::new();
    let (done, touch) = marker(&c, "done");
    let hook = format!(
        r#"printf '{{"async":'; sleep 0.5; printf 'true}}\n'; sleep 2; {touch}; printf '%s\n' '{}'"#,
        context("PostToolUse", "SPLIT_CTX")
    );
    let c = c.project_settings(&settings("PostToolUse", Some("Bash"), &[&hook]));
    let after = bash_after("date", json!({"stdout": "hi"}));
    let f = c.fire(&after);
    assert!(!done.exists(), "latch fire waited for the whole hook");
    // It waited for the `}`, which came after the hook's first sleep.
    let waited = only_run(&f.outcome)["duration_ms"]
        .as_f64()
        .expect("duration");
    assert!(waited >= 500.0, "{}", f.outcome);
    assert!(went_to_the_background(&f.outcome), "{}", f.outcome);
    let ctx = c.context_arriving(&next_result());
    assert_eq!(texts(&ctx), [reminder("SPLIT_CTX")]);
}

/// Recorded: `r6_async_first_line_sessionstart`.
#[test]
fn r6_async_first_line_sessionstart_its_context_comes_with_the_first_tool_result() {
    let c = Claude::new();
    let (done, touch) = marker(&c, "done");
    let hook = format!(
        r#"printf '{{"async":true}}\n'; sleep 2; {touch}; printf '%s\n' '{}'"#,
        context("SessionStart", "SS_LATE")
    );
    let c = c.project_settings(&settings("SessionStart", None, &[&hook]));
    let f = c.fire(&event("session_start", json!({"source": "startup"})));
    assert!(!done.exists(), "latch fire waited for the hook");
    assert!(f.outcome.get("context").is_none(), "{}", f.outcome);
    let ctx = c.context_arriving(&next_result());
    assert_eq!(texts(&ctx), [reminder("SS_LATE")]);
}

/// Recorded: `r6_async_first_line_stderr_flood`.
#[test]
fn r6_async_first_line_stderr_flood_is_drained() {
    let c = Claude::new();
    let (done, touch) = marker(&c, "done");
    let hook = format!(
        r#"printf '{{"async":true}}\n'; sleep 2; head -c 1048576 /dev/zero >&2; {touch}; printf '%s\n' '{}'"#,
        context("PostToolUse", "FLOOD_CTX")
    );
    let c = c.project_settings(&settings("PostToolUse", Some("Bash"), &[&hook]));
    let after = bash_after("date", json!({"stdout": "hi"}));
    let f = c.fire(&after);
    assert!(!done.exists(), "latch fire waited for the hook");
    assert!(went_to_the_background(&f.outcome), "{}", f.outcome);
    let ctx = c.context_arriving(&next_result());
    assert_eq!(texts(&ctx), [reminder("FLOOD_CTX")]);
}

/// Recorded: `r6_async_first_line_exit2_later`, `r6_async_first_line_exit2_ctx`.
#[test]
fn r6_async_first_line_exit2_later_gives_nothing_and_r6_async_first_line_exit2_ctx_still_delivers()
{
    let c = Claude::new();
    let (done, touch) = marker(&c, "done");
    let hook =
        format!(r#"printf '{{"async":true}}\n'; sleep 0.3; echo LATE_ERR >&2; {touch}; exit 2"#);
    let c = c.project_settings(&settings("PostToolUse", Some("Bash"), &[&hook]));
    let after = bash_after("date", json!({"stdout": "hi"}));
    c.fire(&after);
    wait_for_file(&done);
    std::thread::sleep(Duration::from_millis(500));
    let f = c.fire(&next_result());
    assert!(f.outcome.get("context").is_none(), "{}", f.outcome);

    // The exit code does not matter: an answer is an answer.
    let c = Claude::new();
    let hook = format!(
        r#"printf '{{"async":true}}\n'; sleep 0.3; printf '%s\n' '{}'; echo LATE_ERR >&2; exit 2"#,
        context("PostToolUse", "EXIT2_CTX")
    );
    let c = c.project_settings(&settings("PostToolUse", Some("Bash"), &[&hook]));
    let f = c.fire(&after);
    assert!(went_to_the_background(&f.outcome), "{}", f.outcome);
    let ctx = c.context_arriving(&next_result());
    assert_eq!(texts(&ctx), [reminder("EXIT2_CTX")]);
}

#[test]
fn the_first_json_line_without_an_async_key_is_the_answer() {
    // Claude Code reads the answer line by line: a line that does not
    // parse, and one with an `async` key, are passed over.
    let c = Claude::new();
    let hook = format!(
        r#"printf '{{"async":true}}\n'; sleep 0.2; printf '{{not json\n{{"async":false}}\n  %s\n%s\n' '{}' '{}'"#,
        context("PostToolUse", "FIRST"),
        context("PostToolUse", "SECOND")
    );
    let c = c.project_settings(&settings("PostToolUse", Some("Bash"), &[&hook]));
    let after = bash_after("date", json!({"stdout": "hi"}));
    let f = c.fire(&after);
    assert!(went_to_the_background(&f.outcome), "{}", f.outcome);
    let ctx = c.context_arriving(&next_result());
    assert_eq!(texts(&ctx), [reminder("FIRST")]);
}

#[test]
fn a_first_line_that_is_not_async_keeps_the_event_waiting() {
    let c = Claude::new();
    let (done, touch) = marker(&c, "done");
    let hook = format!(r#"printf '{{"async":false}}\n'; sleep 0.3; {touch}"#);
    let c = c.project_settings(&settings("PostToolUse", Some("Bash"), &[&hook]));
    let f = c.fire(&bash_after("date", json!({"stdout": "hi"})));
    assert!(done.exists(), "the hook did not run to its end");
    assert_eq!(only_run(&f.outcome)["status"], "ok", "{}", f.outcome);
}

#[test]
fn message_display_hooks_run_to_their_end_whatever_their_first_line() {
    // Claude Code runs MessageDisplay hooks with forced synchronous
    // execution (its code; the same path as `--init-only`, recorded in
    // r6_async_first_line_sessionstart_init_only), and reads the whole
    // stdout as usual: here one JSON object that starts with
    // `"async": true`, which Claude Code's schema reads as its async form,
    // keeping nothing else (`recordings/claude-2.1.332/answer-cases.jsonl`).
    let c = Claude::new();
    let (done, touch) = marker(&c, "done");
    let answer = json!({"async": true, "hookSpecificOutput": {"hookEventName": "MessageDisplay", "displayContent": "SHOWN"}});
    let hook = format!(r#"printf '%s\n' '{answer}'; sleep 0.3; {touch}"#);
    let c = c.project_settings(&settings("MessageDisplay", None, &[&hook]));
    let f = c.fire(&event(
        "message_display",
        json!({"turn_id": "t1", "display": {"message_id": "m1", "index": 0, "final": true, "delta": "hi"}}),
    ));
    assert!(done.exists(), "latch fire did not wait for the hook");
    assert!(f.outcome.get("display").is_none(), "{}", f.outcome);
    assert!(!went_to_the_background(&f.outcome), "{}", f.outcome);
    // Without `async`, the same answer shows its text.
    let c = Claude::new();
    let answer = json!({"hookSpecificOutput": {"hookEventName": "MessageDisplay", "displayContent": "SHOWN"}});
    let hook = format!(r#"printf '%s\n' '{answer}'"#);
    let c = c.project_settings(&settings("MessageDisplay", None, &[&hook]));
    let f = c.fire(&event(
        "message_display",
        json!({"turn_id": "t1", "display": {"message_id": "m1", "index": 0, "final": true, "delta": "hi"}}),
    ));
    assert_eq!(f.outcome["display"], "SHOWN", "{}", f.outcome);
}

#[test]
fn a_hook_in_the_background_is_read_while_the_others_of_its_event_run() {
    // The first hook goes to the background, then writes 1 MiB on stderr
    // (more than a pipe holds) and only then makes `written`; the second
    // waits up to 5 s for that file. Were the first one not read while
    // the second runs, both would wait until the second gave up.
    let c = Claude::new();
    let (written, touch) = marker(&c, "written");
    let (saw, touch_saw) = marker(&c, "saw");
    let first = format!(r#"printf '{{"async":true}}\n'; head -c 1048576 /dev/zero >&2; {touch}"#);
    let second = format!(
        r#"i=0; while [ $i -lt 100 ]; do if [ -f '{}' ]; then {touch_saw}; exit 0; fi; sleep 0.05; i=$((i+1)); done"#,
        written.display()
    );
    let c = c.project_settings(&settings("PostToolUse", Some("Bash"), &[&first, &second]));
    c.fire(&bash_after("date", json!({"stdout": "hi"})));
    assert!(saw.exists(), "the hook in the background was not read");
}

#[test]
fn without_a_session_the_hook_is_waited_for() {
    // No session to keep a later answer in: latch waits, as it did before
    // hooks could go to the background, and says so.
    let c = Claude::new();
    let (done, touch) = marker(&c, "done");
    let hook = format!(r#"printf '{{"async":true}}\n'; sleep 0.3; {touch}"#);
    let c = c.project_settings(&settings("PostToolUse", Some("Bash"), &[&hook]));
    let mut after = bash_after("date", json!({"stdout": "hi"}));
    after
        .as_object_mut()
        .expect("an object")
        .remove("session_id");
    let f = c.fire(&after);
    assert!(done.exists(), "latch fire did not wait for the hook");
    assert!(went_to_the_background(&f.outcome), "{}", f.outcome);
}

/// A session's end with a hook still in the background (round 7,
/// `FINDINGS.md` §35): latch runs the SessionEnd hooks, with the event's
/// reason, and leaves the background hook alone. Claude Code runs them too
/// at `/clear` (and leaves the hook alone), and at the end of `-p` once the
/// hooks it stops there are gone, which latch does not do (docs: where
/// latch differs).
fn ends_beside_a_background_hook(reason: &str, first_line: bool) {
    let c = Claude::new();
    let (done, touch) = marker(&c, "done");
    let ended = c.root.path().join("ended");
    let mut background = json!({"type": "command",
        "command": format!("sleep 2; {touch}")});
    if first_line {
        background["command"] = json!(format!(r#"printf '{{"async":true}}\n'; sleep 2; {touch}"#));
    } else {
        background["async"] = json!(true);
    }
    let c = c.project_settings(&json!({"hooks": {
        "PostToolUse": [{"matcher": "Bash", "hooks": [background]}],
        "SessionEnd": [{"hooks": [{"type": "command",
            "command": format!("cat > '{}'", ended.display())}]}]}}));
    let f = c.fire(&bash_after("date", json!({"stdout": "x"})));
    let message = only_run(&f.outcome)["message"].as_str().unwrap_or_default();
    assert!(message.contains("background"), "{}", f.outcome);
    assert!(!done.exists(), "latch fire waited for the hook");
    let f = c.fire(&event("session_end", json!({"reason": reason})));
    assert_eq!(f.runs().len(), 1, "{}", f.outcome);
    let payload: Value =
        serde_json::from_slice(&std::fs::read(&ended).expect("the SessionEnd hook ran")).unwrap();
    assert_eq!(payload["reason"], reason);
    assert!(!done.exists(), "the session's end waited for the hook");
    wait_for_file(&done);
}

/// Recorded: `r7_clear_with_async`.
#[test]
fn r7_clear_with_async_session_end_runs_and_the_hook_goes_on() {
    ends_beside_a_background_hook("clear", false);
}

/// Recorded: `r7_async_teardown_ignores_term`,
/// `r7_async_first_line_teardown_ignores_term`.
#[test]
fn r7_async_teardown_ignores_term_and_r7_async_first_line_teardown_ignores_term_session_end_runs() {
    ends_beside_a_background_hook("other", false);
    ends_beside_a_background_hook("other", true);
}

/// An `async` hook fired without a session cannot deliver its answer:
/// it is not started, and the outcome says so in `warnings` too.
#[test]
fn an_async_hook_without_a_session_is_a_warning() {
    let c = crate::claude_util::Claude::new()
        .project_settings(&serde_json::json!({"hooks": {"PostToolUse": [
        {"hooks": [{"type": "command", "command": "true", "async": true}]}]}}));
    let mut event = crate::claude_util::bash_after("ls", serde_json::json!("x"));
    event.as_object_mut().unwrap().remove("session_id");
    let f = c.fire(&event);
    assert_eq!(f.runs()[0]["status"], "failed", "{}", f.outcome);
    let warnings = f.outcome["warnings"].to_string();
    assert!(
        warnings.contains("could not start in the background: the event has no session_id"),
        "{}",
        f.outcome
    );
}
