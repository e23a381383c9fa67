//! `latch fire` as a command: input handling and exit codes.

use serde_json::json;

use crate::util::{Project, latch};

#[test]
fn a_deny_is_an_outcome_with_exit_0() {
    let p = Project::new().settings("hooks:\n  PreToolUse:\n    - {command: 'exit 2'}\n");
    let f = p.fire(&json!({"event": "tool_before", "tool": {"name": "x", "input": {}}}));
    assert_eq!(f.code, 0);
    assert_eq!(f.outcome["decision"], "deny");
}

#[test]
fn no_configuration_proceeds_with_no_runs() {
    let p = Project::new();
    let f = p.fire(&json!({"event": "stop"}));
    assert_eq!(f.code, 0);
    assert_eq!(
        f.outcome,
        json!({"event": "stop", "decision": "proceed", "runs": []})
    );
    assert_eq!(f.stderr, "");
}

/// A `--project` that is not there is said: every event would run no
/// project hook, as if none were configured.
#[test]
fn a_missing_project_directory_is_a_warning() {
    let state = tempfile::tempdir().unwrap();
    let missing = state.path().join("no-such-project");
    let out = latch()
        .args(["fire", "--project"])
        .arg(&missing)
        .arg("--state-dir")
        .arg(state.path())
        .write_stdin(r#"{"event": "stop"}"#)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "warning: the project directory {} does not exist",
            missing.display()
        )),
        "{err}"
    );
}

#[test]
fn malformed_event_json_exits_3() {
    let p = Project::new();
    let out = p.fire_raw(b"{not json", &[]);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .starts_with("latch: error: stdin is not a valid event:")
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn a_value_of_the_wrong_type_is_named_by_its_path_and_exits_3() {
    let p = Project::new();
    let out = p.fire_raw(
        br#"{"event":"tool_before","tool":{"name":"Bash","input":{}},"tool_calls":[{"name":"a"},{"name":"b","duration_ms":"x"}]}"#,
        &[],
    );
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with(
            "latch: error: stdin is not a valid event: tool_calls[1].duration_ms: invalid type: string \"x\""
        ),
        "{stderr}"
    );
}

#[test]
fn unknown_event_fields_and_kinds_exit_3() {
    let p = Project::new();
    let out = p.fire_raw(br#"{"event":"stop","sesion_id":"x"}"#, &[]);
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown field `sesion_id`"));
    let out = p.fire_raw(br#"{"event":"PreToolUse"}"#, &[]);
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown variant `PreToolUse`"));
}

#[test]
fn a_tool_event_without_a_tool_exits_3() {
    let p = Project::new();
    let out = p.fire_raw(br#"{"event":"tool_before"}"#, &[]);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("a `tool_before` event needs a `tool` object")
    );
}

#[test]
fn the_event_can_come_from_a_file() {
    let p = Project::new().settings("hooks:\n  Stop:\n    - {name: s, command: 'true'}\n");
    let ev = p.write("ev.json", r#"{"event":"stop"}"#);
    let f = p.fire_with(&json!(null), &["--event", ev.to_str().unwrap()]);
    assert_eq!(f.code, 0, "{}", f.stderr);
    assert_eq!(f.runs()[0]["hook"], "s");
    let out = p.fire_raw(b"", &["--event", "/nonexistent.json"]);
    assert_eq!(out.status.code(), Some(3));
}

#[test]
fn bad_flags_exit_2() {
    let out = crate::util::latch()
        .args(["fire", "--bogus"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn an_unusable_state_directory_still_dispatches() {
    // The state root is a file: no dialect that needs no state is stopped
    // (a deny still reaches the harness); those that do make their safe
    // choice (see tests/it/hostile/state.rs).
    let p = Project::new();
    let cmd = p.hook("d", br#"{"decision":"block","reason":"no"}"#, b"", 0);
    let p = p.settings(&format!(
        "hooks:\n  PreToolUse:\n    - name: no\n      command: {cmd:?}\n"
    ));
    let file = p.write("not-a-dir", "");
    let out = p.fire_raw(
        br#"{"event":"tool_before","session_id":"s","tool":{"name":"shell","input":{}}}"#,
        &["--state-dir", file.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(0));
    let f = crate::util::Fired::from_output(&out);
    assert_eq!(f.outcome["decision"], "deny", "{}", f.stderr);
}

#[test]
fn an_empty_state_dir_variable_counts_as_unset() {
    let p = Project::new();
    let home = p.home();
    let out = crate::util::latch()
        .args(["fire", "--project"])
        .arg(p.dir())
        .arg("--home")
        .arg(&home)
        .env("LATCH_STATE_DIR", "")
        .env("XDG_STATE_HOME", "")
        .env("HOME", &home)
        .write_stdin(r#"{"event":"stop","session_id":"s"}"#)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(home.join(".local/state/latch/sessions/s").is_dir());
}

#[test]
fn the_state_dir_variable_is_used() {
    let p = Project::new();
    let dir = p.root.path().join("from-env");
    let out = crate::util::latch()
        .args(["fire", "--project"])
        .arg(p.dir())
        .arg("--home")
        .arg(p.home())
        .env("LATCH_STATE_DIR", &dir)
        .write_stdin(r#"{"event":"stop","session_id":"s"}"#)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(dir.join("sessions/s").is_dir());
}

#[test]
fn sigterm_cancels_the_running_hook_kills_its_group_and_prints_the_outcome() {
    let p = Project::new().settings(
        "hooks:\n  PreToolUse:\n    - {name: first, command: 'echo no >&2; exit 2'}\n    - {name: slow, command: 'sleep 1000 & echo $! > pid; wait'}\n    - {name: never, command: 'touch never-ran'}\n",
    );
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("latch"))
        .args(["fire", "--project"])
        .arg(p.dir())
        .arg("--home")
        .arg(p.home())
        .arg("--state-dir")
        .arg(p.state())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin
            .write_all(br#"{"event":"tool_before","tool":{"name":"shell","input":{}}}"#)
            .unwrap();
    }
    let grandchild = crate::util::read_pid(&p.dir().join("pid"));
    let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let outcome: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(outcome["decision"], "deny", "the earlier deny is kept");
    assert_eq!(outcome["runs"].as_array().unwrap().len(), 2);
    assert_eq!(outcome["runs"][1]["error"], "cancelled");
    assert!(crate::util::wait_dead(grandchild));
    assert!(!p.dir().join("never-ran").exists());
}

/// A configuration path that is a FIFO or a link to a device never stalls
/// loading: each dialect reports it as a file it cannot read.
#[test]
fn fifos_and_devices_in_place_of_configuration_files_are_reported() {
    let d = tempfile::tempdir().unwrap();
    let ws = d.path().join("ws");
    let plugin = d.path().join("p");
    for dir in [
        ws.join(".agents"),
        ws.join(".poolside"),
        plugin.join("hooks"),
    ] {
        std::fs::create_dir_all(dir).unwrap();
    }
    for fifo in [
        ws.join(".agents/hooks.yaml"),
        ws.join(".poolside/settings.yaml"),
        plugin.join("hooks/hooks.json"),
    ] {
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
    }
    std::os::unix::fs::symlink("/dev/zero", ws.join(".poolside/settings.local.yaml")).unwrap();
    let out = latch()
        .args(["fire", "--project"])
        .arg(&ws)
        .arg("--plugin-dir")
        .arg(&plugin)
        .arg("--state-dir")
        .arg(d.path().join("state"))
        .env_remove("PEEN_CONFIG_DIR")
        .write_stdin(r#"{"event":"turn_start","session_id":"s","turn_id":"t"}"#)
        .timeout(std::time::Duration::from_secs(20))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    for (file, message) in [
        (
            ".poolside/settings.yaml",
            "error: cannot read settings file: it is not a regular file",
        ),
        (
            ".poolside/settings.local.yaml",
            "error: cannot read settings file: it is not a regular file",
        ),
        (
            ".agents/hooks.yaml",
            "warning: harness.warning: hooks file skipped: cannot read it: it is not a regular file",
        ),
    ] {
        let path = ws.join(file);
        assert!(
            stderr.contains(&format!("{}: {message}", path.display())),
            "{file}: {stderr}"
        );
    }
    let json = plugin.join("hooks/hooks.json");
    assert!(
        stderr.contains(&format!(
            "{}: error: cannot read: it is not a regular file",
            json.display()
        )),
        "{stderr}"
    );
}

/// A project with a poolside hook, a peen action and an evener plugin, all
/// on PreToolUse, each recording that it ran.
fn three_dialects() -> (Project, String) {
    let p = Project::new()
        .settings("hooks:\n  PreToolUse:\n    - {name: pool, command: 'touch ran.poolside'}\n");
    p.write(
        ".agents/hooks.yaml",
        "version: 1\npreToolUse:\n  - name: pe\n    actions: [{type: command, command: touch, args: [ran.peen]}]\n",
    );
    p.write("plugin/.claude-plugin/plugin.json", r#"{"name": "ev"}"#);
    p.write(
        "plugin/hooks/hooks.json",
        r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "touch ran.evener"}]}]}}"#,
    );
    let plugin = p.dir().join("plugin").display().to_string();
    (p, plugin)
}

fn ran(p: &Project) -> Vec<&'static str> {
    ["poolside", "peen", "evener"]
        .into_iter()
        .filter(|d| p.dir().join(format!("ran.{d}")).exists())
        .collect()
}

#[test]
fn dialect_flags_choose_exactly_which_dialects_load() {
    let event =
        json!({"event": "tool_before", "cwd": null, "tool": {"name": "shell", "input": {}}});
    let cases: [(&[&str], &[&str]); 5] = [
        (&[], &["poolside", "peen"]),
        (&["--plugin-dir", "PLUGIN"], &["poolside", "peen", "evener"]),
        (&["--dialect", "peen", "--plugin-dir", "PLUGIN"], &["peen"]),
        (
            &["--dialect", "evener", "--plugin-dir", "PLUGIN"],
            &["evener"],
        ),
        (
            &["--dialect", "poolside", "--dialect", "evener"],
            &["poolside"],
        ),
    ];
    for (flags, expected) in cases {
        let (p, plugin) = three_dialects();
        let flags: Vec<&str> = flags
            .iter()
            .map(|f| if *f == "PLUGIN" { plugin.as_str() } else { f })
            .collect();
        let mut event = event.clone();
        event["cwd"] = json!(p.dir());
        let f = p.fire_with(&event, &flags);
        assert_eq!(f.code, 0, "{flags:?}: {}", f.stderr);
        assert_eq!(ran(&p), expected, "{flags:?}");
        let dialects: Vec<&str> = f
            .runs()
            .iter()
            .filter_map(|r| r["dialect"].as_str())
            .collect();
        assert_eq!(
            dialects, expected,
            "{flags:?}: the runs name only the loaded dialects"
        );
    }
}

/// A dialect's flag without that dialect loaded is said to do nothing:
/// otherwise `--claude-settings` alone would load nothing, silently.
#[test]
fn a_flag_of_a_dialect_that_is_not_loaded_is_reported() {
    let (p, plugin) = three_dialects();
    let event = json!({"event": "tool_before", "tool": {"name": "shell", "input": {}}});
    let f = p.fire_with(
        &event,
        &[
            "--claude-settings",
            "{\"hooks\":",
            "--tool-vocabulary",
            "/dev/zero",
        ],
    );
    assert_eq!(f.code, 0, "{}", f.stderr);
    for flag in ["--claude-settings", "--tool-vocabulary"] {
        assert!(
            f.stderr.contains(&format!("{flag} has no effect: the ")),
            "{flag}: {}",
            f.stderr
        );
    }
    // With the dialect loaded, the flag is used, and nothing says otherwise;
    // with the dialects named, the harness chose them and nothing is said.
    let f = p.fire_with(&event, &["--dialect", "evener", "--plugin-dir", &plugin]);
    assert!(!f.stderr.contains("has no effect"), "{}", f.stderr);
    let f = p.fire_with(
        &event,
        &[
            "--dialect",
            "peen",
            "--plugin-dir",
            &plugin,
            "--claude-settings",
            "{}",
        ],
    );
    assert!(!f.stderr.contains("has no effect"), "{}", f.stderr);
}

#[test]
fn an_unknown_dialect_is_a_usage_error() {
    let p = Project::new();
    let out = p.fire_raw(br#"{"event":"stop"}"#, &["--dialect", "claud"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("invalid value 'claud' for '--dialect <NAME>'"),
        "{err}"
    );
    assert!(
        err.contains("[possible values: poolside, peen, evener, claude]"),
        "{err}"
    );
}

#[test]
fn the_long_version_names_the_commit_and_the_dialects() {
    let out = latch().arg("--version").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with(&format!("latch {}", env!("CARGO_PKG_VERSION"))),
        "{text}"
    );
    assert!(
        text.contains("\ndialects: poolside, peen, evener, claude"),
        "{text}"
    );
    let head = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
    if let Some(head) = head {
        assert!(
            text.contains(&format!("(commit {head}")),
            "{text} (HEAD {head})"
        );
    }
    let short = latch().arg("-V").output().unwrap();
    assert_eq!(
        String::from_utf8(short.stdout).unwrap().trim(),
        format!("latch {}", env!("CARGO_PKG_VERSION"))
    );
}

/// `latch fire` starts hooks from a thread with the shortest time slice, so
/// that hooks started at once spread over the CPUs; each hook gets the
/// slice any process gets.
#[test]
fn fired_hooks_keep_the_default_time_slice_and_latch_takes_the_shortest() {
    use crate::claude_util::{Claude, bash_before, settings};
    let Some(default) = crate::util::default_slice() else {
        return; // no `se.slice` in /proc on this kernel
    };
    let c = Claude::new().project_settings(&settings(
        "PreToolUse",
        Some("Bash"),
        &crate::util::SLICE_HOOKS,
    ));
    let f = c.fire(&bash_before("ls"));
    crate::util::assert_slices(&f.outcome["reasons"], default);
}

/// `LATCH_SHORT_SLICE=0` leaves latch's thread with the default slice.
#[test]
fn latch_short_slice_0_keeps_the_default_time_slice() {
    use crate::claude_util::{Claude, bash_before, settings};
    let Some(default) = crate::util::default_slice() else {
        return; // no `se.slice` in /proc on this kernel
    };
    let c = Claude::new().project_settings(&settings(
        "PreToolUse",
        Some("Bash"),
        &["cat /proc/$PPID/sched >&2; exit 2"],
    ));
    let f = c.fire_env(&bash_before("ls"), &[("LATCH_SHORT_SLICE", "0")]);
    let text = f.outcome["reasons"][0]["text"].as_str().unwrap_or_default();
    assert_eq!(crate::util::sched_slices(text), [default], "{text}");
}
