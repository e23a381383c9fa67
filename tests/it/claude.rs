//! The claude dialect against Claude Code's recorded behaviour: each test
//! names the recorded case (`peers/claude/cases/<case>`) its expectations
//! come from; `<cmd>` in a recorded text is the hook's command line.

use serde_json::{Value, json};

use crate::claude_util::{
    Claude, bash_after, bash_before, keys, settings, stop_block_feedback, stop_feedback, texts,
};
use crate::util::latch;

#[test]
fn a_payloads_have_the_recorded_fields_in_order() {
    let c = Claude::new();
    let pre = c.hook("pre", "");
    let post = c.hook("post", "");
    let c = c.project_settings(&json!({"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": pre}]}],
        "PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": post}]}]}}));
    let f = c.fire(&bash_before("echo hi"));
    assert_eq!(f.outcome["decision"], "proceed", "{}", f.stderr);
    let raw = c.received_raw("pre").expect("pre ran");
    assert!(
        raw.ends_with("}\n") && !raw.trim_end().contains('\n'),
        "compact one-line JSON plus newline: {raw:?}"
    );
    let got = c.received("pre").expect("pre ran");
    assert_eq!(
        keys(&got),
        [
            "session_id",
            "transcript_path",
            "cwd",
            "prompt_id",
            "permission_mode",
            "hook_event_name",
            "tool_name",
            "tool_input",
            "tool_use_id"
        ]
    );
    assert_eq!(got["hook_event_name"], "PreToolUse");
    assert_eq!(got["tool_input"], json!({"command": "echo hi"}));
    assert_eq!(got["permission_mode"], "bypassPermissions");
    let mut after = bash_after(
        "echo hi",
        json!({"stdout": "hi", "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false}),
    );
    after["tool"]["duration_ms"] = json!(12);
    c.fire(&after);
    let got = c.received("post").expect("post ran");
    assert_eq!(
        keys(&got),
        [
            "session_id",
            "transcript_path",
            "cwd",
            "prompt_id",
            "permission_mode",
            "hook_event_name",
            "tool_name",
            "tool_input",
            "tool_response",
            "tool_use_id",
            "duration_ms"
        ]
    );
    assert_eq!(got["tool_response"]["stdout"], "hi");
}

#[test]
fn b_exit_2_denies_with_the_command_and_stderr() {
    let c = Claude::new();
    let cmd = c.hook("pre", "--exit 2 --stderr 'blocked by test'");
    let c = c.project_settings(&settings("PreToolUse", Some("Bash"), &[&cmd]));
    let f = c.fire(&bash_before("ls"));
    assert_eq!(f.outcome["decision"], "deny");
    let want = format!("PreToolUse:Bash hook error: [{cmd}]: blocked by test");
    assert_eq!(texts(&f.outcome["notices"]), [want.as_str()]);
    assert_eq!(texts(&f.outcome["reasons"]), [want.as_str()]);
}

/// An exit 2 with a JSON answer on stdout: the answer is read first
/// (recorded: `r8_exit2_json_*`, 2.1.332). An invalid answer is ignored
/// and the exit blocks; a deny or block in the answer counts with its own
/// reason; an answer without a block of its own adds the stderr block,
/// before its context.
#[test]
fn r8_exit_2_reads_the_json_answer_first() {
    let deny = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "JSONREASON"}}"#;
    let allow = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "permissionDecisionReason": "JSONREASON"}}"#;
    let cases = [
        // (case, stdout, decision, the model's text)
        (
            "r8_exit2_json_pre_decision_deny",
            r#"{"decision": "deny"}"#,
            "deny",
            Some("[CMD]: STDERR".to_owned()),
        ),
        (
            "r8_exit2_json_pre_hso_deny",
            deny,
            "deny",
            Some("PreToolUse:Bash hook error: JSONREASON".to_owned()),
        ),
        (
            "r8_exit2_json_pre_toplevel_block",
            r#"{"decision": "block", "reason": "JSONREASON"}"#,
            "deny",
            Some("PreToolUse:Bash hook error: JSONREASON".to_owned()),
        ),
        (
            "r8_exit2_json_pre_hso_allow",
            allow,
            "deny",
            Some("[CMD]: STDERR".to_owned()),
        ),
        (
            "r8_exit2_json_pre_empty_obj",
            "{}",
            "deny",
            Some("[CMD]: STDERR".to_owned()),
        ),
    ];
    for (case, stdout, decision, text) in cases {
        let c = Claude::new();
        let cmd = c.hook(
            "pre",
            &format!("--stdout '{stdout}' --stderr STDERR --exit 2"),
        );
        let c = c.project_settings(&settings("PreToolUse", Some("Bash"), &[&cmd]));
        let f = c.fire(&bash_before("ls"));
        assert_eq!(f.outcome["decision"], decision, "{case}: {}", f.outcome);
        let want: Vec<String> = text
            .map(|t| {
                let t = t.replace("CMD", &cmd);
                if t.starts_with('[') {
                    format!("PreToolUse:Bash hook error: {t}")
                } else {
                    t
                }
            })
            .into_iter()
            .collect();
        assert_eq!(texts(&f.outcome["notices"]), want, "{case}");
    }

    // r8_exit2_json_post_ctx_sys: the stderr block, then the context; the
    // system message is the user's.
    let c = Claude::new();
    let out = r#"{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "CTX4"}, "systemMessage": "SYS4"}"#;
    let cmd = c.hook(
        "post",
        &format!("--stdout '{out}' --stderr STDERR4 --exit 2"),
    );
    let c = c.project_settings(&settings("PostToolUse", Some("Bash"), &[&cmd]));
    let f = c.fire(&bash_after("ls", json!({"stdout": "hi"})));
    assert_eq!(
        texts(&f.outcome["context"]),
        [
            format!(
                "<system-reminder>\nPostToolUse:Bash hook blocking error from command: \"{cmd}\": [{cmd}]: STDERR4\n</system-reminder>"
            ),
            "<system-reminder>\nPostToolUse:Bash hook additional context: CTX4\n</system-reminder>"
                .to_owned()
        ]
    );
    assert!(f.warnings_contain("SYS4"), "{}", f.outcome);
    assert_eq!(f.status(0), "blocked", "{}", f.outcome);

    // Stop: the answer's block and reason (r8_exit2_json_stop_block), an
    // invalid answer is ignored for the stderr block
    // (r8_exit2_json_stop_invalid), as a system message alone is
    // (r8_exit2_json_stop_sysmsg_only).
    let stop_cases = [
        (
            r#"{"decision": "block", "reason": "JSONREASON"}"#,
            Some(stop_block_feedback("Stop", "CMD", "JSONREASON")),
        ),
        // 2.1.332: an answer that fails the schema is ignored, and the exit
        // 2 keeps the agent going (2.1.197 ended the turn).
        (
            r#"{"decision": "deny"}"#,
            Some(stop_feedback("[CMD]: STDERR")),
        ),
        (
            r#"{"systemMessage": "SYS9"}"#,
            Some(stop_feedback("[CMD]: STDERR")),
        ),
    ];
    for (stdout, feedback) in stop_cases {
        let c = Claude::new();
        let cmd = c.hook(
            "stop",
            &format!("--stdout '{stdout}' --stderr STDERR --exit 2"),
        );
        let c = c.project_settings(&settings("Stop", None, &[&cmd]));
        let f = c.fire(&json!({"event": "stop", "session_id": "s1"}));
        assert_eq!(
            f.outcome["continuation"]["prompt"]
                .as_str()
                .map(str::to_owned),
            feedback.map(|t| t.replace("CMD", &cmd)),
            "{stdout}: {}",
            f.outcome
        );
    }
}

#[test]
fn c_a_json_deny_gives_the_model_the_reason_as_a_hook_error() {
    let c = Claude::new();
    let out = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no ls here"}}"#;
    let cmd = c.hook("pre", &format!("--stdout '{out}'"));
    let c = c.project_settings(&settings("PreToolUse", Some("Bash"), &[&cmd]));
    let f = c.fire(&bash_before("ls"));
    assert_eq!(f.outcome["decision"], "deny");
    // 2.1.332 (`c_pretooluse_deny_json`); 2.1.197 gave the reason alone.
    assert_eq!(
        texts(&f.outcome["notices"]),
        ["PreToolUse:Bash hook error: no ls here"]
    );
}

#[test]
fn c2_ask_is_its_own_decision_with_the_reason() {
    let c = Claude::new();
    let out = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "sure?"}}"#;
    let cmd = c.hook("pre", &format!("--stdout '{out}'"));
    let c = c.project_settings(&settings("PreToolUse", Some("Bash"), &[&cmd]));
    let f = c.fire(&bash_before("ls"));
    assert_eq!(f.outcome["decision"], "ask");
    assert_eq!(texts(&f.outcome["reasons"]), ["sure?"]);
}

#[test]
fn d_updated_input_rewrites_with_or_without_a_decision() {
    for out in [
        r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "echo rewritten"}}}"#,
        r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"command": "echo rewritten"}}}"#,
    ] {
        let c = Claude::new();
        let cmd = c.hook("pre", &format!("--stdout '{out}'"));
        let c = c.project_settings(&settings("PreToolUse", Some("Bash"), &[&cmd]));
        let f = c.fire(&bash_before("echo original"));
        assert_ne!(f.outcome["decision"], "deny", "{out}");
        assert_eq!(
            f.outcome["tool_input"],
            json!({"command": "echo rewritten"}),
            "{out}"
        );
    }
}

#[test]
fn e_post_tool_use_context_and_blocks_follow_the_tool_result() {
    let c = Claude::new();
    let ctx = c.hook("ctx", r#"--stdout '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "CTX"}}'"#);
    let block = c.hook(
        "block",
        r#"--stdout '{"decision": "block", "reason": "R"}'"#,
    );
    let exit2 = c.hook("exit2", "--exit 2 --stderr 'POSTEXIT2 stderr'");
    let c = c.project_settings(&settings(
        "PostToolUse",
        Some("Bash"),
        &[&ctx, &block, &exit2],
    ));
    let after = bash_after("echo hi", json!({"stdout": "hi"}));
    let f = c.fire(&after);
    assert_eq!(f.outcome["decision"], "proceed", "nothing stops (e2)");
    let mut got = texts(&f.outcome["context"]);
    got.sort_unstable();
    let mut want = vec![
        "<system-reminder>\nPostToolUse:Bash hook additional context: CTX\n</system-reminder>"
            .to_owned(),
        format!(
            "<system-reminder>\nPostToolUse:Bash hook blocking error from command: \"{block}\": R\n</system-reminder>"
        ),
        format!(
            "<system-reminder>\nPostToolUse:Bash hook blocking error from command: \"{exit2}\": [{exit2}]: POSTEXIT2 stderr\n</system-reminder>"
        ),
    ];
    want.sort_unstable();
    assert_eq!(got, want);
    // Claude Code 2.1.332 folds each into the tool's result (recorded:
    // `e_posttooluse_additional_context`, `e2_…`, `e3_…`).
    assert!(
        f.outcome["context"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["placement"] == "append_to_tool_result"),
        "{}",
        f.outcome
    );
}

#[test]
fn e3_a_failed_tool_fires_post_tool_use_failure_with_its_fields() {
    let c = Claude::new();
    let cmd = c.hook("fail", "");
    let c = c.project_settings(&settings("PostToolUseFailure", Some("Bash"), &[&cmd]));
    let mut ev = bash_before("exit 3");
    ev["event"] = json!("tool_failure");
    ev["tool"]["error"] = json!("Exit code 3");
    ev["tool"]["duration_ms"] = json!(5);
    c.fire(&ev);
    let got = c.received("fail").expect("ran");
    assert_eq!(
        keys(&got),
        [
            "session_id",
            "transcript_path",
            "cwd",
            "prompt_id",
            "permission_mode",
            "hook_event_name",
            "tool_name",
            "tool_input",
            "tool_use_id",
            "error",
            "is_interrupt",
            "duration_ms"
        ]
    );
    assert_eq!(got["error"], "Exit code 3");
    assert_eq!(got["is_interrupt"], false);
}

#[test]
fn f_user_prompt_submit_plain_and_json_context() {
    let c = Claude::new();
    let plain = c.hook("plain", "--stdout 'UPS plain stdout'");
    let js = c.hook("js", r#"--stdout '{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "UPS ctx"}}'"#);
    let c = c.project_settings(&settings("UserPromptSubmit", None, &[&plain, &js]));
    let f = c.fire(&json!({"event": "user_prompt", "session_id": "s1", "prompt": "say hello"}));
    let mut got = texts(&f.outcome["context"]);
    got.sort_unstable();
    assert_eq!(
        got,
        [
            "<system-reminder>\nUserPromptSubmit hook additional context: UPS ctx\n</system-reminder>",
            "<system-reminder>\nUserPromptSubmit hook success: UPS plain stdout\n</system-reminder>",
        ]
    );
    assert_eq!(keys(&c.received("plain").unwrap()).last(), Some(&"prompt"));
}

#[test]
fn f2_f3_a_blocked_prompt_tells_the_user_with_the_original_prompt() {
    let c = Claude::new();
    let cmd = c.hook("b", "--exit 2 --stderr 'no prompts'");
    let c = c.project_settings(&settings("UserPromptSubmit", None, &[&cmd]));
    let f = c.fire(&json!({"event": "user_prompt", "session_id": "s1", "prompt": "hi there"}));
    assert_eq!(f.outcome["decision"], "deny");
    let want = format!(
        "UserPromptSubmit operation blocked by hook:\n[{cmd}]: no prompts\n\nOriginal prompt: hi there"
    );
    assert_eq!(texts(&f.outcome["reasons"]), [want.as_str()]);
    assert!(
        f.outcome.get("notices").is_none(),
        "the model never sees the prompt"
    );

    let c = Claude::new();
    let cmd = c.hook("b", r#"--stdout '{"decision": "block", "reason": "R"}'"#);
    let c = c.project_settings(&settings("UserPromptSubmit", None, &[&cmd]));
    let f = c.fire(&json!({"event": "user_prompt", "session_id": "s1", "prompt": "hi there"}));
    assert_eq!(
        texts(&f.outcome["reasons"]),
        ["UserPromptSubmit operation blocked by hook:\nR\n\nOriginal prompt: hi there"]
    );
}

#[test]
fn g_g2_stop_blocks_continue_and_the_second_firing_is_active() {
    let c = Claude::new();
    let js = c.hook(
        "stop",
        r#"--once --stdout '{"decision": "block", "reason": "keep going"}'"#,
    );
    let c = c.project_settings(&settings("Stop", None, &[&js]));
    let stop = json!({"event": "stop", "session_id": "s1", "prompt_id": "p1", "last_assistant_message": "First final answer."});
    let f = c.fire(&stop);
    assert_eq!(
        f.outcome["continuation"]["prompt"],
        stop_block_feedback("Stop", &js, "keep going")
    );
    let first = c.received("stop").unwrap();
    assert_eq!(
        keys(&first),
        [
            "session_id",
            "transcript_path",
            "cwd",
            "prompt_id",
            "permission_mode",
            "hook_event_name",
            "stop_hook_active",
            "last_assistant_message",
            "background_tasks",
            "session_crons"
        ]
    );
    assert_eq!(first["stop_hook_active"], false);
    assert_eq!(first["last_assistant_message"], "First final answer.");
    let f = c.fire(&stop);
    assert!(f.outcome.get("continuation").is_none());
    assert_eq!(c.received("stop").unwrap()["stop_hook_active"], true);

    let c = Claude::new();
    let cmd = c.hook("stop", "--once --exit 2 --stderr 'more'");
    let c = c.project_settings(&settings("Stop", None, &[&cmd]));
    let f = c.fire(&stop);
    assert_eq!(
        f.outcome["continuation"]["prompt"],
        stop_feedback(&format!("[{cmd}]: more"))
    );
}

/// An exit 2 with nothing on stdout and `no such file` or `can't open` in
/// stderr is a missing script, not a block, on Stop (and SubagentStop,
/// TaskCompleted, TeammateIdle, and a plugin's UserPromptSubmit): the turn
/// ends, and the user is told (recorded: `r8_stop_missing_script_sh`,
/// `r8_stop_missing_script_py`; the rule reads only the text:
/// `r8_stop_fake_missing_text`, and any stdout makes it a block:
/// `r8_stop_fake_missing_text_stdout`).
#[test]
fn r8_a_missing_stop_script_does_not_keep_the_agent_going() {
    let c = Claude::new();
    let c = c.project_settings(&json!({"hooks": {
        "Stop": [{"hooks": [{"type": "command", "command": "sh /nonexistent/stop.sh"}]}],
        "PreToolUse": [{"hooks": [{"type": "command", "command": "sh /nonexistent/pre.sh"}]}]}}));
    let f = c.fire(&json!({"event": "stop", "session_id": "s1"}));
    assert!(f.outcome.get("continuation").is_none(), "{}", f.outcome);
    let warnings = f.outcome["warnings"].to_string();
    assert!(
        warnings.contains("Hook script appears to be missing — \\\"sh /nonexistent/stop.sh\\\" exited 2 with: sh: 0: cannot open /nonexistent/stop.sh: No such file. Treating as non-blocking. If this is a plugin hook, check the plugin install (run /plugin)."),
        "{warnings}"
    );
    // The text names the command once, and never when commands are hidden.
    assert!(
        warnings.contains("Stop hook error: Hook script appears to be missing"),
        "{warnings}"
    );
    let f = c.fire_with(
        &json!({"event": "stop", "session_id": "s2"}),
        &["--claude-hide-commands"],
    );
    let warnings = f.outcome["warnings"].to_string();
    assert!(
        warnings.contains("Hook script appears to be missing — exited 2 with: sh: 0: cannot open"),
        "{warnings}"
    );
    assert!(!warnings.contains("/nonexistent/stop.sh\\\""), "{warnings}");
    // Elsewhere the same exit 2 still blocks.
    let f = c.fire(&bash_before("ls"));
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);
    // A script that exists and says so is taken for a missing one too.
    let c = Claude::new();
    let c = c.project_settings(&json!({"hooks": {"Stop": [{"hooks": [{"type": "command",
        "command": "echo 'error: No such file here' >&2; exit 2"}]}]}}));
    let f = c.fire(&json!({"event": "stop", "session_id": "s1"}));
    assert!(f.outcome.get("continuation").is_none(), "{}", f.outcome);
    // With something on stdout it is no missing script.
    let c = Claude::new();
    let c = c.project_settings(&json!({"hooks": {"Stop": [{"hooks": [{"type": "command",
        "command": "echo working; echo 'No such file' >&2; exit 2"}]}]}}));
    let f = c.fire(&json!({"event": "stop", "session_id": "s1"}));
    assert!(f.outcome.get("continuation").is_some(), "{}", f.outcome);
}

/// The cap's warning is what Claude Code's interactive screen shows
/// (recorded: `r8_interactive_stop_cap`; `r8_interactive_stop_cap_2x`
/// with a cap of 2 says 3); a JSON block counts as an exit 2 does
/// (`r8_stop_block_no_tool_json`).
#[test]
fn o6_stop_blocks_are_capped_at_8_in_a_row() {
    let c = Claude::new();
    let cmd = c.hook("stop", "--exit 2 --stderr 'again'");
    let c = c.project_settings(&settings("Stop", None, &[&cmd]));
    let stop = json!({"event": "stop", "session_id": "s1"});
    for i in 0..8 {
        let f = c.fire(&stop);
        assert!(
            f.outcome.get("continuation").is_some(),
            "block {i} continues"
        );
    }
    let f = c.fire(&stop);
    assert!(
        f.outcome.get("continuation").is_none(),
        "the 9th block ends the turn"
    );
    assert_eq!(f.status(0), "ok", "no continuation: {}", f.outcome);
    assert!(
        f.outcome["warnings"]
            .to_string()
            .contains("A hook blocked the turn from ending 9 consecutive times\u{2014}overriding and ending turn. For Stop/SubagentStop hooks, check stop_hook_active in the input and return success while it's true. Set CLAUDE_CODE_STOP_HOOK_BLOCK_CAP to raise this limit."),
        "{}",
        f.outcome
    );
    // A prompt starts a new run of blocks.
    c.fire(&json!({"event": "user_prompt", "session_id": "s1", "prompt": "go"}));
    assert!(c.fire(&stop).outcome.get("continuation").is_some());

    // A JSON block counts the same (r8_stop_block_no_tool_json).
    let c = Claude::new();
    let cmd = c.hook(
        "json",
        r#"--stdout '{"decision": "block", "reason": "keep going"}'"#,
    );
    let c = c.project_settings(&settings("Stop", None, &[&cmd]));
    for _ in 0..8 {
        assert!(c.fire(&stop).outcome.get("continuation").is_some());
    }
    assert!(c.fire(&stop).outcome.get("continuation").is_none());
}

/// The cap counts Stop blocks with no tool call between them: a tool call
/// starts the count again, while `stop_hook_active` stays true for the
/// rest of the turn (recorded: `r8_stop_block_then_tool`, 14 blocks each
/// followed by a tool call all continue; `r8_stop_block_tool_once`, one
/// tool call after block 5, and the 9th block after it ends the turn;
/// `r8_stop_block_no_tool`, the 9th block in a row ends it).
#[test]
fn r8_a_tool_call_starts_the_stop_block_count_again() {
    let c = Claude::new();
    let stop = c.hook(
        "stop",
        r#"--stdout '{"decision": "block", "reason": "keep going"}'"#,
    );
    let c = c.project_settings(&settings("Stop", None, &[&stop]));
    let stop_event = json!({"event": "stop", "session_id": "s1"});
    for i in 0..14 {
        let f = c.fire(&stop_event);
        assert!(
            f.outcome.get("continuation").is_some(),
            "block {i}: {}",
            f.outcome
        );
        c.fire(&bash_before("echo n"));
        c.fire(&bash_after("echo n", json!({"stdout": "n"})));
    }
    assert_eq!(
        c.received("stop").expect("ran")["stop_hook_active"],
        true,
        "still active after tool calls"
    );

    // r8_stop_block_tool_once: 5 blocks, a tool call, then 9 more runs.
    let c = Claude::new();
    let stop = c.hook(
        "stop",
        r#"--stdout '{"decision": "block", "reason": "keep going"}'"#,
    );
    let c = c.project_settings(&settings("Stop", None, &[&stop]));
    for _ in 0..5 {
        assert!(c.fire(&stop_event).outcome.get("continuation").is_some());
    }
    // Only a PreToolUse: a denied call counts as a call too.
    c.fire(&bash_before("echo n"));
    for i in 0..8 {
        let f = c.fire(&stop_event);
        assert!(
            f.outcome.get("continuation").is_some(),
            "block {i}: {}",
            f.outcome
        );
    }
    let f = c.fire(&stop_event);
    assert!(f.outcome.get("continuation").is_none(), "{}", f.outcome);
    assert!(
        f.warnings_contain("A hook blocked the turn from ending 9 consecutive times"),
        "{}",
        f.outcome
    );
    assert_eq!(c.runs_of("stop"), 14);

    // A sub-agent's tool call starts its own count again, not the main
    // agent's.
    let c = Claude::new();
    let sub = c.hook("sub", "--exit 2 --stderr again");
    let c = c.project_settings(&settings("SubagentStop", None, &[&sub]));
    let sub_stop = json!({"event": "subagent_stop", "session_id": "s1", "agent_id": "a1", "agent_type": "Explore"});
    for _ in 0..8 {
        assert!(c.fire(&sub_stop).outcome.get("continuation").is_some());
    }
    c.fire(&bash_before("ls"));
    assert!(
        c.fire(&sub_stop).outcome.get("continuation").is_none(),
        "the main agent's call"
    );
    for _ in 0..8 {
        assert!(c.fire(&sub_stop).outcome.get("continuation").is_some());
    }
    let mut inside = bash_before("ls");
    inside["agent_id"] = json!("a1");
    inside["agent_type"] = json!("Explore");
    c.fire(&inside);
    assert!(
        c.fire(&sub_stop).outcome.get("continuation").is_some(),
        "its own call"
    );
}

#[test]
fn a_new_sessions_stop_and_prompt_that_raise_no_count_write_no_state() {
    // Resetting counters never raised changes nothing: no `state.json`
    // (whose write waits for the disk twice) for a session's first events.
    let c = Claude::new();
    let quiet = c.hook("stop", "");
    let c = c.project_settings(&settings("Stop", None, &[&quiet]));
    for event in [
        json!({"event": "stop", "session_id": "fresh"}),
        json!({"event": "user_prompt", "session_id": "fresh", "prompt": "hi"}),
        json!({"event": "stop", "session_id": "fresh"}),
    ] {
        let f = c.fire(&event);
        assert!(f.outcome.get("continuation").is_none(), "{}", f.outcome);
    }
    let state = c.root.path().join("state/sessions/fresh/state.json");
    assert!(!state.exists(), "{}", state.display());
    // A block raises the count: then the state is written.
    let blocking = c.hook("block", "--exit 2 --stderr 'again'");
    let c = c.project_settings(&settings("Stop", None, &[&blocking]));
    assert!(
        c.fire(&json!({"event": "stop", "session_id": "fresh"}))
            .outcome
            .get("continuation")
            .is_some()
    );
    assert!(state.is_file());
}

#[test]
fn the_stop_block_cap_comes_from_its_variable() {
    let c = Claude::new();
    let cmd = c.hook("stop", "--exit 2 --stderr 'again'");
    let c = c.project_settings(&settings("Stop", None, &[&cmd]));
    let fire = |session: &str, cap: &str| {
        c.fire_env(
            &json!({"event": "stop", "session_id": session}),
            &[("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", cap)],
        )
    };
    // 2: the third block in a row ends the turn (recorded: `r8_stop_cap_env_3`
    // ends at the 4th, `r8_stop_cap_env_2x` at the 3rd; `r8_stop_cap_env_zero`
    // and `r8_stop_cap_env_neg1` never end it).
    for _ in 0..2 {
        assert!(fire("two", "2").outcome.get("continuation").is_some());
    }
    let f = fire("two", "2");
    assert!(f.outcome.get("continuation").is_none(), "{}", f.outcome);
    assert!(
        f.warnings_contain("A hook blocked the turn from ending 3 consecutive times"),
        "{}",
        f.outcome
    );
    // r8_stop_cap_env_3: the fourth block in a row ends the turn.
    for _ in 0..3 {
        assert!(fire("three", "3").outcome.get("continuation").is_some());
    }
    assert!(fire("three", "3").outcome.get("continuation").is_none());
    // 0 or less: no cap, and no warning; empty: Claude Code's 8.
    for _ in 0..10 {
        assert!(fire("none", "0").outcome.get("continuation").is_some());
        let f = fire("minus", "-1");
        assert!(f.outcome.get("continuation").is_some());
        assert!(
            !f.stderr.contains("not a plain whole number"),
            "{}",
            f.stderr
        );
    }
    let f = fire("empty", "");
    assert!(f.outcome.get("continuation").is_some());
    assert!(
        !f.stderr.contains("not a plain whole number"),
        "{}",
        f.stderr
    );
    // Read as JavaScript's parseInt reads it, with a warning: `x` is no
    // number (8), `2x` is 2.
    let f = fire("bad", "x");
    assert!(
        f.stderr.contains(
            "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=\"x\" is not a plain whole number; read as Claude Code reads it: a cap of 8"
        ),
        "{}",
        f.stderr
    );
    for _ in 0..2 {
        assert!(fire("sloppy", " 2x").outcome.get("continuation").is_some());
    }
    let f = fire("sloppy", " 2x");
    assert!(f.outcome.get("continuation").is_none(), "{}", f.outcome);
    assert!(
        f.stderr
            .contains("read as Claude Code reads it: a cap of 2"),
        "{}",
        f.stderr
    );
}

#[test]
fn a_nul_in_the_session_id_is_an_invalid_event() {
    let c = Claude::new().project_settings(&settings("Stop", None, &["true"]));
    let f = c.fire(&json!({"event": "stop", "session_id": "nul\0x"}));
    assert_eq!(f.code, 3, "{}", f.stderr);
    assert!(
        f.stderr
            .contains("`session_id` must not contain a NUL character"),
        "{}",
        f.stderr
    );
}

#[test]
fn h_session_start_context_and_payloads() {
    let c = Claude::new();
    let js = c.hook("ss_json", r#"--stdout '{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "SS ctx"}}'"#);
    let plain = c.hook("ss_plain", "--stdout 'SS text'");
    let end = c.hook("end", "");
    let c = c.project_settings(&json!({"hooks": {
        "SessionStart": [{"hooks": [{"type": "command", "command": js}]},
                         {"matcher": "startup", "hooks": [{"type": "command", "command": plain}]}],
        "SessionEnd": [{"hooks": [{"type": "command", "command": end}]}]}}));
    let f = c.fire(&json!({"event": "session_start", "session_id": "s1", "source": "startup"}));
    let mut got = texts(&f.outcome["context"]);
    got.sort_unstable();
    assert_eq!(
        got,
        [
            "<system-reminder>\nSessionStart hook additional context: SS ctx\n</system-reminder>",
            "<system-reminder>\nSessionStart:startup hook success: SS text\n</system-reminder>",
        ]
    );
    assert!(
        f.outcome["context"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["placement"] == "first_user_message")
    );
    assert_eq!(
        keys(&c.received("ss_json").unwrap()),
        [
            "session_id",
            "transcript_path",
            "cwd",
            "hook_event_name",
            "source"
        ]
    );
    c.fire(
        &json!({"event": "session_end", "session_id": "s1", "prompt_id": "p1", "reason": "other"}),
    );
    assert_eq!(
        keys(&c.received("end").unwrap()),
        [
            "session_id",
            "transcript_path",
            "cwd",
            "prompt_id",
            "hook_event_name",
            "reason"
        ]
    );
}

#[test]
fn i_matching_handlers_run_at_the_same_time() {
    // Three handlers in two groups; each waits until all three have
    // started, so run one after another they would all time out.
    let c = Claude::new();
    let dir = c.hook_dir().display().to_string();
    let wait = |n: &str| {
        format!(
            "touch {dir}/started.{n}; for i in $(seq 100); do [ $(ls {dir} | grep -c started) -ge 3 ] && exit 0; sleep 0.05; done; exit 1"
        )
    };
    let c = c.project_settings(&json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": wait("a")}, {"type": "command", "command": wait("b")}]},
        {"matcher": "Ba.*", "hooks": [{"type": "command", "command": wait("c")}]}]}}));
    let f = c.fire(&bash_before("ls"));
    let codes: Vec<&Value> = f.runs().iter().map(|r| &r["exit_code"]).collect();
    assert_eq!(codes, [&json!(0), &json!(0), &json!(0)], "{}", f.outcome);
}

#[test]
fn i2_an_identical_command_runs_once_across_groups_and_files() {
    let c = Claude::new();
    let cmd = c.hook("same", "");
    let group = |m: &str| json!({"matcher": m, "hooks": [{"type": "command", "command": cmd}]});
    let mut timed = group("Bash");
    timed["hooks"][0]["timeout"] = json!(30);
    let c = c
        .project_settings(&json!({"hooks": {"PreToolUse": [group("Bash"), group("Ba.*"), timed, group("Bash"), group("*")]}}))
        .user_settings(&json!({"hooks": {"PreToolUse": [group("Bash")]}}));
    let f = c.fire(&bash_before("ls"));
    assert_eq!(c.runs_of("same"), 1);
    let skipped = f.runs().iter().filter(|r| r["status"] == "skipped").count();
    assert_eq!(
        skipped, 5,
        "the copies are recorded as skipped: {}",
        f.outcome
    );
}

/// Read from Claude Code's 2.1.197 code: handlers other than commands are
/// copies only with the same `if` too, and a `powershell` command is not a
/// copy of the same text run by the default shell.
#[test]
fn the_if_and_the_shell_tell_copies_apart_for_every_handler_type() {
    // r8_dedup_if_diff, r8_dedup_if_diff_rev: the same command in two
    // files with different `if`s are two handlers, each checked;
    // r8_dedup_if_same: with the same `if`, one.
    for (user_if, runs) in [("Bash(ls *)", 1), ("Bash(echo *)", 1)] {
        let c = Claude::new();
        let cmd = c.hook("h", "");
        c.write(
            "home/.claude/settings.json",
            &json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": cmd, "if": user_if}]}]}})
                .to_string(),
        );
        let c = c.project_settings(
            &json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": cmd, "if": "Bash(echo *)"}]}]}}),
        );
        let f = c.fire(&bash_before("echo hi"));
        assert_eq!(c.runs_of("h"), runs, "{user_if}: {}", f.outcome);
        let skipped_as_copy = f.runs().iter().any(|r| {
            r["message"] == "a later handler of this event is a copy of it; Claude Code runs only the last copy"
        });
        assert_eq!(skipped_as_copy, user_if == "Bash(echo *)", "{}", f.outcome);
    }

    let stub = crate::claude_util::HttpStub::start(vec![("/h", 200, "")]);
    let url = stub.url("/h");
    let c = Claude::new();
    let plain = c.hook("plain", "");
    let c = c.project_settings(
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "http", "url": url, "if": "Bash(ls *)"},
        {"type": "http", "url": url},
        {"type": "http", "url": url, "if": ""},
        {"type": "command", "command": plain, "shell": "powershell"},
        {"type": "command", "command": plain}]}]}}),
    );
    let f = c.fire(&bash_before("ls -l"));
    // The URL with an `if`, and once without (no `if` and `""` are one).
    assert_eq!(stub.requests().len(), 2, "{}", f.outcome);
    let copies = f
        .runs()
        .iter()
        .filter(|r| r["message"] == "a later handler of this event is a copy of it; Claude Code runs only the last copy")
        .count();
    assert_eq!(copies, 1, "{}", f.outcome);
    assert_eq!(c.runs_of("plain"), 1, "the default shell's copy ran");
}

#[test]
fn r4_copies_are_the_same_command_and_if_and_the_last_copy_runs() {
    // r4_dedup_identity: `async` and `shell` do not tell copies apart;
    // `if`, and shell form against exec form, do.
    let c = Claude::new();
    let one = |label: &str| c.hook(label, "");
    let (merged_async, merged_shell, by_if) = (one("async"), one("shell"), one("if"));
    let exec_line = c.hook("exec", "");
    let (program, rest) = exec_line
        .split_once(' ')
        .expect("a program and its arguments");
    let args: Vec<&str> = rest.split(' ').collect();
    let c = c.project_settings(
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": merged_async, "async": true},
        {"type": "command", "command": merged_async},
        {"type": "command", "command": merged_shell},
        {"type": "command", "command": merged_shell, "shell": "bash"},
        {"type": "command", "command": by_if, "if": "Bash(ls:*)"},
        {"type": "command", "command": by_if, "if": "Bash(ls *)"},
        {"type": "command", "command": exec_line},
        {"type": "command", "command": program, "args": args}]}]}}),
    );
    c.fire(&bash_before("ls"));
    assert_eq!(c.runs_of("async"), 1);
    assert_eq!(c.runs_of("shell"), 1);
    assert_eq!(c.runs_of("if"), 2);
    assert_eq!(c.runs_of("exec"), 2);

    // r4_dedup_exec_args: exec-form handlers are copies when their `args`
    // are the same too; differing `args` run each, the last copy denies.
    let c = Claude::new();
    let line = |label: &str, more: &str| -> (String, Vec<String>) {
        let line = c.hook(label, more);
        let (program, rest) = line.split_once(' ').expect("a program and its arguments");
        (
            program.to_owned(),
            rest.split(' ').map(str::to_owned).collect(),
        )
    };
    let exec = |(program, args): (String, Vec<String>)| json!({"type": "command", "command": program, "args": args});
    let hooks = json!([
        exec(line("argsA", "")),
        exec(line("argsB", "")),
        exec(line("argsA", "")),
        exec(line("argsC", "")),
        exec(line("argsC", "--exit 2 --stderr CopyOfC")),
    ]);
    let c = c
        .project_settings(&json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": hooks}]}}));
    let f = c.fire(&bash_before("ls"));
    assert_eq!(c.runs_of("argsA"), 1);
    assert_eq!(c.runs_of("argsB"), 1);
    assert_eq!(c.runs_of("argsC"), 2);
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);

    // r4_dedup_async_first / _sync_first: the last copy runs, with its
    // own `async`.
    for (async_first, decision) in [(true, "deny"), (false, "proceed")] {
        let c = Claude::new();
        let deny = c.hook("deny", "--exit 2 --stderr DEDUP_DENY");
        let background = json!({"type": "command", "command": deny, "async": true});
        let waited = json!({"type": "command", "command": deny});
        let hooks = if async_first {
            json!([background, waited])
        } else {
            json!([waited, background])
        };
        let c = c.project_settings(
            &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": hooks}]}}),
        );
        let f = c.fire(&bash_before("ls"));
        assert_eq!(f.outcome["decision"], decision, "{}", f.outcome);
        assert!(
            f.runs().iter().any(|r| r["message"]
                == "a later handler of this event is a copy of it; Claude Code runs only the last copy"),
            "{}",
            f.outcome
        );
    }
}

#[test]
fn explain_skips_an_identical_handler_as_fire_does() {
    let c = Claude::new().project_settings(&json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo b"}]},
        {"matcher": "Ba.*", "hooks": [{"type": "command", "command": "echo b"}]}]}}));
    let list = c.explain(&bash_before("ls"), &[]);
    let runs: Vec<bool> = list.iter().map(|e| e["runs"].as_bool().unwrap()).collect();
    // Those that would run come first: the second copy, then the first.
    assert_eq!(runs, [true, false], "{list:?}");
    assert!(
        list[1]["reason"].as_str().unwrap().ends_with(
            "a later handler of this event is a copy of it; Claude Code runs only the last copy"
        ),
        "{list:?}"
    );
    // `latch fire` runs the second copy and skips the first.
    let f = c.fire(&bash_before("ls"));
    let status_at = |column: &Value| {
        f.runs()
            .iter()
            .find(|r| r["source"]["column"] == *column)
            .map(|r| r["status"].clone())
    };
    assert_eq!(status_at(&list[0]["source"]["column"]), Some(json!("ok")));
    assert_eq!(
        status_at(&list[1]["source"]["column"]),
        Some(json!("skipped"))
    );
}

#[test]
fn j_k_m_failures_and_plain_output_tell_the_model_nothing() {
    let c = Claude::new();
    // Its message says "timed out", but latch did not stop it.
    let exit1 = c.hook("e1", "--exit 1 --stderr 'oops: the build timed out'");
    let json_bad = c.hook("bad", "--stdout '{not json'");
    let plain = c.hook("plain", "--stdout 'just text'");
    let slow = format!("{}; exit 2", c.hook("slow", "--sleep 5"));
    let c = c.project_settings(
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": exit1},
        {"type": "command", "command": json_bad},
        {"type": "command", "command": plain},
        {"type": "command", "command": slow, "timeout": 1}]}]}}),
    );
    let f = c.fire(&bash_before("ls"));
    assert_eq!(f.outcome["decision"], "proceed", "{}", f.outcome);
    for key in ["notices", "context", "reasons"] {
        assert!(f.outcome.get(key).is_none(), "{key}: {}", f.outcome);
    }
    let statuses: Vec<&str> = f
        .runs()
        .iter()
        .map(|r| r["status"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(statuses, ["failed", "ok", "ok", "failed"]);
    assert_eq!(f.runs()[0]["error"], "command_error", "{}", f.outcome);
    assert_eq!(f.runs()[3]["error"], "timeout");

    // The user reads the whole stderr, trimmed, or `No stderr output`;
    // stdout is never part of it (recorded: `r8_nonblocking_text`,
    // `r8_nonblocking_text_edges`, `r8_nonblocking_text_json`).
    let c = Claude::new();
    let lines = c.hook("lines", "--exit 1 --stdout OUT_TEXT --stderr '  L1\nL2  '");
    let quiet = c.hook("quiet", "--exit 3");
    let c = c.project_settings(
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": lines},
        {"type": "command", "command": quiet}]}]}}),
    );
    let f = c.fire(&bash_before("ls"));
    let warnings = f.outcome["warnings"].to_string();
    assert!(
        warnings.contains("Failed with non-blocking status code: L1\\nL2\""),
        "{warnings}"
    );
    assert!(
        warnings.contains("Failed with non-blocking status code: No stderr output"),
        "{warnings}"
    );
}

#[test]
fn l_matcher_forms_fire_as_recorded() {
    let fired = [
        "Bash",
        "Ba.*",
        "^Bash$",
        "a.h",
        "B.sh",
        "Bash|Write",
        "Bash,Write",
        "Bash | Write",
        " Bash ",
        "*",
        "",
    ];
    let not_fired = ["bash", "Bas", "Edit|Write", "Write"];
    let c = Claude::new();
    let mut groups: Vec<Value> = Vec::new();
    for (i, m) in fired.iter().chain(not_fired.iter()).enumerate() {
        groups.push(json!({"matcher": m, "hooks": [{"type": "command", "command": c.hook(&format!("m{i}"), "")}]}));
    }
    groups.push(json!({"hooks": [{"type": "command", "command": c.hook("missing", "")}]}));
    let c = c.project_settings(&json!({"hooks": {"PreToolUse": groups}}));
    c.fire(&bash_before("ls"));
    for (i, m) in fired.iter().enumerate() {
        assert_eq!(c.runs_of(&format!("m{i}")), 1, "{m:?} fires for Bash");
    }
    for (i, m) in not_fired.iter().enumerate() {
        assert_eq!(
            c.runs_of(&format!("m{}", i + fired.len())),
            0,
            "{m:?} does not fire for Bash"
        );
    }
    assert_eq!(c.runs_of("missing"), 1);
}

#[test]
fn n_hooks_run_under_bin_sh_in_the_project_with_claude_variables() {
    let c = Claude::new();
    let dir = c.hook_dir().display().to_string();
    let cmd = format!(
        "echo \"$0|$CLAUDE_PROJECT_DIR|$CLAUDECODE|$CLAUDE_CODE_SESSION_ID|$(pwd)\" > {dir}/env.txt"
    );
    let c = c.project_settings(&settings("PreToolUse", None, &[&cmd]));
    c.fire(&bash_before("ls"));
    let project = c.project().display().to_string();
    assert_eq!(
        std::fs::read_to_string(c.hook_dir().join("env.txt"))
            .unwrap()
            .trim(),
        format!("/bin/sh|{project}|1|s1|{project}")
    );
}

#[test]
fn o_o3_deny_wins_over_allow_and_exit_2_over_json() {
    let c = Claude::new();
    let allow = c.hook("allow", r#"--stdout '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "echo changed"}}}'"#);
    let deny = c.hook("deny", r#"--sleep 0.2 --stdout '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "DENY"}}'"#);
    let both = c.hook("both", r#"--exit 2 --stderr 'E2' --stdout '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}'"#);
    let c = c.project_settings(&settings("PreToolUse", Some("Bash"), &[&allow, &deny]));
    let f = c.fire(&bash_before("ls"));
    assert_eq!(f.outcome["decision"], "deny");
    assert!(
        f.outcome.get("tool_input").is_none(),
        "the allow's rewrite is not applied"
    );
    assert_eq!(
        texts(&f.outcome["notices"]),
        ["PreToolUse:Bash hook error: DENY"]
    );
    let c = Claude::new().project_settings(&settings("PreToolUse", Some("Bash"), &[&both]));
    let f = c.fire(&bash_before("ls"));
    assert_eq!(f.outcome["decision"], "deny");
    assert_eq!(
        texts(&f.outcome["notices"]),
        [format!("PreToolUse:Bash hook error: [{both}]: E2").as_str()]
    );
}

#[test]
fn o2_several_rewrites_resolve_by_configuration_order() {
    // Claude Code keeps the rewrite that finished last; latch keeps the
    // last in configuration order, whatever the timing (documented).
    for (first_sleeps, second_sleeps) in [("0.3", "0"), ("0", "0.3")] {
        let c = Claude::new();
        let a = c.hook("a", &format!(r#"--sleep {first_sleeps} --stdout '{{"hookSpecificOutput": {{"hookEventName": "PreToolUse", "updatedInput": {{"command": "echo A"}}}}}}'"#));
        let b = c.hook("b", &format!(r#"--sleep {second_sleeps} --stdout '{{"hookSpecificOutput": {{"hookEventName": "PreToolUse", "updatedInput": {{"command": "echo B"}}}}}}'"#));
        let c = c.project_settings(&settings("PreToolUse", Some("Bash"), &[&a, &b]));
        let f = c.fire(&bash_before("ls"));
        assert_eq!(f.outcome["tool_input"], json!({"command": "echo B"}));
    }
}

#[test]
fn o4_continue_false_halts_after_the_tool_runs() {
    let c = Claude::new();
    let cmd = c.hook(
        "pre",
        r#"--stdout '{"continue": false, "stopReason": "S"}'"#,
    );
    let c = c.project_settings(&settings("PreToolUse", Some("Bash"), &[&cmd]));
    let f = c.fire(&bash_before("ls"));
    assert_eq!(f.outcome["decision"], "proceed", "the tool still runs");
    assert_eq!(f.outcome["halt"]["reason"], "S");
    assert!(
        f.outcome.get("notices").is_none() && f.outcome.get("context").is_none(),
        "S is never sent to the model"
    );
}

#[test]
fn o5_system_message_is_for_the_user_only() {
    let c = Claude::new();
    let cmd = c.hook(
        "pre",
        r#"--stdout '{"systemMessage": "SYS", "suppressOutput": true}'"#,
    );
    let c = c.project_settings(&settings("PreToolUse", Some("Bash"), &[&cmd]));
    let f = c.fire(&bash_before("ls"));
    assert_eq!(f.outcome["warnings"], json!(["SYS"]));
    assert!(f.outcome.get("context").is_none());
}

#[test]
fn o7_stop_and_prompt_matchers_are_ignored_session_start_matches_the_source() {
    let c = Claude::new();
    let stop = c.hook("stop", "");
    let ups = c.hook("ups", "");
    let resume = c.hook("resume", "");
    let startup = c.hook("startup", "");
    let c = c.project_settings(&json!({"hooks": {
        "Stop": [{"matcher": "NoSuchTool", "hooks": [{"type": "command", "command": stop}]}],
        "UserPromptSubmit": [{"matcher": "NoSuchTool", "hooks": [{"type": "command", "command": ups}]}],
        "SessionStart": [{"matcher": "resume", "hooks": [{"type": "command", "command": resume}]},
                         {"matcher": "startup|clear", "hooks": [{"type": "command", "command": startup}]}]}}));
    c.fire(&json!({"event": "stop", "session_id": "s1"}));
    c.fire(&json!({"event": "user_prompt", "session_id": "s1", "prompt": "x"}));
    c.fire(&json!({"event": "session_start", "session_id": "s2", "source": "startup"}));
    assert_eq!(
        (
            c.runs_of("stop"),
            c.runs_of("ups"),
            c.runs_of("resume"),
            c.runs_of("startup")
        ),
        (1, 1, 0, 1)
    );
}

#[test]
fn r2_an_invalid_entry_drops_its_whole_file_loudly_and_the_others_still_run() {
    let c = Claude::new();
    let good = c.hook("good", "");
    let user = c.hook("user", "");
    let c = c.user_settings(&settings("PreToolUse", None, &[&user]));
    // r2_timeout_string: a string timeout next to valid hooks.
    c.write(
        "project/.claude/settings.json",
        &format!("{{\"hooks\": {{\"PreToolUse\": [{{\"hooks\": [\n  {{\"type\": \"command\", \"command\": \"{good}\"}},\n  {{\"type\": \"command\", \"command\": \"x\", \"timeout\": \"1\"}}]}}]}}}}"),
    );
    let f = c.fire(&bash_before("ls"));
    assert_eq!((c.runs_of("good"), c.runs_of("user")), (0, 1));
    let file = c
        .project()
        .join(".claude/settings.json")
        .display()
        .to_string();
    assert!(f.stderr.contains(&format!("{file}:3:")), "{}", f.stderr);
    assert!(
        f.stderr
            .contains("`timeout` must be a positive number of seconds, not a string"),
        "{}",
        f.stderr
    );
    assert!(
        f.stderr.contains("Claude Code ignores this whole file"),
        "{}",
        f.stderr
    );
    // r2_invalid_hook_entry: a handler without `command`.
    c.write("project/.claude/settings.json", &json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": good}, {"type": "command"}]}]}}).to_string());
    let f = c.fire(&bash_before("ls"));
    assert_eq!(c.runs_of("good"), 0);
    assert!(
        f.stderr.contains("the handler needs `command`"),
        "{}",
        f.stderr
    );
}

#[test]
fn r2_invalid_event_name_is_tolerated() {
    let c = Claude::new();
    let good = c.hook("good", "");
    let c = c.project_settings(&json!({"hooks": {
        "PreToolUze": [{"hooks": [{"type": "command", "command": "true"}]}],
        "PreToolUse": [{"hooks": [{"type": "command", "command": good}]}]}}));
    let f = c.fire(&bash_before("ls"));
    assert_eq!(c.runs_of("good"), 1);
    assert!(
        f.stderr.contains("unknown event `PreToolUze`"),
        "{}",
        f.stderr
    );
}

#[test]
fn r2_disable_all_hooks_follows_the_most_specific_file() {
    let cases = [
        // (user, project, local) disableAllHooks → whether hooks run
        (None, Some(true), None, false),
        (None, None, Some(true), false),
        (Some(true), Some(false), None, true),
        (Some(true), None, None, false),
    ];
    for (user, project, local, runs) in cases {
        let c = Claude::new();
        let hook = c.hook("h", "");
        let mut p = settings("PreToolUse", None, &[&hook]);
        if let Some(d) = project {
            p["disableAllHooks"] = json!(d);
        }
        let mut c = c.project_settings(&p);
        if let Some(d) = user {
            c = c.user_settings(&json!({"disableAllHooks": d}));
        }
        if let Some(d) = local {
            c = c.local_settings(&json!({"disableAllHooks": d}));
        }
        c.fire(&bash_before("ls"));
        assert_eq!(c.runs_of("h") == 1, runs, "{user:?} {project:?} {local:?}");
    }
}

#[test]
fn r2_settings_sources_all_run_and_an_identical_command_once() {
    let c = Claude::new();
    let same = c.hook("same", "");
    let hooks: Vec<String> = ["user", "project", "local", "flag"]
        .iter()
        .map(|l| c.hook(l, ""))
        .collect();
    let c = c
        .user_settings(&settings("UserPromptSubmit", None, &[&hooks[0], &same]))
        .project_settings(&settings("UserPromptSubmit", None, &[&hooks[1], &same]))
        .local_settings(&settings("UserPromptSubmit", None, &[&hooks[2], &same]));
    let flag = settings("UserPromptSubmit", None, &[&hooks[3], &same]).to_string();
    c.fire_with(
        &json!({"event": "user_prompt", "session_id": "s1", "prompt": "x"}),
        &["--claude-settings", &flag],
    );
    for l in ["user", "project", "local", "flag"] {
        assert_eq!(c.runs_of(l), 1, "{l}");
    }
    assert_eq!(c.runs_of("same"), 1);
}

#[test]
fn r2_exec_form_substitutes_only_braced_project_dir() {
    let c = Claude::new();
    let out = c.hook_dir().join("argv.txt").display().to_string();
    let c = c.project_settings(&json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command",
        "command": "sh", "args": ["-c", "printf '%s|' \"$@\" > \"$0\"", out, "${CLAUDE_PROJECT_DIR}", "$HOME", "${HOME}", "~", "*"]}]}]}}));
    c.fire(&bash_before("ls"));
    let project = c.project().display().to_string();
    assert_eq!(
        std::fs::read_to_string(c.hook_dir().join("argv.txt")).unwrap(),
        format!("{project}|$HOME|${{HOME}}|~|*|")
    );
}

#[test]
fn r2_exit_2_with_empty_stderr_says_no_stderr_output() {
    let c = Claude::new();
    let cmd = c.hook("pre", "--exit 2");
    let c = c.project_settings(&settings("PreToolUse", Some("Bash"), &[&cmd]));
    let f = c.fire(&bash_before("ls"));
    assert_eq!(
        texts(&f.outcome["notices"]),
        [format!("PreToolUse:Bash hook error: [{cmd}]: No stderr output").as_str()]
    );
}

/// Recorded (`r2_post_stop_exit2_empty_stderr`): on PostToolUse and Stop
/// too, exit 2 with nothing on stderr still blocks, with `No stderr
/// output` in Claude Code's words for each event.
#[test]
fn r2_post_and_stop_exit_2_with_empty_stderr_say_no_stderr_output() {
    let c = Claude::new();
    let post = c.hook("post", "--exit 2");
    let c = c.project_settings(&settings("PostToolUse", Some("Bash"), &[&post]));
    let after = bash_after("echo hi", json!({"stdout": "hi"}));
    let f = c.fire(&after);
    assert_eq!(
        texts(&f.outcome["context"]),
        [format!(
            "<system-reminder>\nPostToolUse:Bash hook blocking error from command: \"{post}\": [{post}]: No stderr output\n</system-reminder>"
        )
        .as_str()]
    );

    let c = Claude::new();
    let stop = c.hook("stop", "--once --exit 2");
    let c = c.project_settings(&settings("Stop", None, &[&stop]));
    let f = c.fire(&json!({"event": "stop", "session_id": "s1"}));
    assert_eq!(
        f.outcome["continuation"]["prompt"],
        stop_feedback(&format!("[{stop}]: No stderr output")),
        "{}",
        f.outcome
    );
}

/// Recorded (`p2`): a PreToolUse `allow` lets the tool run, and the
/// outcome says `allow`.
#[test]
fn p2_a_plain_allow_is_the_decision() {
    let c = Claude::new();
    let cmd = c.hook(
        "pre",
        r#"--stdout '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}'"#,
    );
    let c = c.project_settings(&settings("PreToolUse", Some("Bash"), &[&cmd]));
    let f = c.fire(&bash_before("ls"));
    assert_eq!(f.outcome["decision"], "allow", "{}", f.outcome);
}

#[test]
fn r2_defer_and_legacy_decisions() {
    for (out, decision) in [
        (
            r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "defer"}}"#,
            "defer",
        ),
        (r#"{"decision": "approve", "reason": "fine"}"#, "allow"),
        (r#"{"decision": "block", "reason": "LEGACY"}"#, "deny"),
    ] {
        let c = Claude::new();
        let cmd = c.hook("pre", &format!("--stdout '{out}'"));
        let c = c.project_settings(&settings("PreToolUse", Some("Bash"), &[&cmd]));
        let f = c.fire(&bash_before("ls"));
        assert_eq!(f.outcome["decision"], decision, "{out}");
        if decision == "deny" {
            assert_eq!(
                texts(&f.outcome["notices"]),
                ["PreToolUse:Bash hook error: LEGACY"]
            );
        }
    }
}

#[test]
fn r2_stop_additional_context_continues_and_continue_false_halts() {
    let c = Claude::new();
    let cmd = c.hook("stop", r#"--once --stdout '{"hookSpecificOutput": {"hookEventName": "Stop", "additionalContext": "CTX"}}'"#);
    let c = c.project_settings(&settings("Stop", None, &[&cmd]));
    let f = c.fire(&json!({"event": "stop", "session_id": "s1"}));
    assert_eq!(
        f.outcome["continuation"]["prompt"],
        "<system-reminder>\nStop hook additional context: CTX\n</system-reminder>"
    );
    // The loop went on: the next Stop is one a hook kept going.
    assert_eq!(c.received("stop").unwrap()["stop_hook_active"], false);
    let f = c.fire(&json!({"event": "stop", "session_id": "s1"}));
    assert!(f.outcome.get("continuation").is_none(), "{}", f.outcome);
    assert_eq!(c.received("stop").unwrap()["stop_hook_active"], true);

    let c = Claude::new();
    let cmd = c.hook("stop", r#"--stdout '{"continue": false, "stopReason": "done", "decision": "block", "reason": "more"}'"#);
    let c = c.project_settings(&settings("Stop", None, &[&cmd]));
    let f = c.fire(&json!({"event": "stop", "session_id": "s1"}));
    assert!(f.outcome.get("continuation").is_none());
    assert_eq!(f.outcome["halt"]["reason"], "done");
}

#[test]
fn r2_post_tool_use_failure_context_and_blocks() {
    let c = Claude::new();
    let ctx = c.hook("ctx", r#"--stdout '{"hookSpecificOutput": {"hookEventName": "PostToolUseFailure", "additionalContext": "CTX"}}'"#);
    let e2 = c.hook("e2", "--exit 2 --stderr 'ERR'");
    let c = c.project_settings(&settings("PostToolUseFailure", Some("Bash"), &[&ctx, &e2]));
    let mut ev = bash_before("exit 3");
    ev["event"] = json!("tool_failure");
    ev["tool"]["error"] = json!("Exit code 3");
    let f = c.fire(&ev);
    let mut got = texts(&f.outcome["context"]);
    got.sort_unstable();
    assert_eq!(
        got,
        [
            "<system-reminder>\nPostToolUseFailure:Bash hook additional context: CTX\n</system-reminder>".to_owned(),
            format!("<system-reminder>\nPostToolUseFailure:Bash hook blocking error from command: \"{e2}\": [{e2}]: ERR\n</system-reminder>"),
        ]
    );
}

#[test]
fn r2_updated_tool_output_needs_the_output_s_shape() {
    let cases = [
        (
            r#"{"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": {"stdout": "NEW", "stderr": "", "interrupted": false, "isImage": false}}}"#,
            Some("NEW"),
        ),
        (
            r#"{"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": "NEW"}}"#,
            None,
        ),
        // The model reads stderr too, trimmed, on its own line (recorded
        // tool results: `r3_cwd_changed`).
        (
            r#"{"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": {"stdout": "NEW", "stderr": "\nwarning: 3 redacted\n", "interrupted": false}}}"#,
            Some("NEW\nwarning: 3 redacted"),
        ),
        (
            r#"{"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": {"stdout": "", "stderr": "only stderr", "interrupted": false}}}"#,
            Some("only stderr"),
        ),
        (
            r#"{"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedMCPToolOutput": {"stdout": "NEW"}}}"#,
            None,
        ),
    ];
    let bash_output =
        json!({"stdout": "old", "stderr": "", "interrupted": false, "isImage": false});
    for (out, want) in cases {
        let c = Claude::new();
        let cmd = c.hook("post", &format!("--stdout '{out}'"));
        let c = c.project_settings(&settings("PostToolUse", Some("Bash"), &[&cmd]));
        // Bash's result is an object to Claude Code, even when the harness
        // gives it as text.
        for output in [bash_output.clone(), json!("old")] {
            let mut ev = bash_before("echo old");
            ev["event"] = json!("tool_after");
            ev["tool"]["output"] = output;
            let f = c.fire(&ev);
            assert_eq!(f.outcome["tool_output"].as_str(), want, "{out}");
        }
    }
    // Without the fields Bash's output must have, a replacement is ignored.
    for partial in [json!({"foo": 1}), json!({"stdout": "NEW"})] {
        let out = json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": partial}});
        let c = Claude::new();
        let cmd = c.hook("post", &format!("--stdout '{out}'"));
        let c = c.project_settings(&settings("PostToolUse", Some("Bash"), &[&cmd]));
        let mut ev = bash_before("echo old");
        ev["event"] = json!("tool_after");
        ev["tool"]["output"] = bash_output.clone();
        let f = c.fire(&ev);
        assert!(f.outcome.get("tool_output").is_none(), "{}", f.outcome);
        assert!(
            f.runs()[0]["ignored_fields"]
                .to_string()
                .contains("not the shape"),
            "{}",
            f.outcome
        );
    }
}

#[test]
fn r2_pre_tool_use_context_comes_after_the_result_even_with_a_deny() {
    let c = Claude::new();
    let cmd = c.hook("pre", r#"--stdout '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "R", "additionalContext": "CTX"}}'"#);
    let c = c.project_settings(&settings("PreToolUse", Some("Bash"), &[&cmd]));
    let f = c.fire(&bash_before("ls"));
    assert_eq!(f.outcome["decision"], "deny");
    assert_eq!(
        texts(&f.outcome["notices"]),
        ["PreToolUse:Bash hook error: R"]
    );
    assert_eq!(
        texts(&f.outcome["context"]),
        ["<system-reminder>\nPreToolUse:Bash hook additional context: CTX\n</system-reminder>"]
    );
}

#[test]
fn r2_plugins_get_their_variables_and_keep_their_own_copy() {
    let c = Claude::new();
    let same = c.hook("same", "");
    let dir = c.hook_dir().display().to_string();
    let env_cmd =
        format!("echo \"$CLAUDE_PLUGIN_ROOT|$CLAUDE_PLUGIN_DATA\" > {dir}/plugin-env.txt");
    let exec = json!({"type": "command", "command": "sh", "args": ["-c", "echo \"$1\" > \"$0\"", format!("{dir}/plugin-args.txt"), "${CLAUDE_PLUGIN_ROOT}/x"]});
    let c = c
        .project_settings(&json!({"hooks": {"PreToolUse": [{"hooks": [
            {"type": "command", "command": same},
            {"type": "command", "command": "echo '${CLAUDE_PLUGIN_ROOT}'"}]}]}}))
        .plugin(
            "guard",
            &json!({"hooks": {"PreToolUse": [{"hooks": [
            {"type": "command", "command": same},
            {"type": "command", "command": env_cmd},
            exec]}]}}),
        );
    let f = c.fire(&bash_before("ls"));
    assert_eq!(c.runs_of("same"), 2, "the plugin's copy runs too");
    let root = c.root.path().join("plugins/guard").display().to_string();
    let data = c
        .home()
        .join(".claude/plugins/data/guard-inline")
        .display()
        .to_string();
    assert_eq!(
        std::fs::read_to_string(c.hook_dir().join("plugin-env.txt"))
            .unwrap()
            .trim(),
        format!("{root}|{data}")
    );
    assert_eq!(
        std::fs::read_to_string(c.hook_dir().join("plugin-args.txt"))
            .unwrap()
            .trim(),
        format!("{root}/x")
    );
    assert!(
        f.outcome["warnings"].to_string().contains("Hook command references ${CLAUDE_PLUGIN_ROOT} but the hook is not associated with a plugin"),
        "{}",
        f.outcome
    );
}

#[test]
fn r2_once_is_ignored_in_settings() {
    let c = Claude::new();
    let cmd = c.hook("h", "");
    let c = c.project_settings(&json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": cmd, "once": true}]}]}}));
    c.fire(&bash_before("ls"));
    c.fire(&bash_before("ls"));
    assert_eq!(c.runs_of("h"), 2);
}

#[test]
fn hidden_commands_leave_the_command_line_out_of_model_texts() {
    let c = Claude::new();
    let cmd = c.hook("pre", "--exit 2 --stderr 'nope'");
    let c = c.project_settings(&settings("PreToolUse", Some("Bash"), &[&cmd]));
    let f = c.fire_with(&bash_before("ls"), &["--claude-hide-commands"]);
    assert_eq!(
        texts(&f.outcome["notices"]),
        ["PreToolUse:Bash hook error: nope"]
    );
}

mod http {
    use serde_json::{Value, json};

    use super::texts;
    use crate::claude_util::{Claude, HttpStub, bash_after, bash_before};

    fn http(url: &str) -> Value {
        json!({"type": "http", "url": url})
    }

    #[test]
    fn r2_http_pre_deny_posts_the_payload_and_expands_only_allowed_variables() {
        let stub = HttpStub::start(vec![(
            "/deny",
            200,
            r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "HTTP_DENY"}}"#,
        )]);
        let mut handler = http(&stub.url("/deny?x=1"));
        handler["headers"] = json!({"X-Literal": "literal-value", "Authorization": "Bearer $HOOK_TOKEN", "X-Braced": "${HOOK_TOKEN}", "X-Not-Allowed": "$SECRET_VAR",
            "X-Lower": "a$lowervar-b", "X-Lines": "${HOOK_LINES}"});
        handler["allowedEnvVars"] = json!(["HOOK_TOKEN", "HOOK_LINES", "lowervar"]);
        let c = Claude::new().project_settings(
            &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]}}),
        );
        let mut cmd = crate::util::latch();
        cmd.env("HOOK_TOKEN", "tok123")
            .env("SECRET_VAR", "secret")
            .env("lowervar", "LV")
            .env("HOOK_LINES", "a\r\nX-Evil: 1");
        let f = c.fire_cmd(cmd, &bash_before("ls"), &[]);
        assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);
        assert_eq!(
            texts(&f.outcome["notices"]),
            ["PreToolUse:Bash hook error: HTTP_DENY"]
        );
        let reqs = stub.requests();
        assert_eq!(reqs.len(), 1);
        assert_eq!(reqs[0].line, "POST /deny?x=1 HTTP/1.1");
        let header = |k: &str| {
            reqs[0]
                .headers
                .iter()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.as_str())
        };
        assert_eq!(header("content-type"), Some("application/json"));
        assert_eq!(header("accept"), Some("application/json, text/plain, */*"));
        assert_eq!(header("x-literal"), Some("literal-value"));
        assert_eq!(header("authorization"), Some("Bearer tok123"));
        assert_eq!(header("x-braced"), Some("tok123"));
        assert_eq!(header("x-not-allowed"), Some(""));
        // Read from Claude Code's code: only upper-case names expand, and
        // CR, LF and NUL are removed from the value.
        assert_eq!(header("x-lower"), Some("a$lowervar-b"));
        assert_eq!(header("x-lines"), Some("aX-Evil: 1"));
        assert_eq!(header("x-evil"), None);
        let body: Value = serde_json::from_str(&reqs[0].body).expect("JSON body");
        assert_eq!(body["hook_event_name"], "PreToolUse");
        assert_eq!(body["tool_input"], json!({"command": "ls"}));
        assert!(
            f.outcome["warnings"]
                .to_string()
                .contains("env var $SECRET_VAR not in allowedEnvVars")
        );
    }

    #[test]
    fn r2_http_errors_are_non_blocking_and_2xx_json_works_like_a_command() {
        let stub = HttpStub::start(vec![
            ("/empty", 200, ""),
            ("/text", 200, "ok"),
            (
                "/ctx",
                200,
                r#"{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "HTTP ctx"}}"#,
            ),
            (
                "/deny500",
                500,
                r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny"}}"#,
            ),
            (
                "/stop",
                200,
                r#"{"decision": "block", "reason": "HTTP stop"}"#,
            ),
            ("/slow", 200, ""),
        ]);
        // A port nothing listens on: bind one, then free it.
        let refused = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let mut slow = http(&stub.url("/slow"));
        slow["timeout"] = json!(1);
        let c = Claude::new().project_settings(&json!({"hooks": {
            "PreToolUse": [{"hooks": [http(&stub.url("/empty")), http(&stub.url("/text")), http(&stub.url("/nowhere")),
                                      http(&stub.url("/deny500")), http(&format!("http://127.0.0.1:{refused}/x")), slow]}],
            "PostToolUse": [{"hooks": [http(&stub.url("/ctx"))]}],
            "Stop": [{"hooks": [http(&stub.url("/stop"))]}],
            "SessionStart": [{"hooks": [http(&stub.url("/empty"))]}]}}));
        let f = c.fire(&bash_before("ls"));
        assert_eq!(f.outcome["decision"], "proceed", "{}", f.outcome);
        let statuses: Vec<&str> = f
            .runs()
            .iter()
            .map(|r| r["status"].as_str().unwrap())
            .collect();
        assert_eq!(
            statuses,
            ["ok", "failed", "failed", "failed", "failed", "failed"],
            "{}",
            f.outcome
        );
        // The slow endpoint ran out of time; the refused one did not.
        assert_eq!(f.runs()[5]["error"], "timeout", "{}", f.outcome);
        assert_eq!(f.runs()[4]["error"], "command_error", "{}", f.outcome);
        let warnings = f.outcome["warnings"].to_string();
        for w in [
            "HTTP hook must return JSON, but got non-JSON response body: ok",
            &format!("HTTP 404 from {}", stub.url("/nowhere")),
            &format!("HTTP 500 from {}", stub.url("/deny500")),
            &format!("connect ECONNREFUSED 127.0.0.1:{refused}"),
            "timed out",
        ] {
            assert!(warnings.contains(w), "{w}: {warnings}");
        }
        let after = bash_after("ls", json!({"stdout": ""}));
        let f = c.fire(&after);
        assert_eq!(
            texts(&f.outcome["context"]),
            [
                "<system-reminder>\nPostToolUse:Bash hook additional context: HTTP ctx\n</system-reminder>"
            ]
        );
        let f = c.fire(&json!({"event": "stop", "session_id": "s1"}));
        assert_eq!(
            f.outcome["continuation"]["prompt"],
            crate::claude_util::stop_block_feedback("Stop", &stub.url("/stop"), "HTTP stop")
        );
        let before = stub.requests().len();
        let f = c.fire(&json!({"event": "session_start", "session_id": "s1", "source": "startup"}));
        assert_eq!(
            stub.requests().len(),
            before,
            "SessionStart skips http handlers"
        );
        assert_eq!(f.runs()[0]["status"], "skipped");
        assert_eq!(
            f.runs()[0]["message"],
            "SessionStart does not run http handlers"
        );
    }

    /// r4_setup_http: Setup skips http handlers too; a command beside
    /// one still runs.
    #[test]
    fn r4_setup_skips_http_handlers() {
        let stub = HttpStub::start(vec![("/setup", 200, "{}")]);
        let c = Claude::new();
        let cmd = c.hook("setup_cmd", "");
        let c = c.project_settings(&json!({"hooks": {"Setup": [{"hooks": [
            {"type": "http", "url": stub.url("/setup")},
            {"type": "command", "command": cmd}]}]}}));
        let f = c.fire(&json!({"event": "setup", "session_id": "s1", "trigger": "init"}));
        assert!(stub.requests().is_empty(), "Setup skips http handlers");
        assert_eq!(c.runs_of("setup_cmd"), 1);
        let http = f
            .runs()
            .iter()
            .find(|r| r["status"] == "skipped")
            .expect("the http handler's record");
        assert_eq!(http["message"], "Setup does not run http handlers");
    }
}

#[test]
fn a_payload_is_compact_whatever_spacing_the_harness_used() {
    let c = Claude::new();
    let cmd = c.hook("pre", "");
    let c = c.project_settings(&settings("PreToolUse", None, &[&cmd]));
    let event = "{\"event\": \"tool_before\", \"session_id\": \"s1\", \"tool\": {\"name\": \"Bash\", \"input\": {\n  \"command\" : \"echo  'a  b'\" ,\n  \"n\": [1, 2]\n}}}";
    let out = crate::util::latch()
        .args(["fire", "--dialect", "claude", "--project"])
        .arg(c.project())
        .arg("--home")
        .arg(c.home())
        .arg("--state-dir")
        .arg(c.root.path().join("state"))
        .arg("--claude-managed-dir")
        .arg(c.root.path().join("managed"))
        .env("HOOK_DIR", c.hook_dir())
        .write_stdin(event)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let raw = c.received_raw("pre").unwrap();
    assert!(
        raw.contains(r#""tool_input":{"command":"echo  'a  b'","n":[1,2]},"#),
        "{raw}"
    );
    assert_eq!(raw.matches('\n').count(), 1, "one line: {raw:?}");
}

#[test]
fn the_example_plugin_asks_before_a_write_outside_the_project() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/claude");
    let state = tempfile::tempdir().unwrap();
    let fire = |event: &str| {
        let out = crate::util::latch()
            .args(["fire", "--dialect", "claude", "--project"])
            .arg(root.join("project"))
            .arg("--plugin-dir")
            .arg(root.join("plugins/careful"))
            .arg("--home")
            .arg(state.path())
            .arg("--state-dir")
            .arg(state.path().join("state"))
            .arg("--claude-managed-dir")
            .arg(state.path().join("none"))
            .arg("--event")
            .arg(root.join("events").join(event))
            .output()
            .unwrap();
        crate::util::Fired::from_output(&out)
    };
    let f = fire("write-outside.json");
    assert_eq!(f.outcome["decision"], "ask", "{}", f.outcome);
    assert_eq!(
        texts(&f.outcome["reasons"]),
        ["This writes outside the project."]
    );
    let f = fire("rm-rf.json");
    assert_eq!(f.outcome["decision"], "deny");
}

#[test]
fn lint_finds_claude_projects_and_their_mistakes() {
    let c = Claude::new().project_settings(&json!({"hooks": {
        "Stop": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "x", "if": "Bash(git *)"}]}],
        "PreToolUse": [{"hooks": [
            {"type": "command", "command": "python3 check.py", "args": []},
            {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/a.sh"},
            {"type": "command", "command": "exit 2\u{0}"}]}],
        "PostToolUze": []}}));
    let out = crate::util::latch()
        .arg("lint")
        .arg(c.project())
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    for needle in [
        "unknown event `PostToolUze`",
        "did you mean `PostToolUse`?",
        "`if: Bash(git *)` on Stop: Claude Code never runs a handler with `if` on an event without a tool",
        "Stop has no matcher target; Claude Code ignores the matcher `Bash`",
        "exec form (`args`) runs `python3 check.py` as one program name",
        "uses ${CLAUDE_PLUGIN_ROOT} or ${CLAUDE_PLUGIN_DATA} in a settings file",
        "the command contains a NUL character",
        "0 errors, 5 warnings, 1 note in 1 configuration",
    ] {
        assert!(text.contains(needle), "{needle}: {text}");
    }
    // A dropped file is an error, and lint says so: a wrong entry under a
    // guard event drops the file (Claude Code 2.1.332).
    c.write(
        "project/.claude/settings.json",
        r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command"}]}]}}"#,
    );
    let (code, text) = c.lint();
    assert!(
        text.contains("Claude Code ignores this whole file"),
        "{text}"
    );
    assert_ne!(code, Some(0));
}

/// Settings keys that bear on hooks and that latch does not apply are
/// named by `latch lint`, where they are, instead of passing unseen.
/// Two copies of real configurations gone wrong: a plugin's hooks file
/// without its `hooks` wrapper, and an `if` written on the matcher group.
/// Neither does what its author meant, and latch says so where it loads
/// them.
#[test]
fn a_hooks_file_without_its_wrapper_and_an_if_on_a_group_are_named() {
    let c = Claude::new();
    let pre = c.hook("pre", "--exit 2 --stderr no");
    let c = c
        .plugin(
            "flat",
            &json!({"PreToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": pre}]}]}),
        )
        .project_settings(&json!({"hooks": {"PreToolUse": [
            {"matcher": "Bash", "if": "Bash(git push:*)", "hooks": [{"type": "command", "command": "true"}]}]}}));
    let mut write = bash_before("x");
    write["tool"] = json!({"name": "Write", "input": {"file_path": "a", "content": "b"}});
    let f = c.fire(&write);
    assert_eq!(f.outcome["decision"], "proceed", "{}", f.outcome);
    assert_eq!(c.runs_of("pre"), 0);
    assert!(
        f.stderr.contains(
            "`PreToolUse` is at the top level, where no hook is read: events go under `hooks`"
        ),
        "{}",
        f.stderr
    );
    assert!(
        f.stderr
            .contains("`if` belongs on each handler: on a matcher group it is not read"),
        "{}",
        f.stderr
    );
}

#[test]
fn lint_names_the_settings_keys_latch_does_not_apply() {
    let c = Claude::new();
    c.write(
        "project/.claude/settings.json",
        "{\n  \"env\": {\"API_URL\": \"http://x\"},\n  \"enabledPlugins\": {\"careful@market\": true},\n  \"allowedHttpHookUrls\": [\"https://hooks.example.com/*\"],\n  \"httpHookAllowedEnvVars\": [\"TOKEN\"],\n  \"strictPluginOnlyCustomization\": [\"hooks\"],\n  \"hooks\": {}\n}\n",
    );
    let (code, text) = c.lint();
    // Warnings alone: the lint passes.
    assert_eq!(code, Some(0), "{text}");
    let file = c.project().join(".claude/settings.json");
    for (line, needle) in [
        (
            3,
            "`enabledPlugins`: latch loads the plugins given with `--plugin-dir`",
        ),
        (
            4,
            "`allowedHttpHookUrls`: latch does not apply it, so `http` handlers are not restricted by it",
        ),
        (5, "`httpHookAllowedEnvVars`: latch does not apply it"),
        (
            6,
            "`strictPluginOnlyCustomization`: latch does not apply it, so hooks from settings files still run",
        ),
    ] {
        assert!(text.contains(needle), "{needle}: {text}");
        assert!(
            text.contains(&format!("{}:{line}:", file.display())),
            "line {line}: {text}"
        );
    }
    assert!(text.contains("0 errors, 3 warnings, 1 note"), "{text}");
}

#[test]
fn r2_async_hooks_do_not_hold_the_event_and_speak_with_the_next_tool_result() {
    let c = Claude::new();
    let post = c.hook("post", r#"--sleep 0.5 --stdout '{"systemMessage": "SYS", "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "CTX"}}'"#);
    let deny = c.hook("deny", r#"--stdout '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "NO"}}'"#);
    let c = c.project_settings(&json!({"hooks": {
        "PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": post, "async": true}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": deny, "async": true}]}]}}));
    // r2_async_pre_decisions: an async deny is ignored.
    let f = c.fire(&bash_before("ls"));
    assert_eq!(f.outcome["decision"], "proceed", "{}", f.outcome);
    // r2_async_post_context: the event does not wait...
    let after = bash_after("ls", json!({"stdout": "first"}));
    let f = c.fire(&after);
    assert!(f.outcome.get("context").is_none(), "{}", f.outcome);
    assert!(
        f.runs()[0]["message"]
            .as_str()
            .unwrap()
            .contains("started in the background")
    );
    // ...and its answer comes with the next tool result, without a prefix.
    let mut next = after.clone();
    next["tool"]["name"] = json!("Read");
    let context = c.context_arriving(&next);
    assert_eq!(
        texts(&context),
        [
            "<system-reminder>\nSYS\n</system-reminder>",
            "<system-reminder>\nCTX\n</system-reminder>"
        ]
    );
    assert!(
        context
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["placement"] == "append_to_tool_result")
    );
    // Taken once.
    assert!(c.fire(&next).outcome.get("context").is_none());
}

#[test]
fn without_a_background_runner_the_library_skips_async_handlers() {
    let c = Claude::new();
    let cmd = c.hook("post", "");
    let c = c.project_settings(&json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": cmd, "async": true}]}]}}));
    let dialect = c.library_dialect();
    let engine = latch::Engine::new().with_dialect(dialect);
    let event: latch::Event = serde_json::from_value(bash_before("ls")).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let outcome = runtime
        .block_on(engine.dispatch(&event, &latch::Session::in_memory(None)))
        .unwrap();
    assert_eq!(outcome.runs[0].status, latch::outcome::RunStatus::Skipped);
    assert!(
        outcome.runs[0]
            .message
            .as_deref()
            .unwrap()
            .contains("runs no background hooks")
    );
    assert_eq!(c.runs_of("post"), 0);
}

#[test]
fn r2_subagent_start_payload_matcher_and_context() {
    let c = Claude::new();
    let explore = c.hook("explore", r#"--stdout '{"hookSpecificOutput": {"hookEventName": "SubagentStart", "additionalContext": "SUB ctx"}}'"#);
    let plan = c.hook("plan", "");
    let c = c.project_settings(&json!({"hooks": {"SubagentStart": [
        {"matcher": "Explore", "hooks": [{"type": "command", "command": explore}]},
        {"matcher": "Plan", "hooks": [{"type": "command", "command": plan}]}]}}));
    let f = c.fire(
        &json!({"event": "subagent_start", "session_id": "s1", "prompt_id": "p1",
        "permission_mode": "bypassPermissions", "agent_id": "a1", "agent_type": "Explore"}),
    );
    assert_eq!(c.runs_of("plan"), 0, "agent-type matchers filter");
    assert_eq!(
        keys(&c.received("explore").unwrap()),
        [
            "session_id",
            "transcript_path",
            "cwd",
            "prompt_id",
            "agent_id",
            "agent_type",
            "hook_event_name"
        ]
    );
    assert_eq!(
        texts(&f.outcome["context"]),
        ["<system-reminder>\nSubagentStart hook additional context: SUB ctx\n</system-reminder>"]
    );
    assert_eq!(f.outcome["context"][0]["placement"], "first_user_message");
}

#[test]
fn permission_request_allows_denies_and_interrupts() {
    let cases = [
        (
            r#"{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow", "updatedInput": {"command": "ls -la"}}}}"#,
            "allow",
        ),
        (
            r#"{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "not now"}}}"#,
            "deny",
        ),
        (
            r#"{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "stop", "interrupt": true}}}"#,
            "deny",
        ),
    ];
    for (i, (out, decision)) in cases.into_iter().enumerate() {
        let c = Claude::new();
        let cmd = c.hook("perm", &format!("--stdout '{out}'"));
        let c = c.project_settings(&settings("PermissionRequest", Some("Bash"), &[&cmd]));
        let mut ev = bash_before("ls");
        ev["event"] = json!("permission_request");
        let f = c.fire(&ev);
        assert_eq!(f.outcome["decision"], decision, "{out}");
        let got = c.received("perm").unwrap();
        assert_eq!(
            keys(&got),
            [
                "session_id",
                "transcript_path",
                "cwd",
                "prompt_id",
                "permission_mode",
                "hook_event_name",
                "tool_name",
                "tool_input"
            ]
        );
        match i {
            0 => assert_eq!(f.outcome["tool_input"], json!({"command": "ls -la"})),
            1 => {
                assert_eq!(texts(&f.outcome["notices"]), ["not now"]);
                assert!(f.outcome.get("halt").is_none());
            }
            _ => assert_eq!(f.outcome["halt"]["hooks"].as_array().map(Vec::len), Some(1)),
        }
    }
}

/// The harness's permission suggestions reach PermissionRequest hooks, and
/// the permission updates hooks ask for reach the harness, each hook's in
/// configuration order (Claude Code's docs: `permission_suggestions`,
/// `decision.updatedPermissions`).
#[test]
fn permission_request_suggestions_in_and_permission_updates_out() {
    let c = Claude::new();
    let rule = json!([{"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "npm test"}],
        "behavior": "allow", "destination": "session"}]);
    let first = c.hook(
        "first",
        &format!(
            "--stdout '{}'",
            json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                "decision": {"behavior": "allow", "updatedPermissions": rule}}})
        ),
    );
    let second = c.hook(
        "second",
        r#"--stdout '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow", "updatedPermissions": "all"}}}'"#,
    );
    let c = c.project_settings(&settings(
        "PermissionRequest",
        Some("Bash"),
        &[&first, &second],
    ));
    let mut ev = bash_before("npm test");
    ev["event"] = json!("permission_request");
    ev["permission_suggestions"] =
        json!([{"type": "setMode", "mode": "acceptEdits", "destination": "session"}]);
    let f = c.fire(&ev);
    let got = c.received("first").unwrap();
    assert_eq!(keys(&got).last(), Some(&"permission_suggestions"));
    assert_eq!(got["permission_suggestions"], ev["permission_suggestions"]);
    assert_eq!(f.outcome["decision"], "allow");
    let runs = f.runs();
    let run_of = |label: &str| {
        runs.iter()
            .find(|r| r["hook"].as_str().is_some_and(|h| h.contains(label)))
            .cloned()
            .unwrap_or_default()
    };
    assert_eq!(
        f.outcome["permission_updates"],
        json!([{"hook": run_of("--label first")["hook"], "updates": rule}]),
        "{}",
        f.outcome
    );
    // Anything but a list of updates fails Claude Code's schema: the whole
    // answer is a non-blocking error.
    let second = run_of("--label second");
    assert_eq!(second["status"], "failed");
    assert!(
        second["message"]
            .as_str()
            .unwrap()
            .starts_with("Hook JSON output validation failed \u{2014} hookSpecificOutput.decision.updatedPermissions: expected array, received string\n\n"),
        "{second}"
    );
}

#[test]
fn q_session_start_hooks_export_variables_for_later_shell_calls() {
    let c = Claude::new();
    let dir = c.hook_dir().display().to_string();
    let writer = "echo 'export X=from_env_file' >> \"$CLAUDE_ENV_FILE\"; echo 'export Y=\"two words\"' >> \"$CLAUDE_ENV_FILE\"".to_owned();
    let seen = format!("echo \"${{CLAUDE_ENV_FILE:-none}}|${{X:-unset}}\" > {dir}/pre-env.txt");
    let c = c.project_settings(&json!({"hooks": {
        "SessionStart": [{"hooks": [{"type": "command", "command": writer}]}],
        "PreToolUse": [{"hooks": [{"type": "command", "command": seen}]}]}}));
    let f = c.fire(&json!({"event": "session_start", "session_id": "s1", "source": "startup"}));
    assert_eq!(
        f.outcome["shell_env"],
        json!({"X": "from_env_file", "Y": "two words"}),
        "{}",
        f.outcome
    );
    // A later hook does not get them (recorded: `q`), nor the file.
    c.fire(&bash_before("ls"));
    assert_eq!(
        std::fs::read_to_string(c.hook_dir().join("pre-env.txt"))
            .unwrap()
            .trim(),
        "none|unset"
    );
}

#[test]
fn env_file_exports_build_on_the_environment_the_hooks_had() {
    let c = Claude::new();
    let lines = [
        "export PATH=\"/opt/tool/bin:$PATH\"",
        "export A=\"$LATCH_TEST_BASE/bin\"",
        "export B=\"$CLAUDE_PROJECT_DIR/x\"",
        "export C=\"$(pwd)\"",
        // The same value it had: not a change, so not reported.
        "export LATCH_TEST_BASE=\"$LATCH_TEST_BASE\"",
    ];
    let writer = lines
        .iter()
        .map(|l| format!("echo '{l}' >> \"$CLAUDE_ENV_FILE\""))
        .collect::<Vec<_>>()
        .join("; ");
    let c = c.project_settings(&json!({"hooks": {
        "SessionStart": [{"hooks": [{"type": "command", "command": writer}]}]}}));
    let mut cmd = latch();
    cmd.env("LATCH_TEST_BASE", "/base");
    let f = c.fire_cmd(
        cmd,
        &json!({"event": "session_start", "session_id": "s1", "source": "startup"}),
        &[],
    );
    let project = c.project().display().to_string();
    let path = std::env::var("PATH").unwrap();
    assert_eq!(
        f.outcome["shell_env"],
        json!({"PATH": format!("/opt/tool/bin:{path}"), "A": "/base/bin",
            "B": format!("{project}/x"), "C": project}),
        "{}",
        f.outcome
    );
}

#[test]
fn an_env_file_that_cannot_be_sourced_is_a_warning_in_words() {
    let c = Claude::new().project_settings(&json!({"hooks": {
        "SessionStart": [{"hooks": [{"type": "command",
            "command": "echo 'exit 3' >> \"$CLAUDE_ENV_FILE\""}]}]}}));
    let f = c.fire(&json!({"event": "session_start", "session_id": "s1", "source": "startup"}));
    assert!(f.outcome.get("shell_env").is_none(), "{}", f.outcome);
    assert!(
        f.warnings_contain("sourcing it failed: the shell exited with 3"),
        "{}",
        f.outcome
    );
}

#[test]
fn session_end_handlers_share_a_short_budget() {
    let c = Claude::new();
    let slow = c.hook("slow", "--sleep 4");
    let c = c.project_settings(
        &json!({"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": slow}]}]}}),
    );
    let f = c.fire(&json!({"event": "session_end", "session_id": "s1", "reason": "other"}));
    assert_eq!(
        f.runs()[0]["error"],
        "timeout",
        "1.5 s by default: {}",
        f.outcome
    );
    // A configured timeout raises the budget.
    let mut with_timeout = json!({"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": c.hook("ok", "--sleep 2"), "timeout": 5}]}]}});
    with_timeout["hooks"]["SessionEnd"][0]["hooks"][0]["timeout"] = json!(5);
    let c = c.project_settings(&with_timeout);
    let f = c.fire(&json!({"event": "session_end", "session_id": "s1", "reason": "other"}));
    assert_eq!(f.runs()[0]["status"], "ok", "{}", f.outcome);
}

#[test]
fn r2_if_conditions_choose_which_handlers_start() {
    let c = Claude::new();
    let git = c.hook("git", "");
    let push = c.hook("push", "");
    let npm = c.hook("npm", "");
    let edit_ts = c.hook("edit_ts", "");
    let write_ts = c.hook("write_ts", "");
    let stop = c.hook("stop", "");
    let h = |cmd: &str, rule: &str| json!({"type": "command", "command": cmd, "if": rule});
    let c = c.project_settings(&json!({"hooks": {
        "PreToolUse": [{"hooks": [h(&git, "Bash(git *)"), h(&push, "Bash(git push)"), h(&npm, "Bash(npm test)"),
                                  h(&edit_ts, "Edit(*.ts)"), h(&write_ts, "Write(*.ts)")]}],
        "Stop": [{"hooks": [h(&stop, "Bash")]}]}}));
    // r2_if_bash: every subcommand is checked, a VAR=x prefix is stripped.
    let f = c.fire(&bash_before("FOO=x git --version"));
    assert_eq!(
        (c.runs_of("git"), c.runs_of("push"), c.runs_of("npm")),
        (1, 0, 0),
        "{}",
        f.outcome
    );
    let skipped = f
        .runs()
        .iter()
        .find(|r| {
            r["hook"]
                .as_str()
                .is_some_and(|h| h.contains("--label npm"))
        })
        .unwrap();
    assert!(
        skipped["message"]
            .as_str()
            .unwrap()
            .starts_with("Skipping hook due to if condition \"Bash(npm test)\" not matching")
    );
    c.fire(&bash_before("ls && git push"));
    assert_eq!((c.runs_of("git"), c.runs_of("push")), (2, 1));
    // r2_if_bash_complex: with $(...), exact rules fail open.
    c.fire(&bash_before("ls $(pwd)"));
    assert_eq!(
        (c.runs_of("git"), c.runs_of("push"), c.runs_of("npm")),
        (2, 2, 1)
    );
    // r2_if_files: rules are per tool; Write(*.ts) matches at any depth.
    let mut write = bash_before("");
    write["tool"] = json!({"name": "Write", "input": {"file_path": c.project().join("src/new.ts"), "content": "x"}});
    c.fire(&write);
    assert_eq!((c.runs_of("edit_ts"), c.runs_of("write_ts")), (0, 1));
    // On Stop an `if` never lets the handler run.
    let f = c.fire(&json!({"event": "stop", "session_id": "s1"}));
    assert_eq!(c.runs_of("stop"), 0);
    assert_eq!(
        f.runs()[0]["message"],
        "Hook if condition \"Bash\" cannot be evaluated for non-tool event Stop"
    );
}

/// `if` is checked on every tool event Claude Code's code names:
/// `PostToolUse`, `PostToolUseFailure`, `PermissionRequest` and
/// `PermissionDenied` as on `PreToolUse`, through the binary.
#[test]
fn if_conditions_hold_on_every_tool_event() {
    let events = [
        ("PostToolUse", "tool_after"),
        ("PostToolUseFailure", "tool_failure"),
        ("PermissionRequest", "permission_request"),
        ("PermissionDenied", "permission_denied"),
    ];
    for (claude, neutral) in events {
        let c = Claude::new();
        let rm = c.hook("rm", "");
        let git = c.hook("git", "");
        let c = c.project_settings(&json!({"hooks": {claude: [{"hooks": [
            {"type": "command", "command": rm, "if": "Bash(rm *)"},
            {"type": "command", "command": git, "if": "Bash(git *)"}]}]}}));
        let mut ev = json!({"event": neutral, "session_id": "s1",
            "tool": {"name": "Bash", "input": {"command": "rm -rf /x"}, "call_id": "t1"}});
        match neutral {
            "tool_after" => ev["tool"]["output"] = json!({"stdout": ""}),
            "tool_failure" => ev["tool"]["error"] = json!("failed"),
            "permission_denied" => ev["reason"] = json!("auto mode"),
            _ => {}
        }
        let f = c.fire(&ev);
        assert_eq!(
            (c.runs_of("rm"), c.runs_of("git")),
            (1, 0),
            "{claude}: {}",
            f.outcome
        );
        let skipped = f
            .runs()
            .iter()
            .find(|r| {
                r["hook"]
                    .as_str()
                    .is_some_and(|h| h.ends_with("--label git"))
            })
            .map(|r| r["message"].to_string());
        assert!(
            skipped.is_some_and(|m| m.contains("Skipping hook due to if condition")),
            "{claude}: {}",
            f.outcome
        );
    }
}

#[test]
fn the_vocabulary_shows_harness_tools_in_claude_code_s_shape_and_maps_rewrites_back() {
    let c = Claude::new();
    let pre = c.hook("pre", r#"--stdout '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"command": "git status --short"}}}'"#);
    let post = c.hook("post", "");
    let write = c.hook("write", "");
    let h = |cmd: &str, rule: &str| json!({"type": "command", "command": cmd, "if": rule});
    let c = c.project_settings(&json!({"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [h(&pre, "Bash(git *)")]},
                       {"matcher": "Write", "hooks": [{"type": "command", "command": write}]}],
        "PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": post}]}]}}));
    // latch's neutral `shell` tool with its `cmd` argument.
    let f = c.fire(
        &json!({"event": "tool_before", "session_id": "s1", "cwd": c.project(),
        "tool": {"name": "shell", "input": {"cmd": "git status", "cwd": "."}}}),
    );
    let got = c
        .received("pre")
        .expect("the Bash hook ran, its if matched");
    assert_eq!(got["tool_name"], "Bash");
    assert_eq!(
        got["tool_input"],
        json!({"command": "git status", "cwd": "."})
    );
    // updatedInput replaces the whole input (Claude Code's rule), in the
    // harness's own names.
    assert_eq!(
        f.outcome["tool_input"],
        json!({"cmd": "git status --short"})
    );
    // A relative path becomes absolute, as Claude Code's file paths are.
    c.fire(
        &json!({"event": "tool_before", "session_id": "s1", "cwd": c.project(),
        "tool": {"name": "write", "input": {"path": "src/a.rs", "contents": "x"}}}),
    );
    let got = c.received("write").unwrap();
    assert_eq!(got["tool_name"], "Write");
    assert_eq!(
        got["tool_input"],
        json!({"file_path": c.project().join("src/a.rs"), "content": "x"})
    );
    // A shell tool's text result looks like Bash's.
    c.fire(&json!({"event": "tool_after", "session_id": "s1", "tool": {"name": "shell", "input": {"cmd": "echo hi"}, "output": "hi\n"}}));
    assert_eq!(
        c.received("post").unwrap()["tool_response"],
        json!({"stdout": "hi\n", "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false})
    );
}

#[test]
fn a_vocabulary_file_adds_the_harness_s_own_tools() {
    let c = Claude::new();
    let pre = c.hook("pre", "");
    let c = c.project_settings(&settings("PreToolUse", Some("Bash"), &[&pre]));
    let file = c.write(
        "vocab.yaml",
        "tools:\n  run_it: {claude: Bash, args: {script: command}}\n  broken: {args: {}}\n",
    );
    let file = file.display().to_string();
    let f = c.fire_with(
        &json!({"event": "tool_before", "session_id": "s1", "tool": {"name": "run_it", "input": {"script": "make"}}}),
        &["--tool-vocabulary", &file],
    );
    assert_eq!(
        c.received("pre").unwrap()["tool_input"],
        json!({"command": "make"})
    );
    assert!(
        f.stderr.contains("tool `broken`: needs `claude`"),
        "{}",
        f.stderr
    );
}

/// A harness's MCP tools map to Claude Code's `mcp__<server>__<tool>` by
/// one pattern; a file that says `replace: true` is the whole table.
#[test]
fn a_vocabulary_file_maps_mcp_tools_by_a_pattern_and_may_replace_the_builtin_table() {
    let c = Claude::new();
    let mcp = c.hook("mcp", "");
    let bash = c.hook("bash", "");
    let c = c.project_settings(&json!({"hooks": {"PreToolUse": [
        {"matcher": "mcp__github__.*", "hooks": [{"type": "command", "command": mcp}]},
        {"matcher": "Bash", "hooks": [{"type": "command", "command": bash}]}]}}));
    let file = c.write("vocab.yaml", "mcp: \"{server}.{tool}\"\n");
    let file = file.display().to_string();
    let tool = |name: &str, input: Value| json!({"event": "tool_before", "session_id": "s1", "tool": {"name": name, "input": input}});
    c.fire_with(
        &tool("github.create_issue", json!({"title": "x"})),
        &["--tool-vocabulary", &file],
    );
    let got = c.received("mcp").expect("the MCP hook ran");
    assert_eq!(got["tool_name"], "mcp__github__create_issue");
    assert_eq!(got["tool_input"], json!({"title": "x"}));
    // The built-in entries still apply beside the pattern.
    c.fire_with(
        &tool("shell", json!({"cmd": "ls"})),
        &["--tool-vocabulary", &file],
    );
    assert_eq!(
        c.received("bash").unwrap()["tool_input"],
        json!({"command": "ls"})
    );
    // Replaced: `shell` is no longer Bash, `run` is.
    let replacing = c.write(
        "replace.yaml",
        "replace: true\ntools:\n  run: {claude: Bash}\n",
    );
    let replacing = replacing.display().to_string();
    c.fire_with(
        &tool("shell", json!({"cmd": "ls"})),
        &["--tool-vocabulary", &replacing],
    );
    assert_eq!(c.runs_of("bash"), 1);
    c.fire_with(
        &tool("run", json!({"command": "make"})),
        &["--tool-vocabulary", &replacing],
    );
    assert_eq!(c.runs_of("bash"), 2);
    // peen's runCommand: its `purpose` is Bash's `description`.
    c.fire(&tool(
        "runCommand",
        json!({"command": "make", "purpose": "build"}),
    ));
    assert_eq!(
        c.received("bash").unwrap()["tool_input"],
        json!({"command": "make", "description": "build"})
    );
}

/// Without a vocabulary file, `latch lint` still names a matcher written
/// with a harness's tool name (`shell`), which hooks never see.
#[test]
fn lint_names_a_matcher_written_with_a_harness_s_tool_name() {
    let c = Claude::new().project_settings(&json!({"hooks": {
        "PreToolUse": [{"matcher": "shell|Bash|read_file", "hooks": [{"type": "command", "command": "true"}]}]}}));
    let (code, text) = c.lint();
    // Warnings alone: the lint passes.
    assert_eq!(code, Some(0), "{text}");
    for (name, claude) in [("shell", "Bash"), ("read_file", "Read")] {
        assert!(
            text.contains(&format!("`{name}` is a harness's name for a tool that hooks see as `{claude}` (tool vocabulary), so this matcher never fires for it: write `{claude}`")),
            "{text}"
        );
    }
    assert!(text.contains("0 errors, 2 warnings"), "{text}");
}

#[test]
fn r2_prompt_handlers_ask_a_model_and_ok_false_acts_like_exit_2() {
    let stub = crate::claude_util::HttpStub::start(vec![(
        "/v1/chat/completions",
        200,
        r#"{"choices": [{"message": {"content": "{\"ok\": false, \"reason\": \"PROMPT_REASON\"}"}}]}"#,
    )]);
    let prompt = "PROMPT_SENTINEL decide about: $ARGUMENTS";
    let c = Claude::new().project_settings(&json!({"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "prompt", "prompt": prompt}]}],
        "Stop": [{"hooks": [{"type": "prompt", "prompt": "Is the work done?"}]}],
        "SessionStart": [{"hooks": [{"type": "prompt", "prompt": "never asked"}]}]}}));
    let base = stub.url("/v1");
    let flags = [
        "--prompt-base-url",
        base.as_str(),
        "--prompt-model",
        "small",
    ];
    let f = c.fire_with(&bash_before("ls"), &flags);
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);
    assert_eq!(
        texts(&f.outcome["notices"]),
        [format!("PreToolUse:Bash hook error: [{prompt}]: PROMPT_REASON").as_str()]
    );
    let reqs = stub.requests();
    let body: Value = serde_json::from_str(&reqs[0].body).unwrap();
    let sent = body["messages"][0]["content"].as_str().unwrap();
    assert!(
        sent.contains("PROMPT_SENTINEL decide about: {\"session_id\":\"s1\""),
        "{sent}"
    );
    assert_eq!(body["model"], "small");
    let f = c.fire_with(&json!({"event": "stop", "session_id": "s1"}), &flags);
    assert_eq!(
        f.outcome["continuation"]["prompt"],
        stop_feedback("[Is the work done?]: PROMPT_REASON")
    );
    let f = c.fire_with(
        &json!({"event": "session_start", "session_id": "s1", "source": "startup"}),
        &flags,
    );
    assert_eq!(f.runs()[0]["status"], "skipped");
    assert_eq!(stub.requests().len(), 2, "SessionStart asks no model");
}

#[test]
fn lint_with_the_harness_s_vocabulary_reports_tools_it_never_calls() {
    let c = Claude::new().project_settings(&json!({"hooks": {
        "PreToolUse": [{"matcher": "Bash|NotebookEdit", "hooks": [{"type": "command", "command": "true"}]}],
        "Stop": [{"matcher": "Whatever", "hooks": [{"type": "command", "command": "true"}]}]}}));
    let vocab = c.write(
        "vocab.yaml",
        "tools:\n  shell: {claude: Bash, args: {cmd: command}}\n",
    );
    let out = crate::util::latch()
        .arg("lint")
        .arg(c.project())
        .arg("--tool-vocabulary")
        .arg(&vocab)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.contains("no tool of the harness maps to `NotebookEdit`"),
        "{text}"
    );
    assert!(!text.contains("maps to `Bash`"), "{text}");
    assert!(
        !text.contains("maps to `Whatever`"),
        "Stop has no tool: {text}"
    );
}

#[test]
fn convert_reads_and_writes_claude_settings() {
    let c = Claude::new().project_settings(&json!({"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "./guard.sh", "timeout": 5},
            {"type": "command", "command": "./only-git.sh", "if": "Bash(git *)"},
            {"type": "http", "url": "http://127.0.0.1:1/x"}]}],
        "PostToolUseFailure": [{"hooks": [{"type": "command", "command": "./failed.sh"}]}]}}));
    let out = crate::util::latch()
        .args(["convert", "--from", "claude", "--to", "evener"])
        .arg(c.project())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let evener: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        evener["hooks"]["PreToolUse"][0]["hooks"],
        json!([{"type": "command", "command": "./guard.sh", "timeout": 5}])
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("`if: Bash(git *)` has no equivalent and dropping it would widen the hook"),
        "{stderr}"
    );
    assert!(
        stderr.contains("a `http` handler has no equivalent; dropped"),
        "{stderr}"
    );
    assert!(stderr.contains("evener fires no failure event"), "{stderr}");
    // And back: evener's PostToolUse keeps its name; Claude Code's default
    // timeout is written out.
    let plugin = c.root.path().join("plugin");
    std::fs::create_dir_all(plugin.join("hooks")).unwrap();
    std::fs::write(plugin.join("hooks/hooks.json"), &out.stdout).unwrap();
    let back = crate::util::latch()
        .args(["convert", "--from", "evener", "--to", "claude"])
        .arg(&plugin)
        .output()
        .unwrap();
    let claude: Value = serde_json::from_slice(&back.stdout).unwrap();
    assert_eq!(
        claude["hooks"]["PreToolUse"][0],
        json!({"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh", "timeout": 5}]})
    );
    assert_eq!(
        claude["hooks"]["PostToolUse"][0]["hooks"][0]["timeout"],
        600
    );
}

/// A `SessionStart` matcher is tested against the way the session started,
/// in Claude Code and in evener alike: it converts exactly, whatever its
/// form; a target that cannot filter starts gets the rule only where it
/// would not widen it.
#[test]
fn session_start_matchers_convert_exactly_or_are_reported() {
    let c = Claude::new().project_settings(&json!({"hooks": {"SessionStart": [
        {"matcher": "startup|resume", "hooks": [{"type": "command", "command": "./a.sh"}]},
        {"matcher": "^c", "hooks": [{"type": "command", "command": "./b.sh"}]},
        {"matcher": "Startup", "hooks": [{"type": "command", "command": "./never.sh"}]},
        {"hooks": [{"type": "command", "command": "./all.sh"}]},
        {"matcher": "startup", "hooks": [{"type": "command", "command": "./first.sh"}]}]}}));
    // From claude, except back to claude (from evener).
    let convert = |to: &str, path: &std::path::Path| {
        let from = if to == "claude" { "evener" } else { "claude" };
        crate::convert::convert(from, to, path)
    };
    let (evener, report) = convert("evener", &c.project());
    let evener_json: Value = serde_json::from_str(&evener).unwrap();
    let matchers: Vec<(&str, &str)> = evener_json["hooks"]["SessionStart"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["matcher"].as_str().unwrap(),
                g["hooks"][0]["command"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        matchers,
        [
            ("startup|resume", "./a.sh"),
            ("clear|compact", "./b.sh"),
            ("*", "./all.sh"),
            ("startup", "./first.sh")
        ]
    );
    assert!(
        report.contains("its matcher accepts no way a session starts (startup, resume, clear, compact), so it never runs; not converted"),
        "{report}"
    );
    // And back, unchanged.
    let plugin = c.root.path().join("plugin");
    std::fs::create_dir_all(plugin.join("hooks")).unwrap();
    std::fs::write(plugin.join("hooks/hooks.json"), &evener).unwrap();
    let (claude, _) = convert("claude", &plugin);
    let claude: Value = serde_json::from_str(&claude).unwrap();
    let groups = claude["hooks"]["SessionStart"].as_array().unwrap();
    let back: Vec<Option<&str>> = groups.iter().map(|g| g["matcher"].as_str()).collect();
    assert_eq!(
        back,
        [
            Some("startup|resume"),
            Some("clear|compact"),
            None,
            Some("startup")
        ]
    );
    // poolside runs SessionStart hooks on startup and resume; peen on a
    // session's first turn.
    let (_, report) = convert("poolside", &c.project());
    for (script, note) in [
        (
            "b.sh",
            "it runs only on `clear` and `compact`, and poolside runs SessionStart hooks on every startup and resume: converting it would widen it; not converted",
        ),
        (
            "all.sh",
            "poolside runs SessionStart hooks on every startup and resume: the hook no longer runs on `clear` and `compact`",
        ),
        (
            "first.sh",
            "it runs only on `startup`, and poolside runs SessionStart hooks on every startup and resume: converting it would widen it",
        ),
    ] {
        assert!(report.contains(note), "{script}: {report}");
    }
    let (peen, report) = convert("peen", &c.project());
    assert!(
        peen.contains("./first.sh") && peen.contains("./a.sh"),
        "{peen}"
    );
    assert!(!peen.contains("./b.sh"), "{peen}");
    assert!(
        report.contains("peen's sessionStart runs only on a session's first turn: the hook no longer runs on `resume`"),
        "{report}"
    );
}

#[test]
fn agent_and_mcp_tool_handlers_are_reported_at_load_and_skipped() {
    let c = Claude::new().project_settings(&json!({"hooks": {"PreToolUse": [{"hooks": [
        {"type": "agent", "prompt": "check it"},
        {"type": "mcp_tool", "server": "srv", "tool": "echo_tool"}]}]}}));
    let f = c.fire(&bash_before("ls"));
    for kind in ["agent", "mcp_tool"] {
        assert!(
            f.stderr.contains(&format!(
                "`{kind}` handlers run only when the harness gives latch"
            )),
            "{}",
            f.stderr
        );
    }
    let statuses: Vec<&str> = f
        .runs()
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["skipped", "skipped"]);
    assert!(
        f.runs()[1]["message"]
            .as_str()
            .unwrap()
            .contains("no sub-agents or tool servers")
    );
    assert_eq!(f.outcome["decision"], "proceed");
}

#[test]
fn r2_matchers_are_javascript_regexes_with_claude_code_s_warnings() {
    let c = Claude::new();
    let js = c.hook("js", "");
    let rust = c.hook("rust", "");
    let task = c.hook("task", "");
    let c = c.project_settings(&json!({"hooks": {"PreToolUse": [
        {"matcher": "^mcp__srv__echo_\\d$", "hooks": [{"type": "command", "command": js}]},
        {"matcher": "(?i)bash", "hooks": [{"type": "command", "command": rust}]},
        {"matcher": "Task", "hooks": [{"type": "command", "command": task}]},
        {"matcher": "mcp__srv", "hooks": [{"type": "command", "command": "true"}]}]}}));
    let mut ev = bash_before("");
    ev["tool"] = json!({"name": "mcp__srv__echo_1", "input": {}});
    let f = c.fire(&ev);
    assert_eq!(c.runs_of("js"), 1);
    // A Rust-only construct is a JavaScript syntax error: a warning with
    // V8's words, and the group never runs.
    assert!(
        f.stderr
            .contains("Invalid regular expression: /(?i)bash/: Invalid group"),
        "{}",
        f.stderr
    );
    // Claude Code's own advice for a bare server name (r2_mcp_matchers).
    assert!(f.stderr.contains("Hook matcher `mcp__srv` matches no tool (it is compared as an exact string). To match all tools from this server, use `mcp__srv__.*`."), "{}", f.stderr);
    // r2_subagent: `Task` still matches the Agent tool.
    ev["tool"] = json!({"name": "Agent", "input": {}});
    c.fire(&ev);
    assert_eq!(c.runs_of("task"), 1);
}

/// Claude Code's matchers and `if` rules accept a tool's former names,
/// from its table (read from its 2.1.197 code; `Task` for `Agent` is
/// recorded in `r2_subagent`): a matcher `KillShell` runs for `TaskStop`,
/// `BashOutput` for `TaskOutput`, and so on.
#[test]
fn former_tool_names_match_the_tools_that_bear_them_now() {
    let table = [
        ("KillShell", "TaskStop"),
        ("KillBash", "TaskStop"),
        ("AgentOutputTool", "TaskOutput"),
        ("BashOutputTool", "TaskOutput"),
        ("AgentOutput", "TaskOutput"),
        ("BashOutput", "TaskOutput"),
        ("ListPeers", "ListAgents"),
        ("Brief", "SendUserMessage"),
        ("ListMcpResources", "ListMcpResourcesTool"),
        ("ReadMcpResource", "ReadMcpResourceTool"),
        ("ReadMcpResourceDir", "ReadMcpResourceDirTool"),
    ];
    for (former, now) in table {
        let c = Claude::new();
        let by_matcher = c.hook("matcher", "");
        let by_if = c.hook("if", "");
        let c = c.project_settings(&json!({"hooks": {"PreToolUse": [
            {"matcher": former, "hooks": [{"type": "command", "command": by_matcher}]},
            {"hooks": [{"type": "command", "command": by_if, "if": former}]}]}}));
        let mut ev = bash_before("");
        ev["tool"] = json!({"name": now, "input": {}});
        c.fire(&ev);
        assert_eq!(c.runs_of("matcher"), 1, "matcher {former} for {now}");
        assert_eq!(c.runs_of("if"), 1, "if {former} for {now}");
    }
}

/// Recorded (`r2_exec_args`): the refusal of a settings hook that uses a
/// plugin variable names that variable and, in exec form, the whole
/// command line; an exec-form program that cannot start is reported in
/// Node's words.
#[test]
fn r2_exec_args_failures_read_as_recorded() {
    let c = Claude::new().project_settings(
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "sh", "args": ["-c", "true", "${CLAUDE_PLUGIN_DATA}"]},
            {"type": "command", "command": "no-such-program --label x", "args": []}
        ]}]}}),
    );
    let f = c.fire(&bash_before("ls"));
    assert_eq!(f.outcome["decision"], "proceed", "{}", f.outcome);
    let warnings = f.outcome["warnings"].to_string();
    assert!(
        warnings.contains("Failed to run: Hook command references ${CLAUDE_PLUGIN_DATA} but the hook is not associated with a plugin. This variable is only available in hooks defined in a plugin's hooks/hooks.json file, not in settings.json. Command: sh -c true ${CLAUDE_PLUGIN_DATA}"),
        "{warnings}"
    );
    assert!(
        warnings.contains("Failed with non-blocking status code: Error occurred while executing hook command: ENOENT: no such file or directory, posix_spawn 'no-such-program --label x'"),
        "{warnings}"
    );
}

/// A regex matcher the backtracking search gives up on counts as matching
/// (the hook runs), the outcome warns of it, and `latch fire` logs it at
/// `warn`, once.
#[test]
fn a_matcher_that_gives_up_matches_and_is_logged_by_fire() {
    let c = Claude::new();
    let cmd = c.hook("h", "");
    let c = c.project_settings(&json!({"hooks": {"PreToolUse": [
        {"matcher": "^(a+)+\\1$", "hooks": [{"type": "command", "command": cmd}]}]}}));
    let mut latch = crate::util::latch();
    latch.env("LATCH_LOG", "warn");
    let tool = format!("{}b", "a".repeat(30));
    let f = c.fire_cmd(
        latch,
        &json!({"event": "tool_before", "tool": {"name": tool, "input": {}}}),
        &[],
    );
    assert_eq!(c.runs_of("h"), 1, "{}", f.outcome);
    // The harness hears of it in the outcome.
    let warning = f.outcome["warnings"][0].as_str().unwrap_or_default();
    assert!(
        warning.starts_with(
            "PreToolUse: the matcher `^(a+)+\\1$` (JavaScript regular expression, anywhere in the name) gave up on \"aaaa"
        ) && warning.ends_with("; it counts as matching"),
        "{}",
        f.outcome
    );
    assert_eq!(
        f.stderr
            .matches("a hook matcher gave up; it counts as matching")
            .count(),
        1,
        "{}",
        f.stderr
    );
}

/// Recorded (`r2_bg_grandchild_stdout_open`): a hook that exits while a
/// background child still holds its stdout is waited for until the
/// output closes (Claude Code waited 3.1 s for a 3 s child), not killed
/// after latch's usual 1 s drain; the child finishes its work.
#[test]
fn r2_bg_grandchild_stdout_open_is_waited_for() {
    let c = Claude::new();
    let marker = c.hook_dir().join("marker");
    let cmd = format!(
        "echo started; (sleep 2; echo done > '{}') &",
        marker.display()
    );
    let c = c.project_settings(&settings("PreToolUse", Some("Bash"), &[&cmd]));
    let started = std::time::Instant::now();
    let f = c.fire(&bash_before("ls"));
    assert!(started.elapsed() >= std::time::Duration::from_millis(1900));
    assert_eq!(
        std::fs::read_to_string(&marker).unwrap_or_default().trim(),
        "done",
        "{}",
        f.outcome
    );
    assert!(
        !f.outcome.to_string().contains("holding its output open"),
        "{}",
        f.outcome
    );
    assert_eq!(f.runs()[0]["status"], "ok", "{}", f.outcome);
}

/// Recorded (`r2_bg_grandchild_detached`): a background child whose output
/// goes elsewhere delays nothing and survives the hook.
#[test]
fn r2_bg_grandchild_detached_survives() {
    let c = Claude::new();
    let pid = c.hook_dir().join("pid");
    let cmd = format!("sleep 30 >/dev/null 2>&1 & echo $! > '{}'", pid.display());
    let c = c.project_settings(&settings("PreToolUse", Some("Bash"), &[&cmd]));
    let started = std::time::Instant::now();
    let f = c.fire(&bash_before("ls"));
    assert!(
        started.elapsed() < std::time::Duration::from_secs(1),
        "{}",
        f.outcome
    );
    let child = crate::util::read_pid(&pid);
    assert!(!crate::util::process_is_dead(child), "the child was killed");
    let _ = rustix::process::kill_process(
        rustix::process::Pid::from_raw(child).unwrap(),
        rustix::process::Signal::KILL,
    );
}

/// Recorded (`r2_settings_sources_order`): the texts of several sources
/// come in the order their hooks finished (project 0 s, flag 0.2, user
/// 0.4, local 0.6), not in configuration order (user, project, local,
/// flag).
#[test]
fn r2_settings_sources_order_texts_come_in_finishing_order() {
    let c = Claude::new();
    let hook =
        |label: &str, sleep: &str| c.hook(label, &format!("--sleep {sleep} --stdout UPS_{label}"));
    let (user, project, local, flag) = (
        hook("user", "0.4"),
        hook("project", "0"),
        hook("local", "0.6"),
        hook("flag", "0.2"),
    );
    let flag_settings = settings("UserPromptSubmit", None, &[&flag]).to_string();
    let c = c
        .user_settings(&settings("UserPromptSubmit", None, &[&user]))
        .project_settings(&settings("UserPromptSubmit", None, &[&project]))
        .local_settings(&settings("UserPromptSubmit", None, &[&local]));
    let f = c.fire_with(
        &json!({"event": "user_prompt", "session_id": "s1", "prompt": "x"}),
        &["--claude-settings", &flag_settings],
    );
    let texts: Vec<String> = f.outcome["context"]
        .as_array()
        .unwrap_or_else(|| panic!("{}", f.outcome))
        .iter()
        .map(|c| c["text"].as_str().unwrap_or_default().to_owned())
        .collect();
    let order: Vec<&str> = texts
        .iter()
        .filter_map(|t| {
            ["project", "flag", "user", "local"]
                .into_iter()
                .find(|l| t.contains(&format!("UPS_{l}")))
        })
        .collect();
    assert_eq!(order, ["project", "flag", "user", "local"], "{texts:?}");
}

/// Recorded (`r2_subagent`): a hook inside a sub-agent gets `agent_id` and
/// `agent_type` after `permission_mode`; SubagentStop's payload has the
/// recorded keys in the recorded order, and agent-type matchers filter it.
#[test]
fn r2_subagent_payloads_inside_a_sub_agent_and_at_its_stop() {
    let c = Claude::new();
    let pre = c.hook("pre", "");
    let stop = c.hook("stop", "");
    let explore = c.hook("explore", "");
    let c = c.project_settings(&json!({"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": pre}]}],
        "SubagentStop": [
            {"matcher": "general-purpose", "hooks": [{"type": "command", "command": stop}]},
            {"matcher": "Explore", "hooks": [{"type": "command", "command": explore}]}]}}));
    let mut before = bash_before("ls");
    before["agent_id"] = json!("a1");
    before["agent_type"] = json!("general-purpose");
    before["permission_mode"] = json!("default");
    before["prompt_id"] = json!("p1");
    c.fire(&before);
    // Both payloads start so (recorded).
    let head = [
        "session_id",
        "transcript_path",
        "cwd",
        "prompt_id",
        "permission_mode",
        "agent_id",
        "agent_type",
        "hook_event_name",
    ];
    let with =
        |tail: &[&'static str]| -> Vec<&'static str> { head.iter().chain(tail).copied().collect() };
    assert_eq!(
        keys(&c.received("pre").unwrap()),
        with(&["tool_name", "tool_input", "tool_use_id"])
    );
    c.fire(
        &json!({"event": "subagent_stop", "session_id": "s1", "prompt_id": "p1",
        "permission_mode": "default", "agent_id": "a1", "agent_type": "general-purpose",
        "last_assistant_message": "done"}),
    );
    assert_eq!(c.runs_of("explore"), 0, "agent-type matchers filter");
    let got = c.received("stop").unwrap();
    assert_eq!(
        keys(&got),
        with(&[
            "stop_hook_active",
            "agent_transcript_path",
            "last_assistant_message",
            "background_tasks",
            "session_crons"
        ])
    );
    assert_eq!(got["stop_hook_active"], false);
    assert_eq!(got["last_assistant_message"], "done");
}

/// Recorded (`r2_subagent_stop_block`): a SubagentStop block gives the
/// sub-agent another turn with `Stop hook feedback:` and the reason, and
/// its next SubagentStop has `stop_hook_active: true`.
#[test]
fn r2_subagent_stop_block_continues_the_sub_agent() {
    let c = Claude::new();
    let stop = c.hook(
        "stop",
        r#"--once --stdout '{"decision": "block", "reason": "keep going"}'"#,
    );
    let c = c.project_settings(&settings("SubagentStop", None, &[&stop]));
    let event = json!({"event": "subagent_stop", "session_id": "s1",
        "agent_id": "a1", "agent_type": "general-purpose"});
    let f = c.fire(&event);
    assert_eq!(
        f.outcome["continuation"]["prompt"],
        stop_block_feedback("SubagentStop", &stop, "keep going"),
        "{}",
        f.outcome
    );
    let f = c.fire(&event);
    assert!(f.outcome.get("continuation").is_none(), "{}", f.outcome);
    assert_eq!(c.received("stop").unwrap()["stop_hook_active"], true);
}

/// Recorded (`r2_timeout_float`): a fractional `timeout` is honoured
/// (Claude Code cancelled a `timeout: 1.5` hook at about 1523 ms); the
/// hook decides nothing (`k`: fail-open, nothing for the model).
#[test]
fn r2_timeout_float_cancels_at_the_fraction() {
    let c = Claude::new();
    let slow = c.hook("slow", "--sleep 10 --exit 2 --stderr late");
    let c = c.project_settings(&json!({"hooks": {"PreToolUse": [{"matcher": "Bash",
        "hooks": [{"type": "command", "command": slow, "timeout": 1.5}]}]}}));
    let f = c.fire(&bash_before("ls"));
    assert_eq!(f.outcome["decision"], "proceed", "{}", f.outcome);
    assert_eq!(f.runs()[0]["error"], "timeout", "{}", f.outcome);
    let ms = f.runs()[0]["duration_ms"].as_f64().unwrap();
    assert!((1450.0..4000.0).contains(&ms), "{ms}");
    assert!(f.outcome.get("notices").is_none(), "{}", f.outcome);
    assert!(
        f.outcome["warnings"]
            .to_string()
            .contains("Hook timed out after 1.5s and was cancelled"),
        "{}",
        f.outcome
    );
}

/// Recorded (`r4_timeout_huge`): a `timeout` past what Node's timer holds
/// (here 1e18 s) loads, the file with it, and (2.1.332) is capped at about
/// 24.8 days: the hook runs to its end and its exit 2 denies (2.1.197 timed
/// it out at once). A `timeout` under a millisecond still times the hook
/// out at once; the other handler runs either way.
#[test]
fn r4_a_timeout_past_node_s_timer_is_capped_and_one_under_a_millisecond_fires_at_once() {
    let c = Claude::new();
    let huge = c.hook("huge", "--sleep 0.2 --exit 2 --stderr HUGE_TIMEOUT_DENY");
    let other = c.hook("other", "");
    let c = c.project_settings(&json!({"hooks": {"PreToolUse": [{"matcher": "Bash",
        "hooks": [{"type": "command", "command": huge, "timeout": 1e18},
            {"type": "command", "command": other}]}]}}));
    let f = c.fire(&bash_before("ls"));
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);
    assert_eq!(c.runs_of("other"), 1);
    assert!(
        f.stderr.contains("it is capped at 2147483.647 s"),
        "{}",
        f.stderr
    );

    let c = Claude::new();
    let tiny = c.hook("tiny", "--sleep 0.5 --exit 2 --stderr TINY_TIMEOUT_DENY");
    let c = c.project_settings(&json!({"hooks": {"PreToolUse": [{"matcher": "Bash",
        "hooks": [{"type": "command", "command": tiny, "timeout": 0.0001}]}]}}));
    let f = c.fire(&bash_before("ls"));
    assert_eq!(f.outcome["decision"], "proceed", "{}", f.outcome);
    assert_eq!(f.runs()[0]["error"], "timeout", "{}", f.outcome);
    assert!(f.stderr.contains("is under a millisecond"), "{}", f.stderr);
}

/// Recorded (`r2_exec_args`): `"shell": "bash"` still runs `/bin/sh`;
/// `"shell": "powershell"` without PowerShell is a non-blocking error in
/// Claude Code's words; in a settings file an unbraced `$CLAUDE_PLUGIN_ROOT`
/// is only an empty variable (not refused), and in shell form a quoted
/// `'${CLAUDE_PROJECT_DIR}'` stays as written.
#[test]
fn r2_exec_args_shells_and_variables_in_shell_form() {
    let c = Claude::new();
    let dir = c.hook_dir().display().to_string();
    let bash = format!("echo \"$0|${{BASH_VERSION:-nobash}}\" > '{dir}/shell_bash'");
    let pwsh = "echo never".to_owned();
    let plugin_var = format!("echo \"[$CLAUDE_PLUGIN_ROOT]\" > '{dir}/plugin_var'");
    let quoted = format!("echo '${{CLAUDE_PROJECT_DIR}}' > '{dir}/quoted'");
    let c = c.project_settings(
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": bash, "shell": "bash"},
        {"type": "command", "command": pwsh, "shell": "powershell"},
        {"type": "command", "command": plugin_var},
        {"type": "command", "command": quoted}]}]}}),
    );
    let f = c.fire_cmd(
        {
            let mut cmd = crate::util::latch();
            // No PowerShell on this PATH (the hooks need only /bin/sh and its
            // builtins).
            cmd.env("PATH", c.hook_dir());
            cmd
        },
        &bash_before("ls"),
        &[],
    );
    let read = |name: &str| std::fs::read_to_string(c.hook_dir().join(name)).unwrap_or_default();
    assert_eq!(read("shell_bash"), "/bin/sh|nobash\n");
    assert_eq!(read("plugin_var"), "[]\n");
    assert_eq!(read("quoted"), "${CLAUDE_PROJECT_DIR}\n");
    assert!(
        f.outcome["warnings"].to_string().contains(
            "Failed to run: Hook \\\"echo never\\\" has shell: 'powershell' but no PowerShell executable (pwsh or powershell) was found on PATH. Install PowerShell, or remove \\\"shell\\\": \\\"powershell\\\" to use bash."
        ),
        "{}",
        f.outcome
    );
    assert_eq!(f.outcome["decision"], "proceed");
}

/// Recorded (`r2_plugin`): a plugin hook's exit-2 text quotes its command
/// with `${CLAUDE_PLUGIN_ROOT}` expanded and ends naming the plugin
/// (2.1.332; 2.1.197 quoted it as written, with no plugin line), and a
/// plugin's SessionStart output reads like any other, with no plugin label.
#[test]
fn r2_plugin_texts_quote_the_expanded_command_and_name_the_plugin() {
    let deny = "${CLAUDE_PLUGIN_ROOT}/deny.sh";
    let c = Claude::new().plugin(
        "guard",
        &json!({"hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": deny}]}],
            "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo HELLO"}]}]}}),
    );
    crate::util::write_script(
        &c.root.path().join("plugins/guard"),
        "deny.sh",
        "#!/bin/sh\necho nope >&2\nexit 2\n",
    );
    let f = c.fire(&bash_before("ls"));
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);
    assert_eq!(
        texts(&f.outcome["notices"]),
        // stderr as written, newline and all (r8_pre_missing_script_py).
        [format!(
            "PreToolUse:Bash hook error: [{}/deny.sh]: nope\n\nThis hook comes from the guard@inline plugin.",
            c.root.path().join("plugins/guard").display()
        )]
    );
    // With the command hidden, the plugin's line stays.
    let f = c.fire_with(&bash_before("ls"), &["--claude-hide-commands"]);
    assert_eq!(
        texts(&f.outcome["notices"]),
        ["PreToolUse:Bash hook error: nope\n\nThis hook comes from the guard@inline plugin."]
    );
    let f = c.fire(&json!({"event": "session_start", "session_id": "s1", "source": "startup"}));
    assert_eq!(
        texts(&f.outcome["context"]),
        ["<system-reminder>\nSessionStart:startup hook success: HELLO\n</system-reminder>"]
    );
}

/// Recorded (`r2_async_rewake_during`, `r2_async_rewake_after_end`): an
/// `asyncRewake` hook is not sent to the background; the event waits for
/// it and its answers are the ordinary PostToolUse texts.
#[test]
fn r2_async_rewake_runs_like_a_synchronous_hook() {
    let c = Claude::new();
    let block = c.hook("block", "--sleep 0.3 --exit 2 --stderr WOKE");
    let ctx = c.hook(
        "ctx",
        r#"--stdout '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "LATE"}}'"#,
    );
    let c = c.project_settings(
        &json!({"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": block, "asyncRewake": true},
        {"type": "command", "command": ctx, "asyncRewake": true}]}]}}),
    );
    let after = bash_after("echo hi", json!({"stdout": "hi"}));
    let f = c.fire(&after);
    // In the order the hooks finished: the context first.
    assert_eq!(
        texts(&f.outcome["context"]),
        [
            "<system-reminder>\nPostToolUse:Bash hook additional context: LATE\n</system-reminder>",
            format!(
                "<system-reminder>\nPostToolUse:Bash hook blocking error from command: \"{block}\": [{block}]: WOKE\n</system-reminder>"
            )
            .as_str(),
        ],
        "{}",
        f.outcome
    );
}

#[test]
fn a_json_answer_of_megabytes_is_read_whole_and_one_past_the_limit_is_not_let_through_silently() {
    let answer = |bytes: usize| {
        format!(
            "cat >/dev/null; printf '{{\"decision\":\"block\",\"reason\":\"'; head -c {bytes} /dev/zero | tr '\\0' a; printf '\"}}'"
        )
    };
    // 2 MB: Claude Code reads it whole and denies; so does latch.
    let c = Claude::new().project_settings(&settings(
        "PreToolUse",
        Some("Bash"),
        &[&answer(2_000_000)],
    ));
    let f = c.fire(&bash_before("ls"));
    assert_eq!(f.outcome["decision"], "deny", "{}", f.runs()[0]);
    // Past 8 MiB latch cannot read the answer: a warning, not plain text.
    let c = Claude::new().project_settings(&settings(
        "PreToolUse",
        Some("Bash"),
        &[&answer(9_000_000)],
    ));
    let f = c.fire(&bash_before("ls"));
    assert_eq!(f.runs()[0]["status"], "failed", "{}", f.runs()[0]);
    assert!(
        f.warnings_contain(
            "the hook printed more than 8 MiB, and latch reads no JSON answer past that"
        ),
        "{}",
        f.outcome
    );
}

#[test]
fn an_async_answer_that_names_no_event_says_nothing() {
    let c = Claude::new();
    let unnamed = c.hook(
        "unnamed",
        r#"--stdout '{"hookSpecificOutput": {"additionalContext": "UNNAMED"}}'"#,
    );
    // Finishes later: once its answer is there, the other's would be too.
    let named = c.hook(
        "named",
        r#"--sleep 0.5 --stdout '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "NAMED"}}'"#,
    );
    let c = c.project_settings(
        &json!({"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": unnamed, "async": true},
        {"type": "command", "command": named, "async": true}]}]}}),
    );
    c.fire(&bash_after("ls", json!({"stdout": "x"})));
    let mut next = bash_after("ls", json!({"stdout": "y"}));
    next["tool"]["name"] = json!("Read");
    let context = c.context_arriving(&next);
    assert_eq!(
        texts(&context),
        ["<system-reminder>\nNAMED\n</system-reminder>"]
    );
}

/// Every handler of an event starts at once, three pipes each: under a
/// low soft limit of open files, a file with many handlers would keep
/// the others, a deny among them, from starting. `latch fire` raises the
/// soft limit to the hard one first, as Claude Code (Node) does.
#[test]
fn many_handlers_under_a_low_open_file_limit_still_let_a_deny_run() {
    let c = Claude::new();
    let many: Vec<Value> = (0..40)
        .map(|i| json!({"type": "command", "command": format!("sleep 0.3 # {i}")}))
        .collect();
    let c =
        c.project_settings(&json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": many}]}}));
    // Managed settings' handlers come last.
    c.write(
        "managed/managed-settings.json",
        &settings("PreToolUse", Some("Bash"), &["echo policy >&2; exit 2"]).to_string(),
    );
    let out = c.fire_under_ulimit("-Sn 64", &bash_before("rm -rf /"));
    let outcome: Value = serde_json::from_slice(&out.stdout).expect("an outcome");
    assert_eq!(outcome["decision"], "deny", "{outcome}");
}

/// Under a hard limit of open files latch cannot raise, the handlers of
/// one event cannot all start at once. The ones the system refuses start
/// once the others have ended, so the deny among them still runs, and
/// every handler runs once.
#[test]
fn handlers_starved_of_open_files_start_once_the_others_end() {
    let c = Claude::new().project_settings(&crate::claude_util::starving_settings());
    let out = c.fire_under_ulimit("-n 32", &bash_before("rm -rf /"));
    let outcome: Value = serde_json::from_slice(&out.stdout).expect("an outcome");
    assert_eq!(outcome["decision"], "deny", "{outcome}");
    let statuses: Vec<&str> = outcome["runs"]
        .as_array()
        .expect("runs")
        .iter()
        .map(|r| r["status"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(statuses.len(), 25, "{outcome}");
    assert!(
        statuses[..24].iter().all(|s| *s == "ok") && statuses[24] == "blocked",
        "{statuses:?}"
    );
    // The limit did bite: without the new tries, some handlers failed
    // with "Too many open files" (checked by hand with the tries off).
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("Too many open files"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A repository's guard rule, `if: "Bash(git *)"`, reads heredocs as
/// Claude Code does (recorded: `r9_if_heredoc`, `r9_if_subst`): an unquoted
/// heredoc fails open whatever its body, a quoted one is data, and Claude
/// Code's commit idiom `git commit -m "$(cat <<'EOF' … EOF)"` is a plain
/// `git commit`, which `Bash(git push *)` does not match.
#[test]
fn r9_if_heredocs_through_the_binary() {
    let c = Claude::new();
    let git = c.hook("git", "");
    let push = c.hook("push", "");
    let c = c.project_settings(
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": git, "if": "Bash(git *)"},
        {"type": "command", "command": push, "if": "Bash(git push *)"}]}]}}),
    );
    let runs = |c: &Claude| (c.runs_of("git"), c.runs_of("push"));
    c.fire(&bash_before("cat <<EOF\nhello\nEOF"));
    assert_eq!(runs(&c), (1, 1), "an unquoted heredoc fails open");
    c.fire(&bash_before("cat <<'EOF'\ngit push\nEOF"));
    assert_eq!(runs(&c), (1, 1), "a quoted heredoc's body is data");
    c.fire(&bash_before(
        "git commit -m \"$(cat <<'EOF'\nFix it\nEOF\n)\"",
    ));
    assert_eq!(runs(&c), (2, 1), "the commit idiom is a git commit");
}
