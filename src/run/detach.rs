//! Hooks that go on in the background once their first stdout line says
//! so (the claude dialect's `{"async":true}`; see [`HookCommand::detach`]).
//!
//! The runner reads a hook's stdout as usual and shows it to the rule after
//! each read, until the rule decides. When it says to detach, the run
//! returns at once ([`super::Termination::Detached`]) with the live hook in
//! a [`Detached`]: its process, its kill guard, its pipes and what it
//! printed so far. Whoever takes it then either
//! - finishes it on this process's reactor ([`Detached::finish`]), under
//!   the same rules as any run, with the time the rule gave; or
//! - releases it to another process ([`Detached::release`]), which follows
//!   it through its pipes ([`follow`]): `latch fire` answers at once and
//!   leaves that to a detached `latch background-hook`.
//!
//! A [`Detached`] that is dropped kills the hook and everything it started.

use std::fmt;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};

use super::{Cancel, Captured, EnvPolicy, HookCommand, OutputLimits, RunResult, Runner, Started};

/// What a [`FirstLineRule`] makes of the stdout read so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FirstLine {
    /// Not decided: the rule wants to see more.
    Wait,
    /// The hook runs to its end, as any hook; the rule is not asked again.
    Stay,
    /// The hook goes on in the background, with this long to run from now.
    Detach(Duration),
}

/// A rule for [`HookCommand::detach`]: given the stdout kept so far (the
/// whole of it, from the first byte), each time more arrives, until it
/// says [`FirstLine::Stay`] or [`FirstLine::Detach`].
pub type FirstLineRule = fn(&[u8]) -> FirstLine;

/// A hook's first-line rule, until it decides. Shared by reference with
/// the drain that asks it, so that the runner can stop it (at a timeout or
/// a cancel) while that drain is in flight.
#[derive(Debug)]
pub(super) struct Rule {
    rule: Option<FirstLineRule>,
    decided: AtomicBool,
}

impl Rule {
    /// `rule`, undecided; `None`: a rule that never detaches.
    pub(super) fn new(rule: Option<FirstLineRule>) -> Rule {
        Rule {
            rule,
            decided: AtomicBool::new(false),
        }
    }

    /// Shows `stdout` to the rule, if it has not decided yet: the time the
    /// hook has left when the rule detaches it.
    pub(super) fn says(&self, stdout: &Captured) -> Option<Duration> {
        let decide = self
            .rule
            .filter(|_| !self.decided.load(Ordering::Relaxed))?;
        match decide(&stdout.bytes) {
            FirstLine::Wait => None,
            FirstLine::Stay => {
                self.stop();
                None
            }
            FirstLine::Detach(left) => {
                self.stop();
                Some(left)
            }
        }
    }

    /// The rule is not asked again: the hook runs to its end.
    pub(super) fn stop(&self) {
        self.decided.store(true, Ordering::Relaxed);
    }
}

/// `now + left`, or as far as an `Instant` goes.
pub(super) fn deadline_after(now: Instant, left: Duration) -> Instant {
    // A rule may give any duration; about 30 years is as good as forever.
    now.checked_add(left)
        .or_else(|| now.checked_add(Duration::from_secs(1 << 30)))
        .unwrap_or(now)
}

/// A hook that went on in the background (see the module docs).
pub struct Detached {
    hook: Started,
    /// What is left of its command: the payload (when not all of it was
    /// written yet), the limits, how long to wait for its output, and a
    /// timeout counted from the spawn to the end of the time the rule gave.
    command: HookCommand,
}

impl fmt::Debug for Detached {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Detached")
            .field("pid", &self.hook.child.id())
            .field("left", &self.left())
            .finish_non_exhaustive()
    }
}

impl Detached {
    /// `hook`, detached by `cmd`'s rule, to run until `deadline`.
    pub(super) fn new(mut hook: Started, cmd: &HookCommand, deadline: Instant) -> Detached {
        hook.deadline = deadline;
        let left = deadline.saturating_duration_since(Instant::now());
        let command = HookCommand {
            program: cmd.program.clone(),
            // The process runs already: these no longer matter.
            env: EnvPolicy::Only(Vec::new()),
            cwd: None,
            // `fed` counts from the payload's start; a payload written
            // whole is not needed again.
            stdin: if hook.stdin.is_some() {
                cmd.stdin.clone()
            } else {
                Vec::new()
            },
            timeout: hook.start.elapsed().saturating_add(left),
            limits: cmd.limits,
            output_wait: cmd.output_wait,
            detach: None,
        };
        Detached { hook, command }
    }

    /// What the hook printed on stdout so far.
    pub fn stdout(&self) -> &Captured {
        &self.hook.stdout
    }

    /// How long the hook has left before it is stopped.
    pub fn left(&self) -> Duration {
        self.hook.deadline.saturating_duration_since(Instant::now())
    }

    /// Waits on this process's reactor for the hook to end, as
    /// [`Runner::run_until`] waits for any hook, with the time the rule
    /// gave. The result holds all it printed, the first line included, and
    /// its duration counts from the spawn.
    pub async fn finish(self, runner: &Runner, cancel: &Cancel) -> RunResult {
        runner.finish(self.hook, &self.command, cancel).await
    }

    /// Lets the hook go without killing it, for another process to
    /// [`follow`]. The hook stays this process's child until this process
    /// exits (whoever inherits it then reaps it), so the caller should
    /// exit soon.
    pub fn release(self) -> Released {
        let Detached { hook, command } = self;
        let Started {
            mut guard,
            child,
            stdin,
            fed,
            out_pipe,
            err_pipe,
            stdout,
            deadline,
            ..
        } = hook;
        // This process lets go: its guard must not kill anything.
        guard.disarm();
        let (pid, start, pidfd) = child.release();
        Released {
            pid,
            start,
            pidfd,
            stdin,
            stdin_rest: command.stdin.get(fed..).unwrap_or_default().to_vec(),
            stdout: out_pipe,
            stderr: err_pipe,
            stdout_so_far: stdout.bytes,
            left: deadline.saturating_duration_since(Instant::now()),
            limits: command.limits,
        }
    }
}

/// A detached hook that its runner let go of ([`Detached::release`]), as
/// another process receives it.
#[derive(Debug)]
pub struct Released {
    /// The hook's pid, which is also its process group's id.
    pub pid: i32,
    /// When the hook started, in clock ticks since boot (perhaps a tick
    /// early), if its runner noted it: with the pid, it tells the hook
    /// apart from a later process that gets its pid.
    pub start: Option<u64>,
    /// A pidfd on the hook (none if it was reaped already or the kernel
    /// has no pidfds).
    pub pidfd: Option<OwnedFd>,
    /// The write end of its stdin, if the payload is not all written.
    pub stdin: Option<OwnedFd>,
    /// The part of the payload not written yet.
    pub stdin_rest: Vec<u8>,
    /// The read end of its stdout, unless at its end.
    pub stdout: Option<OwnedFd>,
    /// The read end of its stderr, unless at its end.
    pub stderr: Option<OwnedFd>,
    /// What it printed on stdout before it was let go.
    pub stdout_so_far: Vec<u8>,
    /// How long it has left before it is stopped.
    pub left: Duration,
    /// Caps on the output kept.
    pub limits: OutputLimits,
}

/// What [`follow`] saw of a hook.
#[derive(Debug)]
pub struct Followed {
    /// All it printed on stdout, from its first byte (capped).
    pub stdout: Captured,
    /// What it printed on stderr after it was let go (capped).
    pub stderr: Captured,
    /// Its time ran out: its group was stopped (SIGTERM, `grace`, then
    /// SIGKILL).
    pub timed_out: bool,
}

/// Follows a hook another process let go of, until its output ends and it
/// exits, or its time runs out: then its process group gets SIGTERM and,
/// after `grace`, SIGKILL. This process is not the hook's parent: it
/// cannot wait for its exit status, and it signals the group only while
/// the group is surely the hook's (its leader alive, by its pidfd, or gone
/// with members left). A descendant that left the group is out of its
/// reach, and without a pidfd (Linux before 5.3) a live leader is not
/// signalled.
pub async fn follow(hook: Released, grace: Duration) -> Followed {
    let Released {
        pid,
        start,
        pidfd,
        stdin,
        stdin_rest,
        stdout: out,
        stderr: err,
        stdout_so_far,
        left,
        limits,
    } = hook;
    let mut stdout = Captured::new(limits.stdout);
    stdout.keep(&stdout_so_far);
    let mut stderr = Captured::new(limits.stderr);
    let pidfd = pidfd.and_then(|fd| super::spawn::register_pidfd(fd).ok());
    let mut timed_out = false;
    match super::on_reactor(stdin, out, err) {
        Ok((mut stdin, mut out, mut err)) => {
            let (mut fed, no_rule) = (0, Rule::new(None));
            let io = async {
                let _ = tokio::try_join!(
                    super::feed(&mut stdin, &stdin_rest, &mut fed),
                    stdout.drain(&mut out, &no_rule),
                    stderr.drain(&mut err, &no_rule)
                );
                // The output ended; the hook may still run.
                if let Some(fd) = &pidfd {
                    let _ = fd.readable().await;
                }
            };
            tokio::pin!(io);
            if tokio::time::timeout(left, &mut io).await.is_err() {
                timed_out = true;
                signal_group(
                    pid,
                    start,
                    pidfd.as_ref().map(|fd| fd.get_ref()),
                    Signal::TERM,
                );
                if tokio::time::timeout(grace, &mut io).await.is_err() {
                    signal_group(
                        pid,
                        start,
                        pidfd.as_ref().map(|fd| fd.get_ref()),
                        Signal::KILL,
                    );
                    let _ = tokio::time::timeout(Duration::from_millis(100), &mut io).await;
                }
            }
        }
        // Nothing can be read: the hook is stopped at once.
        Err(_) => signal_group(
            pid,
            start,
            pidfd.as_ref().map(|fd| fd.get_ref()),
            Signal::KILL,
        ),
    }
    Followed {
        stdout,
        stderr,
        timed_out,
    }
}

/// Sends `signal` to the group `pid` leads, while it is surely the hook's:
/// its leader still runs (its pidfd is not readable), or waits to be
/// reaped (a zombie leading its group, started when the hook did, whose
/// pid no other process can have yet), or is gone and the group still has
/// members (whose id no new process can take).
fn signal_group(pid: i32, start: Option<u64>, pidfd: Option<&OwnedFd>, signal: Signal) {
    let Some(group) = Pid::from_raw(pid) else {
        return;
    };
    let leader_runs = pidfd.is_some_and(|fd| {
        let mut polled = [rustix::event::PollFd::from_borrowed_fd(
            fd.as_fd(),
            rustix::event::PollFlags::IN,
        )];
        let zero = rustix::event::Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        matches!(rustix::event::poll(&mut polled, Some(&zero)), Ok(0))
    });
    let unreaped = || {
        super::procfs::stat(pid).is_some_and(|p| {
            p.zombie && p.pgid == pid && start.is_none_or(|s| (s..=s + 2).contains(&p.start))
        })
    };
    if leader_runs || unreaped() || super::adopt::still_lingering(pid) {
        let _ = rustix::process::kill_process_group(group, signal);
    }
}
