//! Builder for evener tests: plugins in a temp dir, fired through the binary.

use std::fs;
use std::path::PathBuf;

use serde_json::Value;

use crate::util::{Fired, latch};

pub struct Plugins {
    pub root: tempfile::TempDir,
    pub dirs: Vec<PathBuf>,
}

impl Plugins {
    pub fn new() -> Plugins {
        let root = tempfile::tempdir().unwrap();
        fs::create_dir_all(root.path().join("project")).unwrap();
        Plugins {
            root,
            dirs: Vec::new(),
        }
    }

    pub fn project(&self) -> PathBuf {
        self.root.path().join("project")
    }

    /// A plugin with a manifest `{"name": name}` and `hooks/hooks.json`.
    pub fn plugin(mut self, name: &str, hooks: &str) -> Plugins {
        let dir = self.root.path().join(name);
        fs::create_dir_all(dir.join(".claude-plugin")).unwrap();
        fs::create_dir_all(dir.join("hooks")).unwrap();
        fs::write(
            dir.join(".claude-plugin/plugin.json"),
            format!("{{\"name\":\"{name}\"}}"),
        )
        .unwrap();
        fs::write(dir.join("hooks/hooks.json"), hooks).unwrap();
        self.dirs.push(dir);
        self
    }

    /// A plugin whose only hook is one `command` handler on `event`/`matcher`.
    pub fn command(self, name: &str, event: &str, matcher: &str, command: &str) -> Plugins {
        let hooks = serde_json::json!({"hooks": {event: [{"matcher": matcher, "hooks": [{"type": "command", "command": command}]}]}});
        self.plugin(name, &hooks.to_string())
    }

    /// Writes a file in the temp root and returns its path.
    pub fn write(&self, rel: &str, text: &[u8]) -> PathBuf {
        crate::util::write_file(self.root.path(), rel, text)
    }

    pub fn fire(&self, event: &Value) -> Fired {
        self.fire_with(event, &[], &[])
    }

    /// `fire` and the flags that point latch at this tree and its plugins.
    fn fire_args(&self) -> Vec<std::ffi::OsString> {
        let mut args: Vec<std::ffi::OsString> = vec![
            "fire".into(),
            "--project".into(),
            self.project().into(),
            "--home".into(),
            self.root.path().join("home").into(),
            "--state-dir".into(),
            self.root.path().join("state").into(),
        ];
        for d in &self.dirs {
            args.push("--plugin-dir".into());
            args.push(d.into());
        }
        args
    }

    /// Starts `latch fire` on `event` in the background (for a signal to
    /// reach it while a hook runs), with the same flags as
    /// [`Plugins::fire_with`] and `extra`; stderr is dropped.
    pub fn spawn_fire(&self, event: &Value, extra: &[&str]) -> std::process::Child {
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("latch"))
            .args(self.fire_args())
            .args(extra)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        std::io::Write::write_all(&mut stdin, &serde_json::to_vec(event).unwrap()).unwrap();
        child
    }

    pub fn fire_with(&self, event: &Value, extra: &[&str], env: &[(&str, &str)]) -> Fired {
        let mut cmd = latch();
        cmd.args(self.fire_args()).args(extra);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd
            .write_stdin(serde_json::to_vec(event).unwrap())
            .output()
            .unwrap();
        Fired::from_output(&out)
    }
}

/// A `tool_before` event for a canonical tool name.
pub fn pre(tool: &str, input: Value) -> Value {
    serde_json::json!({"event": "tool_before", "session_id": "s", "tool": {"name": tool, "input": input, "call_id": "c1"}})
}

impl Fired {
    pub fn warnings(&self) -> Vec<String> {
        self.outcome["warnings"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|w| w.as_str().unwrap_or("").to_owned())
                    .collect()
            })
            .unwrap_or_default()
    }

    pub fn context_texts(&self) -> Vec<String> {
        self.outcome["context"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|c| c["text"].as_str().unwrap_or("").to_owned())
                    .collect()
            })
            .unwrap_or_default()
    }
}
