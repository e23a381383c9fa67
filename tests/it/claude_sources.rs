//! Where the claude dialect reads hooks from, through the binary: managed
//! settings and their drop-in directory, `allowManagedHooksOnly`,
//! `disableAllHooks` in managed settings and in `--claude-settings`, and
//! `--claude-settings` given a file path (docs/dialects/claude.md,
//! "Sources and order"). Only `r2_disable_all_hooks_*` and
//! `r2_settings_sources_*` were recorded; the rest follows the docs.

use serde_json::{Value, json};

use crate::claude_util::{Claude, bash_before, settings};

/// The labels of the sources [`every_source`] writes, in configuration
/// order.
const SOURCES: [&str; 8] = [
    "user", "project", "local", "flag", "managed", "dropin10", "dropin20", "plugin",
];

/// A fixture with one Bash `PreToolUse` hook in every source: user,
/// project, local, `--claude-settings` (returned, to pass as JSON text),
/// `managed-settings.json`, two drop-ins (`10-a.json`, `20-b.json`) and a
/// plugin. Each hook answers `updatedInput` `{"command": <its label>}`, so
/// the last one in configuration order decides the tool input. `extra` is
/// merged into the file of the source it names (a top-level key such as
/// `disableAllHooks`).
fn every_source(extra: &[(&str, Value)]) -> (Claude, String) {
    let c = Claude::new();
    let file = |label: &str| {
        let out = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
            "updatedInput": {"command": label}}});
        let mut s = settings(
            "PreToolUse",
            Some("Bash"),
            &[&c.hook(label, &format!("--stdout '{out}'"))],
        );
        for (source, value) in extra {
            if *source == label {
                for (k, v) in value.as_object().expect("an object") {
                    s[k] = v.clone();
                }
            }
        }
        s
    };
    let (user, project, local, flag) = (file("user"), file("project"), file("local"), file("flag"));
    let (managed, d10, d20, plugin) = (
        file("managed"),
        file("dropin10"),
        file("dropin20"),
        file("plugin"),
    );
    // The later drop-in is written first: name order, not the order the
    // files were made, decides.
    c.write("managed/managed-settings.d/20-b.json", &d20.to_string());
    c.write("managed/managed-settings.d/10-a.json", &d10.to_string());
    c.write("managed/managed-settings.json", &managed.to_string());
    let c = c
        .user_settings(&user)
        .project_settings(&project)
        .local_settings(&local)
        .plugin("plug", &plugin);
    (c, flag.to_string())
}

/// Which of [`SOURCES`] ran, in order.
fn ran(c: &Claude) -> Vec<&'static str> {
    SOURCES
        .into_iter()
        .filter(|l| {
            let n = c.runs_of(l);
            assert!(n <= 1, "{l} ran {n} times");
            n == 1
        })
        .collect()
}

/// Every source loads, in the configuration order the docs give: user,
/// project, local, `--claude-settings`, `managed-settings.json`, then the
/// drop-ins of `managed-settings.d` in file-name order, then plugins. The
/// outcome lists the runs in that order, and the `updatedInput` of the
/// last one (the plugin's) is the one applied, as latch applies the last
/// in configuration order (docs, "Where latch differs"; recorded `o2` for
/// why it must choose). Follows `r2_settings_sources_merge` for the
/// sources a recording covers.
#[test]
fn every_source_loads_in_configuration_order_with_drop_ins_after_the_managed_file() {
    let (c, flag) = every_source(&[]);
    let f = c.fire_with(&bash_before("ls"), &["--claude-settings", &flag]);
    assert_eq!(ran(&c), SOURCES, "{}", f.stderr);
    let files: Vec<String> = f
        .runs()
        .iter()
        .map(|r| r["source"]["file"].as_str().unwrap_or("").to_owned())
        .collect();
    assert_eq!(files.len(), SOURCES.len(), "{}", f.outcome);
    let at = |needle: &str| {
        files
            .iter()
            .position(|f| f.ends_with(needle))
            .unwrap_or_else(|| panic!("no run from {needle}: {files:?}"))
    };
    let order = [
        at("home/.claude/settings.json"),
        at("project/.claude/settings.json"),
        at("project/.claude/settings.local.json"),
        // JSON text is named after the flag.
        at("--claude-settings"),
        at("managed/managed-settings.json"),
        at("managed-settings.d/10-a.json"),
        at("managed-settings.d/20-b.json"),
        at("plugins/plug/hooks/hooks.json"),
    ];
    assert!(order.is_sorted(), "{files:?}");
    assert_eq!(f.outcome["tool_input"], json!({"command": "plugin"}));

    // Without plugins, the last drop-in by name is the last source.
    let (mut c, flag) = every_source(&[]);
    c.plugins.clear();
    let f = c.fire_with(&bash_before("ls"), &["--claude-settings", &flag]);
    assert_eq!(f.outcome["tool_input"], json!({"command": "dropin20"}));
}

/// Only `*.json` files of `managed-settings.d` are drop-ins, and each one
/// loads on its own: one that is invalid is dropped with a located error
/// while `managed-settings.json` and the other drop-ins still run (docs,
/// "Sources and order": a file that is not valid is dropped whole, the
/// other files still load).
#[test]
fn managed_drop_ins_are_the_json_files_each_loaded_on_its_own() {
    let c = Claude::new();
    let main = c.hook("main", "");
    let good = c.hook("good", "");
    let bad = c.hook("bad", "");
    let other = c.hook("other", "");
    c.write(
        "managed/managed-settings.json",
        &settings("PreToolUse", None, &[&main]).to_string(),
    );
    c.write(
        "managed/managed-settings.d/20-good.json",
        &settings("PreToolUse", None, &[&good]).to_string(),
    );
    c.write(
        "managed/managed-settings.d/10-bad.json",
        &format!("{{\"hooks\": {{\"PreToolUse\": [{{\"hooks\": [\n  {{\"type\": \"command\", \"command\": \"{bad}\", \"timeout\": \"5\"}}]}}]}}}}"),
    );
    c.write(
        "managed/managed-settings.d/30-notes.txt",
        &settings("PreToolUse", None, &[&other]).to_string(),
    );
    let f = c.fire(&bash_before("ls"));
    assert_eq!(
        [
            c.runs_of("main"),
            c.runs_of("good"),
            c.runs_of("bad"),
            c.runs_of("other")
        ],
        [1, 1, 0, 0],
        "{}",
        f.stderr
    );
    assert!(
        f.stderr.contains("10-bad.json:2:")
            && f.stderr
                .contains("`timeout` must be a positive number of seconds, not a string"),
        "{}",
        f.stderr
    );
}

/// `allowManagedHooksOnly: true` in managed settings keeps only the
/// managed hooks, those of the drop-ins included: the user's, the
/// project's, the local ones, `--claude-settings`' and the plugin's do not
/// run, and each file turned off gets a note (docs, "Sources and order").
/// Set in a drop-in it counts the same; `false` changes nothing.
#[test]
fn allow_managed_hooks_only_in_managed_settings_runs_only_managed_hooks() {
    let managed = ["managed", "dropin10", "dropin20"];
    for in_file in ["managed", "dropin20"] {
        let (c, flag) = every_source(&[(in_file, json!({"allowManagedHooksOnly": true}))]);
        let f = c.fire_with(&bash_before("ls"), &["--claude-settings", &flag]);
        assert_eq!(ran(&c), managed, "{in_file}: {}", f.stderr);
        assert_eq!(f.outcome["tool_input"], json!({"command": "dropin20"}));
        assert!(
            f.stderr
                .contains("the hooks of this file do not run: allowManagedHooksOnly is true in managed settings"),
            "{}",
            f.stderr
        );
        let project = c.project().join(".claude/settings.json");
        assert!(
            f.stderr.contains(&format!(
                "{}: info: the hooks of this file do not run",
                project.display()
            )),
            "{}",
            f.stderr
        );
    }

    let (c, flag) = every_source(&[("managed", json!({"allowManagedHooksOnly": false}))]);
    let f = c.fire_with(&bash_before("ls"), &["--claude-settings", &flag]);
    assert_eq!(ran(&c), SOURCES, "{}", f.stderr);
}

/// `allowManagedHooksOnly` outside managed settings does nothing: Claude
/// Code honours it only there (docs, "Sources and order": "in managed
/// settings"; `schema.rs`: "Managed settings only"). Every hook still
/// runs, and latch warns at the key that it is ignored.
#[test]
fn allow_managed_hooks_only_outside_managed_settings_is_ignored_with_a_warning() {
    let on = json!({"allowManagedHooksOnly": true});
    let (c, flag) = every_source(&[
        ("user", on.clone()),
        ("project", on.clone()),
        ("local", on.clone()),
        ("flag", on.clone()),
    ]);
    let f = c.fire_with(&bash_before("ls"), &["--claude-settings", &flag]);
    assert_eq!(ran(&c), SOURCES, "{}", f.stderr);
    let warning =
        "warning: `allowManagedHooksOnly` only counts in managed settings; here it is ignored";
    assert_eq!(f.stderr.matches(warning).count(), 4, "{}", f.stderr);
    let project = c.project().join(".claude/settings.json");
    assert!(
        f.stderr.contains(&format!("{}:1:", project.display())),
        "located at the key: {}",
        f.stderr
    );
    assert!(!f.stderr.contains("do not run"), "{}", f.stderr);
}

/// `disableAllHooks: true` in managed settings turns off every hook,
/// the managed ones, the drop-ins' and the plugin's included (docs,
/// "Sources and order"); in a drop-in it counts as managed. A managed
/// `false` beats a `true` in `--claude-settings` or the project: the most
/// specific file that sets it decides, managed first (recorded
/// `r2_disable_all_hooks_user_true_project_false` for the rule between
/// user and project).
#[test]
fn disable_all_hooks_in_managed_settings_turns_off_every_hook() {
    for in_file in ["managed", "dropin10"] {
        let (c, flag) = every_source(&[(in_file, json!({"disableAllHooks": true}))]);
        let f = c.fire_with(&bash_before("ls"), &["--claude-settings", &flag]);
        assert_eq!(ran(&c), [] as [&str; 0], "{in_file}: {}", f.stderr);
        assert_eq!(f.outcome["tool_input"], Value::Null, "{}", f.outcome);
        assert!(
            f.stderr
                .contains("the hooks of this file do not run: disableAllHooks is true in"),
            "{}",
            f.stderr
        );
    }

    let (c, flag) = every_source(&[
        ("managed", json!({"disableAllHooks": false})),
        ("flag", json!({"disableAllHooks": true})),
        ("project", json!({"disableAllHooks": true})),
    ]);
    let f = c.fire_with(&bash_before("ls"), &["--claude-settings", &flag]);
    assert_eq!(ran(&c), SOURCES, "{}", f.stderr);
}

/// `disableAllHooks: true` in `--claude-settings`, given as JSON text or
/// as a file path, turns off every hook but the managed ones: the user's,
/// the project's, the local ones, its own and the plugin's (docs,
/// "Sources and order": `true` outside managed settings turns off every
/// hook except managed ones). It is more specific than local settings, so
/// its `false` beats a local `true` (recorded `r2_disable_all_hooks_local`
/// for the local `true` alone).
#[test]
fn disable_all_hooks_in_claude_settings_text_or_file_leaves_only_managed_hooks() {
    let managed = ["managed", "dropin10", "dropin20"];
    for as_path in [false, true] {
        let (c, flag) = every_source(&[("flag", json!({"disableAllHooks": true}))]);
        let arg = if as_path {
            c.write("flag-settings.json", &flag).display().to_string()
        } else {
            flag
        };
        let f = c.fire_with(&bash_before("ls"), &["--claude-settings", &arg]);
        assert_eq!(ran(&c), managed, "as path {as_path}: {}", f.stderr);
        assert!(
            f.stderr
                .contains("the hooks of this file do not run: disableAllHooks is true in"),
            "{}",
            f.stderr
        );
    }

    let (c, flag) = every_source(&[
        ("flag", json!({"disableAllHooks": false})),
        ("local", json!({"disableAllHooks": true})),
    ]);
    let f = c.fire_with(&bash_before("ls"), &["--claude-settings", &flag]);
    assert_eq!(ran(&c), SOURCES, "{}", f.stderr);
}

/// A plugin's hooks follow `disableAllHooks` of the settings: `true` in
/// the project turns them off with the project's, user's and local hooks,
/// and leaves the managed ones (docs, "Sources and order"; recorded
/// `r2_disable_all_hooks_project` for the settings files, with no plugin).
#[test]
fn disable_all_hooks_outside_managed_settings_turns_off_plugin_hooks() {
    let (c, flag) = every_source(&[("project", json!({"disableAllHooks": true}))]);
    let f = c.fire_with(&bash_before("ls"), &["--claude-settings", &flag]);
    assert_eq!(ran(&c), ["managed", "dropin10", "dropin20"], "{}", f.stderr);
    let plugin = c.plugins[0].join("hooks/hooks.json");
    assert!(
        f.stderr.contains(&format!(
            "{}: info: the hooks of this file do not run: disableAllHooks is true in",
            plugin.display()
        )),
        "{}",
        f.stderr
    );
}

/// `--claude-settings PATH` (Claude Code's `--settings` with a file)
/// loads that file's hooks, which come after the local settings' in
/// configuration order, and a run names the file as its source.
#[test]
fn claude_settings_given_a_file_path_loads_its_hooks() {
    let c = Claude::new();
    let local = c.hook("local", r#"--stdout '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"command": "local"}}}'"#);
    let from_file = c.hook("file", r#"--stdout '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"command": "file"}}}'"#);
    let c = c.local_settings(&settings("PreToolUse", Some("Bash"), &[&local]));
    let path = c.write(
        "elsewhere/my-settings.json",
        &settings("PreToolUse", Some("Bash"), &[&from_file]).to_string(),
    );
    let f = c.fire_with(
        &bash_before("ls"),
        &["--claude-settings", &path.display().to_string()],
    );
    assert_eq!(
        (c.runs_of("local"), c.runs_of("file")),
        (1, 1),
        "{}",
        f.stderr
    );
    assert_eq!(f.outcome["tool_input"], json!({"command": "file"}));
    let sources: Vec<&str> = f
        .runs()
        .iter()
        .filter_map(|r| r["source"]["file"].as_str())
        .collect();
    assert_eq!(sources.last(), Some(&path.display().to_string().as_str()));
}

/// An invalid file given to `--claude-settings` by path is dropped whole
/// with errors located by line and column, as a settings file is (docs,
/// "Sources and order", recorded `r2_timeout_string` and
/// `r2_invalid_hook_entry` for the files Claude Code drops): its valid
/// hook does not run, and the user's, project's and managed hooks still
/// do. Invalid JSON is located the same way.
#[test]
fn an_invalid_claude_settings_file_is_located_and_the_other_sources_still_load() {
    let c = Claude::new();
    let user = c.hook("user", "");
    let project = c.hook("project", "");
    let managed = c.hook("managed", "");
    let dropped = c.hook("dropped", "");
    c.write(
        "managed/managed-settings.json",
        &settings("PreToolUse", None, &[&managed]).to_string(),
    );
    let c = c
        .user_settings(&settings("PreToolUse", None, &[&user]))
        .project_settings(&settings("PreToolUse", None, &[&project]));
    let path = c.write(
        "flag.json",
        &format!("{{\"hooks\": {{\"PreToolUse\": [{{\"hooks\": [\n  {{\"type\": \"command\", \"command\": \"{dropped}\"}},\n  {{\"type\": \"command\", \"command\": \"x\", \"timeout\": \"1\"}}]}}]}}}}"),
    );
    let file = path.display().to_string();
    let f = c.fire_with(&bash_before("ls"), &["--claude-settings", &file]);
    let ran = |c: &Claude| ["user", "project", "managed", "dropped"].map(|l| c.runs_of(l));
    assert_eq!(ran(&c), [1, 1, 1, 0], "{}", f.stderr);
    assert!(
        f.stderr.contains(&format!(
            "{file}:3:50: error: `timeout` must be a positive number of seconds, not a string"
        )),
        "{}",
        f.stderr
    );
    assert!(
        f.stderr.contains(&format!(
            "{file}:1:1: error: Claude Code ignores this whole file because of 1 invalid entry; none of its hooks run"
        )),
        "{}",
        f.stderr
    );

    c.write(
        "flag.json",
        &format!("{{\"hooks\": {{\n  \"PreToolUse\": [,{{\"hooks\": [{{\"type\": \"command\", \"command\": \"{dropped}\"}}]}}]}}}}"),
    );
    let f = c.fire_with(&bash_before("ls"), &["--claude-settings", &file]);
    assert_eq!(ran(&c), [2, 2, 2, 0], "{}", f.stderr);
    assert!(
        f.stderr
            .contains(&format!("{file}:2:18: error: invalid JSON")),
        "{}",
        f.stderr
    );
}

/// `latch explain` shows each handler's time limit: its `timeout`, else
/// Claude Code's default for its type and event (600 s for a command, 30 s
/// on UserPromptSubmit and for a prompt handler, 10 s on MessageDisplay,
/// 60 s for an agent handler), so the defaults are held by a test without
/// waiting for them.
#[test]
fn explain_shows_each_handler_s_time_limit() {
    let c = Claude::new().project_settings(&json!({"hooks": {
        "PreToolUse": [{"hooks": [
            {"type": "command", "command": "echo pre"},
            {"type": "command", "command": "echo quick", "timeout": 1.5},
            {"type": "prompt", "prompt": "pre prompt"},
            {"type": "agent", "prompt": "pre agent"},
            {"type": "http", "url": "http://127.0.0.1:9/h"}]}],
        "UserPromptSubmit": [{"hooks": [
            {"type": "command", "command": "echo ups"},
            {"type": "prompt", "prompt": "ups prompt"}]}],
        "MessageDisplay": [{"hooks": [
            {"type": "command", "command": "echo display"},
            {"type": "prompt", "prompt": "display prompt"}]}]}}));
    let listed = c.explain(&bash_before("ls"), &[]);
    let limits: Vec<(String, u64)> = listed
        .iter()
        .map(|e| {
            (
                e["hook"].as_str().unwrap_or_default().to_owned(),
                e["timeout_ms"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    let want = [
        ("echo pre", 600_000),
        ("echo quick", 1_500),
        ("pre prompt", 30_000),
        ("pre agent", 60_000),
        ("http://127.0.0.1:9/h", 600_000),
        ("echo ups", 30_000),
        ("ups prompt", 30_000),
        ("echo display", 10_000),
        ("display prompt", 10_000),
    ];
    for (hook, ms) in want {
        assert!(
            limits.iter().any(|(h, m)| h.contains(hook) && *m == ms),
            "{hook}: {ms} ms, got {limits:?}"
        );
    }
}
