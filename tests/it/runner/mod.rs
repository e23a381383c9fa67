//! The process runner, on real processes.
//!
//! The cases in `cases.rs` run seven times: waiting on the reactor, with
//! the runner lending the thread (`Runner::lend_thread`), lent until an
//! interrupt or for 20 ms only (then handed to the reactor), in a lent
//! batch beside another hook (`Runner::run_batch`), and started from the
//! blocking pool (`Runner::spawn_off_thread`) alone and in a batch, none of
//! which may change any result. What only one of them can do is tested
//! here.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use latch::run::{
    Cancel, EnvPolicy, Exit, HookCommand, Lend, OutputLimits, OutputWait, Program, RunResult,
    Runner, SpawnFailure, Termination,
};

use crate::util::{process_is_dead, read_pid, wait_dead};

fn sh(script: &str) -> HookCommand {
    HookCommand {
        program: Program::Shell {
            shell: PathBuf::from("/bin/sh"),
            script: script.to_owned(),
        },
        env: EnvPolicy::Inherit(Vec::new()),
        cwd: None,
        stdin: b"{}".to_vec(),
        timeout: Duration::from_secs(10),
        limits: OutputLimits {
            stdout: 1024 * 1024,
            stderr: 64 * 1024,
        },
        output_wait: OutputWait::Drain,
        detach: None,
    }
}

/// Asserts that the hook could not start, for `reason`.
fn assert_spawn_failed(r: &RunResult, reason: SpawnFailure) {
    match &r.termination {
        Termination::SpawnFailed { reason: got, .. } => assert_eq!(*got, reason),
        other => panic!("not a spawn failure: {other:?}"),
    }
}

fn fast() -> Runner {
    runner(false)
}

/// A runner with short grace and drain periods, lending the thread or not.
fn runner(lend_thread: bool) -> Runner {
    Runner {
        grace: Duration::from_millis(200),
        drain: Duration::from_millis(300),
        lend_thread,
        spawn_off_thread: false,
    }
}

/// The case's result from a batch of `[companion, case]`, once the
/// companion (`echo companion`) is seen to have kept its own result:
/// whatever the case does must leave it that.
fn beside_companion(mut results: Vec<(RunResult, usize)>) -> RunResult {
    assert_eq!(results.len(), 2);
    let (case, _) = results.pop().unwrap();
    let (companion, _) = results.pop().unwrap();
    assert_eq!(companion.exit_code(), Some(0), "{companion:?}");
    assert_eq!(companion.stdout.bytes, b"companion\n");
    case
}

/// Each case on the reactor.
mod reactor {
    use super::*;

    async fn run(cmd: &HookCommand) -> RunResult {
        runner(false).run_alone(cmd, &Cancel::never()).await
    }

    include!("cases.rs");
}

/// Each case with the thread lent.
mod lent {
    use super::*;

    async fn run(cmd: &HookCommand) -> RunResult {
        runner(true).run_alone(cmd, &Cancel::never()).await
    }

    include!("cases.rs");
}

/// Each case with the thread lent until a descriptor is readable, and it
/// is at once: every hook is handed to the reactor at its first wake-up.
mod interrupted {
    use super::*;

    async fn run(cmd: &HookCommand) -> RunResult {
        let (read, write) = std::io::pipe().unwrap();
        std::io::Write::write_all(&mut &write, b"x").unwrap();
        let lend = Lend {
            interrupt: Some(std::os::fd::AsFd::as_fd(&read)),
            until: None,
            taken_back: None,
        };
        runner(false)
            .run_lending(cmd, &Cancel::never(), Some(lend))
            .await
    }

    include!("cases.rs");
}

/// Each case in a batch with the thread lent for 20 ms: a hook still
/// running then goes to the reactor with what it printed so far.
mod bounded {
    use super::*;

    async fn run(cmd: &HookCommand) -> RunResult {
        let companion = sh("echo companion");
        let lend = Lend {
            interrupt: None,
            until: Some(Instant::now() + Duration::from_millis(20)),
            taken_back: None,
        };
        let results = runner(false)
            .run_batch_lending(&[&companion, cmd], &Cancel::never(), Some(lend))
            .await;
        beside_companion(results)
    }

    include!("cases.rs");
}

/// Each case started from the blocking pool and waited for on the
/// reactor, alone (as `latch serve` runs a fire beside others).
mod off_thread {
    use super::*;

    async fn run(cmd: &HookCommand) -> RunResult {
        let runner = off_thread_runner();
        runner.run_alone(cmd, &Cancel::never()).await
    }

    include!("cases.rs");
}

/// Each case started from the blocking pool in a batch, second of two
/// hooks, waited for on the reactor.
mod off_thread_batch {
    use super::*;

    async fn run(cmd: &HookCommand) -> RunResult {
        let companion = sh("echo companion");
        let runner = off_thread_runner();
        let results = runner.run_batch(&[&companion, cmd], &Cancel::never()).await;
        beside_companion(results)
    }

    include!("cases.rs");
}

/// Each case in a lent batch, second of two hooks: the first prints and
/// exits at once, and whatever the case does must leave it its result.
mod batch {
    use super::*;

    async fn run(cmd: &HookCommand) -> RunResult {
        let companion = sh("echo companion");
        let results = runner(true)
            .run_batch(&[&companion, cmd], &Cancel::never())
            .await;
        beside_companion(results)
    }

    include!("cases.rs");
}

#[tokio::test]
async fn dropping_a_run_kills_its_group() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let cmd = sh(&format!(
        "sleep 1000 & echo $! > {}; wait",
        pidfile.display()
    ));
    let runner = fast();
    let cancelled = tokio::time::timeout(Duration::from_millis(300), runner.run(&cmd)).await;
    assert!(cancelled.is_err(), "the run should still be going");
    assert!(
        wait_dead(read_pid(&pidfile)),
        "the cancelled hook's grandchild survived"
    );
}

/// Polls `f` once: its output if it is ready, else `None` (it stays where
/// it waits).
async fn poll_once<F: std::future::Future>(mut f: std::pin::Pin<&mut F>) -> Option<F::Output> {
    std::future::poll_fn(|cx| match f.as_mut().poll(cx) {
        std::task::Poll::Ready(out) => std::task::Poll::Ready(Some(out)),
        std::task::Poll::Pending => std::task::Poll::Ready(None),
    })
    .await
}

/// A runner that starts its hooks from the blocking pool.
fn off_thread_runner() -> Runner {
    Runner {
        spawn_off_thread: true,
        ..fast()
    }
}

/// 64 hooks that each start a sleeper in the background, write its pid to
/// `dir/<n>` and wait: their spawns keep the blocking pool busy for tens of
/// milliseconds.
fn sleepers(dir: &std::path::Path) -> Vec<HookCommand> {
    (0..64)
        .map(|n| {
            sh(&format!(
                "sleep 1000 & echo $! > '{}/{n}'; wait",
                dir.display()
            ))
        })
        .collect()
}

/// A run dropped while its hooks are being started from the blocking pool
/// kills each of them once started: none outlives the run. (The pool goes
/// on spawning, then drops what it started.)
#[tokio::test]
async fn dropping_a_run_while_its_hooks_start_off_the_thread_kills_them() {
    let dir = tempfile::tempdir().unwrap();
    let hooks = sleepers(dir.path());
    let hooks: Vec<&HookCommand> = hooks.iter().collect();
    let runner = off_thread_runner();
    let never = Cancel::never();
    // Boxed, so that dropping it drops the run.
    let mut run = Box::pin(runner.run_batch(&hooks, &never));
    // Polled until a hook wrote its sleeper's pid (its turn to spawn may wait
    // for another test's), then dropped with the others still starting.
    let mut seen = 0;
    for _ in 0..2000 {
        assert!(poll_once(run.as_mut()).await.is_none());
        seen = std::fs::read_dir(dir.path()).unwrap().count();
        if seen > 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    drop(run);
    assert!(seen > 0, "no hook started");
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let path = entry.unwrap().path();
        let Ok(pid) = std::fs::read_to_string(&path).unwrap().trim().parse() else {
            continue; // written as it was killed
        };
        assert!(
            wait_dead(pid),
            "sleeper {} outlived its run",
            path.display()
        );
    }
}

/// A dispatch cancelled while its hooks wait for their turn to start from
/// the blocking pool starts none of them.
#[tokio::test]
async fn a_cancel_while_hooks_wait_to_start_off_the_thread_starts_none() {
    let dir = tempfile::tempdir().unwrap();
    let busy = sleepers(dir.path());
    let busy: Vec<&HookCommand> = busy.iter().collect();
    let runner = off_thread_runner();
    let (stop_busy, busy_cancel) = Cancel::pair();
    let first = runner.run_batch(&busy, &busy_cancel);
    tokio::pin!(first);
    // The first batch holds the turn while its 64 spawns go on (or waits
    // for it behind another test's spawns: then it is cancelled below
    // before it starts, which the later runs' checks do not mind).
    assert!(poll_once(first.as_mut()).await.is_none());
    let marker = dir.path().join("started");
    let late = sh(&format!("touch '{}'", marker.display()));
    let (handle, cancel) = Cancel::pair();
    let alone = runner.run_until(&late, &cancel);
    let pair = [&late, &late];
    let batch = runner.run_batch(&pair, &cancel);
    tokio::pin!(alone, batch);
    assert!(poll_once(alone.as_mut()).await.is_none());
    assert!(poll_once(batch.as_mut()).await.is_none());
    handle.cancel();
    let alone = alone.await;
    assert_eq!(alone.termination, Termination::CancelledBeforeStart);
    for (r, _) in batch.await {
        assert_eq!(r.termination, Termination::CancelledBeforeStart);
    }
    stop_busy.cancel();
    for (r, _) in first.await {
        assert!(
            matches!(
                r.termination,
                Termination::Cancelled { .. } | Termination::CancelledBeforeStart
            ),
            "{:?}",
            r.termination
        );
    }
    assert!(!marker.exists(), "a cancelled hook started");
}

#[tokio::test]
async fn dropping_an_engine_dispatch_kills_the_running_hook_group() {
    use latch::dialect::poolside::{Poolside, Sources};
    use latch::{Engine, Event, Session};

    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".poolside")).unwrap();
    std::fs::write(
        dir.path().join(".poolside/settings.yaml"),
        "hooks:\n  PreToolUse:\n    - command: 'sleep 1000 & echo $! > pid; wait'\n",
    )
    .unwrap();
    let engine = Engine::new().with_dialect(Poolside::load(&Sources {
        project: Some(dir.path().to_path_buf()),
        ..Sources::default()
    }));
    let event = Event::tool_before("shell", serde_json::json!({}));
    let session = Session::in_memory(None);
    let cancelled = tokio::time::timeout(
        Duration::from_millis(400),
        engine.dispatch(&event, &session),
    )
    .await;
    assert!(cancelled.is_err(), "the dispatch should still be running");
    assert!(
        wait_dead(read_pid(&dir.path().join("pid"))),
        "the cancelled hook's child survived"
    );
}

/// Dropping a run (a dropped dispatch) kills a descendant that left the
/// group too: the drop guard uses the same kill as the timeout.
#[tokio::test]
async fn dropping_a_run_kills_a_descendant_that_left_the_group() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let cmd = sh(&format!(
        "setsid sh -c 'echo $$ > {}; exec sleep 1000' & wait",
        pidfile.display()
    ));
    let runner = fast();
    let dropped = tokio::time::timeout(Duration::from_millis(400), runner.run(&cmd)).await;
    assert!(dropped.is_err(), "the run should still be going");
    let pid = read_pid(&pidfile);
    let dead = wait_dead(pid);
    if let Some(p) = rustix::process::Pid::from_raw(pid) {
        let _ = rustix::process::kill_process(p, rustix::process::Signal::KILL);
    }
    assert!(
        dead,
        "a descendant in its own session outlived the dropped run"
    );
}

/// A cancel ends the wait for the output at once, and the holder dies.
#[tokio::test]
async fn a_cancel_ends_the_wait_for_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let pid = dir.path().join("pid");
    let mut cmd = sh(&format!("sleep 30 & echo $! > '{}'", pid.display()));
    cmd.output_wait = OutputWait::UntilTimeout;
    cmd.timeout = Duration::from_secs(60);
    let (handle, cancel) = latch::run::Cancel::pair();
    let started = Instant::now();
    let runner = fast();
    let run = runner.run_until(&cmd, &cancel);
    let cancel_soon = async {
        tokio::time::sleep(Duration::from_millis(700)).await;
        handle.cancel();
    };
    let (r, ()) = tokio::join!(run, cancel_soon);
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(r.killed_leftovers);
    assert!(wait_dead(read_pid(&pid)));
}

/// A task on the current runtime that counts up every 20 ms, for as long
/// as the runtime's thread is free to run it.
fn ticker(ticks: &std::sync::Arc<std::sync::atomic::AtomicUsize>) -> tokio::task::JoinHandle<()> {
    let counter = std::sync::Arc::clone(ticks);
    tokio::spawn(async move {
        loop {
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
}

/// A lent thread runs nothing else until the hook ends (what
/// `Runner::lend_thread` documents); the reactor keeps other tasks going.
#[test]
fn a_lent_run_holds_its_thread_and_a_reactor_run_does_not() {
    for lend in [false, true] {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let ticks = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let during = rt.block_on(async {
            let ticker = ticker(&ticks);
            // Let the ticker start, then run a hook of 400 ms alone, then a
            // batch of 300 ms.
            tokio::task::yield_now().await;
            let before = ticks.load(std::sync::atomic::Ordering::SeqCst);
            let r = runner(lend)
                .run_alone(&sh("sleep 0.4"), &Cancel::never())
                .await;
            assert_eq!(r.exit_code(), Some(0));
            // A batch holds it the same way.
            let (a, b) = (sh("sleep 0.2"), sh("sleep 0.3"));
            let batch = runner(lend).run_batch(&[&a, &b], &Cancel::never()).await;
            assert!(batch.iter().all(|(r, _)| r.exit_code() == Some(0)));
            let during = ticks.load(std::sync::atomic::Ordering::SeqCst) - before;
            ticker.abort();
            during
        });
        if lend {
            assert_eq!(during, 0, "the ticker ran on a lent thread");
        } else {
            assert!(during >= 5, "the ticker ticked {during} times in 700 ms");
        }
    }
}

/// A lending taken back through its interrupt is not lent again to the
/// dispatch's next hook, though the interrupt is quiet by then (what took
/// the thread back was read meanwhile, as `latch serve` reads the next
/// message); a lending never taken back still holds the thread.
#[test]
fn a_lending_taken_back_once_lends_the_thread_no_more() {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    for taken_back_before in [false, true] {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let ticks = std::sync::Arc::new(AtomicUsize::new(0));
        let (read, write) = std::io::pipe().unwrap();
        let taken_back = AtomicBool::new(false);
        let lend = Lend {
            interrupt: Some(std::os::fd::AsFd::as_fd(&read)),
            until: None,
            taken_back: Some(&taken_back),
        };
        let during = rt.block_on(async {
            if taken_back_before {
                // A message arrives while the first hook runs.
                std::io::Write::write_all(&mut &write, b"x").unwrap();
                let r = runner(false)
                    .run_lending(&sh("exit 3"), &Cancel::never(), Some(lend))
                    .await;
                assert_eq!(r.exit_code(), Some(3));
                assert!(taken_back.load(Ordering::SeqCst));
                // The server reads it: the interrupt is quiet again.
                std::io::Read::read_exact(&mut &read, &mut [0u8; 1]).unwrap();
            }
            let ticker = ticker(&ticks);
            tokio::task::yield_now().await;
            let before = ticks.load(Ordering::SeqCst);
            let r = runner(false)
                .run_lending(&sh("sleep 0.4"), &Cancel::never(), Some(lend))
                .await;
            assert_eq!(r.exit_code(), Some(0));
            let during = ticks.load(Ordering::SeqCst) - before;
            ticker.abort();
            during
        });
        if taken_back_before {
            assert!(during >= 5, "the ticker ticked {during} times in 400 ms");
        } else {
            assert_eq!(during, 0, "the ticker ran on a lent thread");
        }
    }
}

/// A lent thread cannot see a cancel from its own runtime, but one from
/// another thread (as `latch fire`'s signal thread sends) stops the hook
/// at once, as on the reactor.
#[tokio::test]
async fn a_cancel_from_another_thread_stops_a_lent_run() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let cmd = sh(&format!(
        "sleep 30 & echo $! > '{}'; wait",
        pidfile.display()
    ));
    let (handle, cancel) = Cancel::pair();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        handle.cancel();
    });
    let started = Instant::now();
    let r = runner(true).run_alone(&cmd, &cancel).await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(
        matches!(r.termination, Termination::Cancelled { .. }),
        "{:?}",
        r.termination
    );
    assert!(wait_dead(read_pid(&pidfile)), "the hook's child survived");
    canceller.join().unwrap();
}

/// A token cancelled before the run starts stops the hook at once, lent or
/// not.
#[tokio::test]
async fn a_cancel_that_came_first_stops_the_hook_at_once() {
    for lend in [false, true] {
        let (handle, cancel) = Cancel::pair();
        handle.cancel();
        let started = Instant::now();
        let r = runner(lend).run_alone(&sh("sleep 30"), &cancel).await;
        assert!(started.elapsed() < Duration::from_secs(5));
        assert!(
            matches!(r.termination, Termination::Cancelled { .. }),
            "lend {lend}: {:?}",
            r.termination
        );
    }
}

/// The hooks of a batch run at once, lent or not: the first waits for a
/// file that the last makes, which one after another would time out.
/// Results come back in the hooks' order, each with when it finished.
#[tokio::test]
async fn a_batch_runs_its_hooks_at_once_and_says_when_each_finished() {
    for lend in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let mut waits = sh("while [ ! -f made ]; do sleep 0.01; done; echo waited");
        let mut reads = sh("cat; exit 3");
        let mut makes = sh("sleep 0.3; touch made");
        for cmd in [&mut waits, &mut reads, &mut makes] {
            cmd.cwd = Some(dir.path().to_path_buf());
            cmd.timeout = Duration::from_secs(20);
        }
        let results = runner(lend)
            .run_batch(&[&waits, &reads, &makes], &Cancel::never())
            .await;
        let [(waited, _), (read, read_order), (made, _)] = &results[..] else {
            panic!("lend {lend}: {} results", results.len());
        };
        assert_eq!(waited.stdout.bytes, b"waited\n", "lend {lend}");
        assert_eq!(
            read.stdout.bytes, b"{}",
            "lend {lend}: each hook gets its stdin"
        );
        assert_eq!(read.exit_code(), Some(3), "lend {lend}");
        assert_eq!(made.exit_code(), Some(0), "lend {lend}");
        assert_eq!(*read_order, 0, "lend {lend}: the quick hook finished first");
        let mut order: Vec<usize> = results.iter().map(|(_, o)| *o).collect();
        order.sort_unstable();
        assert_eq!(order, [0, 1, 2], "lend {lend}");
    }
}

/// One hook's timeout hands the batch to the reactor: the hook that
/// finished before keeps its result, the one still running finishes on
/// its own, and only the slow one is killed.
#[tokio::test]
async fn a_timeout_in_a_lent_batch_stops_only_its_hook() {
    let quick = sh("echo quick");
    let mut slow = sh("sleep 30");
    slow.timeout = Duration::from_millis(300);
    let steady = sh("sleep 0.8; echo steady");
    let results = runner(true)
        .run_batch(&[&quick, &slow, &steady], &Cancel::never())
        .await;
    let [
        (quick, quick_order),
        (slow, slow_order),
        (steady, steady_order),
    ] = &results[..]
    else {
        panic!("{} results", results.len());
    };
    assert_eq!(quick.stdout.bytes, b"quick\n");
    assert_eq!(quick.exit_code(), Some(0));
    assert!(
        matches!(slow.termination, Termination::TimedOut { .. }),
        "{:?}",
        slow.termination
    );
    assert_eq!(steady.exit_code(), Some(0), "{:?}", steady.termination);
    assert_eq!(steady.stdout.bytes, b"steady\n");
    assert_eq!((*quick_order, *slow_order, *steady_order), (0, 1, 2));
}

/// A cancel from another thread stops every hook of a lent batch, and
/// nothing they started survives; a spawn failure in the batch is
/// reported in its place and finished first.
#[tokio::test]
async fn a_cancel_stops_every_hook_of_a_lent_batch() {
    let dir = tempfile::tempdir().unwrap();
    let pidfiles = [dir.path().join("a"), dir.path().join("b")];
    let hooks: Vec<HookCommand> = pidfiles
        .iter()
        .map(|p| sh(&format!("sleep 30 & echo $! > '{}'; wait", p.display())))
        .collect();
    let missing = HookCommand {
        program: Program::Exec {
            program: PathBuf::from("/nonexistent/latch-hook"),
            args: Vec::new(),
        },
        ..sh("")
    };
    let (handle, cancel) = Cancel::pair();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        handle.cancel();
    });
    let started = Instant::now();
    let results = runner(true)
        .run_batch(&[&hooks[0], &missing, &hooks[1]], &cancel)
        .await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(results.len(), 3);
    assert_spawn_failed(&results[1].0, SpawnFailure::NotFound);
    assert_eq!(results[1].1, 0, "a spawn failure finishes first");
    for (i, pidfile) in [0, 2].into_iter().zip(&pidfiles) {
        assert!(
            matches!(results[i].0.termination, Termination::Cancelled { .. }),
            "{:?}",
            results[i].0.termination
        );
        assert!(wait_dead(read_pid(pidfile)), "hook {i}'s child survived");
    }
    canceller.join().unwrap();
}

/// Each hook of a batch has its own duration, lent or not: a quick hook
/// beside a slow one does not report the slow one's time.
#[tokio::test]
async fn each_hook_of_a_batch_reports_its_own_duration() {
    for lend in [true, false] {
        let (slow, quick) = (sh("sleep 1"), sh("true"));
        let results = runner(lend)
            .run_batch(&[&slow, &quick], &Cancel::never())
            .await;
        let [(slow, _), (quick, _)] = &results[..] else {
            panic!("{} results", results.len());
        };
        // Not the batch's end: the quick hook ends long before the slow one.
        assert!(
            quick.duration * 2 < slow.duration,
            "lend {lend}: quick {:?}, slow {:?}",
            quick.duration,
            slow.duration
        );
    }
}
