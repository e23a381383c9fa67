//! What Claude Code 2.1.332 does that 2.1.197 did not, from the
//! re-recorded cases and the probes of `recordings/claude-2.1.332/`
//! (README.md there lists every difference; `spec/` says how each was
//! read). Each test names its cases.

use serde_json::{Value, json};

use crate::claude_util::{Claude, HttpStub, bash_after, bash_before, settings, texts};

/// One PreToolUse handler for Bash, with `extra` keys.
fn pre_handler(command: &str, extra: Value) -> Value {
    let mut handler = json!({"type": "command", "command": command});
    if let (Some(h), Some(extra)) = (handler.as_object_mut(), extra.as_object()) {
        h.extend(extra.clone());
    }
    json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]}})
}

/// drift_onfailure_block: `onFailure: "block"` makes an exit 1 deny, in
/// Claude Code's words, stderr after them; without it the exit 1 is a
/// non-blocking error and the tool runs.
#[test]
fn on_failure_block_turns_a_failed_hook_into_a_deny() {
    let c = Claude::new();
    let failing = c.hook("pre", "--exit 1 --stderr 'ONFAIL_SENTINEL'");
    let c = c.project_settings(&pre_handler(&failing, json!({"onFailure": "block"})));
    let f = c.fire(&bash_before("ls"));
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);
    assert_eq!(
        texts(&f.outcome["notices"]),
        [format!(
            "PreToolUse:Bash hook error: [{failing}]: failed; blocking because onFailure is \"block\"\nONFAIL_SENTINEL"
        )]
    );
    // "continue", the default, keeps the tool going.
    let c = c.project_settings(&pre_handler(&failing, json!({"onFailure": "continue"})));
    assert_eq!(c.fire(&bash_before("ls")).outcome["decision"], "proceed");

    // An exit 1 beside a valid answer fails too, unless the answer denies.
    let c = Claude::new();
    let answered = c.hook("pre", "--stdout '{}' --exit 1 --stderr E1");
    let c = c.project_settings(&pre_handler(&answered, json!({"onFailure": "block"})));
    assert_eq!(
        texts(&c.fire(&bash_before("ls")).outcome["notices"]),
        [format!(
            "PreToolUse:Bash hook error: [{answered}]: failed; blocking because onFailure is \"block\"\nE1"
        )]
    );
    let c = Claude::new();
    let denying = c.hook(
        "pre",
        r#"--stdout '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"OWN"}}' --exit 1"#,
    );
    let c = c.project_settings(&pre_handler(&denying, json!({"onFailure": "block"})));
    assert_eq!(
        texts(&c.fire(&bash_before("ls")).outcome["notices"]),
        ["PreToolUse:Bash hook error: OWN"]
    );

    // Without stderr, and for a timeout (nothing after the words).
    let c = Claude::new();
    let quiet = c.hook("pre", "--exit 3");
    let c = c.project_settings(&pre_handler(&quiet, json!({"onFailure": "block"})));
    assert_eq!(
        texts(&c.fire(&bash_before("ls")).outcome["notices"]),
        [format!(
            "PreToolUse:Bash hook error: [{quiet}]: failed; blocking because onFailure is \"block\"\nNo stderr output"
        )]
    );
    let c = Claude::new();
    let slow = c.hook("pre", "--sleep 5");
    let c = c.project_settings(&pre_handler(
        &slow,
        json!({"onFailure": "block", "timeout": 0.2}),
    ));
    assert_eq!(
        texts(&c.fire(&bash_before("ls")).outcome["notices"]),
        [format!(
            "PreToolUse:Bash hook error: [{slow}]: timed out; blocking because onFailure is \"block\""
        )]
    );
}

/// `onFailure` is ignored on Stop (Claude Code's `Bkn`); a value that is
/// neither `continue` nor `block` makes the entry invalid, so Claude Code
/// drops the file.
#[test]
fn on_failure_is_ignored_on_stop_and_a_bad_value_drops_the_file() {
    let c = Claude::new();
    let failing = c.hook("stop", "--exit 1 --stderr NO");
    let c = c.project_settings(&json!({"hooks": {"Stop": [{"hooks": [
        {"type": "command", "command": failing, "onFailure": "block"}]}]}}));
    let f = c.fire(&json!({"event": "stop", "session_id": "s1"}));
    assert!(f.outcome.get("continuation").is_none(), "{}", f.outcome);

    // A prompt handler has no `onFailure`: Claude Code strips the key.
    let c = Claude::new();
    let guard = c.hook("pre", "--exit 2 --stderr G");
    let c = c.project_settings(
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": guard},
        {"type": "prompt", "prompt": "ok?", "onFailure": "deny"}]}]}}),
    );
    let f = c.fire(&bash_before("ls"));
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);

    let c = Claude::new();
    let guard = c.hook("pre", "--exit 2 --stderr G");
    let c = c.project_settings(&pre_handler(&guard, json!({"onFailure": "always"})));
    let f = c.fire(&bash_before("ls"));
    assert_eq!(f.outcome["decision"], "proceed", "{}", f.outcome);
    assert!(
        f.stderr
            .contains("`onFailure` must be \"continue\" or \"block\", not a string"),
        "{}",
        f.stderr
    );
}

/// An http handler under `onFailure: "block"`: a status that is not 2xx
/// blocks too.
#[test]
fn on_failure_block_blocks_on_an_http_error() {
    let stub = HttpStub::start(vec![("/down", 500, "oops")]);
    let c = Claude::new().project_settings(&json!({"hooks": {"PreToolUse": [{"matcher": "Bash",
        "hooks": [{"type": "http", "url": stub.url("/down"), "onFailure": "block"}]}]}}));
    let f = c.fire(&bash_before("ls"));
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);
    let text = texts(&f.outcome["notices"]).concat();
    assert!(
        text.starts_with(&format!(
            "PreToolUse:Bash hook error: [{}]: failed; blocking because onFailure is \"block\"",
            stub.url("/down")
        )),
        "{text}"
    );
    // The same handler without it fails open.
    let c = Claude::new().project_settings(&json!({"hooks": {"PreToolUse": [{"matcher": "Bash",
        "hooks": [{"type": "http", "url": stub.url("/down")}]}]}}));
    assert_eq!(c.fire(&bash_before("ls")).outcome["decision"], "proceed");
}

/// drift_json_like_invalid_ups: stdout that looks like one JSON object but
/// does not parse is a non-blocking error, not plain text for the model;
/// stdout that does not end with `}`, or lines of JSON that are no
/// answers, stay plain text.
#[test]
fn stdout_that_looks_like_json_but_is_not_is_an_error() {
    let prompt = json!({"event": "user_prompt", "session_id": "s1", "prompt": "hi"});
    let run = |stdout: &str, code: i32| {
        let c = Claude::new();
        let cmd = format!("printf '%s' '{stdout}'; printf 'ERR' >&2; exit {code}");
        let c = c.project_settings(&settings("UserPromptSubmit", None, &[&cmd]));
        c.fire(&prompt).outcome
    };
    let out = run("{bad: 1}", 0);
    assert!(out.get("context").is_none(), "{out}");
    let warnings = out["warnings"].to_string();
    assert!(
        warnings.contains("Hook output looks like a JSON object but is not valid JSON")
            && warnings.contains("Emit the payload with a JSON encoder"),
        "{out}"
    );
    assert!(!warnings.contains("Hook exited"), "{out}");
    // Another exit code adds its stderr.
    let out = run("{bad: 1}", 1);
    assert!(
        out["warnings"]
            .to_string()
            .contains("Hook exited 1 with stderr:\\nERR"),
        "{out}"
    );
    // Plain text still: no closing brace, or JSON lines that answer nothing.
    for plain in ["{not json", "{}\n{\"decision\": 5}"] {
        let out = run(plain, 0);
        assert_eq!(
            out["context"][0]["text"],
            format!(
                "<system-reminder>\nUserPromptSubmit hook success: {plain}\n</system-reminder>"
            ),
            "{plain}: {out}"
        );
    }
}

/// r2_mcp_matchers, r11_mcp_*: an MCP tool's events end with
/// `mcp_server: {name, source}`, when the harness names the server; other
/// tools never have it.
#[test]
fn an_mcp_tool_s_events_name_its_server_last() {
    let c = Claude::new();
    let pre = c.hook("pre", "");
    let post = c.hook("post", "");
    let c = c.project_settings(&json!({"hooks": {
        "PreToolUse": [{"hooks": [{"type": "command", "command": pre}]}],
        "PostToolUse": [{"hooks": [{"type": "command", "command": post}]}]}}));
    let server = json!({"name": "srv", "source": "dynamic"});
    let tool = json!({"name": "mcp__srv__echo_tool", "input": {"text": "hi"}, "call_id": "t1", "server": server});
    c.fire(&json!({"event": "tool_before", "session_id": "s1", "tool": tool}));
    let got = c.received("pre").expect("PreToolUse ran");
    assert_eq!(
        crate::claude_util::keys(&got).last(),
        Some(&"mcp_server"),
        "{got}"
    );
    assert_eq!(got["mcp_server"], server);
    let mut after = tool.clone();
    after["output"] = json!([{"type": "text", "text": "hi"}]);
    after["duration_ms"] = json!(3);
    c.fire(&json!({"event": "tool_after", "session_id": "s1", "tool": after}));
    let got = c.received("post").expect("PostToolUse ran");
    let keys = crate::claude_util::keys(&got);
    assert_eq!(
        keys[keys.len() - 2..],
        ["duration_ms", "mcp_server"],
        "{got}"
    );
    // Not an MCP tool: no server, whatever the event says.
    let mut bash = bash_before("ls");
    bash["tool"]["server"] = server;
    c.fire(&bash);
    assert!(c.received("pre").expect("ran").get("mcp_server").is_none());
}

/// r3_session_resume_id, r14_ss_title_resume: a resumed session's
/// SessionStart ends with its figures, as the harness gives them, after
/// the title; a new session's has none.
#[test]
fn a_resumed_session_start_ends_with_its_figures() {
    let c = Claude::new();
    let ss = c.hook("ss", "");
    let c = c.project_settings(
        &json!({"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": ss}]}]}}),
    );
    let figures = json!({"seconds_since_last_response": 120, "context_tokens": 4096,
        "prompt_cache_likely_expired": false, "estimated_cache_write_usd": 0.0005});
    let mut resume = json!({"event": "session_start", "session_id": "s1", "source": "resume",
        "session_title": "T"});
    resume
        .as_object_mut()
        .unwrap()
        .extend(figures.as_object().unwrap().clone());
    c.fire(&resume);
    let got = c.received("ss").expect("SessionStart ran");
    assert_eq!(
        crate::claude_util::keys(&got),
        [
            "session_id",
            "transcript_path",
            "cwd",
            "hook_event_name",
            "source",
            "session_title",
            "seconds_since_last_response",
            "context_tokens",
            "prompt_cache_likely_expired",
            "estimated_cache_write_usd"
        ],
        "{got}"
    );
    assert_eq!(got["estimated_cache_write_usd"], 0.0005);
    let mut startup = resume.clone();
    startup["source"] = json!("startup");
    c.fire(&startup);
    let got = c.received("ss").expect("SessionStart ran");
    assert!(got.get("seconds_since_last_response").is_none(), "{got}");
}

/// `suppressOriginalPrompt` leaves the prompt out of a blocked prompt
/// expansion's text too (2.1.332's output schema; 2.1.197 had it on
/// UserPromptSubmit only).
#[test]
fn a_blocked_expansion_may_leave_out_the_original_prompt() {
    let answer = r#"{"decision":"block","reason":"R","hookSpecificOutput":{"hookEventName":"UserPromptExpansion","suppressOriginalPrompt":true}}"#;
    let c = Claude::new();
    let cmd = format!("printf '%s' '{answer}'");
    let c = c.project_settings(&settings("UserPromptExpansion", None, &[&cmd]));
    let f = c.fire(&json!({
        "event": "prompt_expansion", "session_id": "s1", "prompt": "/deploy now",
        "expansion": {"kind": "slash_command", "command_name": "deploy", "command_args": "now"}
    }));
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);
    assert_eq!(
        f.outcome["reasons"][0]["text"], "UserPromptExpansion operation blocked by hook:\nR",
        "{}",
        f.outcome
    );
}

/// `Fkn`: under `onFailure: "block"`, the words are followed by the
/// failure's own message, not the hook's stderr: for an answer that fails
/// the schema, the validation message (2.1.332's spec, item 26).
#[test]
fn on_failure_block_says_why_an_answer_failed() {
    let c = Claude::new();
    let bad = c.hook("bad", r#"--stdout '{"continue": "yes"}' --stderr IGNORED"#);
    let c = c.project_settings(&pre_handler(&bad, json!({"onFailure": "block"})));
    let f = c.fire(&bash_before("ls"));
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);
    let said = texts(&f.outcome["notices"]).concat();
    let lead = format!(
        "PreToolUse:Bash hook error: [{bad}]: failed; blocking because onFailure is \"block\"\nHook JSON output validation failed"
    );
    assert!(said.starts_with(&lead), "{said}");
    // The stderr is not the detail (the command line above names it).
    assert!(!said[lead.len()..].contains("IGNORED"), "{said}");
}

/// `qwo`: an answer's block names the hook by its `statusMessage`, else
/// by its command as written, a plugin's `${CLAUDE_PLUGIN_ROOT}` not
/// expanded (an exit 2's text expands it); 2.1.332's spec, item 13.
#[test]
fn an_answer_s_block_names_the_hook_by_its_status_message() {
    let c = Claude::new();
    let block = c.hook(
        "block",
        r#"--stdout '{"decision": "block", "reason": "more"}'"#,
    );
    let c = c.project_settings(&json!({"hooks": {"Stop": [{"hooks": [
        {"type": "command", "command": block, "statusMessage": "Checking\tthe tests"}]}]}}));
    let f = c.fire(&json!({"event": "stop", "session_id": "s1"}));
    assert_eq!(
        f.outcome["continuation"]["prompt"],
        // On one line: a tab shown as `␉` (Claude Code's `_h`).
        crate::claude_util::stop_block_feedback("Stop", "Checking\u{2409}the tests", "more"),
        "{}",
        f.outcome
    );

    let c = Claude::new();
    let script = r#"echo '{"decision": "block", "reason": "more"}' # ${CLAUDE_PLUGIN_ROOT}"#;
    let c = c.plugin(
        "tidy",
        &json!({"hooks": {"PostToolUse": [{"hooks": [{"type": "command", "command": script}]}]}}),
    );
    let f = c.fire(&crate::claude_util::bash_after(
        "ls",
        json!({"stdout": "x"}),
    ));
    let said = texts(&f.outcome["context"]).concat();
    assert!(
        said.contains(&format!(
            "PostToolUse:Bash hook blocking error from command: \"{script}\": more"
        )),
        "{said}"
    );
}

/// Safe mode (`CLAUDE_CODE_SAFE_MODE`, read as Claude Code reads a flag:
/// `1`, `true`, `yes`, `on`): only managed settings' hooks run, and the
/// plugins the harness gives; the others are named in a note (Claude Code
/// 2.1.332, `spec/execution.md` §30, read from its code).
#[test]
fn safe_mode_runs_only_managed_hooks_and_the_given_plugins() {
    let c = Claude::new();
    let (user, project, managed, plugin) = (
        c.hook("user", ""),
        c.hook("project", ""),
        c.hook("managed", ""),
        c.hook("plugin", ""),
    );
    let c = c
        .user_settings(&settings("Stop", None, &[&user]))
        .project_settings(&settings("Stop", None, &[&project]))
        .plugin("kept", &settings("Stop", None, &[&plugin]));
    c.write(
        "managed/managed-settings.json",
        &settings("Stop", None, &[&managed]).to_string(),
    );
    let stop = json!({"event": "stop", "session_id": "s1"});
    let f = c.fire_env(&stop, &[("CLAUDE_CODE_SAFE_MODE", " Yes ")]);
    let ran = |label: &str| c.runs_of(label);
    assert_eq!(
        (ran("user"), ran("project"), ran("managed"), ran("plugin")),
        (0, 0, 1, 1),
        "{}",
        f.stderr
    );
    assert!(f.stderr.contains("safe mode is on"), "{}", f.stderr);
    // Off (`0`, or unset): every source runs.
    c.fire_env(&stop, &[("CLAUDE_CODE_SAFE_MODE", "0")]);
    assert_eq!(
        (ran("user"), ran("project"), ran("managed"), ran("plugin")),
        (1, 1, 2, 2)
    );
}

/// `{"k": {"k": … inner …}}` as a setting's value, `inner` at `level` of
/// the file (the file's object is level 1).
fn chain(level: usize, inner: Value) -> Value {
    (2..level).fold(inner, |v, _| json!({ "k": v }))
}

/// n1_deep_value_cut_file_loads, n2_hooks_nested_lists_70,
/// n3_hooks_nested_lists_10 (probes-nesting.tar.gz): a value nested past
/// 64 levels is cut with a warning and the file loads; a `hooks` of nested
/// lists so cut drops the file, its `env` included; ten levels of lists
/// drop only `hooks`.
#[test]
fn a_settings_file_is_read_cut_at_sixty_four_levels() {
    let c = Claude::new();
    let probe = c.hook_dir().join("n_probe.txt");
    let env_hook = format!("printf %s \"$N_PROBE\" > {}", probe.display());
    let post = |label: &str| {
        json!({"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": c.hook(label, "")}]}]}})
    };
    let mut n1 = post("deep_ok");
    n1["statusLine"] = json!({"type": "command", "command": "true", "x": chain(65, json!([1]))});
    let c = c.project_settings(&n1);
    let after = bash_after("echo hi", json!({"stdout": "hi"}));
    let f = c.fire(&after);
    assert_eq!(c.runs_of("deep_ok"), 1, "{}", f.stderr);
    assert!(
        f.stderr.contains(
            "A value under \"statusLine\" is nested more than 64 levels deep, so Claude Code ignores it, and leaves it out if it saves a setting to this file. Reduce the nesting under \"statusLine\"."
        ),
        "{}",
        f.stderr
    );

    let user = json!({"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": env_hook}]}]}});
    let lists = |depth: usize| (1..depth).fold(json!([]), |v, _| json!([v]));
    let mut c = c.user_settings(&user);
    for (depth, applied, said) in [
        (
            70,
            "",
            "\"hooks\" is written as nested arrays and holds a value more than 64 levels deep that was left out",
        ),
        (
            10,
            "yes",
            "`hooks` must be an object of events, not an array",
        ),
    ] {
        c = c.project_settings(&json!({"env": {"N_PROBE": "yes"}, "hooks": lists(depth)}));
        let f = c.fire(&after);
        let got = std::fs::read_to_string(&probe).unwrap_or_default();
        assert_eq!(got, applied, "{depth}: {}", f.stderr);
        assert!(f.stderr.contains(said), "{depth}: {}", f.stderr);
    }
}

/// n4_several_wrong_entries_one_event: under PostToolUse, each entry only
/// the schema rejects drops itself, two in one group and one alone in
/// another; the entries beside them run.
#[test]
fn each_wrong_entry_under_one_event_drops_itself() {
    let c = Claude::new();
    let entry = |label: &str, extra: Value| {
        let mut h = json!({"type": "command", "command": c.hook(label, "")});
        if let (Some(h), Some(extra)) = (h.as_object_mut(), extra.as_object()) {
            h.extend(extra.clone());
        }
        h
    };
    let s = json!({"hooks": {"PostToolUse": [
        {"matcher": "Bash", "hooks": [
            entry("good_a", json!({})),
            entry("bad_one", json!({"rewakeMessage": 5})),
            entry("good_b", json!({})),
            entry("bad_two", json!({"rewakeMessage": true}))]},
        {"matcher": "Bash", "hooks": [entry("bad_three", json!({"statusMessage": []}))]}]}});
    let c = c.project_settings(&s);
    let f = c.fire(&bash_after("echo hi", json!({"stdout": "hi"})));
    let ran: Vec<usize> = ["good_a", "good_b", "bad_one", "bad_two", "bad_three"]
        .map(|l| c.runs_of(l))
        .to_vec();
    assert_eq!(ran, [1, 1, 0, 0, 0], "{}", f.stderr);
    assert_eq!(
        f.stderr
            .matches("Claude Code ignores this entry and loads the rest")
            .count(),
        3,
        "{}",
        f.stderr
    );
}
