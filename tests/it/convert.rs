//! `latch convert`: what converts keeps its behaviour (same outcomes on the
//! same events), and what cannot be expressed is reported with its place.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::util::latch;

/// `latch convert --from FROM --to TO PATH`, which must succeed: what it
/// wrote on stdout and on stderr.
pub(crate) fn convert(from: &str, to: &str, path: &Path) -> (String, String) {
    let out = latch()
        .args(["convert", "--from", from, "--to", to])
        .arg(path)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn copy_examples(dst: &Path) {
    super::examples_copy_dir(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/poolside"),
        dst,
    );
}

/// Fires `event` with only the given dialect's configuration present.
fn fire(project: &Path, plugin: Option<&Path>, event: &Value) -> Value {
    let state = tempfile::tempdir().unwrap();
    let mut cmd = latch();
    cmd.args(["fire", "--project"])
        .arg(project)
        .arg("--home")
        .arg(state.path())
        .arg("--state-dir")
        .arg(state.path());
    if let Some(p) = plugin {
        cmd.arg("--plugin-dir").arg(p);
    }
    let out = cmd
        .env_remove("PEEN_CONFIG_DIR")
        .write_stdin(serde_json::to_vec(event).unwrap())
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap()
}

/// What must survive a conversion: the decision, the reasons' texts, the
/// injected context, the continuation, and the rewritten output's text.
fn meaning(o: &Value) -> Value {
    let texts = |k: &str| -> Vec<Value> {
        o[k].as_array()
            .map(|a| a.iter().map(|x| x["text"].clone()).collect())
            .unwrap_or_default()
    };
    json!({
        "decision": o["decision"],
        "reasons": texts("reasons"),
        "context": texts("context"),
        "continuation": o["continuation"]["prompt"],
        "tool_output": o["tool_output"].as_str().map(|t| t.split("\n<hook").next().unwrap_or("").to_owned()),
    })
}

fn example_events() -> Vec<Value> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/poolside/events");
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    names
        .iter()
        .map(|p| serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap())
        .collect()
}

#[test]
fn poolside_to_evener_and_back_keeps_every_outcome() {
    let original = tempfile::tempdir().unwrap();
    copy_examples(original.path());
    let (json_text, report) = convert("poolside", "evener", original.path());
    assert!(
        report.contains("stop_hook_max_continuations (1) has no equivalent in the target; dropped"),
        "{report}"
    );
    assert!(
        report.contains("settings.yaml:30:7"),
        "the report has positions: {report}"
    );
    let plugin = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(plugin.path().join("hooks")).unwrap();
    std::fs::write(plugin.path().join("hooks/hooks.json"), &json_text).unwrap();

    let back = tempfile::tempdir().unwrap();
    copy_examples(back.path());
    let (yaml, _) = convert("evener", "poolside", plugin.path());
    std::fs::write(
        back.path().join(".poolside/settings.yaml"),
        format!("{yaml}  stop_hook_max_continuations: 1\n"),
    )
    .unwrap();

    let events = example_events();
    assert!(events.len() >= 3, "the examples have events");
    let mut denies = 0;
    for event in events {
        let a = meaning(&fire(original.path(), None, &event));
        let b = meaning(&fire(back.path(), None, &event));
        assert_eq!(a, b, "event {event}");
        denies += usize::from(a["decision"] == "deny");
    }
    assert!(
        denies > 0,
        "some example event is denied, so a lost deny shows"
    );
}

#[test]
fn poolside_to_evener_keeps_exit_2_denies() {
    let project = tempfile::tempdir().unwrap();
    copy_examples(project.path());
    let (json_text, _) = convert("poolside", "evener", project.path());
    let plugin = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(plugin.path().join("hooks")).unwrap();
    std::fs::write(plugin.path().join("hooks/hooks.json"), json_text).unwrap();
    // The evener copy runs its hooks in the project, where the scripts are;
    // the project's own poolside settings go, so only evener runs there.
    std::fs::remove_file(project.path().join(".poolside/settings.yaml")).unwrap();
    for cmd in ["sudo make install", "echo hook-test", "make test"] {
        let event = json!({"event": "tool_before", "cwd": project.path(), "tool": {"name": "shell", "input": {"cmd": cmd}}});
        let original = tempfile::tempdir().unwrap();
        copy_examples(original.path());
        let a = meaning(&fire(original.path(), None, &event));
        let b = meaning(&fire(project.path(), Some(plugin.path()), &event));
        assert_eq!(a["decision"], b["decision"], "{cmd}");
        assert_eq!(a["reasons"], b["reasons"], "{cmd}");
        let expected = if cmd == "make test" {
            "proceed"
        } else {
            "deny"
        };
        assert_eq!(b["decision"], expected, "{cmd}");
    }
}

/// A peen deny whose reason holds a NUL still denies once converted (no
/// command line can hold a NUL, so it is left out, and the report says so).
#[test]
fn a_peen_deny_with_a_nul_in_its_reason_still_denies_converted() {
    let ws = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(ws.path().join(".agents")).unwrap();
    std::fs::write(
        ws.path().join(".agents/hooks.yaml"),
        "version: 1\npreToolUse:\n  - name: g\n    match: {tool: runCommand}\n    actions: [{name: d, type: deny, reason: \"bad\\0reason\"}]\n",
    )
    .unwrap();
    let (yaml, report) = convert("peen", "poolside", ws.path());
    assert!(
        report.contains("g/d: the reason's NUL characters are left out"),
        "{report}"
    );
    assert!(!yaml.contains("\\u0000"), "{yaml}");
    let project = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(project.path().join(".poolside")).unwrap();
    std::fs::write(project.path().join(".poolside/settings.yaml"), &yaml).unwrap();
    let event = json!({"event": "tool_before", "tool": {"name": "shell", "input": {"cmd": "ls"}}});
    let pool = fire(project.path(), None, &event);
    assert_eq!(pool["decision"], "deny", "{yaml}");
    assert_eq!(pool["reasons"][0]["text"], "badreason");
}

#[test]
fn peen_to_poolside_and_evener_keeps_tool_denies_and_reports_the_rest() {
    let ws = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(ws.path().join(".agents")).unwrap();
    std::fs::write(
        ws.path().join(".agents/hooks.yaml"),
        "version: 1\npreToolUse:\n  - name: no-shell\n    match: {tool: runCommand}\n    actions: [{type: deny, reason: No commands here.}]\npreWriteFile:\n  - name: go\n    match: {extensions: [\".go\"]}\n    actions: [{type: deny, reason: x}]\nturnStart:\n  - actions: [{type: inject, message: hi}]\n",
    )
    .unwrap();
    let event = json!({"event": "tool_before", "cwd": ws.path(), "tool": {"name": "shell", "input": {"cmd": "ls"}}});

    let (yaml, report) = convert("peen", "poolside", ws.path());
    assert!(report.contains("go/deny-1: root, path, extensions and input checks have no equivalent; the action is dropped"), "{report}");
    assert!(
        report.contains("turnStart-1/inject-1: `inject` has no equivalent; dropped"),
        "{report}"
    );
    let project = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(project.path().join(".poolside")).unwrap();
    std::fs::write(project.path().join(".poolside/settings.yaml"), &yaml).unwrap();
    let pool = fire(project.path(), None, &event);
    assert_eq!(pool["decision"], "deny", "{yaml}");
    assert_eq!(pool["reasons"][0]["text"], "No commands here.");

    let (json_text, _) = convert("peen", "evener", ws.path());
    let plugin = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(plugin.path().join("hooks")).unwrap();
    std::fs::write(plugin.path().join("hooks/hooks.json"), &json_text).unwrap();
    let empty = tempfile::tempdir().unwrap();
    let ev = fire(empty.path(), Some(plugin.path()), &event);
    assert_eq!(ev["decision"], "deny", "{json_text}");
    assert_eq!(ev["reasons"][0]["text"], "No commands here.");

    // And back to peen: the deny survives as a deny action.
    let (peen_back, _) = convert("poolside", "peen", project.path());
    assert!(
        peen_back.contains(
            "preToolUse:\n  - name: \"no-shell\"\n    match:\n      tool: \"runCommand\"\n"
        ),
        "{peen_back}"
    );
}

#[test]
fn what_cannot_be_expressed_is_reported() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("pl/hooks")).unwrap();
    std::fs::write(
        d.path().join("pl/hooks/hooks.json"),
        r#"{"hooks":{"PreToolUse":[{"matcher":"mcp__.*","hooks":[{"type":"prompt","prompt":"ok?"},{"type":"command","command":"true"}]}],"Notification":[{"hooks":[{"type":"command","command":"true"}]}]}}"#,
    )
    .unwrap();
    let (_, report) = convert("evener", "peen", &d.path().join("pl"));
    assert!(
        report.contains("a prompt handler (a model call) has no equivalent; dropped"),
        "{report}"
    );
    assert!(report.contains("peen matches tools by exact name only: regex `.*(?:mcp__.*).*` cannot be expressed; dropped"), "{report}");
    assert!(
        report.contains("peen has no event for `notification`; dropped"),
        "{report}"
    );
    assert!(report.contains("hooks.json:1:"), "positions: {report}");
}

use crate::util::write_file as write;

#[test]
fn a_matcher_that_never_matched_is_not_made_to_match() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "pl/hooks/hooks.json",
        r#"{"PreToolUse":[{"matcher":"shell","hooks":[{"type":"command","command":"exit 2"}]}]}"#,
    );
    let (yaml, report) = convert("evener", "poolside", &d.path().join("pl"));
    assert!(report.contains("matcher name `shell` is not this dialect's name for the tool: it never matched here, so it is dropped rather than made to match"), "{report}");
    assert!(!yaml.contains("exit 2"), "{yaml}");
}

#[test]
fn plugin_root_is_expanded_durations_stay_exact_and_odd_text_survives() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "pl/hooks/hooks.json",
        r#"{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"${CLAUDE_PLUGIN_ROOT}/check.sh","timeout":0.0004}]}]}"#,
    );
    let plugin = crate::util_canonical(&d.path().join("pl"));
    let (yaml, report) = convert("evener", "poolside", &d.path().join("pl"));
    assert!(
        yaml.contains(&format!("command: \"{}/check.sh\"", plugin.display())),
        "{yaml}"
    );
    // A plain invocation means the same to bash and /bin/sh.
    assert!(!report.contains("ran under bash"), "{report}");
    let (peen, _) = convert("evener", "peen", &d.path().join("pl"));
    assert!(peen.contains("timeout: 400µs"), "{peen}");

    write(
        d.path(),
        "ws/.agents/hooks.yaml",
        "version: 1\npreToolUse:\n  - match: {tool: runCommand}\n    actions: [{type: deny, reason: \"a\\x7Fb 'q' \\\"d\\\" $HOME \\\\ é\"}]\n",
    );
    let (yaml, _) = convert("peen", "poolside", &d.path().join("ws"));
    let project = d.path().join("proj");
    write(&project, ".poolside/settings.yaml", &yaml);
    let lint = latch()
        .args(["lint", "--format", "json"])
        .arg(&project)
        .output()
        .unwrap();
    let diags: Value = serde_json::from_slice(&lint.stdout).unwrap();
    assert!(
        !diags.to_string().contains("invalid YAML"),
        "{yaml}\n{diags}"
    );
    let out = fire(
        &project,
        None,
        &json!({"event": "tool_before", "tool": {"name": "shell", "input": {}}}),
    );
    assert_eq!(out["reasons"][0]["text"], "a\u{7f}b 'q' \"d\" $HOME \\ é");
}

#[test]
fn fail_closed_peen_commands_and_session_start_scope_are_reported() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "ws/.agents/hooks.yaml",
        "version: 1\npreToolUse:\n  - name: check\n    actions: [{type: command, command: /bin/true}]\nsessionStart:\n  - actions: [{type: command, command: /bin/true}]\n",
    );
    let (_, report) = convert("peen", "poolside", &d.path().join("ws"));
    assert!(
        report.contains(
            "check/command-1: in peen a failed command denies here; converted hooks fail open"
        ),
        "{report}"
    );
    write(
        d.path(),
        "proj/.poolside/settings.yaml",
        "hooks:\n  SessionStart:\n    - {command: /bin/true}\n",
    );
    let (json_text, _) = convert("poolside", "evener", &d.path().join("proj"));
    assert!(
        json_text.contains("\"matcher\": \"startup|resume\""),
        "{json_text}"
    );
    let (_, report) = convert("poolside", "peen", &d.path().join("proj"));
    assert!(
        report.contains(
            "peen's sessionStart runs only on a session's first turn: the hook no longer runs on `resume`"
        ),
        "{report}"
    );
    let out = latch()
        .args(["convert", "--from", "peen", "--to", "poolside"])
        .arg(d.path().join("nope"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(5));
}

#[test]
fn a_peen_deny_survives_poolside_and_evener_and_comes_back() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "ws/.agents/hooks.yaml",
        "version: 1\npreToolUse:\n  - name: g\n    match: {tool: runCommand}\n    actions: [{type: deny, reason: No.}]\n",
    );
    let (yaml, _) = convert("peen", "poolside", &d.path().join("ws"));
    write(d.path(), "proj/.poolside/settings.yaml", &yaml);
    let (json_text, _) = convert("poolside", "evener", &d.path().join("proj"));
    write(d.path(), "pl/hooks/hooks.json", &json_text);
    let (peen, _) = convert("evener", "peen", &d.path().join("pl"));
    write(d.path(), "ws2/.agents/hooks.yaml", &peen);
    let event = |ws: &Path| json!({"event": "tool_before", "cwd": ws, "tool": {"name": "runCommand", "input": {}}});
    let ws2 = d.path().join("ws2");
    let back = fire(&ws2, None, &event(&ws2));
    assert_eq!(back["decision"], "deny", "{peen}");
    // The deny went through a script (exit 2), which peen runs as a
    // failing command: a deny on a pre event, with peen's failure text.
    assert!(
        back["reasons"][0]["text"]
            .as_str()
            .unwrap()
            .ends_with("exited with code 2: No."),
        "{back}"
    );
}

/// The report's entries: each message with the `--> FILE:LINE:COL` under it.
pub(crate) fn entries(report: &str) -> Vec<(String, String)> {
    let lines: Vec<&str> = report.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if let Some(msg) = l
            .strip_prefix("warning: ")
            .or_else(|| l.strip_prefix("note: "))
            .or_else(|| l.strip_prefix("error: "))
        {
            let at = lines
                .get(i + 1)
                .and_then(|n| n.trim_start().strip_prefix("--> "))
                .unwrap_or("");
            out.push((msg.to_owned(), at.to_owned()));
        }
    }
    out
}

/// The position (`LINE:COL`) of the report entry whose message contains `text`.
pub(crate) fn position_of(report: &str, text: &str) -> String {
    let (_, at) = entries(report)
        .into_iter()
        .find(|(m, _)| m.contains(text))
        .unwrap_or_else(|| panic!("no entry with {text:?} in:\n{report}"));
    at.rsplitn(3, ':')
        .take(2)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect::<Vec<_>>()
        .join(":")
}

#[test]
fn every_dropped_evener_key_is_reported_at_its_position() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "pl/hooks/hooks.json",
        concat!(
            "{\"hooks\": {\"PreToolUse\": [\n",
            "  {\"matcher\": \"Bash\", \"description\": \"guards\", \"id\": \"g1\", \"hooks\": [\n",
            "    {\"type\": \"command\", \"command\": \"true\", \"if\": \"Bash(git *)\", \"statusMessage\": \"checking\", \"once\": true},\n",
            "    {\"type\": \"command\", \"command\": \"true\", \"async\": true, \"asyncRewake\": true, \"retries\": 3}\n",
            "  ]}\n",
            "]}}\n"
        ),
    );
    for to in ["poolside", "peen", "evener"] {
        let (_, report) = convert("evener", to, &d.path().join("pl"));
        for (key, at) in [
            ("if", "3:44"),
            ("statusMessage", "3:65"),
            ("once", "3:94"),
            ("async", "4:44"),
            ("asyncRewake", "4:59"),
            ("retries", "4:80"),
        ] {
            assert_eq!(
                position_of(
                    &report,
                    &format!("`{key}` is dropped: the target has no such key")
                ),
                at,
                "{to}: {key}"
            );
        }
        assert_eq!(
            position_of(&report, "group key `description` is dropped"),
            "2:23"
        );
        assert_eq!(position_of(&report, "group key `id` is dropped"), "2:48");
    }
}

#[test]
fn bash_is_warned_about_only_when_the_script_needs_more_than_posix_sh() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "pl/hooks/hooks.json",
        concat!(
            "{\"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [\n",
            "  {\"type\": \"command\", \"command\": \"python3 script.py\"},\n",
            "  {\"type\": \"command\", \"command\": \"jq -r '.tool_input.command' | grep -q 'rm -rf' && exit 2 || exit 0\"},\n",
            "  {\"type\": \"command\", \"command\": \"[[ -f .lock ]] && exit 2\"},\n",
            "  {\"type\": \"command\", \"command\": \"source ./env.sh; run\"}\n",
            "]}]}}\n"
        ),
    );
    for (to, runs) in [("poolside", "poolside"), ("peen", "the peen action")] {
        let (_, report) = convert("evener", to, &d.path().join("pl"));
        let bash: Vec<(String, String)> = entries(&report)
            .into_iter()
            .filter(|(m, _)| m.contains("ran under bash"))
            .collect();
        let file = d.path().join("pl/hooks/hooks.json");
        assert_eq!(
            bash,
            [
                (
                    format!(
                        "this script ran under bash in evener; {runs} runs it with /bin/sh, and it uses `[[`, which /bin/sh may not run the same way"
                    ),
                    format!("{}:4:3", crate::util_canonical(&file).display())
                ),
                (
                    format!(
                        "this script ran under bash in evener; {runs} runs it with /bin/sh, and it uses `source`, which /bin/sh may not run the same way"
                    ),
                    format!("{}:5:3", crate::util_canonical(&file).display())
                ),
            ],
            "{to}: {report}"
        );
    }
}

#[test]
fn variables_the_target_does_not_set_are_reported() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "pl/hooks/hooks.json",
        concat!(
            "{\"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [\n",
            "  {\"type\": \"command\", \"command\": \"python3 ${CLAUDE_PLUGIN_ROOT}/hooks/check.py\"},\n",
            "  {\"type\": \"command\", \"command\": \"test -f \\\"$CLAUDE_PROJECT_DIR/.lock\\\" && exit 2; sh $CLAUDE_PLUGIN_ROOT/x.sh\"},\n",
            "  {\"type\": \"command\", \"command\": \"${PLUGIN_ROOT}/hooks/check.py\", \"args\": [\"--home\", \"$HOME\"]}\n",
            "]}]}}\n"
        ),
    );
    write(
        d.path(),
        "pl/hooks/check.py",
        "import os\n\nroot = os.environ[\"CLAUDE_PLUGIN_ROOT\"]\n",
    );
    let plugin = crate::util_canonical(&d.path().join("pl"));
    let check = plugin.join("hooks/check.py");

    let (yaml, report) = convert("evener", "poolside", &plugin);
    // The bare `$CLAUDE_PLUGIN_ROOT` is expanded like the braced one.
    assert!(
        yaml.contains(&format!("sh {}/x.sh", plugin.display())),
        "{yaml}"
    );
    let lost: Vec<(String, String)> = entries(&report)
        .into_iter()
        .filter(|(m, _)| m.contains("which the converted hook does not get"))
        .collect();
    let file = plugin.join("hooks/hooks.json");
    assert_eq!(
        lost,
        [
            (
                format!("`{}` (line 3), which it runs, reads $CLAUDE_PLUGIN_ROOT, which the converted hook does not get: evener sets it and poolside does not", check.display()),
                format!("{}:2:34", file.display())
            ),
            (
                "the command reads $CLAUDE_PROJECT_DIR, which the converted hook does not get: evener sets it and poolside does not".to_owned(),
                format!("{}:3:34", file.display())
            ),
            (
                format!("`{}` (line 3), which it runs, reads $CLAUDE_PLUGIN_ROOT, which the converted hook does not get: evener sets it and poolside does not", check.display()),
                format!("{}:4:34", file.display())
            ),
        ],
        "{report}"
    );

    // poolside passes latch's environment on; peen gives only PATH, and
    // evener removes CLAUDE_ENV_FILE.
    write(
        d.path(),
        "proj/.poolside/settings.yaml",
        "hooks:\n  PreToolUse:\n    - name: env\n      command: 'cat \"$CLAUDE_ENV_FILE\" \"$HOME/.x\" >/dev/null; PATH=$PATH:/opt; x=1; echo $x'\n",
    );
    let proj = d.path().join("proj");
    let settings = crate::util_canonical(&proj.join(".poolside/settings.yaml"));
    let (_, report) = convert("poolside", "peen", &proj);
    let lost: Vec<(String, String)> = entries(&report)
        .into_iter()
        .filter(|(m, _)| m.contains("which the converted hook does not get"))
        .collect();
    let at = format!("{}:4:16", settings.display());
    assert_eq!(
        lost,
        [
            ("the command reads $CLAUDE_ENV_FILE, which the converted hook does not get: peen gives a command only PATH and its `environment` entries".to_owned(), at.clone()),
            ("the command reads $HOME, which the converted hook does not get: peen gives a command only PATH and its `environment` entries".to_owned(), at.clone()),
        ],
        "{report}"
    );
    let (_, report) = convert("poolside", "evener", &proj);
    let lost: Vec<(String, String)> = entries(&report)
        .into_iter()
        .filter(|(m, _)| m.contains("which the converted hook does not get"))
        .collect();
    assert_eq!(
        lost,
        [("the command reads $CLAUDE_ENV_FILE, which the converted hook does not get: evener removes it from a hook's environment".to_owned(), at)],
        "{report}"
    );

    // peen `environment` entries are named.
    write(
        d.path(),
        "ws/.agents/hooks.yaml",
        "version: 1\npostToolUse:\n  - name: g\n    actions:\n      - {name: a, type: command, command: /bin/true, environment: {RULE_FILE: r.md}, workingDir: sub}\n",
    );
    let (_, report) = convert("peen", "poolside", &d.path().join("ws"));
    assert_eq!(
        position_of(
            &report,
            "g/a: `environment` entry RULE_FILE is dropped: the target cannot set a variable for one hook, so the command does not get $RULE_FILE"
        ),
        "5:9"
    );
    assert_eq!(
        position_of(&report, "g/a: `workingDir: sub` is dropped"),
        "5:9"
    );
}

#[test]
fn the_docs_plugin_example_is_real_output() {
    let docs =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/convert.md")).unwrap();
    let between = |a: &str, b: &str| -> String {
        let start = docs.find(a).unwrap() + a.len();
        docs[start..start + docs[start..].find(b).unwrap()].to_owned()
    };
    let hooks = between(
        "$ cat plug/hooks/hooks.json\n",
        "$ cat plug/hooks/check.py\n",
    );
    let check = between(
        "$ cat plug/hooks/check.py\n",
        "$ latch convert --from evener",
    );
    let report = between(
        "$ latch convert --from evener --to poolside plug > settings.yaml\n",
        "$ cat settings.yaml\n",
    );
    // The plugin example is the last `cat settings.yaml` of the page.
    let at = docs.rfind("$ cat settings.yaml\n").unwrap() + "$ cat settings.yaml\n".len();
    let settings = &docs[at..at + docs[at..].find("```").unwrap()];
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "plug/hooks/hooks.json", &hooks);
    write(d.path(), "plug/hooks/check.py", &check);
    let dir = crate::util_canonical(d.path());
    let (yaml, got) = convert("evener", "poolside", &dir.join("plug"));
    let dir = dir.to_str().unwrap();
    assert_eq!(got.replace(dir, "/tmp/demo"), report);
    assert_eq!(yaml.replace(dir, "/tmp/demo"), settings);
}

/// peen skips an invalid hooks file with a warning; converting it gives
/// nothing of its hooks, and the exit code says the source had errors.
#[test]
fn a_peen_file_skipped_whole_is_a_load_error() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "ws/.agents/hooks.yaml",
        "version: 1\npreToolUse:\n  - name: no-force-push\n    match: {tool: runCommand}\n    actions: [{type: deny, reason: never, bogus: 1}]\n",
    );
    for to in ["claude", "poolside", "evener"] {
        let out = latch()
            .args(["convert", "--from", "peen", "--to", to])
            .arg(d.path().join("ws"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(5), "to {to}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("hooks file skipped"),
            "to {to}"
        );
    }
}
