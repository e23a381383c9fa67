//! Peen's command protocol and faults, through the real binary.

use std::os::unix::fs::PermissionsExt;

use serde_json::{Value, json};

use crate::peen_util::Layers;
use crate::util::{read_pid, wait_dead};

/// A workspace whose `event` runs `script` (written to the workspace) with
/// extra action fields.
fn with_script(event: &str, script: &str, extra: &str) -> Layers {
    let l = Layers::new();
    l.script("hook.sh", &format!("#!/bin/sh\n{script}\n"));
    l.workspace_hooks(&format!(
        "version: 1\n{event}:\n  - name: g\n    actions:\n      - {{name: c, type: command, command: ./hook.sh{extra}}}\n"
    ))
}

fn pre(l: &Layers) -> crate::util::Fired {
    l.fire(&l.tool(
        "tool_before",
        "writeFile",
        json!({"path": "src/a.go", "content": "x"}),
    ))
}

#[test]
fn stdin_has_the_documented_fields() {
    let l = with_script("preWriteFile", "cat > in.json", "");
    let mut ev = l.tool(
        "tool_before",
        "writeFile",
        json!({"path": "src/a.go", "content": "x"}),
    );
    ev["request_id"] = json!("r1");
    ev["agent_run_id"] = json!("child-1");
    ev["context_tokens"] = json!(18234);
    l.fire(&ev);
    let got: Value =
        serde_json::from_slice(&std::fs::read(l.ws().join("in.json")).unwrap()).unwrap();
    let state = got["stateDirectory"].as_str().unwrap().to_owned();
    assert_eq!(
        got,
        json!({"event": "preWriteFile", "sessionId": "s1", "requestId": "r1", "turnId": "t1", "agentRunId": "child-1",
            "tool": "writeFile", "callId": "c1", "workspace": l.ws(), "paths": [l.ws().join("src/a.go")],
            "input": {"path": "src/a.go", "content": "x"}, "stateDirectory": state, "contextTokens": 18234})
    );
    let mode = std::fs::metadata(&state).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700);
    assert!(
        state.starts_with(l.root.path().join("state").to_str().unwrap()),
        "under latch's state, not the config dir"
    );
}

#[test]
fn lifecycle_stdin_omits_what_does_not_apply_and_always_has_context_tokens() {
    let l = with_script("preUserMessage", "cat > in.json", "");
    l.fire(&json!({"event": "user_prompt", "cwd": l.ws(), "prompt": "hello", "turn_id": "t9"}));
    let got: Value =
        serde_json::from_slice(&std::fs::read(l.ws().join("in.json")).unwrap()).unwrap();
    assert_eq!(
        got,
        json!({"event": "preUserMessage", "workspace": l.ws(), "input": {"message": "hello", "workspace": l.ws()}, "contextTokens": 0})
    );
}

#[test]
fn no_shell_and_only_path_plus_environment() {
    let l = Layers::new().workspace_hooks(
        "version: 1\npostToolUse:\n  - actions:\n      - {type: command, command: sh, args: [\"-c\", \"env > env.txt; printf '%s' \\\"$1\\\" > arg.txt\", \"x\", \"$HOME *\"], environment: {MODE: ci}}\n",
    );
    l.fire_env(
        &l.tool("tool_after", "readFile", json!({})),
        &[("SECRET_TOKEN", "s3cr3t")],
    );
    let env = std::fs::read_to_string(l.ws().join("env.txt")).unwrap();
    let mut names: Vec<&str> = env
        .lines()
        .map(|l| l.split('=').next().unwrap())
        .filter(|n| !["PWD", "SHLVL", "_"].contains(n))
        .collect();
    names.sort();
    assert_eq!(names, ["MODE", "PATH"], "{env}");
    assert_eq!(
        std::fs::read_to_string(l.ws().join("arg.txt")).unwrap(),
        "$HOME *",
        "arguments are passed verbatim"
    );
}

#[test]
fn working_dir_is_relative_to_the_current_directory() {
    let l = Layers::new();
    std::fs::create_dir_all(l.ws().join("sub")).unwrap();
    let l = l.workspace_hooks("version: 1\npostToolUse:\n  - actions: [{type: command, command: sh, args: [\"-c\", \"pwd > where\"], workingDir: sub}]\n");
    l.fire(&l.tool("tool_after", "readFile", json!({})));
    let where_ = std::fs::read_to_string(l.ws().join("sub/where")).unwrap();
    assert_eq!(
        where_.trim(),
        l.ws().join("sub").canonicalize().unwrap().to_str().unwrap()
    );
}

#[test]
fn stdout_protocol() {
    // Empty or non-JSON: no effect.
    for out in ["", "plain words", "{broken"] {
        let l = with_script("preWriteFile", &format!("printf '%s' '{out}'"), "");
        let f = pre(&l);
        assert_eq!(f.outcome["decision"], "proceed", "{out:?}");
        assert_eq!(f.runs()[0]["status"], "ok");
    }
    // Deny without reason uses the default text.
    let f = pre(&with_script(
        "preWriteFile",
        "echo '{\"decision\":\"deny\"}'",
        "",
    ));
    assert_eq!(f.reasons(), ["hook command denied operation"]);
    // allow and empty are the same; message is injected.
    let f = pre(&with_script(
        "preWriteFile",
        "echo '{\"decision\":\"allow\",\"message\":\"noted\"}'",
        "",
    ));
    assert_eq!(f.outcome["decision"], "proceed");
    assert!(
        f.outcome["context"][0]["text"]
            .as_str()
            .unwrap()
            .contains("\n\nnoted\n</hook>")
    );
    // On deny, message is ignored; events are published anyway.
    let f = pre(&with_script(
        "preWriteFile",
        "echo '{\"decision\":\"deny\",\"reason\":\"r\",\"message\":\"m\",\"events\":[{\"type\":\"hook.checked\",\"summary\":\"Check ran.\",\"data\":{\"ok\":true},\"delivery\":\"queue\"}]}'",
        "",
    ));
    assert_eq!(f.reasons(), ["r"]);
    assert!(f.outcome.get("context").is_none());
    assert_eq!(f.outcome["events"][0]["type"], "hook.checked");
    // Strict JSON: unknown fields, non-objects, bad values fail the action (deny on a pre event).
    for (out, why) in [
        (
            "{\"decision\":\"deny\",\"extra\":1}",
            "unknown field \"extra\"",
        ),
        ("42", "not an object"),
        ("{\"decision\":\"maybe\"}", "must be allow, deny or empty"),
        ("{\"events\":[{\"type\":\"job.x\"}]}", "reserved for peen"),
        (
            "{\"events\":[{\"type\":\"a.b\",\"data\":[1]}]}",
            "must be a JSON object",
        ),
        (
            "{\"events\":[{\"type\":\"a.b\",\"summary\":7}]}",
            "the summary of a.b must be a string",
        ),
    ] {
        let f = pre(&with_script(
            "preWriteFile",
            &format!("printf '%s' '{out}'"),
            "",
        ));
        assert_eq!(f.outcome["decision"], "deny", "{out}");
        assert_eq!(f.runs()[0]["status"], "failed", "{out}");
        assert!(f.reasons()[0].contains(why), "{out}: {:?}", f.reasons());
    }
}

#[test]
fn failures_non_zero_exit_and_64_kib() {
    let f = pre(&with_script("preWriteFile", "echo boom >&2; exit 3", ""));
    assert_eq!(
        f.reasons(),
        ["hook action g/c failed: exited with code 3: boom"]
    );
    let f = pre(&with_script("preWriteFile", "head -c 70000 /dev/zero", ""));
    assert!(
        f.reasons()[0].contains("wrote more than 65536 bytes to stdout"),
        "{:?}",
        f.reasons()
    );
    assert_eq!(f.runs()[0]["error"], "output_too_large");
    let f = pre(&with_script(
        "preWriteFile",
        "head -c 70000 /dev/zero >&2",
        "",
    ));
    assert!(f.reasons()[0].contains("to stderr"));
    let l = with_script("preWriteFile", "head -c 2000 /dev/zero", "");
    let f = l.fire_env(
        &l.tool("tool_before", "writeFile", json!({"path": "a"})),
        &[("PEEN_MAX_HOOK_COMMAND_OUTPUT", "1000")],
    );
    assert_eq!(f.runs()[0]["error"], "output_too_large");
}

#[test]
fn timeouts_kill_the_group_and_default_from_the_environment() {
    let l = with_script(
        "preWriteFile",
        "sleep 1000 & echo $! > pid; sleep 1000",
        ", timeout: 300ms",
    );
    let f = pre(&l);
    assert_eq!(f.runs()[0]["error"], "timeout");
    assert_eq!(
        f.reasons(),
        ["hook action g/c failed: timed out after 300ms"]
    );
    assert!(wait_dead(read_pid(&l.ws().join("pid"))));
    let l = with_script("preWriteFile", "sleep 5", "");
    let f = l.fire_env(
        &l.tool("tool_before", "writeFile", json!({"path": "a"})),
        &[("PEEN_DEFAULT_HOOK_COMMAND_TIMEOUT", "200ms")],
    );
    assert_eq!(f.runs()[0]["error"], "timeout");
    // PEEN_TOOL_TIMEOUT bounds commands on tool events, except runCommand.
    let l = Layers::new().workspace_hooks("version: 1\npreToolUse:\n  - actions: [{type: command, command: sleep, args: [\"0.6\"], timeout: 5s}]\n");
    let f = l.fire_env(
        &l.tool("tool_before", "readFile", json!({})),
        &[("PEEN_TOOL_TIMEOUT", "200ms")],
    );
    assert_eq!(f.runs()[0]["error"], "timeout");
    let f = l.fire_env(
        &l.tool("tool_before", "runCommand", json!({})),
        &[("PEEN_TOOL_TIMEOUT", "200ms")],
    );
    assert_eq!(f.runs()[0]["status"], "ok");
}

#[test]
fn faults_follow_on_failure() {
    for (script, category) in [
        ("kill -9 $$", "command_error"),
        ("printf '\\377\\376'", ""),
        ("head -c 5000000 /dev/zero", "output_too_large"),
    ] {
        let f = pre(&with_script("preWriteFile", script, ""));
        if category.is_empty() {
            assert_eq!(
                f.outcome["decision"], "proceed",
                "invalid UTF-8 that is not JSON has no effect"
            );
        } else {
            assert_eq!(f.runs()[0]["error"], category, "{script}");
            assert_eq!(f.outcome["decision"], "deny", "{script}");
        }
    }
    let l = Layers::new().workspace_hooks(
        "version: 1\npreWriteFile:\n  - actions: [{type: command, command: ./nope.sh}]\n",
    );
    l.write("nope.sh", "#!/bin/sh\n");
    let f = pre(&l);
    assert!(
        f.reasons()[0].contains("cannot start ./nope.sh"),
        "not executable: {:?}",
        f.reasons()
    );
    let l = with_script("preWriteFile", "sleep 0.1", "");
    let f = l.fire(&l.tool(
        "tool_before",
        "writeFile",
        json!({"path": "a", "content": "x".repeat(4 * 1024 * 1024)}),
    ));
    assert_eq!(f.runs()[0]["status"], "ok", "unread 4 MiB stdin");
}
