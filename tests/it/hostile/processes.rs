//! Hostile processes: descendants that leave the hook's process group
//! (`setsid`, `setpgid` as `timeout(1)` does), lose their parent (a double
//! fork), ignore SIGTERM, or keep forking. On a timeout or a cancel every one
//! of them dies; a hook that exits normally may leave a daemon that let go of
//! its output, and nothing that still holds it past the drain window.

use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::util::{Fired, Project, process_is_dead, yq};

/// Pids written by a hook; every one still alive is SIGKILLed when the test
/// ends, pass or fail, so a failing test leaves nothing behind.
pub(super) struct Pids(pub Vec<i32>);

impl Drop for Pids {
    fn drop(&mut self) {
        for &pid in &self.0 {
            if let Some(p) = rustix::process::Pid::from_raw(pid) {
                let _ = rustix::process::kill_process(p, rustix::process::Signal::KILL);
            }
        }
    }
}

/// Waits (up to 20 s: the machine may be busy) for a hook to write a pid.
pub(super) fn pid_in(path: &Path) -> i32 {
    let end = Instant::now() + Duration::from_secs(20);
    while Instant::now() < end {
        if let Ok(text) = std::fs::read_to_string(path)
            && text.ends_with('\n')
            && let Ok(pid) = text.trim().parse()
        {
            return pid;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("no pid in {}", path.display())
}

/// Every complete line of a pid list a hook appended to, if any.
fn pids_listed(path: &Path) -> Vec<i32> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let complete = text.rsplit_once('\n').map_or("", |(done, _)| done);
    complete
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

/// Waits up to 5 s for each process to die; returns the survivors.
pub(super) fn survivors(pids: &[i32]) -> Vec<i32> {
    let end = Instant::now() + Duration::from_secs(5);
    loop {
        let alive: Vec<i32> = pids
            .iter()
            .copied()
            .filter(|&p| !process_is_dead(p))
            .collect();
        if alive.is_empty() || Instant::now() >= end {
            return alive;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A project with one poolside `PreToolUse` hook.
pub(super) fn project_with_hook(command: &str, timeout: f64) -> Project {
    Project::new().settings(&format!(
        "hooks:\n  PreToolUse:\n    - {{name: h, timeout: {timeout}, command: {}}}\n",
        yq(command)
    ))
}

pub(super) fn tool_event() -> Value {
    json!({"event": "tool_before", "tool": {"name": "shell", "input": {}}})
}

/// Starts `latch fire` on the tool event, in the background.
pub(super) fn spawn_fire(p: &Project) -> Child {
    let mut child = p.fire_process().spawn().expect("latch starts");
    let event = serde_json::to_vec(&tool_event()).expect("json");
    std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), &event).expect("write");
    child
}

/// Waits for `latch` to end (at most 20 s, then kills it and fails).
pub(super) fn finish(mut child: Child) -> Fired {
    let end = Instant::now() + Duration::from_secs(20);
    while child.try_wait().expect("wait").is_none() {
        if Instant::now() >= end {
            let _ = child.kill();
            panic!("latch did not finish within 20 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Fired::from_output(&child.wait_with_output().expect("output"))
}

fn file(p: &Project, name: &str) -> PathBuf {
    p.dir().join(name)
}

/// Fires the hook (which records its pids in `names`), lets it time out,
/// and checks that every recorded process is dead once latch returns.
fn assert_timeout_kills_all(command: &str, timeout: f64, names: &[&str]) -> Fired {
    let p = project_with_hook(command, timeout);
    let child = spawn_fire(&p);
    let mut pids = Pids(names.iter().map(|n| pid_in(&file(&p, n))).collect());
    let f = finish(child);
    assert_eq!(f.code, 0, "{}", f.stderr);
    assert_eq!(f.runs()[0]["error"], "timeout", "{}", f.outcome);
    pids.0.extend(pids_listed(&file(&p, "kids")));
    assert_eq!(
        survivors(&pids.0),
        Vec::<i32>::new(),
        "processes outlived the timeout"
    );
    f
}

/// The audit's case: `timeout(1)` moves itself and its child into a group
/// of their own, which a group kill misses.
#[test]
fn a_timeout_kills_timeout_1_and_its_child_in_their_own_group() {
    let f = assert_timeout_kills_all(
        "timeout 300 sh -c 'echo $$ > inner.pid; exec sleep 300' & echo $! > outer.pid; wait",
        1.0,
        &["outer.pid", "inner.pid"],
    );
    assert!(
        f.runs()[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("latch killed it and its descendants")),
        "{}",
        f.outcome
    );
}

/// The pids of processes whose command line is exactly `args`.
fn processes_running(args: &[&str]) -> Vec<i32> {
    let want: Vec<u8> = args
        .iter()
        .flat_map(|a| [a.as_bytes(), b"\0"].concat())
        .collect();
    std::fs::read_dir("/proc")
        .expect("/proc")
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| c == want))
        .collect()
}

/// The audit's hook, word for word: `timeout 300 sleep 300` (with numbers
/// no other test uses, to find the processes afterwards).
#[test]
fn a_timeout_kills_the_audits_timeout_sleep_hook() {
    let timeout = ["timeout", "317", "sleep", "317.25"];
    let sleep = ["sleep", "317.25"];
    let p = project_with_hook(&timeout.join(" "), 1.0);
    let child = spawn_fire(&p);
    let end = Instant::now() + Duration::from_secs(20);
    while processes_running(&sleep).is_empty() {
        assert!(Instant::now() < end, "the hook never started sleep");
        std::thread::sleep(Duration::from_millis(20));
    }
    let f = finish(child);
    let mut pids = Pids(processes_running(&timeout));
    pids.0.extend(processes_running(&sleep));
    assert_eq!(f.runs()[0]["error"], "timeout", "{}", f.outcome);
    assert_eq!(
        survivors(&pids.0),
        Vec::<i32>::new(),
        "processes outlived the timeout"
    );
}

#[test]
fn a_timeout_kills_a_descendant_in_its_own_session() {
    assert_timeout_kills_all(
        "setsid sh -c 'echo $$ > d.pid; exec sleep 300' & echo $$ > h.pid; wait",
        1.0,
        &["h.pid", "d.pid"],
    );
}

/// The intermediate parent exits at once: the orphan is re-parented (to
/// latch, a subreaper) and in a session of its own.
#[test]
fn a_timeout_kills_a_double_forked_orphan_in_its_own_session() {
    assert_timeout_kills_all(
        "( setsid sh -c 'echo $$ > d.pid; exec sleep 300' & ) ; sleep 300",
        1.0,
        &["d.pid"],
    );
}

/// A descendant whose name (its program's file name) is not UTF-8 is still
/// seen in /proc, and so killed.
#[test]
fn a_timeout_kills_a_descendant_whose_name_is_not_utf8() {
    assert_timeout_kills_all(
        "n=\"$(printf '\\377\\376')\"; cp \"$(command -v sleep)\" \"./$n\"; setsid sh -c 'echo $$ > d.pid; exec \"$0\" 300' \"./$n\" & echo $$ > h.pid; wait",
        1.0,
        &["h.pid", "d.pid"],
    );
}

/// Everything ignores SIGTERM: only the SIGKILL after the grace stops it.
#[test]
fn a_timeout_kills_descendants_that_ignore_sigterm_and_left_the_group() {
    assert_timeout_kills_all(
        "trap '' TERM; setsid sh -c 'trap \"\" TERM; echo $$ > d.pid; while :; do sleep 1; done' </dev/null >/dev/null 2>&1 & echo $$ > h.pid; while :; do sleep 1; done",
        1.0,
        &["h.pid", "d.pid"],
    );
}

/// A process in its own session forks orphans in a loop while latch kills:
/// the freeze (SIGSTOP until the set stops growing) must not be outrun.
#[test]
fn a_timeout_kills_a_fork_loop_and_every_orphan_it_made() {
    assert_timeout_kills_all(
        "setsid sh -c 'echo $$ > loop.pid; i=0; while [ $i -lt 300 ]; do ( sleep 300 & echo $! >> kids ) ; i=$((i+1)); done; sleep 300' & echo first > started; wait",
        0.5,
        &["loop.pid"],
    );
}

/// A hook that exits normally may leave a daemon that let go of its
/// output: latch leaves it alone, as a shell would.
#[test]
fn a_detached_daemon_of_a_hook_that_exited_lives_on() {
    let p = project_with_hook(
        "setsid sh -c 'echo $$ > d.pid; exec sleep 300' </dev/null >/dev/null 2>&1 & exit 0",
        10.0,
    );
    let f = finish(spawn_fire(&p));
    let pids = Pids(vec![pid_in(&file(&p, "d.pid"))]);
    assert_eq!(f.code, 0, "{}", f.stderr);
    assert_eq!(f.status(0), "ok", "{}", f.outcome);
    assert!(
        !f.stderr.contains("holding its output open"),
        "{}",
        f.stderr
    );
    assert!(
        !process_is_dead(pids.0[0]),
        "the detached daemon was killed"
    );
}

/// A hook that exits but leaves something holding its output past the
/// drain window: that process dies, and every other descendant with it
/// (the detached daemon included), even outside the hook's group.
#[test]
fn a_holder_of_the_output_past_the_drain_window_dies_with_every_descendant() {
    let p = project_with_hook(
        "setsid sh -c 'echo $$ > d.pid; exec sleep 300' </dev/null >/dev/null 2>&1 & setsid sh -c 'echo $$ > holder.pid; exec sleep 300' & exit 0",
        10.0,
    );
    let child = spawn_fire(&p);
    let pids = Pids(vec![
        pid_in(&file(&p, "d.pid")),
        pid_in(&file(&p, "holder.pid")),
    ]);
    let f = finish(child);
    assert_eq!(f.code, 0, "{}", f.stderr);
    assert!(
        f.stderr.contains(
            "exited but left processes holding its output open; latch killed them and every other descendant of the hook"
        ),
        "{}",
        f.stderr
    );
    assert_eq!(survivors(&pids.0), Vec::<i32>::new());
}

/// SIGTERM to latch: the same descendants die as on a timeout.
#[test]
fn sigterm_kills_every_descendant_of_the_running_hook() {
    let p = project_with_hook(
        "echo $$ > h.pid; timeout 300 sh -c 'echo $$ > t.pid; exec sleep 300' & ( setsid sh -c 'echo $$ > d.pid; exec sleep 300' & ) ; setsid sh -c 'trap \"\" TERM; echo $$ > i.pid; while :; do sleep 1; done' </dev/null >/dev/null 2>&1 & wait",
        60.0,
    );
    let child = spawn_fire(&p);
    let pids = Pids(
        ["h.pid", "t.pid", "d.pid", "i.pid"]
            .iter()
            .map(|n| pid_in(&file(&p, n)))
            .collect(),
    );
    let latch = rustix::process::Pid::from_raw(child.id() as i32).expect("pid");
    rustix::process::kill_process(latch, rustix::process::Signal::TERM).expect("kill");
    let f = finish(child);
    assert_eq!(f.code, 0, "{}", f.stderr);
    assert_eq!(f.runs()[0]["error"], "cancelled", "{}", f.outcome);
    assert_eq!(
        survivors(&pids.0),
        Vec::<i32>::new(),
        "processes outlived the cancel"
    );
}
