//! A hook that could not start for want of a resource (file descriptors,
//! processes, memory) is started again instead of failing at once: a
//! deny guard that never ran would let the tool through (a spawn failure
//! is a non-blocking error in every dialect).
//!
//! What a hook holds (its pipes, its process) is freed when it ends, so
//! a hook of a batch that others starved waits for them (see
//! [`super::Runner::run_batch_lending`]). When nothing of its own runs,
//! the hooks holding the resource may be other dispatches' of the same
//! process (`latch serve` runs many at once): while any hook of the
//! process runs, the starved hook waits for the next one to end and tries
//! again, for at most its own timeout. Only when no hook of the process
//! runs is the resource someone else's: latch then waits [`PATIENCE`]
//! before each new try, and then reports the failure as before.

use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use super::Cancel;

/// The waits before each new try of a hook that no hook of this process
/// starves: about a third of a second in all, then it fails.
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

/// The hooks a process runs: how many started and have not ended, and a
/// signal each time one ends.
struct Hooks {
    running: AtomicUsize,
    ended: Notify,
}

impl Hooks {
    const fn new() -> Hooks {
        Hooks {
            running: AtomicUsize::new(0),
            ended: Notify::const_new(),
        }
    }
}

/// The hooks of this process.
static HOOKS: Hooks = Hooks::new();

/// Counts one started hook among those this process runs, until dropped.
/// The hook's process and pipes own it, declared after them, so that it
/// is dropped once they are: when the hook ended, and was reaped, or was
/// handed to another process ([`super::Detached::release`]) or dropped.
pub(super) struct Running(&'static Hooks);

impl Running {
    /// Counts a hook that just started.
    pub(super) fn start() -> Running {
        Running::start_in(&HOOKS)
    }

    fn start_in(hooks: &'static Hooks) -> Running {
        hooks.running.fetch_add(1, Ordering::SeqCst);
        Running(hooks)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.0.running.fetch_sub(1, Ordering::SeqCst);
        // Every hook waiting for a start tries again: what this one held
        // is free.
        self.0.ended.notify_waiters();
    }
}

/// How long a starved hook still waits for a new try.
#[derive(Debug)]
pub(super) struct Patience {
    /// The waits of [`PATIENCE`] spent so far.
    tries: usize,
    /// No wait for another hook's end goes past this (the starved hook's
    /// own timeout, counted from its first try).
    until: Instant,
}

impl Patience {
    /// All of [`PATIENCE`], and waits for other hooks until `until`.
    pub(super) fn new(until: Instant) -> Patience {
        Patience { tries: 0, until }
    }

    /// A hook of the caller's own started since: [`PATIENCE`] starts over.
    pub(super) fn restart(&mut self) {
        self.tries = 0;
    }

    /// Waits before a new try: while any hook of this process runs (and
    /// `until` has not passed), until one ends; else the next wait of
    /// [`PATIENCE`]. `false` when patience is spent or the run was
    /// cancelled: the failure stands.
    pub(super) async fn wait(&mut self, cancel: &Cancel) -> bool {
        self.wait_on(&HOOKS, cancel).await
    }

    async fn wait_on(&mut self, hooks: &Hooks, cancel: &Cancel) -> bool {
        if cancel.is_cancelled() {
            return false;
        }
        // Listening before looking at the count: an end between the two
        // still wakes this wait.
        let ended = hooks.ended.notified();
        tokio::pin!(ended);
        ended.as_mut().enable();
        // Past `until` the waits are [`PATIENCE`]'s, as when nothing
        // else runs: never fewer tries than a hook alone gets.
        if hooks.running.load(Ordering::SeqCst) > 0 && Instant::now() < self.until {
            return tokio::select! {
                () = ended => !cancel.is_cancelled(),
                // Time is up: one more try, then the waits of `PATIENCE`.
                () = tokio::time::sleep_until(self.until.into()) => !cancel.is_cancelled(),
                () = cancel.cancelled() => false,
            };
        }
        let Some(wait) = PATIENCE.get(self.tries) else {
            return false;
        };
        self.tries += 1;
        tokio::select! {
            () = tokio::time::sleep(*wait) => !cancel.is_cancelled(),
            () = cancel.cancelled() => false,
        }
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

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime")
    }

    /// A count of its own, apart from the hooks other tests run.
    fn hooks() -> &'static Hooks {
        Box::leak(Box::new(Hooks::new()))
    }

    #[test]
    fn with_nothing_running_patience_runs_out_after_three_waits() {
        let hooks = hooks();
        let mut patience = Patience::new(Instant::now() + Duration::from_secs(60));
        let waits = runtime().block_on(async {
            let mut waits = 0;
            while patience.wait_on(hooks, &Cancel::never()).await {
                waits += 1;
            }
            waits
        });
        assert_eq!(waits, PATIENCE.len());
    }

    #[test]
    fn while_a_hook_runs_every_end_is_a_new_try_however_many() {
        let hooks = hooks();
        // Far more ends than PATIENCE has waits: none of them spends it.
        let ends = PATIENCE.len() + 3;
        let mut patience = Patience::new(Instant::now() + Duration::from_secs(60));
        let never = Cancel::never();
        runtime().block_on(async {
            let mut running: Vec<Running> = (0..=ends).map(|_| Running::start_in(hooks)).collect();
            for _ in 0..ends {
                let waited = patience.wait_on(hooks, &never);
                let end = async {
                    tokio::task::yield_now().await;
                    running.pop();
                };
                let (waited, ()) = tokio::join!(waited, end);
                assert!(waited);
            }
        });
        assert_eq!(patience.tries, 0);
    }

    #[test]
    fn an_end_before_the_wait_listens_is_not_waited_for() {
        let hooks = hooks();
        let mut patience = Patience::new(Instant::now() + Duration::from_secs(60));
        let running = Running::start_in(hooks);
        drop(running);
        // Nothing runs any more: the wait is PATIENCE's first, not an end
        // that already came.
        runtime().block_on(async {
            assert!(patience.wait_on(hooks, &Cancel::never()).await);
        });
        assert_eq!(patience.tries, 1);
    }

    #[test]
    fn a_wait_for_an_end_lasts_until_the_hooks_time_then_patience_or_a_cancel() {
        let hooks = hooks();
        let _running = Running::start_in(hooks);
        let rt = runtime();
        let mut patience = Patience::new(Instant::now() + Duration::from_millis(20));
        // Its time is up: one more try, then those of `PATIENCE`, as for a
        // hook alone, and no more.
        assert!(rt.block_on(patience.wait_on(hooks, &Cancel::never())));
        for _ in PATIENCE {
            assert!(rt.block_on(patience.wait_on(hooks, &Cancel::never())));
        }
        assert!(!rt.block_on(patience.wait_on(hooks, &Cancel::never())));
        let mut patience = Patience::new(Instant::now() + Duration::from_secs(60));
        let (handle, cancel) = Cancel::pair();
        let waited = rt.block_on(async {
            let waited = patience.wait_on(hooks, &cancel);
            let fire = async {
                tokio::task::yield_now().await;
                handle.cancel();
            };
            tokio::join!(waited, fire).0
        });
        assert!(!waited);
    }
}
