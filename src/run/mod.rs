//! The process runner shared by every dialect.
//!
//! One call to [`Runner::run`] spawns one hook process and returns a
//! [`RunResult`], a plain value: how it ended, what it printed (capped), how
//! long it took. Nothing here knows a dialect; dialects describe the process
//! with a [`HookCommand`] and judge the result themselves.
//!
//! The guarantees, each covered by a test in `tests/it/runner.rs` or
//! `tests/it/hostile/processes.rs`:
//! - the event payload is written to stdin while stdout and stderr are read,
//!   so a hook that never reads stdin, or exits early, cannot deadlock latch;
//! - stdout and stderr are capped while reading: past the cap latch stops
//!   storing but keeps draining, so the hook never blocks on a full pipe;
//! - each hook leads its own process group; a timeout sends SIGTERM to the
//!   hook and every descendant, waits a short grace, then kills them all,
//!   so no descendant survives, not even one that left the group
//!   (`setsid`) or lost its parent;
//! - dropping a run in progress (a cancelled dispatch) kills them all too;
//! - after the hook exits, latch waits a bounded time for its pipes to close
//!   (a grandchild may hold them), then kills every descendant; a
//!   descendant that let go of the pipes in time (a deliberate daemon) is
//!   left alone.
//!
//! Descendants are found by walking `/proc` (parent links, process groups,
//! sessions); orphans whose parent died are found when the process called
//! [`become_subreaper`], as the `latch` command does.
//!
//! Here: the [`Runner`] and its ways of waiting (alone, in a batch, on a
//! lent thread, on the reactor). Beside it: `command` (the
//! [`HookCommand`]), `result` (the [`RunResult`]), `started` (a hook
//! between its spawn and its end), `spawn` (the system calls that start
//! it), `lent` (the wait in `poll(2)`), and the process-tree modules
//! (`group`, `tree`, `adopt`, `procfs`).
//!
//! # Example
//!
//! ```
//! use std::time::Duration;
//!
//! use latch::run::{EnvPolicy, Exit, HookCommand, OutputLimits, OutputWait, Program, Runner, Termination};
//!
//! // One process, as a dialect describes it: no shell, the payload on stdin.
//! let cmd = HookCommand {
//!     program: Program::Exec { program: "cat".into(), args: vec![] },
//!     env: EnvPolicy::Inherit(vec![]),
//!     cwd: None,
//!     stdin: b"{\"event\":\"stop\"}".to_vec(),
//!     timeout: Duration::from_secs(5),
//!     limits: OutputLimits { stdout: 1 << 20, stderr: 1 << 20 },
//!     output_wait: OutputWait::Drain,
//!     detach: None,
//! };
//! let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
//! let result = runtime.block_on(Runner::default().run(&cmd));
//! assert_eq!(result.termination, Termination::Exited(Exit::Code(0)));
//! assert_eq!(result.stdout.bytes, b"{\"event\":\"stop\"}");
//! # Ok::<(), std::io::Error>(())
//! ```

mod adopt;
mod cancel;
mod capture;
mod child;
mod command;
mod detach;
mod group;
mod lent;
mod procfs;
mod result;
mod spawn;
mod started;
mod starved;
mod tree;

use std::io;
use std::time::{Duration, Instant};

pub use adopt::{become_subreaper, kill_leftovers, reap_orphans};
pub use cancel::{Cancel, CancelHandle};
pub use capture::Captured;
pub use command::{EnvPolicy, HookCommand, OutputLimits, OutputWait, Program};
pub use detach::{Detached, FirstLine, FirstLineRule, Followed, Released, follow};
use lent::Ended;
pub use lent::Lend;
pub use result::{Exit, RunResult, SpawnFailure, Termination};
use started::{Refused, Started, feed, on_reactor, spawn_failure};

/// Asks the kernel for the shortest time slice (0.1 ms) for the calling
/// thread, so that hooks it starts at once spread over the CPUs instead of
/// queueing behind each other; the processes and threads it starts keep
/// the default slice. The commands that start hooks (`latch fire`, `latch
/// serve`, `latch test`) call it for each thread that may start them,
/// unless `LATCH_SHORT_SLICE=0`; a harness that embeds latch may call it
/// for its own (see `docs/embedding.md`).
///
/// Under Linux's EEVDF scheduler a thread that started a hook is woken,
/// once the hook's program is loaded, on the CPU the hook now runs on, and
/// with the default slice it often waits there for the hook to end before
/// it can start the next one. A shorter slice (Linux 6.12 and later) lets
/// it take the CPU back at once.
///
/// # Errors
/// When the thread is left as it is: a kernel older than 6.12 or one that
/// refuses, or scheduling that is the user's choice (a policy other than
/// the normal one, a nice value below zero, utilization clamps), which
/// hooks would then not inherit. Nothing changed then; callers may ignore
/// the error.
pub fn prefer_short_slice() -> io::Result<()> {
    spawn::prefer_short_slice()
}

/// Spawns hook processes. Cheap to clone; holds only its settings.
#[derive(Debug, Clone, Copy)]
pub struct Runner {
    /// Time between SIGTERM and SIGKILL on timeout.
    pub grace: Duration,
    /// How long to wait for the output pipes to close after the hook exits.
    pub drain: Duration,
    /// Whether a hook that runs alone ([`Runner::run_alone`]), or the
    /// hooks of a batch ([`Runner::run_batch`]), may block the calling
    /// thread while they run, instead of waiting on the async runtime's
    /// reactor: faster (see `docs/design.md`, "Lending the
    /// thread"), but nothing else runs on that thread meanwhile, not even
    /// another task of a current-thread runtime. Timeouts and cancellation
    /// work the same. `latch fire` lends its thread; off by default, as an
    /// embedder's runtime usually has other work.
    pub lend_thread: bool,
    /// Whether the hooks that are not waited for on a lent thread are
    /// started from tokio's blocking pool, the calling thread going on
    /// with its other work meanwhile. Starting a hook waits until the
    /// kernel has loaded its program, about a millisecond for a shell:
    /// for a server whose one thread serves many sessions (`latch
    /// serve`), a burst of hooks would otherwise hold up every other
    /// session's events. Each round of spawns then costs a hand-over to
    /// another thread. Off by default.
    pub spawn_off_thread: bool,
}

impl Default for Runner {
    fn default() -> Self {
        Runner {
            grace: Duration::from_millis(1000),
            drain: Duration::from_millis(1000),
            lend_thread: false,
            spawn_off_thread: false,
        }
    }
}

impl Runner {
    /// Runs one hook to completion, or until its first stdout line sends
    /// it to the background ([`HookCommand::detach`]). Never panics and
    /// never returns an error: every way a process can fail is a
    /// [`Termination`].
    pub async fn run(&self, cmd: &HookCommand) -> RunResult {
        self.run_until(cmd, &Cancel::never()).await
    }

    /// Like [`Runner::run`], but stops the hook (as on a timeout) when
    /// `cancel` fires, and reports [`Termination::Cancelled`].
    pub async fn run_until(&self, cmd: &HookCommand, cancel: &Cancel) -> RunResult {
        self.run_lending(cmd, cancel, None).await
    }

    /// Like [`Runner::run_until`], for a hook that the caller runs alone:
    /// nothing else is in flight on this thread until it returns. With
    /// [`Runner::lend_thread`] set, the runner then waits for the hook by
    /// blocking the thread in `poll(2)`.
    pub async fn run_alone(&self, cmd: &HookCommand, cancel: &Cancel) -> RunResult {
        self.run_lending(cmd, cancel, self.lend()).await
    }

    /// The lending [`Runner::lend_thread`] stands for: for as long as the
    /// hooks run.
    pub(crate) fn lend(&self) -> Option<Lend<'static>> {
        self.lend_thread.then(Lend::whole)
    }

    /// Runs one hook that the caller runs alone, waiting for it on the
    /// thread as `lend` allows (`None`: not at all), then on the reactor.
    /// The result is the same either way.
    pub async fn run_lending(
        &self,
        cmd: &HookCommand,
        cancel: &Cancel,
        lend: Option<Lend<'_>>,
    ) -> RunResult {
        // Nothing of its own runs: a starved hook waits for other hooks of
        // the process, or for time (see `starved`).
        let mut patience =
            starved::Patience::new(detach::deadline_after(Instant::now(), cmd.timeout));
        let mut hook = loop {
            let spawned = if self.spawn_off_thread && lend.is_none() {
                match Box::pin(Started::spawn_off_thread(&[cmd], cancel)).await {
                    Some(mut spawned) => spawned.pop(),
                    None => return cancelled_before_start(cmd),
                }
            } else {
                None
            };
            match spawned.unwrap_or_else(|| Started::spawn(cmd)) {
                Ok(hook) => break hook,
                Err(refused) if refused.starved() && patience.wait(cancel).await => {}
                Err(refused) => return refused.result(cmd),
            }
        };
        // A lent thread waits in `poll` for the common case; anything
        // else is handed to the reactor below.
        if let Some(lend) = lend
            && let Some(&(_, ended)) =
                lent::wait(std::slice::from_mut(&mut hook), &[cmd], cancel, lend).first()
        {
            return hook.ended(cmd, ended);
        }
        self.finish(hook, cmd, cancel).await
    }

    /// Runs several hooks at once and returns their results in the order
    /// of `cmds`, each with the order in which it finished (0 first). The
    /// caller runs nothing else on this thread until it returns: with
    /// [`Runner::lend_thread`] set, the runner waits for all of them in
    /// one `poll(2)` loop, else on the reactor, as [`Runner::run_until`]
    /// does for each. Timeouts, cancellation and leftovers follow the same
    /// rules either way.
    pub async fn run_batch(
        &self,
        cmds: &[&HookCommand],
        cancel: &Cancel,
    ) -> Vec<(RunResult, usize)> {
        self.run_batch_lending(cmds, cancel, self.lend()).await
    }

    /// [`Runner::run_batch`], waiting for the hooks on the thread as
    /// `lend` allows (`None`: not at all), then on the reactor. The
    /// results are the same either way.
    ///
    /// A hook that cannot start for want of descriptors, processes or
    /// memory waits until the hooks that did start end, then starts; when
    /// none did, until any other hook of this process ends (for at most
    /// its own timeout), and when none runs, after waits of 10, 50 and
    /// 250 ms.
    pub async fn run_batch_lending(
        &self,
        cmds: &[&HookCommand],
        cancel: &Cancel,
        lend: Option<Lend<'_>>,
    ) -> Vec<(RunResult, usize)> {
        let mut results: Vec<Option<(RunResult, usize)>> = cmds.iter().map(|_| None).collect();
        // The places in `cmds` of the hooks still to start, and how long
        // they wait for a start when none of them could: for other hooks
        // of the process at most the longest timeout among them.
        let mut waiting: Vec<usize> = (0..cmds.len()).collect();
        let now = Instant::now();
        let until = (cmds.iter())
            .map(|cmd| detach::deadline_after(now, cmd.timeout))
            .max()
            .unwrap_or(now);
        let mut patience = starved::Patience::new(until);
        let mut order = 0;
        while !waiting.is_empty() {
            let round: Vec<&HookCommand> = waiting.iter().map(|&i| cmds[i]).collect();
            let round = self.run_round(&round, cancel, lend).await;
            let finished = round.ran.len();
            for (at, (result, finished)) in round.ran {
                results[waiting[at]] = Some((result, order + finished));
            }
            order += finished;
            if round.started {
                patience.restart();
            }
            // Hooks of this round held what the starved ones want and gave
            // it back when they ended; if none started, they wait for the
            // other hooks of the process, or for time.
            let again = !round.starved.is_empty()
                && !cancel.is_cancelled()
                && (round.started || patience.wait(cancel).await);
            let mut next = Vec::new();
            for (at, refused) in round.starved {
                if again {
                    next.push(waiting[at]);
                } else {
                    results[waiting[at]] = Some((refused.result(cmds[waiting[at]]), order));
                    order += 1;
                }
            }
            waiting = next;
        }
        results.into_iter().flatten().collect()
    }

    /// Starts what of `cmds` can start and waits for it (see
    /// [`Runner::run_batch_lending`]).
    async fn run_round(
        &self,
        cmds: &[&HookCommand],
        cancel: &Cancel,
        lend: Option<Lend<'_>>,
    ) -> Round {
        let mut ran = Vec::with_capacity(cmds.len());
        let mut order = 0;
        let mut hooks = Vec::with_capacity(cmds.len());
        // Each running hook's place in `cmds`, and its command.
        let mut places = Vec::with_capacity(cmds.len());
        let mut started = Vec::with_capacity(cmds.len());
        let mut starved = Vec::new();
        // Boxed: the lent path's future stays as small as it was.
        let spawned = if self.spawn_off_thread && lend.is_none() {
            let Some(spawned) = Box::pin(Started::spawn_off_thread(cmds, cancel)).await else {
                return Round {
                    ran: (cmds.iter().enumerate())
                        .map(|(i, cmd)| (i, (cancelled_before_start(cmd), i)))
                        .collect(),
                    starved,
                    started: false,
                };
            };
            spawned
        } else {
            cmds.iter().map(|cmd| Started::spawn(cmd)).collect()
        };
        for ((i, &cmd), spawned) in cmds.iter().enumerate().zip(spawned) {
            match spawned {
                Ok(hook) => {
                    hooks.push(hook);
                    places.push(i);
                    started.push(cmd);
                }
                Err(refused) if refused.starved() => starved.push((i, refused)),
                Err(refused) => {
                    ran.push((i, (refused.result(cmd), order)));
                    order += 1;
                }
            }
        }
        let any_started = !hooks.is_empty();
        let lent = match lend {
            Some(lend) if any_started => lent::wait(&mut hooks, &started, cancel, lend),
            _ => Vec::new(),
        };
        let mut exits: Vec<Option<(Ended, usize)>> = hooks.iter().map(|_| None).collect();
        for (position, ended) in lent {
            exits[position] = Some((ended, order));
            order += 1;
        }
        let mut rest = Vec::new();
        for ((hook, place), exit) in hooks.into_iter().zip(places).zip(exits) {
            match exit {
                Some((ended, finished)) => {
                    ran.push((place, (hook.ended(cmds[place], ended), finished)));
                }
                None => rest.push((place, hook)),
            }
        }
        let waits: Vec<crate::join::BoxFuture<'_, (usize, RunResult)>> = rest
            .into_iter()
            .map(|(place, hook)| {
                let cmd = cmds[place];
                Box::pin(async move { (place, self.finish(hook, cmd, cancel).await) })
                    as crate::join::BoxFuture<'_, (usize, RunResult)>
            })
            .collect();
        for ((place, result), finished) in crate::join::join_all(waits).await {
            ran.push((place, (result, order + finished)));
        }
        Round {
            ran,
            starved,
            started: any_started,
        }
    }

    /// Waits on the reactor for a hook until it ends: the deadline, the
    /// grace period, the drain window and the kill of leftovers; or until
    /// its first stdout line detaches it ([`HookCommand::detach`]).
    async fn finish(&self, hook: Started, cmd: &HookCommand, cancel: &Cancel) -> RunResult {
        // The lent wait may have read a first line it did not show the
        // rule (it handed the hook over at once).
        if let Some(left) = hook.first_line.says(&hook.stdout) {
            return hook.detach(cmd, detach::deadline_after(Instant::now(), left));
        }
        let Started {
            guard,
            child,
            stdin,
            mut fed,
            out_pipe,
            err_pipe,
            mut stdout,
            mut stderr,
            start,
            deadline,
            first_line,
            running,
        } = hook;
        // `running` is bound before the process and the pipes below, so it
        // is dropped after them: the hook counts until they are let go.
        // Declared in this order so that, dropped with a dropped run, the
        // guard kills the tree while the leader is still unreaped (the
        // child's own drop kills and reaps the leader alone).
        let mut child = child;
        let mut guard = guard;
        let (mut stdin, mut out_pipe, mut err_pipe) = match on_reactor(stdin, out_pipe, err_pipe) {
            Ok(pipes) => pipes,
            Err(err) => {
                // The reactor refused them: nothing can be read or waited
                // for, so the hook dies now (dropping `child` kills it). A
                // hook the lent wait reaped is no longer a group to kill.
                if child.is_reaped() {
                    guard.leader_reaped();
                }
                drop(child);
                return early(spawn_failure(&err, cmd), stdout, stderr, start);
            }
        };

        let mut killed_leftovers = false;
        let mut leftovers_escaped = false;
        // Set when the first stdout line detached the hook: the time it has
        // left.
        let mut detached_for = None;
        let termination;
        {
            let no_rule = detach::Rule::new(None);
            // Each part keeps its progress outside the future, so that a
            // detach, which drops the future, loses nothing.
            let io = async {
                tokio::try_join!(
                    feed(&mut stdin, &cmd.stdin, &mut fed),
                    stdout.drain(&mut out_pipe, &first_line),
                    stderr.drain(&mut err_pipe, &no_rule)
                )
            };
            tokio::pin!(io);
            let mut io_done = false;
            let wait = child.wait();
            tokio::pin!(wait);
            let deadline = tokio::time::sleep_until(deadline.into());
            tokio::pin!(deadline);
            let cancelled = cancel.cancelled();
            tokio::pin!(cancelled);

            // Phase 1: the hook runs until it exits, its time is up, the
            // dispatch is cancelled, or its first line detaches it.
            let mut timed_out = false;
            let mut was_cancelled = false;
            let mut status = loop {
                tokio::select! {
                    biased;
                    status = &mut wait => break Some(status),
                    done = &mut io, if !io_done => {
                        io_done = true;
                        if let Err(left) = done {
                            detached_for = Some(left);
                            break None;
                        }
                    }
                    _ = &mut deadline => { timed_out = true; break None; }
                    _ = &mut cancelled => { was_cancelled = true; break None; }
                }
            };
            if status.is_some() {
                guard.leader_reaped();
            }
            // Phase 2: on timeout, SIGTERM the hook and its descendants,
            // grace, then SIGKILL them all. A hook stopped so does not go
            // to the background any more.
            if timed_out || was_cancelled {
                first_line.stop();
                guard.terminate();
                let grace = tokio::time::sleep(self.grace);
                tokio::pin!(grace);
                status = loop {
                    tokio::select! {
                        biased;
                        status = &mut wait => break Some(status),
                        _ = &mut io, if !io_done => io_done = true,
                        _ = &mut grace => break None,
                    }
                };
                if status.is_some() {
                    guard.leader_reaped();
                }
                // Whether or not the leader went quietly, nothing it started
                // may outlive a timeout: a descendant that ignores SIGTERM,
                // left the group or has let go of the pipes would otherwise
                // live on.
                guard.kill();
                if status.is_none() {
                    status = Some(wait.await);
                    guard.leader_reaped();
                }
            }
            let exit = match status {
                Some(Ok(exit)) => exit,
                // Waiting failed (should not happen): treat as killed.
                _ => Exit::Signal(9),
            };
            // Phase 3: a bounded drain; a grandchild may hold the pipes open.
            // Then every descendant dies, not only the holders: a hook that
            // keeps its output open past the window has not let go. A cancel
            // ends the wait too, and a first line that detaches the hook
            // (its leader exited, but what it started still writes).
            let window = match cmd.output_wait {
                OutputWait::UntilTimeout if !timed_out && !was_cancelled => {
                    cmd.timeout.saturating_sub(start.elapsed()).max(self.drain)
                }
                _ => self.drain,
            };
            let drained = detached_for.is_some()
                || io_done
                || tokio::select! {
                    biased;
                    done = &mut io => {
                        detached_for = done.err().filter(|_| !timed_out && !was_cancelled);
                        true
                    }
                    _ = tokio::time::sleep(window) => false,
                    _ = &mut cancelled, if !was_cancelled => false,
                };
            if !drained {
                guard.kill();
                killed_leftovers = true;
                // After SIGKILL the pipes close at once, unless a holder could
                // not be found; do not wait for it, but say so.
                leftovers_escaped = tokio::time::timeout(Duration::from_millis(100), &mut io)
                    .await
                    .is_err();
            }
            termination = if timed_out {
                Termination::TimedOut { exit }
            } else if was_cancelled {
                Termination::Cancelled { exit }
            } else {
                Termination::Exited(exit)
            };
        }
        if let Some(left) = detached_for {
            // The pipes go back off the reactor, with the hook, to whoever
            // takes it on.
            let hook = Started {
                guard,
                child,
                stdin: stdin.and_then(|p| p.into_nonblocking_fd().ok()),
                fed,
                out_pipe: out_pipe.and_then(|p| p.into_nonblocking_fd().ok()),
                err_pipe: err_pipe.and_then(|p| p.into_nonblocking_fd().ok()),
                stdout,
                stderr,
                start,
                deadline,
                first_line: detach::Rule::new(None),
                running,
            };
            return hook.detach(cmd, detach::deadline_after(Instant::now(), left));
        }
        // The leader is reaped; leave whatever it left in the background that
        // let go of the pipes (a deliberate daemon), as a shell would.
        guard.disarm();
        RunResult {
            termination,
            stdout,
            stderr,
            duration: start.elapsed(),
            killed_leftovers,
            leftovers_escaped,
            detached: None,
        }
    }
}

/// The result of a run that ended before any leftover could be looked for.
fn early(
    termination: Termination,
    stdout: Captured,
    stderr: Captured,
    start: Instant,
) -> RunResult {
    RunResult {
        termination,
        stdout,
        stderr,
        duration: start.elapsed(),
        killed_leftovers: false,
        leftovers_escaped: false,
        detached: None,
    }
}

/// The result of a hook whose dispatch was cancelled before it started.
fn cancelled_before_start(cmd: &HookCommand) -> RunResult {
    early(
        Termination::CancelledBeforeStart,
        Captured::new(cmd.limits.stdout),
        Captured::new(cmd.limits.stderr),
        Instant::now(),
    )
}

/// What one round of a batch did ([`Runner::run_round`]).
struct Round {
    /// The results by place in the round's commands, each with its
    /// finishing order.
    ran: Vec<(usize, (RunResult, usize))>,
    /// The hooks that could not start for want of resources, by place.
    starved: Vec<(usize, Refused)>,
    /// Whether any hook of the round started.
    started: bool,
}
