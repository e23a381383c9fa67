//! Cases of the early recordings (`peers/claude/cases/<case>`, rounds 1
//! and 2) that no other test named, the decision ranking between `defer`
//! and `ask`, and `--claude-hide-commands` on the texts of every event that
//! quotes a command line. The expectations come from each case's
//! `observed.json`, or from docs/dialects/claude.md where it says so.

use serde_json::json;

use crate::claude_util::{Claude, bash_after, bash_before, keys, settings, texts};

/// A PreToolUse JSON answer `permissionDecision: decision`, as hook
/// arguments.
fn decide(decision: &str, reason: Option<&str>) -> String {
    let mut out = json!({"hookEventName": "PreToolUse", "permissionDecision": decision});
    if let Some(r) = reason {
        out["permissionDecisionReason"] = json!(r);
    }
    format!("--stdout '{}'", json!({"hookSpecificOutput": out}))
}

/// Recorded (`r2_pre_allow_plus_exit1`, permission mode `default`): one
/// hook allows, a sibling in the same group exits 1 with `ERR1_SENTINEL`.
/// The allow still applies (the command ran without a prompt), the exit 1
/// is only a non-blocking error for the user (`Failed with non-blocking
/// status code: ERR1_SENTINEL`), and the model reads the plain tool result:
/// no notice, context or reason. Both hooks read `permission_mode:
/// "default"`.
#[test]
fn r2_pre_allow_plus_exit1() {
    let c = Claude::new();
    let allow = c.hook("allow", &decide("allow", None));
    let err1 = c.hook("err1", "--exit 1 --stderr 'ERR1_SENTINEL'");
    let c = c.project_settings(&settings("PreToolUse", Some("Bash"), &[&allow, &err1]));
    let mut before = bash_before("python3 -c 'open(\"marker_ws\",\"w\").write(\"ran\")'; echo hi");
    before["permission_mode"] = json!("default");
    let f = c.fire(&before);
    assert_eq!(f.outcome["decision"], "allow", "{}", f.outcome);
    for key in ["notices", "context", "reasons", "halt"] {
        assert!(f.outcome.get(key).is_none(), "{key}: {}", f.outcome);
    }
    assert!(
        f.warnings_contain("Failed with non-blocking status code: ERR1_SENTINEL"),
        "{}",
        f.outcome
    );
    let statuses: Vec<&str> = f
        .runs()
        .iter()
        .map(|r| r["status"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(statuses, ["ok", "failed"], "{}", f.outcome);
    assert_eq!(f.runs()[1]["exit_code"], 1, "{}", f.outcome);
    for label in ["allow", "err1"] {
        let got = c.received(label).expect("both hooks ran");
        assert_eq!(got["permission_mode"], "default", "{label}");
        assert_eq!(got["hook_event_name"], "PreToolUse", "{label}");
    }
}

/// Recorded (`r2_subagent_pre_deny`): a PreToolUse hook that exits 2 with
/// `SUB_DENY_SENTINEL` blocks Bash inside a sub-agent as in the main
/// agent. The hook reads the sub-agent's `agent_id` and `agent_type`
/// before `hook_event_name`, and the sub-agent's tool result is
/// `PreToolUse:Bash hook error: [<cmd>]: SUB_DENY_SENTINEL`, an error
/// result (a `notice`) — nothing else reaches the model.
#[test]
fn r2_subagent_pre_deny() {
    let c = Claude::new();
    let pre = c.hook("pre", "--exit 2 --stderr 'SUB_DENY_SENTINEL'");
    let c = c.project_settings(&settings("PreToolUse", Some("Bash"), &[&pre]));
    let mut before = bash_before("echo ran > marker_sub_ran; echo hi");
    before["agent_id"] = json!("agent-1");
    before["agent_type"] = json!("general-purpose");
    before["tool"]["input"]["description"] = json!("Write marker");
    let f = c.fire(&before);
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);
    let want = format!("PreToolUse:Bash hook error: [{pre}]: SUB_DENY_SENTINEL");
    assert_eq!(texts(&f.outcome["notices"]), [want.as_str()]);
    assert_eq!(texts(&f.outcome["reasons"]), [want.as_str()]);
    assert!(f.outcome.get("context").is_none(), "{}", f.outcome);
    assert!(f.outcome.get("halt").is_none(), "{}", f.outcome);
    let got = c.received("pre").expect("the hook ran");
    assert_eq!(
        keys(&got),
        [
            "session_id",
            "transcript_path",
            "cwd",
            "prompt_id",
            "permission_mode",
            "agent_id",
            "agent_type",
            "hook_event_name",
            "tool_name",
            "tool_input",
            "tool_use_id"
        ]
    );
    assert_eq!(got["agent_id"], "agent-1");
    assert_eq!(got["agent_type"], "general-purpose");
    assert_eq!(got["permission_mode"], "bypassPermissions");
    assert_eq!(
        got["tool_input"],
        json!({"command": "echo ran > marker_sub_ran; echo hi", "description": "Write marker"})
    );
}

/// `defer` outranks `ask` when two PreToolUse hooks answer them, whichever
/// finishes first and whether they share a group: the order is deny,
/// defer, ask, allow (docs, "What an answer does"; recorded `o` and
/// `r3_deny_fast_defer_slow` for deny over defer, `r3_ask_fast_allow_slow`
/// for ask over allow; defer against ask was not recorded). `defer` also
/// beats `allow`.
#[test]
fn defer_outranks_ask_whichever_finishes_first() {
    let slow = |args: String| format!("--sleep 0.4 {args}");
    let ask = || decide("ask", Some("ASK_SENTINEL"));
    let defer = || decide("defer", None);
    let allow = || decide("allow", None);
    let cases = [
        ("ask fast, defer slow", ask(), slow(defer()), "defer"),
        ("defer fast, ask slow", defer(), slow(ask()), "defer"),
        ("allow fast, defer slow", allow(), slow(defer()), "defer"),
        ("defer fast, allow slow", defer(), slow(allow()), "defer"),
        // The control: without the defer, the ask decides.
        ("ask fast, allow slow", ask(), slow(allow()), "ask"),
    ];
    for (case, a_args, b_args, decision) in cases {
        for same_group in [false, true] {
            let c = Claude::new();
            let a = c.hook("a", &a_args);
            let b = c.hook("b", &b_args);
            let handler = |cmd: &str| json!({"type": "command", "command": cmd});
            let groups = if same_group {
                json!([{"matcher": "Bash", "hooks": [handler(&a), handler(&b)]}])
            } else {
                json!([{"matcher": "Bash", "hooks": [handler(&a)]}, {"matcher": "Bash", "hooks": [handler(&b)]}])
            };
            let c = c.project_settings(&json!({"hooks": {"PreToolUse": groups}}));
            let f = c.fire(&bash_before("ls"));
            assert_eq!(
                f.outcome["decision"], decision,
                "{case}, same group {same_group}: {}",
                f.outcome
            );
            assert_eq!((c.runs_of("a"), c.runs_of("b")), (1, 1), "{case}");
            assert!(f.outcome.get("notices").is_none(), "{case}: {}", f.outcome);
        }
    }
}

/// `--claude-hide-commands` leaves the command line out of every text that
/// quotes it (docs, "Texts": `[<cmd>]: ` is dropped and `hook blocking
/// error from command: "<cmd>": ` becomes `hook blocking error: `): a
/// PostToolUse exit 2 (the recorded text of `e2_posttooluse_decision_block`
/// and `r2_post_stop_exit2_empty_stderr` without the command), a Stop exit
/// 2's feedback (`g2_stop_exit2_once`) and a UserPromptSubmit exit 2
/// (`f2_userpromptsubmit_exit2`). Without the flag each text quotes it.
#[test]
fn hidden_commands_are_out_of_post_tool_use_stop_and_prompt_texts() {
    for hide in [true, false] {
        let flags: &[&str] = if hide {
            &["--claude-hide-commands"]
        } else {
            &[]
        };
        let quoted = |cmd: &str| {
            if hide {
                String::new()
            } else {
                format!("[{cmd}]: ")
            }
        };

        let c = Claude::new();
        let post = c.hook("post", "--exit 2 --stderr 'POST_SENTINEL'");
        let c = c.project_settings(&settings("PostToolUse", Some("Bash"), &[&post]));
        let f = c.fire_with(&bash_after("ls", json!({"stdout": "hi"})), flags);
        let head = if hide {
            "PostToolUse:Bash hook blocking error: ".to_owned()
        } else {
            format!("PostToolUse:Bash hook blocking error from command: \"{post}\": ")
        };
        assert_eq!(
            texts(&f.outcome["context"]),
            [format!(
                "<system-reminder>\n{head}{}POST_SENTINEL\n</system-reminder>",
                quoted(&post)
            )],
            "hide {hide}"
        );
        // The entry still names its hook for the harness; the text does not.
        assert_eq!(
            hide,
            !texts(&f.outcome["context"]).concat().contains("hook.sh")
        );

        let c = Claude::new();
        let stop = c.hook("stop", "--once --exit 2 --stderr 'STOP_SENTINEL'");
        let c = c.project_settings(&settings("Stop", None, &[&stop]));
        let f = c.fire_with(&json!({"event": "stop", "session_id": "s1"}), flags);
        assert_eq!(
            f.outcome["continuation"]["prompt"],
            format!("Stop hook feedback:\n{}STOP_SENTINEL", quoted(&stop)),
            "hide {hide}: {}",
            f.outcome
        );

        let c = Claude::new();
        let prompt = c.hook("prompt", "--exit 2 --stderr 'PROMPT_SENTINEL'");
        let c = c.project_settings(&settings("UserPromptSubmit", None, &[&prompt]));
        let f = c.fire_with(
            &json!({"event": "user_prompt", "session_id": "s1", "prompt": "hi there"}),
            flags,
        );
        assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);
        assert_eq!(
            texts(&f.outcome["reasons"]),
            [format!(
                "UserPromptSubmit operation blocked by hook:\n{}PROMPT_SENTINEL\n\nOriginal prompt: hi there",
                quoted(&prompt)
            )],
            "hide {hide}"
        );
        assert_eq!(
            hide,
            !texts(&f.outcome["reasons"]).concat().contains("hook.sh")
        );
    }
}

/// Recorded (`r2_exec_args_exit2`): an exec-form handler (`command` and
/// `args`) that exits 2 denies, and the model's text quotes the program
/// and its arguments joined by single spaces, unquoted, an argument with a
/// space included: `PreToolUse:Bash hook error: [<program> <args>]:
/// <stderr>`.
#[test]
fn r2_exec_args_exit2() {
    let c = Claude::new();
    let program = c.hook_dir().join("hook.sh").display().to_string();
    let args = [
        "--label",
        "exec_exit2",
        "--exit",
        "2",
        "--stderr",
        "EXEC_EXIT2_SENTINEL blocked",
    ];
    let c = c.project_settings(&json!({"hooks": {"PreToolUse": [{"matcher": "Bash",
        "hooks": [{"type": "command", "command": program, "args": args}]}]}}));
    let f = c.fire(&bash_before("echo hi"));
    assert_eq!(c.runs_of("exec_exit2"), 1, "{}", f.stderr);
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);
    assert_eq!(
        texts(&f.outcome["notices"]),
        [format!(
            "PreToolUse:Bash hook error: [{program} --label exec_exit2 --exit 2 --stderr EXEC_EXIT2_SENTINEL blocked]: EXEC_EXIT2_SENTINEL blocked"
        )]
    );
}

/// Recorded (`r2_timeout_kill_tree`): at its `timeout` (1 s) the hook's
/// whole process group dies: its shell, the hook it runs and a background
/// grandchild that would write a marker 2 s in. The tool proceeds about a
/// second after the hook started, and neither the grandchild's marker nor
/// the shell's line after the hook is ever written.
#[test]
fn r2_timeout_kill_tree() {
    let c = Claude::new();
    let dir = c.hook_dir().display().to_string();
    let cmd = format!(
        "(sleep 2; echo survived > {dir}/marker_grandchild) >/dev/null 2>&1 & {}; echo after > {dir}/marker_shell_continued",
        c.hook("slow_child", "--sleep 4")
    );
    let c = c.project_settings(&json!({"hooks": {"PreToolUse": [{"matcher": "Bash",
        "hooks": [{"type": "command", "command": cmd, "timeout": 1}]}]}}));
    let started = std::time::Instant::now();
    let f = c.fire(&bash_before("echo hi"));
    assert_eq!(f.outcome["decision"], "proceed", "{}", f.outcome);
    assert_eq!(f.runs()[0]["error"], "timeout", "{}", f.outcome);
    let ms = f.runs()[0]["duration_ms"].as_f64().unwrap();
    assert!((950.0..2000.0).contains(&ms), "{ms}");
    assert_eq!(c.runs_of("slow_child"), 1, "the hook started");
    // Past the grandchild's 2 s.
    std::thread::sleep(std::time::Duration::from_millis(2800).saturating_sub(started.elapsed()));
    for marker in ["marker_grandchild", "marker_shell_continued"] {
        assert!(!c.hook_dir().join(marker).exists(), "{marker} was written");
    }
}

/// Recorded (`r2_timeout_kill_ignores_term`): a hook that ignores SIGTERM
/// is still killed at its timeout, later: Claude Code took about 2.5 s
/// for `timeout: 1`, latch sends SIGKILL 1 s after the SIGTERM (docs,
/// "Where latch differs"). Either way the hook never finishes its 4 s
/// sleep, the tool proceeds, and nothing reaches the model.
#[test]
fn r2_timeout_kill_ignores_term() {
    let c = Claude::new();
    let dir = c.hook_dir().display().to_string();
    let cmd = format!(
        "trap '' TERM; echo $$ > {dir}/pid; {}; echo after > {dir}/marker_finished",
        c.hook("ignores_term", "--sleep 4")
    );
    let c = c.project_settings(&json!({"hooks": {"PreToolUse": [{"matcher": "Bash",
        "hooks": [{"type": "command", "command": cmd, "timeout": 1}]}]}}));
    let f = c.fire(&bash_before("echo hi"));
    assert_eq!(f.outcome["decision"], "proceed", "{}", f.outcome);
    assert_eq!(f.runs()[0]["error"], "timeout", "{}", f.outcome);
    let ms = f.runs()[0]["duration_ms"].as_f64().unwrap();
    assert!(
        (1900.0..3500.0).contains(&ms),
        "SIGKILL 1 s after SIGTERM: {ms}"
    );
    for key in ["notices", "context", "reasons"] {
        assert!(f.outcome.get(key).is_none(), "{key}: {}", f.outcome);
    }
    assert!(!c.hook_dir().join("marker_finished").exists());
    // The shell that ignored SIGTERM is gone (or a zombie about to be
    // reaped), not left sleeping.
    let pid = std::fs::read_to_string(c.hook_dir().join("pid")).expect("the shell ran");
    let stat = format!("/proc/{}/stat", pid.trim());
    let start = std::time::Instant::now();
    while let Ok(text) = std::fs::read_to_string(&stat) {
        let state = text.rsplit(')').next().unwrap_or("").trim_start();
        if state.starts_with('Z') {
            break;
        }
        assert!(
            start.elapsed() < std::time::Duration::from_secs(1),
            "the hook's shell still runs: {text}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}
