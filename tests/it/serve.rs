//! `latch serve`: JSON-RPC over stdin/stdout against the real binary.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::claude_util::{Claude, bash_before, settings};
use crate::util::{process_is_dead, write_file};

/// A running `latch serve` and the lines it wrote.
pub(crate) struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<Value>,
}

impl Server {
    pub(crate) fn start(env: &[(&str, &str)]) -> Server {
        Server::start_in(Command::new(assert_cmd::cargo::cargo_bin("latch")), env)
    }

    /// Starts `latch serve` in the directory `dir`.
    pub(crate) fn start_in_dir(dir: &std::path::Path) -> Server {
        let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("latch"));
        cmd.current_dir(dir);
        Server::start_in(cmd, &[])
    }

    /// Starts `latch serve` under a hard limit of `n` open files, which
    /// it cannot raise.
    fn start_with_open_files(n: u32, env: &[(&str, &str)]) -> Server {
        let mut sh = Command::new("/bin/sh");
        sh.arg("-c")
            .arg(format!(r#"ulimit -n {n} && exec "$@""#))
            .arg("sh")
            .arg(assert_cmd::cargo::cargo_bin("latch"));
        Server::start_in(sh, env)
    }

    /// Starts `cmd`, which runs `latch` with the arguments that follow.
    pub(crate) fn start_in(mut cmd: Command, env: &[(&str, &str)]) -> Server {
        cmd.arg("serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .env_remove("LATCH_STATE_DIR")
            .env_remove("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("latch serve starts");
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
        Server {
            stdin: child.stdin.take(),
            child,
            lines,
        }
    }

    /// Starts a server initialized for the claude dialect in `c`'s tree.
    fn claude(c: &Claude) -> Server {
        Server::start(&[("HOOK_DIR", c.hook_dir().to_str().expect("utf-8"))]).for_claude(c)
    }

    /// Initializes the server for the claude dialect in `c`'s tree.
    fn for_claude(mut self, c: &Claude) -> Server {
        let s = &mut self;
        let r = s.request(
            1,
            "initialize",
            json!({"dialects": ["claude"], "project": c.project(), "home": c.home(),
                "claude_managed_dir": c.root.path().join("managed"),
                "state_dir": c.root.path().join("state")}),
        );
        assert_eq!(r["result"]["dialects"], json!(["claude"]), "{r}");
        self
    }

    /// A server for the peen dialect alone, with `root/project` as its
    /// project, and the answer to its `initialize`.
    fn peen(root: &Path) -> (Server, Value) {
        let mut s = Server::start(&[]);
        let r = s.request(
            1,
            "initialize",
            json!({"dialects": ["peen"], "project": root.join("project"), "home": root.join("home"),
                "peen_config_dir": root.join("peen"), "state_dir": root.join("state")}),
        );
        (s, r)
    }

    /// A server for the claude and peen dialects in `c`'s tree: peen's
    /// workspace is the event's working directory, so each directory's
    /// `.agents/hooks.yaml` is its own configuration.
    fn claude_and_peen(c: &Claude) -> Server {
        let mut s = Server::start(&[]);
        let r = s.request(
            1,
            "initialize",
            json!({"dialects": ["claude", "peen"], "project": c.project(), "home": c.home(),
                "claude_managed_dir": c.root.path().join("managed"),
                "peen_config_dir": c.root.path().join("peen"),
                "state_dir": c.root.path().join("state")}),
        );
        assert_eq!(r["result"]["dialects"], json!(["peen", "claude"]), "{r}");
        s
    }

    /// Initializes the server for the claude dialect in `c`'s tree, with
    /// the trust policy `require`.
    pub(crate) fn for_claude_trusting(mut self, c: &Claude) -> Server {
        let r = self.request(
            1000,
            "initialize",
            json!({"dialects": ["claude"], "project": c.project(), "home": c.home(),
                "claude_managed_dir": c.root.path().join("managed"),
                "state_dir": c.root.path().join("state"), "trust": ["require"]}),
        );
        assert_eq!(r["result"]["dialects"], json!(["claude"]), "{r}");
        self
    }

    fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).expect("write");
        stdin.write_all(b"\n").expect("write");
        stdin.flush().expect("flush");
    }

    pub(crate) fn send(&mut self, message: Value) {
        self.send_line(&message.to_string());
    }

    pub(crate) fn recv(&self) -> Value {
        self.lines
            .recv_timeout(Duration::from_secs(20))
            .expect("a message within 20 s")
    }

    /// The answer to request `id` and the next `latch/diagnostics`
    /// notification, in whichever order they come.
    fn answer_and_notice(&self, id: i64) -> (Value, Value) {
        let (mut answer, mut notice) = (None, None);
        loop {
            let m = self.recv();
            if m["id"] == id {
                answer = Some(m);
            } else if m["method"] == "latch/diagnostics" {
                notice = Some(m);
            }
            if let (Some(a), Some(n)) = (&answer, &notice) {
                return (a.clone(), n.clone());
            }
        }
    }

    /// The next message with this `method` (a notification), skipping
    /// others.
    fn notification(&self, method: &str) -> Value {
        loop {
            let m = self.recv();
            if m["method"] == method {
                return m;
            }
        }
    }

    /// Sends a request and returns its answer, skipping notifications
    /// (and any other message).
    pub(crate) fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let m = self.recv();
            if m["id"] == id {
                return m;
            }
        }
    }

    /// Waits well past the watcher's poll and settle times, then asserts
    /// that the next message is the answer to an `explain` sent now (id
    /// `id`): the server sent nothing meanwhile (`why` says what not).
    fn assert_quiet(&mut self, id: i64, why: &str) {
        std::thread::sleep(Duration::from_millis(1200));
        let r = self.exchange(id, "explain", bash_before("ls"));
        assert_eq!(r["id"], id, "{why}: {r}");
    }

    /// Sends a request and returns the next message, whatever it is.
    fn exchange(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.recv()
    }

    pub(crate) fn fire(&mut self, id: i64, event: Value) {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": "fire", "params": event}));
    }

    /// Closes stdin and waits for the exit code.
    pub(crate) fn close(mut self) -> i32 {
        drop(self.stdin.take());
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status.code().unwrap_or(-1);
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "serve did not exit"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An outcome without its timings, for comparing two runs.
pub(crate) fn untimed(mut outcome: Value) -> Value {
    if let Some(runs) = outcome["runs"].as_array_mut() {
        for r in runs {
            if let Some(r) = r.as_object_mut() {
                r.remove("duration_ms");
            }
        }
    }
    outcome
}

#[test]
fn fire_through_the_server_gives_latch_fire_s_outcome() {
    let c = Claude::new();
    let deny = c.hook("deny", "--exit 2 --stderr 'no rm'");
    let ctx = c.hook(
        "ctx",
        r#"--stdout '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "CTX"}}'"#,
    );
    let c = c.project_settings(&json!({"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": format!("case \"$(cat)\" in *rm*) {deny};; esac")}]}],
        "PostToolUse": [{"hooks": [{"type": "command", "command": ctx}]}]}}));
    let mut after = bash_before("ls");
    after["event"] = json!("tool_after");
    after["tool"]["output"] = json!({"stdout": "x"});
    let events = [
        bash_before("rm -rf /"),
        bash_before("ls"),
        after,
        json!({"event": "user_prompt", "session_id": "s2", "prompt": "hi"}),
        json!({"event": "stop", "session_id": "s3"}),
    ];
    let mut s = Server::claude(&c);
    for (i, e) in events.iter().enumerate() {
        let id = i64::try_from(i).expect("small") + 10;
        s.fire(id, e.clone());
        let served = s.recv();
        assert_eq!(served["id"], id);
        let fired = c.fire(e);
        assert_eq!(
            untimed(served["result"].clone()),
            untimed(fired.outcome),
            "event {e}"
        );
    }
    assert_eq!(s.close(), 0);
}

#[test]
fn bad_messages_get_errors_and_the_server_goes_on() {
    let c = Claude::new();
    let mut s = Server::start(&[("LATCH_MAX_EVENT_BYTES", "1000")]);
    // Before initialize.
    let r = s.request(1, "fire", json!({"event": "stop"}));
    assert_eq!(r["error"]["code"], -32002, "{r}");
    // An unknown method is that, initialized or not.
    let r = s.request(11, "nope", Value::Null);
    assert_eq!(r["error"]["code"], -32601, "{r}");
    // Blank lines get no answer: the next answer is the parse error's.
    s.send_line("");
    s.send_line(" \t ");
    s.send_line("this is not json");
    let r = s.recv();
    assert_eq!(r["error"]["code"], -32700, "{r}");
    assert_eq!(r["id"], Value::Null, "{r}");
    {
        let stdin = s.stdin.as_mut().expect("stdin open");
        stdin
            .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"\xff\"}\n")
            .expect("write");
        stdin.flush().expect("flush");
    }
    assert_eq!(
        s.recv()["error"]["code"],
        -32700,
        "bytes that are not UTF-8"
    );
    // In a member the envelope does not read, too: the request is not run.
    {
        let stdin = s.stdin.as_mut().expect("stdin open");
        stdin
            .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"nope\",\"meta\":\"\xff\"}\n")
            .expect("write");
        stdin.flush().expect("flush");
    }
    let r = s.recv();
    assert_eq!(r["error"]["code"], -32700, "{r}");
    assert_eq!(
        r["error"]["message"], "parse error: the line is not UTF-8 (at line 1 column 50)",
        "{r}"
    );
    // Over the limit (1000 bytes plus 1 MiB of envelope): not buffered.
    s.send_line(&format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"fire","params":{{"event":"stop","prompt":"{}"}}}}"#,
        "x".repeat(2 << 20)
    ));
    let r = s.recv();
    assert_eq!(r["error"]["code"], -32600, "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("over the limit")
    );
    assert_eq!(r["id"], 2, "the id is found in the message's head");
    let r = s.request(21, "shutdown", Value::Null);
    assert_eq!(r["error"]["code"], -32002, "{r}");
    let r = s.request(
        3,
        "initialize",
        json!({"dialects": ["claude"], "project": c.project(), "home": c.home(), "bogus": 1}),
    );
    assert_eq!(r["error"]["code"], -32602);
    assert!(
        r["error"]["message"].as_str().unwrap().contains("bogus"),
        "{r}"
    );
    let r = s.request(
        4,
        "initialize",
        json!({"dialects": ["claude"], "project": c.project(), "home": c.home()}),
    );
    assert!(r["result"].is_object(), "{r}");
    let r = s.request(5, "fire", json!({"event": "tool_before"}));
    assert_eq!(r["error"]["code"], -32602);
    assert!(
        r["error"]["message"].as_str().unwrap().contains("tool"),
        "{r}"
    );
    let r = s.request(6, "fire", json!({"event": "stop", "sesion_id": "x"}));
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("sesion_id"),
        "{r}"
    );
    // A value of the wrong type, however deep, is named by its path.
    for (id, event, field) in [
        (
            63,
            json!({"event": "stop", "session_id": 5}),
            "session_id: invalid type",
        ),
        (
            64,
            json!({"event": "tool_before", "tool": {"name": 5, "input": {}}}),
            "tool.name: invalid type",
        ),
        (
            65,
            json!({"event": "tool_batch", "tool_calls": [{"name": "a"}, {"name": "b", "duration_ms": "x"}]}),
            "tool_calls[1].duration_ms: invalid type",
        ),
        (
            66,
            json!({"event": "tool_batch", "tool_calls": [{"name": "a"}, {"input": {}}]}),
            "tool_calls[1]: missing field `name`",
        ),
    ] {
        let r = s.request(id, "fire", event);
        assert_eq!(r["error"]["code"], -32602, "{r}");
        assert!(
            r["error"]["message"].as_str().unwrap().contains(field),
            "{field}: {r}"
        );
    }
    // Over the event limit but within the line limit: refused as `latch
    // fire` refuses it.
    let r = s.request(
        61,
        "fire",
        json!({"event": "stop", "last_assistant_message": "y".repeat(2000)}),
    );
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("LATCH_MAX_EVENT_BYTES")
    );
    let r = s.request(62, "fire", json!([1]));
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("JSON object"),
        "{r}"
    );
    let r = s.request(7, "nope", Value::Null);
    assert_eq!(r["error"]["code"], -32601);
    // A notification sent as a request: said so, and not acted on.
    let r = s.request(71, "exit", Value::Null);
    assert_eq!(r["error"]["code"], -32600, "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("`exit` is a notification")),
        "{r}"
    );
    let r = s.request(8, "shutdown", Value::Null);
    assert_eq!(r["result"], Value::Null);
    let r = s.request(9, "fire", json!({"event": "stop"}));
    assert_eq!(r["error"]["code"], -32003);
    let r = s.request(10, "shutdown", Value::Null);
    assert_eq!(r["error"]["code"], -32003);
    s.send(json!({"jsonrpc": "2.0", "method": "exit"}));
    assert_eq!(s.close(), 0);
}

#[test]
fn one_session_runs_in_order_and_other_sessions_do_not_wait() {
    let c = Claude::new();
    let slow = "sleep 1";
    let c = c.project_settings(&settings("UserPromptSubmit", None, &[slow]));
    let mut s = Server::claude(&c);
    let prompt =
        |session: &str| json!({"event": "user_prompt", "session_id": session, "prompt": "p"});
    s.fire(1, prompt("a"));
    s.fire(2, prompt("a"));
    s.fire(3, json!({"event": "session_end", "session_id": "b"}));
    let order: Vec<i64> = (0..3)
        .map(|_| s.recv()["id"].as_i64().expect("an id"))
        .collect();
    // Session b has no hook for its event and answers at once; session
    // a's second event waits for its first.
    assert_eq!(order, [3, 1, 2]);
    assert_eq!(s.close(), 0);
}

/// A burst of first events of new sessions: each event runs its hook with
/// its own session, each session gets its own private directory, and a
/// session's second event, sent in the burst, still runs after its first.
#[test]
fn a_burst_of_new_sessions_each_runs_in_its_own_private_directory() {
    use std::os::unix::fs::PermissionsExt;
    let c = Claude::new();
    // The first event of session `twice` is the slowest: were its second
    // event not to wait for it, the second would be answered first.
    let hook = r#"p=$(cat); case "$p" in *'"first"'*) sleep 0.5;; esac; printf %s "$p" > "$HOOK_DIR/payload.$$""#;
    let c = c.project_settings(&settings("UserPromptSubmit", None, &[hook]));
    let mut s = Server::claude(&c);
    let prompt = |session: &str, prompt: &str| json!({"event": "user_prompt", "session_id": session, "prompt": prompt});
    let sessions: Vec<String> = (0..40).map(|i| format!("new-{i}")).collect();
    s.fire(100, prompt("twice", "first"));
    for (i, session) in (0..).zip(&sessions) {
        s.fire(200 + i, prompt(session, "p"));
    }
    s.fire(101, prompt("twice", "second"));
    let mut answered: Vec<i64> = (0..42)
        .map(|_| {
            let r = s.recv();
            assert!(r["result"].is_object(), "{r}");
            r["id"].as_i64().expect("an id")
        })
        .collect();
    let first = answered.iter().position(|&id| id == 100);
    let second = answered.iter().position(|&id| id == 101);
    assert!(first < second, "the second event ran first: {answered:?}");
    answered.sort_unstable();
    let expected: Vec<i64> = [100, 101].into_iter().chain(200..240).collect();
    assert_eq!(answered, expected);
    // One payload per event, each naming its own session.
    let mut seen: Vec<(String, String)> = std::fs::read_dir(c.hook_dir())
        .expect("read_dir")
        .filter_map(|e| {
            let e = e.ok()?;
            let name = e.file_name().into_string().ok()?;
            name.starts_with("payload.").then_some(())?;
            let p: Value = serde_json::from_slice(&std::fs::read(e.path()).ok()?).ok()?;
            Some((
                p["session_id"].as_str()?.to_owned(),
                p["prompt"].as_str()?.to_owned(),
            ))
        })
        .collect();
    seen.sort();
    let mut want: Vec<(String, String)> =
        sessions.iter().map(|s| (s.clone(), "p".into())).collect();
    want.push(("twice".into(), "first".into()));
    want.push(("twice".into(), "second".into()));
    want.sort();
    assert_eq!(seen, want);
    for session in sessions.iter().map(String::as_str).chain(["twice"]) {
        let dir = c.root.path().join("state/sessions").join(session);
        let meta =
            std::fs::symlink_metadata(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        assert!(meta.is_dir(), "{}", dir.display());
        assert_eq!(
            meta.permissions().mode() & 0o777,
            0o700,
            "{}",
            dir.display()
        );
    }
    assert_eq!(s.close(), 0);
}

#[test]
fn cancel_request_and_end_of_input_kill_the_hooks() {
    let c = Claude::new();
    let pids = c.hook_dir().join("pids");
    let hook = format!(
        "sleep 60 & echo $! >> {p}; echo $$ >> {p}; wait",
        p = pids.display()
    );
    let c = c.project_settings(&settings("PreToolUse", None, &[&hook]));
    let mut s = Server::claude(&c);
    s.fire(1, bash_before("ls"));
    let wait_pids = |n: usize| {
        let start = Instant::now();
        loop {
            let text = std::fs::read_to_string(&pids).unwrap_or_default();
            let list: Vec<i32> = text.lines().filter_map(|l| l.trim().parse().ok()).collect();
            if list.len() >= n {
                return list;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "the hook never started"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    let first = wait_pids(2);
    s.send(json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 1}}));
    let r = s.recv();
    assert_eq!(r["id"], 1);
    assert_eq!(r["result"]["runs"][0]["error"], "cancelled", "{r}");
    assert_eq!(r["result"]["runs"][0]["signal"], 15, "{r}");
    // The harness dies with a dispatch in flight: everything is killed.
    s.fire(2, bash_before("ls"));
    let all = wait_pids(4);
    assert_eq!(s.close(), 0);
    for pid in first.iter().chain(&all) {
        let start = Instant::now();
        while !process_is_dead(*pid) {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "{pid} outlived serve"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// A cancel that kills a hook still running after another hook blocked
/// the prompt says so, in the warning and in that hook's run; the block
/// stands.
#[test]
fn a_cancel_after_a_prompt_was_blocked_says_it_killed_the_hook_still_running() {
    let c = Claude::new();
    let blocked = c.hook_dir().join("blocked");
    let block = format!("echo no >&2; touch {}; exit 2", blocked.display());
    let c = c.project_settings(&json!({"hooks": {"UserPromptSubmit": [{"hooks": [
        {"type": "command", "command": block},
        {"type": "command", "command": "sleep 20"}]}]}}));
    let mut s = Server::claude(&c);
    s.fire(
        1,
        json!({"event": "user_prompt", "session_id": "s", "prompt": "hi"}),
    );
    wait_for_file(&blocked, "the blocking hook");
    // Let latch see the blocking hook's exit before the cancel comes.
    std::thread::sleep(Duration::from_millis(200));
    s.send(json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 1}}));
    let r = s.recv();
    assert_eq!(r["result"]["decision"], "deny", "{r}");
    let warnings = r["result"]["warnings"].to_string();
    assert!(warnings.contains("latch killed the running hook"), "{r}");
    let killed = &r["result"]["runs"][1];
    assert_eq!(killed["hook"], "sleep 20", "{r}");
    assert_eq!(killed["error"], "cancelled", "{r}");
    assert_eq!(killed["status"], "failed", "{r}");
    assert_eq!(killed["signal"], 15, "{r}");
    assert_eq!(s.close(), 0);
}

#[test]
fn explain_answers_what_latch_explain_prints() {
    let c = Claude::new();
    let c = c.project_settings(&json!({"hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "true"},
                {"type": "command", "command": "./guard.sh", "if": "Bash(git push:*)"}]},
            {"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "./fmt.sh", "timeout": 5}]}],
        "Stop": [{"matcher": "ignored", "hooks": [{"type": "command", "command": "./stop.sh", "async": true}]}],
        "Nope": []}}));
    let mut s = Server::claude(&c);
    let r = s.request(2, "explain", bash_before("ls"));
    let list = r["result"].as_array().expect("a list");
    assert_eq!(list[0]["runs"], true, "{r}");
    assert_eq!(list[0]["event"], "PreToolUse");
    // Whatever the event, the answer is what `latch explain --format json`
    // prints for the same configuration.
    let events = [
        bash_before("ls"),
        bash_before("git push origin main"),
        json!({"event": "tool_before", "session_id": "s1", "tool": {"name": "Write", "input": {"file_path": "a.txt", "content": "x"}}}),
        json!({"event": "stop", "session_id": "s1"}),
        json!({"event": "user_prompt", "session_id": "s1", "prompt": "hi"}),
    ];
    for (i, event) in events.iter().enumerate() {
        let served = s.request(
            i64::try_from(i).expect("small") + 3,
            "explain",
            event.clone(),
        );
        // `latch explain` keeps no state: every flag but `--state-dir`.
        let mut args = c.config_args();
        args.truncate(args.len() - 2);
        let out = crate::util::latch()
            .arg("explain")
            .args(args)
            .args(["--format", "json"])
            .write_stdin(serde_json::to_vec(event).expect("json"))
            .output()
            .expect("latch explain");
        let printed: Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert_eq!(served["result"], printed, "{event}");
    }
    assert_eq!(s.close(), 0);
}

/// A harness that connects stdin and stdout as Unix stream sockets (as
/// Node's `child_process` does) is served the same; the end of input ends
/// the server.
#[test]
fn stdin_and_stdout_may_be_unix_sockets() {
    use std::os::unix::net::UnixStream;
    let c = Claude::new().project_settings(&settings(
        "PreToolUse",
        Some("Bash"),
        &["echo no >&2; exit 2"],
    ));
    let (mut to_latch, latch_in) = UnixStream::pair().unwrap();
    let (from_latch, latch_out) = UnixStream::pair().unwrap();
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("latch"))
        .arg("serve")
        .stdin(std::os::fd::OwnedFd::from(latch_in))
        .stdout(std::os::fd::OwnedFd::from(latch_out))
        .stderr(Stdio::null())
        .env_remove("LATCH_STATE_DIR")
        .spawn()
        .unwrap();
    let pid = child.id();
    let fd0 = std::fs::read_link(format!("/proc/{pid}/fd/0")).unwrap();
    assert!(fd0.to_string_lossy().starts_with("socket:"), "{fd0:?}");
    let mut lines = BufReader::new(from_latch).lines();
    let mut call = |request: Value| {
        let mut line = request.to_string().into_bytes();
        line.push(b'\n');
        to_latch.write_all(&line).unwrap();
        let answer = lines.next().expect("an answer").expect("a line");
        serde_json::from_str::<Value>(&answer).unwrap()
    };
    let r = call(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"dialects": ["claude"], "project": c.project(), "home": c.home(),
            "claude_managed_dir": c.root.path().join("managed"),
            "state_dir": c.root.path().join("state")}}));
    assert!(r["result"].is_object(), "{r}");
    let r = call(json!({"jsonrpc": "2.0", "id": 2, "method": "fire", "params": bash_before("ls")}));
    assert_eq!(r["result"]["decision"], "deny", "{r}");
    to_latch.shutdown(std::net::Shutdown::Write).unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(0));
}

/// `initialize` refuses an `audit` or `trust` value `latch fire` refuses
/// on its command line, naming the key; the server then takes a good one.
#[test]
fn initialize_refuses_bad_audit_and_trust_values() {
    let mut s = Server::start(&[]);
    let r = s.request(1, "initialize", json!({"audit": "ful"}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert_eq!(
        r["error"]["message"],
        "invalid params: `audit`: `ful` is not an audit mode (off, runs, full)"
    );
    let r = s.request(2, "initialize", json!({"trust": ["claude=maybe"]}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("invalid params: `trust`: "),
        "{r}"
    );
    let r = s.request(
        3,
        "initialize",
        json!({"trust": ["claude=warn"], "audit": "off"}),
    );
    assert!(r["result"].is_object(), "{r}");
    assert_eq!(s.close(), 0);
}

/// A settings file that is a link (as dotfile managers make them): an
/// edit of its target is reloaded.
#[test]
fn an_edit_of_a_linked_settings_files_target_is_reloaded() {
    let c = Claude::new();
    let target = c.write(
        "dotfiles/settings.json",
        &settings("PreToolUse", Some("Bash"), &["true"]).to_string(),
    );
    let link = c.home().join(".claude/settings.json");
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let mut s = Server::claude(&c);
    let r = s.request(1, "fire", bash_before("ls"));
    assert_eq!(r["result"]["decision"], "proceed", "{r}");
    c.write(
        "dotfiles/settings.json",
        &settings("PreToolUse", Some("Bash"), &["echo no >&2; exit 2"]).to_string(),
    );
    reloaded_into_a_deny(s);
}

/// After an edit that gave the `Bash` call a deny: the reload is
/// announced, and the next call is denied.
fn reloaded_into_a_deny(mut s: Server) {
    let n = s.notification("latch/diagnostics");
    assert_eq!(n["params"]["reloaded"], true, "{n}");
    let r = s.request(2, "fire", bash_before("ls"));
    assert_eq!(r["result"]["decision"], "deny", "{r}");
    assert_eq!(s.close(), 0);
}

/// An edit that keeps the file's length and puts its modification time
/// back (as `cp -p` and `tar x` do) is reloaded: the watcher compares the
/// change time, which no one can set, too.
#[test]
fn an_edit_that_keeps_the_length_and_the_modification_time_is_reloaded() {
    let c = Claude::new().project_settings(&settings(
        "PreToolUse",
        Some("Bas_"),
        &["echo no >&2; exit 2"],
    ));
    let file = c.root.path().join("project/.claude/settings.json");
    let mut s = Server::claude(&c);
    let r = s.request(1, "fire", bash_before("ls"));
    assert_eq!(r["result"]["decision"], "proceed", "{r}");
    let before = std::fs::metadata(&file).unwrap();
    // The change time moves on the clock's tick, not on every write.
    std::thread::sleep(Duration::from_millis(50));
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replace("Bas_", "Bash")).unwrap();
    let times = std::fs::FileTimes::new().set_modified(before.modified().unwrap());
    let edited = std::fs::File::options().write(true).open(&file).unwrap();
    edited.set_times(times).unwrap();
    let after = std::fs::metadata(&file).unwrap();
    assert_eq!(
        (after.len(), after.modified().unwrap()),
        (before.len(), before.modified().unwrap())
    );
    reloaded_into_a_deny(s);
}

/// A file broken from the start has no good version to keep: a broken
/// edit keeps the version loaded before, and the notice says that one has
/// errors too.
#[test]
fn a_file_broken_from_the_start_is_not_called_good_when_kept() {
    let c = Claude::new();
    let file = c.write("project/.claude/settings.json", "{\"hooks\": ");
    let s = Server::claude(&c);
    c.write("project/.claude/settings.json", "{\"hooks\": [");
    let n = s.notification("latch/diagnostics");
    let file = file.display();
    assert_eq!(
        n["params"]["reason"],
        format!(
            "the version of {file} loaded before, which has errors too, is kept: the new one has errors"
        ),
        "{n}"
    );
    assert_eq!(n["params"]["kept"], json!([file.to_string()]), "{n}");
    assert_eq!(s.close(), 0);
}

/// A script a hook runs is not configuration: an edit applies to the next
/// run as it is. Kept in a watched directory, it changes nothing any
/// configuration read, so no notice comes.
#[test]
fn a_script_edited_in_a_watched_directory_applies_at_once_without_a_notice() {
    let c = Claude::new().project_settings(&settings(
        "PreToolUse",
        Some("Bash"),
        &[r#"sh "$CLAUDE_PROJECT_DIR/.claude/hooks/check.sh""#],
    ));
    c.write("project/.claude/hooks/check.sh", "exit 0\n");
    let mut s = Server::claude(&c);
    s.fire(1, bash_before("ls"));
    assert_eq!(s.recv()["result"]["decision"], "proceed");
    c.write("project/.claude/hooks/check.sh", "echo no >&2; exit 2\n");
    s.fire(2, bash_before("ls"));
    let r = s.recv();
    assert_eq!(r["result"]["decision"], "deny", "{r}");
    s.assert_quiet(3, "a script is not configuration");
    assert_eq!(s.close(), 0);
}

/// A change on disk that leaves every file a configuration read as it was
/// (a log in a watched directory, a broken file written again as it was)
/// reloads nothing the harness needs to hear of.
#[test]
fn a_change_that_leaves_the_configuration_as_it_was_sends_no_notice() {
    let (c, project_file) = guarded_project();
    let mut s = Server::claude(&c);
    c.write("project/.claude/notes.txt", "a log line\n");
    s.assert_quiet(1, "a file no dialect reads");
    // Kept at its last good text: said once, not again for each change
    // elsewhere, nor for the same broken text written again.
    c.write("project/.claude/settings.json", "{\"hooks\": ");
    let n = s.notification("latch/diagnostics");
    assert_eq!(n["params"]["kept"], json!([project_file]), "{n}");
    c.write("project/.claude/notes.txt", "another line\n");
    s.assert_quiet(2, "a log beside a kept file");
    c.write("project/.claude/settings.json", "{\"hooks\": ");
    s.assert_quiet(3, "the same broken text again");
    let r = s.request(4, "fire", bash_before("ls"));
    assert_eq!(r["result"]["decision"], "deny", "{r}");
    // Another broken text is news: its diagnostics name the new position.
    c.write("project/.claude/settings.json", "{\"hooks\": [");
    let n = s.notification("latch/diagnostics");
    assert_eq!(n["params"]["kept"], json!([project_file]), "{n}");
    assert!(n.to_string().contains("\"column\":11"), "{n}");
    assert_eq!(s.close(), 0);
}

/// A watched directory written into all the time (a plugin's log) holds
/// off no reload: an edit of the settings beside it is reloaded and
/// announced all the same, and the writes alone are not.
#[test]
fn a_directory_that_never_stops_changing_holds_off_no_reload() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let c = Claude::new().project_settings(&settings("PreToolUse", Some("Bash"), &["true"]));
    let mut s = Server::claude(&c);
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let log = c.root.path().join("project/.claude/plugin.log");
    let writer = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut n = 0u64;
            while !stop.load(Ordering::Relaxed) {
                n += 1;
                std::fs::write(&log, format!("line {n}\n")).expect("write the log");
                std::thread::sleep(Duration::from_millis(50));
            }
        })
    };
    // Past the longest wait for a change to settle, with writes all along.
    std::thread::sleep(Duration::from_millis(2600));
    s.assert_quiet(1, "writes that change no configuration");
    c.write(
        "project/.claude/settings.json",
        &settings("PreToolUse", Some("Bash"), &["echo no >&2; exit 2"]).to_string(),
    );
    let n = s.recv();
    stop.store(true, Ordering::Relaxed);
    writer.join().expect("the writer");
    assert_eq!(n["method"], "latch/diagnostics", "{n}");
    assert_eq!(n["params"]["reloaded"], true, "{n}");
    let r = s.request(2, "fire", bash_before("ls"));
    assert_eq!(r["result"]["decision"], "deny", "{r}");
    assert_eq!(s.close(), 0);
}

#[test]
fn configuration_edits_are_reloaded_and_a_broken_edit_keeps_that_files_last_good_version() {
    let c = Claude::new();
    let c = c.project_settings(&settings("PreToolUse", Some("Bash"), &["true"]));
    let project_file = c.root.path().join("project/.claude/settings.json");
    let local_file = c.root.path().join("project/.claude/settings.local.json");
    let mut s = Server::claude(&c);
    s.fire(1, bash_before("ls"));
    assert_eq!(s.recv()["result"]["decision"], "proceed");
    let c = c.project_settings(&settings(
        "PreToolUse",
        Some("Bash"),
        &["echo no >&2; exit 2"],
    ));
    let n = s.notification("latch/diagnostics");
    assert_eq!(n["params"]["reloaded"], true, "{n}");
    assert_eq!(n["params"]["kept"], json!([]), "{n}");
    s.fire(2, bash_before("ls"));
    assert_eq!(s.recv()["result"]["decision"], "deny");

    // A broken edit of the project settings: that file's last good
    // version (the deny) stays, and the harness is told why and where.
    c.write("project/.claude/settings.json", "{\"hooks\": ");
    let n = s.notification("latch/diagnostics");
    assert_eq!(n["params"]["reloaded"], true, "{n}");
    assert_eq!(n["params"]["kept"], json!([project_file]), "{n}");
    assert!(
        n["params"]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("last good version") && r.contains("settings.json")),
        "{n}"
    );
    let errors = n["params"]["diagnostics"].as_array().unwrap();
    assert!(
        errors.iter().any(|d| d["severity"] == "error"
            && d["file"] == json!(project_file)
            && d["line"] == 1),
        "{n}"
    );
    s.fire(3, bash_before("ls"));
    assert_eq!(s.recv()["result"]["decision"], "deny");

    // Another file's edit still applies while the broken one is kept.
    c.write(
        "project/.claude/settings.local.json",
        &settings("UserPromptSubmit", None, &["echo from-local"]).to_string(),
    );
    let n = s.notification("latch/diagnostics");
    assert_eq!(n["params"]["reloaded"], true, "{n}");
    assert_eq!(n["params"]["kept"], json!([project_file]), "{n}");
    s.fire(
        4,
        json!({"event": "user_prompt", "session_id": "s1", "prompt": "hi"}),
    );
    let r = s.recv();
    assert!(
        r["result"]["context"].to_string().contains("from-local"),
        "{r}"
    );
    s.fire(5, bash_before("ls"));
    assert_eq!(s.recv()["result"]["decision"], "deny");

    // A second broken file keeps its own last good version too, and a
    // file created broken is kept as it was: missing.
    c.write("project/.claude/settings.local.json", "[");
    let n = s.notification("latch/diagnostics");
    assert_eq!(
        n["params"]["kept"],
        json!([project_file, local_file]),
        "{n}"
    );
    let user_file = c.write(
        "home/.claude/settings.json",
        "{\"hooks\": {\"PreToolUse\": [{\"hooks\": [{\"type\": \"command\"}]}]}}",
    );
    let n = s.notification("latch/diagnostics");
    assert_eq!(
        n["params"]["kept"],
        json!([user_file, project_file, local_file]),
        "{n}"
    );
    s.fire(
        6,
        json!({"event": "user_prompt", "session_id": "s1", "prompt": "hi"}),
    );
    let r = s.recv();
    assert!(
        r["result"]["context"].to_string().contains("from-local"),
        "{r}"
    );

    // Fixed: everything on disk applies again.
    std::fs::remove_file(&local_file).unwrap();
    std::fs::remove_file(&user_file).unwrap();
    c.project_settings(&settings("PreToolUse", Some("Bash"), &["true"]));
    let n = s.notification("latch/diagnostics");
    assert_eq!(n["params"]["reloaded"], true, "{n}");
    assert_eq!(n["params"]["kept"], json!([]), "{n}");
    assert_eq!(n["params"]["reason"], json!(null), "{n}");
    s.fire(7, bash_before("ls"));
    assert_eq!(s.recv()["result"]["decision"], "proceed");
    assert_eq!(s.close(), 0);
}

#[test]
fn after_shutdown_a_cancel_still_stops_a_fire_and_a_queued_cancel_answers_at_once() {
    let c = Claude::new();
    let c = c.project_settings(&settings("PreToolUse", None, &["sleep 30"]));
    let mut s = Server::claude(&c);
    s.fire(1, bash_before("ls"));
    // The same session: queued behind the first.
    s.fire(2, bash_before("ls"));
    std::thread::sleep(Duration::from_millis(300));
    let started = Instant::now();
    s.send(json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 2}}));
    let r = s.recv();
    assert_eq!(r["id"], 2, "the queued fire answers first: {r}");
    assert_eq!(r["result"]["runs"], json!([]));
    s.send(json!({"jsonrpc": "2.0", "id": 3, "method": "shutdown"}));
    std::thread::sleep(Duration::from_millis(200));
    s.send(json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 1}}));
    let r = s.recv();
    assert_eq!(r["id"], 1, "{r}");
    assert_eq!(r["result"]["runs"][0]["error"], "cancelled", "{r}");
    assert_eq!(s.recv()["id"], 3, "shutdown answers once nothing runs");
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(s.close(), 0);
}

/// Every signal `latch fire` catches ends the server as the end of input
/// does: the fire in flight is cancelled and answered, its hook killed,
/// and the server exits 0. None leaves a hook running.
#[test]
fn a_signal_stops_the_hooks_and_the_server() {
    for signal in [
        "TERM",
        "USR1",
        "QUIT",
        "ALRM",
        &libc::SIGRTMIN().to_string(),
    ] {
        let c = Claude::new();
        let pids = c.hook_dir().join("pids");
        let hook = format!("echo $$ >> {}; sleep 30", pids.display());
        let c = c.project_settings(&settings("PreToolUse", None, &[&hook]));
        let mut s = Server::claude(&c);
        s.fire(1, bash_before("ls"));
        let pid = pid_in(&pids);
        Command::new("kill")
            .args([&format!("-{signal}"), &s.child.id().to_string()])
            .status()
            .expect("kill");
        let r = s.recv();
        assert_eq!(r["id"], 1, "SIG{signal}: {r}");
        assert_eq!(
            r["result"]["runs"][0]["error"], "cancelled",
            "SIG{signal}: {r}"
        );
        assert_eq!(s.close(), 0, "SIG{signal}");
        gone(pid, &format!("the hook outlived serve on SIG{signal}"));
    }
}

/// `(VmRSS in KiB, open descriptors, child processes)` of a process.
fn footprint(pid: u32) -> (u64, usize, usize) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let rss = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0);
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, Iterator::count);
    let children = std::fs::read_dir(format!("/proc/{pid}/task"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|t| std::fs::read_to_string(t.path().join("children")).unwrap_or_default())
        .map(|c| c.split_whitespace().count())
        .sum();
    (rss, fds, children)
}

#[test]
fn a_soak_of_many_fires_leaks_no_descriptor_process_or_memory() {
    // The endurance bench at a fifth of its size (`cargo bench --bench
    // serve` runs 10,000): counts only, no timing.
    let c = Claude::new();
    let c = c.project_settings(&json!({"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "cat > /dev/null"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "echo '{\"decision\": \"block\", \"reason\": \"again\"}'"}]}]}}));
    let mut s = Server::claude(&c);
    let pid = s.child.id();
    let fire = |s: &mut Server, i: i64| {
        let event = if i % 4 == 0 {
            json!({"event": "stop", "session_id": format!("s{}", i % 7)})
        } else {
            bash_before(&format!("echo {i}"))
        };
        s.fire(i, event);
        let r = s.recv();
        assert_eq!(r["id"], i, "{r}");
    };
    for i in 1..=200 {
        fire(&mut s, i);
    }
    let first = footprint(pid);
    for i in 201..=2000 {
        fire(&mut s, i);
    }
    let last = footprint(pid);
    assert_eq!(last.1, first.1, "open descriptors: {first:?} then {last:?}");
    assert_eq!(last.2, 0, "no hook process is left: {last:?}");
    assert!(
        last.0 <= first.0 + first.0 / 5,
        "RSS grew by more than 20 %: {first:?} then {last:?}"
    );
    assert_eq!(s.close(), 0);
}

/// What `pid`'s open descriptors lead to outside `dir`, sorted, and how
/// many lead into it; read until two reads 100 ms apart agree, so that a
/// descriptor open for an instant (the watcher reading a directory) is
/// not counted.
fn fds_outside(pid: u32, dir: &std::path::Path) -> (Vec<std::path::PathBuf>, usize) {
    let read = || {
        let mut targets: Vec<std::path::PathBuf> = std::fs::read_dir(format!("/proc/{pid}/fd"))
            .expect("the server's descriptors")
            .filter_map(|fd| std::fs::read_link(fd.ok()?.path()).ok())
            .collect();
        let inside = targets.iter().filter(|t| t.starts_with(dir)).count();
        targets.retain(|t| !t.starts_with(dir));
        targets.sort();
        (targets, inside)
    };
    let mut last = read();
    for _ in 0..50 {
        std::thread::sleep(Duration::from_millis(100));
        let now = read();
        if now == last {
            return now;
        }
        last = now;
    }
    last
}

/// Waits until `path` exists (a hook's sign that it started), or fails
/// after 20 s naming `what` did not happen.
fn wait_for_file(path: &std::path::Path, what: &str) {
    let start = Instant::now();
    while !path.exists() {
        assert!(start.elapsed() < Duration::from_secs(20), "{what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Waits until `pid` has no child process left (zombies included), or
/// fails after 10 s with what it has.
fn wait_for_no_children(pid: u32) {
    let start = Instant::now();
    loop {
        let now = footprint(pid);
        if now.2 == 0 {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "child processes are left (zombies count): {now:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_soak_of_cancels_errors_async_hooks_and_background_jobs_leaks_nothing() {
    // The paths the plain soak does not take, each many times: a hook
    // whose background job outlives it (and then ends: the server adopts
    // it and must reap it), an async hook, a cancelled fire, a line that
    // is no JSON, an invalid event, and more sessions than the server
    // keeps open at once.
    let c = Claude::new();
    let c = c.project_settings(&json!({"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
            "command": "(sleep 0.2 </dev/null >/dev/null 2>&1 &); cat > /dev/null; echo no >&2; exit 2"}]}],
        "PostToolUse": [{"hooks": [{"type": "command", "async": true,
            "command": "echo '{\"systemMessage\": \"later\"}'"}]}],
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "sleep 30"}]}]}}));
    let mut s = Server::claude(&c);
    let pid = s.child.id();
    let round = |s: &mut Server, i: i64| {
        let session = format!("s{}", i % 150);
        match i % 6 {
            0 => {
                s.send_line("{not json");
                let r = loop {
                    let m = s.recv();
                    if m.get("method").is_none() {
                        break m;
                    }
                };
                assert_eq!(r["error"]["code"], -32700, "{r}");
                return;
            }
            1 => s.fire(
                i,
                json!({"event": "user_prompt", "session_id": session, "prompt": "hi"}),
            ),
            2 => s.fire(
                i,
                json!({"event": "tool_after", "session_id": session,
                "tool": {"name": "Bash", "input": {"command": "ls"}, "output": "x"}}),
            ),
            3 => s.fire(
                i,
                json!({"event": "tool_before", "session_id": session, "tool": 5}),
            ),
            _ => s.fire(
                i,
                json!({"event": "tool_before", "session_id": session,
                "tool": {"name": "Bash", "input": {"command": format!("echo {i}")}}}),
            ),
        }
        if i % 6 == 1 {
            s.send(json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": i}}));
        }
        loop {
            let r = s.recv();
            if r["id"] == i {
                match i % 6 {
                    3 => assert_eq!(r["error"]["code"], -32602, "{r}"),
                    // The hook's own exit status, never one the reaper
                    // took: exit 2 denies.
                    4 | 5 => assert_eq!(r["result"]["decision"], "deny", "{r}"),
                    _ => {}
                }
                return;
            }
        }
    };
    // The warm-up goes through every session once, so that the cache of
    // open session directories is full before the first count.
    for i in 1..=300 {
        round(&mut s, i);
    }
    wait_for_no_children(pid);
    // As `/proc` names them: through no symbolic link.
    let sessions = std::fs::canonicalize(c.root.path().join("state/sessions"))
        .expect("the sessions' directory");
    let first = footprint(pid);
    let first_open = fds_outside(pid, &sessions);
    for i in 301..=900 {
        round(&mut s, i);
    }
    wait_for_no_children(pid);
    let last = footprint(pid);
    // The open sessions (at most 128, a directory and an audit log each)
    // come and go with the cache: counted apart, and bounded; every other
    // descriptor is counted exactly.
    let last_open = fds_outside(pid, &sessions);
    assert_eq!(
        last_open.0, first_open.0,
        "descriptors outside the sessions ({first:?} then {last:?})"
    );
    assert!(
        (1..=2 * 128).contains(&last_open.1),
        "descriptors of the sessions: {last_open:?}"
    );
    assert!(
        last.0 <= first.0 + first.0 / 5,
        "RSS grew by more than 20 %: {first:?} then {last:?}"
    );
    assert_eq!(s.close(), 0);
}

#[test]
fn ids_in_flight_are_unique_and_requests_after_shutdown_are_refused() {
    let c = Claude::new();
    let started = c.root.path().join("started");
    let hook = format!("touch '{}'; sleep 30", started.display());
    let c = c.project_settings(&settings("PreToolUse", None, &[&hook]));
    let mut s = Server::claude(&c);
    s.fire(7, bash_before("ls"));
    let mut other = bash_before("ls");
    other["session_id"] = json!("s2");
    s.fire(7, other);
    let r = s.recv();
    assert_eq!(r["error"]["code"], -32600, "{r}");
    // The first fire can still be cancelled, and its hook is killed.
    wait_for_file(&started, "the hook never started");
    s.send(json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 7}}));
    let r = s.recv();
    assert_eq!(r["result"]["runs"][0]["error"], "cancelled", "{r}");
    let r = s.request(8, "shutdown", Value::Null);
    assert_eq!(r["result"], Value::Null);
    let r = s.request(9, "initialize", json!({}));
    assert_eq!(r["error"]["code"], -32003, "{r}");
    let r = s.request(10, "nope", Value::Null);
    assert_eq!(r["error"]["code"], -32003, "{r}");
    assert_eq!(s.close(), 0);
}

#[test]
fn a_new_working_directory_reloads_nothing() {
    let c = Claude::new();
    let c = c.project_settings(&settings("PreToolUse", None, &["true"]));
    c.write("project/sub/.claude/settings.json", "{}");
    let mut s = Server::claude(&c);
    let mut e = bash_before("ls");
    e["cwd"] = json!(c.project().join("sub"));
    s.fire(2, e);
    assert_eq!(s.recv()["id"], 2);
    // Nothing changed on disk: no notice.
    s.assert_quiet(3, "no reload notification");
    assert_eq!(s.close(), 0);
}

/// Events in the project's directory and events with no working
/// directory share one configuration: an edit reloads it once, with one
/// notice.
#[test]
fn the_project_directory_and_no_directory_share_one_configuration() {
    let c = Claude::new();
    let c = c.project_settings(&settings("PreToolUse", None, &["true"]));
    let mut s = Server::claude(&c);
    let mut in_project = bash_before("ls");
    in_project["cwd"] = json!(c.project());
    s.fire(2, in_project.clone());
    assert_eq!(s.recv()["result"]["decision"], "proceed");
    s.fire(3, bash_before("ls"));
    assert_eq!(s.recv()["result"]["decision"], "proceed");
    let _c = c.project_settings(&settings("PreToolUse", None, &["exit 2"]));
    let n = s.notification("latch/diagnostics");
    assert_eq!(n["params"]["cwd"], Value::Null, "{n}");
    assert_eq!(n["params"]["reloaded"], true, "{n}");
    // A reload sends all its notices at once: a second one would come
    // before this answer.
    let r = s.exchange(4, "explain", bash_before("ls"));
    assert_eq!(r["id"], 4, "one notice only: {r}");
    s.fire(5, in_project);
    assert_eq!(s.recv()["result"]["decision"], "deny");
    assert_eq!(s.close(), 0);
}

/// The end of input cancels the fires in flight, but every request in
/// flight is still answered, a waiting `shutdown` last.
#[test]
fn at_the_end_of_input_every_request_in_flight_is_answered_shutdown_last() {
    let c = Claude::new();
    let c = c.project_settings(&settings("PreToolUse", None, &["sleep 30"]));
    let mut s = Server::claude(&c);
    s.fire(2, bash_before("ls"));
    s.send(json!({"jsonrpc": "2.0", "id": 3, "method": "trust/list"}));
    s.send(json!({"jsonrpc": "2.0", "id": 4, "method": "shutdown"}));
    drop(s.stdin.take());
    let mut answers = Vec::new();
    while answers.len() < 3 {
        let m = s.recv();
        if m.get("id").is_some() {
            answers.push(m);
        }
    }
    let fired = answers
        .iter()
        .find(|m| m["id"] == 2)
        .expect("fire answered");
    // Cancelled, whether its hook had started or not.
    assert!(
        fired["result"]["warnings"]
            .as_array()
            .is_some_and(|w| w.iter().any(|w| w
                .as_str()
                .is_some_and(|w| w.starts_with("dispatch cancelled")))),
        "{fired}"
    );
    let listed = answers
        .iter()
        .find(|m| m["id"] == 3)
        .expect("trust/list answered");
    assert!(listed["result"].is_array(), "{listed}");
    assert_eq!(answers[2]["id"], 4, "{answers:?}");
    assert_eq!(answers[2]["result"], Value::Null);
    assert_eq!(s.close(), 0);
}

#[test]
fn exit_does_not_wait_for_a_hanging_model_request() {
    // A model endpoint that accepts and never answers.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    let c = Claude::new().project_settings(&json!({"hooks": {"UserPromptSubmit": [{"hooks": [
        {"type": "prompt", "prompt": "Is this fine?", "timeout": 20}]}]}}));
    let base = format!("http://127.0.0.1:{port}/v1");
    let mut s = Server::start(&[
        ("LATCH_PROMPT_BASE_URL", base.as_str()),
        ("LATCH_PROMPT_MODEL", "m"),
    ]);
    let r = s.request(
        1,
        "initialize",
        json!({"dialects": ["claude"], "project": c.project(), "home": c.home(),
            "claude_managed_dir": c.root.path().join("managed"), "state_dir": c.root.path().join("state")}),
    );
    assert!(r["result"].is_object(), "{r}");
    s.fire(
        2,
        json!({"event": "user_prompt", "session_id": "s", "prompt": "hi"}),
    );
    std::thread::sleep(Duration::from_millis(500));
    let started = Instant::now();
    s.send(json!({"jsonrpc": "2.0", "method": "exit"}));
    assert_eq!(s.close(), 0);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "exit waited {:?} for the model request",
        started.elapsed()
    );
}

impl Server {
    /// Fires a `shell` call with request `id` and checks that it is denied.
    fn assert_shell_denied(&mut self, id: i64) {
        self.fire(
            id,
            json!({"event": "tool_before", "session_id": "s", "tool": {"name": "shell", "input": {"cmd": "ls"}}}),
        );
        let r = self.recv();
        assert_eq!(r["result"]["decision"], "deny", "{r}");
    }

    /// A server for the poolside dialect of `project` and `home`,
    /// initialized without diagnostics.
    fn poolside(
        root: &std::path::Path,
        project: &std::path::Path,
        home: &std::path::Path,
    ) -> Server {
        let mut s = Server::start(&[]);
        let r = s.request(
            1,
            "initialize",
            json!({"dialects": ["poolside"], "project": project, "home": home,
                "state_dir": root.join("state")}),
        );
        assert_eq!(r["result"]["diagnostics"], json!([]), "{r}");
        s
    }
}

/// A hooks file a plugin manifest names outside the plugin's directory is
/// watched too (it is among the dialect's `config_paths`).
#[test]
fn a_hooks_file_named_by_a_plugin_manifest_is_watched() {
    let root = tempfile::tempdir().unwrap();
    let plugin = root.path().join("plugin");
    write_file(
        &plugin,
        ".claude-plugin/plugin.json",
        r#"{"name": "p", "hooks": "../shared/hooks.json"}"#,
    );
    write_file(root.path(), "shared/hooks.json", r#"{"hooks": {}}"#);
    let mut s = Server::start(&[]);
    let r = s.request(
        1,
        "initialize",
        json!({"dialects": ["evener"], "project": root.path(), "home": "/nonexistent",
            "plugin_dirs": [plugin], "state_dir": root.path().join("state")}),
    );
    assert!(r["result"].is_object(), "{r}");
    write_file(
        root.path(),
        "shared/hooks.json",
        r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "echo no >&2; exit 2"}]}]}}"#,
    );
    let n = s.notification("latch/diagnostics");
    assert_eq!(n["params"]["reloaded"], true, "{n}");
    s.assert_shell_denied(2);
    assert_eq!(s.close(), 0);
}

/// A peen hooks file that denies every `runCommand` call, with the reason
/// `no`.
const PEEN_GUARD: &str = "version: 1\npreToolUse:\n  - name: no-rm\n    match: {tool: runCommand}\n    actions: [{name: block, type: deny, reason: no}]\n";

/// A claude server with the plugin `c/plugin`, whose manifest names the
/// hooks file `extra.json`; returns the server, the plugin's directory and
/// its manifest.
fn server_with_a_plugin(c: &Claude) -> (Server, PathBuf, PathBuf) {
    let plugin = c.root.path().join("plugin");
    let manifest = write_file(
        &plugin,
        ".claude-plugin/plugin.json",
        r#"{"name": "q", "hooks": "extra.json"}"#,
    );
    let mut s = Server::start(&[]);
    s.request(
        1,
        "initialize",
        json!({"dialects": ["claude"], "project": c.project(), "home": c.home(),
            "claude_managed_dir": c.root.path().join("managed"), "plugin_dirs": [plugin],
            "state_dir": c.root.path().join("state")}),
    );
    (s, plugin, manifest)
}

/// Writes a plugin's `extra.json` with a `Bash` guard that says `tag`.
fn plugin_guard(plugin: &Path, tag: &str) {
    write_file(
        plugin,
        "extra.json",
        &settings(
            "PreToolUse",
            Some("Bash"),
            &[&format!("echo {tag} >&2; exit 2")],
        )
        .to_string(),
    );
}

/// Breaks a plugin's manifest: it names no hooks file any more.
fn break_manifest(s: &Server, plugin: &Path, manifest: &Path) -> Value {
    write_file(
        plugin,
        ".claude-plugin/plugin.json",
        r#"{"name": "q", "hooks": "#,
    );
    let n = s.notification("latch/diagnostics");
    assert_eq!(n["params"]["kept"], json!([manifest]), "{n}");
    n
}

/// A broken plugin manifest keeps its last good text, which names a
/// hooks file the broken one does not: that file is read again at each
/// reload, so a log beside it sends nothing and its edit applies.
#[test]
fn a_file_only_a_kept_text_names_is_compared_too() {
    let c = Claude::new();
    plugin_guard(&c.root.path().join("plugin"), "guard");
    let (mut s, plugin, manifest) = server_with_a_plugin(&c);
    let n = break_manifest(&s, &plugin, &manifest);
    // Where the manifest breaks.
    let d = &n["params"]["diagnostics"][0];
    assert_eq!(
        (&d["file"], &d["line"]),
        (&json!(manifest), &json!(1)),
        "{n}"
    );
    assert!(d["column"].as_u64().is_some_and(|c| c > 20), "{n}");
    write_file(&plugin, "log.txt", "a line\n");
    s.assert_quiet(2, "a log beside the kept manifest");
    plugin_guard(&plugin, "guard2");
    let n = s.notification("latch/diagnostics");
    assert_eq!(n["params"]["kept"], json!([manifest]), "{n}");
    let r = s.request(3, "fire", bash_before("ls"));
    assert_eq!(r["result"]["decision"], "deny", "{r}");
    assert!(r.to_string().contains("guard2"), "{r}");
    assert_eq!(s.close(), 0);
}

/// The hooks file a kept manifest names was missing: its creation is a
/// change too.
#[test]
fn a_file_a_kept_text_names_and_did_not_find_is_watched_for() {
    let c = Claude::new();
    let (mut s, plugin, manifest) = server_with_a_plugin(&c);
    break_manifest(&s, &plugin, &manifest);
    plugin_guard(&plugin, "made");
    let n = s.notification("latch/diagnostics");
    assert_eq!(n["params"]["kept"], json!([manifest]), "{n}");
    let r = s.request(2, "fire", bash_before("ls"));
    assert!(r.to_string().contains("made"), "{r}");
    assert_eq!(s.close(), 0);
}

/// With the manifest broken, its hooks file breaks too: the configuration
/// loaded before is kept whole, and the notice names the hooks file and
/// its error. Once the hooks file is fixed, that applies.
#[test]
fn a_configuration_kept_whole_for_a_file_a_kept_text_names_follows_that_file() {
    let c = Claude::new();
    plugin_guard(&c.root.path().join("plugin"), "guard");
    let (mut s, plugin, manifest) = server_with_a_plugin(&c);
    break_manifest(&s, &plugin, &manifest);
    let extra = write_file(&plugin, "extra.json", "{");
    let n = s.notification("latch/diagnostics");
    assert_eq!(n["params"]["reloaded"], false, "{n}");
    assert!(
        n["params"]["reason"]
            .as_str()
            .is_some_and(|r| r.contains(extra.to_str().unwrap())),
        "{n}"
    );
    assert!(
        n["params"]["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["file"] == json!(extra) && d["line"] == 1),
        "{n}"
    );
    write_file(&plugin, "extra.json", r#"{"hooks": {}}"#);
    let n = s.notification("latch/diagnostics");
    assert_eq!(n["params"]["reloaded"], true, "{n}");
    let r = s.request(2, "fire", bash_before("ls"));
    assert_eq!(r["result"]["decision"], "proceed", "{r}");
    assert_eq!(s.close(), 0);
}

/// The user's poolside file is `~/.config/poolside/settings.yaml`; an edit
/// of it alone reloads.
#[test]
fn an_edit_of_the_user_s_poolside_settings_alone_reloads() {
    let root = tempfile::tempdir().unwrap();
    let project = root.path().join("project");
    let home = root.path().join("home");
    std::fs::create_dir_all(&project).unwrap();
    write_file(&home, ".config/poolside/settings.yaml", "hooks: {}\n");
    let mut s = Server::poolside(root.path(), &project, &home);
    write_file(
        &home,
        ".config/poolside/settings.yaml",
        "hooks:\n  PreToolUse:\n    - {name: mine, matcher: shell, command: 'echo no >&2; exit 2'}\n",
    );
    let n = s.notification("latch/diagnostics");
    assert_eq!(n["params"]["reloaded"], true, "{n}");
    s.assert_shell_denied(2);
    assert_eq!(s.close(), 0);
}

#[test]
fn a_broken_poolside_file_keeps_its_last_good_version_while_the_other_reloads() {
    let root = tempfile::tempdir().unwrap();
    let project = root.path().join("project");
    let home = root.path().join("home");
    let project_file = write_file(
        &project,
        ".poolside/settings.yaml",
        "hooks:\n  PreToolUse:\n    - {name: guard, matcher: shell, command: 'echo no >&2; exit 2'}\n",
    );
    write_file(&home, ".config/poolside/settings.yaml", "hooks: {}\n");
    let mut s = Server::poolside(root.path(), &project, &home);
    let shell = json!({"event": "tool_before", "session_id": "s", "tool": {"name": "shell", "input": {"cmd": "ls"}}});
    // The project file breaks and the user's file gains a hook: the
    // project's guard stays, the user's hook joins it.
    write_file(
        &project,
        ".poolside/settings.yaml",
        "hooks:\n  PreToolUse: [\n",
    );
    write_file(
        &home,
        ".config/poolside/settings.yaml",
        "hooks:\n  PostToolUse:\n    - {name: mine, matcher: shell, command: 'echo {}'}\n",
    );
    let n = s.notification("latch/diagnostics");
    assert_eq!(n["params"]["reloaded"], true, "{n}");
    assert_eq!(n["params"]["kept"], json!([project_file]), "{n}");
    s.fire(2, shell);
    let r = s.recv();
    assert_eq!(r["result"]["decision"], "deny", "{r}");
    assert_eq!(r["result"]["runs"][0]["hook"], "guard", "{r}");
    s.fire(
        3,
        json!({"event": "tool_after", "session_id": "s",
            "tool": {"name": "shell", "input": {"cmd": "ls"}, "output": "x"}}),
    );
    let r = s.recv();
    assert_eq!(r["result"]["runs"][0]["hook"], "mine", "{r}");
    assert_eq!(s.close(), 0);
}

/// Peen skips a broken hooks file with only a warning; a reload still
/// keeps its last good text, or the guard would be gone.
#[test]
fn a_broken_peen_file_keeps_its_last_good_version() {
    let root = tempfile::tempdir().unwrap();
    let project = root.path().join("project");
    let file = write_file(&project, ".agents/hooks.yaml", PEEN_GUARD);
    let (mut s, r) = Server::peen(root.path());
    assert_eq!(r["result"]["diagnostics"], json!([]), "{r}");
    let rm = json!({"event": "tool_before", "session_id": "s",
        "tool": {"name": "runCommand", "input": {"command": "rm -rf /"}}});
    s.fire(2, rm.clone());
    assert_eq!(s.recv()["result"]["decision"], "deny");
    write_file(
        &project,
        ".agents/hooks.yaml",
        "version: 1\npreToolUse:\n  - name: a\n    actions: [\n",
    );
    let n = s.notification("latch/diagnostics");
    assert_eq!(n["params"]["reloaded"], true, "{n}");
    assert_eq!(n["params"]["kept"], json!([file]), "{n}");
    assert!(
        n["params"]["diagnostics"][0]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("harness.warning: hooks file skipped")),
        "{n}"
    );
    s.fire(3, rm.clone());
    let r = s.recv();
    assert_eq!(
        r["result"]["decision"], "deny",
        "the guard was dropped: {r}"
    );
    // Fixed: the file on disk is used again.
    write_file(
        &project,
        ".agents/hooks.yaml",
        &PEEN_GUARD.replace("reason: no", "reason: fixed"),
    );
    let n = s.notification("latch/diagnostics");
    assert_eq!(n["params"]["kept"], json!([]), "{n}");
    s.fire(4, rm);
    let r = s.recv();
    assert_eq!(r["result"]["reasons"][0]["text"], "fixed", "{r}");
    assert_eq!(s.close(), 0);
}

/// An event from a directory that does not exist yet loads with the
/// project as its peen workspace (the project's hooks apply); once the
/// directory is made, even empty, it is the workspace, as `latch fire`
/// would take it: its creation reloads that configuration.
#[test]
fn a_working_directory_made_after_its_first_event_becomes_its_workspace() {
    let root = tempfile::tempdir().unwrap();
    let project = root.path().join("project");
    write_file(&project, ".agents/hooks.yaml", PEEN_GUARD);
    let (mut s, r) = Server::peen(root.path());
    assert_eq!(r["result"]["diagnostics"], json!([]), "{r}");
    let later = project.join("later");
    let rm = json!({"event": "tool_before", "session_id": "s", "cwd": later,
        "tool": {"name": "runCommand", "input": {"command": "rm -rf /"}}});
    s.fire(2, rm.clone());
    assert_eq!(
        s.recv()["result"]["decision"],
        "deny",
        "the project's hooks"
    );
    std::fs::create_dir(&later).unwrap();
    let n = s.notification("latch/diagnostics");
    assert_eq!(n["params"]["cwd"], json!(later), "{n}");
    s.fire(3, rm);
    assert_eq!(
        s.recv()["result"]["decision"],
        "proceed",
        "its own workspace, which has no hooks"
    );
    assert_eq!(s.close(), 0);
}

/// A working directory made, then removed, and gone when its
/// configuration reloads, is waited for again: made anew, it is the
/// workspace again.
#[test]
fn a_working_directory_made_again_is_the_workspace_again() {
    let root = tempfile::tempdir().unwrap();
    let project = root.path().join("project");
    write_file(&project, ".agents/hooks.yaml", PEEN_GUARD);
    let (mut s, _) = Server::peen(root.path());
    let later = project.join("later");
    let rm = json!({"event": "tool_before", "session_id": "s", "cwd": later,
        "tool": {"name": "runCommand", "input": {"command": "rm -rf /"}}});
    let notice_for = |s: &Server, cwd: &std::path::Path| loop {
        let n = s.notification("latch/diagnostics");
        if n["params"]["cwd"] == json!(cwd) {
            return n;
        }
    };
    let decision =
        |s: &mut Server, id: i64| s.request(id, "fire", rm.clone())["result"]["decision"].clone();
    assert_eq!(decision(&mut s, 2), "deny");
    std::fs::create_dir(&later).unwrap();
    notice_for(&s, &later);
    assert_eq!(decision(&mut s, 3), "proceed");
    // Gone again when the project's hooks change: reloaded, it waits for
    // the directory once more.
    std::fs::remove_dir(&later).unwrap();
    write_file(
        &project,
        ".agents/hooks.yaml",
        &PEEN_GUARD.replace("reason: no", "reason: again"),
    );
    notice_for(&s, &later);
    assert_eq!(decision(&mut s, 4), "deny");
    std::fs::create_dir(&later).unwrap();
    notice_for(&s, &later);
    assert_eq!(
        decision(&mut s, 5),
        "proceed",
        "made again: its own workspace"
    );
    assert_eq!(s.close(), 0);
}

/// A trust store that cannot be used: `-32603` with the reason where the
/// request needs it; `trust/list` with no store to read shows each hook
/// `new`, as `latch trust` does.
#[test]
fn a_trust_store_that_cannot_be_used_is_an_internal_error_naming_why() {
    let c = Claude::new().project_settings(&settings("PreToolUse", Some("Bash"), &["true"]));
    // A state directory that is a file: nothing can be written under it.
    let state = c.root.path().join("state-file");
    std::fs::write(&state, "not a directory").expect("write");
    let mut s = Server::start(&[]);
    let r = s.request(
        1,
        "initialize",
        json!({"dialects": ["claude"], "project": c.project(), "home": c.home(),
            "claude_managed_dir": c.root.path().join("managed"), "state_dir": state}),
    );
    assert!(r["result"].is_object(), "{r}");
    let r = s.request(2, "trust/list", Value::Null);
    assert_eq!(r["result"][0]["trust"]["state"], "new", "{r}");
    for (id, method) in [(3, "trust/approve"), (4, "trust/revoke")] {
        let r = s.request(id, method, json!({"all": true}));
        assert_internal_error_naming(&r, "state-file", method);
    }
    assert_eq!(s.close(), 0);

    // A store that is not one: every request that reads it says so.
    let state = c.root.path().join("state");
    std::fs::create_dir_all(state.join("trust")).expect("mkdir");
    std::fs::write(state.join("trust/state.json"), "{").expect("write");
    let mut s = Server::start(&[]).for_claude(&c);
    for (id, method, params) in [
        (2, "trust/list", Value::Null),
        (3, "trust/approve", json!({"all": true})),
        (4, "trust/revoke", json!({"all": true})),
    ] {
        let r = s.request(id, method, params);
        assert_internal_error_naming(&r, "is not a latch trust store", method);
    }
    assert_eq!(s.close(), 0);
}

/// With no state directory at all (no `state_dir`, and none of
/// `$LATCH_STATE_DIR`, `$XDG_STATE_HOME` or `$HOME`), a session's fire and
/// every `trust/…` request are `-32603`, saying how to set one; a fire
/// without a session runs its hooks.
#[test]
fn with_no_state_directory_a_sessions_fire_and_trust_requests_say_how_to_set_one() {
    let c = Claude::new().project_settings(&settings("PreToolUse", Some("Bash"), &["true"]));
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("latch"));
    cmd.env_remove("HOME").env_remove("XDG_STATE_HOME");
    let mut s = Server::start_in(cmd, &[]);
    let r = s.request(
        1,
        "initialize",
        json!({"dialects": ["claude"], "project": c.project(), "home": c.home(),
            "claude_managed_dir": c.root.path().join("managed")}),
    );
    assert!(r["result"].is_object(), "{r}");
    let how = "no state directory: set `state_dir` in `initialize`, or $LATCH_STATE_DIR, $XDG_STATE_HOME or $HOME";
    let r = s.request(2, "fire", bash_before("ls"));
    assert_internal_error_naming(&r, how, "fire");
    let mut sessionless = bash_before("ls");
    sessionless
        .as_object_mut()
        .expect("an object")
        .remove("session_id");
    let r = s.request(3, "fire", sessionless);
    assert_eq!(r["result"]["runs"][0]["exit_code"], 0, "{r}");
    for (id, method, params) in [
        (4, "trust/list", Value::Null),
        (5, "trust/approve", json!({"all": true})),
        (6, "trust/revoke", json!({"all": true})),
    ] {
        let r = s.request(id, method, params);
        assert_internal_error_naming(&r, how, method);
    }
    assert_eq!(s.close(), 0);
}

/// `r` is a `-32603` whose message contains `why`.
fn assert_internal_error_naming(r: &Value, why: &str, method: &str) {
    assert_eq!(r["error"]["code"], -32603, "{method}: {r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains(why)),
        "{method}: {r}"
    );
}

#[test]
fn a_trust_policy_in_initialize_holds_back_unapproved_hooks_until_approved() {
    let c = Claude::new().project_settings(&settings(
        "PreToolUse",
        Some("Bash"),
        &["echo no >&2; exit 2"],
    ));
    let state = c.root.path().join("state");
    let mut s = Server::start(&[]);
    let r = s.request(
        1,
        "initialize",
        json!({"dialects": ["claude"], "project": c.project(), "home": c.home(),
            "claude_managed_dir": c.root.path().join("managed"),
            "state_dir": state, "trust": ["require"]}),
    );
    assert!(r["result"].is_object(), "{r}");
    s.fire(2, bash_before("ls"));
    let r = s.recv();
    assert_eq!(r["result"]["decision"], "proceed", "{r}");
    assert_eq!(r["result"]["runs"][0]["status"], "untrusted", "{r}");
    // Approved from the command line: the server sees the store change.
    let out = crate::util::latch()
        .args([
            "trust",
            "approve",
            "--all",
            "--dialect",
            "claude",
            "--project",
        ])
        .arg(c.project())
        .arg("--home")
        .arg(c.home())
        .arg("--claude-managed-dir")
        .arg(c.root.path().join("managed"))
        .arg("--state-dir")
        .arg(&state)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let n = s.notification("latch/diagnostics");
    assert_eq!(n["params"]["reloaded"], true, "{n}");
    s.fire(3, bash_before("ls"));
    assert_eq!(s.recv()["result"]["decision"], "deny");
    assert_eq!(s.close(), 0);
}

#[test]
fn trust_methods_list_approve_and_revoke_the_projects_hooks() {
    let c = Claude::new()
        .project_settings(&settings(
            "PreToolUse",
            Some("Bash"),
            &["echo no >&2; exit 2"],
        ))
        .user_settings(&settings("Stop", None, &["true"]));
    let mut s = Server::start(&[]);
    let r = s.request(
        1,
        "initialize",
        json!({"dialects": ["claude"], "project": c.project(), "home": c.home(),
            "claude_managed_dir": c.root.path().join("managed"),
            "state_dir": c.root.path().join("state"), "trust": ["require"]}),
    );
    assert!(r["result"].is_object(), "{r}");
    let r = s.request(2, "trust/list", json!(null));
    let listed = r["result"].as_array().expect("a list");
    assert_eq!(listed.len(), 2, "{r}");
    let project = listed.iter().find(|h| h["event"] == "PreToolUse").unwrap();
    assert_eq!(project["needs_approval"], true);
    assert_eq!(project["trust"], json!({"state": "new"}));
    assert_eq!(
        project["runs"],
        json!({"kind": "command", "command": "echo no >&2; exit 2"})
    );
    let user = listed.iter().find(|h| h["event"] == "Stop").unwrap();
    assert_eq!(user["trust"], json!({"state": "not_required"}));

    let r = s.request(3, "trust/approve", json!({"hooks": ["nope"]}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let r = s.request(4, "trust/approve", json!({}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let r = s.request(5, "trust/approve", json!({"all": true}));
    assert_eq!(r["result"]["approved"][0]["event"], "PreToolUse", "{r}");
    assert_eq!(r["result"]["approved"].as_array().unwrap().len(), 1, "{r}");
    let r = s.request(6, "fire", bash_before("ls"));
    assert_eq!(r["result"]["decision"], "deny", "{r}");

    let hook = project["hook"].as_str().unwrap();
    s.send(
        json!({"jsonrpc": "2.0", "id": 7, "method": "trust/revoke", "params": {"hooks": [hook]}}),
    );
    // The reload it made is announced before the answer.
    let n = s.recv();
    assert_eq!(n["method"], "latch/diagnostics", "{n}");
    let r = s.recv();
    assert_eq!(r["result"]["revoked"][0]["hook"], hook, "{r}");
    // The very next event, with no wait for the watcher, as `latch fire`
    // would read the store.
    let r = s.request(8, "fire", bash_before("ls"));
    assert_eq!(r["result"]["runs"][0]["status"], "untrusted", "{r}");
    let r = s.request(9, "trust/approve", json!({"all": true}));
    assert_eq!(r["result"]["approved"].as_array().unwrap().len(), 1, "{r}");
    let r = s.request(10, "fire", bash_before("ls"));
    assert_eq!(r["result"]["decision"], "deny", "{r}");
    assert_eq!(s.close(), 0);
}

/// A response's id is the request's id as written: `1E2` is not `100.0`,
/// and a number past 64 bits is not rounded (JSON-RPC asks for the same
/// id). Read as raw lines: a JSON reader would hide the difference.
#[test]
fn ids_are_echoed_exactly_as_written() {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("latch"))
        .arg("serve")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("latch serve starts");
    let ids = ["1E2", "99999999999999999999999", "-0", "\"a\""];
    {
        let mut stdin = child.stdin.take().expect("stdin");
        for id in ids {
            writeln!(stdin, r#"{{"jsonrpc":"2.0","id":{id},"method":"nope"}}"#).expect("write");
        }
    }
    let out = child.wait_with_output().expect("serve ends");
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), ids.len(), "{text}");
    for (line, id) in lines.iter().zip(ids) {
        assert!(
            line.starts_with(&format!(r#"{{"jsonrpc":"2.0","id":{id},"error":"#)),
            "{line}"
        );
    }
}

/// A cancel finds its request by the id as written: a number by its text
/// (`1E2`), a string by its value (`"\u0061"` is `"a"`, so a second fire
/// with it while `"a"` runs is refused).
#[test]
fn cancels_and_duplicates_match_ids_as_json_readers_do() {
    let c = Claude::new();
    // Each run of the hook leaves a file, so each cancel is sent once its
    // hook runs (a cancel before would start no hook: another answer).
    let runs = c.root.path().join("runs");
    std::fs::create_dir_all(&runs).expect("dir");
    let hook = format!("mktemp -p '{}' >/dev/null; sleep 60", runs.display());
    let c = c.project_settings(&settings("PreToolUse", None, &[&hook]));
    let mut s = Server::claude(&c);
    let event = bash_before("ls").to_string();
    s.send_line(&format!(
        r#"{{"jsonrpc":"2.0","id":1E2,"method":"fire","params":{event}}}"#
    ));
    s.send_line(&format!(
        r#"{{"jsonrpc":"2.0","id":"a","method":"fire","params":{event}}}"#
    ));
    s.send_line(&format!(
        r#"{{"jsonrpc":"2.0","id":"\u0061","method":"fire","params":{event}}}"#
    ));
    let refused = s.recv();
    assert_eq!(refused["id"], "a", "{refused}");
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    // One session: `"a"` runs once `1E2` is answered.
    let hooks_run = |n: usize| {
        let start = Instant::now();
        while std::fs::read_dir(&runs).map_or(0, Iterator::count) < n {
            assert!(start.elapsed() < Duration::from_secs(20), "hook {n} runs");
            std::thread::sleep(Duration::from_millis(5));
        }
    };
    hooks_run(1);
    s.send_line(r#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1E2}}"#);
    let r = s.recv();
    assert_eq!(r["id"], json!(100.0), "{r}");
    assert_eq!(r["result"]["runs"][0]["error"], "cancelled", "{r}");
    hooks_run(2);
    s.send_line(r#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"\u0061"}}"#);
    let r = s.recv();
    assert_eq!(r["id"], "a", "{r}");
    assert_eq!(r["result"]["runs"][0]["error"], "cancelled", "{r}");
    assert_eq!(s.close(), 0);
}

#[test]
fn one_sessions_timeout_does_not_kill_what_another_sessions_hook_left_running() {
    let c = Claude::new();
    // `guard` exits at once; its background job answers with a deny later,
    // through the stdout it still holds. `slow` times out meanwhile, in
    // another session, and its kill must leave the job alone.
    let guard = "cat >/dev/null; (sleep 1.5; echo '{\"decision\":\"block\",\"reason\":\"guard says no\"}') &";
    let c = c.project_settings(&json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": guard}]},
        {"matcher": "Slow", "hooks": [{"type": "command", "command": "sleep 10", "timeout": 1}]}]}}));
    let mut s = Server::claude(&c);
    s.fire(
        2,
        json!({"event": "tool_before", "session_id": "b",
            "tool": {"name": "Slow", "input": {}}}),
    );
    std::thread::sleep(Duration::from_millis(300));
    let mut guarded = bash_before("ls");
    guarded["session_id"] = json!("a");
    s.fire(3, guarded);
    let mut answers = [s.recv(), s.recv()];
    answers.sort_by_key(|r| r["id"].as_i64());
    assert_eq!(
        answers[0]["result"]["runs"][0]["error"], "timeout",
        "{}",
        answers[0]
    );
    assert_eq!(answers[1]["result"]["decision"], "deny", "{}", answers[1]);
    assert_eq!(s.close(), 0);
}

#[test]
fn the_end_of_input_kills_what_finished_hooks_left_in_the_background() {
    let c = Claude::new();
    let pids = c.hook_dir().join("pids");
    // One job stays in the hook's group, one leaves it with `setsid`; both
    // let go of the hook's pipes, so the fire ends while they run.
    let hook = format!(
        "cat >/dev/null; sleep 60 >/dev/null 2>&1 & echo $! >> {p}; setsid sh -c 'echo $$ >> {p}; exec sleep 60' >/dev/null 2>&1 &",
        p = pids.display()
    );
    let c = c.project_settings(&settings("PreToolUse", None, &[&hook]));
    let mut s = Server::claude(&c);
    let r = s.request(2, "fire", bash_before("ls"));
    assert_eq!(r["result"]["runs"][0]["status"], "ok", "{r}");
    let start = Instant::now();
    let left: Vec<i32> = loop {
        let text = std::fs::read_to_string(&pids).unwrap_or_default();
        let list: Vec<i32> = text.lines().filter_map(|l| l.trim().parse().ok()).collect();
        if list.len() >= 2 {
            break list;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "no background job started"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(
        left.iter().all(|p| !process_is_dead(*p)),
        "the jobs outlive the fire"
    );
    assert_eq!(s.close(), 0);
    for pid in left {
        gone(pid, &format!("{pid} outlived serve"));
    }
}

#[test]
fn a_broken_edit_is_kept_for_configurations_loaded_later_too() {
    let (c, project_file) = guarded_project();
    let mut s = Server::claude(&c);
    s.fire(1, bash_before("ls"));
    assert_eq!(s.recv()["result"]["decision"], "deny");
    c.write("project/.claude/settings.json", "{\"hooks\": ");
    let n = s.notification("latch/diagnostics");
    assert_eq!(n["params"]["kept"], json!([project_file]), "{n}");
    assert_eq!(n["params"]["first_load"], false, "{n}");
    // An event from a directory not loaded before loads a configuration
    // afresh: with the kept version, and the harness is told.
    let sub = c.project().join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    let mut elsewhere = bash_before("ls");
    elsewhere["cwd"] = json!(sub);
    s.fire(2, elsewhere);
    let (answer, notice) = s.answer_and_notice(2);
    assert_eq!(answer["result"]["decision"], "deny", "{answer}");
    assert_eq!(notice["params"]["kept"], json!([project_file]), "{notice}");
    assert_eq!(notice["params"]["first_load"], true, "{notice}");
    assert_eq!(notice["params"]["cwd"], json!(sub), "{notice}");
    assert!(
        notice["params"]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("last good version")),
        "{notice}"
    );
    // Fixed on disk: nothing is kept any more.
    c.write(
        "project/.claude/settings.json",
        &settings("PreToolUse", Some("Bash"), &["true"]).to_string(),
    );
    let n = s.notification("latch/diagnostics");
    assert_eq!(n["params"]["kept"], json!([]), "{n}");
    let mut other = bash_before("ls");
    other["cwd"] = json!(c.root.path());
    let r = s.request(3, "fire", other);
    assert_eq!(r["result"]["decision"], "proceed", "{r}");
}

/// A project whose settings deny every `Bash` call, and that settings
/// file.
fn guarded_project() -> (Claude, std::path::PathBuf) {
    let c = Claude::new().project_settings(&settings(
        "PreToolUse",
        Some("Bash"),
        &["echo no >&2; exit 2"],
    ));
    let file = c.root.path().join("project/.claude/settings.json");
    (c, file)
}

/// A server with the project's configuration and those of its
/// subdirectories `a` and `b` loaded (each the workspace of peen, with a
/// hooks file).
fn three_configurations(c: &Claude) -> Server {
    c.write("project/a/.agents/hooks.yaml", "version: 1\n");
    c.write("project/b/.agents/hooks.yaml", "version: 1\n");
    let mut s = Server::claude_and_peen(c);
    for (id, dir) in [(2, None), (3, Some("a")), (4, Some("b"))] {
        let mut e = bash_before("ls");
        if let Some(dir) = dir {
            e["cwd"] = json!(c.project().join(dir));
        }
        s.fire(id, e);
        assert_eq!(s.recv()["id"], id);
    }
    s
}

/// An edit reloads only the configurations that watch the edited file:
/// one notice, for the directory whose settings changed.
#[test]
fn an_edit_in_one_directory_reloads_that_directory_alone() {
    let c = Claude::new().project_settings(&settings("PreToolUse", None, &["true"]));
    let mut s = three_configurations(&c);
    // Past the watcher's next look: `b` is watched as any other.
    std::thread::sleep(Duration::from_millis(600));
    c.write("project/b/.agents/hooks.yaml", "version: 1\n# edited\n");
    let n = s.recv();
    assert_eq!(n["method"], "latch/diagnostics", "{n}");
    assert_eq!(n["params"]["cwd"], json!(c.project().join("b")), "{n}");
    s.assert_quiet(5, "one notice only");
    assert_eq!(s.close(), 0);
}

/// An edit of a new directory's settings made as soon as its first event
/// is answered, before the watcher looked again, is reloaded: its load
/// noted what they looked like before it read them.
#[test]
fn an_edit_right_after_a_new_directory_loaded_is_reloaded() {
    let c = Claude::new().project_settings(&settings("PreToolUse", None, &["true"]));
    let mut s = three_configurations(&c);
    c.write("project/d/.agents/hooks.yaml", "version: 1\n");
    let mut e = bash_before("ls");
    e["cwd"] = json!(c.project().join("d"));
    s.fire(6, e);
    assert_eq!(s.recv()["id"], 6);
    c.write("project/d/.agents/hooks.yaml", "version: 1\n# edited\n");
    let n = s.recv();
    assert_eq!(n["method"], "latch/diagnostics", "{n}");
    assert_eq!(n["params"]["cwd"], json!(c.project().join("d")), "{n}");
    assert_eq!(s.close(), 0);
}

/// A file kept at its last good version stays kept while an edit
/// elsewhere reloads another configuration.
#[test]
fn a_kept_file_stays_kept_through_an_edit_elsewhere() {
    let (c, project_file) = guarded_project();
    let mut s = three_configurations(&c);
    // Every configuration reads the project's file: three notices.
    c.write("project/.claude/settings.json", "{\"hooks\": ");
    for _ in 0..3 {
        let n = s.notification("latch/diagnostics");
        assert_eq!(n["params"]["kept"], json!([project_file]), "{n}");
    }
    c.write("project/a/.agents/hooks.yaml", "version: 1\n# edited\n");
    let n = s.notification("latch/diagnostics");
    assert_eq!(n["params"]["cwd"], json!(c.project().join("a")), "{n}");
    assert_eq!(n["params"]["kept"], json!([project_file]), "{n}");
    // A directory loaded now still gets the kept version, and is told.
    let d = c.project().join("d");
    std::fs::create_dir_all(&d).unwrap();
    let mut e = bash_before("ls");
    e["cwd"] = json!(d);
    s.fire(6, e);
    let (answer, notice) = s.answer_and_notice(6);
    assert_eq!(answer["result"]["decision"], "deny", "{answer}");
    assert_eq!(notice["params"]["kept"], json!([project_file]), "{notice}");
    assert_eq!(notice["params"]["first_load"], true, "{notice}");
}

#[test]
fn an_edit_seen_with_a_new_directory_is_still_reloaded() {
    let c = Claude::new().project_settings(&settings("Stop", None, &["echo v1 >&2; exit 2"]));
    let mut s = Server::claude(&c);
    let stop = json!({"event": "stop", "session_id": "s1"});
    let r = s.request(1, "fire", stop.clone());
    assert!(r.to_string().contains("v1"), "{r}");
    c.write(
        "project/.claude/settings.json",
        &settings("Stop", None, &["echo v2 >&2; exit 2"]).to_string(),
    );
    let new_dir = c.project().join("elsewhere");
    std::fs::create_dir_all(&new_dir).unwrap();
    let mut moved = stop.clone();
    moved["cwd"] = json!(new_dir);
    moved["session_id"] = json!("s2");
    let _ = s.request(2, "fire", moved);
    let n = s.notification("latch/diagnostics");
    assert_eq!(n["params"]["reloaded"], true, "{n}");
    let r = s.request(3, "fire", json!({"event": "stop", "session_id": "s3"}));
    assert!(r.to_string().contains("v2"), "{r}");
}

#[test]
fn a_large_plugin_directory_does_not_hide_an_edit_of_the_settings() {
    let c = Claude::new().project_settings(&settings("Stop", None, &["echo v1 >&2; exit 2"]));
    let plugin = c.root.path().join("zplugin");
    let modules = plugin.join("node_modules");
    std::fs::create_dir_all(&modules).unwrap();
    for i in 0..5000 {
        std::fs::write(modules.join(format!("m{i}.js")), "").unwrap();
    }
    let mut s = Server::start(&[("HOOK_DIR", c.hook_dir().to_str().expect("utf-8"))]);
    let r = s.request(
        1,
        "initialize",
        json!({"dialects": ["claude"], "project": c.project(), "home": c.home(),
            "plugin_dirs": [plugin], "claude_managed_dir": c.root.path().join("managed"),
            "state_dir": c.root.path().join("state")}),
    );
    assert!(r["result"].is_object(), "{r}");
    c.write(
        "project/.claude/settings.json",
        &settings("Stop", None, &["echo v2 >&2; exit 2"]).to_string(),
    );
    let n = s.notification("latch/diagnostics");
    assert_eq!(n["params"]["reloaded"], true, "{n}");
    let r = s.request(2, "fire", json!({"event": "stop", "session_id": "s1"}));
    assert!(r.to_string().contains("v2"), "{r}");
}

/// The server keeps each session's audit log open between events; a log
/// that another process removed or rotated is not written to any more.
#[test]
fn the_audit_log_kept_open_follows_a_log_removed_or_rotated_meanwhile() {
    let c = Claude::new();
    let c = c.project_settings(&json!({"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}));
    let dir = c.root.path().join("state/sessions/s1");
    let lines = |name: &str| {
        std::fs::read_to_string(dir.join(name))
            .unwrap_or_default()
            .lines()
            .count()
    };
    let mut s = Server::claude(&c);
    let mut id = 10;
    let mut fire = |s: &mut Server| {
        id += 1;
        let r = s.request(id, "fire", bash_before("ls"));
        assert_eq!(r["result"]["runs"][0]["status"], "ok", "{r}");
        assert!(r["result"].get("warnings").is_none(), "{r}");
    };
    fire(&mut s);
    fire(&mut s);
    assert_eq!(lines("audit.jsonl"), 2);
    std::fs::remove_file(dir.join("audit.jsonl")).expect("remove");
    fire(&mut s);
    assert_eq!(lines("audit.jsonl"), 1, "a new log after the removal");
    // What another process's rotation does: the log renamed away, a new
    // one started with that process's record.
    let record = std::fs::read_to_string(dir.join("audit.jsonl")).expect("log");
    std::fs::rename(dir.join("audit.jsonl"), dir.join("audit.1.jsonl")).expect("rename");
    std::fs::write(dir.join("audit.jsonl"), &record).expect("new log");
    fire(&mut s);
    fire(&mut s);
    assert_eq!(lines("audit.1.jsonl"), 1, "nothing more in the rotated log");
    assert_eq!(lines("audit.jsonl"), 3);
    assert_eq!(s.close(), 0);
}

/// The server's thread, which starts hooks, runs with the shortest time
/// slice, so that hooks started at once spread over the CPUs; each hook
/// gets the slice any process gets.
#[test]
fn hooks_keep_the_default_time_slice_and_the_server_takes_the_shortest() {
    let Some(default) = crate::util::default_slice() else {
        return; // no `se.slice` in /proc on this kernel
    };
    let c = Claude::new();
    let c = c.project_settings(&settings(
        "PreToolUse",
        Some("Bash"),
        &crate::util::SLICE_HOOKS,
    ));
    let mut s = Server::claude(&c);
    let r = s.request(11, "fire", bash_before("ls"));
    crate::util::assert_slices(&r["result"]["reasons"], default);
    assert_eq!(s.close(), 0);
}

/// Hooks started off the server's thread (another session's hook is in
/// flight, so they start from tokio's blocking pool) start from a thread
/// with the short slice too; the server's other threads keep the default.
#[test]
fn the_blocking_threads_that_start_hooks_take_the_short_slice_too() {
    let Some(default) = crate::util::default_slice() else {
        return; // no `se.slice` in /proc on this kernel
    };
    let c = Claude::new();
    let dir = c.root.path().join("flags");
    std::fs::create_dir_all(&dir).expect("dir");
    let d = dir.display();
    let threads = "for t in /proc/$PPID/task/*; do printf 'thread %s ' \"$(cat $t/comm)\"; grep se.slice $t/sched; done >&2; exit 2";
    let c = c.project_settings(&json!({"hooks": {
        "Stop": [{"hooks": [{"type": "command", "command": format!("touch {d}/slow; sleep 30")}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": threads}]}]}}));
    let mut s = Server::claude(&c);
    s.fire(11, json!({"event": "stop", "session_id": "slow"}));
    wait_for_file(&dir.join("slow"), "the slow hook never started");
    let r = s.request(12, "fire", bash_before("ls"));
    let text = r["result"]["reasons"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    // `thread <name> se.slice : <ns>`
    let slice_of = |line: &str| line.rsplit(':').next()?.trim().parse::<u64>().ok();
    let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("thread ")).collect();
    let pool: Vec<&&str> = lines
        .iter()
        .filter(|l| l.starts_with("thread tokio"))
        .collect();
    assert!(!pool.is_empty(), "a blocking thread: {text}");
    let latch = crate::util::latch_slice(default);
    for line in pool {
        assert_eq!(slice_of(line), Some(latch), "{text}");
    }
    let signals = lines.iter().find(|l| l.starts_with("thread latch-signals"));
    assert_eq!(signals.and_then(|l| slice_of(l)), Some(default), "{text}");
    assert_eq!(s.close(), 0);
}

/// A log replaced by a symbolic link between two events is refused before
/// the answer: that answer says so, and the link's target is untouched.
#[test]
fn an_audit_log_swapped_for_a_link_is_refused_in_that_events_answer() {
    let c = Claude::new();
    let c = c.project_settings(&json!({"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}));
    let log = c.root.path().join("state/sessions/s1/audit.jsonl");
    let target = c.root.path().join("elsewhere");
    std::fs::write(&target, "untouched").expect("target");
    let mut s = Server::claude(&c);
    let r = s.request(11, "fire", bash_before("ls"));
    assert!(r["result"].get("warnings").is_none(), "{r}");
    std::fs::remove_file(&log).expect("remove");
    std::os::unix::fs::symlink(&target, &log).expect("link");
    let r = s.request(12, "fire", bash_before("ls"));
    let warnings = r["result"]["warnings"].to_string();
    assert!(
        warnings.contains("latch could not write the audit log")
            && warnings.contains("symbolic link"),
        "{r}"
    );
    assert_eq!(r["result"]["decision"], "proceed", "{r}");
    assert_eq!(
        std::fs::read_to_string(&target).expect("target"),
        "untouched"
    );
    assert_eq!(s.close(), 0);
}

/// The kept log must rotate, and a directory holds the rotated log's
/// name: the answer says the records could not be written, and the
/// dispatch's decision stands.
#[test]
fn an_audit_log_that_cannot_rotate_is_a_warning_of_the_answer() {
    let c = Claude::new();
    let c = c.project_settings(&json!({"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "exit 2"}]}]}}));
    let dir = c.root.path().join("state/sessions/s1");
    let mut s = Server::claude(&c);
    let r = s.request(11, "fire", bash_before("ls"));
    assert!(r["result"].get("warnings").is_none(), "{r}");
    // The same file, grown to the rotation size.
    let mut log = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.join("audit.jsonl"))
        .expect("log");
    let filler = format!("{}\n", "x".repeat(1023));
    for _ in 0..4096 {
        std::io::Write::write_all(&mut log, filler.as_bytes()).expect("grow");
    }
    std::fs::create_dir_all(dir.join("audit.1.jsonl/held")).expect("dir");
    let r = s.request(12, "fire", bash_before("ls"));
    let warnings = r["result"]["warnings"].to_string();
    assert!(
        warnings.contains("latch could not write the audit log: ") && warnings.contains("rotate"),
        "{r}"
    );
    assert_eq!(r["result"]["decision"], "deny", "{r}");
    assert!(dir.join("audit.1.jsonl/held").is_dir());
    assert_eq!(s.close(), 0);
}

/// A fire that is the server's only work waits for its hooks on the
/// server's thread; a request arriving meanwhile takes the thread back,
/// so another session's event runs while the first one's hook still runs.
#[test]
fn a_request_arriving_while_a_lone_fire_waits_is_served_before_it() {
    let c = Claude::new();
    let dir = c.root.path().join("flags");
    std::fs::create_dir_all(&dir).expect("dir");
    let d = dir.display();
    // Session a's hook waits for the file session b's hook makes.
    let waits = format!(
        "touch {d}/started; i=0; while [ ! -f {d}/go ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i+1)); done; test -f {d}/go"
    );
    let makes = format!("touch {d}/go");
    let c = c.project_settings(&json!({"hooks": {
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": waits}]}],
        "SessionEnd": [{"hooks": [{"type": "command", "command": makes}]}]}}));
    let mut s = Server::claude(&c);
    s.fire(
        1,
        json!({"event": "user_prompt", "session_id": "a", "prompt": "p"}),
    );
    wait_for_file(&dir.join("started"), "the first hook never started");
    s.fire(2, json!({"event": "session_end", "session_id": "b"}));
    // Which answer comes first is a race once `go` exists; that the first
    // hook found it is what shows the second ran while it waited.
    let (a, b) = (s.recv(), s.recv());
    let (first, second) = if a["id"] == 1 { (a, b) } else { (b, a) };
    assert_eq!(second["id"], 2, "{second}");
    assert_eq!(second["result"]["runs"][0]["status"], "ok", "{second}");
    assert_eq!(first["id"], 1, "{first}");
    assert_eq!(first["result"]["runs"][0]["status"], "ok", "{first}");
    assert_eq!(s.close(), 0);
}

/// A hook that outlasts the time the thread is lent is waited for on
/// the reactor from there, with what it printed before kept.
#[test]
fn a_hook_that_outlasts_the_lent_thread_keeps_all_it_printed() {
    let c = Claude::new();
    let c = c.project_settings(&settings(
        "PreToolUse",
        Some("Bash"),
        &["echo first >&2; sleep 0.3; echo second >&2; exit 2"],
    ));
    let mut s = Server::claude(&c);
    let r = s.request(5, "fire", bash_before("ls"));
    assert_eq!(r["result"]["decision"], "deny", "{r}");
    let text = r["result"].to_string();
    assert!(text.contains(r"first\nsecond"), "{r}");
    assert_eq!(s.close(), 0);
}

#[test]
fn a_hook_whose_first_line_is_async_is_answered_at_once_and_followed_in_the_server() {
    // The response does not wait for the hook; its answer comes as a
    // `latch/asyncResult` notification, and with the session's next tool
    // result.
    let c = Claude::new();
    let done = c.root.path().join("done");
    let hook = format!(
        r#"printf '{{"async":true}}\n'; sleep 2; touch '{}'; printf '%s\n' '{}'"#,
        done.display(),
        json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "LATER"}})
    );
    let c = c.project_settings(&settings("PostToolUse", Some("Bash"), &[&hook]));
    let mut s = Server::claude(&c);
    let after = crate::claude_util::bash_after("date", json!({"stdout": "hi"}));
    s.fire(2, after);
    let r = s.recv();
    assert!(!done.exists(), "the response waited for the hook");
    assert_eq!(r["id"], 2, "{r}");
    assert!(
        r["result"]["runs"][0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("went to the background")),
        "{r}"
    );
    let n = s.notification("latch/asyncResult");
    assert_eq!(
        n["params"]["texts"],
        json!(["<system-reminder>\nLATER\n</system-reminder>"]),
        "{n}"
    );
    assert!(done.exists());
    let mut read = crate::claude_util::bash_after("x", json!({"content": "a"}));
    read["tool"] =
        json!({"name": "Read", "input": {"file_path": "a.txt"}, "output": {"content": "a"}});
    let r = s.request(3, "fire", read);
    assert_eq!(
        r["result"]["context"][0]["text"], "<system-reminder>\nLATER\n</system-reminder>",
        "{r}"
    );
    assert_eq!(s.close(), 0);
}

/// An async answer that the session's state cannot keep (its directory
/// became a link meanwhile, which latch does not follow) still comes whole
/// in `latch/asyncResult`, which says why it was not kept.
#[test]
fn an_async_answer_the_session_cannot_keep_comes_with_a_warning() {
    let c = Claude::new();
    let sessions = c.root.path().join("state/sessions");
    let hook = format!(
        r#"printf '{{"async":true}}\n'; sleep 0.5; mv '{s}/s1' '{s}/moved'; ln -s '{s}/moved' '{s}/s1'; printf '%s\n' '{}'"#,
        json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "LATER"}}),
        s = sessions.display()
    );
    let c = c.project_settings(&settings("PostToolUse", Some("Bash"), &[&hook]));
    let mut s = Server::claude(&c);
    let after = crate::claude_util::bash_after("date", json!({"stdout": "hi"}));
    let r = s.request(2, "fire", after);
    assert_eq!(r["result"]["decision"], "proceed", "{r}");
    let n = s.notification("latch/asyncResult");
    assert_eq!(
        n["params"]["texts"],
        json!(["<system-reminder>\nLATER\n</system-reminder>"]),
        "{n}"
    );
    let warnings = n["params"]["warnings"].to_string();
    assert!(
        warnings.contains("latch could not keep this answer for the session's next event"),
        "{n}"
    );
    assert!(
        std::fs::symlink_metadata(sessions.join("s1"))
            .unwrap()
            .is_symlink()
    );
    assert_eq!(s.close(), 0);
}

#[test]
fn a_hook_in_the_background_dies_with_the_server() {
    let c = Claude::new();
    let pid_file = c.root.path().join("pid");
    let hook = format!(
        r#"printf '{{"async":true}}\n'; sleep 30 & echo $! > '{}'; wait"#,
        pid_file.display()
    );
    let c = c.project_settings(&settings("PostToolUse", Some("Bash"), &[&hook]));
    let mut s = Server::claude(&c);
    let r = s.request(
        2,
        "fire",
        crate::claude_util::bash_after("date", json!({"stdout": "hi"})),
    );
    assert!(r["result"].is_object(), "{r}");
    let child = crate::util::read_pid(&pid_file);
    assert!(!process_is_dead(child));
    assert_eq!(s.close(), 0);
    assert!(
        crate::util::wait_dead(child),
        "the hook outlived the server"
    );
}

/// r3_config_change_exit2_hook_added, through the server: its watch
/// reloads the edit, but the session that rejected it goes on without. The
/// rejecting ConfigChange hook is in the project's settings, or, with
/// `inline`, in `claude_settings` JSON text.
fn a_rejected_edit_is_held_back_for_its_session(inline: bool) {
    let c = Claude::new();
    let marker = c.root.path().join("reject");
    let reject = format!("if [ -f '{}' ]; then exit 2; fi", marker.display());
    let added = c.hook("added", "");
    let rejecting = settings("ConfigChange", None, &[&reject]);
    let mut init = json!({"dialects": ["claude"], "project": c.project(), "home": c.home(),
        "claude_managed_dir": c.root.path().join("managed"),
        "state_dir": c.root.path().join("state")});
    let mut edit = json!({"hooks": {"PostToolUse": [{"matcher": "Bash",
        "hooks": [{"type": "command", "command": added}]}]}});
    let c = if inline {
        init["claude_settings"] = json!(rejecting.to_string());
        c
    } else {
        edit["hooks"]["ConfigChange"] = rejecting["hooks"]["ConfigChange"].clone();
        c.project_settings(&rejecting)
    };
    let file = c.project().join(".claude/settings.json");
    let change = json!({"event": "config_change", "session_id": "s1",
        "source": "project_settings", "file_path": file});
    let after = crate::claude_util::bash_after("ls", json!("x"));
    let mut s = Server::start(&[("HOOK_DIR", c.hook_dir().to_str().expect("utf-8"))]);
    let r = s.request(1, "initialize", init);
    assert!(r["result"].is_object(), "{r}");
    let r = s.request(
        2,
        "fire",
        json!({"event": "session_start", "session_id": "s1"}),
    );
    assert!(r["result"].is_object(), "{r}");
    let c = c.project_settings(&edit);
    let n = s.notification("latch/diagnostics");
    assert_eq!(n["params"]["reloaded"], true, "{n}");
    std::fs::write(&marker, "").unwrap();
    let r = s.request(3, "fire", change.clone());
    assert_eq!(r["result"]["decision"], "deny", "{r}");
    let r = s.request(4, "fire", after.clone());
    assert_eq!(r["result"]["runs"], json!([]), "{r}");
    assert_eq!(c.runs_of("added"), 0, "the rejected edit was applied");
    // Another session never rejected it.
    let mut other = after.clone();
    other["session_id"] = json!("s2");
    s.request(5, "fire", other);
    assert_eq!(c.runs_of("added"), 1);
    // Let through: the file as it is on disk.
    std::fs::remove_file(&marker).unwrap();
    let r = s.request(6, "fire", change);
    assert_eq!(r["result"]["decision"], "proceed", "{r}");
    s.request(7, "fire", after);
    assert_eq!(c.runs_of("added"), 2);
    assert_eq!(s.close(), 0);
}

/// A session that keeps its own settings loads its own configuration
/// when its event comes: from the disk of that moment. A managed deny
/// removed, an event of that session, and the deny put back, all before
/// the watcher's next look, leaves every cached configuration as it was;
/// the session's own is loaded again all the same, and denies again.
#[test]
fn a_deny_removed_and_put_back_between_two_looks_is_back_for_a_session_that_kept_its_settings() {
    let c = Claude::new();
    let marker = c.root.path().join("reject");
    let reject = format!("if [ -f '{}' ]; then exit 2; fi", marker.display());
    let rejecting = settings("ConfigChange", None, &[&reject]);
    let c = c.project_settings(&rejecting);
    let managed = |tag: &str, exit: u8| {
        c.write(
            "managed/managed-settings.json",
            &settings(
                "PreToolUse",
                Some("Bash"),
                &[&format!("echo {tag} >&2; exit {exit}")],
            )
            .to_string(),
        )
    };
    managed("v1", 2);
    let mut s = Server::claude(&c);
    let s1 = |mut e: Value| {
        e["session_id"] = json!("s1");
        e
    };
    s.request(2, "fire", s1(json!({"event": "session_start"})));
    // s1 rejects an edit of the project's settings: it keeps its own.
    let mut edited = rejecting.clone();
    edited["hooks"]["PostToolUse"] =
        settings("PostToolUse", Some("Bash"), &["true"])["hooks"]["PostToolUse"].clone();
    let file = c.write("project/.claude/settings.json", &edited.to_string());
    s.notification("latch/diagnostics");
    std::fs::write(&marker, "").unwrap();
    let change = json!({"event": "config_change", "source": "project_settings", "file_path": file});
    let r = s.request(3, "fire", s1(change));
    assert_eq!(r["result"]["decision"], "deny", "{r}");
    managed("v1b", 2);
    s.notification("latch/diagnostics");
    // Removed, used by s1, put back: one window between two looks.
    managed("v2", 0);
    let r = s.request(4, "fire", s1(bash_before("ls")));
    assert_eq!(r["result"]["decision"], "proceed", "{r}");
    managed("v1b", 2);
    std::thread::sleep(Duration::from_millis(1500));
    let r = s.request(5, "fire", s1(bash_before("ls")));
    assert_eq!(r["result"]["decision"], "deny", "the deny is back: {r}");
    assert_eq!(s.close(), 0);
}

#[test]
fn a_session_that_rejected_a_configuration_change_keeps_its_settings_in_the_server() {
    a_rejected_edit_is_held_back_for_its_session(false);
}

#[test]
fn a_config_change_hook_given_as_settings_text_keeps_a_sessions_settings_in_the_server() {
    a_rejected_edit_is_held_back_for_its_session(true);
}

/// The session's earlier event still runs when the `config_change`
/// arrives, and the file is edited again meanwhile: the change let through
/// is the first edit, the file as it was when the request arrived (latch's
/// choice: Claude Code fires the event about a second after the write);
/// the second waits for its own `config_change`. With `through_link`,
/// `.claude` is a link to a directory of another name, and the event names
/// the file by its real path.
fn a_config_change_takes_the_file_on_arrival(through_link: bool) {
    let c = Claude::new();
    let file = if through_link {
        let real = c.project().join("dotclaude");
        std::fs::create_dir(&real).unwrap();
        std::fs::remove_dir(c.project().join(".claude")).unwrap();
        std::os::unix::fs::symlink(&real, c.project().join(".claude")).unwrap();
        real.join("settings.json")
    } else {
        c.project().join(".claude/settings.json")
    };
    let go = c.root.path().join("go");
    let slow = format!("while [ ! -f '{}' ]; do sleep 0.05; done", go.display());
    let first = c.hook("first", "");
    let second = c.hook("second", "");
    let with = |added: Option<&str>| {
        let mut hooks = json!({
            "ConfigChange": [{"hooks": [{"type": "command", "command": "true"}]}],
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": slow}]}]});
        if let Some(added) = added {
            hooks["PostToolUse"] =
                json!([{"matcher": "Bash", "hooks": [{"type": "command", "command": added}]}]);
        }
        json!({ "hooks": hooks })
    };
    let c = c.project_settings(&with(None));
    let mut s = Server::claude(&c);
    let r = s.request(
        2,
        "fire",
        json!({"event": "session_start", "session_id": "s1"}),
    );
    assert!(r["result"].is_object(), "{r}");
    let c = c.project_settings(&with(Some(&first)));
    s.fire(
        3,
        json!({"event": "user_prompt", "session_id": "s1", "prompt": "hi"}),
    );
    s.fire(
        4,
        json!({"event": "config_change", "session_id": "s1",
            "source": "project_settings", "file_path": file}),
    );
    // The server reads its input in order, also while the prompt's hook
    // waits for `go`: once `explain` is answered, the change has arrived.
    let r = s.request(5, "explain", json!({"event": "stop", "session_id": "s2"}));
    assert!(r["result"].is_array(), "{r}");
    let c = c.project_settings(&with(Some(&second)));
    std::fs::write(&go, "").unwrap();
    let mut answered = 0;
    while answered < 2 {
        let m = s.recv();
        if m["id"] == 3 || m["id"] == 4 {
            assert!(m["result"].is_object(), "{m}");
            answered += 1;
        }
    }
    let r = s.request(6, "fire", crate::claude_util::bash_after("ls", json!("x")));
    assert!(r["result"].is_object(), "{r}");
    assert_eq!(c.runs_of("first"), 1, "the edit let through was not kept");
    assert_eq!(c.runs_of("second"), 0, "the later edit came with it");
    assert_eq!(s.close(), 0);
}

#[test]
fn a_config_change_takes_the_file_as_it_was_when_the_request_arrived() {
    a_config_change_takes_the_file_on_arrival(false);
}

#[test]
fn a_config_change_through_a_linked_directory_takes_the_file_on_arrival_too() {
    a_config_change_takes_the_file_on_arrival(true);
}

/// Under a hard limit of open files the server cannot raise, the hooks
/// of one event that the system refuses to start run once the others
/// have ended: the deny among them still counts, at every fire.
#[test]
fn hooks_starved_of_open_files_start_once_the_others_end() {
    let c = Claude::new().project_settings(&crate::claude_util::starving_settings());
    let mut s = Server::start_with_open_files(40, &[]).for_claude(&c);
    for id in 2..4 {
        let r = s.request(id, "fire", bash_before("rm -rf /"));
        let outcome = &r["result"];
        assert_eq!(outcome["decision"], "deny", "{r}");
        let ok = outcome["runs"]
            .as_array()
            .expect("runs")
            .iter()
            .filter(|run| run["status"] == "ok")
            .count();
        assert_eq!(ok, 24, "{r}");
        assert_eq!(outcome["runs"][24]["status"], "blocked", "{r}");
    }
}

/// A session's state is shared with `latch fire`: Stop blocks counted
/// through either path make one run of consecutive blocks, so the cap of
/// 8 ends the turn at the 9th whichever path fires it, and a prompt
/// through one path starts a new run for the other.
#[test]
fn a_session_fired_through_serve_and_latch_fire_in_turn_keeps_one_state() {
    let c = Claude::new();
    let cmd = c.hook("stop", "--exit 2 --stderr 'again'");
    let c = c.project_settings(&settings("Stop", None, &[&cmd]));
    let mut s = Server::claude(&c);
    let stop = json!({"event": "stop", "session_id": "mixed"});
    let mut id = 1;
    let mut through = |served: bool, event: &Value| -> Value {
        id += 1;
        if served {
            s.request(id, "fire", event.clone())["result"].clone()
        } else {
            c.fire(event).outcome
        }
    };
    for i in 0..8 {
        let outcome = through(i % 2 == 0, &stop);
        assert!(
            outcome.get("continuation").is_some(),
            "block {i}: {outcome}"
        );
    }
    let ninth = through(true, &stop);
    assert!(ninth.get("continuation").is_none(), "{ninth}");
    assert!(
        ninth["warnings"]
            .to_string()
            .contains("9 consecutive times"),
        "{ninth}"
    );
    through(
        false,
        &json!({"event": "user_prompt", "session_id": "mixed", "prompt": "go"}),
    );
    let again = through(true, &stop);
    assert!(again.get("continuation").is_some(), "{again}");
}

/// A request stuck outside latch's reach (a `trust/…` waiting for the
/// store's lock, which another process holds) does not keep the server
/// from exiting at the end of input: it is dropped after a bound.
#[test]
fn the_end_of_input_does_not_wait_forever_for_a_request_stuck_on_a_lock() {
    let c = Claude::new().project_settings(&settings("PreToolUse", None, &["true"]));
    let mut s = Server::claude(&c);
    let r = s.request(2, "trust/approve", json!({"all": true}));
    assert!(r["result"]["approved"].is_array(), "{r}");
    let lock = c.root.path().join("state/trust/lock");
    let ready = c.root.path().join("locked");
    let mut holder = std::process::Command::new("flock")
        .arg(&lock)
        .args(["-c", &format!("touch '{}'; sleep 60", ready.display())])
        .spawn()
        .expect("flock");
    wait_for_file(&ready, "`flock` never took the lock");
    s.send(json!({"jsonrpc": "2.0", "id": 3, "method": "trust/revoke", "params": {"all": true}}));
    // Other requests go on meanwhile.
    let r = s.request(4, "fire", bash_before("ls"));
    assert_eq!(r["result"]["decision"], "proceed", "{r}");
    assert_eq!(s.close(), 0, "the server exits");
    let _ = holder.kill();
    let _ = holder.wait();
}

/// An `explain` from a working directory not loaded yet is answered once
/// its configuration is loaded (off the server's thread), before a
/// `shutdown` sent after it.
#[test]
fn an_explain_that_must_load_first_is_answered_before_shutdown() {
    let c = Claude::new().project_settings(&settings("PreToolUse", Some("Bash"), &["true"]));
    let sub = c.project().join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    let mut s = Server::claude(&c);
    let mut e = bash_before("ls");
    e["cwd"] = json!(sub);
    s.send(json!({"jsonrpc": "2.0", "id": 2, "method": "explain", "params": e}));
    s.send(json!({"jsonrpc": "2.0", "id": 3, "method": "shutdown"}));
    let explained = s.recv();
    assert_eq!(explained["id"], 2, "{explained}");
    assert_eq!(explained["result"][0]["hook"], "true", "{explained}");
    assert_eq!(explained["result"][0]["runs"], true, "{explained}");
    let r = s.recv();
    assert_eq!(r["id"], 3, "{r}");
    assert_eq!(r["result"], Value::Null);
    assert_eq!(s.close(), 0);
}

/// A configuration that takes long to load (30,000 hooks, half a second
/// or more in a debug build) holds up only the event that needs it: an
/// event from a new working directory loads it off the server's thread,
/// and another session's event, sent after it, is answered first.
#[test]
fn a_slow_load_for_a_new_directory_holds_up_only_its_own_event() {
    let groups: Vec<Value> = (0..30_000)
        .map(|i| json!({"matcher": "Bash", "hooks": [{"type": "command", "command": format!("echo {i}")}]}))
        .collect();
    let c = Claude::new().project_settings(&json!({"hooks": {"PreToolUse": groups}}));
    let elsewhere = c.root.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).expect("mkdir");
    let mut s = Server::claude(&c);
    // No hook matches `Read`: the only slow part is the load.
    let read = json!({"name": "Read", "input": {"file_path": "a.txt"}});
    s.fire(
        2,
        json!({"event": "tool_before", "session_id": "a", "cwd": elsewhere, "tool": read}),
    );
    s.fire(
        3,
        json!({"event": "tool_before", "session_id": "b", "tool": read}),
    );
    let first = s.recv();
    assert_eq!(first["id"], 3, "the quick event first: {first}");
    assert_eq!(first["result"]["decision"], "proceed", "{first}");
    let slow = s.recv();
    assert_eq!(slow["id"], 2, "{slow}");
    assert_eq!(slow["result"]["decision"], "proceed", "{slow}");
    assert_eq!(s.close(), 0);
}

/// A server that cannot start (a malformed event size limit) answers
/// nothing, says why on stderr and exits 4, as every latch command does.
#[test]
fn a_server_that_cannot_start_exits_4_and_answers_nothing() {
    let out = assert_cmd::Command::cargo_bin("latch")
        .unwrap()
        .arg("serve")
        .env("LATCH_MAX_EVENT_BYTES", "abc")
        .write_stdin("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    assert!(
        out.stdout.is_empty(),
        "{:?}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "latch: error: LATCH_MAX_EVENT_BYTES=\"abc\" is not a positive number of bytes\n"
    );
}

/// Notifications get no answer; one latch cannot use (unknown, a
/// `$/cancelRequest` without a usable id, or a request sent without its
/// id) is said on stderr, and the server goes on.
#[test]
fn a_notification_latch_cannot_use_is_said_on_stderr() {
    let state = tempfile::tempdir().unwrap();
    let input = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"state_dir": state.path()}}),
        json!({"jsonrpc": "2.0", "method": "$/cancelRequest"}),
        json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": {"a": 1}}}),
        json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 99, "extra": 1}}),
        json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 99}}),
        json!({"jsonrpc": "2.0", "method": "latch/unknown"}),
        json!({"jsonrpc": "2.0", "method": "fire", "params": {"event": "stop"}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}),
    ]
    .map(|m| format!("{m}\n"))
    .concat();
    let out = assert_cmd::Command::cargo_bin("latch")
        .unwrap()
        .arg("serve")
        .env_remove("LATCH_STATE_DIR")
        .write_stdin(input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let answers = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        answers.lines().count(),
        2,
        "only the requests are answered: {answers}"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    let ignored: Vec<&str> = err.lines().filter(|l| l.contains("ignored")).collect();
    assert_eq!(ignored.len(), 5, "an unknown id is no mistake: {err}");
    assert!(
        ignored[0].contains("`$/cancelRequest` ignored") && ignored[0].ends_with("not null"),
        "{err}"
    );
    assert!(ignored[1].ends_with(r#"not {"id":{"a":1}}"#), "{err}");
    assert!(ignored[2].ends_with(r#"not {"id":99,"extra":1}"#), "{err}");
    assert!(
        ignored[3].contains("unknown notification `latch/unknown`"),
        "{err}"
    );
    // A request without its id is not run, and not called unknown.
    assert!(
        ignored[4].ends_with(
            "`fire` sent without an `id` ignored: a request needs an `id` for its answer"
        ),
        "{err}"
    );
}

/// A configuration that would load nothing, silently, is refused or said:
/// an empty `dialects` list is invalid params, a missing project a
/// warning among `initialize`'s diagnostics.
#[test]
fn initialize_refuses_no_dialects_and_warns_of_a_missing_project() {
    let state = tempfile::tempdir().unwrap();
    let mut s = Server::start(&[]);
    let r = s.request(
        1,
        "initialize",
        json!({"dialects": [], "state_dir": state.path()}),
    );
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("`dialects` is empty"),
        "{r}"
    );
    let missing = state.path().join("no-such-project");
    let r = s.request(
        2,
        "initialize",
        json!({"project": missing, "state_dir": state.path()}),
    );
    let diags = r["result"]["diagnostics"].as_array().unwrap();
    assert_eq!(diags.len(), 1, "{r}");
    assert_eq!(diags[0]["severity"], "warning", "{r}");
    assert!(
        diags[0]["message"]
            .as_str()
            .unwrap()
            .contains("does not exist"),
        "{r}"
    );
    assert_eq!(s.close(), 0);
}

/// A key of a dialect that is not loaded is said among `initialize`'s
/// diagnostics, by its name there (`latch fire` names its flag).
#[test]
fn initialize_names_a_key_without_effect_by_its_key() {
    let state = tempfile::tempdir().unwrap();
    let mut s = Server::start(&[]);
    let r = s.request(
        1,
        "initialize",
        json!({"claude_settings": "{}", "state_dir": state.path(), "project": state.path()}),
    );
    let diags = r["result"]["diagnostics"].as_array().unwrap();
    assert_eq!(
        diags[0]["message"],
        "`claude_settings` has no effect: the claude dialect is not loaded (see `dialects`)",
        "{r}"
    );
    assert_eq!(s.close(), 0);
}

/// Writes `requests` (lines) to `stdin` on a thread of its own, counting
/// each one written whole.
fn write_on_a_thread(
    mut stdin: ChildStdin,
    requests: Vec<String>,
) -> (
    std::sync::Arc<std::sync::atomic::AtomicUsize>,
    std::thread::JoinHandle<ChildStdin>,
) {
    use std::sync::atomic::Ordering;
    let written = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = written.clone();
    let thread = std::thread::spawn(move || {
        for r in requests {
            if stdin.write_all(r.as_bytes()).is_err() || stdin.write_all(b"\n").is_err() {
                break;
            }
            count.fetch_add(1, Ordering::SeqCst);
        }
        stdin
    });
    (written, thread)
}

/// The count once it has not moved for a second (the server stopped
/// reading, or everything was written), within 60 s.
fn settled(count: &std::sync::atomic::AtomicUsize, all: usize) -> usize {
    use std::sync::atomic::Ordering;
    let start = Instant::now();
    let mut last = usize::MAX;
    loop {
        std::thread::sleep(Duration::from_secs(1));
        let now = count.load(Ordering::SeqCst);
        if now == last || now == all || start.elapsed() > Duration::from_secs(60) {
            return now;
        }
        last = now;
    }
}

/// A harness that does not read its answers cannot make the server hold
/// them without end: once 64 MiB wait for stdout, the server reads no
/// further request (the harness's writes block) and starts no further
/// fire; once the harness reads, every answer comes.
#[test]
fn a_harness_that_reads_no_answers_is_read_no_further() {
    // Each answer carries the hook's 400 kB of stderr three times.
    let c = Claude::new().project_settings(&settings(
        "PreToolUse",
        None,
        &["yes xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx | head -c 400000 >&2; exit 2"],
    ));
    let (mut child, stdin) = initialized_with_stdout_unread(&c);
    // Requests of 100 kB (padded), so that the pipe and the server's small
    // read-ahead hold only a few; no session, so they would all run at once.
    let padding = "p".repeat(100_000);
    let all = 250;
    let requests: Vec<String> = (1..=all)
        .map(|i| {
            let mut event = bash_before("ls");
            event.as_object_mut().expect("object").remove("session_id");
            event["tool"]["input"]["padding"] = json!(padding);
            json!({"jsonrpc": "2.0", "id": i, "method": "fire", "params": event}).to_string()
        })
        .collect();
    let (written, writer) = write_on_a_thread(stdin, requests);
    let read_while_unread = settled(&written, all);
    assert!(
        read_while_unread < all,
        "the server read all {all} requests while its answers were not read"
    );
    // Now the harness reads: every answer comes, each a deny.
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut answered = std::collections::BTreeSet::new();
    let mut line = String::new();
    while answered.len() < all + 1 {
        line.clear();
        assert_ne!(
            stdout.read_line(&mut line).expect("read"),
            0,
            "serve ended early"
        );
        let m: Value = serde_json::from_str(&line).expect("json");
        if let Some(id) = m["id"].as_u64() {
            if id > 0 {
                assert_eq!(m["result"]["decision"], "deny", "{id}");
            }
            answered.insert(id);
        }
    }
    drop(writer.join().expect("the writer thread"));
    assert_eq!(child.wait().expect("wait").code(), Some(0));
}

/// Events queued behind a slow hook of their session are held whole until
/// they run: past 64 MiB of them, the server reads no further request
/// until some are answered.
#[test]
fn events_queued_past_the_limit_hold_up_reading_not_memory() {
    let c = Claude::new();
    let pids = c.hook_dir().join("pids");
    let hook = format!(
        r#"case "$(cat)" in *first*) echo $$ > {}; exec sleep 60;; esac"#,
        pids.display()
    );
    let c = c.project_settings(&settings("PreToolUse", None, &[&hook]));
    let mut s = Server::claude(&c);
    s.fire(1, bash_before("first"));
    let pid = pid_in(&pids);
    // 100 events of 1 MB in the same session, all behind the first.
    let padding = "q".repeat(1_000_000);
    let all = 100;
    let requests: Vec<String> = (2..=all + 1)
        .map(|i| {
            let mut event = bash_before("ls");
            event["tool"]["input"]["padding"] = json!(padding);
            json!({"jsonrpc": "2.0", "id": i, "method": "fire", "params": event}).to_string()
        })
        .collect();
    let (written, writer) = write_on_a_thread(s.stdin.take().expect("stdin"), requests);
    let read_while_held = settled(&written, all);
    assert!(
        read_while_held < all,
        "the server read all {all} queued events"
    );
    // The slow hook ends: the queue drains, in order.
    Command::new("kill")
        .arg(pid.to_string())
        .status()
        .expect("kill");
    for i in 1..=all + 1 {
        let r = s.recv();
        assert_eq!(r["id"], i, "{}", r["error"]);
    }
    s.stdin = Some(writer.join().expect("the writer thread"));
    assert_eq!(s.close(), 0);
}

/// A harness that closes its end of stdout can get no answer: at the first
/// answer that cannot be written, the server says so on stderr and stops
/// as at the end of its input (every hook killed, exit 0).
#[test]
fn a_broken_stdout_stops_the_hooks_and_the_server() {
    let c = Claude::new();
    let pids = c.hook_dir().join("pids");
    let hook = format!("echo $$ > {}; exec sleep 60", pids.display());
    let c = c.project_settings(&settings("PreToolUse", None, &[&hook]));
    let (mut child, mut stdin) = initialized_with_stdout_unread(&c);
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    stdout.read_line(&mut line).expect("the initialize answer");
    let fire = json!({"jsonrpc": "2.0", "id": 1, "method": "fire", "params": bash_before("ls")});
    writeln!(stdin, "{fire}").expect("write");
    let pid = pid_in(&pids);
    drop(stdout);
    // Answered at once, so written (and refused) at once.
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":2,"method":"nope"}}"#).expect("write");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "serve did not stop"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(0));
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().expect("stderr"), &mut err)
        .expect("stderr");
    assert!(
        err.contains("latch: error: cannot write to stdout"),
        "{err}"
    );
    gone(pid, "the hook outlived serve");
}

/// The pid a hook wrote to `file`, once it has (within 20 s).
fn pid_in(file: &std::path::Path) -> i32 {
    let start = Instant::now();
    loop {
        if let Some(p) = std::fs::read_to_string(file)
            .ok()
            .and_then(|t| t.trim().parse::<i32>().ok())
        {
            return p;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "no pid in {}",
            file.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Returns once `pid` is gone; fails with `what` after 10 s.
fn gone(pid: i32, what: &str) {
    let start = Instant::now();
    while !process_is_dead(pid) {
        assert!(start.elapsed() < Duration::from_secs(10), "{what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Forty dispatches at once (no session: nothing orders them), each with
/// one hook that denies after a second, under 64 open files: the hooks that
/// started hold the descriptors the others need until they end, longer
/// than the patience latch has for a starved hook when nothing of its own
/// runs. Each starved hook waits for a hook of another dispatch to end and
/// starts then, so every answer is the deny (docs/limits.md, EMFILE).
#[test]
fn concurrent_dispatches_starved_of_open_files_all_deny() {
    let c = Claude::new().project_settings(&settings(
        "PreToolUse",
        Some("Bash"),
        &["sleep 1; echo no >&2; exit 2"],
    ));
    let mut s = Server::start_with_open_files(64, &[]).for_claude(&c);
    let mut event = bash_before("rm -rf /");
    event
        .as_object_mut()
        .expect("an object")
        .remove("session_id");
    let fires = 40;
    for id in 0..fires {
        s.fire(100 + id, event.clone());
    }
    let mut lost = Vec::new();
    let mut answered = 0;
    while answered < fires {
        let r = s.recv();
        if r.get("id").is_none() {
            continue;
        }
        answered += 1;
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
    assert_eq!(s.close(), 0);
}

/// `latch serve` for the claude dialect in `c`'s tree, sent `initialize`,
/// with its stdout (and stderr) left for the caller to read, or not.
fn initialized_with_stdout_unread(c: &Claude) -> (Child, ChildStdin) {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("latch"))
        .arg("serve")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"dialects": ["claude"], "project": c.project(), "home": c.home(),
            "claude_managed_dir": c.root.path().join("managed"),
            "state_dir": c.root.path().join("state")}});
    writeln!(stdin, "{init}").expect("write");
    (child, stdin)
}

/// At most 128 fires run their hooks at once (docs/serve.md, "Flow
/// control"); the others wait for a turn, and a cancel answers a waiting
/// one at once, having run nothing.
#[test]
fn at_most_128_fires_run_at_once_and_a_waiting_one_cancels_at_once() {
    let started = tempfile::tempdir().expect("tempdir");
    // Each hook records its payload (which names its fire), then sleeps
    // until the server kills it.
    let hook = format!("cat > '{}'/$$; exec sleep 120", started.path().display());
    let c = Claude::new().project_settings(&settings("PreToolUse", Some("Bash"), &[&hook]));
    let mut s = Server::claude(&c);
    let fires = 130;
    for i in 0..fires {
        let mut event = bash_before(&format!("ls {i}"));
        // No session: no fire waits for another of its session.
        event
            .as_object_mut()
            .expect("an object")
            .remove("session_id");
        s.fire(1000 + i, event);
    }
    // The payloads of the hooks that started, once each is written whole.
    let payloads = || -> Vec<Value> {
        std::fs::read_dir(started.path())
            .expect("read_dir")
            .filter_map(|e| serde_json::from_slice(&std::fs::read(e.ok()?.path()).ok()?).ok())
            .collect()
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while payloads().len() < 128 {
        assert!(
            std::time::Instant::now() < deadline,
            "only {} hooks started",
            payloads().len()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // Given the time to start more, none does.
    std::thread::sleep(Duration::from_millis(500));
    let ran: Vec<i64> = payloads()
        .iter()
        .filter_map(|p| {
            p["tool_input"]["command"]
                .as_str()?
                .strip_prefix("ls ")?
                .parse()
                .ok()
        })
        .collect();
    assert_eq!(ran.len(), 128, "hooks running at once: {ran:?}");
    // Counted as processes too: a hook that started but had not written
    // its payload yet is one.
    assert_eq!(
        footprint(s.child.id()).2,
        128,
        "the server's child processes"
    );
    let waiting = (0..fires)
        .find(|i| !ran.contains(i))
        .expect("a fire still waiting");
    s.send(
        json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 1000 + waiting}}),
    );
    // Answered while every running hook still sleeps.
    let r = loop {
        let m = s.recv();
        if m["id"].as_i64().is_some() {
            break m;
        }
    };
    assert_eq!(r["id"], 1000 + waiting, "{r}");
    assert_eq!(r["result"]["runs"], json!([]), "{r}");
    let warnings = r["result"]["warnings"].as_array().expect("warnings");
    assert!(
        warnings.contains(&json!("dispatch cancelled before any hook ran")),
        "{r}"
    );
    assert_eq!(s.close(), 0);
}

/// The server keeps the configurations of 64 working directories; past
/// that the cache starts again, and a directory loaded again says so as
/// a first load would (here with the kept last good version of a broken
/// settings file, which makes every load send a notice).
/// A file kept at its last good text in a directory that left the cache,
/// and fixed while it was out (no reload saw the fix): the directory's
/// next event reads the fixed file, not the kept text.
#[test]
fn a_kept_file_fixed_while_its_directory_was_out_of_the_cache_is_read_fixed() {
    let root = tempfile::tempdir().unwrap();
    let dir = |i: usize| root.path().join(format!("dirs/{i}"));
    let rm = |i: usize| {
        json!({"event": "tool_before", "session_id": format!("s{i}"), "cwd": dir(i),
            "tool": {"name": "runCommand", "input": {"command": "rm -rf /"}}})
    };
    let file = write_file(&dir(0), ".agents/hooks.yaml", PEEN_GUARD);
    std::fs::create_dir(root.path().join("project")).unwrap();
    let (mut s, _) = Server::peen(root.path());
    let r = s.request(2, "fire", rm(0));
    assert_eq!(r["result"]["reasons"][0]["text"], "no", "{r}");
    write_file(&dir(0), ".agents/hooks.yaml", "version: 1\npreToolUse: [\n");
    let n = s.notification("latch/diagnostics");
    assert_eq!(n["params"]["kept"], json!([file]), "{n}");
    // The project's configuration, `dirs/0` and 62 more fill the cache;
    // one more starts it again, without `dirs/0`.
    for i in 1..=63 {
        std::fs::create_dir_all(dir(i)).expect("mkdir");
        let id = 100 + i64::try_from(i).expect("small");
        assert_eq!(s.request(id, "fire", rm(i))["id"], id);
    }
    // Past the watcher's next look: `dirs/0` is watched no more.
    std::thread::sleep(Duration::from_millis(600));
    write_file(
        &dir(0),
        ".agents/hooks.yaml",
        &PEEN_GUARD.replace("reason: no", "reason: fixed"),
    );
    std::thread::sleep(Duration::from_millis(600));
    s.fire(3, rm(0));
    let r = s.recv();
    assert_eq!(r["id"], 3, "nothing kept, nothing to say: {r}");
    assert_eq!(r["result"]["reasons"][0]["text"], "fixed", "{r}");
    assert_eq!(s.close(), 0);
}

#[test]
fn the_cache_of_64_configurations_starts_again_past_its_bound() {
    let c = Claude::new().project_settings(&settings(
        "PreToolUse",
        Some("Bash"),
        &["echo no >&2; exit 2"],
    ));
    let mut s = Server::claude(&c);
    c.write("project/.claude/settings.json", "{\"hooks\": ");
    let n = s.notification("latch/diagnostics");
    assert_eq!(n["params"]["first_load"], false, "{n}");
    let from = |i: usize| {
        let dir = c.root.path().join(format!("dirs/{i}"));
        std::fs::create_dir_all(&dir).expect("mkdir");
        let mut e = bash_before("ls");
        e["cwd"] = json!(dir);
        (dir, e)
    };
    let loaded = |s: &mut Server, id: i64, i: usize| {
        let (dir, e) = from(i);
        s.fire(id, e);
        let (answer, notice) = s.answer_and_notice(id);
        assert_eq!(answer["result"]["decision"], "deny", "{answer}");
        assert_eq!(notice["params"]["first_load"], true, "{notice}");
        assert_eq!(notice["params"]["cwd"], json!(dir), "{notice}");
    };
    loaded(&mut s, 1, 0);
    // Cached: the answer comes with no notice before it.
    s.fire(2, from(0).1);
    let r = s.recv();
    assert_eq!(r["id"], 2, "no notice for a cached directory: {r}");
    // The project's configuration and 63 directories fill the cache, and
    // the first directory is still in it; the 64th directory starts it
    // again.
    for i in 1..=62 {
        loaded(&mut s, 100 + i64::try_from(i).expect("small"), i);
    }
    s.fire(3, from(0).1);
    let r = s.recv();
    assert_eq!(r["id"], 3, "the 64th configuration is still cached: {r}");
    loaded(&mut s, 4, 63);
    loaded(&mut s, 5, 0);
    assert_eq!(s.close(), 0);
}
