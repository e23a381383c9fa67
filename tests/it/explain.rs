//! `latch explain`: every configured hook, whether it would run, and why.

use serde_json::{Value, json};

use crate::util::latch;

/// Runs `latch explain --format json` on an event in `dir` with extra flags.
fn explain(dir: &std::path::Path, event: &Value, extra: &[&str]) -> Vec<Value> {
    let out = latch()
        .args(["explain", "--format", "json", "--project"])
        .arg(dir)
        .arg("--home")
        .arg(dir.join("no-home"))
        .args(extra)
        .env_remove("PEEN_CONFIG_DIR")
        .env_remove("PEEN_COMPACTION_MODE")
        .write_stdin(serde_json::to_vec(event).unwrap())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn reasons(list: &[Value]) -> Vec<(bool, String, String)> {
    list.iter()
        .map(|e| {
            (
                e["runs"].as_bool().unwrap(),
                e["hook"].as_str().unwrap().to_owned(),
                e["reason"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

use crate::util::write_file as write;

#[test]
fn poolside_reasons() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        ".poolside/settings.yaml",
        "hooks:\n  PreToolUse:\n    - {name: exact, matcher: shell, command: x}\n    - {name: other, matcher: 'read|write', command: x}\n    - {name: bad, matcher: '(?<=a)', command: x}\n  Stop:\n    - {name: stop, command: x}\n",
    );
    let got = reasons(&explain(
        d.path(),
        &json!({"event": "tool_before", "tool": {"name": "shell", "input": {}}}),
        &[],
    ));
    assert_eq!(
        got,
        [
            (true, "exact".into(), "matcher `shell` (exact name) matches tool `shell`".into()),
            (false, "other".into(), "matcher `read|write` (list of exact names) does not match tool `shell`".into()),
            (false, "bad".into(), "invalid matcher regex `(?<=a)`: look-around, including look-ahead and look-behind, is not supported".into()),
            (false, "stop".into(), "declared for Stop; this event fires PreToolUse".into()),
        ]
    );
    let got = reasons(&explain(d.path(), &json!({"event": "stop"}), &[]));
    assert_eq!(
        got[0],
        (true, "stop".into(), "the matcher is ignored on Stop".into())
    );
    let got = reasons(&explain(d.path(), &json!({"event": "turn_start"}), &[]));
    assert!(
        got.iter()
            .all(|(r, _, why)| !r && why.ends_with("a `turn_start` event fires no poolside event"))
    );
}

#[test]
fn evener_reasons() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "pl/hooks/hooks.json",
        r#"{"hooks":{
            "PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"x"},{"type":"http"}]},
                          {"matcher":"shell","hooks":[{"type":"command","command":"x"}]},
                          {"matcher":"(?<!x)y","hooks":[{"type":"command","command":"x"}]}],
            "Setup":[{"hooks":[{"type":"command","command":"x"}]}],
            "Stopp":[{"hooks":[{"type":"command","command":"x"}]}],
            "Stop":[{"hooks":[{"type":"command","command":"x"}]}]}}"#,
    );
    let pl = d.path().join("pl");
    let flags = ["--plugin-dir", pl.to_str().unwrap()];
    let got = reasons(&explain(
        d.path(),
        &json!({"event": "tool_before", "tool": {"name": "shell", "input": {}}}),
        &flags,
    ));
    assert_eq!(
        got[0],
        (
            true,
            "pl#0".into(),
            "matcher `Bash` (exact name) matches tool `Bash` (the Claude name of `shell`)".into()
        )
    );
    assert_eq!(
        got[1],
        (
            false,
            "pl#1".into(),
            "handler type `http` is not run yet; the handler is skipped".into()
        )
    );
    assert_eq!(
        got[2].2,
        "matcher `shell` (exact name) does not match tool `Bash` (the Claude name of `shell`)"
    );
    assert!(got[3].2.starts_with("invalid matcher regex `(?<!x)y`"));
    assert_eq!(
        got[4].2,
        "declared for the reserved event Setup, which evener never fires"
    );
    assert_eq!(
        got[5].2,
        "`Stopp` is not an event (likely a typo); it never fires"
    );
    assert_eq!(got[6].2, "declared for Stop; this event fires PreToolUse");
    let got = reasons(&explain(
        d.path(),
        &json!({"event": "stop", "pending_questions": true}),
        &flags,
    ));
    assert!(
        got.iter()
            .any(|(_, _, why)| why
                == "Stop is not consulted: the round ended with pending questions")
    );
}

#[test]
fn peen_reasons() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        ".agents/hooks.yaml",
        "version: 1\npreToolUse:\n  - name: cmds\n    match: {tool: runCommand}\n    actions:\n      - {name: force, type: deny, reason: x, when: {input: {/command: {regex: --force}}}}\n      - {name: always, type: inject, message: y}\npreWriteFile:\n  - name: go\n    match: {extensions: [\".go\"]}\n    actions: [{name: fmt, type: inject, message: z}]\npreCompact:\n  - actions: [{type: inject, message: c}]\n",
    );
    let ev = json!({"event": "tool_before", "cwd": d.path(), "tool": {"name": "runCommand", "input": {"command": "git push"}}});
    let got = reasons(&explain(d.path(), &ev, &[]));
    assert_eq!(
        got[0],
        (true, "cmds/always".into(), "runs its inject action".into())
    );
    assert_eq!(
        got[1],
        (
            false,
            "cmds/force".into(),
            "when: input /command (\"git push\") does not match regex `--force`".into()
        )
    );
    assert_eq!(
        got[2],
        (
            false,
            "go/fmt".into(),
            "declared for preWriteFile; this event fires preToolUse".into()
        )
    );
    let ev = json!({"event": "tool_before", "cwd": d.path(), "tool": {"name": "writeFile", "input": {"path": "/elsewhere/a.go"}}});
    let got = reasons(&explain(d.path(), &ev, &[]));
    let go = got.iter().find(|g| g.1 == "go/fmt").unwrap();
    assert_eq!(
        go.2,
        format!("match: no affected path is inside {}", d.path().display())
    );
    let cmds = got.iter().find(|g| g.1 == "cmds/always").unwrap();
    assert_eq!(cmds.2, "match: tool is `writeFile`, not `runCommand`");
    let got = reasons(&explain(
        d.path(),
        &json!({"event": "compact_before", "cwd": d.path()}),
        &[],
    ));
    assert!(got.iter().any(|g| g.2 == "declared for preCompact; compaction events fire only with PEEN_COMPACTION_MODE=summarize"));
    write(d.path(), ".agents/hooks.yaml", "version: 2\n");
    let got = reasons(&explain(
        d.path(),
        &json!({"event": "turn_start", "cwd": d.path()}),
        &[],
    ));
    assert_eq!(got, [(false, "(whole file)".into(), "the file is skipped as invalid: harness.warning: hooks file skipped: `version` must be 1, found 2".into())]);
}

#[test]
fn text_output_lists_running_hooks_first() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        ".poolside/settings.yaml",
        "hooks:\n  Stop:\n    - {name: s, command: x}\n  PreToolUse:\n    - {name: p, matcher: shell, command: x}\n",
    );
    let out = latch()
        .args(["explain", "--project"])
        .arg(d.path())
        .arg("--home")
        .arg(d.path())
        .write_stdin(r#"{"event":"tool_before","tool":{"name":"shell","input":{}}}"#)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let settings = d.path().join(".poolside/settings.yaml");
    assert_eq!(
        text,
        format!(
            "tool_before (tool `shell`): 1 of 2 configured hooks would run\n  run  poolside PreToolUse p  {s}:5:7\n       matcher `shell` (exact name) matches tool `shell`\n  skip poolside Stop s  {s}:3:7\n       declared for Stop; this event fires PreToolUse\n",
            s = settings.display()
        )
    );
}

#[test]
fn remaining_reasons() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "pl/hooks/hooks.json",
        r#"{"hooks":{
            "SessionStart":[{"matcher":"resume","hooks":[{"type":"command","command":"x"}]}],
            "Notification":[{"matcher":"idle","hooks":[{"type":"command","command":"x","shell":"zsh"}]},
                            {"hooks":[{"type":"command","command":"x","shell":"zsh"}]}]}}"#,
    );
    let pl = d.path().join("pl");
    let flags = ["--plugin-dir", pl.to_str().unwrap()];
    let got = reasons(&explain(
        d.path(),
        &json!({"event": "session_start", "source": "startup"}),
        &flags,
    ));
    assert!(
        got.contains(&(
            false,
            "pl#0".into(),
            "matcher `resume` (exact name) does not match start kind `startup`".into()
        )),
        "{got:?}"
    );
    let got = reasons(&explain(
        d.path(),
        &json!({"event": "notification", "message": "m"}),
        &flags,
    ));
    assert!(
        got.contains(&(false, "pl#0".into(), "matcher `idle` (exact name) does not match the empty target (Notification has no matcher target yet)".into())),
        "{got:?}"
    );
    assert!(
        got.contains(&(true, "pl#0".into(), "matcher `*` (matches everything) matches the empty target (Notification has no matcher target yet); it will fail: shell \"zsh\" is not supported (only \"bash\")".into())),
        "{got:?}"
    );

    write(
        d.path(),
        "ws/.agents/hooks.yaml",
        "version: 1\nsessionStart:\n  - actions: [{type: inject, message: x}]\npreToolUse:\n  - match: {input: {/a: {exists: true}, /b: {equals: 2}}}\n    actions: [{type: inject, message: y}]\n",
    );
    let ws = d.path().join("ws");
    let got = reasons(&explain(
        &ws,
        &json!({"event": "session_start", "cwd": ws, "source": "resume"}),
        &[],
    ));
    assert!(got.iter().any(|g| g.2 == "declared for sessionStart; sessionStart runs only on a session's first turn (source `startup`)"), "{got:?}");
    let got = reasons(&explain(
        &ws,
        &json!({"event": "tool_before", "cwd": ws, "tool": {"name": "x", "input": {"b": 2}}}),
        &[],
    ));
    assert!(
        got.iter().any(|g| g.2 == "match: input /a does not exist"),
        "{got:?}"
    );
    let got = reasons(&explain(
        &ws,
        &json!({"event": "tool_before", "cwd": ws, "tool": {"name": "x", "input": {"a": 1, "b": 3}}}),
        &[],
    ));
    assert!(
        got.iter().any(|g| g.2 == "match: input /b is 3, not 2"),
        "{got:?}"
    );

    let mut yaml = "version: 1\nturnStart:\n".to_owned();
    for _ in 0..257 {
        yaml.push_str("  - actions: [{type: inject, message: x}]\n");
    }
    write(d.path(), "big/.agents/hooks.yaml", &yaml);
    let big = d.path().join("big");
    let got = reasons(&explain(
        &big,
        &json!({"event": "turn_start", "cwd": big}),
        &[],
    ));
    assert!(
        got.iter()
            .all(|g| !g.0 && g.2 == "more than 256 groups across all layers: every turn fails")
    );
}
