//! Cancellation of a dispatch in progress.
//!
//! Dropping a dispatch already kills the running hook's process group; a
//! [`Cancel`] does the same but lets the dispatch finish its bookkeeping, so
//! the outcome records the interrupted hook as `cancelled` and runs no more.

use tokio::sync::watch;

/// The receiving side: passed to a dispatch.
#[derive(Debug, Clone)]
pub struct Cancel(watch::Receiver<bool>);

/// The sending side: kept by whoever may cancel.
#[derive(Debug)]
pub struct CancelHandle(watch::Sender<bool>);

impl Cancel {
    /// A linked handle and token.
    pub fn pair() -> (CancelHandle, Cancel) {
        let (tx, rx) = watch::channel(false);
        (CancelHandle(tx), Cancel(rx))
    }

    /// A token that is never cancelled.
    pub fn never() -> Cancel {
        Cancel::pair().1
    }

    /// Whether cancellation was requested.
    pub fn is_cancelled(&self) -> bool {
        *self.0.borrow()
    }

    /// Resolves once cancellation is requested; never, if it cannot be.
    pub async fn cancelled(&self) {
        let mut rx = self.0.clone();
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
}

impl CancelHandle {
    /// Requests cancellation.
    pub fn cancel(&self) {
        let _ = self.0.send(true);
    }
}
