//! Builder for peen tests: a workspace (and optional config dir) with
//! `.agents/hooks.yaml`, fired through the real binary.

use std::fs;
use std::path::PathBuf;

use serde_json::Value;

use crate::util::{Fired, latch};

pub struct Layers {
    pub root: tempfile::TempDir,
}

impl Layers {
    pub fn new() -> Layers {
        let root = tempfile::tempdir().unwrap();
        fs::create_dir_all(root.path().join("ws/.agents")).unwrap();
        Layers { root }
    }

    /// The workspace: the agent's current directory.
    pub fn ws(&self) -> PathBuf {
        self.root.path().join("ws")
    }

    /// The configuration directory (`PEEN_CONFIG_DIR`).
    pub fn config(&self) -> PathBuf {
        self.root.path().join("config")
    }

    pub fn workspace_hooks(self, yaml: &str) -> Layers {
        fs::write(self.ws().join(".agents/hooks.yaml"), yaml).unwrap();
        self
    }

    pub fn config_hooks(self, yaml: &str) -> Layers {
        fs::create_dir_all(self.config().join(".agents")).unwrap();
        fs::write(self.config().join(".agents/hooks.yaml"), yaml).unwrap();
        self
    }

    /// Writes a file relative to the workspace.
    pub fn write(&self, rel: &str, text: &str) -> PathBuf {
        crate::util::write_file(&self.ws(), rel, text)
    }

    /// Writes an executable script relative to the workspace.
    pub fn script(&self, rel: &str, body: &str) -> PathBuf {
        crate::util::write_script(&self.ws(), rel, body)
    }

    pub fn fire(&self, event: &Value) -> Fired {
        self.fire_env(event, &[])
    }

    pub fn fire_env(&self, event: &Value, env: &[(&str, &str)]) -> Fired {
        let mut cmd = latch();
        cmd.arg("fire")
            .arg("--project")
            .arg(self.ws())
            .arg("--home")
            .arg(self.root.path().join("home"))
            .arg("--state-dir")
            .arg(self.root.path().join("state"))
            .env_remove("PEEN_COMPACTION_MODE")
            .env_remove("PEEN_TOOL_TIMEOUT")
            .env_remove("PEEN_DEFAULT_HOOK_COMMAND_TIMEOUT");
        if self.config().is_dir() {
            cmd.env("PEEN_CONFIG_DIR", self.config());
        } else {
            cmd.env_remove("PEEN_CONFIG_DIR");
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd
            .write_stdin(serde_json::to_vec(event).unwrap())
            .output()
            .unwrap();
        Fired::from_output(&out)
    }

    /// A tool event in the workspace.
    pub fn tool(&self, kind: &str, tool: &str, input: Value) -> Value {
        serde_json::json!({"event": kind, "session_id": "s1", "turn_id": "t1", "cwd": self.ws(),
            "tool": {"name": tool, "input": input, "call_id": "c1"}})
    }
}
