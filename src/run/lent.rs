//! Waiting for hooks on the caller's thread, without the reactor.
//!
//! When the embedder lends its thread ([`super::Runner::lend_thread`]) and
//! nothing else of the dispatch is in flight, the runner waits for its
//! hooks (one, or several that run at once) with `poll(2)` on their pipes
//! and the cancel token's pipe, writing what is left of each payload as
//! its hook reads it, then reaps each, as the standard library's
//! `wait_with_output` does, instead of registering three descriptors per
//! hook with tokio's reactor and going through it at every wake-up. The
//! dispatch benchmark put the reactor's share of a one-hook dispatch at
//! about 5 % (`benches/README.md`).
//!
//! This covers the common case only: every hook exits and closes its
//! output. Anything else — a deadline, a cancel, a hook that exits but
//! leaves its pipes open — hands every hook still running over to the
//! async runner, with what was read so far, and the async runner applies
//! its rules from there. So the rules for timeouts, grace periods and
//! leftovers live in one place, and no hook's deadline or drain window
//! waits for another hook.

use std::io;
use std::os::fd::{AsFd, BorrowedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, poll};

use super::cancel::CancelWatch;
use super::{Cancel, Exit, HookCommand, Started};

/// Waits for the hooks until each has finished, or until one of them
/// needs the async runner's rules (its deadline passed, it exited while
/// its output stays open, or the wait failed), or `cancel` fires. Returns
/// the hooks that finished — exited, reaped, both outputs at their end —
/// by their place in `hooks`, in the order they finished; the others are
/// still running, with whatever output was read so far kept in their
/// [`Started`], and the pipes that ended closed.
///
/// `cmds` are the hooks' commands, in the same order: the rest of each
/// payload that did not fit in the pipe at the spawn is written from
/// there.
///
/// A hook whose first stdout line detached it ([`HookCommand::detach`])
/// is finished too, still running.
///
/// Returns at once, with nothing finished, if the token is cancelled
/// already or this wait cannot see a cancel (no pipe could be made).
///
/// The exit is seen as the standard library sees it: the pipes reach their
/// end, then the hook is reaped, and no pidfd is opened (a pidfd costs the
/// kernel an inode per hook). Only a hook that closes its output and runs
/// on gets one. A hook that exits while a descendant holds its pipes is
/// noticed by checking for its exit at growing intervals, up to
/// [`CHECK_MAX`], while the pipes stay open.
pub(super) fn wait(
    hooks: &mut [Started],
    cmds: &[&HookCommand],
    cancel: &Cancel,
    lend: Lend<'_>,
) -> Vec<(usize, Ended)> {
    let mut finished = Vec::with_capacity(hooks.len());
    if lend.taken_back.is_some_and(|t| t.load(Ordering::SeqCst)) {
        return finished;
    }
    let cancel_fd = match lend.interrupt {
        // A cancel would come through the interrupt: no pipe is made.
        Some(_) if cancel.is_cancelled() => return finished,
        Some(_) => None,
        None => match cancel.watch() {
            CancelWatch::Never => None,
            CancelWatch::Readable(fd) => Some(fd),
            CancelWatch::Cancelled | CancelWatch::Unwatchable => return finished,
        },
    };
    // When to check next whether a hook exited while its pipes stay open:
    // by the clock, so output that keeps arriving cannot put it off.
    let first_check = Instant::now() + CHECK_FIRST;
    let mut watches: Vec<Watch> = hooks
        .iter()
        .map(|_| Watch::Reading {
            check: CHECK_FIRST,
            next: first_check,
        })
        .collect();
    // The rest of each payload goes in at once, as far as the pipe takes it.
    for (hook, cmd) in hooks.iter_mut().zip(cmds) {
        feed(hook, &cmd.stdin);
    }
    while finished.len() < hooks.len() {
        let now = Instant::now();
        let Some(wake) = next_wake(hooks, &watches, now) else {
            return finished;
        };
        // The thread is given back when the lending ends.
        let wake = match lend.until {
            Some(until) if until <= now => return finished,
            Some(until) => wake.min(until),
            None => wake,
        };
        let Ok(ready) = ready(
            hooks,
            &watches,
            [cancel_fd, lend.interrupt],
            wake.saturating_duration_since(now),
        ) else {
            return finished;
        };
        if ready.cancel {
            if let Some(t) = lend.taken_back {
                t.store(true, Ordering::SeqCst);
            }
            return finished;
        }
        let now = Instant::now();
        for (i, ((hook, watch), cmd)) in hooks.iter_mut().zip(&mut watches).zip(cmds).enumerate() {
            if ready.hooks[i][3] {
                feed(hook, &cmd.stdin);
            }
            match step(hook, watch, ready.hooks[i], now) {
                Step::Waiting => {}
                Step::Finished(exit) => {
                    *watch = Watch::Done;
                    // Each hook's own end: a run's duration is not the
                    // batch's.
                    finished.push((i, Ended::Exited(exit, Instant::now())));
                }
                Step::Detach(left) => {
                    *watch = Watch::Detached;
                    let deadline = super::detach::deadline_after(Instant::now(), left);
                    finished.push((i, Ended::Detached(deadline)));
                }
                Step::HandOver => return finished,
            }
        }
    }
    finished
}

/// The first interval at which a hook whose pipes stay open is checked
/// for an exit; it doubles up to [`CHECK_MAX`]. A hook of a few
/// milliseconds, most hooks, is never checked.
const CHECK_FIRST: Duration = Duration::from_millis(10);

/// The longest interval between two such checks: how late, at most, a
/// hook whose descendant holds its pipes is handed to the drain rules.
const CHECK_MAX: Duration = Duration::from_millis(100);

/// How long a dispatch may block its thread in this wait, and what takes
/// the thread back earlier. Either way the hooks still running go to the
/// reactor, with what was read of them so far.
///
/// [`super::Runner::run_lending`] and [`super::Runner::run_batch_lending`]
/// take one; [`super::Runner::lend_thread`] stands for [`Lend::whole`].
#[derive(Debug, Clone, Copy)]
pub struct Lend<'a> {
    /// Readable when the thread is wanted back (a server's input). A
    /// cancel must come through it too, as a server's cancel requests
    /// do: with an interrupt, the cancel token's own pipe is not made, and
    /// a signal also gives the thread back.
    pub interrupt: Option<BorrowedFd<'a>>,
    /// When the thread is wanted back at the latest; `None`: never.
    pub until: Option<Instant>,
    /// Set once the thread was taken back through `interrupt` (or a
    /// cancel): a later wait of the same lending (the dispatch's next
    /// hook) then does not block the thread again, since what took it
    /// back may have been read meanwhile, and `interrupt` would not say so
    /// a second time.
    pub taken_back: Option<&'a AtomicBool>,
}

impl Lend<'static> {
    /// The thread for as long as the hooks run ([`super::Runner::lend_thread`]).
    pub fn whole() -> Lend<'static> {
        Lend {
            interrupt: None,
            until: None,
            taken_back: None,
        }
    }
}

/// Where the wait for one hook is.
enum Watch {
    /// Reading its output; its exit is checked for at `next`, and then
    /// `check` later, while a pipe stays open.
    Reading { check: Duration, next: Instant },
    /// Both pipes ended before it could be reaped: waiting on its pidfd.
    Exiting,
    /// Its first line sent it to the background: what it prints is still
    /// read while the others of the batch run, so that it never blocks on
    /// a full pipe.
    Detached,
    /// Finished and reaped.
    Done,
}

/// How a hook the lent wait finished with ended.
#[derive(Debug, Clone, Copy)]
pub(super) enum Ended {
    /// It exited (reaped) and closed its output, at this time.
    Exited(Exit, Instant),
    /// Its first stdout line detached it, to run until then.
    Detached(Instant),
}

/// What one hook's turn after a `poll` came to.
enum Step {
    Waiting,
    Finished(Exit),
    /// Its first stdout line detached it, with this long left to run.
    Detach(Duration),
    /// The async runner takes every hook still running.
    HandOver,
}

/// What `poll` found ready for one hook: its pidfd, stdout, stderr, and
/// stdin (room to write).
type HookReady = [bool; 4];

/// Writes as much of the rest of `payload` as the stdin pipe takes now,
/// and closes it once all is written or the hook will not read it (a
/// write error such as `EPIPE`, which is the hook's right).
fn feed(hook: &mut Started, payload: &[u8]) {
    let Some(pipe) = &hook.stdin else { return };
    loop {
        let Some(rest) = payload.get(hook.fed..).filter(|rest| !rest.is_empty()) else {
            hook.stdin = None;
            return;
        };
        match rustix::io::write(pipe, rest) {
            Ok(n) => hook.fed += n,
            Err(rustix::io::Errno::AGAIN) => return,
            Err(rustix::io::Errno::INTR) => {}
            Err(_) => {
                hook.stdin = None;
                return;
            }
        }
    }
}

/// Reads what is ready for one hook and moves its wait on.
fn step(hook: &mut Started, watch: &mut Watch, ready: HookReady, now: Instant) -> Step {
    match watch {
        Watch::Done => Step::Waiting,
        Watch::Detached => {
            read_outputs(hook, [ready[1], ready[2]]);
            Step::Waiting
        }
        Watch::Exiting if !ready[0] => Step::Waiting,
        // The pidfd says it exited: reap it. Nothing to reap means a
        // tracer holds it, and the reactor code waits without spinning.
        Watch::Exiting => match hook.child.try_wait() {
            Ok(Some(exit)) => Step::Finished(exit),
            Ok(None) | Err(_) => Step::HandOver,
        },
        Watch::Reading { check, next } => {
            let printed = hook.stdout.total;
            let ended = read_outputs(hook, [ready[1], ready[2]]);
            // Asked whenever stdout grew, before its end counts: a hook may
            // print the line and close its output at once.
            if hook.stdout.total != printed
                && let Some(left) = hook.first_line.says(&hook.stdout)
            {
                return Step::Detach(left);
            }
            if ended {
                // The output ended; the exit is usually there already.
                return match hook.child.try_wait() {
                    Ok(Some(exit)) => Step::Finished(exit),
                    Ok(None) if hook.child.open_pidfd().is_some() => {
                        *watch = Watch::Exiting;
                        Step::Waiting
                    }
                    Ok(None) | Err(_) => Step::HandOver,
                };
            }
            if now < *next {
                return Step::Waiting;
            }
            // Still open: has the hook exited and left them to a
            // descendant? The async runner's drain rules take it from there.
            match hook.child.try_wait() {
                Ok(None) => {
                    *check = (*check * 2).min(CHECK_MAX);
                    *next = now + *check;
                    Step::Waiting
                }
                // It may have exited just after the poll, closing its
                // output with it: read once more before handing over.
                Ok(Some(exit)) if read_outputs(hook, [true, true]) => Step::Finished(exit),
                Ok(Some(_)) | Err(_) => Step::HandOver,
            }
        }
    }
}

/// Reads what the output pipes marked `readable` (stdout, stderr) hold,
/// closing a pipe at its end; whether both are at their end.
fn read_outputs(hook: &mut Started, readable: [bool; 2]) -> bool {
    for ((pipe, captured), readable) in [
        (&mut hook.out_pipe, &mut hook.stdout),
        (&mut hook.err_pipe, &mut hook.stderr),
    ]
    .into_iter()
    .zip(readable)
    {
        if readable
            && let Some(fd) = pipe
            && captured.read_available(fd.as_fd()) == Stream::Ended
        {
            *pipe = None;
        }
    }
    hook.out_pipe.is_none() && hook.err_pipe.is_none()
}

/// When the wait must wake up at the latest: the nearest deadline of a
/// hook still running, or its next exit check. `None` if a deadline has
/// passed.
fn next_wake(hooks: &[Started], watches: &[Watch], now: Instant) -> Option<Instant> {
    let mut wake: Option<Instant> = None;
    for (hook, watch) in hooks.iter().zip(watches) {
        let at = match watch {
            Watch::Done | Watch::Detached => continue,
            _ if hook.deadline <= now => return None,
            Watch::Reading { next, .. } => hook.deadline.min(*next),
            Watch::Exiting => hook.deadline,
        };
        wake = Some(wake.map_or(at, |w| w.min(at)));
    }
    // Every hook is done: the caller does not wait.
    Some(wake.unwrap_or(now))
}

/// Whether a pipe read reached the end of the stream.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Stream {
    /// Nothing more to read for now.
    Open,
    /// End of file, or a read error (which ends the stream).
    Ended,
}

/// What one `poll` found ready.
struct Ready {
    /// Per hook, in the order of `hooks`.
    hooks: Vec<HookReady>,
    /// The cancel pipe or the interrupt is ready: the thread goes back.
    cancel: bool,
}

/// Blocks in `poll` until a descriptor of a hook still running, or one
/// of `stops` (the cancel pipe, the lending's interrupt), is ready, or
/// `left` passes.
fn ready(
    hooks: &[Started],
    watches: &[Watch],
    stops: [Option<BorrowedFd<'_>>; 2],
    left: Duration,
) -> io::Result<Ready> {
    // Each polled descriptor, and whose it is: (hook, 0 pidfd, 1 stdout,
    // 2 stderr, 3 stdin); the cancel pipe last.
    let mut owners: Vec<(usize, usize)> = Vec::with_capacity(2 * hooks.len());
    let mut polled: Vec<PollFd<'_>> = Vec::with_capacity(2 * hooks.len() + 1);
    for (i, (hook, watch)) in hooks.iter().zip(watches).enumerate() {
        let fds = match watch {
            Watch::Done => [None, None, None],
            Watch::Exiting => [hook.child.pidfd(), None, None],
            Watch::Reading { .. } | Watch::Detached => [
                None,
                hook.out_pipe.as_ref().map(AsFd::as_fd),
                hook.err_pipe.as_ref().map(AsFd::as_fd),
            ],
        };
        for (which, fd) in fds.into_iter().enumerate() {
            if let Some(fd) = fd {
                owners.push((i, which));
                polled.push(PollFd::from_borrowed_fd(fd, PollFlags::IN));
            }
        }
        if !matches!(watch, Watch::Done)
            && let Some(stdin) = &hook.stdin
        {
            owners.push((i, 3));
            polled.push(PollFd::from_borrowed_fd(stdin.as_fd(), PollFlags::OUT));
        }
    }
    for fd in stops.into_iter().flatten() {
        polled.push(PollFd::from_borrowed_fd(fd, PollFlags::IN));
    }
    // A deadline beyond what a timespec holds is as good as none.
    let timeout = Timespec::try_from(left).ok();
    // A signal handler ran: with an interrupt, the runtime it belongs to
    // gets the thread back to act on it.
    let signalled = match poll(&mut polled, timeout.as_ref()) {
        Ok(_) => false,
        Err(rustix::io::Errno::INTR) => true,
        Err(e) => return Err(e.into()),
    };
    let mut ready = Ready {
        hooks: vec![[false; 4]; hooks.len()],
        cancel: signalled && stops[1].is_some(),
    };
    for (slot, fd) in polled.iter().enumerate() {
        if fd.revents().is_empty() {
            continue;
        }
        match owners.get(slot) {
            Some(&(hook, which)) => ready.hooks[hook][which] = true,
            None => ready.cancel = true,
        }
    }
    Ok(ready)
}
