//! Every poolside example script of the spec, as shipped in
//! `examples/poolside/`, shows its documented behaviour.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::util::{Fired, latch};

#[path = "../../examples/tour.rs"]
mod tour;

/// A copy of `examples/poolside` in a temp dir, so markers stay out of the repo.
struct Example {
    dir: tempfile::TempDir,
}

/// Copies a directory tree (for tests that need a writable example).
pub fn examples_copy_dir(from: &Path, to: &Path) {
    copy_dir(from, to);
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

impl Example {
    fn new() -> Example {
        let dir = tempfile::tempdir().unwrap();
        let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/poolside");
        copy_dir(&src, &dir.path().join("project"));
        Example { dir }
    }

    fn project(&self) -> PathBuf {
        self.dir.path().join("project")
    }

    fn fire_file(&self, name: &str) -> Fired {
        let event = std::fs::read(self.project().join("events").join(name)).unwrap();
        self.fire_bytes(event)
    }

    fn fire(&self, event: &Value) -> Fired {
        self.fire_bytes(serde_json::to_vec(event).unwrap())
    }

    fn fire_bytes(&self, event: Vec<u8>) -> Fired {
        let out = latch()
            .arg("fire")
            .arg("--project")
            .arg(self.project())
            .arg("--home")
            .arg(self.dir.path().join("home"))
            .arg("--state-dir")
            .arg(self.dir.path().join("state"))
            .env("LOG_PAYLOAD_FILE", self.dir.path().join("payload.json"))
            .write_stdin(event)
            .output()
            .unwrap();
        Fired::from_output(&out)
    }
}

#[test]
fn the_example_settings_load_without_diagnostics() {
    let f = Example::new().fire_file("shell-allowed.json");
    assert_eq!(f.code, 0);
    assert_eq!(f.stderr, "");
    assert_eq!(f.outcome["decision"], "proceed");
    assert_eq!(f.runs().len(), 2);
}

#[test]
fn block_hook_test_blocks_echo_hook_test() {
    let f = Example::new().fire_file("shell-hook-test.json");
    assert_eq!(f.outcome["decision"], "deny");
    assert_eq!(
        f.reasons(),
        ["The hook test command was blocked (blocked by block-hook-test hook)"]
    );
}

#[test]
fn block_sudo_blocks_sudo_and_nothing_else() {
    let ex = Example::new();
    let f = ex.fire_file("shell-sudo.json");
    assert_eq!(f.outcome["decision"], "deny");
    assert_eq!(
        f.reasons(),
        ["sudo is forbidden in this workspace (blocked by block-sudo hook)"]
    );
    let f = ex.fire(
        &json!({"event": "tool_before", "tool": {"name": "read", "input": {"path": "sudo"}}}),
    );
    assert!(f.runs().is_empty(), "the matcher selects only shell");
}

#[test]
fn redact_rewrites_output_and_stays_silent_when_clean() {
    let ex = Example::new();
    let f = ex.fire_file("shell-output.json");
    assert_eq!(
        f.outcome["tool_output"],
        "1 [sudo-redacted] make install\n2 make test\n-- reviewed by redact hook\n<hook name=\"redact\" event=\"PostToolUse\">This tool output was rewritten by the hook.</hook>"
    );
    let f = ex.fire(&json!({"event": "tool_after", "tool": {"name": "shell", "input": {}, "output": "all clean"}}));
    assert!(f.outcome.get("tool_output").is_none());
    assert!(f.outcome.get("notices").is_none());
}

#[test]
fn drive_once_continues_exactly_once() {
    let ex = Example::new();
    let f = ex.fire_file("stop.json");
    assert_eq!(
        f.outcome["continuation"]["prompt"],
        "You stopped early. Please also write a one-line summary to SUMMARY.md, then stop."
    );
    let f = ex.fire_file("stop.json");
    assert!(
        f.outcome.get("continuation").is_none(),
        "the marker file stops the second continuation"
    );
    assert!(ex.project().join(".hook-continued").exists());
}

#[test]
fn log_payload_writes_the_event_json() {
    let ex = Example::new();
    ex.fire_file("user-prompt.json");
    let logged: Value =
        serde_json::from_slice(&std::fs::read(ex.dir.path().join("payload.json")).unwrap())
            .unwrap();
    assert_eq!(logged["hook_event_name"], "UserPromptSubmit");
    assert_eq!(logged["prompt"], "Install the package.");
    assert_eq!(logged["session_id"], "demo");
}

#[test]
fn announce_policy_injects_context_at_session_start() {
    let f = Example::new().fire_file("session-start.json");
    assert_eq!(
        f.outcome["context"],
        json!([{"hook": "announce-policy", "placement": "system_prompt",
                "text": "Workspace policy (source=startup): sudo is forbidden in this workspace; hooks are active."}])
    );
}

/// The evener example plugins, fired through the real binary.
mod evener {
    use serde_json::json;

    use crate::util::{Fired, latch};

    fn fire(plugins: &[&str], event: &str) -> Fired {
        let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/evener");
        let tmp = tempfile::tempdir().unwrap();
        let mut cmd = latch();
        cmd.arg("fire")
            .arg("--project")
            .arg(tmp.path())
            .arg("--home")
            .arg(tmp.path())
            .arg("--state-dir")
            .arg(tmp.path().join("state"))
            .arg("--event")
            .arg(root.join("events").join(event))
            .env("LATCH_PROMPT_BASE_URL", "")
            .env("OPENAI_BASE_URL", "");
        for p in plugins {
            cmd.arg("--plugin-dir").arg(root.join(p));
        }
        let out = cmd.output().unwrap();
        Fired::from_output(&out)
    }

    #[test]
    fn hello_plugin_shows_its_system_message_warning() {
        let f = fire(&["hello-plugin"], "session-start.json");
        assert_eq!(
            f.outcome["warnings"],
            json!(["hello-plugin startup hook ran"])
        );
        assert!(
            f.stderr
                .contains("latch: warning: hello-plugin startup hook ran")
        );
    }

    #[test]
    fn guard_plugin_blocks_sudo_by_exit_2_and_by_json_deny() {
        let f = fire(&["guard-plugin"], "shell-sudo.json");
        assert_eq!(f.outcome["decision"], "deny");
        assert_eq!(
            f.reasons(),
            [
                "sudo is not allowed here (guard-plugin, exit 2)",
                "sudo is not allowed here (guard-plugin, JSON deny)"
            ]
        );
        let f = fire(&["guard-plugin"], "shell-allowed.json");
        assert_eq!(f.outcome["decision"], "proceed");
        assert_eq!(f.runs().len(), 2);
    }

    #[test]
    fn exec_plugin_passes_home_literally() {
        let f = fire(&["exec-plugin"], "edit-after.json");
        assert_eq!(
            f.outcome["warnings"],
            json!(["exec form: $HOME stays literal"])
        );
    }

    #[test]
    fn pointed_plugin_reads_the_manifest_path() {
        let f = fire(&["pointed-plugin"], "user-prompt.json");
        assert_eq!(
            f.outcome["context"][0]["text"],
            "<SYSTEM-REMINDER>\nProject rule: run make test before you say the work is done.\n</SYSTEM-REMINDER>"
        );
        assert!(
            f.runs()[0]["source"]["file"]
                .as_str()
                .unwrap()
                .ends_with("pointed-plugin/config/prompt-hooks.json")
        );
    }

    #[test]
    fn inline_plugin_keeps_the_turn_going_until_a_summary_exists() {
        let f = fire(&["inline-plugin"], "stop.json");
        assert_eq!(
            f.outcome["continuation"]["prompt"],
            "Write SUMMARY.md before you stop."
        );
        let f = fire(&["inline-plugin"], "stop-with-question.json");
        assert!(
            f.runs().is_empty(),
            "Stop is not consulted with a pending question"
        );
    }

    #[test]
    fn prompt_plugin_loads_cleanly() {
        let f = fire(&["prompt-plugin"], "shell-allowed.json");
        // No endpoint is configured in tests: a non-blocking prompt error.
        assert_eq!(f.runs()[0]["error"], "prompt_error");
        assert_eq!(f.outcome["decision"], "proceed");
    }
}

/// The peen examples of the spec, fired through the real binary.
mod peen {
    use std::path::{Path, PathBuf};

    use serde_json::{Value, json};

    use crate::util::{Fired, latch};

    fn examples() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/peen")
    }

    /// A copy of one example workspace in a temp dir.
    fn workspace(name: &str) -> tempfile::TempDir {
        let tmp = tempfile::tempdir().unwrap();
        super::copy_dir(&examples().join(name), tmp.path());
        tmp
    }

    fn fire(ws: &Path, state: &Path, event: Value, env: &[(&str, &str)]) -> Fired {
        let mut cmd = latch();
        cmd.args(["fire", "--project"])
            .arg(ws)
            .arg("--home")
            .arg(state)
            .arg("--state-dir")
            .arg(state)
            .env_remove("PEEN_CONFIG_DIR");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd
            .write_stdin(serde_json::to_vec(&event).unwrap())
            .output()
            .unwrap();
        Fired::from_output(&out)
    }

    fn tool(ws: &Path, kind: &str, name: &str, input: Value) -> Value {
        json!({"event": kind, "session_id": "s", "turn_id": "t", "cwd": ws, "context_tokens": 1000,
            "tool": {"name": name, "input": input, "call_id": "c"}})
    }

    #[test]
    fn no_force_push_and_no_rm_rf() {
        let state = tempfile::tempdir().unwrap();
        let ws = workspace("no-force-push");
        let f = fire(
            ws.path(),
            state.path(),
            tool(
                ws.path(),
                "tool_before",
                "runCommand",
                json!({"command": "git push origin main --force"}),
            ),
            &[],
        );
        assert_eq!(f.stderr, "");
        assert_eq!(
            f.reasons(),
            ["Never force-push. Push a new commit instead."]
        );
        let f = fire(
            ws.path(),
            state.path(),
            tool(
                ws.path(),
                "tool_before",
                "runCommand",
                json!({"command": "git push origin main"}),
            ),
            &[],
        );
        assert_eq!(f.outcome["decision"], "proceed");
        let ws = workspace("no-rm-rf");
        let f = fire(
            ws.path(),
            state.path(),
            tool(
                ws.path(),
                "tool_before",
                "runCommand",
                json!({"command": "rm -rf /"}),
            ),
            &[],
        );
        assert_eq!(
            f.reasons(),
            ["Refusing to run rm -rf on the filesystem root."]
        );
    }

    #[test]
    fn gofmt_runs_after_a_go_write_only() {
        let state = tempfile::tempdir().unwrap();
        let ws = workspace("gofmt");
        let log = ws.path().join(".gofmt.log");
        let path = format!(
            "{}:{}",
            examples().join("bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let env = [("PATH", path.as_str())];
        let f = fire(
            ws.path(),
            state.path(),
            tool(
                ws.path(),
                "tool_after",
                "writeFile",
                json!({"path": "main.go"}),
            ),
            &env,
        );
        assert_eq!(f.runs()[0]["status"], "ok", "{}", f.stderr);
        let logged = std::fs::read_to_string(&log).unwrap();
        assert_eq!(logged.lines().collect::<Vec<_>>(), ["-l", "-w", "."]);
        std::fs::remove_file(&log).unwrap();
        let f = fire(
            ws.path(),
            state.path(),
            tool(
                ws.path(),
                "tool_after",
                "writeFile",
                json!({"path": "README.md"}),
            ),
            &env,
        );
        assert!(f.runs().is_empty());
    }

    #[test]
    fn test_reminder_injects_on_every_turn() {
        let state = tempfile::tempdir().unwrap();
        let ws = workspace("test-reminder");
        let f = fire(
            ws.path(),
            state.path(),
            json!({"event": "turn_start", "cwd": ws.path(), "model": "zai/glm-5.3"}),
            &[],
        );
        assert_eq!(
            f.outcome["context"][0]["text"],
            "<hook>\n<event>turnStart</event>\n\nRun make test before you say the work is done.\n</hook>"
        );
    }

    #[test]
    fn migration_changed_announces_sql_migrations() {
        let state = tempfile::tempdir().unwrap();
        let ws = workspace("migration-changed");
        let f = fire(
            ws.path(),
            state.path(),
            tool(
                ws.path(),
                "tool_after",
                "writeFile",
                json!({"path": "db/migrations/001_init.sql"}),
            ),
            &[],
        );
        assert_eq!(f.outcome["events"][0]["type"], "repo.migration.changed");
        assert_eq!(
            f.outcome["events"][0]["summary"],
            "A migration file changed. Run make migrate-check."
        );
        let f = fire(
            ws.path(),
            state.path(),
            tool(
                ws.path(),
                "tool_after",
                "writeFile",
                json!({"path": "db/seed.sql"}),
            ),
            &[],
        );
        assert!(f.outcome.get("events").is_none());
    }

    #[test]
    fn rule_before_write_denies_the_first_new_go_file_once() {
        let state = tempfile::tempdir().unwrap();
        let ws = workspace("rules");
        let ev = tool(
            ws.path(),
            "tool_before",
            "writeFile",
            json!({"path": "hello/main.go", "content": "package main"}),
        );
        let f = fire(ws.path(), state.path(), ev.clone(), &[]);
        assert_eq!(f.outcome["decision"], "deny", "{}", f.stderr);
        assert!(
            f.reasons()[0].starts_with("# Go rules"),
            "the rule is the reason: {:?}",
            f.reasons()
        );
        let f = fire(ws.path(), state.path(), ev, &[]);
        assert_eq!(
            f.outcome["decision"], "proceed",
            "the marker in stateDirectory lets the retry through"
        );
    }

    #[test]
    fn rule_refresh_sends_the_rule_again_as_the_context_grows() {
        let state = tempfile::tempdir().unwrap();
        let ws = workspace("rules");
        let mut ev = tool(
            ws.path(),
            "tool_after",
            "readFile",
            json!({"path": "main.go"}),
        );
        let f = fire(ws.path(), state.path(), ev.clone(), &[]);
        assert!(
            f.outcome["context"][0]["text"]
                .as_str()
                .unwrap()
                .contains("# Go rules"),
            "{}",
            f.stderr
        );
        ev["context_tokens"] = json!(50_000);
        let f = fire(ws.path(), state.path(), ev.clone(), &[]);
        assert!(
            f.outcome.get("context").is_none(),
            "grew by less than REFRESH_TOKENS"
        );
        ev["context_tokens"] = json!(200_000);
        let f = fire(ws.path(), state.path(), ev.clone(), &[]);
        assert!(
            f.outcome.get("context").is_some(),
            "grew by more than REFRESH_TOKENS"
        );
        ev["context_tokens"] = json!(10);
        ev["tool"]["name"] = json!("editFile");
        let f = fire(ws.path(), state.path(), ev, &[]);
        assert!(
            f.outcome.get("context").is_some(),
            "compaction dropped history"
        );
    }
}

/// The README's first command, `cargo run --example tour`, compiled into
/// this suite (so it is never a stale build): every dialect's examples run
/// without a diagnostic, and their decisions are the documented ones.
#[test]
fn the_tour_runs_every_dialects_examples() {
    let (mut out, mut diagnostics) = (Vec::new(), Vec::new());
    tour::run(&mut out, &mut diagnostics).expect("the tour runs");
    let stdout = String::from_utf8_lossy(&out);
    assert_eq!(String::from_utf8_lossy(&diagnostics), "", "no diagnostics");
    // Each dialect's section, then the decision of each of its events.
    let mut sections = stdout.split("════ ").skip(1);
    let mut decisions = |dialect: &str| -> Vec<String> {
        let section = sections.next().expect("a section");
        assert!(section.starts_with(dialect), "{section}");
        section
            .lines()
            .filter_map(|l| l.strip_prefix("  \"decision\": \""))
            .map(|d| d.trim_end_matches("\",").to_owned())
            .collect()
    };
    assert_eq!(
        decisions("poolside"),
        [
            "proceed", "proceed", "proceed", "deny", "deny", "proceed", "proceed"
        ]
    );
    assert_eq!(
        decisions("evener"),
        ["proceed", "proceed", "deny", "proceed", "proceed"]
    );
    assert_eq!(decisions("claude"), ["deny", "allow", "ask", "proceed"]);
    assert_eq!(decisions("peen"), ["deny", "proceed"]);
    assert!(
        stdout.contains("Stop hook feedback:\\nRun make test"),
        "{stdout}"
    );
}
