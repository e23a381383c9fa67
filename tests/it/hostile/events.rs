//! Hostile events: endless, huge, deep, non-regular or malformed input to
//! `latch fire`. Each must end quickly with a clear error and exit code 3
//! (the documented code for a bad event), never hang or grow without limit.

use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::util::Project;

/// The documented exit code for an event that cannot be read or is invalid.
const BAD_EVENT: i32 = 3;
/// A generous hang guard: every case here ends in well under a second.
const GUARD: Duration = Duration::from_secs(20);

/// `latch fire` on the test project, as a plain child process.
fn fire_cmd(p: &Project) -> Command {
    let mut cmd = p.fire_process();
    cmd.stdin(Stdio::null());
    cmd
}

/// Waits for `child` within the hang guard; kills it and fails otherwise.
fn finish(mut child: Child, what: &str) -> Output {
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if start.elapsed() < GUARD => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("latch fire {what} did not finish within {GUARD:?}");
            }
        }
    }
    child.wait_with_output().expect("output")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Exit 3, nothing on stdout, and stderr containing every one of `needles`.
fn assert_bad_event(out: &Output, needles: &[&str]) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(BAD_EVENT), "stderr: {err}");
    assert!(out.stdout.is_empty(), "stdout: {:?}", out.stdout);
    for n in needles {
        assert!(err.contains(n), "stderr lacks {n:?}: {err}");
    }
}

fn fire_file(p: &Project, path: &Path) -> Output {
    let child = fire_cmd(p)
        .arg("--event")
        .arg(path)
        .stdin(Stdio::null())
        .spawn()
        .expect("spawn");
    finish(child, &format!("--event {}", path.display()))
}

fn fire_stdin(p: &Project, bytes: &[u8], env: &[(&str, &str)]) -> Output {
    let mut cmd = fire_cmd(p);
    cmd.stdin(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let bytes = bytes.to_vec();
    // A writer thread: latch may stop reading early (and close the pipe).
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&bytes);
    });
    let out = finish(child, "on stdin");
    let _ = writer.join();
    out
}

#[test]
fn dev_zero_as_the_event_file_is_refused() {
    let p = Project::new();
    let out = fire_file(&p, Path::new("/dev/zero"));
    assert_bad_event(&out, &["cannot read /dev/zero", "character device"]);
}

#[test]
fn dev_zero_on_stdin_stops_at_the_limit() {
    let p = Project::new();
    let zero = fs::File::open("/dev/zero").expect("/dev/zero");
    let child = fire_cmd(&p).stdin(zero).spawn().expect("spawn");
    let out = finish(child, "< /dev/zero");
    assert_bad_event(
        &out,
        &[
            "the event on stdin is larger than the event size limit of 16777216 bytes (16 MiB)",
            "LATCH_MAX_EVENT_BYTES",
        ],
    );
}

#[test]
fn a_directory_as_the_event_file_is_refused() {
    let p = Project::new();
    let out = fire_file(&p, &p.dir());
    assert_bad_event(&out, &["it is a directory, not a regular file"]);
}

#[test]
fn a_fifo_whose_writer_never_closes_is_refused_without_hanging() {
    let p = Project::new();
    let fifo = p.dir().join("event.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    // A writer that keeps the FIFO open and writes forever.
    let mut writer = Command::new("sh")
        .arg("-c")
        .arg("exec 3>\"$1\"; while :; do echo '{\"event\":\"stop\"}' >&3; done")
        .arg("sh")
        .arg(&fifo)
        .spawn()
        .expect("writer");
    let out = fire_file(&p, &fifo);
    let _ = writer.kill();
    let _ = writer.wait();
    assert_bad_event(&out, &["it is a FIFO, not a regular file"]);
    // Without any writer at all, opening must not block either.
    let out = fire_file(&p, &fifo);
    assert_bad_event(&out, &["it is a FIFO, not a regular file"]);
}

#[test]
fn an_endless_stdin_from_a_child_is_cut_at_the_limit() {
    let p = Project::new();
    let mut yes = Command::new("sh")
        .arg("-c")
        .arg("while :; do printf '%s\\n' '{\"event\":\"stop\"}                                       '; done")
        .stdout(Stdio::piped())
        .spawn()
        .expect("writer");
    let pipe = yes.stdout.take().expect("pipe");
    let child = fire_cmd(&p).stdin(pipe).spawn().expect("spawn");
    let out = finish(child, "on an endless stdin");
    let _ = yes.kill();
    let _ = yes.wait();
    assert_bad_event(&out, &["larger than the event size limit"]);
}

#[test]
fn an_event_just_over_the_limit_is_refused_and_one_at_it_is_read() {
    let p = Project::new();
    let event = br#"{"event":"stop"}"#;
    let mut at = event.to_vec();
    at.resize(100, b' ');
    let limit = [("LATCH_MAX_EVENT_BYTES", "100")];
    let out = fire_stdin(&p, &at, &limit);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut over = at.clone();
    over.push(b' ');
    let out = fire_stdin(&p, &over, &limit);
    assert_bad_event(&out, &["larger than the event size limit of 100 bytes;"]);
    // The same through a file, whose size is checked before reading.
    let file = p.write("over.json", std::str::from_utf8(&over).expect("ascii"));
    let child = fire_cmd(&p)
        .env("LATCH_MAX_EVENT_BYTES", "100")
        .arg("--event")
        .arg(&file)
        .stdin(Stdio::null())
        .spawn()
        .expect("spawn");
    let out = finish(child, "over.json");
    assert_bad_event(&out, &[&format!("{} is larger than", file.display())]);
}

#[test]
fn the_default_limit_is_16_mib() {
    let p = Project::new();
    let mut over = br#"{"event":"stop"}"#.to_vec();
    over.resize(16 * 1024 * 1024 + 1, b' ');
    let file = p.dir().join("big.json");
    fs::write(&file, &over).expect("write");
    let out = fire_file(&p, &file);
    assert_bad_event(
        &out,
        &["larger than the event size limit of 16777216 bytes"],
    );
    over.pop();
    fs::write(&file, &over).expect("write");
    let out = fire_file(&p, &file);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn a_malformed_limit_is_an_error_not_a_silent_default() {
    let p = Project::new();
    let out = fire_stdin(
        &p,
        br#"{"event":"stop"}"#,
        &[("LATCH_MAX_EVENT_BYTES", "16M")],
    );
    assert_bad_event(
        &out,
        &["LATCH_MAX_EVENT_BYTES=\"16M\" is not a positive number of bytes"],
    );
}

#[test]
fn a_deeply_nested_event_is_an_error_with_its_position() {
    let p = Project::new().settings("hooks:\n  PreToolUse:\n    - {command: 'exit 0'}\n");
    let depth = 100_000;
    let mut ev = String::from(r#"{"event":"tool_before","tool":{"name":"x","input":"#);
    // Two levels are the event and `tool` objects: the 127th `[` is one too many.
    let col = ev.len() + 126;
    ev.push_str(&"[".repeat(depth));
    ev.push_str(&"]".repeat(depth));
    ev.push_str("}}");
    let out = fire_stdin(&p, ev.as_bytes(), &[]);
    assert_bad_event(
        &out,
        &[
            "stdin is not a valid event: recursion limit exceeded",
            &format!("line 1 column {col}"),
        ],
    );
    // Nesting within the limit is an ordinary event.
    let ok = json!({"event": "tool_before", "tool": {"name": "x", "input": nested(100)}});
    let out = fire_stdin(&p, ok.to_string().as_bytes(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn a_4_mb_structured_tool_input_checked_by_peen_costs_at_most_3_times_its_size() {
    // Poolside and peen both read the input: poolside passes it to a hook,
    // peen follows pointers into it for `equals` and `regex` checks (which
    // pass, so the probes run after every check). Each dialect's last hook
    // records latch's peak resident set (VmHWM of its parent).
    let p = Project::new().settings(
        "hooks:\n  PreToolUse:\n    - {name: reader, command: 'cat > /dev/null'}\n    - {name: probe, command: 'cat > /dev/null; grep VmHWM /proc/$PPID/status > hwm-poolside.txt'}\n",
    );
    p.write(
        ".agents/hooks.yaml",
        "version: 1\npreToolUse:\n  - name: checks\n    match: {input: {/data: {exists: true}, /kind: {equals: nested}, /deep: {regex: '^\\[\\[\\['}}}\n    actions:\n      - {name: probe, type: command, command: sh, args: ['-c', 'cat > /dev/null; grep VmHWM /proc/$PPID/status > hwm-peen.txt']}\n",
    );
    let copies = vec![nested(100); 20_000];
    let event = json!({"event": "tool_before", "session_id": "s", "cwd": p.dir(),
        "tool": {"name": "shell", "input": {"kind": "nested", "data": copies, "deep": nested(120)}}});
    let file = p.dir().join("big.json");
    fs::write(&file, event.to_string()).expect("write");
    let size = fs::metadata(&file).expect("size").len();
    assert!(size > 4_000_000, "{size}");
    let out = fire_file(&p, &file);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for dialect in ["poolside", "peen"] {
        let kib = peak_kib(&p.dir().join(format!("hwm-{dialect}.txt")));
        let limit_kib = 3 * size / 1024 + 40 * 1024;
        eprintln!("{dialect}: latch peaked at {kib} KiB for a {size}-byte event");
        assert!(
            kib <= limit_kib,
            "{dialect}: latch peaked at {kib} KiB for a {size}-byte event (limit {limit_kib} KiB)"
        );
    }
}

/// The `VmHWM` line a probe hook wrote, in KiB.
fn peak_kib(file: &Path) -> u64 {
    fs::read_to_string(file)
        .expect("the probe hook ran")
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .expect("VmHWM in KiB")
}

fn nested(depth: usize) -> serde_json::Value {
    (0..depth).fold(json!(1), |v, _| json!([v]))
}

#[test]
fn invalid_utf8_is_an_error_with_its_position() {
    let p = Project::new();
    let out = fire_stdin(&p, b"{\"event\":\"stop\",\"reason\":\"a\xffb\"}", &[]);
    assert_bad_event(&out, &["stdin is not a valid event:", "line 1 column 28"]);
}

#[test]
fn malformed_json_is_an_error_with_its_position() {
    let p = Project::new();
    let out = fire_stdin(&p, b"{\"event\":\"stop\",\n  }", &[]);
    assert_bad_event(
        &out,
        &["stdin is not a valid event: trailing comma at line 2 column 3"],
    );
    let out = fire_stdin(&p, b"{\"event\":\"stop\"} {}", &[]);
    assert_bad_event(&out, &["trailing characters at line 1 column 18"]);
    let out = fire_stdin(&p, b"", &[]);
    assert_bad_event(&out, &["EOF while parsing a value at line 1 column 0"]);
}

#[test]
fn a_4_mb_structured_tool_output_costs_at_most_3_times_its_size() {
    // The last hook records latch's peak resident set (VmHWM of its
    // parent, latch itself) after every payload has been built.
    let p = Project::new().settings(
        "hooks:\n  PostToolUse:\n    - {name: reader, command: 'cat > /dev/null'}\n    - {name: probe, command: 'cat > /dev/null; grep VmHWM /proc/$PPID/status > hwm.txt'}\n",
    );
    let numbers = vec![json!(7); 2_000_000];
    let event = json!({"event": "tool_after", "session_id": "s",
        "tool": {"name": "shell", "input": {"cmd": "seq"}, "output": {"data": numbers}}});
    let file = p.dir().join("big.json");
    fs::write(&file, event.to_string()).expect("write");
    let size = fs::metadata(&file).expect("size").len();
    let out = fire_file(&p, &file);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let kib = peak_kib(&p.dir().join("hwm.txt"));
    // 3 x the event plus a constant generous enough for a debug build.
    let limit_kib = 3 * size / 1024 + 40 * 1024;
    eprintln!("latch peaked at {kib} KiB for a {size}-byte event");
    assert!(
        kib <= limit_kib,
        "latch peaked at {kib} KiB for a {size}-byte event (limit {limit_kib} KiB)"
    );
}
