//! Round-3 recordings (`recordings/claude/r3_*`, read with
//! `recordings/claude/FINDINGS.md`) that the other claude tests did not
//! name: several decisions on one call, compaction, configuration changes,
//! resumed sessions, batches, tasks. Each test names its cases; the
//! sentinels are the recordings'.

use serde_json::{Value, json};

use crate::claude_events::{PROMPTED, SESSION, event, expect_keys};
use crate::claude_util::{Claude, bash_after, bash_before, settings, texts};

/// A PreToolUse JSON answer with `decision` and, if any, `reason`.
fn decide(decision: &str, reason: Option<&str>) -> String {
    let mut out = json!({"hookEventName": "PreToolUse", "permissionDecision": decision});
    if let Some(r) = reason {
        out["permissionDecisionReason"] = json!(r);
    }
    format!("--stdout '{}'", json!({"hookSpecificOutput": out}))
}

/// Two PreToolUse hooks on Bash, `a` then `b`, in one group or two.
pub(crate) fn two_hooks(a_args: &str, b_args: &str, same_group: bool) -> (Claude, String, String) {
    let c = Claude::new();
    let a = c.hook("a", a_args);
    let b = c.hook("b", b_args);
    let handler = |cmd: &str| json!({"type": "command", "command": cmd});
    let groups = if same_group {
        json!([{"matcher": "Bash", "hooks": [handler(&a), handler(&b)]}])
    } else {
        json!([{"matcher": "Bash", "hooks": [handler(&a)]}, {"matcher": "Bash", "hooks": [handler(&b)]}])
    };
    let c = c.project_settings(&json!({"hooks": {"PreToolUse": groups}}));
    (c, a, b)
}

/// Deny outranks defer, which outranks ask, which outranks allow, whatever
/// finishes first; among denies, the model reads the last to finish
/// (r3_ask_fast_allow_slow, r3_ask_fast_deny_slow, r3_deny_fast_ask_slow,
/// r3_deny_fast_defer_slow, r3_two_denies_json, r3_two_denies_json_rev,
/// r3_two_denies_mixed, r3_two_denies_same_group, r3_exit2_fast_allow_slow).
#[test]
fn r3_decisions_rank_by_kind_and_the_last_deny_to_finish_speaks() {
    let slow = |args: String| format!("--sleep 0.4 {args}");
    // (case, A, B, same group, decision, reasons, the model's texts: A's
    // and B's command lines stand for `{a}` and `{b}`).
    type Race<'a> = (
        &'a str,
        String,
        String,
        bool,
        &'a str,
        Vec<&'a str>,
        Vec<&'a str>,
    );
    let cases: Vec<Race<'_>> = vec![
        (
            "r3_ask_fast_allow_slow",
            decide("ask", Some("ASK_A_SENTINEL reason of A")),
            slow(decide("allow", None)),
            false,
            // Claude Code under -p turns the ask into a deny; latch reports
            // the ask for the harness to put to its user.
            "ask",
            vec!["ASK_A_SENTINEL reason of A"],
            vec![],
        ),
        (
            "r3_ask_fast_deny_slow",
            decide("ask", Some("ASK_A_SENTINEL reason of A")),
            slow(decide("deny", Some("DENY_B_SENTINEL reason of B"))),
            false,
            "deny",
            vec!["DENY_B_SENTINEL reason of B"],
            vec!["DENY_B_SENTINEL reason of B"],
        ),
        (
            "r3_deny_fast_ask_slow",
            decide("deny", Some("DENY_A_SENTINEL reason of A")),
            slow(decide("ask", Some("ASK_B_SENTINEL reason of B"))),
            false,
            "deny",
            vec!["DENY_A_SENTINEL reason of A"],
            vec!["DENY_A_SENTINEL reason of A"],
        ),
        (
            "r3_deny_fast_defer_slow",
            decide("deny", Some("DENY_A_SENTINEL reason of A")),
            slow(decide("defer", None)),
            false,
            "deny",
            vec!["DENY_A_SENTINEL reason of A"],
            vec!["DENY_A_SENTINEL reason of A"],
        ),
        (
            "r3_two_denies_json",
            slow(decide("deny", Some("DENY_A_SENTINEL reason of A"))),
            decide("deny", Some("DENY_B_SENTINEL reason of B")),
            false,
            "deny",
            vec!["DENY_A_SENTINEL reason of A", "DENY_B_SENTINEL reason of B"],
            vec!["DENY_A_SENTINEL reason of A"],
        ),
        (
            "r3_two_denies_json_rev",
            decide("deny", Some("DENY_A_SENTINEL reason of A")),
            slow(decide("deny", Some("DENY_B_SENTINEL reason of B"))),
            false,
            "deny",
            vec!["DENY_A_SENTINEL reason of A", "DENY_B_SENTINEL reason of B"],
            vec!["DENY_B_SENTINEL reason of B"],
        ),
        (
            "r3_two_denies_same_group",
            slow("--exit 2 --stderr 'DENY_A_SENTINEL stderr of A'".to_owned()),
            "--exit 2 --stderr 'DENY_B_SENTINEL stderr of B'".to_owned(),
            true,
            "deny",
            vec![
                "PreToolUse:Bash hook error: [{a}]: DENY_A_SENTINEL stderr of A",
                "PreToolUse:Bash hook error: [{b}]: DENY_B_SENTINEL stderr of B",
            ],
            vec!["PreToolUse:Bash hook error: [{a}]: DENY_A_SENTINEL stderr of A"],
        ),
        (
            "r3_two_denies_mixed",
            slow("--exit 2 --stderr 'DENY_A_SENTINEL stderr of A'".to_owned()),
            decide("deny", Some("DENY_B_SENTINEL reason of B")),
            false,
            "deny",
            vec![
                "DENY_B_SENTINEL reason of B",
                "PreToolUse:Bash hook error: [{a}]: DENY_A_SENTINEL stderr of A",
            ],
            vec!["PreToolUse:Bash hook error: [{a}]: DENY_A_SENTINEL stderr of A"],
        ),
        (
            "r3_exit2_fast_allow_slow",
            "--exit 2 --stderr 'DENY_A_SENTINEL stderr of A'".to_owned(),
            slow(decide("allow", None)),
            false,
            "deny",
            vec!["PreToolUse:Bash hook error: [{a}]: DENY_A_SENTINEL stderr of A"],
            vec!["PreToolUse:Bash hook error: [{a}]: DENY_A_SENTINEL stderr of A"],
        ),
    ];
    for (case, a_args, b_args, same_group, decision, reasons, notices) in cases {
        let (c, a, b) = two_hooks(&a_args, &b_args, same_group);
        let f = c.fire(&bash_before("ls"));
        assert_eq!(f.outcome["decision"], decision, "{case}: {}", f.outcome);
        // A JSON deny's reason reaches the model as a hook error (2.1.332;
        // the cases' texts are 2.1.197's, which gave the reason alone).
        let named = |texts: Vec<&str>| -> Vec<String> {
            texts
                .iter()
                .map(|n| n.replace("{a}", &a).replace("{b}", &b))
                .map(|n| {
                    if n.starts_with("DENY_") {
                        format!("PreToolUse:Bash hook error: {n}")
                    } else {
                        n
                    }
                })
                .collect()
        };
        let mut got_reasons = f.reasons();
        got_reasons.sort();
        assert_eq!(got_reasons, named(reasons), "{case}: {}", f.outcome);
        let notices = named(notices);
        assert_eq!(f.notice_texts(), notices, "{case}: {}", f.outcome);
        assert_eq!((c.runs_of("a"), c.runs_of("b")), (1, 1), "{case}");
    }
}

/// A deny's text and the contexts of both hooks reach the model, the
/// contexts in one reminder in the order the hooks finished
/// (r3_deny_slow_plus_context_fast).
#[test]
fn r3_a_deny_keeps_every_context_in_finishing_order() {
    let a = r#"--sleep 0.4 --stdout '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "DENY_A_SENTINEL reason", "additionalContext": "CTX_A_SENTINEL"}}'"#;
    let b = r#"--stdout '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "CTX_B_SENTINEL"}}'"#;
    let (c, _, _) = two_hooks(a, b, false);
    let f = c.fire(&bash_before("ls"));
    assert_eq!(f.outcome["decision"], "deny");
    assert_eq!(
        f.notice_texts(),
        ["PreToolUse:Bash hook error: DENY_A_SENTINEL reason"]
    );
    // One reminder, the contexts in the order the hooks finished (Claude
    // Code 2.1.332 with its built-in hook modules, as it runs by default).
    assert_eq!(
        texts(&f.outcome["context"]),
        [
            "<system-reminder>\nPreToolUse:Bash hook additional context: CTX_B_SENTINEL\nCTX_A_SENTINEL\n</system-reminder>"
        ]
    );
}

/// A manual compaction passes its instructions; a PreCompact block or
/// exit 2 stops the compaction and tells the model nothing
/// (r3_compact_manual, r3_compact_manual_args, r3_compact_pre_block,
/// r3_compact_pre_exit2).
#[test]
fn r3_pre_compact_gets_manual_instructions_and_can_stop_the_compaction() {
    let c = Claude::new();
    let rec = c.hook("rec", "");
    let c = c.project_settings(&settings("PreCompact", None, &[&rec]));
    c.fire(&event(
        "compact_before",
        json!({"prompt_id": "p1", "trigger": "manual"}),
    ));
    let got = c.received("rec").expect("ran");
    expect_keys(&got, &PROMPTED, &["trigger", "custom_instructions"]);
    assert_eq!(got["trigger"], "manual");
    assert_eq!(got["custom_instructions"], Value::Null);
    c.fire(&event(
        "compact_before",
        json!({"prompt_id": "p1", "trigger": "manual",
            "compaction": {"instructions": "KEEP_SENTINEL focus on tests"}}),
    ));
    assert_eq!(
        c.received("rec").expect("ran")["custom_instructions"],
        "KEEP_SENTINEL focus on tests"
    );
    for (case, args, reason) in [
        (
            "r3_compact_pre_exit2",
            "--exit 2 --stderr 'PRECOMPACT_EXIT2_SENTINEL'",
            "PRECOMPACT_EXIT2_SENTINEL",
        ),
        (
            "r3_compact_pre_block",
            r#"--stdout '{"decision": "block", "reason": "PRECOMPACT_BLOCK_SENTINEL"}'"#,
            "PRECOMPACT_BLOCK_SENTINEL",
        ),
    ] {
        let c = Claude::new();
        let stop = c.hook("stop", args);
        let c = c.project_settings(&settings("PreCompact", None, &[&stop]));
        let f = c.fire(&event(
            "compact_before",
            json!({"prompt_id": "p1", "trigger": "auto"}),
        ));
        assert_eq!(f.outcome["decision"], "deny", "{case}: {}", f.outcome);
        assert_eq!(f.reasons(), [reason], "{case}");
        assert!(
            f.outcome.get("notices").is_none() && f.outcome.get("context").is_none(),
            "{case}: {}",
            f.outcome
        );
    }
}

/// A ConfigChange exit 2 rejects the change and reaches no one
/// (r3_config_change_exit2). After a rejected change the session keeps
/// its settings, so a hook the edit added never runs, though the file on
/// disk keeps the edit (r3_config_change_exit2_hook_added); once a change
/// is let through, the file as it is on disk counts, and a hook the edit
/// added runs (r3_config_change_hook_added).
#[test]
fn r3_config_changes_are_rejected_quietly_and_a_rejected_edit_is_not_applied() {
    let c = Claude::new();
    let marker = c.root.path().join("reject");
    let reject = c.hook("reject", "--exit 2 --stderr 'CC_EXIT2_SENTINEL'");
    let reject = format!("if [ -f '{}' ]; then {reject}; fi", marker.display());
    let added = c.hook("added", "");
    let c = c.project_settings(&settings("ConfigChange", None, &[&reject]));
    let file = c.project().join(".claude/settings.json");
    let change = event(
        "config_change",
        json!({"prompt_id": "p1", "source": "project_settings", "file_path": file}),
    );
    // The session starts with the ConfigChange hook alone.
    c.fire(&event("session_start", json!({"source": "startup"})));
    let c = c.project_settings(&json!({"hooks": {
        "ConfigChange": [{"hooks": [{"type": "command", "command": reject}]}],
        "PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": added}]}]}}));
    std::fs::write(&marker, "").unwrap();
    let f = c.fire(&change);
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);
    expect_keys(
        &c.received("reject").expect("ran"),
        &PROMPTED,
        &["source", "file_path"],
    );
    assert!(
        f.outcome.get("notices").is_none()
            && f.outcome.get("context").is_none()
            && f.outcome.get("warnings").is_none(),
        "{}",
        f.outcome
    );
    c.fire(&bash_after("ls", json!("x")));
    c.fire(&bash_after("ls", json!("x")));
    assert_eq!(c.runs_of("added"), 0, "the rejected edit was applied");

    // The next change is let through: from then on, the file on disk.
    std::fs::remove_file(&marker).unwrap();
    let f = c.fire(&change);
    assert_eq!(f.outcome["decision"], "proceed", "{}", f.outcome);
    c.fire(&bash_after("ls", json!("x")));
    assert_eq!(c.runs_of("added"), 1, "the accepted edit was not applied");
}

/// A resumed or forked session starts as `resume`, without a prompt id;
/// a `fork` matcher never runs (r3_session_resume_continue,
/// r3_session_resume_id, r3_session_fork).
#[test]
fn r3_a_resumed_session_starts_as_resume_without_a_prompt_id() {
    let c = Claude::new();
    let rec = c.hook("rec", "");
    let ctx = c.hook(
        "ctx",
        r#"--stdout '{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "SS_RESUME_CTX_SENTINEL"}}'"#,
    );
    let fork = c.hook("fork", "");
    let c = c.project_settings(&json!({"hooks": {"SessionStart": [
        {"hooks": [{"type": "command", "command": rec}]},
        {"matcher": "resume", "hooks": [{"type": "command", "command": ctx}]},
        {"matcher": "fork", "hooks": [{"type": "command", "command": fork}]}]}}));
    let f = c.fire(&event(
        "session_start",
        json!({"source": "resume", "prompt_id": "p2"}),
    ));
    let got = c.received("rec").expect("ran");
    expect_keys(&got, &SESSION, &["source"]);
    assert_eq!(got["source"], "resume");
    assert_eq!(c.runs_of("fork"), 0);
    assert_eq!(
        texts(&f.outcome["context"]),
        [
            "<system-reminder>\nSessionStart hook additional context: SS_RESUME_CTX_SENTINEL\n</system-reminder>"
        ]
    );
    assert_eq!(f.outcome["context"][0]["placement"], "first_user_message");
}

/// A batch of one call fires PostToolBatch too; two contexts come in the
/// order their hooks finished (r3_post_tool_batch_single,
/// r3_post_tool_batch_ctx_two_handlers).
#[test]
fn r3_post_tool_batch_of_one_call_and_two_contexts() {
    let c = Claude::new();
    let slow = c.hook(
        "slow",
        r#"--sleep 0.4 --stdout '{"hookSpecificOutput": {"hookEventName": "PostToolBatch", "additionalContext": "BATCH_A_SENTINEL"}}'"#,
    );
    let fast = c.hook(
        "fast",
        r#"--stdout '{"hookSpecificOutput": {"hookEventName": "PostToolBatch", "additionalContext": "BATCH_B_SENTINEL"}}'"#,
    );
    let c = c.project_settings(&settings("PostToolBatch", None, &[&slow, &fast]));
    let f = c.fire(&event(
        "tool_batch",
        json!({"prompt_id": "p1", "permission_mode": "bypassPermissions", "tool_calls": [
            {"name": "Bash", "input": {"command": "echo hi"}, "call_id": "t1", "output": "hi"}]}),
    ));
    let calls = c.received("fast").expect("ran")["tool_calls"].clone();
    assert_eq!(calls.as_array().map(Vec::len), Some(1), "{calls}");
    assert_eq!(calls[0]["tool_response"], "hi");
    assert_eq!(
        texts(&f.outcome["context"]),
        [
            "<system-reminder>\nPostToolBatch hook additional context: BATCH_B_SENTINEL\n</system-reminder>",
            "<system-reminder>\nPostToolBatch hook additional context: BATCH_A_SENTINEL\n</system-reminder>"
        ]
    );
    for placement in f.outcome["context"].as_array().into_iter().flatten() {
        assert_eq!(placement["placement"], "append_to_tool_result");
    }
}

/// CwdChanged answers reach no one: exit 2, context and plain stdout
/// alike (r3_cwd_changed_outputs).
#[test]
fn r3_cwd_changed_answers_reach_no_one() {
    let c = Claude::new();
    let exit2 = c.hook("exit2", "--exit 2 --stderr 'CWD_EXIT2_SENTINEL'");
    let ctx = c.hook(
        "ctx",
        r#"--stdout '{"hookSpecificOutput": {"hookEventName": "CwdChanged", "additionalContext": "CWD_CTX_SENTINEL"}}'"#,
    );
    let plain = c.hook("plain", "--stdout 'CWD_PLAIN_SENTINEL'");
    let c = c.project_settings(&settings("CwdChanged", None, &[&exit2, &ctx, &plain]));
    let sub = c.project().join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    let f = c.fire(&event(
        "cwd_changed",
        json!({"prompt_id": "p1", "cwd": sub, "old_cwd": c.project()}),
    ));
    assert_eq!(f.outcome["decision"], "proceed", "{}", f.outcome);
    for field in ["context", "notices", "reasons", "warnings"] {
        assert!(f.outcome.get(field).is_none(), "{field}: {}", f.outcome);
    }
    assert_eq!(
        (c.runs_of("exit2"), c.runs_of("ctx"), c.runs_of("plain")),
        (1, 1, 1)
    );
}

/// A command's expansion blocked by JSON shows the user the reason with
/// the original prompt (r3_prompt_expansion_block).
#[test]
fn r3_a_blocked_prompt_expansion_names_the_original_prompt() {
    let c = Claude::new();
    let block = c.hook(
        "block",
        r#"--stdout '{"decision": "block", "reason": "UPE_BLOCK_SENTINEL reason"}'"#,
    );
    let c = c.project_settings(&settings("UserPromptExpansion", None, &[&block]));
    let f = c.fire(&event(
        "prompt_expansion",
        json!({"prompt_id": "p1", "permission_mode": "bypassPermissions",
            "prompt": "/mycmd some args",
            "expansion": {"kind": "slash_command", "command_name": "mycmd",
                "command_args": "some args", "command_source": "projectSettings"}}),
    ));
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);
    assert_eq!(
        f.reasons(),
        [
            "UserPromptExpansion operation blocked by hook:\nUPE_BLOCK_SENTINEL reason\n\nOriginal prompt: /mycmd some args"
        ]
    );
    assert!(f.outcome.get("notices").is_none(), "{}", f.outcome);
}

/// TaskCompleted exit 2 refuses the completion with feedback; a TaskCreated
/// block does the same from JSON, and a hook-specific answer beside it is
/// schema-invalid (r3_task_completed_exit2, r3_task_created_block).
#[test]
fn r3_task_hooks_refuse_with_feedback() {
    let c = Claude::new();
    let exit2 = c.hook("exit2", "--exit 2 --stderr 'TK_EXIT2_SENTINEL stderr'");
    let c = c.project_settings(&settings("TaskCompleted", None, &[&exit2]));
    let f = c.fire(&event(
        "task_completed",
        json!({"prompt_id": "p1", "task": {"id": "1", "subject": "S", "description": "D"}}),
    ));
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);
    assert_eq!(
        f.notice_texts(),
        [format!(
            "TaskCompleted hook feedback:\n[{exit2}]: TK_EXIT2_SENTINEL stderr"
        )]
    );
    expect_keys(
        &c.received("exit2").expect("ran"),
        &PROMPTED,
        &["task_id", "task_subject", "task_description"],
    );
    let c = Claude::new();
    let block = c.hook(
        "block",
        r#"--stdout '{"decision": "block", "reason": "TC_BLOCK_SENTINEL reason"}'"#,
    );
    let ctx = c.hook(
        "ctx",
        r#"--stdout '{"hookSpecificOutput": {"hookEventName": "TaskCreated", "additionalContext": "TC_CTX_SENTINEL"}}'"#,
    );
    let c = c.project_settings(&settings("TaskCreated", None, &[&block, &ctx]));
    let f = c.fire(&event(
        "task_created",
        json!({"prompt_id": "p1", "task": {"id": "1", "subject": "S"}}),
    ));
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);
    assert_eq!(
        f.notice_texts(),
        ["TaskCreated hook feedback:\nTC_BLOCK_SENTINEL reason"]
    );
    assert!(f.outcome.get("context").is_none(), "{}", f.outcome);
    assert!(
        f.warnings_contain("Hook JSON output validation failed \u{2014} hookSpecificOutput.hookEventName: expected one of \"PreToolUse\" | \"UserPromptSubmit\" | \"UserPromptExpansion\" | \"SessionStart\" | \"Setup\" | \"PreModelSwitch\" | \u{2026}\n\nThe hook's output was: {\n  \"hookSpecificOutput\": {\n    \"hookEventName\": \"TaskCreated\","),
        "{}",
        f.outcome
    );
}

/// Setup's answers change nothing, a JSON block included; a maintenance
/// run fires its own and the matcher-less groups, without a prompt id or
/// permission mode (r3_setup_exit2, r3_setup_maintenance).
#[test]
fn r3_setup_maintenance_and_a_block_that_changes_nothing() {
    let c = Claude::new();
    let init = c.hook("init", "");
    let maintenance = c.hook("maintenance", "--stdout 'SETUP_PLAIN_MAINT_SENTINEL plain'");
    let any = c.hook(
        "any",
        r#"--stdout '{"decision": "block", "reason": "SETUP_BLOCK_SENTINEL"}'"#,
    );
    let exit2 = c.hook("exit2", "--exit 2 --stderr 'SETUP_EXIT2_SENTINEL'");
    let c = c.project_settings(&json!({"hooks": {"Setup": [
        {"matcher": "init", "hooks": [{"type": "command", "command": init}]},
        {"matcher": "maintenance", "hooks": [{"type": "command", "command": maintenance},
            {"type": "command", "command": exit2}]},
        {"hooks": [{"type": "command", "command": any}]}]}}));
    let f = c.fire(&event(
        "setup",
        json!({"trigger": "maintenance", "prompt_id": "p1", "permission_mode": "bypassPermissions"}),
    ));
    assert_eq!(f.outcome["decision"], "proceed", "{}", f.outcome);
    for field in ["context", "notices", "reasons", "warnings"] {
        assert!(f.outcome.get(field).is_none(), "{field}: {}", f.outcome);
    }
    assert_eq!(
        (
            c.runs_of("init"),
            c.runs_of("maintenance"),
            c.runs_of("any")
        ),
        (0, 1, 1)
    );
    let got = c.received("maintenance").expect("ran");
    expect_keys(&got, &SESSION, &["trigger"]);
    assert_eq!(got["trigger"], "maintenance");
}

/// `effort` follows `permission_mode` on the tool-loop events and Stop,
/// and is absent from UserPromptSubmit (r3_effort_fields_low).
#[test]
fn r3_effort_is_on_tool_and_stop_events_only() {
    let c = Claude::new();
    let pre = c.hook("pre", "");
    let stop = c.hook("stop", "");
    let prompt = c.hook("prompt", "");
    let c = c.project_settings(&json!({"hooks": {
        "PreToolUse": [{"hooks": [{"type": "command", "command": pre}]}],
        "Stop": [{"hooks": [{"type": "command", "command": stop}]}],
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": prompt}]}]}}));
    let mut before = bash_before("ls");
    before["effort"] = json!("low");
    before["prompt_id"] = json!("p1");
    c.fire(&before);
    let got = c.received("pre").expect("ran");
    assert_eq!(got["effort"], json!({"level": "low"}));
    let keys: Vec<&str> = crate::claude_util::keys(&got);
    let at = |k: &str| keys.iter().position(|x| *x == k);
    assert_eq!(at("effort"), at("permission_mode").map(|p| p + 1), "{got}");
    c.fire(&event(
        "stop",
        json!({"prompt_id": "p1", "permission_mode": "bypassPermissions", "effort": "low"}),
    ));
    assert_eq!(
        c.received("stop").expect("ran")["effort"],
        json!({"level": "low"})
    );
    c.fire(&event(
        "user_prompt",
        json!({"prompt": "x", "prompt_id": "p1", "permission_mode": "bypassPermissions", "effort": "low"}),
    ));
    let got = c.received("prompt").expect("ran");
    assert!(got.get("effort").is_none(), "{got}");
}

/// A SessionStart hook's `watchPaths` are the outcome's `watch_paths`; a
/// FileChanged group without a matcher watches nothing by itself, and
/// runs for a change to a watched file (r3_file_changed_watchpaths,
/// r3_file_changed_nomatcher_control).
#[test]
fn r3_watch_paths_come_from_session_start_and_a_matcherless_group_runs_for_them() {
    let c = Claude::new();
    let fc = c.hook("fc", "");
    let c = c.project_settings(&settings("FileChanged", None, &[&fc]));
    let start = event(
        "session_start",
        json!({"source": "startup", "cwd": c.project()}),
    );
    let f = c.fire(&start);
    assert!(
        f.outcome.get("watch_paths").is_none_or(|w| w == &json!([])),
        "{}",
        f.outcome
    );
    let watched = c.project().join("watched.txt");
    let lister = c.hook(
        "lister",
        &format!(
            "--stdout '{}'",
            json!({"hookSpecificOutput": {"hookEventName": "SessionStart", "watchPaths": [watched]}})
        ),
    );
    let c = c.project_settings(&json!({"hooks": {
        "SessionStart": [{"hooks": [{"type": "command", "command": lister}]}],
        "FileChanged": [{"hooks": [{"type": "command", "command": fc}]}]}}));
    let f = c.fire(&start);
    assert_eq!(f.outcome["watch_paths"], json!([watched]), "{}", f.outcome);
    c.fire(&event(
        "file_changed",
        json!({"prompt_id": "p1", "file_path": watched, "change": "change"}),
    ));
    let got = c.received("fc").expect("ran");
    expect_keys(&got, &PROMPTED, &["file_path", "event"]);
    assert_eq!(got["event"], "change");
}

/// InstructionsLoaded: the matcher is the load reason; loads at the
/// session's start and includes carry no prompt id; an exit 2 or a block
/// changes nothing (r3_instructions_loaded_matcher,
/// r3_instructions_loaded_exit2).
#[test]
fn r3_instructions_loaded_matchers_payloads_and_ignored_blocks() {
    let c = Claude::new();
    let start = c.hook("start", "--exit 2 --stderr 'IL_EXIT2_SENTINEL'");
    let include = c.hook(
        "include",
        r#"--stdout '{"hookSpecificOutput": {"hookEventName": "InstructionsLoaded", "additionalContext": "IL_CTX_SENTINEL"}, "decision": "block", "reason": "IL_BLOCK_SENTINEL"}'"#,
    );
    let glob = c.hook("glob", "");
    let c = c.project_settings(&json!({"hooks": {"InstructionsLoaded": [
        {"matcher": "session_start", "hooks": [{"type": "command", "command": start}]},
        {"matcher": "include", "hooks": [{"type": "command", "command": include}]},
        {"matcher": "path_glob_match", "hooks": [{"type": "command", "command": glob}]}]}}));
    let f = c.fire(&event(
        "instructions_loaded",
        json!({"prompt_id": "p1", "instructions": {"file_path": "/w/CLAUDE.md",
            "memory_type": "Project", "load_reason": "session_start"}}),
    ));
    assert_eq!(f.outcome["decision"], "proceed");
    for field in ["context", "notices", "reasons", "warnings"] {
        assert!(f.outcome.get(field).is_none(), "{field}: {}", f.outcome);
    }
    expect_keys(
        &c.wait_for("start"),
        &SESSION,
        &["file_path", "memory_type", "load_reason"],
    );
    let f = c.fire(&event(
        "instructions_loaded",
        json!({"prompt_id": "p1", "instructions": {"file_path": "/w/docs/extra.md",
            "memory_type": "Project", "load_reason": "include", "parent_file_path": "/w/CLAUDE.md"}}),
    ));
    assert_eq!(f.outcome["decision"], "proceed");
    assert!(f.outcome.get("context").is_none(), "{}", f.outcome);
    expect_keys(
        &c.wait_for("include"),
        &SESSION,
        &[
            "file_path",
            "memory_type",
            "load_reason",
            "parent_file_path",
        ],
    );
    assert_eq!(c.runs_of("glob"), 0);
}

/// StopFailure matchers: the exact name and a regex run, the other error
/// names do not (r3_stop_failure_matcher).
#[test]
fn r3_stop_failure_runs_only_the_groups_of_its_error() {
    let c = Claude::new();
    let names = [
        "rate_limit",
        "server_error",
        "overloaded",
        "unknown",
        "rate_.*",
    ];
    let labels = ["exact", "server", "overloaded", "unknown", "regex"];
    let groups: Vec<Value> = names
        .iter()
        .zip(labels)
        .map(|(m, l)| json!({"matcher": m, "hooks": [{"type": "command", "command": c.hook(l, "")}]}))
        .collect();
    let c = c.project_settings(&json!({"hooks": {"StopFailure": groups}}));
    c.fire(&event(
        "stop_failure",
        json!({"prompt_id": "p1", "error": "rate_limit", "last_assistant_message": "429"}),
    ));
    c.wait_for("exact");
    c.wait_for("regex");
    for l in ["server", "overloaded", "unknown"] {
        assert_eq!(c.runs_of(l), 0, "{l}");
    }
}

/// A Notification hook gets the message and its type, no title and no
/// permission mode (r3_notification_elicitation_nohook).
#[test]
fn r3_notification_payload_has_no_title_or_permission_mode() {
    let c = Claude::new();
    let rec = c.hook("rec", "");
    let idle = c.hook("idle", "");
    let c = c.project_settings(&json!({"hooks": {"Notification": [
        {"hooks": [{"type": "command", "command": rec}]},
        {"matcher": "idle_prompt", "hooks": [{"type": "command", "command": idle}]}]}}));
    c.fire(&event(
        "notification",
        json!({"prompt_id": "p1", "permission_mode": "bypassPermissions",
            "message": "Elicitation response for server \"srv\": cancel",
            "notification_type": "elicitation_response"}),
    ));
    let got = c.received("rec").expect("ran");
    expect_keys(&got, &PROMPTED, &["message", "notification_type"]);
    assert_eq!(got["notification_type"], "elicitation_response");
    assert_eq!(c.runs_of("idle"), 0);
}

/// A PermissionDenied hook gets the effort after the permission mode and
/// the classifier's reason verbatim; an answer without `retry` changes
/// nothing (r3_permission_denied_auto_46, r3_permission_denied_classifier).
#[test]
fn r3_permission_denied_carries_effort_and_the_reason_verbatim() {
    let c = Claude::new();
    let rec = c.hook("rec", "");
    let c = c.project_settings(&settings("PermissionDenied", None, &[&rec]));
    let reason = "[Irreversible Local Destruction] PD_REASON_SENTINEL rm -rf is destructive";
    let mut denied = bash_before("echo ran; rm -rf /tmp/nonexistent_dir_xyz; echo hi");
    denied["event"] = json!("permission_denied");
    denied["prompt_id"] = json!("p1");
    denied["permission_mode"] = json!("auto");
    denied["effort"] = json!("high");
    denied["reason"] = json!(reason);
    let f = c.fire(&denied);
    assert_eq!(f.outcome["decision"], "proceed", "{}", f.outcome);
    assert!(f.outcome.get("retry").is_none() && f.outcome.get("context").is_none());
    let got = c.received("rec").expect("ran");
    assert_eq!(
        crate::claude_util::keys(&got),
        [
            "session_id",
            "transcript_path",
            "cwd",
            "prompt_id",
            "permission_mode",
            "effort",
            "hook_event_name",
            "tool_name",
            "tool_input",
            "tool_use_id",
            "reason"
        ]
    );
    assert_eq!(got["permission_mode"], "auto");
    assert_eq!(got["effort"], json!({"level": "high"}));
    assert_eq!(got["reason"], reason);
}

/// A Stop reason reaches the model as given, blank lines and all, after
/// `Stop hook feedback:\n` (r5_stop_reason_whitespace).
#[test]
fn r5_a_stop_reason_is_not_trimmed() {
    let c = Claude::new();
    let block = c.hook(
        "block",
        r#"--once --stdout '{"decision": "block", "reason": "\n\nREASON_SENTINEL line\n\n"}'"#,
    );
    let c = c.project_settings(&settings("Stop", None, &[&block]));
    let f = c.fire(&event("stop", json!({"prompt_id": "p1"})));
    assert_eq!(
        f.outcome["continuation"]["prompt"],
        crate::claude_util::stop_block_feedback("Stop", &block, "\n\nREASON_SENTINEL line\n\n"),
        "{}",
        f.outcome
    );
    c.fire(&event("stop", json!({"prompt_id": "p1"})));
    assert_eq!(c.received("block").expect("ran")["stop_hook_active"], true);
}

/// The settings files' `env` reaches every hook, the most specific file
/// winning (r5_settings_env_in_hooks).
#[test]
fn r5_settings_env_reaches_hooks() {
    let c = Claude::new();
    let dump = "echo \"$LATCH_REC_ENV|$FROM_USER|$BAD\" > \"$HOOK_DIR/env-$1.txt\"";
    let pre = format!("sh -c '{dump}' - pre");
    let start = format!("sh -c '{dump}' - start");
    let c = c
        .user_settings(&json!({"env": {"LATCH_REC_ENV": "from_user", "FROM_USER": "u"}}))
        .project_settings(&json!({
            "env": {"LATCH_REC_ENV": "from_settings", "BAD": 3},
            "hooks": {
                "PreToolUse": [{"hooks": [{"type": "command", "command": pre}]}],
                "SessionStart": [{"hooks": [{"type": "command", "command": start}]}]}}));
    let f = c.fire(&bash_before("ls"));
    c.fire(&event("session_start", json!({"source": "startup"})));
    for hook in ["pre", "start"] {
        let seen = std::fs::read_to_string(c.hook_dir().join(format!("env-{hook}.txt"))).unwrap();
        // A number is set as its text (`z.coerce.string()`; r13_settings_env_nonstring).
        assert_eq!(seen.trim(), "from_settings|u|3", "{hook}");
    }
    assert!(!f.stderr.contains("env.BAD"), "{}", f.stderr);
}

/// A plugin's data directory is made when one of its hooks starts, not
/// before (r5_plugin_data_dir, r5_plugin_data_dir_unfired,
/// r5_plugin_data_dir_nohooks).
#[test]
fn r5_the_plugin_data_directory_is_made_as_a_hook_starts() {
    let c = Claude::new();
    let check =
        r#"test -d "$CLAUDE_PLUGIN_DATA" && echo "$CLAUDE_PLUGIN_DATA" > "$HOOK_DIR/data.txt""#;
    let c = c.plugin(
        "dataplug",
        &json!({"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": check}]}]}}),
    );
    let data = c.home().join(".claude/plugins/data/dataplug-inline");
    // A hook that does not fire makes nothing.
    c.fire(&bash_before("ls"));
    assert!(!c.home().join(".claude/plugins").exists());
    let mut write = bash_before("x");
    write["tool"] = json!({"name": "Write", "input": {"file_path": "a", "content": "b"}});
    c.fire(&write);
    let seen = std::fs::read_to_string(c.hook_dir().join("data.txt")).expect("the hook saw it");
    assert_eq!(seen.trim(), data.display().to_string());
}

/// Every recording in `recordings/claude/` is named by a test whose
/// expectations come from it, or is listed here: covered by a test under
/// another name, or about what Claude Code's CLI or API client does
/// rather than its hooks.
#[test]
fn every_recording_is_named_by_a_test_or_said_not_to_apply() {
    // (case, the test that asserts it).
    const COVERED_AS: &[(&str, &str)] = &[
        (
            "r3_compact_outputs",
            "r3_effort_compaction_and_the_compact_session_start",
        ),
        (
            "r3_deny_json_no_reason",
            "r3_a_deny_without_a_reason_is_blocked_by_hook",
        ),
        (
            "r3_elicitation",
            "elicitation_display_and_permission_denied_answers_reach_the_outcome",
        ),
        (
            "r3_elicitation_exit2",
            "a_declined_elicitation_stays_declined",
        ),
        (
            "r3_message_display",
            "elicitation_display_and_permission_denied_answers_reach_the_outcome",
        ),
        (
            "r3_post_tool_batch",
            "r3_post_tool_batch_payload_context_and_blocks",
        ),
        (
            "r3_instructions_loaded_ctx_only",
            "r3_instructions_loaded_hooks_are_not_waited_for",
        ),
        (
            "r3_instructions_loaded_slow_ctx",
            "r3_instructions_loaded_hooks_are_not_waited_for",
        ),
        (
            "r3_invalid_regex_matcher",
            "r3_an_invalid_regex_matcher_disables_only_its_group",
        ),
        (
            "r3_permission_denied_pre_allow",
            "p2_a_plain_allow_is_the_decision",
        ),
        (
            "r3_post_tool_batch_exit2",
            "r3_post_tool_batch_payload_context_and_blocks",
        ),
        (
            "r3_post_tool_batch_posttooluse_ctx_only",
            "e_post_tool_use_context_and_blocks_follow_the_tool_result",
        ),
        (
            "r3_post_tool_batch_two_contexts",
            "r3_post_tool_batch_of_one_call_and_two_contexts",
        ),
        (
            "r3_prompt_expansion_skill",
            "r3_user_prompt_expansion_is_user_prompt_submit_for_commands",
        ),
        (
            "r3_stop_failure_outputs",
            "r3_stop_failure_payload_and_matcher",
        ),
        (
            "r3_two_denies_exit2_rev",
            "r3_several_denies_show_the_model_only_the_last_to_finish",
        ),
        (
            "r4_bom_json",
            "r4_a_byte_order_mark_before_a_json_answer_is_trimmed_as_claude_code_trims",
        ),
        (
            "r4_decision_invalid",
            "r4_an_invalid_top_level_decision_drops_the_whole_answer",
        ),
        (
            "r4_dedup_sync_first",
            "r4_copies_are_the_same_command_and_if_and_the_last_copy_runs",
        ),
        (
            "r4_event_name_post",
            "r4_a_hook_specific_answer_must_name_its_event",
        ),
        ("r4_if_empty", "r4_an_empty_if_is_no_condition"),
        // An async answer is an attachment, placed as the batch text is.
        (
            "r12_mcp_list_async_answer",
            "r12_mcp_list_batch_ctx_message",
        ),
        (
            "r12_mcp_list_async_answer_batch",
            "r12_mcp_list_batch_ctx_message",
        ),
    ];
    // (case, why no latch test can hold it).
    const NOT_LATCH: &[(&str, &str)] = &[
        (
            "r11_rewake_exit0_ctx12k_stream",
            "Claude Code's stream-json input, where asyncRewake goes to the background; latch runs it as under -p (r11_rewake_exit2_stderr12k), as documented",
        ),
        (
            "r11_rewake_exit2_stderr12k_stream",
            "Claude Code's stream-json input, where asyncRewake goes to the background; latch runs it as under -p (r11_rewake_exit2_stderr12k), as documented",
        ),
        (
            "r8_interactive_missing_py",
            "what Claude Code's interactive screen draws; latch's texts are the outcome's, tested with the -p recordings",
        ),
        (
            "r8_interactive_nonblocking",
            "what Claude Code's interactive screen draws (the first line of the warning); the outcome has it whole",
        ),
        (
            "r8_interactive_nonblocking_edges",
            "what Claude Code's interactive screen draws; the outcome's warnings follow r8_nonblocking_text_edges",
        ),
        (
            "r8_interactive_post_ctx_sys",
            "what Claude Code's interactive screen draws (`PostToolUse:Bash says: SYS4`); the outcome's warnings carry the system message",
        ),
        (
            "r8_interactive_pre_invalid_json",
            "what Claude Code's interactive screen draws; the outcome's warning follows r8_exit2_json_pre_decision_deny",
        ),
        (
            "r6_async_first_line_sessionstart_init_only",
            "Claude Code's hidden --init-only flag, which latch has no equivalent of",
        ),
        (
            "r6_async_first_line_teardown",
            "the end of a -p run, which latch cannot see; a hook in the background runs until its limit (docs, where latch differs)",
        ),
        (
            "r7_async_teardown_control",
            "the end of a -p run, which latch cannot see; latch runs SessionEnd hooks (docs, where latch differs)",
        ),
        (
            "r7_async_teardown_ignores_term_at_once",
            "the SIGTERM and SIGKILL at the end of a -p run, which latch cannot see",
        ),
        (
            "r7_async_teardown_ignores_term_child_only",
            "the SIGTERM and SIGKILL at the end of a -p run, which latch cannot see",
        ),
        (
            "r7_clear_with_async_queued",
            "Claude Code's stream-json input dropping a message queued behind /clear",
        ),
        (
            "r3_config_change_env_control",
            "Claude Code's Bash tool seeing a changed env; latch gives settings' env to hooks (r5_settings_env_in_hooks), the harness runs its tools",
        ),
        (
            "r3_cwd_changed_slow",
            "latch waits for CwdChanged on purpose (docs, where latch differs)",
        ),
        (
            "r3_directory_added",
            "the CLI does not fire DirectoryAdded in -p",
        ),
        (
            "r3_directory_added_slash",
            "the CLI does not fire DirectoryAdded in -p",
        ),
        (
            "r3_notification_elicitation",
            "the harness decides whether a resolved elicitation also notifies",
        ),
        (
            "r3_permission_denied_auto",
            "the model's capability decides whether the event fires",
        ),
        (
            "r3_prompt_expansion_plain",
            "the harness fires prompt_expansion only for commands",
        ),
        ("r3_setup_init_only", "the CLI's flow after Setup"),
        (
            "r14i_control",
            "Claude Code's own window titles, not a hook's",
        ),
        (
            "r14i_ups_ts_osc9_st_kitty",
            "the terminal's form: latch gives the plain one, the harness adds kitty's (docs/outcome.md)",
        ),
        (
            "r14i_ups_ts_osc9_st_screen",
            "the terminal's form: latch gives the plain one, the harness adds screen's (docs/outcome.md)",
        ),
        (
            "r14i_ups_ts_osc9_st_tmux",
            "the terminal's form: latch gives the plain one, the harness adds tmux's (docs/outcome.md)",
        ),
        (
            "r14j_ss_clear_named",
            "`/clear NAME` titles the old session: the harness's own command",
        ),
        (
            "r14_ss_ium_block",
            "the harness sends the first user message as a prompt; its UserPromptSubmit is any prompt's",
        ),
        (
            "r14_ss_ium_stream",
            "where the harness puts the first user message among its prompts",
        ),
        ("r3_setup_none", "the harness decides when Setup fires"),
        (
            "r3_stop_failure_400",
            "the API client's error names; latch passes `error` on",
        ),
        (
            "r3_stop_failure_500",
            "the API client's error names; latch passes `error` on",
        ),
        (
            "r3_stop_failure_529",
            "the API client's error names; latch passes `error` on",
        ),
        (
            "r3_stop_failure_after_tool",
            "the harness fills last_assistant_message",
        ),
        ("r3_stop_failure_retries", "the API client's retries"),
        ("r3_stop_failure_sse", "the API client's stream errors"),
        (
            "r3_stop_failure_sse_nostart",
            "the API client's stream errors",
        ),
    ];
    let tests = crate::claude_util::test_sources("claude_recorded.rs", "every_recording_is_named");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let cases: Vec<String> = std::fs::read_dir(root.join("recordings/claude"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_dir())
        .map(|path| path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let unnamed = crate::claude_util::unnamed_cases(
        cases.iter().map(String::as_str),
        &tests,
        NOT_LATCH,
        COVERED_AS,
    );
    assert!(unnamed.is_empty(), "recordings no test names: {unnamed:?}");
}
