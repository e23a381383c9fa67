//! Hostile patterns: oversized and expensive regexes and globs in every
//! dialect and every pattern kind (poolside matcher, evener matcher, peen
//! `path` glob, peen input `regex`). latch must refuse each at its line and
//! column, cheaply, never panic, and keep every other hook (and every
//! other layer's deny) working.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::util::{latch, write_file};

/// A regex whose estimated compiled size is far over the limit, in 17 bytes.
const HUGE: &str = r"(?:\w{100}){100}";

/// A regex longer than the length limit (a group of 3,000 alternatives).
fn long_regex() -> String {
    let alts: Vec<String> = (0..3000).map(|i| format!("tool{i}")).collect();
    format!("(?:{})", alts.join("|"))
}

/// The glob of the report: about 300 KB, over globset's own compile limit,
/// which used to reach an `expect` inside globset.
fn huge_glob() -> String {
    let alts: Vec<String> = (0..16000).map(|i| format!("a{i}/**/*.{{x,y,z}}")).collect();
    format!("{{{}}}", alts.join(","))
}

/// One temp world: a project (poolside settings, peen workspace), a home,
/// a state directory, optional plugin directories and a peen config layer.
struct World {
    root: tempfile::TempDir,
    plugins: Vec<PathBuf>,
}

/// What one command did.
struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    took: Duration,
}

impl Ran {
    fn outcome(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "no outcome on stdout ({e}); exit {:?}\nstdout: {}\nstderr: {}",
                self.code,
                self.stdout,
                clip(&self.stderr)
            )
        })
    }

    fn no_panic(&self) {
        assert!(
            self.code != Some(101) && !self.stderr.contains("panicked"),
            "latch panicked: exit {:?}\n{}",
            self.code,
            clip(&self.stderr)
        );
    }
}

fn clip(s: &str) -> String {
    s.chars().take(4000).collect()
}

impl World {
    fn new() -> World {
        World {
            root: tempfile::tempdir().expect("tempdir"),
            plugins: Vec::new(),
        }
    }

    fn project(&self) -> PathBuf {
        self.root.path().join("project")
    }

    fn config(&self) -> PathBuf {
        self.root.path().join("config")
    }

    fn poolside(self, yaml: &str) -> World {
        write_file(&self.project(), ".poolside/settings.yaml", yaml);
        self
    }

    fn peen_workspace(self, yaml: &str) -> World {
        write_file(&self.project(), ".agents/hooks.yaml", yaml);
        self
    }

    fn peen_config(self, yaml: &str) -> World {
        write_file(&self.config(), ".agents/hooks.yaml", yaml);
        self
    }

    fn plugin(mut self, name: &str, hooks: &Value) -> World {
        let dir = self.root.path().join("plugins").join(name);
        write_file(
            &dir,
            ".claude-plugin/plugin.json",
            &json!({ "name": name }).to_string(),
        );
        write_file(
            &dir,
            "hooks/hooks.json",
            &serde_json::to_string_pretty(hooks).expect("json"),
        );
        self.plugins.push(dir);
        self
    }

    fn file(&self, rel: &str) -> PathBuf {
        self.project().join(rel)
    }

    fn command(&self, sub: &str) -> assert_cmd::Command {
        let mut cmd = latch();
        cmd.arg(sub)
            .arg("--project")
            .arg(self.project())
            .arg("--home")
            .arg(self.root.path().join("home"));
        for p in &self.plugins {
            cmd.arg("--plugin-dir").arg(p);
        }
        if self.config().is_dir() {
            cmd.env("PEEN_CONFIG_DIR", self.config());
        } else {
            cmd.env_remove("PEEN_CONFIG_DIR");
        }
        cmd.env_remove("PEEN_COMPACTION_MODE")
            .env_remove("LATCH_STATE_DIR")
            .timeout(Duration::from_secs(120));
        cmd
    }

    fn run(mut cmd: assert_cmd::Command) -> Ran {
        let start = Instant::now();
        let out = cmd.output().expect("latch runs");
        Ran {
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            took: start.elapsed(),
        }
    }

    fn fire(&self, event: &Value) -> Ran {
        let mut cmd = self.command("fire");
        cmd.arg("--state-dir")
            .arg(self.root.path().join("state"))
            .write_stdin(serde_json::to_vec(event).expect("json"));
        let ran = World::run(cmd);
        ran.no_panic();
        assert_eq!(ran.code, Some(0), "{}", clip(&ran.stderr));
        ran
    }

    fn explain(&self, event: &Value) -> Ran {
        let mut cmd = self.command("explain");
        cmd.write_stdin(serde_json::to_vec(event).expect("json"));
        let ran = World::run(cmd);
        ran.no_panic();
        assert_eq!(ran.code, Some(0), "{}", clip(&ran.stderr));
        ran
    }

    fn lint(&self, path: &Path) -> Ran {
        let mut cmd = latch();
        cmd.arg("lint").arg(path).timeout(Duration::from_secs(120));
        let ran = World::run(cmd);
        ran.no_panic();
        assert!(
            matches!(ran.code, Some(0 | 1 | 5)),
            "lint exit {:?}: {}",
            ran.code,
            clip(&ran.stderr)
        );
        ran
    }
}

fn tool_event(cwd: &Path, tool: &str, input: Value) -> Value {
    json!({"event": "tool_before", "session_id": "s1", "turn_id": "t1", "cwd": cwd,
        "tool": {"name": tool, "input": input, "call_id": "c1"}})
}

/// Asserts `text` has a diagnostic at `file:line:col` mentioning `what`.
fn points_at(text: &str, file: &Path, line: usize, col: usize, what: &str) {
    let at = format!("{}:{line}:{col}", file.display());
    assert!(
        text.lines().any(|l| l.contains(&at)) && text.contains(what),
        "expected a diagnostic at {at} about {what:?} in:\n{}",
        clip(text)
    );
}

fn hook_names(outcome: &Value) -> Vec<String> {
    outcome["runs"]
        .as_array()
        .map(|rs| {
            rs.iter()
                .filter(|r| r["status"] != "skipped")
                .filter_map(|r| r["hook"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn poolside_oversized_matchers_disable_only_their_hooks() {
    let long = long_regex();
    let w = World::new().poolside(&format!(
        "hooks:\n  PreToolUse:\n    - name: huge\n      matcher: '{HUGE}'\n      command: 'exit 2'\n    - name: long\n      matcher: '{long}'\n      command: 'exit 2'\n    - {{name: good, matcher: shell, command: 'true'}}\n"
    ));
    let settings = w.file(".poolside/settings.yaml");
    let event = tool_event(&w.project(), "shell", json!({"cmd": "ls"}));
    let f = w.fire(&event);
    assert_eq!(f.outcome()["decision"], "proceed");
    assert_eq!(hook_names(&f.outcome()), ["good"]);
    points_at(&f.stderr, &settings, 4, 16, "too large");
    points_at(
        &f.stderr,
        &settings,
        7,
        16,
        "more than latch's limit of 16384",
    );
    assert!(
        f.stderr.len() < 10_000,
        "the long pattern is not echoed whole"
    );
    points_at(&w.lint(&w.project()).stdout, &settings, 4, 16, "too large");
    points_at(&w.explain(&event).stderr, &settings, 7, 16, "latch's limit");
}

#[test]
fn evener_oversized_matchers_skip_only_their_groups() {
    let ok = json!({"type": "command", "command": "true"});
    let deny = json!({"type": "command", "command": "echo no >&2; exit 2"});
    let w = World::new().plugin(
        "rx",
        &json!({"hooks": {"PreToolUse": [
            {"matcher": HUGE, "hooks": [deny]},
            {"matcher": long_regex(), "hooks": [deny]},
            {"matcher": "Bash", "hooks": [ok]},
        ]}}),
    );
    let file = w.plugins[0].join("hooks/hooks.json");
    let event = tool_event(&w.project(), "shell", json!({"command": "ls"}));
    let f = w.fire(&event);
    let outcome = f.outcome();
    assert_eq!(outcome["decision"], "proceed", "{}", clip(&f.stderr));
    points_at(&f.stderr, &file, 5, 20, "too large");
    points_at(&f.stderr, &file, 14, 20, "latch's limit");
    let statuses: Vec<&str> = outcome["runs"]
        .as_array()
        .expect("runs")
        .iter()
        .filter_map(|r| r["status"].as_str())
        .collect();
    assert_eq!(statuses[..2], ["skipped", "skipped"], "{outcome}");
    assert_eq!(statuses.len(), 3, "the third group still runs: {outcome}");
    points_at(&w.lint(&w.plugins[0]).stdout, &file, 5, 20, "too large");
    w.explain(&event);
}

const DENY_ALL: &str =
    "version: 1\npreToolUse:\n  - actions:\n      - type: deny\n        reason: no\n";

#[test]
fn a_peen_glob_over_globset_s_limit_skips_its_file_and_keeps_the_config_layer_s_deny() {
    let w = World::new().peen_config(DENY_ALL).peen_workspace(&format!(
        "version: 1\npreToolUse:\n  - match:\n      path: '{}'\n    actions:\n      - type: inject\n        message: hi\n",
        huge_glob()
    ));
    let file = w.file(".agents/hooks.yaml");
    let event = tool_event(&w.project(), "readFile", json!({"path": "a0/b/c.x"}));
    let f = w.fire(&event);
    let outcome = f.outcome();
    assert_eq!(outcome["decision"], "deny", "{}", clip(&f.stderr));
    assert_eq!(outcome["reasons"][0]["text"], "no");
    points_at(&f.stderr, &file, 4, 13, "hooks file skipped: invalid glob");
    points_at(&w.lint(&file).stdout, &file, 4, 13, "invalid glob");
    points_at(&w.explain(&event).stderr, &file, 4, 13, "invalid glob");
}

#[test]
fn a_large_peen_glob_under_the_limits_still_matches() {
    let alts: Vec<String> = (0..600).map(|i| format!("a{i}/**/*.{{x,y,z}}")).collect();
    let w = World::new().peen_workspace(&format!(
        "version: 1\npreToolUse:\n  - match:\n      path: '{{{}}}'\n    actions:\n      - type: deny\n        reason: matched\n",
        alts.join(",")
    ));
    let f = w.fire(&tool_event(
        &w.project(),
        "readFile",
        json!({"path": "a599/b/c.z"}),
    ));
    assert_eq!(f.outcome()["decision"], "deny", "{}", clip(&f.stderr));
    let f = w.fire(&tool_event(
        &w.project(),
        "readFile",
        json!({"path": "a600/b/c.z"}),
    ));
    assert_eq!(f.outcome()["decision"], "proceed", "{}", clip(&f.stderr));
}

#[test]
fn a_peen_regex_check_over_the_limit_skips_its_file() {
    let w = World::new().peen_config(DENY_ALL).peen_workspace(&format!(
        "version: 1\npreToolUse:\n  - match:\n      input:\n        /path:\n          regex: '{HUGE}'\n    actions:\n      - type: inject\n        message: hi\n  - match:\n      input:\n        /path:\n          regex: '{}'\n    actions:\n      - type: inject\n        message: hi\n",
        long_regex()
    ));
    let file = w.file(".agents/hooks.yaml");
    let event = tool_event(&w.project(), "readFile", json!({"path": "a"}));
    let f = w.fire(&event);
    assert_eq!(
        f.outcome()["decision"],
        "deny",
        "the config layer's deny stands"
    );
    points_at(&f.stderr, &file, 6, 18, "invalid regular expression");
    points_at(&f.stderr, &file, 13, 18, "latch's limit");
    points_at(&w.lint(&file).stdout, &file, 6, 18, "too large");
    points_at(&w.explain(&event).stderr, &file, 6, 18, "too large");
}

#[test]
fn a_deeply_nested_peen_glob_is_refused_not_a_stack_overflow() {
    let glob = format!("{}a{}", "{".repeat(8000), "}".repeat(8000));
    let w = World::new().peen_workspace(&format!(
        "version: 1\npreToolUse:\n  - match:\n      path: '{glob}'\n    actions:\n      - type: deny\n        reason: x\n"
    ));
    let file = w.file(".agents/hooks.yaml");
    let f = w.fire(&tool_event(&w.project(), "readFile", json!({"path": "a"})));
    assert_eq!(f.outcome()["decision"], "proceed");
    points_at(&f.stderr, &file, 4, 13, "nest more than 32 deep");
}

#[test]
fn a_file_s_patterns_share_one_budget_reported_once() {
    // Each about 45,000 of estimated size: the budget admits about 44.
    let mut yaml = String::from("hooks:\n  PreToolUse:\n");
    for i in 0..60 {
        yaml.push_str(&format!(
            "    - {{name: h{i}, matcher: 'x{i}.{{1500}}', command: 'true'}}\n"
        ));
    }
    yaml.push_str("    - {name: plain, matcher: shell, command: 'true'}\n");
    let w = World::new().poolside(&yaml);
    let settings = w.file(".poolside/settings.yaml");
    let f = w.fire(&tool_event(&w.project(), "shell", json!({"cmd": "ls"})));
    let over: Vec<&str> = f
        .stderr
        .lines()
        .filter(|l| l.contains("over latch's budget"))
        .collect();
    assert_eq!(over.len(), 1, "one diagnostic:\n{}", clip(&f.stderr));
    let line: usize = over[0]
        .strip_prefix(&format!("{}:", settings.display()))
        .and_then(|r| r.split(':').next())
        .and_then(|n| n.parse().ok())
        .expect("a located diagnostic");
    assert!((30..60).contains(&line), "{}", over[0]);
    // Exact-name matchers cost nothing and still work.
    assert_eq!(hook_names(&f.outcome()), ["plain"]);
    let hit = w.fire(&tool_event(&w.project(), "x3", json!({})));
    assert!(hook_names(&hit.outcome()).is_empty());
    let event = tool_event(&w.project(), &format!("x0{}", "y".repeat(1500)), json!({}));
    assert_eq!(hook_names(&w.fire(&event).outcome()), ["h0"]);
}

/// 1,000 oversized patterns of each kind: every fire still ends promptly.
/// A hang guard, not a timing test.
#[test]
fn a_thousand_oversized_patterns_fire_promptly_in_every_dialect() {
    let bound = Duration::from_secs(20);
    let mut pool = String::from("hooks:\n  PreToolUse:\n");
    let mut groups = Vec::new();
    let mut peen = String::from("version: 1\npreToolUse:\n  - match:\n      input:\n");
    for i in 0..1000 {
        let p = format!(r"(?:\w{{100}}x{i}){{100}}");
        pool.push_str(&format!("    - {{matcher: '{p}', command: 'true'}}\n"));
        groups.push(json!({"matcher": p, "hooks": [{"type": "command", "command": "true"}]}));
    }
    for i in 0..2000 {
        peen.push_str(&format!(
            "        /p{i}:\n          regex: '(?:\\w{{60}}){{60}}'\n"
        ));
    }
    peen.push_str("    actions:\n      - type: deny\n        reason: x\n");
    let w = World::new()
        .poolside(&pool)
        .peen_workspace(&peen)
        .plugin("many", &json!({"hooks": {"PreToolUse": groups}}));
    let f = w.fire(&tool_event(&w.project(), "shell", json!({"cmd": "ls"})));
    assert!(f.took < bound, "fire took {:?}", f.took);
    assert_eq!(f.outcome()["decision"], "proceed");
    let l = w.lint(&w.project());
    assert!(l.took < bound, "lint took {:?}", l.took);
}

#[test]
fn a_scenario_s_oversized_reason_regex_is_a_failed_expectation() {
    let w = World::new().poolside("hooks: {}\n");
    let scenario = write_file(
        &w.project(),
        "scenario.yaml",
        &format!(
            "dialect: poolside\nconfig:\n  files:\n    .poolside/settings.yaml: 'hooks: {{}}'\ncases:\n  - name: big\n    event: {{event: user_prompt, prompt: hi}}\n    expect:\n      reason_matches: '{HUGE}'\n"
        ),
    );
    let mut cmd = latch();
    cmd.arg("test")
        .arg(&scenario)
        .timeout(Duration::from_secs(60));
    let ran = World::run(cmd);
    ran.no_panic();
    let all = format!("{}{}", ran.stdout, ran.stderr);
    assert!(all.contains("too large"), "{all}");
}
