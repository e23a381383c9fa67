//! Waiting for a lone hook on the caller's thread, without the reactor.
//!
//! When the embedder lends its thread ([`super::Runner::lend_thread`]) and
//! a hook runs alone, the runner waits for it with `poll(2)` on the hook's
//! pipes and the cancel token's pipe, then reaps it, as the standard
//! library's `wait_with_output` does, instead of registering three
//! descriptors with tokio's reactor and going through it at every wake-up. The dispatch
//! benchmark put the reactor's share of a one-hook dispatch at about 5 %
//! (`benches/README.md`).
//!
//! This covers the common case only: the hook exits and closes its output.
//! Anything else — the deadline, a cancel, a hook that exits but leaves
//! its pipes open — hands the hook over to the async runner, with what was
//! read so far, and the async runner applies its rules from there. So the
//! rules for timeouts, grace periods and leftovers live in one place.

use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, poll};

use super::cancel::CancelWatch;
use super::capture::Captured;
use super::child::Child;
use super::{Cancel, Exit};

/// How the wait on the thread ended.
pub(super) enum Waited {
    /// The hook exited, was reaped, and closed both outputs.
    Finished(Exit),
    /// The async runner takes over; the pipes still open are returned.
    HandedOver {
        stdout: Option<OwnedFd>,
        stderr: Option<OwnedFd>,
    },
}

/// The output pipes being read, each `None` once it reached its end.
pub(super) struct Outputs<'a> {
    pub stdout: (Option<OwnedFd>, &'a mut Captured),
    pub stderr: (Option<OwnedFd>, &'a mut Captured),
}

/// Waits for the hook until it finishes, `deadline` passes, or `cancel`
/// fires. Gives the outputs back untouched if this wait cannot see a cancel
/// (no pipe could be made): the caller then waits on the reactor, as
/// without a lent thread.
///
/// The exit is seen as the standard library sees it: the pipes reach their
/// end, then the hook is reaped, and no pidfd is opened (a pidfd costs the
/// kernel an inode per hook). Only a hook that closes its output and runs
/// on gets one. A hook that exits while a descendant holds its pipes is
/// noticed by checking for its exit at growing intervals, up to
/// [`CHECK_MAX`], while the pipes stay open.
pub(super) fn wait<'a>(
    child: &mut Child,
    mut outputs: Outputs<'a>,
    deadline: Instant,
    cancel: &Cancel,
) -> Result<Waited, Outputs<'a>> {
    let cancel_fd = match cancel.watch() {
        CancelWatch::Cancelled => return Ok(hand_over(outputs)),
        CancelWatch::Never => None,
        CancelWatch::Readable(fd) => Some(fd),
        CancelWatch::Unwatchable => return Err(outputs),
    };
    // When to check next whether the hook exited while its pipes stay
    // open: by the clock, so output that keeps arriving cannot put it off.
    let mut check = CHECK_FIRST;
    let mut next_check = Instant::now() + check;
    // Phase 1: read the output until both pipes end.
    while outputs.stdout.0.is_some() || outputs.stderr.0.is_some() {
        let now = Instant::now();
        let Some(left) = deadline.checked_duration_since(now) else {
            return Ok(hand_over(outputs));
        };
        let until_check = next_check.saturating_duration_since(now);
        let Ok(ready) = ready(None, &outputs, cancel_fd, left.min(until_check)) else {
            return Ok(hand_over(outputs));
        };
        if ready.cancel {
            return Ok(hand_over(outputs));
        }
        for (i, (pipe, captured)) in [&mut outputs.stdout, &mut outputs.stderr]
            .into_iter()
            .enumerate()
        {
            if ready.pipes[i]
                && let Some(fd) = pipe
                && captured.read_available(fd.as_fd()) == Stream::Ended
            {
                *pipe = None;
            }
        }
        let now = Instant::now();
        if now >= next_check && (outputs.stdout.0.is_some() || outputs.stderr.0.is_some()) {
            // Still open: has the hook exited and left them to a
            // descendant? The async runner's drain rules take it from there.
            match child.try_wait() {
                Ok(None) => {
                    check = (check * 2).min(CHECK_MAX);
                    next_check = now + check;
                }
                Ok(Some(_)) | Err(_) => return Ok(hand_over(outputs)),
            }
        }
    }
    // Phase 2: the output ended; the exit is usually there already.
    let mut pidfd_ready = false;
    loop {
        match child.try_wait() {
            Ok(Some(exit)) => return Ok(Waited::Finished(exit)),
            // The pidfd said it exited, yet there is nothing to reap (a
            // tracer holds it): the reactor code waits for it without
            // spinning.
            Ok(None) if pidfd_ready => return Ok(hand_over(outputs)),
            Ok(None) => {}
            Err(_) => return Ok(hand_over(outputs)),
        }
        let Some(left) = deadline.checked_duration_since(Instant::now()) else {
            return Ok(hand_over(outputs));
        };
        let Some(pidfd) = child.open_pidfd() else {
            return Ok(hand_over(outputs));
        };
        let Ok(ready) = ready(Some(pidfd), &outputs, cancel_fd, left) else {
            return Ok(hand_over(outputs));
        };
        if ready.cancel {
            return Ok(hand_over(outputs));
        }
        pidfd_ready = ready.exited;
    }
}

/// The first interval at which a hook whose pipes stay open is checked
/// for an exit; it doubles up to [`CHECK_MAX`]. A hook of a few
/// milliseconds, most hooks, is never checked.
const CHECK_FIRST: Duration = Duration::from_millis(10);

/// The longest interval between two such checks: how late, at most, a
/// hook whose descendant holds its pipes is handed to the drain rules.
const CHECK_MAX: Duration = Duration::from_millis(100);

fn hand_over(outputs: Outputs<'_>) -> Waited {
    Waited::HandedOver {
        stdout: outputs.stdout.0,
        stderr: outputs.stderr.0,
    }
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
    /// The pidfd is readable: the hook exited.
    exited: bool,
    cancel: bool,
    /// Whether stdout and stderr are readable (or hung up).
    pipes: [bool; 2],
}

/// Blocks in `poll` until one of the descriptors is ready or `left` passes.
fn ready(
    pidfd: Option<BorrowedFd<'_>>,
    outputs: &Outputs<'_>,
    cancel: Option<BorrowedFd<'_>>,
    left: Duration,
) -> io::Result<Ready> {
    let wanted = PollFlags::IN;
    // The pidfd first, the pipes next, the cancel pipe last; absent ones
    // are left out.
    let mut fds = [
        pidfd,
        outputs.stdout.0.as_ref().map(AsFd::as_fd),
        outputs.stderr.0.as_ref().map(AsFd::as_fd),
        cancel,
    ]
    .map(|fd| fd.map(|fd| PollFd::from_borrowed_fd(fd, wanted)));
    let mut polled: Vec<PollFd<'_>> = fds.iter_mut().filter_map(Option::take).collect();
    // A deadline beyond what a timespec holds is as good as none.
    let timeout = Timespec::try_from(left).ok();
    match poll(&mut polled, timeout.as_ref()) {
        Ok(_) | Err(rustix::io::Errno::INTR) => {}
        Err(e) => return Err(e.into()),
    }
    let mut revents = polled.iter().map(|f| !f.revents().is_empty());
    let mut next = |present: bool| present && revents.next().unwrap_or(false);
    Ok(Ready {
        exited: next(pidfd.is_some()),
        pipes: [
            next(outputs.stdout.0.is_some()),
            next(outputs.stderr.0.is_some()),
        ],
        cancel: next(cancel.is_some()),
    })
}
