//! Hostile signals: every catchable signal whose default action would end
//! latch (the list in docs/cli.md#signals) cancels the dispatch the way
//! SIGTERM does (the hook and its descendants die, the run is `cancelled`,
//! a deny already decided stays, exit 0 with the outcome and a warning
//! naming the signal); before the dispatch, it ends latch with exit code 6,
//! no outcome, and no hook started.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::processes::{Pids, finish, pid_in, spawn_fire, survivors};
use crate::util::{Project, yq};

/// The standard signals of the list, by number and name.
const STANDARD: &[(i32, &str)] = &[
    (1, "SIGHUP"),
    (2, "SIGINT"),
    (3, "SIGQUIT"),
    (10, "SIGUSR1"),
    (12, "SIGUSR2"),
    (14, "SIGALRM"),
    (15, "SIGTERM"),
    (16, "SIGSTKFLT"),
    (24, "SIGXCPU"),
    (25, "SIGXFSZ"),
    (26, "SIGVTALRM"),
    (27, "SIGPROF"),
    (29, "SIGIO"),
    (30, "SIGPWR"),
];

/// `SIGRTMIN` with glibc; 32 and 33 are the C library's own.
const RT_MIN: i32 = 34;
const RT_MAX: i32 = 64;

fn real_time() -> Vec<(i32, String)> {
    (RT_MIN..=RT_MAX)
        .map(|n| {
            let name = match n - RT_MIN {
                0 => "SIGRTMIN".to_owned(),
                k => format!("SIGRTMIN+{k}"),
            };
            (n, name)
        })
        .collect()
}

fn standard() -> Vec<(i32, String)> {
    STANDARD
        .iter()
        .map(|(n, s)| (*n, (*s).to_owned()))
        .collect()
}

fn send(pid: u32, sig: i32) {
    let ok = Command::new("kill")
        .arg(format!("-{sig}"))
        .arg(pid.to_string())
        .status()
        .expect("kill runs")
        .success();
    assert!(ok, "kill -{sig} {pid} failed");
}

/// A deny, then a hook that sleeps with a descendant in its own session,
/// then a hook that must never run.
fn three_hooks() -> Project {
    let slow = "echo $$ > h.pid; setsid sh -c 'echo $$ > d.pid; exec sleep 300' </dev/null >/dev/null 2>&1 & sleep 300";
    Project::new().settings(&format!(
        "hooks:\n  PreToolUse:\n    - {{name: deny, command: 'echo no >&2; exit 2'}}\n    - {{name: slow, command: {}}}\n    - {{name: never, command: 'touch never-ran'}}\n",
        yq(slow)
    ))
}

/// Sends `sig` while the slow hook runs; returns what went wrong, if
/// anything.
fn cancel_with(sig: i32, name: &str) -> Option<String> {
    let p = three_hooks();
    let child = spawn_fire(&p);
    let pids = Pids(vec![
        pid_in(&p.dir().join("h.pid")),
        pid_in(&p.dir().join("d.pid")),
    ]);
    send(child.id(), sig);
    let f = finish(child);
    let mut wrong = Vec::new();
    if f.code != 0 {
        wrong.push(format!("exit code {}", f.code));
    }
    if f.outcome["decision"] != "deny" {
        wrong.push("the earlier deny was lost".to_owned());
    }
    let runs = f.outcome["runs"].as_array().cloned().unwrap_or_default();
    if runs.len() != 2 || runs[1]["error"] != "cancelled" {
        wrong.push(format!("runs are not [deny, cancelled]: {runs:?}"));
    }
    if !f.warnings_contain(&format!("dispatch cancelled by {name}:")) {
        wrong.push(format!(
            "no warning naming {name}: {}",
            f.outcome["warnings"]
        ));
    }
    if p.dir().join("never-ran").exists() {
        wrong.push("a hook ran after the cancel".to_owned());
    }
    let alive = survivors(&pids.0);
    if !alive.is_empty() {
        wrong.push(format!("survivors {alive:?}"));
    }
    (!wrong.is_empty()).then(|| format!("{name}: {}; stderr: {}", wrong.join(", "), f.stderr))
}

fn cancel_each(signals: Vec<(i32, String)>) {
    let signals = catchable(signals);
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = signals
            .iter()
            .map(|(n, name)| s.spawn(move || cancel_with(*n, name)))
            .collect();
        handles
            .into_iter()
            .filter_map(|h| h.join().expect("no panic"))
            .collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_standard_terminating_signal_cancels_the_dispatch_and_kills_the_hook_tree() {
    cancel_each(standard());
}

#[test]
fn every_real_time_signal_cancels_the_dispatch_and_kills_the_hook_tree() {
    cancel_each(real_time());
}

/// Whether `pid` catches signal `sig` (its `SigCgt` mask in /proc).
fn catches(pid: u32, sig: i32) -> bool {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigCgt:"))
        .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
        .is_some_and(|mask| mask & (1 << (sig - 1)) != 0)
}

/// Starts `latch fire` with its stdin left open, so it is still reading
/// the event, and waits until it catches every signal of the list.
fn spawn_reading(p: &Project, all: &[(i32, String)]) -> Child {
    let child = p.fire_process().spawn().expect("latch starts");
    let end = Instant::now() + Duration::from_secs(20);
    while !all.iter().all(|(n, _)| catches(child.id(), *n)) {
        assert!(
            Instant::now() < end,
            "latch never caught every signal of the list"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    child
}

/// Which signals the test process was started with ignored (`latch`
/// inherits that and keeps them ignored, see docs/cli.md#signals).
fn ignored_here() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigIgn:"))
        .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
        .unwrap_or(0)
}

/// Every signal of the list that this environment lets latch catch.
fn catchable(signals: Vec<(i32, String)>) -> Vec<(i32, String)> {
    let ignored = ignored_here();
    signals
        .into_iter()
        .filter(|(n, _)| ignored & (1 << (n - 1)) == 0)
        .collect()
}

/// Sends each signal to a `latch fire` that has not started its dispatch;
/// with `event_after`, the event arrives right after the signal, so latch
/// may already be loading its settings when it notices.
fn before_dispatch(event_after: bool) {
    let mut all = standard();
    all.extend(real_time());
    let all = catchable(all);
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = all
            .iter()
            .map(|(n, name)| {
                let all = &all;
                s.spawn(move || {
                    let p = Project::new()
                        .settings("hooks:\n  PreToolUse:\n    - {name: h, command: 'touch ran'}\n");
                    let mut child = spawn_reading(&p, all);
                    let mut stdin = child.stdin.take();
                    send(child.id(), *n);
                    if event_after && let Some(mut pipe) = stdin.take() {
                        let _ = std::io::Write::write_all(
                            &mut pipe,
                            br#"{"event":"tool_before","tool":{"name":"shell","input":{}}}"#,
                        );
                    }
                    let f = finish(child);
                    drop(stdin);
                    let mut wrong = Vec::new();
                    if f.code != 6 {
                        wrong.push(format!("exit code {}", f.code));
                    }
                    if !f.outcome.is_null() {
                        wrong.push(format!("an outcome was printed: {}", f.outcome));
                    }
                    if !f
                        .stderr
                        .contains(&format!("{name} received before any hook ran"))
                    {
                        wrong.push("stderr does not name the signal".to_owned());
                    }
                    if p.dir().join("ran").exists() {
                        wrong.push("the hook ran".to_owned());
                    }
                    (!wrong.is_empty())
                        .then(|| format!("{name}: {}; stderr: {}", wrong.join(", "), f.stderr))
                })
            })
            .collect();
        handles
            .into_iter()
            .filter_map(|h| h.join().expect("no panic"))
            .collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A signal while latch still reads the event (before any configuration
/// is loaded, before any hook): exit 6, no outcome, a line naming the
/// signal. The event never ends, so latch, blocked reading it, can only
/// leave through the signal.
#[test]
fn a_signal_while_the_event_is_read_ends_latch_with_exit_6() {
    before_dispatch(false);
}

/// The event arrives right after the signal: however far latch got
/// (reading the settings, opening the session), it starts no hook and
/// exits 6, never a dispatch that skips the hooks.
#[test]
fn a_signal_just_before_the_dispatch_ends_latch_with_exit_6_and_runs_no_hook() {
    before_dispatch(true);
}

/// A signal latch was started with ignored (`nohup` ignores SIGHUP) stays
/// ignored: the hook runs to its end and nothing is cancelled.
#[test]
fn a_signal_ignored_by_whoever_started_latch_stays_ignored() {
    let p = Project::new()
        .settings("hooks:\n  PreToolUse:\n    - {name: h, command: 'echo $$ > h.pid; sleep 1'}\n");
    let latch = assert_cmd::cargo::cargo_bin("latch");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg("trap '' HUP; exec \"$@\"")
        .arg("sh")
        .arg(latch)
        .args(["fire", "--project"])
        .arg(p.dir())
        .arg("--home")
        .arg(p.home())
        .arg("--state-dir")
        .arg(p.state())
        .env_remove("LATCH_STATE_DIR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("latch starts");
    std::io::Write::write_all(
        &mut child.stdin.take().expect("stdin"),
        br#"{"event":"tool_before","tool":{"name":"shell","input":{}}}"#,
    )
    .expect("write");
    let _pids = Pids(vec![pid_in(&p.dir().join("h.pid"))]);
    send(child.id(), 1);
    let f = finish(child);
    assert_eq!(f.code, 0, "{}", f.stderr);
    assert_eq!(f.status(0), "ok", "{}", f.outcome);
    assert!(!f.warnings_contain("cancelled"), "{}", f.outcome);
}

/// `latch test` answers the same signals: the running scenario stops, its
/// hook and the hook's descendants die, and latch exits 6.
#[test]
fn a_signal_stops_latch_test_and_kills_the_running_hook_tree() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pids = dir.path().join("pids");
    let scenario = dir.path().join("slow.yaml");
    let script = format!(
        "setsid sleep 300 & echo $! >> {p}; echo $$ >> {p}; sleep 300",
        p = pids.display()
    );
    let text = format!(
        "dialect: poolside\nconfig:\n  files:\n    .poolside/settings.yaml: |\n      hooks:\n        PreToolUse:\n          - name: slow\n            command: {}\n            timeout: 600\ncases:\n  - name: waits\n    event: {{event: tool_before, tool: {{name: shell, input: {{}}}}}}\n    expect: {{decision: proceed}}\n",
        yq(&script)
    );
    std::fs::write(&scenario, text).expect("write scenario");
    let child = Command::new(env!("CARGO_BIN_EXE_latch"))
        .arg("test")
        .arg(&scenario)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("latch test starts");
    let started = Instant::now();
    while std::fs::read_to_string(&pids).map_or(0, |t| t.lines().count()) < 2 {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the hook never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    send(child.id(), 15);
    let out = child.wait_with_output().expect("latch test ends");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(6), "{stdout}");
    assert!(stdout.contains("interrupted by SIGTERM"), "{stdout}");
    for pid in std::fs::read_to_string(&pids).expect("pids").lines() {
        let pid: i32 = pid.trim().parse().expect("a pid");
        assert!(
            crate::util::wait_dead(pid),
            "process {pid} outlived latch test"
        );
    }
}

/// A signal while poolside's hook runs stops the dispatch before peen's
/// turn; peen's deny group never ran, and on a `pre` event that must not
/// read as "nothing objected": peen's failure rule denies.
#[test]
fn a_signal_before_peen_runs_keeps_peen_s_deny() {
    let p = Project::new().settings(
        "hooks:\n  PreToolUse:\n    - {name: slow, command: 'echo $$ > h.pid; sleep 300'}\n",
    );
    p.write(
        ".agents/hooks.yaml",
        "version: 1\npreToolUse:\n  - name: guard\n    actions:\n      - {name: block, type: deny, reason: never without review}\n",
    );
    let child = spawn_fire(&p);
    let hook = pid_in(&p.dir().join("h.pid"));
    send(child.id(), 15);
    let f = finish(child);
    assert_eq!(f.code, 0, "{}", f.stderr);
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);
    assert!(crate::util::wait_dead(hook));
}
