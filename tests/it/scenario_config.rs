//! `latch test`'s `config.plugin_dirs` and `config.tool_vocabulary`: a
//! scenario loads Claude Code plugins (or more evener plugins) and the
//! harness's tool vocabulary, as `latch fire --plugin-dir` and
//! `--tool-vocabulary` do; a misspelled or misplaced key stops it.

use std::path::PathBuf;

use crate::util::{latch, write_file};

/// Writes `files` into a fresh directory and runs `latch test` on its
/// `s.yaml`: the directory, the scenario's path, the exit code and stdout.
fn run(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf, Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    for (rel, text) in files {
        write_file(dir.path(), rel, text);
    }
    let file = dir.path().join("s.yaml");
    let out = latch().arg("test").arg(&file).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    (dir, file, out.status.code(), stdout)
}

/// A claude plugin that refuses `rm -rf` in a Bash command, read from
/// `tool_input.command` as Claude Code hooks read it.
const GUARD_PLUGIN: [(&str, &str); 2] = [
    (
        "plugins/guard/hooks/hooks.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "grep -q '\"command\":\"rm -rf' && { echo 'no rm -rf' >&2; exit 2; }; exit 0"}]}]}}"#,
    ),
    (
        "plugins/guard/.claude-plugin/plugin.json",
        r#"{"name": "guard"}"#,
    ),
];

#[test]
fn a_claude_scenario_loads_plugins_and_the_harness_s_tool_vocabulary() {
    let scenario = "dialect: claude\nconfig:\n  files: {}\n  plugin_dirs: [plugins/guard]\n  tool_vocabulary: vocab.yaml\ncases:\n  - name: the harness's run_shell is Bash to the plugin\n    event: {event: tool_before, tool: {name: run_shell, input: {cmd: rm -rf /}}}\n    expect:\n      decision: deny\n      runs: [{status: blocked}]\n  - name: other commands pass\n    event: {event: tool_before, tool: {name: run_shell, input: {cmd: ls}}}\n    expect: {decision: proceed, runs: [{status: ok}]}\n";
    let mut files = GUARD_PLUGIN.to_vec();
    files.push(("s.yaml", scenario));
    files.push((
        "vocab.yaml",
        "tools:\n  run_shell: {claude: Bash, args: {cmd: command}}\n",
    ));
    let (dir, _, code, text) = run(&files);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.ends_with("2 passed, 0 failed\n"), "{text}");
    // The plugin's data directory went to the scenario's own home, not
    // into the plugin.
    assert!(!dir.path().join("plugins/guard/.data").exists());
    // Without the vocabulary, the plugin never sees a Bash call.
    let without = scenario.replace("  tool_vocabulary: vocab.yaml\n", "");
    files.retain(|(rel, _)| *rel != "s.yaml");
    files.push(("s.yaml", &without));
    let (_, _, code, text) = run(&files);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("decision: expected \"deny\", got \"proceed\""),
        "{text}"
    );
}

#[test]
fn an_evener_scenario_loads_more_plugins_after_its_own() {
    let (_, _, code, text) = run(&[
        (
            "s.yaml",
            "dialect: evener\nconfig:\n  files:\n    hooks/hooks.json: '{\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"exit 0\"}]}]}}'\n  plugin_dirs: [more]\ncases:\n  - event: {event: tool_before, tool: {name: Bash, input: {command: ls}}}\n    expect: {decision: deny, reason: from more}\n",
        ),
        (
            "more/hooks/hooks.json",
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo 'from more' >&2; exit 2"}]}]}}"#,
        ),
    ]);
    assert_eq!(code, Some(0), "{text}");
}

#[test]
fn a_misspelled_misplaced_or_missing_config_entry_stops_the_scenario() {
    let cases = [
        (
            "dialect: claude\nconfig:\n  files: {}\n  plugin_dir: [p]\ncases: []\n",
            "s.yaml:4:3: config.plugin_dir: not a config key (path, files, plugin_dirs, tool_vocabulary)",
        ),
        (
            "dialect: claude\nplugin_dirs: [p]\nconfig: {files: {}}\ncases: []\n",
            "s.yaml:2:1: plugin_dirs: not a scenario key (dialect, config, cases)",
        ),
        (
            "dialect: poolside\nconfig:\n  files: {}\n  plugin_dirs: [p]\ncases: []\n",
            "s.yaml:4:3: config.plugin_dirs: only the claude and evener dialects read it",
        ),
        (
            "dialect: claude\nconfig:\n  files: {}\n  plugin_dirs: [nowhere]\ncases: []\n",
            "s.yaml:4:17: config.plugin_dirs: ",
        ),
        (
            "dialect: claude\nconfig:\n  files: {}\n  plugin_dirs: p\ncases: []\n",
            "s.yaml:4:16: config.plugin_dirs must be a list",
        ),
        (
            "dialect: claude\nconfig:\n  files: {}\n  tool_vocabulary: nowhere.yaml\ncases: []\n",
            "s.yaml:4:20: config.tool_vocabulary ",
        ),
    ];
    for (scenario, want) in cases {
        let (_, file, code, text) = run(&[("s.yaml", scenario)]);
        assert_eq!(code, Some(3), "{scenario}: {text}");
        let want = want.replace("s.yaml", &file.display().to_string());
        assert!(text.contains(&want), "{scenario}: {want} in {text}");
    }
    // A vocabulary with errors is a configuration problem: nothing runs.
    let (_, _, code, text) = run(&[
        (
            "s.yaml",
            "dialect: claude\nconfig:\n  files: {}\n  tool_vocabulary: v.yaml\ncases:\n  - event: {event: stop}\n    expect: {decision: proceed}\n",
        ),
        ("v.yaml", "tools: [\n"),
    ]);
    assert_eq!(code, Some(3), "{text}");
    assert!(text.contains("  error "), "{text}");
    assert!(text.ends_with("0 passed, 0 failed\n"), "{text}");
}
