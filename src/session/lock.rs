//! The session lock: a bounded, cancellable wait for `flock` on the
//! session's `lock` file.
//!
//! latch never blocks in `flock`: it polls `LOCK_NB` with a short backoff
//! on the async runtime (each try is a non-blocking system call), gives up
//! after [`LOCK_WAIT`], and at once when the dispatch is cancelled.

use std::fs::File;
use std::io;
use std::os::fd::AsFd;
use std::path::Path;
use std::time::{Duration, Instant};

use rustix::fs::{FlockOperation, OFlags};
use rustix::io::Errno;

use super::files::open_regular;
use crate::run::Cancel;

/// How long latch waits for another process to release a session's lock
/// before it gives up (each dialect then makes its safe choice).
pub const LOCK_WAIT: Duration = Duration::from_secs(10);

/// The lock file's name in a session directory.
const LOCK_FILE: &str = "lock";

/// The first and the longest pause between two tries.
const FIRST_PAUSE: Duration = Duration::from_millis(1);
const MAX_PAUSE: Duration = Duration::from_millis(50);

/// A held lock; released when dropped (the descriptor closes).
#[derive(Debug)]
pub struct Held(#[allow(dead_code)] File);

/// Takes the lock of the session directory `dir` (named `path`), shared or
/// exclusive, waiting at most [`LOCK_WAIT`] and not at all once `cancel`
/// fires.
pub async fn acquire(
    dir: impl AsFd,
    path: &Path,
    exclusive: bool,
    cancel: &Cancel,
) -> io::Result<Held> {
    let lock_path = path.join(LOCK_FILE);
    let file = open_regular(dir, LOCK_FILE, &lock_path, OFlags::RDWR | OFlags::CREATE)?;
    let op = if exclusive {
        FlockOperation::NonBlockingLockExclusive
    } else {
        FlockOperation::NonBlockingLockShared
    };
    let start = Instant::now();
    let mut pause = FIRST_PAUSE;
    loop {
        match rustix::fs::flock(&file, op) {
            Ok(()) => return Ok(Held(file)),
            Err(Errno::WOULDBLOCK | Errno::INTR) => {}
            Err(e) => {
                return Err(super::files::at_path(&lock_path, "lock", e));
            }
        }
        if start.elapsed() >= LOCK_WAIT {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "the session state is busy: another process held {} for {} s and latch gave up waiting",
                    lock_path.display(),
                    LOCK_WAIT.as_secs()
                ),
            ));
        }
        tokio::select! {
            () = tokio::time::sleep(pause) => {}
            () = cancel.cancelled() => {
                return Err(io::Error::new(
                    io::ErrorKind::Interrupted,
                    format!(
                        "cancelled while waiting for the session lock {}",
                        lock_path.display()
                    ),
                ));
            }
        }
        pause = (pause * 2).min(MAX_PAUSE);
    }
}
