//! `latch serve` under a low limit of open files: hooks of concurrent
//! dispatches starve each other of descriptors, and a deny among them must
//! still run (docs/limits.md, EMFILE).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::claude_util::{Claude, bash_before, settings};

/// `latch serve` started under a hard limit of `open_files` descriptors
/// (which it cannot raise), initialized for the claude dialect in `c`'s
/// tree, and the messages it wrote.
struct Server {
    child: Child,
    lines: mpsc::Receiver<Value>,
}

impl Server {
    fn start(c: &Claude, open_files: u32) -> Server {
        let mut child = Command::new("/bin/sh")
            .arg("-c")
            .arg(format!(r#"ulimit -n {open_files} && exec "$@" serve"#))
            .arg("sh")
            .arg(assert_cmd::cargo::cargo_bin("latch"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .env_remove("LATCH_STATE_DIR")
            .env_remove("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP")
            .spawn()
            .expect("latch serve starts");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                let value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("not one JSON message per line: {e}: {line}"));
                if tx.send(value).is_err() {
                    return;
                }
            }
        });
        let mut s = Server { child, lines };
        s.send(
            1,
            "initialize",
            json!({"dialects": ["claude"], "project": c.project(), "home": c.home(),
            "claude_managed_dir": c.root.path().join("managed"),
            "state_dir": c.root.path().join("state")}),
        );
        let r = s.answer();
        assert_eq!(r["result"]["dialects"], json!(["claude"]), "{r}");
        s
    }

    fn send(&mut self, id: i64, method: &str, params: Value) {
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let stdin = self.child.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{message}").expect("write");
        stdin.flush().expect("flush");
    }

    /// The next answer to a request, skipping notifications.
    fn answer(&self) -> Value {
        loop {
            let m = self
                .lines
                .recv_timeout(Duration::from_secs(30))
                .expect("an answer within 30 s");
            if m.get("id").is_some() {
                return m;
            }
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Forty dispatches at once (no session: nothing orders them), each with
/// one hook that denies after a second, under 64 open files: the hooks that
/// started hold the descriptors the others need until they end, longer
/// than the patience latch has for a starved hook when nothing of its own
/// runs. Each starved hook waits for a hook of another dispatch to end and
/// starts then, so every answer is the deny.
#[test]
fn concurrent_dispatches_starved_of_open_files_all_deny() {
    let c = Claude::new();
    let c = c.project_settings(&settings(
        "PreToolUse",
        Some("Bash"),
        &["sleep 1; echo no >&2; exit 2"],
    ));
    let mut s = Server::start(&c, 64);
    let mut event = bash_before("rm -rf /");
    event
        .as_object_mut()
        .expect("an object")
        .remove("session_id");
    let fires = 40;
    for id in 0..fires {
        s.send(100 + id, "fire", event.clone());
    }
    let mut lost = Vec::new();
    for _ in 0..fires {
        let r = s.answer();
        if r["result"]["decision"] != "deny" {
            lost.push(r);
        }
    }
    assert!(
        lost.is_empty(),
        "{} of {fires} answers are not the deny; the first: {}",
        lost.len(),
        lost[0]
    );
}
