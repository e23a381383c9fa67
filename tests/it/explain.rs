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
            "pl".into(),
            "matcher `Bash` (exact name) matches tool `Bash` (the Claude name of `shell`)".into()
        )
    );
    assert_eq!(
        got[1],
        (
            false,
            "pl".into(),
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
            "pl".into(),
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
        got.contains(&(false, "pl".into(), "matcher `idle` (exact name) does not match the empty target (Notification has no matcher target yet)".into())),
        "{got:?}"
    );
    assert!(
        got.contains(&(true, "pl".into(), "matcher `*` (matches everything) matches the empty target (Notification has no matcher target yet); it will fail: shell \"zsh\" is not supported (only \"bash\")".into())),
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

/// (hook, summary, ignored keys) of each explanation.
fn labels(list: &[Value]) -> Vec<(String, Option<String>, Vec<String>)> {
    list.iter()
        .map(|e| {
            (
                e["hook"].as_str().unwrap().to_owned(),
                e["summary"].as_str().map(str::to_owned),
                e["ignored"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .map(|k| {
                                format!(
                                    "{} ({})",
                                    k["key"].as_str().unwrap(),
                                    k["why"].as_str().unwrap()
                                )
                            })
                            .collect()
                    })
                    .unwrap_or_default(),
            )
        })
        .collect()
}

const TOOL_EVENT: &str =
    r#"{"event":"tool_before","tool":{"name":"shell","input":{"command":"ls"}}}"#;

#[test]
fn evener_handlers_are_told_apart_by_their_command_and_ignored_keys_are_named() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "pl/hooks/hooks.json",
        r#"{"hooks":{"PreToolUse":[
            {"matcher":"Bash","description":"guards","id":"g1","hooks":[
              {"type":"command","command":"python3 \"${CLAUDE_PLUGIN_ROOT}/hooks/check.py\" --strict","if":"Bash(git *)","statusMessage":"checking"},
              {"type":"command","command":"jq -r '.tool_input.command' | grep -q 'rm -rf' && exit 2 || exit 0","async":true},
              {"type":"command","command":"${CLAUDE_PLUGIN_ROOT}/bin/lint","args":["--fix","x"],"asyncRewake":true,"retries":3},
              {"type":"prompt","prompt":"Decide whether the command $TOOL_INPUT deletes files outside the project.","once":true},
              {"type":"http","url":"http://localhost:1/"}
            ]}]}}"#,
    );
    let pl = d.path().join("pl");
    let flags = ["--plugin-dir", pl.to_str().unwrap()];
    let event: Value = serde_json::from_str(TOOL_EVENT).unwrap();
    let got = labels(&explain(d.path(), &event, &flags));
    let group = [
        "description (group key: not read)",
        "id (group key: not read)",
    ];
    let with = |extra: &[&str]| -> Vec<String> {
        group.iter().chain(extra).map(|s| (*s).to_owned()).collect()
    };
    assert_eq!(
        got,
        [
            (
                "pl".into(),
                Some("python3 check.py --strict".into()),
                with(&[
                    "if (reserved: parsed, no effect yet)",
                    "statusMessage (reserved: parsed, no effect yet)"
                ])
            ),
            (
                "pl".into(),
                Some("jq -r '.tool_input.command' | grep -q 'rm -rf'…".into()),
                with(&["async (reserved: parsed, no effect yet)"])
            ),
            (
                "pl".into(),
                Some("lint --fix x".into()),
                with(&[
                    "asyncRewake (reserved: parsed, no effect yet)",
                    "retries (unknown: kept, no effect)"
                ])
            ),
            (
                "pl".into(),
                Some("prompt: Decide whether the command $TOOL_INPUT deletes…".into()),
                with(&["once (reserved: parsed, no effect yet)"])
            ),
            // A skipped handler: its keys do not matter.
            ("pl".into(), Some("http handler".into()), vec![]),
        ]
    );

    let out = latch()
        .args(["explain", "--project"])
        .arg(d.path())
        .arg("--home")
        .arg(d.path().join("no-home"))
        .args(flags)
        .write_stdin(TOOL_EVENT)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().take(4).collect();
    let file = crate::util_canonical(&pl.join("hooks/hooks.json"));
    assert_eq!(
        lines,
        [
            "tool_before (tool `shell`): 4 of 5 configured hooks would run",
            &format!(
                "  run  evener PreToolUse pl `python3 check.py --strict`  {}:3:15",
                file.display()
            ),
            "       matcher `Bash` (exact name) matches tool `Bash` (the Claude name of `shell`)",
            "       ignored: `description`, `id` (group key: not read); `if`, `statusMessage` (reserved: parsed, no effect yet)",
        ]
    );
}

#[test]
fn unnamed_poolside_hooks_and_peen_actions_are_told_apart_by_what_they_run() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        ".poolside/settings.yaml",
        "hooks:\n  PreToolUse:\n    - command: python3 .poolside/hooks/a.py\n    - command: python3 .poolside/hooks/b.py\n    - command: /opt/hooks/guard.sh\n    - {name: named, command: python3 c.py}\n",
    );
    write(
        d.path(),
        ".agents/hooks.yaml",
        "version: 1\npreToolUse:\n  - actions:\n      - {type: command, command: /usr/bin/python3, args: [hooks/a.py]}\n      - {type: command, command: /usr/bin/python3, args: [hooks/b.py]}\n      - {type: inject, message: Mind the tests.}\n      - {name: named, type: deny, reason: no}\n",
    );
    let event =
        json!({"event": "tool_before", "cwd": d.path(), "tool": {"name": "shell", "input": {}}});
    let got: Vec<(String, Option<String>)> = labels(&explain(d.path(), &event, &[]))
        .into_iter()
        .map(|(h, s, _)| (h, s))
        .collect();
    assert_eq!(
        got,
        [
            ("python3".into(), Some("python3 a.py".into())),
            ("python3".into(), Some("python3 b.py".into())),
            // The label already says it all.
            ("guard.sh".into(), None),
            ("named".into(), None),
            ("preToolUse-1/command-1".into(), Some("python3 a.py".into())),
            ("preToolUse-1/command-2".into(), Some("python3 b.py".into())),
            (
                "preToolUse-1/inject-3".into(),
                Some("Mind the tests.".into())
            ),
            ("preToolUse-1/named".into(), None),
        ]
    );
}

#[test]
fn the_docs_example_with_poolside_and_evener_is_real_output() {
    let root = env!("CARGO_MANIFEST_DIR");
    let docs = std::fs::read_to_string(format!("{root}/docs/explain.md")).unwrap();
    let cmd = "$ latch explain examples/poolside/events/shell-sudo.json --project examples/poolside --home /nonexistent --plugin-dir examples/evener/guard-plugin\n";
    let start = docs.find(cmd).unwrap() + cmd.len();
    let end = start + docs[start..].find("$ echo $?").unwrap();
    let out = latch()
        .current_dir(root)
        .args([
            "explain",
            "examples/poolside/events/shell-sudo.json",
            "--project",
            "examples/poolside",
            "--home",
            "/nonexistent",
            "--plugin-dir",
            "examples/evener/guard-plugin",
        ])
        .env_remove("PEEN_CONFIG_DIR")
        .env_remove("PEEN_COMPACTION_MODE")
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap().replace(root, "…");
    assert_eq!(text, &docs[start..end]);
}

#[test]
fn claude_file_changed_matchers_are_regexes_on_the_name_in_explain_as_in_fire() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join(".claude")).unwrap();
    std::fs::write(
        d.path().join(".claude/settings.json"),
        r#"{"hooks": {"FileChanged": [{"matcher": ".envrc|package.json", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
    )
    .unwrap();
    let flags = [
        "--dialect",
        "claude",
        "--claude-managed-dir",
        "/nonexistent",
    ];
    let hit = explain(
        d.path(),
        &json!({"event": "file_changed", "file_path": "/w/.envrc"}),
        &flags,
    );
    assert_eq!(
        reasons(&hit),
        [(
            true,
            "true".to_owned(),
            "[Project] matcher `.envrc|package.json` (JavaScript regular expression, anywhere in the name) matches `.envrc`".to_owned()
        )]
    );
    // As a regex `.envrc` matches `xenvrc` too, as in Claude Code.
    let also = explain(
        d.path(),
        &json!({"event": "file_changed", "file_path": "/w/xenvrc"}),
        &flags,
    );
    assert!(also[0]["runs"].as_bool().unwrap(), "{also:?}");
    let miss = explain(
        d.path(),
        &json!({"event": "file_changed", "file_path": "/w/README"}),
        &flags,
    );
    assert!(!miss[0]["runs"].as_bool().unwrap(), "{miss:?}");
}

/// A claude regex matcher that gives up runs its hooks (as in `fire`), and
/// `latch explain` says it gave up rather than that it matched.
#[test]
fn claude_explain_says_when_a_matcher_gave_up() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join(".claude")).unwrap();
    std::fs::write(
        d.path().join(".claude/settings.json"),
        r#"{"hooks": {"PreToolUse": [{"matcher": "^(a+)+\\1$", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
    )
    .unwrap();
    let tool = format!("{}b", "a".repeat(30));
    let got = explain(
        d.path(),
        &json!({"event": "tool_before", "tool": {"name": tool, "input": {}}}),
        &[
            "--dialect",
            "claude",
            "--claude-managed-dir",
            "/nonexistent",
        ],
    );
    let (runs, _, why) = &reasons(&got)[0];
    assert!(runs, "{got:?}");
    assert!(
        why.contains("gave up on `aaaa") && why.ends_with("and counts as matching"),
        "{why}"
    );
}

/// An `if` rule reads the tool call in Claude Code's shape in `latch
/// explain` as in `latch fire`: the neutral `shell` tool's `cmd` is
/// `Bash`'s `command`, and `write_file`'s relative `path` is `Write`'s
/// absolute `file_path`.
#[test]
fn claude_if_rules_read_the_vocabulary_s_shape_in_explain_as_in_fire() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join(".claude")).unwrap();
    std::fs::write(
        d.path().join(".claude/settings.json"),
        r#"{"hooks": {"PreToolUse": [{"hooks": [
            {"type": "command", "command": "echo push", "if": "Bash(git push:*)"},
            {"type": "command", "command": "echo npm", "if": "Bash(npm *)"},
            {"type": "command", "command": "echo ts", "if": "Write(*.ts)"}]}]}}"#,
    )
    .unwrap();
    let flags = [
        "--dialect",
        "claude",
        "--claude-managed-dir",
        "/nonexistent",
    ];
    let shell = json!({"event": "tool_before", "cwd": d.path(),
        "tool": {"name": "shell", "input": {"cmd": "git push"}}});
    let runs: Vec<(bool, String)> = reasons(&explain(d.path(), &shell, &flags))
        .into_iter()
        .map(|(runs, hook, _)| (runs, hook))
        .collect();
    assert_eq!(
        runs,
        [
            (true, "echo push".to_owned()),
            (false, "echo npm".to_owned()),
            (false, "echo ts".to_owned())
        ]
    );
    let write = json!({"event": "tool_before", "cwd": d.path(),
        "tool": {"name": "write_file", "input": {"path": "src/a.ts", "contents": "x"}}});
    let got = explain(d.path(), &write, &flags);
    let ts = reasons(&got)
        .into_iter()
        .find(|(_, hook, _)| hook == "echo ts");
    assert!(ts.is_some_and(|(runs, _, _)| runs), "{got:?}");
}
