//! Poolside settings: levels, merging, matchers and load diagnostics,
//! through the real binary.

use std::fs;

use serde_json::json;

use crate::util::{Project, yq};

fn shell_event(cmd: &str) -> serde_json::Value {
    json!({"event": "tool_before", "session_id": "s", "tool": {"name": "shell", "input": {"cmd": cmd}}})
}

fn hook_names(f: &crate::util::Fired) -> Vec<String> {
    f.runs()
        .iter()
        .map(|r| r["hook"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn levels_combine_user_project_local_then_settings_flag() {
    let p = Project::new();
    fs::create_dir_all(p.home().join(".config/poolside")).unwrap();
    fs::write(
        p.home().join(".config/poolside/settings.yaml"),
        "hooks:\n  PreToolUse:\n    - {name: user, command: 'true'}\n",
    )
    .unwrap();
    p.write(
        ".poolside/settings.yaml",
        "hooks:\n  PreToolUse:\n    - {name: project, command: 'true'}\n",
    );
    p.write(
        ".poolside/settings.local.yaml",
        "hooks:\n  PreToolUse:\n    - {name: local, command: 'true'}\n",
    );
    let flag = p.write(
        "flag.yaml",
        "hooks:\n  PreToolUse:\n    - {name: flag, command: 'true'}\n",
    );
    let f = p.fire_with(&shell_event("ls"), &["--settings", flag.to_str().unwrap()]);
    assert_eq!(f.code, 0, "{}", f.stderr);
    assert_eq!(hook_names(&f), ["user", "project", "local", "flag"]);
}

#[test]
fn a_named_hook_is_replaced_in_its_original_position_and_unnamed_hooks_combine() {
    let p = Project::new();
    fs::create_dir_all(p.home().join(".config/poolside")).unwrap();
    fs::write(
        p.home().join(".config/poolside/settings.yaml"),
        "hooks:\n  PreToolUse:\n    - {name: guard, command: 'exit 2'}\n    - {command: 'true'}\n    - {name: last, command: 'true'}\n",
    )
    .unwrap();
    p.write(
        ".poolside/settings.yaml",
        "hooks:\n  PreToolUse:\n    - {command: 'true'}\n    - {name: guard, command: 'exit 0'}\n",
    );
    let f = p.fire(&shell_event("ls"));
    assert_eq!(hook_names(&f), ["guard", "true", "last", "true"]);
    // The project's `guard` (exit 0) replaced the user's (exit 2).
    assert_eq!(f.outcome["decision"], "proceed");
    assert_eq!(
        f.runs()[0]["source"]["file"],
        json!(p.dir().join(".poolside/settings.yaml"))
    );
}

#[test]
fn a_missing_settings_flag_file_is_an_error_but_the_dispatch_runs() {
    let p = Project::new().settings("hooks:\n  PreToolUse:\n    - {command: 'exit 2'}\n");
    let f = p.fire_with(
        &shell_event("ls"),
        &["--settings", "/nonexistent/settings.yaml"],
    );
    assert_eq!(f.code, 0);
    assert!(
        f.stderr
            .contains("/nonexistent/settings.yaml: error: cannot read settings file"),
        "{}",
        f.stderr
    );
    assert_eq!(f.outcome["decision"], "deny");
}

#[test]
fn unknown_events_are_skipped_with_a_located_warning() {
    let p = Project::new().settings("hooks:\n  PreToolUze:\n    - {command: 'exit 2'}\n  PreToolUse:\n    - {command: 'true'}\n");
    let f = p.fire(&shell_event("ls"));
    let path = p.dir().join(".poolside/settings.yaml");
    assert!(
        f.stderr.contains(&format!(
            "{}:2:3: warning: unknown hook event `PreToolUze`; its hooks are skipped\n  help: did you mean `PreToolUse`?",
            path.display()
        )),
        "{}",
        f.stderr
    );
    assert_eq!(f.runs().len(), 1);
    assert_eq!(f.outcome["decision"], "proceed");
}

#[test]
fn yaml_errors_name_the_file_line_and_column_and_other_levels_still_load() {
    let p = Project::new().settings("hooks:\n  PreToolUse: [\n");
    p.write(
        ".poolside/settings.local.yaml",
        "hooks:\n  PreToolUse:\n    - {name: local, command: 'exit 2'}\n",
    );
    let f = p.fire(&shell_event("ls"));
    let path = p.dir().join(".poolside/settings.yaml");
    assert!(
        f.stderr
            .contains(&format!("{}:2:15: error: invalid YAML:", path.display())),
        "{}",
        f.stderr
    );
    assert_eq!(hook_names(&f), ["local"]);
    assert_eq!(f.outcome["decision"], "deny");
}

#[test]
fn matcher_forms_select_tools() {
    let p = Project::new().settings(
        "hooks:\n  PreToolUse:\n    - {name: any, matcher: '*', command: 'true'}\n    - {name: empty, matcher: '', command: 'true'}\n    - {name: exact, matcher: shell, command: 'true'}\n    - {name: list, matcher: 'read|write', command: 'true'}\n    - {name: regex, matcher: 'web_.*', command: 'true'}\n    - {name: none, command: 'true'}\n",
    );
    let fire = |tool: &str| {
        hook_names(&p.fire(&json!({"event": "tool_before", "tool": {"name": tool, "input": {}}})))
    };
    assert_eq!(fire("shell"), ["any", "empty", "exact", "none"]);
    assert_eq!(fire("write"), ["any", "empty", "list", "none"]);
    assert_eq!(fire("web_fetch"), ["any", "empty", "regex", "none"]);
    assert_eq!(fire("shell_exec"), ["any", "empty", "none"]);
    assert_eq!(fire("my_web_fetch"), ["any", "empty", "none"]);
}

#[test]
fn matchers_are_ignored_on_events_without_a_tool() {
    let p = Project::new().settings(
        "hooks:\n  UserPromptSubmit:\n    - {name: only-shell, matcher: shell, command: 'true'}\n",
    );
    let f = p.fire(&json!({"event": "user_prompt", "prompt": "hi"}));
    assert_eq!(hook_names(&f), ["only-shell"]);
}

#[test]
fn an_invalid_regex_disables_only_that_hook_with_a_warning() {
    let p = Project::new().settings(
        "hooks:\n  PreToolUse:\n    - name: bad\n      matcher: '(?<=x)sh'\n      command: 'exit 2'\n    - {name: good, matcher: shell, command: 'true'}\n",
    );
    let f = p.fire(&shell_event("ls"));
    assert!(
        f.stderr
            .contains(":4:16: warning: invalid matcher regex `(?<=x)sh`"),
        "{}",
        f.stderr
    );
    assert!(
        f.stderr
            .contains("the hook is disabled [hook bad, event PreToolUse]"),
        "{}",
        f.stderr
    );
    assert_eq!(f.status(0), "skipped");
    assert_eq!(f.runs()[0]["error"], "invalid_matcher");
    assert_eq!(f.status(1), "ok");
    assert_eq!(f.outcome["decision"], "proceed");
}

#[test]
fn an_entry_without_a_command_is_skipped_with_an_error() {
    let p =
        Project::new().settings("hooks:\n  PreToolUse:\n    - name: empty\n      matcher: shell\n");
    let f = p.fire(&shell_event("ls"));
    assert!(
        f.stderr
            .contains(":3:7: error: hook #1 of `PreToolUse` has no `command`; it is skipped"),
        "{}",
        f.stderr
    );
    assert!(f.runs().is_empty());
}

#[test]
fn unknown_entry_fields_warn_with_a_suggestion() {
    let p = Project::new()
        .settings("hooks:\n  PreToolUse:\n    - command: 'true'\n      matchr: shell\n");
    let f = p.fire(&shell_event("ls"));
    assert!(
        f.stderr.contains(
            ":4:7: warning: unknown field `matchr` in a `PreToolUse` hook; it is ignored"
        ),
        "{}",
        f.stderr
    );
    assert!(f.stderr.contains("did you mean `matcher`?"), "{}", f.stderr);
}

#[test]
fn a_timeout_kills_the_hook_and_the_event_proceeds() {
    let p = Project::new();
    let p = p.settings(&format!(
        "hooks:\n  PreToolUse:\n    - name: slow\n      command: {}\n      timeout: 0.3\n",
        yq("sleep 1000 & echo $! > pid; sleep 1000")
    ));
    let f = p.fire(&shell_event("ls"));
    assert_eq!(f.code, 0);
    assert_eq!(f.outcome["decision"], "proceed");
    assert_eq!(f.status(0), "failed");
    assert_eq!(f.runs()[0]["error"], "timeout");
    assert!(
        f.notice_texts()[0].contains("timed out after 0.3 s"),
        "{:?}",
        f.notice_texts()
    );
    let pid = crate::util::read_pid(&p.dir().join("pid"));
    assert!(
        crate::util::wait_dead(pid),
        "the grandchild survived the timeout"
    );
}

#[test]
fn a_non_positive_timeout_warns_and_uses_the_default() {
    let p = Project::new()
        .settings("hooks:\n  PreToolUse:\n    - {name: z, command: 'true', timeout: 0}\n");
    let f = p.fire(&shell_event("ls"));
    assert!(
        f.stderr.contains(
            "`timeout` must be a positive number of seconds, found 0; the default of 60 s is used"
        ),
        "{}",
        f.stderr
    );
    assert_eq!(f.status(0), "ok");
}

/// `.inf`, `.nan` and `1e309` are not numbers latch can use: one hook's
/// warning, never the loss of the file and the deny beside it.
#[test]
fn an_infinite_timeout_warns_and_keeps_the_file() {
    for t in [".inf", "-.inf", ".nan", "1e309"] {
        let p = Project::new().settings(&format!(
            "hooks:\n  PreToolUse:\n    - {{name: no, matcher: shell, command: 'exit 2'}}\n    - {{name: slow, matcher: shell, command: 'true', timeout: {t}}}\n"
        ));
        let f = p.fire(&shell_event("ls"));
        assert_eq!(f.outcome["decision"], "deny", "{t}: {}", f.outcome);
        assert!(
            f.stderr
                .contains("`timeout` must be a positive number of seconds, found a string"),
            "{t}: {}",
            f.stderr
        );
    }
}
