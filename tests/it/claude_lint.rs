//! `latch lint` with the claude dialect beyond a project's settings:
//! Claude Code plugins (`--dialect claude`), settings files given by path,
//! and managed settings directories.

use std::ffi::OsStr;

use serde_json::json;

use crate::claude_util::Claude;

/// `latch lint ARGS`: its exit code and stdout.
fn lint<I, S>(args: I) -> (Option<i32>, String)
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let out = crate::util::latch()
        .arg("lint")
        .args(args)
        .env_remove("PEEN_CONFIG_DIR")
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// A plugin written for Claude Code: an `if`, an `async` PreToolUse
/// handler, a `PermissionDenied` hook, and a matcher naming a tool the
/// harness of the vocabulary below never calls.
fn claude_plugin() -> Claude {
    Claude::new().plugin(
        "guard",
        &json!({"hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [
                    {"type": "command", "command": "exit 0", "if": "Bash(git push *)"},
                    {"type": "command", "command": "exit 0", "async": true}]},
                {"matcher": "NotebookEdit", "hooks": [{"type": "command", "command": "exit 0"}]}],
            "PermissionDenied": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "exit 0"}]}]}}),
    )
}

const ASYNC_PRE: &str = "an `async` PreToolUse handler cannot block or rewrite: Claude Code ignores the decisions of async hooks";
const EVENER_RESERVED: &str = "\"if\" is parsed but reserved; it has no effect yet";
const EVENER_PERMISSION_DENIED: &str =
    "PermissionDenied hook declared for a reserved event evener does not yet fire";

#[test]
fn a_plugin_is_an_evener_plugin_by_default_and_a_claude_plugin_with_dialect_claude() {
    let c = claude_plugin();
    let plugin = &c.plugins[0];
    // As always: evener's verdicts.
    let (code, text) = lint([plugin]);
    assert_eq!(code, Some(0), "{text}");
    for needle in [
        EVENER_RESERVED,
        EVENER_PERMISSION_DENIED,
        "in 1 configuration",
    ] {
        assert!(text.contains(needle), "{needle}: {text}");
    }
    assert!(!text.contains(ASYNC_PRE), "{text}");
    // Claude Code's: `if` and `PermissionDenied` are fine there; the
    // async PreToolUse handler decides nothing.
    let (code, text) = lint([
        OsStr::new("--dialect"),
        OsStr::new("claude"),
        plugin.as_os_str(),
    ]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains(ASYNC_PRE), "{text}");
    assert!(
        text.ends_with("0 errors, 1 warning, 0 notes in 1 configuration\n"),
        "{text}"
    );
    assert!(!text.contains(EVENER_RESERVED), "{text}");
    assert!(!text.contains(EVENER_PERMISSION_DENIED), "{text}");
    // Both dialects named: the plugin is checked by each.
    let (_, text) = lint([
        OsStr::new("--dialect"),
        OsStr::new("evener"),
        OsStr::new("--dialect"),
        OsStr::new("claude"),
        plugin.as_os_str(),
    ]);
    assert!(
        text.contains(ASYNC_PRE) && text.contains(EVENER_RESERVED),
        "{text}"
    );
    assert!(text.contains("in 2 configurations"), "{text}");
    // Its hooks file given by path is the same plugin.
    let (_, text) = lint([
        OsStr::new("--dialect"),
        OsStr::new("claude"),
        plugin.join("hooks/hooks.json").as_os_str(),
    ]);
    assert!(text.contains(ASYNC_PRE), "{text}");
}

#[test]
fn a_claude_plugin_gets_the_tool_vocabulary_warning() {
    let c = claude_plugin();
    let vocab = c.write(
        "vocab.yaml",
        "tools:\n  shell: {claude: Bash, args: {cmd: command}}\n",
    );
    let (_, text) = lint([
        OsStr::new("--dialect"),
        OsStr::new("claude"),
        c.plugins[0].as_os_str(),
        OsStr::new("--tool-vocabulary"),
        vocab.as_os_str(),
    ]);
    assert!(
        text.contains("no tool of the harness maps to `NotebookEdit` (tool vocabulary), so this matcher never fires for it"),
        "{text}"
    );
    assert!(!text.contains("maps to `Bash`"), "{text}");
    // Checked as an evener plugin, nothing reads the vocabulary: lint says so.
    let (code, text) = lint([
        c.plugins[0].as_os_str(),
        OsStr::new("--tool-vocabulary"),
        vocab.as_os_str(),
    ]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.starts_with("note: --tool-vocabulary has no effect: no Claude Code configuration was checked (a plugin directory is one with --dialect claude)\n"),
        "{text}"
    );
    assert!(!text.contains("maps to `NotebookEdit`"), "{text}");
}

/// A Codex-style plugin (only `.codex-plugin/plugin.json`) is evener's:
/// Claude Code does not read that manifest.
#[test]
fn dialect_claude_finds_no_plugin_in_a_codex_manifest_only() {
    let c = Claude::new();
    c.write(
        "codex/.codex-plugin/plugin.json",
        r#"{"name": "codex", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}"#,
    );
    let (code, text) = lint([
        OsStr::new("--dialect"),
        OsStr::new("claude"),
        c.root.path().join("codex").as_os_str(),
    ]);
    assert_eq!(code, Some(5), "{text}");
    assert!(
        text.contains("error: no claude hook configuration here"),
        "{text}"
    );
}

#[test]
fn a_settings_file_given_by_path_is_linted_as_claude_settings() {
    let c = Claude::new();
    let settings = c.write(
        "my-settings.json",
        r#"{"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "true", "if": "Bash(ls)"}]}]}}"#,
    );
    let never_runs = "`if: Bash(ls)` on SessionEnd: Claude Code never runs a handler with `if` on an event without a tool, so this handler never runs";
    let (code, text) = lint([&settings]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains(never_runs), "{text}");
    assert!(
        text.contains(&format!("--> {}:1:38", settings.display())),
        "{text}"
    );
    // Any name, with --dialect claude (as `--claude-settings FILE` reads it).
    let other = c.write("hooks.conf", &std::fs::read_to_string(&settings).unwrap());
    let (_, text) = lint([
        OsStr::new("--dialect"),
        OsStr::new("claude"),
        other.as_os_str(),
    ]);
    assert!(text.contains(never_runs), "{text}");
    let (code, text) = lint([&other]);
    assert_eq!(code, Some(5));
    assert!(text.contains("error: no hook configuration here"), "{text}");
    // A file Claude Code would drop whole is an error (a wrong entry under
    // a guard event, 2.1.332).
    let broken = c.write(
        "broken.json",
        r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "true", "timeout": "5"}]}]}}"#,
    );
    let (code, text) = lint([&broken]);
    assert_eq!(code, Some(5), "{text}");
    assert!(
        text.contains("Claude Code ignores this whole file"),
        "{text}"
    );
    // Another dialect named: the file is none of its.
    let (code, text) = lint([
        OsStr::new("--dialect"),
        OsStr::new("poolside"),
        settings.as_os_str(),
    ]);
    assert_eq!(code, Some(5));
    assert!(
        text.contains("error: no poolside hook configuration here"),
        "{text}"
    );
    // A JSON file without hooks is not passed in silence.
    let package = c.write("package.json", r#"{"name": "app", "version": "1.0.0"}"#);
    let (code, text) = lint([&package]);
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(
        text,
        format!(
            "note: no hooks here: read as a Claude Code settings file, it declares no hook\n --> {}\n\n0 errors, 0 warnings, 1 note in 1 configuration\n",
            package.display()
        )
    );
    // A name that reads as JSON text is still a file.
    let braces = c.write("{x}.json", &std::fs::read_to_string(&settings).unwrap());
    let out = crate::util::latch()
        .arg("lint")
        .arg("{x}.json")
        .current_dir(c.root.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(braces.is_file());
    assert!(text.contains(never_runs), "{text}");
    assert!(text.contains("--> ./{x}.json:1:38"), "{text}");
}

#[test]
fn a_managed_settings_directory_is_linted_with_its_drop_ins() {
    let c = Claude::new();
    c.write(
        "managed/managed-settings.json",
        r#"{"allowManagedHooksOnly": true, "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/x.sh"}]}]}}"#,
    );
    c.write(
        "managed/managed-settings.d/10-stop.json",
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true", "timeout": "5"}]}]}}"#,
    );
    let managed = c.root.path().join("managed");
    for path in [
        managed.clone(),
        managed.join("managed-settings.json"),
        managed.join("managed-settings.d/10-stop.json"),
    ] {
        let (code, text) = lint([&path]);
        // Managed settings drop a wrong entry under `Stop` alone (Claude
        // Code 2.1.332, `m332_badhook_stop`; 2.1.197 dropped the drop-in's
        // `hooks`): a warning, not a dropped file.
        assert_eq!(code, Some(0), "{}: {text}", path.display());
        for needle in [
            "uses ${CLAUDE_PLUGIN_ROOT} or ${CLAUDE_PLUGIN_DATA} in a settings file",
            "10-stop.json:1:82",
            "`timeout` must be a positive number of seconds, not a string; Claude Code ignores this entry and loads the rest",
            "0 errors, 2 warnings, 0 notes in 1 configuration",
        ] {
            assert!(
                text.contains(needle),
                "{}: {needle}: {text}",
                path.display()
            );
        }
    }
    // Found in a search too, and checked once with its files given too.
    let (_, text) = lint([managed.clone(), managed.join("managed-settings.json")]);
    assert!(text.contains("in 1 configuration"), "{text}");
}

/// `--dialect` keeps to the dialects named: a tree with a poolside
/// project, a peen layer and a Claude Code project is one configuration
/// for `--dialect claude`.
#[test]
fn dialect_keeps_lint_to_the_dialects_named() {
    let c = Claude::new().project_settings(&json!({"hooks": {"Stop": [{"matcher": "x", "hooks": [{"type": "command", "command": "true"}]}]}}));
    c.write(
        "project/.poolside/settings.yaml",
        "hooks:\n  PreToolUse:\n    - matcher: Bash\n      command: /bin/true\n",
    );
    c.write(
        "project/.agents/hooks.yaml",
        "version: 1\npreToolUse:\n  - name: g\n    actions: [{name: a, type: deny, reason: no}]\n",
    );
    let project = c.project();
    let (_, all) = lint([&project]);
    assert!(all.contains("in 3 configurations"), "{all}");
    let (_, text) = lint([
        OsStr::new("--dialect"),
        OsStr::new("claude"),
        project.as_os_str(),
    ]);
    assert!(text.contains("Stop has no matcher target"), "{text}");
    assert!(!text.contains("poolside"), "{text}");
    assert!(text.contains("in 1 configuration"), "{text}");
    let (_, text) = lint([
        OsStr::new("--dialect"),
        OsStr::new("poolside"),
        project.as_os_str(),
    ]);
    assert!(text.contains("in 1 configuration"), "{text}");
    assert!(!text.contains("Stop has no matcher target"), "{text}");
}

/// docs/lint.md's claude example: its files, rebuilt from the page, give
/// the outputs the page shows.
#[test]
fn the_docs_claude_example_is_real_output() {
    let docs =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/lint.md")).unwrap();
    let start = docs
        .find("### A Claude Code plugin, a settings file and managed settings")
        .unwrap();
    let section = &docs[start..start + docs[start..].find("\n## ").unwrap()];
    let d = tempfile::tempdir().unwrap();
    let dir = crate::util_canonical(d.path());
    let mut commands = 0;
    for block in section.split("```console\n").skip(1) {
        let block = &block[..block.find("```").unwrap()];
        let block = format!("\n{}", block.strip_suffix('\n').unwrap());
        // Each `$ ` line, and what follows it up to the next one.
        for part in block.split("\n$ ").skip(1) {
            let (command, shown) = part.split_once('\n').unwrap();
            let shown = format!("{shown}\n");
            if let Some(file) = command.strip_prefix("cat ") {
                crate::util::write_file(&dir, file, &shown);
                continue;
            }
            let words: Vec<&str> = command.split(' ').collect();
            assert_eq!(words[..2], ["latch", "lint"], "{command}");
            let out = crate::util::latch()
                .args(&words[1..])
                .current_dir(&dir)
                .env_remove("PEEN_CONFIG_DIR")
                .output()
                .unwrap();
            let got = String::from_utf8_lossy(&out.stdout)
                .replace(dir.to_str().unwrap(), "/tmp/latch-lint-claude");
            assert_eq!(got, shown, "{command}");
            commands += 1;
        }
    }
    assert_eq!(commands, 3);
}

/// The bundled Claude Code project and plugin lint cleanly with the
/// claude dialect, as docs/dialects/claude.md shows.
#[test]
fn the_claude_examples_lint_cleanly_with_dialect_claude() {
    let examples = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/claude");
    let (code, text) = lint(["--dialect", "claude", examples]);
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(
        text, "0 errors, 0 warnings, 0 notes in 2 configurations\n",
        "{text}"
    );
}
