//! One hook process between its spawn and its end: started with its
//! pipes and kill guard ([`launch`]), fed its payload, and turned into a
//! [`RunResult`] once the lent wait or the reactor saw it end.

use std::io;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tokio::io::AsyncWriteExt;
use tokio::net::unix::pipe::{Receiver, Sender};

use super::group::GroupGuard;
use super::lent::Ended;
use super::{
    Cancel, Captured, Detached, EnvPolicy, Exit, HookCommand, Program, RunResult, SpawnFailure,
    Termination, adopt, child, detach, early, starved,
};

/// A hook the system refused to start.
pub(super) struct Refused {
    error: io::Error,
    /// When the try began.
    start: Instant,
}

impl Refused {
    /// Whether it failed for want of resources that running processes
    /// give back (see [`starved`]).
    pub(super) fn starved(&self) -> bool {
        starved::starved(&self.error)
    }

    /// The run's result: it never started.
    pub(super) fn result(self, cmd: &HookCommand) -> RunResult {
        early(
            spawn_failure(&self.error, cmd),
            Captured::new(cmd.limits.stdout),
            Captured::new(cmd.limits.stderr),
            self.start,
        )
    }
}

/// A hook that was spawned and has not been waited for yet.
pub(super) struct Started {
    /// Kills the hook's tree if the run is dropped (declared before
    /// `child`, so it is dropped first, while the leader is unreaped).
    pub(super) guard: GroupGuard,
    pub(super) child: child::Child,
    /// latch's end of stdin, if the payload did not fit at the spawn and
    /// was not written whole since.
    pub(super) stdin: Option<OwnedFd>,
    /// How much of the payload went in through `stdin` so far.
    pub(super) fed: usize,
    /// latch's ends of stdout and stderr, each `None` once at its end.
    pub(super) out_pipe: Option<OwnedFd>,
    pub(super) err_pipe: Option<OwnedFd>,
    pub(super) stdout: Captured,
    pub(super) stderr: Captured,
    pub(super) start: Instant,
    pub(super) deadline: Instant,
    /// The rule that may detach the hook, until it decided
    /// ([`HookCommand::detach`]).
    pub(super) first_line: detach::Rule,
    /// Counts the hook among those the process runs: declared last, so
    /// that it ends once the process and the pipes are let go.
    pub(super) running: starved::Running,
}

impl Started {
    /// Spawns the hook, or says why it could not start.
    pub(super) fn spawn(cmd: &HookCommand) -> Result<Started, Refused> {
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
    /// [`Started::spawn_off_thread`]). Their payloads are written here.
    /// `None` when `cancel` fired while they waited for their turn: none
    /// of them started.
    pub(super) async fn spawn_off_thread(
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
    pub(super) fn ended(self, cmd: &HookCommand, ended: Ended) -> RunResult {
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
    pub(super) fn detach(self, cmd: &HookCommand, deadline: Instant) -> RunResult {
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
pub(super) fn on_reactor(
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

pub(super) fn spawn_failure(err: &io::Error, cmd: &HookCommand) -> Termination {
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
pub(super) async fn feed(
    stdin: &mut Option<Sender>,
    payload: &[u8],
    fed: &mut usize,
) -> Result<(), Duration> {
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
