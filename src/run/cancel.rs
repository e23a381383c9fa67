//! Cancellation of a dispatch in progress.
//!
//! Dropping a dispatch already kills the running hook's process group; a
//! [`Cancel`] does the same but lets the dispatch finish its bookkeeping, so
//! the outcome records the interrupted hook as `cancelled` and runs no more.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

use rustix::pipe::{PipeFlags, pipe_with};
use tokio::sync::watch;

/// The receiving side: passed to a dispatch.
#[derive(Debug, Clone)]
pub struct Cancel {
    flag: watch::Receiver<bool>,
    wake: Arc<Wake>,
}

/// The sending side: kept by whoever may cancel.
#[derive(Debug)]
pub struct CancelHandle {
    flag: watch::Sender<bool>,
    wake: Arc<Wake>,
}

/// A pipe that becomes readable on cancellation, for a hook waited for on
/// the caller's thread with `poll(2)` (see [`super::lent`]), where the
/// watch cannot wake anyone. Made only when such a wait asks for it: most
/// tokens never need one.
#[derive(Debug, Default)]
struct Wake(OnceLock<Option<(OwnedFd, OwnedFd)>>, AtomicBool);

impl Cancel {
    /// A linked handle and token.
    pub fn pair() -> (CancelHandle, Cancel) {
        let (tx, rx) = watch::channel(false);
        let wake = Arc::new(Wake::default());
        (
            CancelHandle {
                flag: tx,
                wake: Arc::clone(&wake),
            },
            Cancel { flag: rx, wake },
        )
    }

    /// A token that is never cancelled.
    pub fn never() -> Cancel {
        Cancel::pair().1
    }

    /// Whether cancellation was requested.
    pub fn is_cancelled(&self) -> bool {
        *self.flag.borrow()
    }

    /// Resolves once cancellation is requested; never, if it cannot be.
    pub async fn cancelled(&self) {
        let mut rx = self.flag.clone();
        loop {
            if *rx.borrow_and_update() {
                return;
            }
            if rx.changed().await.is_err() {
                // The handle is gone: nobody can cancel any more.
                std::future::pending::<()>().await;
            }
        }
    }

    /// How a wait that blocks its thread in `poll(2)` learns of a cancel.
    pub(super) fn watch(&self) -> CancelWatch<'_> {
        if self.flag.has_changed().is_err() {
            // The handle is gone, for good: the flag can no longer change.
            return match self.is_cancelled() {
                true => CancelWatch::Cancelled,
                false => CancelWatch::Never,
            };
        }
        let pipe = self
            .wake
            .0
            .get_or_init(|| pipe_with(PipeFlags::CLOEXEC).ok());
        // The flag is checked once the pipe exists: `CancelHandle::cancel`
        // sets the flag, then writes if there is a pipe, so one of the two
        // sees the other.
        if self.is_cancelled() {
            return CancelWatch::Cancelled;
        }
        match pipe {
            Some((read, _)) => CancelWatch::Readable(read.as_fd()),
            None => CancelWatch::Unwatchable,
        }
    }
}

/// See [`Cancel::watch`].
#[derive(Debug)]
pub(super) enum CancelWatch<'a> {
    /// Already cancelled.
    Cancelled,
    /// It can no longer be cancelled.
    Never,
    /// Becomes readable on cancellation.
    Readable(BorrowedFd<'a>),
    /// No pipe could be made: a blocking wait would not see a cancel.
    Unwatchable,
}

impl CancelHandle {
    /// Requests cancellation.
    pub fn cancel(&self) {
        let _ = self.flag.send(true);
        if let Some(Some((_, write))) = self.wake.0.get() {
            // One byte is enough, and the pipe is never read. Written once,
            // so a blocking pipe never fills.
            if !self.wake.1.swap(true, std::sync::atomic::Ordering::SeqCst) {
                let _ = rustix::io::write(write, &[1]);
            }
        }
    }
}
