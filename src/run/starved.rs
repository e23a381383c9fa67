//! A hook that could not start for want of a resource (file descriptors,
//! processes, memory) is started again instead of failing at once: a
//! deny guard that never ran would let the tool through (a spawn failure
//! is a non-blocking error in every dialect).
//!
//! What a batch of hooks holds is freed when its hooks end, so a hook of
//! a batch that others starved waits for them (see
//! [`super::Runner::run_batch_lending`]). When nothing of its own runs,
//! the resource is someone else's: latch waits [`PATIENCE`] before each
//! new try, and then reports the failure as before.

use std::io;
use std::time::Duration;

use super::Cancel;

/// The waits before each new try of a hook that nothing of its own
/// batch starves: about a third of a second in all, then it fails.
pub(super) const PATIENCE: [Duration; 3] = [
    Duration::from_millis(10),
    Duration::from_millis(50),
    Duration::from_millis(250),
];

/// Whether a spawn failed for want of something that running processes
/// hold and give back when they end: descriptors (per process or system
/// wide), processes (`RLIMIT_NPROC`, the kernel's pid limit) or memory.
pub(super) fn starved(err: &io::Error) -> bool {
    matches!(
        err.raw_os_error(),
        Some(libc::EMFILE | libc::ENFILE | libc::EAGAIN | libc::ENOMEM)
    )
}

/// Waits the `tries`th wait of [`PATIENCE`], or until `cancel`; `false`
/// when patience is spent or the run was cancelled: the failure stands.
pub(super) async fn wait_before_try(tries: usize, cancel: &Cancel) -> bool {
    let Some(wait) = PATIENCE.get(tries) else {
        return false;
    };
    tokio::select! {
        () = tokio::time::sleep(*wait) => !cancel.is_cancelled(),
        () = cancel.cancelled() => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_exhausted_resources_are_worth_a_new_try() {
        for errno in [libc::EMFILE, libc::ENFILE, libc::EAGAIN, libc::ENOMEM] {
            assert!(starved(&io::Error::from_raw_os_error(errno)), "{errno}");
        }
        for errno in [libc::ENOENT, libc::EACCES, libc::ENOEXEC, libc::E2BIG] {
            assert!(!starved(&io::Error::from_raw_os_error(errno)), "{errno}");
        }
        assert!(!starved(&io::Error::other("no errno")));
    }
}
