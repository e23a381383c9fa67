//! Waiting for a lone hook on the caller's thread, without the reactor.
//!
//! When the embedder lends its thread ([`super::Runner::lend_thread`]) and
//! a hook runs alone, the runner waits for it with `poll(2)` on the hook's
//! pipes, its pidfd and the cancel token's pipe, as the standard library's
//! `wait_with_output` does, instead of registering three descriptors with
//! tokio's reactor and going through it at every wake-up. The dispatch
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
/// (no pipe could be made) or the kernel has no pidfds: the caller then
/// waits on the reactor, as without a lent thread.
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
    if child.pidfd().is_none() {
        return Err(outputs);
    }
    loop {
        let Some(left) = deadline.checked_duration_since(Instant::now()) else {
            return Ok(hand_over(outputs));
        };
        let Some(pidfd) = child.pidfd() else {
            return Ok(hand_over(outputs));
        };
        let Ok(ready) = ready(pidfd, &outputs, cancel_fd, left) else {
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
        if ready.exited {
            match child.try_wait() {
                Ok(Some(exit)) if outputs.stdout.0.is_none() && outputs.stderr.0.is_none() => {
                    return Ok(Waited::Finished(exit));
                }
                // An exit with a pipe still open: the async runner's rules
                // for leftovers apply.
                Ok(Some(_)) | Err(_) => return Ok(hand_over(outputs)),
                Ok(None) => {}
            }
        }
    }
}

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
    exited: bool,
    cancel: bool,
    /// Whether stdout and stderr are readable (or hung up).
    pipes: [bool; 2],
}

/// Blocks in `poll` until one of the descriptors is ready or `left` passes.
fn ready(
    pidfd: BorrowedFd<'_>,
    outputs: &Outputs<'_>,
    cancel: Option<BorrowedFd<'_>>,
    left: Duration,
) -> io::Result<Ready> {
    let wanted = PollFlags::IN;
    // The pidfd first, the pipes next (absent ones polled as -1, which
    // `poll` skips), the cancel pipe last.
    let mut fds = [
        Some(pidfd),
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
        exited: next(true),
        pipes: [
            next(outputs.stdout.0.is_some()),
            next(outputs.stderr.0.is_some()),
        ],
        cancel: next(cancel.is_some()),
    })
}
