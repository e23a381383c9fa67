//! `latch lint`, through the real binary: discovery, every rule, the
//! rendered output and the exit codes.

use serde_json::Value;

use crate::util::{latch, write_file as write, write_script as script};

/// Runs `latch lint --format json` and returns (exit code, messages).
fn lint_json(args: &[&str]) -> (i32, Vec<Value>) {
    let out = latch()
        .arg("lint")
        .args(["--format", "json"])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        serde_json::from_slice(&out.stdout).unwrap(),
    )
}

fn messages(diags: &[Value]) -> Vec<String> {
    diags
        .iter()
        .map(|d| d["message"].as_str().unwrap().to_owned())
        .collect()
}

fn has(diags: &[Value], needle: &str) -> bool {
    messages(diags).iter().any(|m| m.contains(needle))
}

#[test]
fn a_clean_configuration_exits_0() {
    let d = tempfile::tempdir().unwrap();
    let abs = d.path().join("hook.sh");
    script(d.path(), "hook.sh", "#!/bin/sh\nexit 0\n");
    write(
        d.path(),
        ".poolside/settings.yaml",
        &format!(
            "hooks:\n  PreToolUse:\n    - {{matcher: shell, command: {}}}\n",
            abs.display()
        ),
    );
    let (code, diags) = lint_json(&[d.path().to_str().unwrap()]);
    assert_eq!(code, 0, "{diags:?}");
    assert!(diags.is_empty(), "{diags:?}");
}

#[test]
fn poolside_rules() {
    let d = tempfile::tempdir().unwrap();
    let abs = d.path().join("guard.sh");
    script(
        d.path(),
        "guard.sh",
        "#!/bin/sh\ncmd=$(jq -r '.tool_input.command' )\ncwd=$(jq -r '.tool_input.cwd')\n",
    );
    write(d.path(), "plain.sh", "#!/bin/sh\n");
    write(
        d.path(),
        ".poolside/settings.yaml",
        &format!(
            "hooks:\n  PreToolUse:\n    - {{name: a, matcher: Bash, command: {g}}}\n    - {{name: b, matcher: 'shell.*', command: {g}, timeout: 5000}}\n    - {{name: c, matcher: shell, command: {g}}}\n    - {{name: d, matcher: shell, command: {g}}}\n    - {{name: e, matcher: shell, command: ./plain.sh}}\n    - {{name: f, matcher: shell, command: /nonexistent/x.sh}}\n    - {{name: g, matcher: read, command: no-such-tool-on-path --x}}\n  Stop:\n    - {{name: s, matcher: shell, command: {g}}}\n",
            g = abs.display()
        ),
    );
    let (code, diags) = lint_json(&[d.path().to_str().unwrap()]);
    assert_eq!(code, 0, "warnings alone pass");
    for needle in [
        "matcher `Bash` is not a poolside tool name; it never matches",
        "regex `shell.*` matches every tool whose name starts with `shell`, not only `shell`",
        "`timeout` is in seconds: 5000 s is 1.4 hours; did you mean 5 s?",
        "this hook duplicates the one at",
        "the command path `./plain.sh` is relative",
        "the command `./plain.sh` is not executable",
        "the command `/nonexistent/x.sh` does not exist",
        "the command `no-such-tool-on-path` is not on PATH",
        "the matcher is ignored on Stop",
        "no level sets `stop_hook_max_continuations`",
        "the script reads `.tool_input.command`, which `shell` does not have",
    ] {
        assert!(
            has(&diags, needle),
            "missing {needle:?} in {:#?}",
            messages(&diags)
        );
    }
    assert!(!has(&diags, "`.tool_input.cwd`"), "cwd is a shell key");
    let script_finding = diags
        .iter()
        .find(|d| {
            d["message"]
                .as_str()
                .unwrap()
                .contains(".tool_input.command")
        })
        .unwrap();
    assert_eq!(script_finding["file"], abs.to_str().unwrap());
    assert_eq!(
        (
            script_finding["line"].as_u64(),
            script_finding["column"].as_u64()
        ),
        (Some(2), Some(26))
    );
    let (code, _) = lint_json(&["--deny-warnings", d.path().to_str().unwrap()]);
    assert_eq!(code, 1);
}

#[test]
fn load_errors_exit_5_and_render_like_rustc() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        ".poolside/settings.yaml",
        "hooks:\n  PreToolUze:\n    - {matcher: '*', command: /bin/true}\n  Stop:\n    - {name: x}\n  stop_hook_max_continuations: 1\n",
    );
    let out = latch().arg("lint").arg(d.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(5));
    let text = String::from_utf8(out.stdout).unwrap();
    let file = d.path().join(".poolside/settings.yaml");
    assert_eq!(
        text,
        format!(
            "warning: unknown hook event `PreToolUze`; its hooks are skipped
 --> {f}:2:3
  |
2 |   PreToolUze:
  |   ^^^^^^^^^^
  |
  = help: did you mean `PreToolUse`?

error: hook #1 of `Stop` has no `command`; it is skipped [hook x, event Stop]
 --> {f}:5:7
  |
5 |     - {{name: x}}
  |       ^
  |
  = help: add `command: /path/to/script.sh`

1 error, 1 warning, 0 notes in 1 configuration
",
            f = file.display()
        )
    );
}

#[test]
fn evener_rules() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "pl/hooks/hooks.json",
        r#"{"hooks":{
  "PreToolUse":[
    {"matcher":"shell|Read","hooks":[{"type":"command","command":"true"}]},
    {"matcher":"Bash.*","hooks":[{"type":"command","command":"hooks/missing.sh","timeout":3000}]}],
  "Stop":[{"hooks":[{"type":"command","command":"true"}]}]}}"#,
    );
    let (code, diags) = lint_json(&[d.path().join("pl").to_str().unwrap()]);
    assert_eq!(code, 0);
    for needle in [
        "matcher `shell` is evener's own name; hooks see `Bash`, so it never matches",
        "regex `Bash.*` matches every tool whose name contains `Bash`",
        "the command path `hooks/missing.sh` is relative",
        "`timeout` is in seconds: 3000 s",
        "evener has no continuation cap",
    ] {
        assert!(
            has(&diags, needle),
            "missing {needle:?} in {:#?}",
            messages(&diags)
        );
    }
    let rel = diags
        .iter()
        .find(|d| d["message"].as_str().unwrap().contains("is relative"))
        .unwrap();
    // Evener runs every hook in the project directory: a relative path is
    // advice, and whether it exists is the warning.
    assert_eq!(rel["severity"], "info");
    assert!(has(&diags, "the command `hooks/missing.sh` does not exist"));
}

#[test]
fn peen_rules() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "ws/.agents/hooks.yaml",
        "version: 1\npreToolUse:\n  - name: g\n    match: {tool: run_command}\n    actions: [{type: command, command: ./check.sh}]\n  - name: g\n    match: {tool: frobnicate}\n    actions: [{type: deny, reason: x}]\n",
    );
    let (_, diags) = lint_json(&[d.path().to_str().unwrap()]);
    for needle in [
        "`tool: run_command` is not a peen tool name; it never matches",
        "`tool: frobnicate` is not a tool peen presents",
        "a group named `g` is already declared for preToolUse",
        "the command path `./check.sh` is relative",
        "the command `./check.sh` does not exist",
    ] {
        assert!(
            has(&diags, needle),
            "missing {needle:?} in {:#?}",
            messages(&diags)
        );
    }
    let hint = diags
        .iter()
        .find(|d| d["message"].as_str().unwrap().contains("run_command"))
        .unwrap();
    assert_eq!(hint["hint"], "peen names it `runCommand`");
}

#[test]
fn discovery_finds_every_dialect_below_a_directory_and_takes_files() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "a/.poolside/settings.yaml",
        "hooks:\n  Bogus: []\n",
    );
    write(d.path(), "b/c/.agents/hooks.yaml", "version: 2\n");
    write(
        d.path(),
        "plugins/p/.claude-plugin/plugin.json",
        "{\"name\": 5}",
    );
    write(d.path(), "target/.agents/hooks.yaml", "version: 2\n");
    let (_, diags) = lint_json(&[d.path().to_str().unwrap()]);
    let files: Vec<String> = diags
        .iter()
        .map(|d| d["file"].as_str().unwrap_or("").to_owned())
        .collect();
    assert!(
        files
            .iter()
            .any(|f| f.ends_with("a/.poolside/settings.yaml"))
    );
    assert!(files.iter().any(|f| f.ends_with("b/c/.agents/hooks.yaml")));
    assert!(
        files
            .iter()
            .any(|f| f.ends_with("plugins/p/.claude-plugin/plugin.json"))
    );
    assert!(
        !files.iter().any(|f| f.contains("/target/")),
        "target/ is not searched"
    );
    let (_, diags) = lint_json(&[d.path().join("b/c/.agents/hooks.yaml").to_str().unwrap()]);
    assert_eq!(diags.len(), 1);
    assert!(has(&diags, "`version` must be 1, found 2"));
}

#[test]
fn matchers_that_can_never_match() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "pl/hooks/hooks.json",
        r#"{"hooks":{"Notification":[{"matcher":"idle","hooks":[{"type":"command","command":"true"}]}],
                    "SessionStart":[{"matcher":"boot","hooks":[{"type":"command","command":"true"}]},
                                    {"matcher":"startup|resume","hooks":[{"type":"command","command":"true"}]}]}}"#,
    );
    write(
        d.path(),
        "ws/.agents/hooks.yaml",
        "version: 1\nturnStart:\n  - match: {tool: runCommand, extensions: [\".go\"]}\n    actions: [{type: inject, message: x}]\n",
    );
    let (_, diags) = lint_json(&[d.path().to_str().unwrap()]);
    for needle in [
        "matcher `idle` (exact name) never matches on Notification: evener tests Notification matchers against an empty target today",
        "matcher `boot` (exact name) never matches on SessionStart: its targets are startup, resume, clear and compact",
        "`tool: runCommand` never matches on turnStart: lifecycle events have no tool",
        "`root`, `path` and `extensions` never match on turnStart: lifecycle events have no paths",
    ] {
        assert!(
            has(&diags, needle),
            "missing {needle:?} in {:#?}",
            messages(&diags)
        );
    }
    assert!(
        !has(&diags, "`startup|resume`"),
        "a valid SessionStart matcher is fine"
    );
}

#[test]
fn missing_paths_are_errors_and_overlapping_paths_count_once() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "ws/.agents/hooks.yaml", "version: 2\n");
    let ws = d.path().join("ws");
    let (code, diags) = lint_json(&[d.path().to_str().unwrap(), ws.to_str().unwrap()]);
    assert_eq!(
        diags
            .iter()
            .filter(|d| d["message"]
                .as_str()
                .unwrap()
                .contains("`version` must be 1"))
            .count(),
        1
    );
    assert_eq!(code, 0, "a skipped peen file is a warning");
    let (code, diags) = lint_json(&[d.path().join("nope").to_str().unwrap()]);
    assert_eq!(code, 5);
    assert!(has(&diags, "no such file or directory"));
    write(d.path(), "ci.yaml", "on: push\n");
    let (code, diags) = lint_json(&[d.path().join("ci.yaml").to_str().unwrap()]);
    assert_eq!(code, 5);
    assert!(
        has(&diags, "no hook configuration here"),
        "an unrelated YAML file is not read as settings"
    );
}

#[test]
fn truncated_json_and_odd_spaces_render_without_panicking() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "p/hooks/hooks.json", "{\n");
    let out = latch()
        .arg("lint")
        .arg(d.path().join("p"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(5),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains("error: invalid JSON: EOF while parsing an object")
    );
    write(
        d.path(),
        "q/.poolside/settings.yaml",
        "hooks:\n  \u{a0}Stop: []\n",
    );
    let out = latch()
        .arg("lint")
        .arg(d.path().join("q"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("unknown hook event"));
}

#[test]
fn evener_duplicate_groups() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "pl/hooks/hooks.json",
        r#"{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"/bin/true"}]},{"matcher":"Bash","hooks":[{"type":"command","command":"/bin/true"}]}]}"#,
    );
    let (_, diags) = lint_json(&[d.path().join("pl").to_str().unwrap()]);
    assert!(has(&diags, "this group duplicates the one at"), "{diags:?}");
    assert!(has(&diags, "its hooks run twice"));
}

#[test]
fn evener_and_peen_findings_render_in_full() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "pl/hooks/hooks.json",
        "{\"hooks\": {\n  \"PreToolUse\": [{\"matcher\": \"shell\", \"hooks\": [{\"type\": \"command\", \"command\": \"/bin/true\"}]}]\n}}\n",
    );
    write(
        d.path(),
        "ws/.agents/hooks.yaml",
        "version: 1\npreToolUse:\n  - name: g\n    match: {tool: run_command}\n    actions: [{type: deny, reason: x}]\n",
    );
    let out = latch()
        .arg("lint")
        .arg(d.path().join("pl"))
        .arg(d.path().join("ws"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let root = d.path().display();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!(
            r#"warning: matcher `shell` is evener's own name; hooks see `Bash`, so it never matches [hook pl, event PreToolUse]
 --> {root}/pl/hooks/hooks.json:2:30
  |
2 |   "PreToolUse": [{{"matcher": "shell", "hooks": [{{"type": "command", "command": "/bin/true"}}]}}]
  |                              ^^^^^^^
  |
  = help: write `Bash`

warning: `tool: run_command` is not a peen tool name; it never matches [hook g, event preToolUse]
 --> {root}/ws/.agents/hooks.yaml:4:19
  |
4 |     match: {{tool: run_command}}
  |                   ^^^^^^^^^^^
  |
  = help: peen names it `runCommand`

0 errors, 2 warnings, 0 notes in 2 configurations
"#
        )
    );
}

/// Without paths, a project is checked together with the user's levels:
/// the user's Stop cap silences the warning, a peen group declared in both
/// layers is reported once at the project's copy, and the user's own files
/// are still checked (once). With explicit paths each file stands alone.
#[test]
fn without_paths_projects_are_checked_with_the_user_levels() {
    let d = tempfile::tempdir().unwrap();
    let (home, cfg, proj) = (
        d.path().join("home"),
        d.path().join("cfg"),
        d.path().join("proj"),
    );
    write(
        &home,
        ".config/poolside/settings.yaml",
        "hooks:\n  stop_hook_max_continuations: 3\n  Bogus: []\n",
    );
    write(
        &proj,
        ".poolside/settings.yaml",
        "hooks:\n  Stop:\n    - command: /bin/true\n",
    );
    let layer = "version: 1\nturnStart:\n  - name: remind\n    actions:\n      - {name: say, type: inject, message: hi}\n";
    write(&cfg, ".agents/hooks.yaml", layer);
    write(&proj, ".agents/hooks.yaml", layer);
    let run = |args: &[&str]| {
        let out = latch()
            .current_dir(&proj)
            .env("HOME", &home)
            .env("PEEN_CONFIG_DIR", &cfg)
            .args(["lint", "--format", "json"])
            .args(args)
            .output()
            .unwrap();
        serde_json::from_slice::<Vec<Value>>(&out.stdout).unwrap()
    };
    let together = run(&[]);
    let root = d.path().to_str().unwrap();
    let found: Vec<(String, String)> = together
        .iter()
        .map(|diag| {
            let file = diag["file"].as_str().unwrap_or("");
            let short = file.strip_prefix(root).unwrap_or(file);
            (
                short.to_owned(),
                diag["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let unknown_event = found
        .iter()
        .filter(|(f, _)| f == "/home/.config/poolside/settings.yaml")
        .count();
    assert_eq!(
        unknown_event, 1,
        "the user's file is checked once: {found:?}"
    );
    assert!(
        !has(&together, "no level sets `stop_hook_max_continuations`"),
        "{found:?}"
    );
    let dup: Vec<_> = found
        .iter()
        .filter(|(_, m)| m.starts_with("a group named `remind` is already declared"))
        .collect();
    assert_eq!(dup.len(), 1, "{found:?}");
    assert_eq!(dup[0].0, "/proj/.agents/hooks.yaml");

    let alone = run(&["."]);
    assert!(has(&alone, "no level sets `stop_hook_max_continuations`"));
    assert!(!has(&alone, "already declared"));
}

/// A directory of stand-ins for the interpreters the fixtures name, so the
/// result does not depend on what this machine has installed.
fn stub_path(d: &std::path::Path) -> String {
    for c in ["uv", "python3", "node", "npx", "jq"] {
        script(d, &format!("bin/{c}"), "#!/bin/sh\nexit 0\n");
    }
    format!("{}:/usr/bin:/bin", d.join("bin").display())
}

/// `latch lint --format json ARGS TARGET` with the stand-in interpreters of
/// [`stub_path`] (made under `stubs`): the exit code and the findings.
fn lint_stubbed(
    stubs: &std::path::Path,
    args: &[&str],
    target: impl AsRef<std::ffi::OsStr>,
) -> (Option<i32>, Vec<Value>) {
    let out = latch()
        .args(["lint", "--format", "json"])
        .args(args)
        .arg(target)
        .env("PATH", stub_path(stubs))
        .output()
        .unwrap();
    (
        out.status.code(),
        serde_json::from_slice(&out.stdout).unwrap(),
    )
}

fn shapes(rel: &str) -> String {
    format!("{}/tests/lint-shapes/{rel}", env!("CARGO_MANIFEST_DIR"))
}

/// The shapes of real plugin and project configurations (written for
/// these tests after public ones): a description, `$schema`, group
/// `description`/`id`, settings keys next to `hooks`, quoted
/// `${CLAUDE_PLUGIN_ROOT}`, interpreters with their scripts, Stop hooks,
/// relative project paths. None is a mistake: no warning.
#[test]
fn real_world_shapes_lint_without_warnings() {
    let d = tempfile::tempdir().unwrap();
    let (code, diags) = lint_stubbed(d.path(), &["--deny-warnings"], shapes("clean"));
    let loud: Vec<&Value> = diags.iter().filter(|d| d["severity"] != "info").collect();
    assert!(loud.is_empty(), "{loud:#?}");
    assert_eq!(code, Some(0));
}

/// Each real mistake is found once, at its place, and nothing else warns.
#[test]
fn real_mistakes_are_found_at_their_place() {
    let d = tempfile::tempdir().unwrap();
    let (_, diags) = lint_stubbed(d.path(), &[], shapes("mistakes"));
    let found: Vec<(String, u64, u64, String)> = diags
        .iter()
        .filter(|d| d["severity"] == "warning")
        .map(|d| {
            let file = d["file"].as_str().unwrap();
            (
                file[file.find("mistakes/").unwrap() + 9..].replace("./", ""),
                d["line"].as_u64().unwrap(),
                d["column"].as_u64().unwrap(),
                d["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let expected: [(&str, u64, u64, &str); 11] = [
        (
            "duplicate-manifest/.claude-plugin/plugin.json",
            3,
            12,
            "the manifest's \"hooks\" names the default `./hooks/hooks.json`, which is loaded without it; Claude Code rejects the plugin (\"Duplicate hooks file detected\")",
        ),
        (
            "duplicate-manifest/hooks/hooks.json",
            3,
            68,
            "the script `${CLAUDE_PLUGIN_ROOT}/scripts/start.mjs` does not exist (",
        ),
        (
            "misplaced/hooks/hooks.json",
            3,
            23,
            "unknown field \"matchers\" in a \"PreToolUse\" matcher group; it is ignored",
        ),
        (
            "misplaced/hooks/hooks.json",
            3,
            43,
            "handler field \"command\" is written on a \"PreToolUse\" matcher group, not on a handler in its \"hooks\"; it is ignored",
        ),
        (
            "misplaced/hooks/hooks.json",
            5,
            3,
            "event \"Stop\" is declared next to \"hooks\", not inside it; it is ignored",
        ),
        (
            "typos/hooks/hooks.json",
            4,
            71,
            "the script `${CLAUDE_PLUGIN_ROOT}/hooks/pretool.pyy` does not exist (",
        ),
        (
            "typos/hooks/hooks.json",
            5,
            20,
            "matcher `tool == \"Edit\" && tool_input.file_path matches \"\\.ts$\"` is written as an expression; a matcher is a pattern of tool names, so this one never matches",
        ),
        (
            "typos/hooks/hooks.json",
            6,
            20,
            "matcher `Edit||Write` has an empty alternative: read as a regex (Claude Code, evener) it matches every tool; latch skips the empty part",
        ),
        (
            "typos/hooks/hooks.json",
            6,
            78,
            "the script `.claude/hooks/missing.py` does not exist (",
        ),
        (
            "typos/hooks/hooks.json",
            9,
            77,
            "the command reads `$TOOL_ARGS`, which evener does not set: it is always empty",
        ),
        (
            "typos/hooks/hooks.json",
            10,
            71,
            "the command reads `$CLAUDE_TOOL_INPUT`, which evener does not set: it is always empty",
        ),
    ];
    assert_eq!(found.len(), expected.len(), "{found:#?}");
    for ((file, line, col, msg), (ef, el, ec, em)) in found.iter().zip(expected) {
        assert_eq!((file.as_str(), *line, *col), (ef, el, ec), "{msg}");
        assert!(msg.starts_with(em), "{msg}\n  expected {em}");
    }
}

/// Real Claude Code events evener does not fire are reserved (the hook
/// does not run here), not "likely a typo".
#[test]
fn claude_events_evener_does_not_fire_are_not_typos() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "pl/hooks/hooks.json",
        r#"{"hooks":{"UserPromptExpansion":[{"hooks":[{"type":"command","command":"true"}]}],
"PostToolBatch":[{"hooks":[{"type":"command","command":"true"}]}],
"UserPromptExpanse":[{"hooks":[{"type":"command","command":"true"}]}]}}"#,
    );
    let (_, diags) = lint_json(&[d.path().join("pl").to_str().unwrap()]);
    let msgs = messages(&diags);
    assert!(
        msgs.iter().any(|m| m.starts_with(
            "UserPromptExpansion hook declared for a reserved event evener does not yet fire"
        )),
        "{msgs:#?}"
    );
    assert!(
        msgs.iter()
            .any(|m| m.starts_with("PostToolBatch hook declared for a reserved event"))
    );
    let typos: Vec<&String> = msgs
        .iter()
        .filter(|m| m.contains("likely a typo"))
        .collect();
    assert_eq!(typos.len(), 1, "{msgs:#?}");
    assert!(typos[0].contains("\"UserPromptExpanse\""));
}

/// Poolside runs shell commands too: a missing interpreter script and a
/// variable no engine sets are found there as well.
#[test]
fn poolside_scripts_and_unset_variables() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "hooks/real.py", "");
    write(
        d.path(),
        ".poolside/settings.yaml",
        "hooks:\n  stop_hook_max_continuations: 2\n  PreToolUse:\n    - {matcher: shell, command: python3 hooks/reall.py}\n    - {matcher: shell, command: python3 hooks/real.py}\n    - {matcher: shell, command: 'echo \"$CLAUDE_TOOL_INPUT\" | jq .'}\n    - {matcher: shell, command: 'F=$(cat); echo \"$F\" \"$HOME\"'}\n",
    );
    let (_, diags) = lint_stubbed(d.path(), &[], d.path());
    let msgs = messages(&diags);
    assert!(
        msgs.iter()
            .any(|m| m.starts_with("the script `hooks/reall.py` does not exist")),
        "{msgs:#?}"
    );
    assert!(
        !msgs.iter().any(|m| m.contains("hooks/real.py")),
        "{msgs:#?}"
    );
    assert!(msgs.contains(
        &"the command reads `$CLAUDE_TOOL_INPUT`, which poolside does not set: it is always empty"
            .to_owned()
    ));
    assert!(
        !msgs
            .iter()
            .any(|m| m.contains("`$F`") || m.contains("`$HOME`")),
        "{msgs:#?}"
    );
}

/// Peen runs `command` with `args` directly: an interpreter's script in
/// `args` is checked too.
#[test]
fn peen_interpreter_scripts() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "ws/hooks/ok.py", "");
    write(
        d.path(),
        "ws/.agents/hooks.yaml",
        "version: 1\npreToolUse:\n  - name: g\n    actions:\n      - {name: a, type: command, command: python3, args: [hooks/ok.py]}\n      - {name: b, type: command, command: python3, args: [-u, hooks/okk.py]}\n",
    );
    let (_, diags) = lint_stubbed(d.path(), &[], d.path().join("ws"));
    let msgs = messages(&diags);
    assert!(
        msgs.iter()
            .any(|m| m.starts_with("the script `hooks/okk.py` does not exist")),
        "{msgs:#?}"
    );
    assert!(!msgs.iter().any(|m| m.contains("hooks/ok.py")), "{msgs:#?}");
}

/// Evener handlers carry the label `latch explain` gives them (the plugin
/// and what the handler runs), so two handlers of one group are told apart.
#[test]
fn evener_handlers_are_labelled_by_what_they_run() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "p/hooks/hooks.json",
        r#"{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[
{"type":"command","command":"python3 ${CLAUDE_PLUGIN_ROOT}/a.py","timeout":3000},
{"type":"command","command":"python3 ${CLAUDE_PLUGIN_ROOT}/b.py","timeout":3000}]}]}}"#,
    );
    let (_, diags) = lint_json(&[d.path().join("p").to_str().unwrap()]);
    let hooks: Vec<&str> = diags
        .iter()
        .filter(|d| d["message"].as_str().unwrap_or("").contains("timeout"))
        .map(|d| d["hook"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(hooks, ["p `python3 a.py`", "p `python3 b.py`"], "{diags:?}");
}

/// A configuration file that is not a regular file (a FIFO, a symlink to a
/// device, a directory, a symlink loop) is reported where it is, found by
/// a search or named alone, and never waited on or passed by.
#[test]
fn configuration_files_that_are_not_regular_files_are_reported() {
    use std::os::unix::fs::symlink;
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    std::fs::create_dir_all(root.join("fifo/.poolside")).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        root.join("fifo/.poolside/settings.yaml"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    std::fs::create_dir_all(root.join("device/.claude")).unwrap();
    symlink("/dev/zero", root.join("device/.claude/settings.json")).unwrap();
    std::fs::create_dir_all(root.join("dir/.poolside/settings.yaml")).unwrap();
    std::fs::create_dir_all(root.join("loop/hooks")).unwrap();
    symlink("hooks.json", root.join("loop/hooks/hooks.json")).unwrap();
    std::fs::create_dir_all(root.join("dangling/.poolside")).unwrap();
    symlink(
        "/nonexistent/x",
        root.join("dangling/.poolside/settings.yaml"),
    )
    .unwrap();

    let (code, diags) = lint_json(&[root.to_str().unwrap()]);
    assert_eq!(code, 5, "{diags:?}");
    for file in [
        "fifo/.poolside/settings.yaml",
        "device/.claude/settings.json",
        "dir/.poolside/settings.yaml",
        "loop/hooks/hooks.json",
        "dangling/.poolside/settings.yaml",
    ] {
        let at = root.join(file);
        assert!(
            diags
                .iter()
                .any(|d| d["severity"] == "error" && d["file"] == at.to_str().unwrap()),
            "{file}: {diags:?}"
        );
    }
    // Named alone, a symlink to a directory at a configuration file's name
    // is that configuration, not a directory to search.
    std::fs::create_dir_all(root.join("link/.agents")).unwrap();
    symlink(root.join("dir"), root.join("link/.agents/hooks.yaml")).unwrap();
    let named = root.join("link/.agents/hooks.yaml");
    let (_, diags) = lint_json(&[named.to_str().unwrap()]);
    assert!(
        diags.iter().any(|d| d["file"] == named.to_str().unwrap()),
        "{diags:?}"
    );
    assert!(
        !diags.iter().any(|d| d["file"]
            .as_str()
            .is_some_and(|f| f.contains("dir/.poolside"))),
        "the link was followed: {diags:?}"
    );
}

/// A JSON key that a later equal key replaces is a warning at the earlier
/// one (JSON readers keep the last, silently): a second `"hooks"` in Claude
/// Code settings, a second event in an evener hooks file.
#[test]
fn duplicate_json_keys_are_warned_where_they_are_lost() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "app/.claude/settings.json",
        "{\"hooks\":{\"PreToolUse\":[{\"matcher\":\"Bash\",\"hooks\":[{\"type\":\"command\",\"command\":\"exit 2\"}]}]},\n\"hooks\":{}}\n",
    );
    write(
        d.path(),
        "plugin/hooks/hooks.json",
        "{\"hooks\":{\"PreToolUse\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"exit 2\"}]}],\n \"PreToolUse\":[]}}\n",
    );
    let (code, diags) = lint_json(&[d.path().to_str().unwrap()]);
    assert_eq!(code, 0, "{diags:?}");
    let dup: Vec<&Value> = diags
        .iter()
        .filter(|d| {
            d["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("duplicate key"))
        })
        .collect();
    assert_eq!(dup.len(), 2, "{diags:?}");
    assert!(dup.iter().any(|d| {
        d["message"]
            .as_str()
            .unwrap()
            .starts_with("duplicate key `hooks`: the one at line 2, column 1 replaces this one")
            && d["line"] == 1
            && d["column"] == 2
    }));
    assert!(dup.iter().any(|d| {
        d["message"]
            .as_str()
            .unwrap()
            .starts_with("duplicate key `PreToolUse`: the one at line 2, column 2")
    }));
    // `exit 2` is a shell builtin, not a program missing from PATH.
    assert!(!has(&diags, "is not on PATH"), "{diags:?}");
}

/// A timeout under a millisecond passes every dialect's own check (it is
/// positive) but kills the hook before it can start: lint says so, for
/// poolside and for peen.
#[test]
fn a_timeout_under_a_millisecond_is_named() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "pool/.poolside/settings.yaml",
        "hooks:\n  PreToolUse:\n    - {name: quick, matcher: shell, command: /bin/true, timeout: 0.0005}\n",
    );
    write(
        d.path(),
        "ws/.agents/hooks.yaml",
        "version: 1\npreToolUse:\n  - name: guard\n    actions: [{type: command, command: /bin/true, timeout: 500us}]\n",
    );
    for dir in ["pool", "ws"] {
        let (code, diags) = lint_json(&[d.path().join(dir).to_str().unwrap()]);
        assert_eq!(code, 0, "{dir}: a warning alone passes");
        assert!(
            has(
                &diags,
                "a `timeout` of 0.0005 s is under a millisecond: the hook is killed before it can start, every time"
            ),
            "{dir}: {:#?}",
            messages(&diags)
        );
    }
}

/// A NUL in a command: no program can get it, so the hook fails every
/// time and its deny never comes; every dialect says so, at the command.
#[test]
fn a_nul_in_a_command_is_a_warning_in_every_dialect() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "pool/.poolside/settings.yaml",
        "hooks:\n  PreToolUse:\n    - {name: g, command: \"echo a\\0b; exit 2\"}\n",
    );
    write(
        d.path(),
        "pl/hooks/hooks.json",
        r#"{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"exit 2\u0000"}]}]}}"#,
    );
    write(
        d.path(),
        "ws/.agents/hooks.yaml",
        "version: 1\npreToolUse:\n  - name: g\n    actions: [{name: c, type: command, command: /bin/echo, args: [\"a\\0b\"]}]\n",
    );
    let nul = "the command contains a NUL character";
    for (dir, line) in [("pool", 3), ("pl", 1), ("ws", 4)] {
        let (_, diags) = lint_json(&[d.path().join(dir).to_str().unwrap()]);
        let found = diags
            .iter()
            .find(|d| d["message"].as_str().unwrap().contains(nul))
            .unwrap_or_else(|| panic!("{dir}: {:#?}", messages(&diags)));
        assert_eq!(found["severity"], "warning", "{found}");
        assert_eq!(found["line"], line, "{dir}: {found}");
    }
}
