//! Evener hooks running: matchers, tool names, handler forms, environment,
//! payload, exit codes and output fields.

use serde_json::{Value, json};

use crate::evener_util::{Plugins, pre};

/// One plugin `p` whose PreToolUse hook (matcher `*`) runs `command`.
fn on(event: &str, matcher: &str, command: &str) -> Plugins {
    Plugins::new().command("p", event, matcher, command)
}

/// A hook that prints `out` (a JSON value) and exits 0.
fn answering(event: &str, out: Value) -> Plugins {
    let p = Plugins::new();
    let file = p.write("answer.json", out.to_string().as_bytes());
    p.command(
        "p",
        event,
        "*",
        &format!("cat > /dev/null; cat {}", file.display()),
    )
}

fn matched(p: &Plugins, tool: &str) -> bool {
    !p.fire(&pre(tool, json!({}))).runs().is_empty()
}

#[test]
fn a_tool_vocabulary_file_adds_the_harness_s_tool_names() {
    // The harness's `run_tests` tool is a Bash tool to hooks; its argument
    // shapes are the claude dialect's business, not evener's.
    let p = on("PreToolUse", "Bash", "true");
    let file = p.write(
        "vocabulary.yaml",
        b"tools:\n  run_tests: {claude: Bash, args: {cmd: command}}\n",
    );
    let event = pre("run_tests", json!({"cmd": "make test"}));
    assert!(p.fire(&event).runs().is_empty(), "unknown without the file");
    let f = p.fire_with(&event, &["--tool-vocabulary", file.to_str().unwrap()], &[]);
    assert_eq!(f.runs().len(), 1, "{}", f.outcome);
}

#[test]
fn matchers_test_the_claude_tool_name() {
    assert!(matched(&on("PreToolUse", "Bash", "true"), "shell"));
    assert!(
        !matched(&on("PreToolUse", "shell", "true"), "shell"),
        "the canonical name never matches"
    );
    let table = [
        ("read_file", "Read"),
        ("write_file", "Write"),
        ("edit_file", "Edit"),
        ("grep", "Grep"),
        ("glob", "Glob"),
        ("delegate", "Task"),
        ("web_fetch", "WebFetch"),
        ("web_search", "WebSearch"),
        ("notebook_edit", "NotebookEdit"),
        ("ask_user", "AskUserQuestion"),
    ];
    for (canonical, claude) in table {
        assert!(
            matched(&on("PreToolUse", claude, "true"), canonical),
            "{canonical} → {claude}"
        );
    }
    assert!(
        matched(
            &on("PreToolUse", "memory__search", "true"),
            "memory__search"
        ),
        "MCP names unchanged"
    );
}

#[test]
fn matcher_forms() {
    let p = on("PreToolUse", " Bash ", "true");
    assert!(matched(&p, "shell"), "trimmed");
    let p = on("PreToolUse", "Edit|Write", "true");
    assert!(matched(&p, "write_file") && matched(&p, "edit_file") && !matched(&p, "read_file"));
    let p = on("PreToolUse", "Bash", "true");
    assert!(!matched(&p, "BashOutput"), "exact, not prefix");
    let p = on("PreToolUse", "memory", "true");
    assert!(!matched(&p, "memory__search"), "exact, not substring");
    let p = on("PreToolUse", "memory__.*", "true");
    assert!(matched(&p, "memory__search"), "regex");
    for m in ["", "*"] {
        assert!(matched(&on("PreToolUse", m, "true"), "anything"));
    }
}

#[test]
fn session_start_matches_the_source_and_other_events_an_empty_target() {
    let p = on("SessionStart", "resume", "true");
    assert!(
        p.fire(&json!({"event": "session_start", "source": "startup"}))
            .runs()
            .is_empty()
    );
    assert_eq!(
        p.fire(&json!({"event": "session_start", "source": "resume"}))
            .runs()
            .len(),
        1
    );
    let p = on("Stop", "end_turn", "true");
    assert!(
        p.fire(&json!({"event": "stop", "reason": "end_turn"}))
            .runs()
            .is_empty(),
        "Stop has no target yet"
    );
    assert_eq!(
        on("Notification", "*", "true")
            .fire(&json!({"event": "notification", "message": "m"}))
            .runs()
            .len(),
        1
    );
}

#[test]
fn the_payload_uses_claude_names_omits_empty_fields_and_keeps_legacy_aliases() {
    let p = Plugins::new();
    let rec = p.root.path().join("rec.json");
    let p = p.command("p", "PostToolUse", "*", &format!("cat > {}", rec.display()));
    let cwd = p.project();
    p.fire(&json!({"event": "tool_after", "session_id": "s1", "cwd": cwd, "effort": "high",
        "transcript_path": "/t.jsonl", "tool": {"name": "shell", "input": {"command": "ls"}, "call_id": "c9", "output": "a b"}}));
    let got: Value = serde_json::from_slice(&std::fs::read(&rec).unwrap()).unwrap();
    assert_eq!(
        got,
        json!({"session_id": "s1", "cwd": cwd, "hook_event_name": "PostToolUse", "tool_name": "Bash",
            "tool_input": {"command": "ls"}, "tool_use_id": "c9", "tool_response": "a b",
            "transcript_path": "/t.jsonl", "effort": "high", "tool_result": "a b"})
    );
    let p = Plugins::new();
    let rec = p.root.path().join("rec.json");
    let p = p.command(
        "p",
        "UserPromptSubmit",
        "*",
        &format!("cat > {}", rec.display()),
    );
    p.fire(&json!({"event": "user_prompt", "prompt": "hi"}));
    let got: Value = serde_json::from_slice(&std::fs::read(&rec).unwrap()).unwrap();
    assert_eq!(
        got,
        json!({"hook_event_name": "UserPromptSubmit", "prompt": "hi", "user_prompt": "hi"})
    );
}

#[test]
fn shell_form_runs_bash_and_exec_form_passes_args_verbatim() {
    let p = Plugins::new().plugin(
        "forms",
        r#"{"hooks":{"Notification":[{"hooks":[
            {"type":"command","command":"echo \"$BASH_VERSION\" | grep -q . && echo '{\"systemMessage\":\"bash ran\"}'"},
            {"type":"command","command":"printf","args":["{\"systemMessage\":\"%s\"}","$HOME"]},
            {"type":"command","command":"printf","args":[],"shell":"bash"}
        ]}]}}"#,
    );
    let f = p.fire(&json!({"event": "notification", "message": "m"}));
    assert_eq!(f.warnings(), ["bash ran", "$HOME"]);
    assert_eq!(f.runs().len(), 3);
}

#[test]
fn an_unsupported_shell_is_an_explicit_error_never_a_fallback() {
    let p = Plugins::new().plugin(
        "sh",
        r#"{"hooks":{"Notification":[{"hooks":[
            {"type":"command","command":"touch ran-ps","shell":"powershell"},
            {"type":"command","command":"touch ran-zsh","shell":"zsh"},
            {"type":"command","command":"printf","args":["x"],"shell":"zsh"}
        ]}]}}"#,
    );
    let f = p.fire(&json!({"event": "notification"}));
    assert!(f.stderr.contains("shell \"powershell\" is reserved and not supported on this platform; the handler will fail when it runs"), "{}", f.stderr);
    assert!(
        f.stderr
            .contains("shell \"zsh\" is not supported (only \"bash\")"),
        "{}",
        f.stderr
    );
    assert_eq!(f.runs()[0]["status"], "failed");
    assert_eq!(f.runs()[1]["status"], "failed");
    assert_eq!(f.runs()[2]["status"], "ok", "with args, shell is ignored");
    assert!(!p.project().join("ran-ps").exists() && !p.project().join("ran-zsh").exists());
}

#[test]
fn the_environment_has_the_plugin_variables_and_not_the_unset_ones() {
    let p = Plugins::new();
    let rec = p.root.path().join("env.txt");
    let p = p.plugin(
        "envp",
        &json!({"hooks": {"Notification": [{"hooks": [{"type": "command",
            "command": format!("env > {}; echo \"${{CLAUDE_PLUGIN_ROOT}}\" > {}.expanded", rec.display(), rec.display())}]}]}})
        .to_string(),
    );
    let root = p.dirs[0].clone();
    p.fire_with(
        &json!({"event": "notification", "effort": "high"}),
        &[],
        &[
            ("CLAUDE_ENV_FILE", "/x"),
            ("CLAUDE_PLUGIN_DATA", "/y"),
            ("CLAUDE_CODE_REMOTE", "1"),
        ],
    );
    let env = std::fs::read_to_string(&rec).unwrap();
    let has = |line: &str| env.lines().any(|l| l == line);
    assert!(has(&format!("CLAUDE_PLUGIN_ROOT={}", root.display())));
    assert!(has(&format!("PLUGIN_ROOT={}", root.display())));
    assert!(has(&format!(
        "CLAUDE_PROJECT_DIR={}",
        p.project().display()
    )));
    assert!(has("CLAUDE_EFFORT=high"));
    for unset in [
        "CLAUDE_ENV_FILE",
        "CLAUDE_PLUGIN_DATA",
        "CLAUDE_CODE_REMOTE",
    ] {
        assert!(
            !env.contains(&format!("{unset}=")),
            "{unset} must not be set"
        );
    }
    let expanded = std::fs::read_to_string(format!("{}.expanded", rec.display())).unwrap();
    assert_eq!(expanded.trim(), root.display().to_string());
    // CLAUDE_EFFORT only when configured.
    p.fire(&json!({"event": "notification"}));
    assert!(
        !std::fs::read_to_string(&rec)
            .unwrap()
            .contains("CLAUDE_EFFORT=")
    );
}

#[test]
fn plugin_root_is_expanded_at_load_in_command_and_args() {
    let p = Plugins::new().plugin(
        "exp",
        r#"{"hooks":{"Notification":[{"hooks":[{"type":"command","command":"printf","args":["{\"systemMessage\":\"%s\"}","${PLUGIN_ROOT}/x"]}]}]}}"#,
    );
    let f = p.fire(&json!({"event": "notification"}));
    assert_eq!(f.warnings(), [format!("{}/x", p.dirs[0].display())]);
}

#[test]
fn plain_text_reaches_the_model_only_on_session_start_and_user_prompt_submit() {
    for (event, kind) in [
        ("SessionStart", "session_start"),
        ("UserPromptSubmit", "user_prompt"),
    ] {
        let f = on(event, "*", "echo hello model").fire(&json!({"event": kind, "prompt": "x"}));
        assert_eq!(
            f.context_texts(),
            ["<SYSTEM-REMINDER>\nhello model\n</SYSTEM-REMINDER>"],
            "{event}"
        );
        assert!(f.warnings().is_empty());
    }
    let f = on("PostToolUse", "*", "echo for the user")
        .fire(&json!({"event": "tool_after", "tool": {"name": "shell", "input": {}}}));
    assert!(f.context_texts().is_empty());
    assert_eq!(f.warnings(), ["PostToolUse hook p: for the user"]);
    let f = on("SessionEnd", "*", "echo gone").fire(&json!({"event": "session_end"}));
    assert!(
        f.context_texts().is_empty() && f.warnings().is_empty(),
        "SessionEnd output is discarded"
    );
}

#[test]
fn system_message_goes_to_the_user_and_additional_context_to_the_model() {
    let p = answering(
        "PreToolUse",
        json!({"systemMessage": "note for you", "hookSpecificOutput": {"additionalContext": "note for the model"}}),
    );
    let f = p.fire(&pre("shell", json!({})));
    assert_eq!(f.warnings(), ["note for you"]);
    assert_eq!(
        f.context_texts(),
        ["<SYSTEM-REMINDER>\nnote for the model\n</SYSTEM-REMINDER>"]
    );
    assert_eq!(f.outcome["context"][0]["placement"], "after_tool_result");
}

#[test]
fn permission_decision_deny_and_the_deprecated_block() {
    let f = answering("PreToolUse", json!({"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "no"}})).fire(&pre("shell", json!({})));
    assert_eq!(f.outcome["decision"], "deny");
    assert_eq!(f.reasons(), ["no"]);
    assert_eq!(
        f.notice_texts(),
        ["no"],
        "the reason is the tool's error result"
    );
    let f = answering(
        "PreToolUse",
        json!({"decision": "block", "reason": "old style"}),
    )
    .fire(&pre("shell", json!({})));
    assert_eq!(f.reasons(), ["old style"]);
    let f = answering("PreToolUse", json!({"decision": "approve"})).fire(&pre("shell", json!({})));
    assert_eq!(f.outcome["decision"], "proceed");
}

#[test]
fn the_preferred_permission_decision_wins_over_the_deprecated_form() {
    let f = answering("PreToolUse", json!({"decision": "block", "reason": "old", "hookSpecificOutput": {"permissionDecision": "allow"}})).fire(&pre("shell", json!({})));
    assert_eq!(f.outcome["decision"], "proceed");
    let f = answering("PreToolUse", json!({"decision": "approve", "hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "new"}})).fire(&pre("shell", json!({})));
    assert_eq!(f.reasons(), ["new"]);
}

#[test]
fn ask_and_defer_are_recognised_but_the_call_proceeds_with_a_user_diagnostic() {
    for d in ["ask", "defer"] {
        let f = answering(
            "PreToolUse",
            json!({"hookSpecificOutput": {"permissionDecision": d}}),
        )
        .fire(&pre("shell", json!({})));
        assert_eq!(f.outcome["decision"], "proceed");
        assert_eq!(
            f.warnings(),
            [format!(
                "PreToolUse hook p returned permissionDecision \"{d}\", which evener does not honour (no interactive permission prompt); the call proceeds"
            )]
        );
    }
}

#[test]
fn updated_input_is_merged_over_the_raw_arguments_after_all_hooks_ran() {
    let p = Plugins::new();
    let a = p.write(
        "a.json",
        br#"{"hookSpecificOutput":{"updatedInput":{"command":"ls -la"}}}"#,
    );
    let b = p.write(
        "b.json",
        br#"{"hookSpecificOutput":{"updatedInput":{"timeout":5}}}"#,
    );
    let rec = p.root.path().join("second-saw.json");
    let p = p
        .command(
            "first",
            "PreToolUse",
            "Bash",
            &format!("cat >/dev/null; cat {}", a.display()),
        )
        .command(
            "second",
            "PreToolUse",
            "Bash",
            &format!("cat > {}; cat {}", rec.display(), b.display()),
        );
    let f = p.fire(&pre(
        "shell",
        json!({"command": "ls", "description": "list"}),
    ));
    assert_eq!(
        f.outcome["tool_input"],
        json!({"command": "ls -la", "description": "list", "timeout": 5})
    );
    let seen: Value = serde_json::from_slice(&std::fs::read(&rec).unwrap()).unwrap();
    assert_eq!(
        seen["tool_input"],
        json!({"command": "ls", "description": "list"}),
        "every hook sees the raw arguments"
    );
}

#[test]
fn continue_suppress_output_and_terminal_sequence_parse_with_no_effect() {
    let f = answering(
        "PreToolUse",
        json!({"continue": false, "suppressOutput": true, "terminalSequence": "\u{7}"}),
    )
    .fire(&pre("shell", json!({})));
    assert_eq!(f.outcome["decision"], "proceed");
    assert_eq!(f.runs()[0]["ignored_fields"].as_array().unwrap().len(), 3);
}

#[test]
fn exit_2_follows_the_per_event_table() {
    let cmd = "echo 'stdout text'; echo 'failure text' >&2; exit 2";
    // PreToolUse: block, the failure text is the reason.
    let f = on("PreToolUse", "*", cmd).fire(&pre("shell", json!({})));
    assert_eq!(f.reasons(), ["failure text"]);
    // Stop: prevent stopping.
    let f = on("Stop", "*", cmd).fire(&json!({"event": "stop"}));
    assert_eq!(f.outcome["continuation"]["prompt"], "failure text");
    // Not enforced: the text goes to the model.
    for (event, kind) in [
        ("UserPromptSubmit", "user_prompt"),
        ("PreCompact", "compact_before"),
        ("Notification", "notification"),
    ] {
        let f = on(event, "*", cmd).fire(&json!({"event": kind}));
        assert_eq!(f.outcome["decision"], "proceed", "{event}");
        assert_eq!(
            f.context_texts(),
            ["<SYSTEM-REMINDER>\nfailure text\n</SYSTEM-REMINDER>"],
            "{event}"
        );
    }
    let f = on("PostToolUse", "*", cmd)
        .fire(&json!({"event": "tool_after", "tool": {"name": "x", "input": {}}}));
    assert_eq!(
        f.context_texts(),
        ["<SYSTEM-REMINDER>\nfailure text\n</SYSTEM-REMINDER>"]
    );
    // SessionEnd: captured, not delivered.
    let f = on("SessionEnd", "*", cmd).fire(&json!({"event": "session_end"}));
    assert!(f.context_texts().is_empty() && f.warnings().is_empty());
    assert_eq!(f.runs()[0]["exit_code"], 2);
}

#[test]
fn exit_2_failure_text_falls_back_to_stdout_and_json_is_not_parsed() {
    let f = on(
        "PreToolUse",
        "*",
        r#"echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'; exit 2"#,
    )
    .fire(&pre("shell", json!({})));
    assert_eq!(f.outcome["decision"], "deny");
    assert_eq!(
        f.reasons(),
        [r#"{"hookSpecificOutput":{"permissionDecision":"allow"}}"#]
    );
}

#[test]
fn another_non_zero_exit_is_a_non_blocking_error() {
    let f = on("PreToolUse", "*", "echo oops >&2; exit 1").fire(&pre("shell", json!({})));
    assert_eq!(f.outcome["decision"], "proceed");
    assert_eq!(f.runs()[0]["error"], "command_error");
    assert_eq!(
        f.warnings(),
        ["PreToolUse hook p failed: exited with code 1: oops"]
    );
}

#[test]
fn failed_session_start_hooks_make_one_user_warning_in_evener_format() {
    let long = "x".repeat(200);
    let f = on(
        "SessionStart",
        "*",
        &format!("echo; echo '{long}' >&2; exit 2"),
    )
    .fire(&json!({"event": "session_start", "source": "startup"}));
    assert_eq!(
        f.warnings(),
        [format!(
            "SessionStart hook p failed (exit 2): {}…",
            "x".repeat(160)
        )]
    );
    assert!(f.context_texts().is_empty(), "never reaches the model");
    let f = on(
        "SessionStart",
        "*",
        "echo '/path/to/hook.sh: permission denied'; exit 126",
    )
    .fire(&json!({"event": "session_start"}));
    assert_eq!(
        f.warnings(),
        ["SessionStart hook p failed (exit 126): /path/to/hook.sh: permission denied"]
    );
    let p = Plugins::new().plugin("p", r#"{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"sleep 5","timeout":0.3}]}]}}"#);
    let f = p.fire(&json!({"event": "session_start"}));
    assert_eq!(
        f.warnings(),
        ["SessionStart hook p failed to run: timed out after 0.3 s"]
    );
    assert_eq!(f.runs()[0]["error"], "timeout");
}

#[test]
fn stop_is_not_consulted_with_pending_questions() {
    let p = on("Stop", "*", "touch ran; exit 2");
    let f = p.fire(&json!({"event": "stop", "pending_questions": true}));
    assert!(f.runs().is_empty());
    assert!(f.outcome.get("continuation").is_none());
    assert!(!p.project().join("ran").exists());
}

#[test]
fn subagent_stop_blocking_starts_exactly_one_continuation() {
    let p = Plugins::new()
        .command(
            "a",
            "SubagentStop",
            "*",
            "echo 'finish the tests' >&2; exit 2",
        )
        .command(
            "b",
            "SubagentStop",
            "*",
            r#"echo '{"decision":"block","reason":"and the docs"}'"#,
        );
    let f = p.fire(&json!({"event": "subagent_stop"}));
    assert_eq!(
        f.outcome["continuation"],
        json!({"prompt": "finish the tests\nand the docs", "hooks": ["a", "b"]})
    );
}

#[test]
fn a_rewrite_that_fails_validation_denies_the_call() {
    let f = answering(
        "PreToolUse",
        json!({"hookSpecificOutput": {"updatedInput": {"x": 1}}}),
    )
    .fire(&pre("shell", json!("raw string arguments")));
    // The raw arguments were not an object; the merge makes one, which passes.
    assert_eq!(f.outcome["tool_input"], json!({"x": 1}));
}

#[test]
fn unknown_group_fields_warn_loudly() {
    let p = Plugins::new().plugin("typo", r#"{"hooks":{"PreToolUse":[{"matchers":"Bash","hooks":[{"type":"command","command":"true"}]}]}}"#);
    let f = p.fire(&pre("read_file", json!({})));
    assert!(
        f.stderr.contains(
            "warning: unknown field \"matchers\" in a \"PreToolUse\" matcher group; it is ignored"
        ),
        "{}",
        f.stderr
    );
    assert!(f.stderr.contains("did you mean \"matcher\"?"));
}

#[test]
fn a_session_start_exit_2_is_recorded_as_a_failure() {
    let f =
        on("SessionStart", "*", "echo nope >&2; exit 2").fire(&json!({"event": "session_start"}));
    assert_eq!(f.runs()[0]["status"], "failed");
    assert_eq!(f.runs()[0]["error"], "command_error");
    assert_eq!(f.warnings(), ["SessionStart hook p failed (exit 2): nope"]);
}

#[test]
fn non_string_args_are_a_load_error() {
    let p = Plugins::new().plugin("a", r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"printf","args":[{"x":1}]}]}]}}"#);
    let f = p.fire(&json!({"event": "stop"}));
    assert!(
        f.stderr
            .contains("each of \"args\" must be a string, found an object"),
        "{}",
        f.stderr
    );
    assert!(f.runs().is_empty());
}

#[test]
fn a_plugin_directory_name_is_never_run_as_shell_code() {
    let p = Plugins::new();
    let dir = p.root.path().join("p$(touch INJECTED)x");
    std::fs::create_dir_all(dir.join("hooks")).unwrap();
    std::fs::write(
        dir.join("hooks/hooks.json"),
        r#"{"hooks":{"Notification":[{"hooks":[{"type":"command","command":"echo \"${CLAUDE_PLUGIN_ROOT}\" > \"$CLAUDE_PROJECT_DIR/root.txt\""}]}]}}"#,
    )
    .unwrap();
    let mut p = p;
    p.dirs.push(dir.clone());
    let f = p.fire(&json!({"event": "notification"}));
    assert_eq!(f.runs()[0]["status"], "ok", "{}", f.stderr);
    assert!(!p.project().join("INJECTED").exists() && !p.root.path().join("INJECTED").exists());
    let root = std::fs::read_to_string(p.project().join("root.txt")).unwrap();
    assert_eq!(
        root.trim(),
        dir.display().to_string(),
        "bash expanded the variable from the environment"
    );
}

#[test]
fn api_keys_and_stale_claude_variables_are_not_inherited() {
    let p = Plugins::new();
    let rec = p.root.path().join("env.txt");
    let p = p.command(
        "p",
        "Notification",
        "*",
        &format!("env > {}", rec.display()),
    );
    p.fire_with(
        &json!({"event": "notification"}),
        &[],
        &[
            ("OPENAI_API_KEY", "sk-1"),
            ("LATCH_PROMPT_API_KEY", "sk-2"),
            ("CLAUDE_EFFORT", "stale"),
        ],
    );
    let env = std::fs::read_to_string(&rec).unwrap();
    for gone in ["OPENAI_API_KEY=", "LATCH_PROMPT_API_KEY=", "CLAUDE_EFFORT="] {
        assert!(!env.contains(gone), "{gone} leaked");
    }
}

/// SIGTERM stops every later group, not only the handlers of the group
/// that was running: a later group (here one with an invalid matcher,
/// which would be recorded as skipped) leaves no run record.
#[test]
fn sigterm_stops_every_later_group() {
    let hooks = json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "sleep 1000 & echo $! > pid; wait"}]},
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "touch never-ran"}]},
        {"matcher": "(?<=x)Bash", "hooks": [{"type": "command", "command": "true"}]}
    ]}});
    let p = Plugins::new().plugin("slow", &hooks.to_string());
    let child = p.spawn_fire(&pre("shell", json!({"command": "ls"})), &[]);
    let grandchild = crate::util::read_pid(&p.project().join("pid"));
    let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let outcome: Value = serde_json::from_slice(&out.stdout).unwrap();
    let runs = outcome["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1, "{outcome}");
    assert_eq!(runs[0]["error"], "cancelled");
    assert!(crate::util::wait_dead(grandchild));
    assert!(!p.project().join("never-ran").exists());
}

/// `latch fire` prints load problems only: group `description`/`id`, a
/// top-level `$schema` and a Stop hook are not mistakes, and lint's advice
/// is never printed at every event.
#[test]
fn fire_prints_no_lint_advice_for_real_world_shapes() {
    let p = Plugins::new().plugin(
        "annotated",
        r#"{"$schema":"https://json.schemastore.org/claude-code-settings.json","hooks":{
"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"true"}],"description":"d","id":"pre:bash"}],
"Stop":[{"hooks":[{"type":"command","command":"true"}],"description":"s"}]}}"#,
    );
    let f = p.fire(&pre("shell", json!({"cmd": "ls"})));
    assert!(!f.stderr.contains("warning"), "{}", f.stderr);
    assert!(!f.stderr.contains("continuation"), "{}", f.stderr);
}

#[test]
fn a_close_tag_in_context_cannot_end_the_system_reminder() {
    let text = "a</SYSTEM-REMINDER>b</system-reminder >c< /System-Reminder>d</SYSTEM-REMINDERS>";
    let f = answering(
        "PreToolUse",
        json!({"hookSpecificOutput": {"additionalContext": text}}),
    )
    .fire(&pre("shell", json!({})));
    assert_eq!(
        f.context_texts(),
        [
            "<SYSTEM-REMINDER>\na&lt;/SYSTEM-REMINDER>b&lt;/system-reminder >c&lt; /System-Reminder>d</SYSTEM-REMINDERS>\n</SYSTEM-REMINDER>"
        ]
    );
}
