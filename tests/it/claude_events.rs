//! The claude dialect's events beyond the tool and stop events, and the
//! round-3 recordings (`recordings/claude/r3_*`, read with
//! `recordings/claude/FINDINGS.md`): each test names the case its
//! expectations come from; events no recording covers follow Claude Code's
//! docs, and say so.

use latch::pipeline::ToolAnswer;
use serde_json::{Value, json};

use crate::claude_util::{Claude, bash_after, bash_before, keys, settings, texts};

/// An event of `kind` in session `s1`, with `fields` merged in.
pub(crate) fn event(kind: &str, fields: Value) -> Value {
    let mut e = json!({"event": kind, "session_id": "s1"});
    if let (Some(e), Some(f)) = (e.as_object_mut(), fields.as_object()) {
        e.extend(f.clone());
    }
    e
}

/// The common fields, then `own`, as Claude Code orders them.
pub(crate) fn expect_keys(got: &Value, common: &[&str], own: &[&str]) {
    let want: Vec<&str> = common.iter().chain(own).copied().collect();
    assert_eq!(keys(got), want, "{got}");
}

pub(crate) const SESSION: [&str; 4] = ["session_id", "transcript_path", "cwd", "hook_event_name"];
/// The common fields of events with a prompt id and no permission mode.
pub(crate) const PROMPTED: [&str; 5] = [
    "session_id",
    "transcript_path",
    "cwd",
    "prompt_id",
    "hook_event_name",
];
pub(crate) const TURN: [&str; 6] = [
    "session_id",
    "transcript_path",
    "cwd",
    "prompt_id",
    "permission_mode",
    "hook_event_name",
];

#[test]
fn r3_several_denies_show_the_model_only_the_last_to_finish() {
    // r3_two_denies_exit2 / _rev: both run, the tool is denied, and the
    // one text the model reads is the slower hook's.
    for slow_first in [true, false] {
        let c = Claude::new();
        let (sa, sb) = if slow_first {
            ("0.4", "0")
        } else {
            ("0", "0.4")
        };
        let a = c.hook(
            "a",
            &format!("--sleep {sa} --exit 2 --stderr 'stderr of A'"),
        );
        let b = c.hook(
            "b",
            &format!("--sleep {sb} --exit 2 --stderr 'stderr of B'"),
        );
        let c = c.project_settings(&json!({"hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": a}]},
            {"matcher": "Bash", "hooks": [{"type": "command", "command": b}]}]}}));
        let f = c.fire(&bash_before("ls"));
        assert_eq!(f.outcome["decision"], "deny");
        let (cmd, who) = if slow_first { (&a, "A") } else { (&b, "B") };
        assert_eq!(
            f.notice_texts(),
            [format!(
                "PreToolUse:Bash hook error: [{cmd}]: stderr of {who}"
            )]
        );
        // Both reasons stay for the harness.
        assert_eq!(f.outcome["reasons"].as_array().map(Vec::len), Some(2));
    }
    // r3_two_denies_mixed_rev: a JSON deny that finishes last wins over
    // an exit 2; r3_deny_fast_allow_slow: a later allow changes nothing.
    let c = Claude::new();
    let exit2 = c.hook("e", "--exit 2 --stderr 'stderr of A'");
    let json_deny = c.hook("j", r#"--sleep 0.4 --stdout '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "reason of B"}}'"#);
    let allow = c.hook("ok", r#"--sleep 0.6 --stdout '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}'"#);
    let c = c.project_settings(&settings(
        "PreToolUse",
        Some("Bash"),
        &[&exit2, &json_deny, &allow],
    ));
    let f = c.fire(&bash_before("ls"));
    assert_eq!(f.outcome["decision"], "deny");
    assert_eq!(
        f.notice_texts(),
        ["PreToolUse:Bash hook error: reason of B"]
    );
}

#[test]
fn r3_a_deny_without_a_reason_is_blocked_by_hook() {
    let c = Claude::new();
    let deny = c.hook(
        "d",
        r#"--stdout '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny"}}'"#,
    );
    let c = c.project_settings(&settings("PreToolUse", Some("Bash"), &[&deny]));
    let f = c.fire(&bash_before("ls"));
    // 2.1.332; 2.1.197 said `Hook PreToolUse:Bash denied this tool`.
    assert_eq!(
        f.notice_texts(),
        ["PreToolUse:Bash hook error: Blocked by hook"]
    );
}

#[test]
fn r3_an_invalid_regex_matcher_disables_only_its_group() {
    let c = Claude::new();
    let bad = c.hook("bad", "");
    let good = c.hook("good", "");
    let c = c.project_settings(&json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash(", "hooks": [{"type": "command", "command": bad}]},
        {"matcher": "Bash", "hooks": [{"type": "command", "command": good}]},
        {"matcher": "[", "hooks": [{"type": "command", "command": bad}]}]}}));
    let f = c.fire(&bash_before("ls"));
    assert_eq!(f.code, 0, "{}", f.stderr);
    assert_eq!(c.runs_of("good"), 1);
    assert_eq!(c.runs_of("bad"), 0);
    // Claude Code says so in its debug log only; latch records why.
    let skipped: Vec<&Value> = f
        .runs()
        .iter()
        .filter(|r| r["error"] == "invalid_matcher")
        .collect();
    assert_eq!(skipped.len(), 2, "{}", f.outcome);
    assert!(
        skipped[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("/Bash(/"))
    );
}

/// A `tool_batch` of two Bash calls, the second failed.
fn batch() -> Value {
    event(
        "tool_batch",
        json!({"prompt_id": "p1", "permission_mode": "bypassPermissions", "tool_calls": [
            {"name": "Bash", "input": {"command": "echo one"}, "call_id": "t1", "output": "one"},
            {"name": "Bash", "input": {"command": "exit 3"}, "call_id": "t2", "error": "Exit code 3\nfailing"}]}),
    )
}

#[test]
fn r3_post_tool_batch_payload_context_and_blocks() {
    let c = Claude::new();
    let rec = c.hook("rec", "");
    let ctx = c.hook(
        "ctx",
        r#"--stdout '{"hookSpecificOutput": {"hookEventName": "PostToolBatch", "additionalContext": "BATCH"}}'"#,
    );
    // r3_post_tool_batch_matcher: the matcher is ignored.
    let c = c.project_settings(&json!({"hooks": {"PostToolBatch": [
        {"matcher": "NoSuchTool", "hooks": [{"type": "command", "command": rec}]},
        {"hooks": [{"type": "command", "command": ctx}]}]}}));
    let f = c.fire(&batch());
    let got = c.received("rec").expect("the batch hook ran");
    expect_keys(&got, &TURN, &["tool_calls"]);
    assert_eq!(
        keys(&got["tool_calls"][0]),
        ["tool_name", "tool_input", "tool_use_id", "tool_response"]
    );
    // r3_post_tool_batch_mixed_results: each response is the text the
    // model reads, a failure's error included.
    assert_eq!(got["tool_calls"][0]["tool_response"], "one");
    assert_eq!(
        got["tool_calls"][1]["tool_response"],
        "Exit code 3\nfailing"
    );
    // r3_post_tool_batch_context: glued to the batch's last result.
    assert_eq!(
        texts(&f.outcome["context"]),
        ["<system-reminder>\nPostToolBatch hook additional context: BATCH\n</system-reminder>"]
    );
    assert_eq!(
        f.outcome["context"][0]["placement"],
        "append_to_tool_result"
    );
    assert!(f.outcome.get("halt").is_none());

    // r3_post_tool_batch_block / _exit2: the loop ends at once and the
    // model is not told why.
    let c = Claude::new();
    let block = c.hook("b", r#"--stdout '{"decision": "block", "reason": "R"}'"#);
    let c = c.project_settings(&settings("PostToolBatch", None, &[&block]));
    let f = c.fire(&batch());
    assert_eq!(f.outcome["halt"]["reason"], "R", "{}", f.outcome);
    assert!(f.outcome.get("notices").is_none() && f.outcome.get("context").is_none());
    let c = Claude::new();
    let exit2 = c.hook("e", "--exit 2 --stderr E2");
    let c = c.project_settings(&settings("PostToolBatch", None, &[&exit2]));
    let f = c.fire(&batch());
    assert_eq!(f.outcome["halt"]["reason"], format!("[{exit2}]: E2"));
}

/// A batch's calls are named and shaped through the tool vocabulary, as
/// every other tool event's call is.
#[test]
fn a_batch_shows_each_call_in_claude_code_s_names() {
    let c = Claude::new();
    let rec = c.hook("rec", "");
    let c = c.project_settings(&settings("PostToolBatch", None, &[&rec]));
    c.fire(&event(
        "tool_batch",
        json!({"tool_calls": [
            {"name": "shell", "input": {"cmd": "rm -rf build"}, "call_id": "t1", "output": "done"},
            {"name": "Bash", "input": {"command": "ls"}, "call_id": "t2", "output": "a"}]}),
    ));
    let got = c.received("rec").expect("the batch hook ran");
    assert_eq!(got["tool_calls"][0]["tool_name"], "Bash");
    assert_eq!(
        got["tool_calls"][0]["tool_input"],
        json!({"command": "rm -rf build"})
    );
    assert_eq!(got["tool_calls"][1]["tool_name"], "Bash");
    assert_eq!(got["tool_calls"][1]["tool_input"], json!({"command": "ls"}));
}

/// `/mycmd some args`, expanded from a project command.
fn expansion() -> Value {
    event(
        "prompt_expansion",
        json!({"prompt_id": "p1", "permission_mode": "bypassPermissions",
            "prompt": "/mycmd some args",
            "expansion": {"kind": "slash_command", "command_name": "mycmd",
                "command_args": "some args", "command_source": "projectSettings"}}),
    )
}

#[test]
fn r3_user_prompt_expansion_is_user_prompt_submit_for_commands() {
    let c = Claude::new();
    let rec = c.hook("rec", "--stdout 'PLAIN'");
    let other = c.hook("other", "");
    let c = c.project_settings(&json!({"hooks": {"UserPromptExpansion": [
        {"matcher": "my.*", "hooks": [{"type": "command", "command": rec}]},
        {"matcher": "othercmd", "hooks": [{"type": "command", "command": other}]}]}}));
    let f = c.fire(&expansion());
    // r3_prompt_expansion: the payload; r3_prompt_expansion_matcher:
    // the matcher is tested against the command's name.
    let got = c.received("rec").expect("the expansion hook ran");
    expect_keys(
        &got,
        &TURN,
        &[
            "expansion_type",
            "command_name",
            "command_args",
            "command_source",
            "prompt",
        ],
    );
    assert_eq!(got["prompt"], "/mycmd some args");
    assert_eq!(c.runs_of("other"), 0);
    // r3_prompt_expansion_stdout: plain stdout reaches the model.
    assert_eq!(
        texts(&f.outcome["context"]),
        ["<system-reminder>\nUserPromptExpansion hook success: PLAIN\n</system-reminder>"]
    );
    // r3_prompt_expansion_exit2: the prompt is refused with the user's text.
    let c = Claude::new();
    let exit2 = c.hook("e", "--exit 2 --stderr 'UPE stderr'");
    let c = c.project_settings(&settings("UserPromptExpansion", None, &[&exit2]));
    let f = c.fire(&expansion());
    assert_eq!(f.outcome["decision"], "deny");
    assert_eq!(
        f.outcome["reasons"][0]["text"],
        format!(
            "UserPromptExpansion operation blocked by hook:\n[{exit2}]: UPE stderr\n\nOriginal prompt: /mycmd some args"
        )
    );
}

#[test]
fn r3_setup_payload_matcher_and_ignored_answers() {
    let c = Claude::new();
    let init = c.hook(
        "init",
        r#"--stdout '{"hookSpecificOutput": {"hookEventName": "Setup", "additionalContext": "SETUP"}}'"#,
    );
    let maintenance = c.hook("maintenance", "");
    let exit2 = c.hook("e", "--exit 2 --stderr nope");
    let env = c.hook("env", "");
    let c = c.project_settings(&json!({"hooks": {"Setup": [
        {"matcher": "init", "hooks": [{"type": "command", "command": init},
            {"type": "command", "command": exit2},
            {"type": "command", "command": format!("echo \"$CLAUDE_ENV_FILE\" > \"$HOOK_DIR/env-file\"; {env}")}]},
        {"matcher": "maintenance", "hooks": [{"type": "command", "command": maintenance}]}]}}));
    let f = c.fire(&event("setup", json!({"trigger": "init"})));
    let got = c.received("init").expect("the init hook ran");
    // r3_setup_init: no permission_mode, no prompt_id.
    expect_keys(&got, &SESSION, &["trigger"]);
    assert_eq!(got["trigger"], "init");
    assert_eq!(c.runs_of("maintenance"), 0);
    // Context and exit 2 change nothing and reach no one.
    assert_eq!(f.outcome["decision"], "proceed", "{}", f.outcome);
    assert!(f.outcome.get("context").is_none() && f.outcome.get("warnings").is_none());
    let env_file = std::fs::read_to_string(c.hook_dir().join("env-file")).expect("env hook ran");
    // Named as Claude Code names it: the event, then the place of the
    // handler among those that matched (recorded: setup-hook-1.sh for the
    // second).
    let env_file = std::path::Path::new(env_file.trim());
    assert!(env_file.is_absolute(), "{}", env_file.display());
    assert_eq!(
        env_file.file_name().and_then(|n| n.to_str()),
        Some("setup-hook-2.sh")
    );
}

/// CwdChanged and FileChanged hooks get a file too (recorded:
/// `r3_cwd_changed`, `r3_file_changed_outputs`), and what they export is
/// the outcome's `shell_env`, even with a relative state directory.
#[test]
fn cwd_changed_and_file_changed_hooks_export_variables_through_their_env_file() {
    let c = Claude::new();
    let sub = c.project().join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    let writer = |v: &str| {
        format!(
            "echo \"$CLAUDE_ENV_FILE\" >> \"$HOOK_DIR/files\"; echo 'export {v}=1' >> \"$CLAUDE_ENV_FILE\""
        )
    };
    let c = c.project_settings(&json!({"hooks": {
        "CwdChanged": [{"hooks": [{"type": "command", "command": writer("CWD_VAR")}]}],
        "FileChanged": [{"matcher": ".envrc", "hooks": [{"type": "command", "command": writer("FILE_VAR")}]}]}}));
    let relative_state = ["--state-dir", "state-relative"];
    let mut cmd = crate::util::latch();
    cmd.current_dir(c.project());
    let f = c.fire_cmd(
        cmd,
        &event("cwd_changed", json!({"cwd": sub, "old_cwd": c.project()})),
        &relative_state,
    );
    assert_eq!(
        f.outcome["shell_env"],
        json!({"CWD_VAR": "1"}),
        "{}",
        f.outcome
    );
    let mut cmd = crate::util::latch();
    cmd.current_dir(c.project());
    let f = c.fire_cmd(
        cmd,
        &event(
            "file_changed",
            json!({"file_path": c.project().join(".envrc"), "change": "change"}),
        ),
        &relative_state,
    );
    assert_eq!(
        f.outcome["shell_env"],
        json!({"FILE_VAR": "1"}),
        "{}",
        f.outcome
    );
    let files = std::fs::read_to_string(c.hook_dir().join("files")).unwrap();
    let names: Vec<&str> = files
        .lines()
        .map(|l| {
            assert!(l.starts_with('/'), "{l}");
            l.rsplit('/').next().unwrap_or_default()
        })
        .collect();
    assert_eq!(names, ["cwdchanged-hook-0.sh", "filechanged-hook-0.sh"]);
}

#[test]
fn r3_instructions_loaded_hooks_are_not_waited_for() {
    let c = Claude::new();
    let rec = c.hook(
        "rec",
        r#"--sleep 0.3 --stdout '{"hookSpecificOutput": {"hookEventName": "InstructionsLoaded", "additionalContext": "IGNORED"}}'"#,
    );
    let nested = c.hook("nested", "");
    let c = c.project_settings(&json!({"hooks": {"InstructionsLoaded": [
        {"matcher": "path_glob_match", "hooks": [{"type": "command", "command": rec}]},
        {"matcher": "nested_traversal", "hooks": [{"type": "command", "command": nested}]}]}}));
    let f = c.fire(&event(
        "instructions_loaded",
        json!({"prompt_id": "p1", "instructions": {"file_path": "/w/.claude/rules/ts.md",
            "memory_type": "Project", "load_reason": "path_glob_match",
            "globs": ["src/**/*.ts"], "trigger_file_path": "/w/src/a.ts"}}),
    ));
    assert_eq!(f.outcome["decision"], "proceed");
    assert!(f.outcome.get("context").is_none());
    assert!(
        f.runs()[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("does not wait")),
        "{}",
        f.outcome
    );
    // r3_instructions_loaded: the payload, once the detached hook ran.
    let got = c.wait_for("rec");
    expect_keys(
        &got,
        &PROMPTED,
        &[
            "file_path",
            "memory_type",
            "load_reason",
            "globs",
            "trigger_file_path",
        ],
    );
    assert_eq!(
        c.runs_of("nested"),
        0,
        "the matcher is tested against load_reason"
    );
}

#[test]
fn r3_stop_failure_payload_and_matcher() {
    let c = Claude::new();
    let rec = c.hook("rec", "--exit 2 --stderr ignored");
    let other = c.hook("other", "");
    let c = c.project_settings(&json!({"hooks": {"StopFailure": [
        {"matcher": "rate_.*", "hooks": [{"type": "command", "command": rec}]},
        {"matcher": "server_error", "hooks": [{"type": "command", "command": other}]}]}}));
    let f = c.fire(&event(
        "stop_failure",
        json!({"prompt_id": "p1", "error": "rate_limit",
            "last_assistant_message": "API Error: Request rejected (429) · rate limited"}),
    ));
    assert_eq!(f.outcome["decision"], "proceed");
    assert!(f.outcome.get("warnings").is_none(), "{}", f.outcome);
    let got = c.wait_for("rec");
    // r3_stop_failure_429: no permission_mode, no error_details.
    expect_keys(&got, &PROMPTED, &["error", "last_assistant_message"]);
    assert_eq!(c.runs_of("other"), 0);
}

/// StopFailure classifies its matcher with the narrower word set (letters,
/// digits, `_`, `|`; Claude Code's docs): a `,` makes a JavaScript regex,
/// which `rate_limit` does not contain, while `|` still lists names.
#[test]
fn stop_failure_matchers_use_the_narrower_word_set() {
    let c = Claude::new();
    let listed = c.hook("listed", "");
    let comma = c.hook("comma", "");
    let c = c.project_settings(&json!({"hooks": {"StopFailure": [
        {"matcher": "rate_limit,server_error", "hooks": [{"type": "command", "command": comma}]},
        {"matcher": "overloaded|rate_limit", "hooks": [{"type": "command", "command": listed}]}]}}));
    let f = c.fire(&event(
        "stop_failure",
        json!({"prompt_id": "p1", "error": "rate_limit", "last_assistant_message": "429"}),
    ));
    assert_eq!(f.outcome["decision"], "proceed");
    assert_eq!(
        f.runs().len(),
        1,
        "only the listed matcher starts a hook: {}",
        f.outcome
    );
    c.wait_for("listed");
    assert_eq!(c.runs_of("comma"), 0, "{}", f.outcome);
}

// The events below: recorded where the case is named (`r3_file_changed`,
// `r3_config_change`, `r3_worktree_create`, `r3_task_*`,
// `r3_elicitation_accept`, `r3_message_display_outputs`,
// `r3_permission_denied_retry`); `TeammateIdle` and `DirectoryAdded`
// cannot be recorded under `-p` and follow Claude Code's docs.

#[test]
fn file_and_directory_events_carry_their_paths_and_ask_for_watches() {
    let c = Claude::new();
    let cwd = c.hook(
        "cwd",
        r#"--stdout '{"hookSpecificOutput": {"hookEventName": "CwdChanged", "watchPaths": ["/w/.envrc"]}}'"#,
    );
    let file = c.hook("file", "");
    let other = c.hook("other", "");
    let added = c.hook("added", "--exit 2 --stderr ignored");
    let c = c.project_settings(&json!({"hooks": {
        "CwdChanged": [{"hooks": [{"type": "command", "command": cwd}]}],
        "FileChanged": [
            {"matcher": ".envrc|package.json", "hooks": [{"type": "command", "command": file}]},
            {"matcher": "envrc", "hooks": [{"type": "command", "command": other}]}],
        "DirectoryAdded": [{"matcher": "slash_command", "hooks": [{"type": "command", "command": added}]}]}}));
    let project = c.project();
    // r3_file_changed: the files FileChanged matchers name are watched
    // from the session's start.
    let f = c.fire(&event("session_start", json!({"cwd": project})));
    assert_eq!(
        f.outcome["watch_paths"],
        json!([
            project.join(".envrc"),
            project.join("package.json"),
            project.join("envrc")
        ])
    );
    let f = c.fire(&event(
        "cwd_changed",
        json!({"cwd": project, "old_cwd": "/old"}),
    ));
    assert_eq!(
        f.outcome["watch_paths"],
        json!(["/w/.envrc"]),
        "{}",
        f.outcome
    );
    let got = c.received("cwd").expect("cwd hook ran");
    expect_keys(&got, &SESSION, &["old_cwd", "new_cwd"]);
    assert_eq!(got["new_cwd"], project.to_string_lossy().as_ref());
    // FileChanged matchers are literal names, never patterns.
    c.fire(&event(
        "file_changed",
        json!({"file_path": "/w/.envrc", "change": "change"}),
    ));
    expect_keys(
        &c.received("file").expect("file hook ran"),
        &SESSION,
        &["file_path", "event"],
    );
    assert_eq!(c.runs_of("other"), 0);
    let f = c.fire(&event(
        "directory_added",
        json!({"directory": "/extra", "source": "slash_command"}),
    ));
    expect_keys(
        &c.received("added").expect("added hook ran"),
        &SESSION,
        &["directory", "source"],
    );
    assert_eq!(f.outcome["decision"], "proceed");
}

#[test]
fn config_changes_can_be_blocked_except_managed_policy() {
    let c = Claude::new();
    let block = c.hook(
        "b",
        r#"--stdout '{"decision": "block", "reason": "keep it"}'"#,
    );
    let c = c.project_settings(&settings(
        "ConfigChange",
        Some("project_settings|policy_settings"),
        &[&block],
    ));
    let f = c.fire(&event(
        "config_change",
        json!({"source": "project_settings", "file_path": "/w/.claude/settings.json"}),
    ));
    assert_eq!(f.outcome["decision"], "deny");
    expect_keys(
        &c.received("b").expect("ran"),
        &SESSION,
        &["source", "file_path"],
    );
    let f = c.fire(&event(
        "config_change",
        json!({"source": "policy_settings"}),
    ));
    assert_eq!(f.outcome["decision"], "proceed", "{}", f.outcome);
}

#[test]
fn worktree_create_takes_its_path_from_the_last_line_and_fails_on_any_error() {
    let c = Claude::new();
    let make = c.hook(
        "make",
        "--stdout 'creating
/tmp/wt/feature
'",
    );
    let c = c.project_settings(&settings("WorktreeCreate", None, &[&make]));
    let f = c.fire(&event(
        "worktree_create",
        json!({"worktree": {"name": "feature"}}),
    ));
    assert_eq!(
        f.outcome["worktree_path"], "/tmp/wt/feature",
        "{}",
        f.outcome
    );
    expect_keys(&c.received("make").expect("ran"), &SESSION, &["name"]);
    let c = Claude::new();
    let fail = c.hook("fail", "--exit 1 --stderr 'no space'");
    let c = c.project_settings(&settings("WorktreeCreate", None, &[&fail]));
    let f = c.fire(&event(
        "worktree_create",
        json!({"worktree": {"name": "x"}}),
    ));
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);
    let c = Claude::new();
    let rm = c.hook("rm", "--exit 2 --stderr ignored");
    let c = c.project_settings(&settings("WorktreeRemove", None, &[&rm]));
    let f = c.fire(&event(
        "worktree_remove",
        json!({"worktree": {"path": "/tmp/wt/feature"}}),
    ));
    assert_eq!(f.outcome["decision"], "proceed");
    expect_keys(
        &c.received("rm").expect("ran"),
        &SESSION,
        &["worktree_path"],
    );
}

#[test]
fn task_and_teammate_events_block_or_keep_the_teammate_working() {
    let c = Claude::new();
    let block = c.hook("b", "--exit 2 --stderr 'needs a test plan'");
    let c = c.project_settings(&settings("TaskCreated", None, &[&block]));
    let f = c.fire(&event(
        "task_created",
        json!({"prompt_id": "p1", "task": {"id": "1", "subject": "Write docs"},
            "team": {"teammate_name": "ann", "team_name": "core"}}),
    ));
    // r3_task_created_exit2: the task tool fails with the feedback.
    assert_eq!(f.outcome["decision"], "deny");
    assert_eq!(
        f.notice_texts(),
        [format!(
            "TaskCreated hook feedback:\n[{block}]: needs a test plan"
        )]
    );
    // r3_task_created_completed: no permission_mode.
    expect_keys(
        &c.received("b").expect("ran"),
        &PROMPTED,
        &["task_id", "task_subject", "teammate_name", "team_name"],
    );
    // r3_task_completed_json: continue: false stops nothing.
    let c = Claude::new();
    let stop = c.hook("s", r#"--stdout '{"continue": false, "stopReason": "S"}'"#);
    let c = c.project_settings(&settings("TaskCompleted", None, &[&stop]));
    let f = c.fire(&event(
        "task_completed",
        json!({"task": {"id": "1", "subject": "x"}}),
    ));
    assert!(f.outcome.get("halt").is_none(), "{}", f.outcome);
    // r3_task_completed_json: TaskCompleted has no hookSpecificOutput; the
    // answer is schema-invalid, a non-blocking error, and no context.
    let c = Claude::new();
    let ctx = c.hook(
        "ctx",
        r#"--stdout '{"hookSpecificOutput": {"hookEventName": "TaskCompleted", "additionalContext": "TK_CTX"}}'"#,
    );
    let c = c.project_settings(&settings("TaskCompleted", None, &[&ctx]));
    let f = c.fire(&event(
        "task_completed",
        json!({"task": {"id": "1", "subject": "x"}}),
    ));
    assert!(f.outcome.get("context").is_none(), "{}", f.outcome);
    // Recorded: no shape of that name, so the first six names.
    assert!(
        f.warnings_contain("Hook JSON output validation failed \u{2014} hookSpecificOutput.hookEventName: expected one of \"PreToolUse\" | \"UserPromptSubmit\" | \"UserPromptExpansion\" | \"SessionStart\" | \"Setup\" | \"PreModelSwitch\" | \u{2026}\n\nThe hook's output was: {\n  \"hookSpecificOutput\": {\n    \"hookEventName\": \"TaskCompleted\",\n    \"additionalContext\": \"TK_CTX\"\n  }\n}\n\nExpected schema:\n{"),
        "{}",
        f.outcome
    );
    let c = Claude::new();
    let keep = c.hook("k", "--exit 2 --stderr 'one more file'");
    let c = c.project_settings(&settings("TeammateIdle", None, &[&keep]));
    let f = c.fire(&event(
        "teammate_idle",
        json!({"team": {"teammate_name": "ann", "team_name": "core"}}),
    ));
    // `TeammateIdle hook feedback:` (read from Claude Code's code).
    assert!(
        f.outcome["continuation"]["prompt"]
            .as_str()
            .is_some_and(|p| p.starts_with("TeammateIdle hook feedback:\n[")
                && p.ends_with("]: one more file")),
        "{}",
        f.outcome
    );
    expect_keys(
        &c.received("k").expect("ran"),
        &SESSION,
        &["teammate_name", "team_name"],
    );
}

#[test]
fn elicitation_display_and_permission_denied_answers_reach_the_outcome() {
    let c = Claude::new();
    let answer = c.hook(
        "el",
        r#"--stdout '{"hookSpecificOutput": {"hookEventName": "Elicitation", "action": "accept", "content": {"name": "latch"}}}'"#,
    );
    let display = c.hook(
        "md",
        r#"--stdout '{"hookSpecificOutput": {"hookEventName": "MessageDisplay", "displayContent": "shown"}}'"#,
    );
    let retry = c.hook(
        "pd",
        r#"--stdout '{"hookSpecificOutput": {"hookEventName": "PermissionDenied", "retry": true}}'"#,
    );
    let c = c.project_settings(&json!({"hooks": {
        "Elicitation": [{"matcher": "memory", "hooks": [{"type": "command", "command": answer}]}],
        "MessageDisplay": [{"hooks": [{"type": "command", "command": display}]}],
        "PermissionDenied": [{"matcher": "Bash", "hooks": [{"type": "command", "command": retry}]}]}}));
    let f = c.fire(&event(
        "elicitation",
        json!({"elicitation": {"server": "memory", "message": "Your name?", "mode": "form"}}),
    ));
    assert_eq!(
        f.outcome["elicitation"],
        json!({"hook": f.runs()[0]["hook"], "action": "accept", "content": {"name": "latch"}})
    );
    expect_keys(
        &c.received("el").expect("ran"),
        &SESSION,
        &["mcp_server_name", "message", "mode"],
    );
    let f = c.fire(&event(
        "message_display",
        json!({"turn_id": "t1", "display": {"message_id": "m1", "index": 0, "final": true, "delta": "hi"}}),
    ));
    assert_eq!(f.outcome["display"], "shown");
    expect_keys(
        &c.received("md").expect("ran"),
        &SESSION,
        &["turn_id", "message_id", "index", "final", "delta"],
    );
    let mut denied = bash_before("rm -rf /");
    denied["event"] = json!("permission_denied");
    denied["reason"] = json!("auto mode refused");
    let f = c.fire(&denied);
    assert_eq!(f.outcome["retry"], true, "{}", f.outcome);
    expect_keys(
        &c.received("pd").expect("ran"),
        &TURN,
        &["tool_name", "tool_input", "tool_use_id", "reason"],
    );
}

#[test]
fn r2_a_first_line_async_turns_the_run_into_an_async_one() {
    // r2_async_first_line: a PostToolUse hook prints `{"async":true}`,
    // then its answer; the answer comes, unprefixed, with the next tool
    // result, and its exit 2 blocks nothing.
    let c = Claude::new();
    let hook = r#"printf '{"async":true}\n'; printf '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "LATER"}}\n'; exit 2"#;
    let c = c.project_settings(&settings("PostToolUse", Some("Bash"), &[hook]));
    let after = bash_after("echo ran", json!({"stdout": "ran"}));
    let f = c.fire(&after);
    assert!(
        f.outcome.get("context").is_none() && f.outcome.get("warnings").is_none(),
        "{}",
        f.outcome
    );
    assert!(
        f.runs()[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("background")),
        "{}",
        f.outcome
    );
    // The hook may still be followed in the background: its answer
    // arrives with a later tool result (one that starts no hook).
    let mut read = after.clone();
    read["tool"] = json!({"name": "Read", "input": {"file_path": "a"}, "output": "a"});
    let context = c.context_arriving(&read);
    assert_eq!(
        texts(&context),
        ["<system-reminder>\nLATER\n</system-reminder>"]
    );
    assert_eq!(context[0]["placement"], "append_to_tool_result");
    // A first line that only mentions async is an ordinary answer.
    let c = Claude::new();
    let plain = r#"echo '{"async": false}'"#;
    let c = c.project_settings(&settings("PreToolUse", Some("Bash"), &[plain]));
    let f = c.fire(&bash_before("ls"));
    assert_eq!(f.runs()[0]["status"], "ok");
    assert!(f.runs()[0].get("message").is_none(), "{}", f.outcome);
}

/// A harness with one tool server (`srv`: `echo` answers its `text`) and
/// a sub-agent that answers what the test set.
struct Harness {
    agent_answer: String,
    calls: std::sync::Mutex<Vec<(String, String, Value)>>,
}

impl latch::pipeline::HarnessHandlers for Harness {
    fn call_tool<'a>(
        &'a self,
        server: &'a str,
        tool: &'a str,
        input: Value,
    ) -> latch::pipeline::BoxFuture<'a, Result<ToolAnswer, String>> {
        self.calls
            .lock()
            .unwrap()
            .push((server.to_owned(), tool.to_owned(), input.clone()));
        let text = input["text"].as_str().unwrap_or("").to_owned();
        Box::pin(async move {
            match (server, tool) {
                ("srv", "echo") => Ok(ToolAnswer::Text(text)),
                // An error result (MCP's `isError`) with the given text.
                ("srv", "fail") => Ok(ToolAnswer::Error(text)),
                ("down", _) => Err("MCP server 'down' not connected".to_owned()),
                _ => Err(format!("no tool {tool} on {server}")),
            }
        })
    }

    fn run_agent<'a>(
        &'a self,
        prompt: &'a str,
    ) -> latch::pipeline::BoxFuture<'a, Result<String, String>> {
        assert!(prompt.contains("\"tool_name\":\"Bash\""), "{prompt}");
        Box::pin(async move { Ok(self.agent_answer.clone()) })
    }
}

/// Dispatches `event` through a claude engine for `c`'s project, with
/// `harness` as the harness's handlers.
fn dispatch_with(c: &Claude, harness: Harness, event: Value) -> latch::Outcome {
    let dialect = c.library_dialect();
    let engine = latch::Engine::new()
        .with_dialect(dialect)
        .with_harness_handlers(harness);
    let event: latch::Event = serde_json::from_value(event).unwrap();
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(engine.dispatch(&event, &latch::Session::in_memory(None)))
        .unwrap()
}

#[test]
fn r2_mcp_tool_and_agent_handlers_run_through_the_harness() {
    // r2_mcp_tool_hook: `${tool_input.command}` is filled in, and the
    // tool's text is read like stdout: a deny JSON denies.
    let c = Claude::new().project_settings(&json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "mcp_tool", "server": "srv", "tool": "echo", "input": {"text":
            "{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"deny\", \"permissionDecisionReason\": \"no ${tool_input.command} via ${tool_name}\"}}"}}]}]}}));
    let harness = Harness {
        agent_answer: String::new(),
        calls: Default::default(),
    };
    let outcome = dispatch_with(&c, harness, bash_before("rm -rf /"));
    assert!(outcome.is_denied());
    assert_eq!(
        outcome.notices[0].text,
        "PreToolUse:Bash hook error: no rm -rf / via Bash"
    );

    // A plain-text answer is a silent success; a failed call a warning.
    let c = Claude::new().project_settings(&json!({"hooks": {"PreToolUse": [{"hooks": [
        {"type": "mcp_tool", "server": "srv", "tool": "echo", "input": {"text": "fine"}},
        {"type": "mcp_tool", "server": "gone", "tool": "x"}]}]}}));
    let harness = Harness {
        agent_answer: String::new(),
        calls: Default::default(),
    };
    let outcome = dispatch_with(&c, harness, bash_before("ls"));
    assert!(!outcome.is_denied());
    assert!(outcome.context.is_empty());
    assert_eq!(outcome.warnings.len(), 1, "{:?}", outcome.warnings);
    assert!(outcome.warnings[0].contains("no tool x on gone"));

    // An agent answers like a prompt handler: ok false blocks.
    let c = Claude::new().project_settings(&json!({"hooks": {"PreToolUse": [{"hooks": [
        {"type": "agent", "prompt": "Is this safe? $ARGUMENTS"}]}]}}));
    let harness = Harness {
        agent_answer: r#"{"ok": false, "reason": "touches /etc"}"#.to_owned(),
        calls: Default::default(),
    };
    let outcome = dispatch_with(&c, harness, bash_before("vi /etc/hosts"));
    assert!(outcome.is_denied());
    assert_eq!(
        outcome.notices[0].text,
        "PreToolUse:Bash hook error: [Is this safe? $ARGUMENTS]: touches /etc"
    );
}

/// Claude Code 2.1.332's `onFailure` on `mcp_tool` handlers (`mfe`,
/// `slt`, `Kkn`; read from its code): any value but `"continue"` blocks,
/// and the failure is said in a fixed text, the server's own words left
/// out; a server that is not connected says so.
#[test]
fn mcp_tool_handlers_block_on_failure_in_fixed_words() {
    let fire = |handler: Value| {
        let c = Claude::new().project_settings(&json!({"hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [handler]}]}}));
        let harness = Harness {
            agent_answer: String::new(),
            calls: Default::default(),
        };
        dispatch_with(&c, harness, bash_before("ls"))
    };
    let left_out = " Details are left out of this message, since the MCP server may have written them. To see them, start Claude Code with --debug and try again: they go to its debug log.";
    let why = "blocking because onFailure is \"block\" and the hook got no usable answer from its MCP server. The user needs to fix the cause (in a session, /mcp shows the server's state) or ask whoever manages the hook; Claude should not change the hook or work around it.";
    let cases = [
        (
            json!({"type": "mcp_tool", "server": "gone", "tool": "x", "onFailure": "block"}),
            format!("[gone/x]: failed; {why}\nThe call to the MCP server failed.{left_out}"),
        ),
        (
            json!({"type": "mcp_tool", "server": "down", "tool": "x", "onFailure": "yes"}),
            format!("[down/x]: failed; {why}\nMCP server 'down' not connected"),
        ),
        (
            json!({"type": "mcp_tool", "server": "srv", "tool": "echo", "input": {"text": "all good"}, "onFailure": "block"}),
            format!(
                "[srv/echo]: failed; {why}\nThe MCP tool's answer is not a hook's JSON output, {{}} or empty.{left_out}"
            ),
        ),
        (
            json!({"type": "mcp_tool", "server": "srv", "tool": "echo", "input": {"text": "{\"reason\": \"x\"}"}, "onFailure": "block"}),
            format!(
                "[srv/echo]: failed; {why}\nThe MCP tool's answer is not a hook's JSON output, {{}} or empty.{left_out}"
            ),
        ),
        (
            json!({"type": "mcp_tool", "server": "srv", "tool": "fail", "input": {"text": "{\"decision\": \"approve\"}"}, "onFailure": "block"}),
            format!("[srv/fail]: failed; {why}\nThe MCP tool returned an error.{left_out}"),
        ),
        (
            json!({"type": "mcp_tool", "server": "srv", "tool": "fail", "onFailure": "block"}),
            format!(
                "[srv/fail]: failed; {why}\nThe hook got no answer that Claude Code can use.{left_out}"
            ),
        ),
        (
            json!({"type": "mcp_tool", "server": "srv", "tool": "echo", "input": {"text": "{\"continue\": 1}"}, "onFailure": "block"}),
            format!(
                "[srv/echo]: failed; {why}\nThe MCP tool's answer looks like JSON, but is not a valid hook output.{left_out}"
            ),
        ),
    ];
    for (handler, said) in cases {
        let outcome = fire(handler.clone());
        assert!(outcome.is_denied(), "{handler}: {outcome:?}");
        assert_eq!(
            outcome.notices[0].text,
            format!("PreToolUse:Bash hook error: {said}"),
            "{handler}"
        );
    }
    // `"continue"` (the default) keeps a failure a warning; `{}` is an
    // answer.
    let outcome =
        fire(json!({"type": "mcp_tool", "server": "gone", "tool": "x", "onFailure": "continue"}));
    assert!(
        !outcome.is_denied() && outcome.warnings.len() == 1,
        "{outcome:?}"
    );
    let outcome = fire(
        json!({"type": "mcp_tool", "server": "srv", "tool": "echo", "input": {"text": "{}"}, "onFailure": "block"}),
    );
    assert!(
        !outcome.is_denied() && outcome.warnings.is_empty(),
        "{outcome:?}"
    );
    // An error result is a failure, not an answer: its deny is not read,
    // and its text (else Claude Code's words) is the warning's.
    let deny =
        r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny"}}"#;
    for (text, said) in [(deny, deny), ("", "MCP tool returned an error")] {
        let outcome = fire(
            json!({"type": "mcp_tool", "server": "srv", "tool": "fail", "input": {"text": text}}),
        );
        assert!(!outcome.is_denied(), "{outcome:?}");
        assert_eq!(outcome.warnings.len(), 1, "{outcome:?}");
        assert!(
            outcome.warnings[0].ends_with(&format!("MCP tool srv/fail failed: {said}")),
            "{outcome:?}"
        );
    }
}

/// A user's own `mcp_tool` hook under `CLAUDE_CODE_RESTRICT_PERSONAL_CONFIG`
/// is cut down as a command's answer is (2.1.332's `OQe` counts it, its
/// answer goes through `DX`): its change of the input is a deny; without
/// the restriction the change is made.
#[test]
fn a_user_s_mcp_tool_hook_may_not_widen_under_the_restriction() {
    use latch::dialect::claude::{Claude as Dialect, Options, Sources};
    let c = Claude::new();
    let answer = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"rm -rf x"}}}"#;
    let c = c.user_settings(
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "mcp_tool", "server": "srv", "tool": "echo", "input": {"text": answer}}]}]}}),
    );
    for (restrict, denied) in [(true, true), (false, false)] {
        let dialect = Dialect::load(Options {
            sources: Sources {
                home: Some(c.home()),
                project: Some(c.project()),
                ..Sources::default()
            },
            project: Some(c.project()),
            restrict_personal_config: restrict,
            ..Options::default()
        });
        let engine = latch::Engine::new()
            .with_dialect(dialect)
            .with_harness_handlers(Harness {
                agent_answer: String::new(),
                calls: Default::default(),
            });
        let event: latch::Event = serde_json::from_value(bash_before("ls")).unwrap();
        let outcome = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(engine.dispatch(&event, &latch::Session::in_memory(None)))
            .unwrap();
        assert_eq!(outcome.is_denied(), denied, "{restrict}: {outcome:?}");
        if denied {
            assert!(
                outcome.notices[0]
                    .text
                    .contains("A hook from the user's own Claude Code files tried to change this tool call's input."),
                "{outcome:?}"
            );
        }
    }
}

#[test]
fn the_library_s_task_background_keeps_async_answers_and_tells_the_harness() {
    let c = Claude::new();
    let hook = r#"sleep 0.2; echo '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "LATE"}}'"#;
    let c = c.project_settings(&json!({"hooks": {"PostToolUse": [{"hooks": [
        {"type": "command", "command": hook, "async": true}]}]}}));
    let state = c.root.path().join("state");
    let (tx, rx) = std::sync::mpsc::channel();
    let tasks = latch::background::Tasks::new(&state).with_listener(move |a| {
        let _ = tx.send(a.clone());
    });
    let engine = latch::Engine::new()
        .with_dialect(c.library_dialect())
        .with_background(tasks);
    let after = bash_after("ls", json!({"stdout": "x"}));
    let event: latch::Event = serde_json::from_value(after).unwrap();
    let session = latch::Session::open(&state, "s1").unwrap();
    // A current-thread runtime runs the background task only while it is
    // driven: wait for the answer inside it, as a harness's loop would.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (first, answer) = runtime.block_on(async {
        let first = engine.dispatch(&event, &session).await.unwrap();
        let start = std::time::Instant::now();
        loop {
            if let Ok(a) = rx.try_recv() {
                break (first, a);
            }
            assert!(
                start.elapsed() < std::time::Duration::from_secs(20),
                "no answer"
            );
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    });
    assert!(first.context.is_empty());
    assert_eq!(answer.session_id, "s1");
    assert_eq!(
        answer.texts,
        ["<system-reminder>\nLATE\n</system-reminder>"]
    );
    // And the session's next tool result carries it, as with `latch fire`.
    let second = runtime.block_on(engine.dispatch(&event, &session)).unwrap();
    assert_eq!(
        second.context[0].text,
        "<system-reminder>\nLATE\n</system-reminder>"
    );
}

/// A runner that lends its thread does not hold up an async hook that the
/// same dispatch started on the thread's runtime: the synchronous hooks
/// wait for a file the async one makes, and finish.
#[test]
fn a_lent_thread_does_not_hold_up_an_async_hook_of_the_same_dispatch() {
    let c = Claude::new();
    let made = c.root.path().join("made");
    let wait = format!(
        "i=0; while [ ! -f '{0}' ] && [ $i -lt 300 ]; do sleep 0.01; i=$((i+1)); done; [ -f '{0}' ] && echo waited",
        made.display()
    );
    let c = c.project_settings(&json!({"hooks": {"PostToolUse": [{"hooks": [
        {"type": "command", "command": format!("touch '{}'", made.display()), "async": true},
        {"type": "command", "command": format!("{wait} # 1")},
        {"type": "command", "command": format!("{wait} # 2")}]}]}}));
    let state = c.root.path().join("state");
    let engine = latch::Engine::new()
        .with_dialect(c.library_dialect())
        .with_background(latch::background::Tasks::new(&state))
        .with_runner(latch::run::Runner {
            lend_thread: true,
            ..latch::run::Runner::default()
        });
    let event: latch::Event =
        serde_json::from_value(bash_after("ls", json!({"stdout": "x"}))).unwrap();
    let session = latch::Session::open(&state, "s1").unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let outcome = runtime.block_on(engine.dispatch(&event, &session)).unwrap();
    let waited: Vec<_> = outcome
        .runs
        .iter()
        .filter(|r| r.exit_code.is_some())
        .map(|r| r.exit_code)
        .collect();
    assert_eq!(waited, [Some(0), Some(0)], "{:#?}", outcome.runs);
}

#[test]
fn r3_effort_compaction_and_the_compact_session_start() {
    // r3_effort_fields: `effort` after `permission_mode` on tool events.
    let c = Claude::new();
    let pre = c.hook("pre", "");
    let c = c.project_settings(&settings("PreToolUse", None, &[&pre]));
    let mut e = bash_before("ls");
    e["effort"] = json!("high");
    c.fire(&e);
    let got = c.received("pre").expect("ran");
    expect_keys(
        &got,
        &[
            "session_id",
            "transcript_path",
            "cwd",
            "prompt_id",
            "permission_mode",
            "effort",
            "hook_event_name",
        ],
        &["tool_name", "tool_input", "tool_use_id"],
    );
    assert_eq!(got["effort"], json!({"level": "high"}));
    // Inside a sub-agent `effort` comes after the agent fields, and a
    // session run as an agent has `agent_type` alone (read from Claude
    // Code's code: its base fields end `agent_id, agent_type, effort`).
    e["agent_id"] = json!("a1");
    e["agent_type"] = json!("Explore");
    c.fire(&e);
    let got = c.received("pre").expect("ran");
    expect_keys(
        &got,
        &[
            "session_id",
            "transcript_path",
            "cwd",
            "prompt_id",
            "permission_mode",
            "agent_id",
            "agent_type",
            "effort",
            "hook_event_name",
        ],
        &["tool_name", "tool_input", "tool_use_id"],
    );
    e.as_object_mut().expect("an object").remove("agent_id");
    c.fire(&e);
    let got = c.received("pre").expect("ran");
    expect_keys(
        &got,
        &[
            "session_id",
            "transcript_path",
            "cwd",
            "prompt_id",
            "permission_mode",
            "agent_type",
            "effort",
            "hook_event_name",
        ],
        &["tool_name", "tool_input", "tool_use_id"],
    );

    // r3_compact_auto / _outputs: custom_instructions is null when there
    // are none; plain stdout joins the compaction request's instructions.
    let c = Claude::new();
    let pre = c.hook("pre", "--stdout 'Keep the test names.'");
    let start = c.hook("start", "--stdout 'Re-read NOTES.md.'");
    let c = c.project_settings(&json!({"hooks": {
        "PreCompact": [{"matcher": "auto", "hooks": [{"type": "command", "command": pre}]}],
        "SessionStart": [{"matcher": "compact", "hooks": [{"type": "command", "command": start}]}]}}));
    let f = c.fire(&event(
        "compact_before",
        json!({"prompt_id": "p1", "trigger": "auto"}),
    ));
    let got = c.received("pre").expect("ran");
    expect_keys(&got, &PROMPTED, &["trigger", "custom_instructions"]);
    assert_eq!(got["custom_instructions"], Value::Null);
    assert_eq!(texts(&f.outcome["context"]), ["Keep the test names."]);
    assert_eq!(f.outcome["context"][0]["placement"], "compaction_prompt");
    // The SessionStart after compaction has the prompt id and the model,
    // and its text goes at the end of the last tool result.
    let f = c.fire(&event(
        "session_start",
        json!({"prompt_id": "p1", "source": "compact", "model": "m"}),
    ));
    expect_keys(
        &c.received("start").expect("ran"),
        &PROMPTED,
        &["source", "model"],
    );
    assert_eq!(
        texts(&f.outcome["context"]),
        [
            "<system-reminder>\nSessionStart:compact hook success: Re-read NOTES.md.\n</system-reminder>"
        ]
    );
    assert_eq!(
        f.outcome["context"][0]["placement"],
        "append_to_tool_result"
    );
    // An attachment: the key is left out.
    assert!(f.outcome["context"][0].get("own_message").is_none());
}

#[test]
fn r3_worktree_permission_denied_and_notification_texts() {
    // r3_worktree_create_exit2: `<cmd>: <stderr>`, without brackets.
    let c = Claude::new();
    let fail = c.hook("wt", "--exit 2 --stderr 'no disk'");
    let c = c.project_settings(&settings("WorktreeCreate", None, &[&fail]));
    let f = c.fire(&event(
        "worktree_create",
        json!({"worktree": {"name": "wt1"}}),
    ));
    assert_eq!(
        f.notice_texts(),
        [format!("WorktreeCreate hook failed: {fail}: no disk")]
    );
    // r3_permission_denied_retry: the model is told it may retry.
    let c = Claude::new();
    let retry = c.hook(
        "pd",
        r#"--stdout '{"hookSpecificOutput": {"hookEventName": "PermissionDenied", "retry": true}}'"#,
    );
    let c = c.project_settings(&settings("PermissionDenied", None, &[&retry]));
    let mut denied = bash_before("rm -rf /tmp/x");
    denied["event"] = json!("permission_denied");
    denied["reason"] = json!("[Irreversible Local Destruction] rm -rf");
    let f = c.fire(&denied);
    assert_eq!(
        texts(&f.outcome["context"]),
        // Claude Code 2.1.332's words (2.1.197: `The PermissionDenied hook
        // indicated you may retry this tool call.`).
        [
            "<system-reminder>\nThe refusal above is not final for this call: the PermissionDenied hook set up for this session allows one more try, which goes through the same permission check. If the user asked for what this call does, make it again now. If they did not, leave it, and in your next words to them say that you made this call without being asked and that it was refused before it ran; then go on with what they did ask for.\n</system-reminder>"
        ]
    );
    // Claude Code sends it as a message of its own, not an attachment: the
    // entry says so, for a harness rebuilding the user message.
    assert_eq!(
        f.outcome["context"][0]["own_message"], true,
        "{}",
        f.outcome
    );
    // r3_notification_outputs: exit 2 reaches no one.
    let c = Claude::new();
    let loud = c.hook("n", "--exit 2 --stderr 'ignored'");
    let c = c.project_settings(&settings("Notification", None, &[&loud]));
    let f = c.fire(&event(
        "notification",
        json!({"message": "Elicitation response for server \"srv\": cancel",
            "notification_type": "elicitation_response"}),
    ));
    assert!(f.outcome.get("warnings").is_none(), "{}", f.outcome);
}

/// A FileChanged matcher selects like any other matcher, tested against
/// the changed file's name (read from Claude Code's 2.1.197 code): `.env`
/// is a regular expression there and runs for `.env.local`, and a glob
/// such as `*.env` is an invalid one, whose group never runs. Its text,
/// split on `|`, is still the list of files watched from the start.
#[test]
fn file_changed_matchers_select_as_regexes_on_the_file_name() {
    let c = Claude::new();
    let dot_env = c.hook("dot_env", "");
    let glob = c.hook("glob", "");
    let c = c.project_settings(&json!({"hooks": {"FileChanged": [
        {"matcher": ".env", "hooks": [{"type": "command", "command": dot_env}]},
        {"matcher": "*.env|.envrc", "hooks": [{"type": "command", "command": glob}]}]}}));
    let f = c.fire(&event(
        "file_changed",
        json!({"file_path": "/w/.env.local"}),
    ));
    assert_eq!(
        (c.runs_of("dot_env"), c.runs_of("glob")),
        (1, 0),
        "{}",
        f.outcome
    );
    assert!(
        f.stderr.contains(
            "FileChanged matcher `*.env` is watched as a file named exactly so, and tested as a regular expression against a changed file's name"
        ),
        "{}",
        f.stderr
    );
    c.fire(&event("file_changed", json!({"file_path": "/w/.envrc"})));
    assert_eq!((c.runs_of("dot_env"), c.runs_of("glob")), (2, 0));
    // A name of letters only is an exact name.
    let c = Claude::new();
    let exact = c.hook("exact", "");
    let c = c.project_settings(&settings("FileChanged", Some("Makefile"), &[&exact]));
    c.fire(&event(
        "file_changed",
        json!({"file_path": "/w/Makefile.am"}),
    ));
    assert_eq!(c.runs_of("exact"), 0);
    c.fire(&event("file_changed", json!({"file_path": "/w/Makefile"})));
    assert_eq!(c.runs_of("exact"), 1);
}

/// A matcher's names are split on `|` and `,` only: a plain space is part
/// of a name, so `Bash Write` matches no tool (recorded:
/// `r8_matcher_space_list`).
#[test]
fn r8_a_space_does_not_separate_matcher_names() {
    let c = Claude::new();
    let labels = ["sp", "sp2", "rev", "bar", "comma"];
    let matchers = [
        "Bash Write",
        "Bash  Write",
        "Write Bash",
        "Bash|Write",
        "Bash, Write",
    ];
    let groups: Vec<Value> = labels
        .iter()
        .zip(matchers)
        .map(|(l, m)| json!({"matcher": m, "hooks": [{"type": "command", "command": c.hook(l, "")}]}))
        .collect();
    let c = c.project_settings(&json!({"hooks": {"PreToolUse": groups}}));
    c.fire(&bash_before("ls"));
    let mut write = bash_before("");
    write["tool"] = json!({"name": "Write", "input": {"file_path": "/tmp/x", "content": ""}});
    c.fire(&write);
    let runs: Vec<usize> = labels.iter().map(|l| c.runs_of(l)).collect();
    assert_eq!(runs, [0, 0, 0, 2, 2]);
}

/// An event without the value its matchers test (a notification without
/// a type) runs every group, as Claude Code's code does.
#[test]
fn an_event_without_its_matcher_value_runs_every_group() {
    let c = Claude::new();
    let idle = c.hook("idle", "");
    let c = c.project_settings(&settings("Notification", Some("idle_prompt"), &[&idle]));
    c.fire(&event("notification", json!({"message": "hi"})));
    assert_eq!(c.runs_of("idle"), 1);
    c.fire(&event(
        "notification",
        json!({"message": "hi", "notification_type": "permission_prompt"}),
    ));
    assert_eq!(c.runs_of("idle"), 1);
}

#[test]
fn a_declined_elicitation_stays_declined() {
    let c = Claude::new();
    let no = c.hook("no", "--exit 2 --stderr nope");
    let yes = c.hook(
        "yes",
        r#"--sleep 0.3 --stdout '{"hookSpecificOutput": {"hookEventName": "Elicitation", "action": "accept", "content": {"token": "x"}}}'"#,
    );
    let c = c.project_settings(&settings("Elicitation", None, &[&no, &yes]));
    let f = c.fire(&event(
        "elicitation",
        json!({"elicitation": {"server": "srv", "message": "token?"}}),
    ));
    assert_eq!(f.outcome["decision"], "deny");
    assert_eq!(
        f.outcome["elicitation"]["action"], "decline",
        "{}",
        f.outcome
    );
}

#[test]
fn r4_a_hook_specific_answer_must_name_its_event() {
    let c = Claude::new();
    let wrong = c.hook(
        "wrong",
        r#"--stdout '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "WRONG_CTX"}}'"#,
    );
    let unnamed = c.hook(
        "unnamed",
        r#"--stdout '{"hookSpecificOutput": {"additionalContext": "UNNAMED_CTX"}}'"#,
    );
    let right = c.hook(
        "right",
        r#"--stdout '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "RIGHT_CTX"}}'"#,
    );
    let c = c.project_settings(&settings("PostToolUse", None, &[&wrong, &unnamed, &right]));
    let f = c.fire(&crate::claude_util::bash_after("ls", json!("a")));
    let text = f.outcome.to_string();
    let context = f.outcome["context"].to_string();
    assert!(context.contains("RIGHT_CTX"), "{text}");
    assert!(
        !context.contains("WRONG_CTX") && !context.contains("UNNAMED_CTX"),
        "{text}"
    );
    assert!(
        f.warnings_contain(
            "Failed to run: Hook returned incorrect event name: expected 'PostToolUse' but got 'PreToolUse'"
        ),
        "{text}"
    );
    assert!(
        f.warnings_contain(
            r#"Hook JSON output validation failed — hookSpecificOutput is missing required field "hookEventName""#
        ),
        "{text}"
    );
    // A deny that names no event is no deny: the call goes on, and the
    // user is told.
    let c = Claude::new();
    let deny = c.hook(
        "deny",
        r#"--stdout '{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "no"}}'"#,
    );
    let c = c.project_settings(&settings("PreToolUse", None, &[&deny]));
    let f = c.fire(&crate::claude_util::bash_before("ls"));
    assert_eq!(f.outcome["decision"], "proceed", "{}", f.outcome);
    assert!(
        f.warnings_contain("is missing required field"),
        "{}",
        f.outcome
    );
}

#[test]
fn r4_an_empty_if_is_no_condition() {
    let c = Claude::new();
    let deny = c.hook("emptyif", "--exit 2 --stderr EMPTY_IF_DENY");
    let c = c.project_settings(&json!({"hooks": {"PreToolUse": [{"matcher": "Bash",
        "hooks": [{"type": "command", "command": deny, "if": ""}]}]}}));
    let f = c.fire(&crate::claude_util::bash_before("ls"));
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);
    assert_eq!(c.runs_of("emptyif"), 1);
    let explained = c.explain(&crate::claude_util::bash_before("ls"), &[]);
    assert_eq!(explained[0]["runs"], true, "{explained:?}");
}

#[test]
fn r4_a_byte_order_mark_before_a_json_answer_is_trimmed_as_claude_code_trims() {
    let c = Claude::new();
    let bom_deny = r#"printf '\357\273\277{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "BOM_DENY_SENTINEL"}}\n'"#;
    let c = c.project_settings(&settings("PreToolUse", Some("Bash"), &[bom_deny]));
    let f = c.fire(&crate::claude_util::bash_before("ls"));
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);
    assert!(
        f.outcome.to_string().contains("BOM_DENY_SENTINEL"),
        "{}",
        f.outcome
    );
}

#[test]
fn r4_an_invalid_top_level_decision_drops_the_whole_answer() {
    let c = Claude::new();
    let answer = c.hook(
        "baddecision",
        r#"--stdout '{"decision": "deny", "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "INVALID_DECISION_SENTINEL"}}'"#,
    );
    let c = c.project_settings(&settings("PreToolUse", Some("Bash"), &[&answer]));
    let f = c.fire(&crate::claude_util::bash_before("ls"));
    assert_eq!(f.outcome["decision"], "proceed", "{}", f.outcome);
    // Recorded word for word, up to the schema.
    assert!(
        f.warnings_contain(concat!(
            "Hook JSON output validation failed \u{2014} decision: Invalid option: expected one of \"approve\"|\"block\" ",
            "(top-level decision is the legacy approve|block field; for \"deny\" use hookSpecificOutput.permissionDecision in a PreToolUse hook, ",
            "or hookSpecificOutput.decision: {\"behavior\": \"deny\"} in a PermissionRequest hook)\n\n",
            "The hook's output was: {\n  \"decision\": \"deny\",\n  \"hookSpecificOutput\": {\n    \"hookEventName\": \"PreToolUse\",\n",
            "    \"permissionDecision\": \"deny\",\n    \"permissionDecisionReason\": \"INVALID_DECISION_SENTINEL\"\n  }\n}\n\nExpected schema:\n{\n"
        )),
        "{}",
        f.outcome
    );
    assert!(
        !f.notice_texts()
            .iter()
            .any(|t| t.contains("INVALID_DECISION_SENTINEL")),
        "{}",
        f.outcome
    );
    // `approve` and `block` are the schema's values.
    let c = Claude::new();
    let approve = c.hook("approve", r#"--stdout '{"decision": "approve"}'"#);
    let c = c.project_settings(&settings("PreToolUse", Some("Bash"), &[&approve]));
    let f = c.fire(&crate::claude_util::bash_before("ls"));
    assert!(f.outcome.get("warnings").is_none(), "{}", f.outcome);
}

/// The tool's input and output reach a hook as Claude Code writes the
/// values it holds (`JSON.stringify`), whatever escapes, number forms or
/// repeated keys the harness's JSON used: a guard grepping its stdin for
/// `> /etc/` finds it.
#[test]
fn tool_values_reach_hooks_as_javascript_writes_them() {
    let c = Claude::new();
    let pre = c.hook("pre", "");
    let post = c.hook("post", "");
    let c = c.project_settings(&json!({"hooks": {
        "PreToolUse": [{"hooks": [{"type": "command", "command": pre}]}],
        "PostToolUse": [{"hooks": [{"type": "command", "command": post}]}]}}));
    let input = r#"{"command":"echo x \u003e /etc/passwd \u0026\u0026 caf\u00e9","n":1e2,"m":1.50,"d":1,"d":2,"2":0}"#;
    let before = format!(
        r#"{{"event":"tool_before","session_id":"s1","tool":{{"name":"Bash","input":{input}}}}}"#
    );
    c.fire_text(&before);
    let raw = c.received_raw("pre").expect("ran");
    assert!(
        raw.contains(
            r#""tool_input":{"2":0,"command":"echo x > /etc/passwd && café","n":100,"m":1.5,"d":2}"#
        ),
        "{raw}"
    );
    let after = r#"{"event":"tool_after","session_id":"s1","tool":{"name":"Bash","input":{"command":"ls"},"output":{"stdout":"\u003cok\u003e","interrupted":false,"n":2.0}}}"#;
    c.fire_text(after);
    let raw = c.received_raw("post").expect("ran");
    assert!(
        raw.contains(r#""tool_response":{"stdout":"<ok>","interrupted":false,"n":2}"#),
        "{raw}"
    );
}
