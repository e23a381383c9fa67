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
mod detach;
mod group;
mod lent;
mod procfs;
mod spawn;
mod starved;
mod tree;

use std::ffi::OsString;
use std::io;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tokio::io::AsyncWriteExt;
use tokio::net::unix::pipe::{Receiver, Sender};

pub use adopt::{become_subreaper, kill_leftovers, reap_orphans};
pub use cancel::{Cancel, CancelHandle};
pub use capture::Captured;
pub use detach::{Detached, FirstLine, FirstLineRule, Followed, Released, follow};
use group::GroupGuard;
use lent::Ended;
pub use lent::Lend;

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

/// What to execute.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Program {
    /// A script run by a shell: `<shell> -c <script>`. The script is the
    /// user's own configuration text; event data never goes into it.
    Shell {
        /// The shell, such as `/bin/sh` or `bash`.
        shell: PathBuf,
        /// The script passed after `-c`.
        script: String,
    },
    /// A program run directly with its arguments, no shell.
    Exec {
        /// The program (a path, or a name looked up on `PATH`).
        program: PathBuf,
        /// The arguments, passed verbatim.
        args: Vec<String>,
    },
}

/// Which environment the hook process gets.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum EnvPolicy {
    /// The harness's environment plus these variables.
    Inherit(Vec<(OsString, OsString)>),
    /// Exactly these variables and nothing else.
    Only(Vec<(OsString, OsString)>),
}

/// Byte caps for the captured output. Past a cap latch keeps reading but
/// stops storing, and records that the stream was truncated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OutputLimits {
    /// At most this many bytes of stdout are kept.
    pub stdout: usize,
    /// At most this many bytes of stderr are kept.
    pub stderr: usize,
}

/// A full description of one hook process (serializable, so that a
/// detached process can run it later).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct HookCommand {
    /// What to execute.
    pub program: Program,
    /// The environment.
    pub env: EnvPolicy,
    /// The working directory; the harness's own when `None`.
    pub cwd: Option<PathBuf>,
    /// The bytes written to the hook's stdin (the event payload).
    pub stdin: Vec<u8>,
    /// How long the hook may run before it and its descendants are killed.
    pub timeout: Duration,
    /// Caps on captured output.
    pub limits: OutputLimits,
    /// How long to wait, once the hook exited, for its output to close.
    #[serde(default)]
    pub output_wait: OutputWait,
    /// When set, the hook may go on in the background: the rule reads its
    /// stdout as it arrives, and once it says [`FirstLine::Detach`] the
    /// run returns at once, [`Termination::Detached`], with the live
    /// process in [`RunResult::detached`]. Not serialized: a detached
    /// process never detaches again.
    #[serde(skip)]
    pub detach: Option<FirstLineRule>,
}

/// How long the runner waits, once the hook exited, for its output pipes
/// to close: a process the hook started in the background may hold them.
/// When the wait ends with the pipes still open, every descendant of the
/// hook is killed and the run says so ([`RunResult::killed_leftovers`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum OutputWait {
    /// The runner's drain window ([`Runner::drain`], 1 s by default).
    #[default]
    Drain,
    /// Until the hook's timeout, counted from its start, as Claude Code
    /// waits for a hook's output to close (at least the drain window).
    UntilTimeout,
}

/// How a process that ran came to an end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// It exited with this code.
    Code(i32),
    /// A signal killed it.
    Signal(i32),
}

/// Why a hook process could not start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpawnFailure {
    /// The program does not exist.
    NotFound,
    /// The program exists but cannot be executed.
    NotExecutable,
    /// The working directory does not exist or cannot be entered.
    BadWorkingDirectory,
    /// Any other reason (resource limits, …).
    Other,
}

/// The end of a hook run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Termination {
    /// The process ran and ended on its own.
    Exited(Exit),
    /// The process ran past its timeout; it and its descendants were
    /// killed. `exit` is how the leader died after the signals.
    TimedOut {
        /// How the leader ended after being signalled.
        exit: Exit,
    },
    /// The dispatch was cancelled while the process ran; it and its
    /// descendants were killed like on a timeout.
    Cancelled {
        /// How the leader ended after being signalled.
        exit: Exit,
    },
    /// The dispatch was cancelled while the hook waited for its turn to
    /// start ([`Runner::spawn_off_thread`]): it never ran.
    CancelledBeforeStart,
    /// The process's first stdout line asked to go on in the background
    /// ([`HookCommand::detach`]): the run returned while it runs on, and
    /// [`RunResult::detached`] holds it.
    Detached,
    /// The process never started.
    SpawnFailed {
        /// The reason, classified.
        reason: SpawnFailure,
        /// The operating system's message.
        message: String,
    },
}

/// Everything a dialect needs to judge one hook run.
#[derive(Debug)]
pub struct RunResult {
    /// How it ended.
    pub termination: Termination,
    /// Captured stdout (capped).
    pub stdout: Captured,
    /// Captured stderr (capped).
    pub stderr: Captured,
    /// From spawn to the end of the output.
    pub duration: Duration,
    /// The hook exited but something it started kept its output open past the
    /// drain window, and latch killed every descendant of the hook.
    pub killed_leftovers: bool,
    /// After that kill the output was still open: something holding it was
    /// out of latch's reach (no `/proc`, or an orphan that left the group
    /// without [`become_subreaper`]), and may still run.
    pub leftovers_escaped: bool,
    /// The process, still running, when it went on in the background
    /// ([`Termination::Detached`]): dropping it kills it and everything it
    /// started, so whoever takes it decides what becomes of it.
    pub detached: Option<Detached>,
}

impl Termination {
    /// How the process ended, if it ran.
    pub fn exit(&self) -> Option<Exit> {
        match self {
            Termination::Exited(e)
            | Termination::TimedOut { exit: e }
            | Termination::Cancelled { exit: e } => Some(*e),
            Termination::CancelledBeforeStart
            | Termination::Detached
            | Termination::SpawnFailed { .. } => None,
        }
    }
}

impl RunResult {
    /// The exit code, when the process exited normally.
    pub fn exit_code(&self) -> Option<i32> {
        match self.termination {
            Termination::Exited(Exit::Code(c)) => Some(c),
            _ => None,
        }
    }
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

/// A hook the system refused to start.
struct Refused {
    error: io::Error,
    /// When the try began.
    start: Instant,
}

impl Refused {
    /// Whether it failed for want of resources that running processes
    /// give back (see [`starved`]).
    fn starved(&self) -> bool {
        starved::starved(&self.error)
    }

    /// The run's result: it never started.
    fn result(self, cmd: &HookCommand) -> RunResult {
        early(
            spawn_failure(&self.error, cmd),
            Captured::new(cmd.limits.stdout),
            Captured::new(cmd.limits.stderr),
            self.start,
        )
    }
}

/// A hook that was spawned and has not been waited for yet.
struct Started {
    /// Kills the hook's tree if the run is dropped (declared before
    /// `child`, so it is dropped first, while the leader is unreaped).
    guard: GroupGuard,
    child: child::Child,
    /// latch's end of stdin, if the payload did not fit at the spawn and
    /// was not written whole since.
    stdin: Option<OwnedFd>,
    /// How much of the payload went in through `stdin` so far.
    fed: usize,
    /// latch's ends of stdout and stderr, each `None` once at its end.
    out_pipe: Option<OwnedFd>,
    err_pipe: Option<OwnedFd>,
    stdout: Captured,
    stderr: Captured,
    start: Instant,
    deadline: Instant,
    /// The rule that may detach the hook, until it decided
    /// ([`HookCommand::detach`]).
    first_line: detach::Rule,
    /// Counts the hook among those the process runs: declared last, so
    /// that it ends once the process and the pipes are let go.
    running: starved::Running,
}

impl Started {
    /// Spawns the hook, or says why it could not start.
    fn spawn(cmd: &HookCommand) -> Result<Started, Refused> {
        let start = Instant::now();
        Started::new(
            cmd,
            start,
            launch(&cmd.program, &cmd.env, cmd.cwd.as_deref()),
        )
    }

    /// Spawns the hooks of `cmds` from tokio's blocking pool, one after
    /// another, while this thread goes on with its other work: a spawn
    /// waits until the kernel has loaded the hook's program (it is a
    /// vfork), about a millisecond for a shell, which a server's one
    /// thread should not spend for each hook of a burst (see
    /// [`Runner::spawn_off_thread`]). Their payloads are written here.
    /// `None` when `cancel` fired while they waited for their turn: none
    /// of them started.
    async fn spawn_off_thread(
        cmds: &[&HookCommand],
        cancel: &Cancel,
    ) -> Option<Vec<Result<Started, Refused>>> {
        /// One round of spawns at a time, as a caller spawning directly
        /// would: 64 sessions' hooks starting at once on 64 threads of
        /// the pool would leave the server's own thread one runnable
        /// task among 64 (a quick session's event then waited 15 ms).
        static SPAWNING: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(1);
        let launches: Vec<(Program, EnvPolicy, Option<PathBuf>)> = cmds
            .iter()
            .map(|c| (c.program.clone(), c.env.clone(), c.cwd.clone()))
            .collect();
        // The semaphore is never closed. A cancelled dispatch starts no
        // further hook, as when it spawns on its own thread.
        let _turn = tokio::select! {
            biased;
            () = cancel.cancelled() => return None,
            turn = SPAWNING.acquire() => turn.ok(),
        };
        // Each hook comes back with its kill guard: a run dropped while it
        // waits here kills every process each hook started.
        let spawned = tokio::task::spawn_blocking(move || {
            launches
                .iter()
                .map(|(program, env, cwd)| (Instant::now(), launch(program, env, cwd.as_deref())))
                .collect::<Vec<_>>()
        })
        .await;
        let spawned = match spawned {
            Ok(spawned) => spawned,
            // A panic of latch's goes on here; started hooks were killed
            // with their guards.
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            // The task never ran (the runtime is shutting down): here, then.
            Err(_) => return Some(cmds.iter().map(|cmd| Started::spawn(cmd)).collect()),
        };
        let started = cmds.iter().zip(spawned);
        Some(
            started
                .map(|(cmd, (start, launched))| Started::new(cmd, start, launched))
                .collect(),
        )
    }

    /// The hook `cmd` as its spawn at `start` left it, once its payload is
    /// written ([`Launched::fed`]).
    fn new(
        cmd: &HookCommand,
        start: Instant,
        launched: io::Result<Launched>,
    ) -> Result<Started, Refused> {
        match launched.and_then(|l| l.fed(&cmd.stdin)) {
            Ok(Launched {
                guard,
                child,
                pipes,
                running,
            }) => Ok(Started {
                guard,
                child,
                stdin: pipes.stdin,
                fed: 0,
                out_pipe: Some(pipes.stdout),
                err_pipe: Some(pipes.stderr),
                stdout: Captured::new(cmd.limits.stdout),
                stderr: Captured::new(cmd.limits.stderr),
                start,
                deadline: start + cmd.timeout,
                first_line: detach::Rule::new(cmd.detach),
                running,
            }),
            Err(error) => Err(Refused { error, start }),
        }
    }

    /// The result of a hook the lent wait saw end.
    fn ended(self, cmd: &HookCommand, ended: Ended) -> RunResult {
        match ended {
            Ended::Exited(exit, at) => self.reaped(exit, at),
            Ended::Detached(deadline) => self.detach(cmd, deadline),
        }
    }

    /// The result of a hook the lent wait saw exit and close its output.
    fn reaped(mut self, exit: Exit, ended: Instant) -> RunResult {
        self.guard.leader_reaped();
        self.guard.disarm();
        RunResult {
            termination: Termination::Exited(exit),
            stdout: self.stdout,
            stderr: self.stderr,
            duration: ended.saturating_duration_since(self.start),
            killed_leftovers: false,
            leftovers_escaped: false,
            detached: None,
        }
    }

    /// The result of a hook whose first stdout line detached it, to run
    /// until `deadline`: what it printed so far, and the hook itself.
    fn detach(self, cmd: &HookCommand, deadline: Instant) -> RunResult {
        let (stdout, stderr) = (self.stdout.clone(), self.stderr.clone());
        let duration = self.start.elapsed();
        RunResult {
            termination: Termination::Detached,
            stdout,
            stderr,
            duration,
            killed_leftovers: false,
            leftovers_escaped: false,
            detached: Some(Detached::new(self, cmd, deadline)),
        }
    }
}

/// Puts latch's ends of the pipes still open on the reactor.
fn on_reactor(
    stdin: Option<OwnedFd>,
    stdout: Option<OwnedFd>,
    stderr: Option<OwnedFd>,
) -> io::Result<(Option<Sender>, Option<Receiver>, Option<Receiver>)> {
    Ok((
        stdin.map(Sender::from_owned_fd_unchecked).transpose()?,
        stdout.map(Receiver::from_owned_fd_unchecked).transpose()?,
        stderr.map(Receiver::from_owned_fd_unchecked).transpose()?,
    ))
}

/// A hook's process as its spawn left it, its kill guard first: dropping
/// it anywhere (a failed feed, a run dropped while the spawn was off the
/// thread) kills everything the hook started.
struct Launched {
    guard: GroupGuard,
    child: child::Child,
    pipes: child::Pipes,
    /// Last, as in [`Started`].
    running: starved::Running,
}

impl Launched {
    /// Writes the payload ([`child::feed`]).
    fn fed(mut self, payload: &[u8]) -> io::Result<Launched> {
        if let Some(stdin) = self.pipes.stdin.take() {
            self.pipes.stdin = child::feed(stdin, payload)?;
        }
        Ok(self)
    }
}

/// Starts the hook's process with its pipes, stdin still open (see
/// [`Launched::fed`]). With orphan adoption on, the hook is recorded as a
/// leader (with its start time) under the leader table's lock, so that no
/// concurrent kill or reap takes it for an adopted orphan. Callable from
/// any thread.
fn launch(program: &Program, env: &EnvPolicy, cwd: Option<&Path>) -> io::Result<Launched> {
    let (child, pipes, leader_start) = if adopt::adopting() {
        let mut table = adopt::leaders();
        let start = adopt::ticks_now();
        let (mut child, pipes) = child::start_process(program, env, cwd)?;
        if let Ok(pid) = i32::try_from(child.id()) {
            // Recorded even without a start time: the reaper must never
            // take a hook for an orphan.
            adopt::record_leader(&mut table, pid, start.unwrap_or(0));
        }
        child.set_leader_start(start);
        (child, pipes, start)
    } else {
        let (child, pipes) = child::start_process(program, env, cwd)?;
        (child, pipes, None)
    };
    let guard = GroupGuard::new(Some(child.id()), leader_start);
    Ok(Launched {
        guard,
        child,
        pipes,
        running: starved::Running::start(),
    })
}

fn spawn_failure(err: &io::Error, cmd: &HookCommand) -> Termination {
    let reason = match err.kind() {
        io::ErrorKind::NotFound => match &cmd.cwd {
            Some(dir) if !dir.is_dir() => SpawnFailure::BadWorkingDirectory,
            _ => SpawnFailure::NotFound,
        },
        io::ErrorKind::PermissionDenied => SpawnFailure::NotExecutable,
        _ => SpawnFailure::Other,
    };
    Termination::SpawnFailed {
        reason,
        message: err.to_string(),
    }
}

/// Writes the payload from `fed` on and closes stdin (`None`). A hook
/// that exits or closes stdin without reading makes the write fail with
/// EPIPE: that is its right, not an error. (Rust ignores SIGPIPE, so the
/// write returns an error instead of killing latch.) Never fails; the
/// `Result` is for joining it with the drains.
///
/// Cancel-safe: dropped between writes, `fed` says how far it got.
async fn feed(stdin: &mut Option<Sender>, payload: &[u8], fed: &mut usize) -> Result<(), Duration> {
    while let Some(pipe) = stdin.as_mut() {
        match payload.get(*fed..).filter(|rest| !rest.is_empty()) {
            Some(rest) => match pipe.write(rest).await {
                Ok(n) if n > 0 => *fed += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                _ => *stdin = None,
            },
            None => {
                let _ = pipe.shutdown().await;
                *stdin = None;
            }
        }
    }
    Ok(())
}
