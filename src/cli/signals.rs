//! The signals `latch fire` answers, from its very start.
//!
//! Every signal whose default action would end latch, and that a program
//! may catch, is caught (the list is [`CAUGHT`] plus the real-time signals;
//! `docs/cli.md#signals` says why each one is in or out). A thread waits
//! for them, so a signal is seen at once whatever the main thread is doing:
//! - before the dispatch starts (the event or the configuration is still
//!   being read), latch has started no hook, so it exits at once with
//!   [`exit::CANCELLED`](super::exit::CANCELLED), no outcome on stdout and
//!   a line on stderr naming the signal;
//! - once the dispatch runs, the signal cancels it: the running hook and its
//!   descendants are killed, no further hook starts, and the outcome of
//!   what ran is printed with a warning naming the signal.
//!
//! Whichever of "the dispatch starts" and "a signal arrives" comes first
//! wins, atomically.

use std::sync::Arc;
use std::sync::atomic::{AtomicI32, AtomicU8, Ordering};

use rustix::process::Signal;
use signal_hook::iterator::Signals;

use latch::run::{Cancel, CancelHandle};

use super::exit;

/// The standard signals that end a process by default and can be caught,
/// minus those latch leaves alone (see the module docs and `docs/cli.md`).
pub const CAUGHT: &[(i32, &str)] = &[
    (Signal::HUP.as_raw(), "SIGHUP"),
    (Signal::INT.as_raw(), "SIGINT"),
    (Signal::QUIT.as_raw(), "SIGQUIT"),
    (Signal::USR1.as_raw(), "SIGUSR1"),
    (Signal::USR2.as_raw(), "SIGUSR2"),
    (Signal::ALARM.as_raw(), "SIGALRM"),
    (Signal::TERM.as_raw(), "SIGTERM"),
    (Signal::STKFLT.as_raw(), "SIGSTKFLT"),
    (Signal::XCPU.as_raw(), "SIGXCPU"),
    (Signal::XFSZ.as_raw(), "SIGXFSZ"),
    (Signal::VTALARM.as_raw(), "SIGVTALRM"),
    (Signal::PROF.as_raw(), "SIGPROF"),
    (Signal::IO.as_raw(), "SIGIO"),
    (Signal::POWER.as_raw(), "SIGPWR"),
];

/// The real-time signals are tried from here up; the C library reserves the
/// first few for itself and refuses them, and the first one it accepts is
/// `SIGRTMIN`.
const RT_FIRST: i32 = 32;
/// The last real-time signal on Linux (`SIGRTMAX`).
const RT_LAST: i32 = 64;

const LOADING: u8 = 0;
const DISPATCHING: u8 = 1;
const EXITING: u8 = 2;
const DONE: u8 = 3;

struct Shared {
    phase: AtomicU8,
    /// The first signal that cancelled the dispatch, 0 if none.
    first: AtomicI32,
    /// The first real-time signal the C library accepted.
    rt_min: AtomicI32,
    handle: CancelHandle,
}

/// The signal watch of one `latch fire`.
pub struct FireSignals {
    shared: Arc<Shared>,
    cancel: Cancel,
}

impl FireSignals {
    /// Catches every signal of the list and starts the thread that answers
    /// them. If the signals cannot be caught (it should not happen), latch
    /// goes on without and their default actions apply; if they are caught
    /// but the thread cannot start, latch exits with
    /// [`exit::INTERNAL`](super::exit::INTERNAL) rather than swallow them.
    pub fn install() -> FireSignals {
        let (handle, cancel) = Cancel::pair();
        let shared = Arc::new(Shared {
            phase: AtomicU8::new(LOADING),
            first: AtomicI32::new(0),
            rt_min: AtomicI32::new(0),
            handle,
        });
        if let Some(signals) = register(&shared) {
            let watcher = Arc::clone(&shared);
            let spawned = std::thread::Builder::new()
                .name("latch-signals".into())
                .spawn(move || watch(signals, &watcher));
            if let Err(e) = spawned {
                eprintln!("latch: error: cannot start the signal thread: {e}");
                std::process::exit(i32::from(exit::INTERNAL));
            }
        }
        FireSignals { shared, cancel }
    }

    /// Marks the start of the dispatch and returns its cancel token, or, if
    /// a signal won the race, never returns: the signal thread is exiting.
    pub async fn begin_dispatch(&self) -> Cancel {
        let won = self.shared.phase.compare_exchange(
            LOADING,
            DISPATCHING,
            Ordering::SeqCst,
            Ordering::SeqCst,
        );
        if won.is_err() {
            // The signal thread owns the exit; it is printing and exiting.
            std::future::pending::<()>().await;
        }
        self.cancel.clone()
    }

    /// Marks the end of the dispatch: later signals change nothing.
    pub fn end_dispatch(&self) {
        self.shared.phase.store(DONE, Ordering::SeqCst);
    }

    /// The name of the signal that cancelled the dispatch, if one did.
    pub fn received(&self) -> Option<String> {
        match self.shared.first.load(Ordering::SeqCst) {
            0 => None,
            n => Some(name(n, self.shared.rt_min.load(Ordering::SeqCst))),
        }
    }
}

/// Registers the list; `None` (and a warning) if even the standard signals
/// cannot be caught.
fn register(shared: &Shared) -> Option<Signals> {
    let signals = match Signals::new(CAUGHT.iter().map(|(n, _)| *n)) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("latch: warning: cannot catch signals: {e}");
            return None;
        }
    };
    for n in RT_FIRST..=RT_LAST {
        // The C library's own signals are refused (EINVAL): skip them.
        if signals.add_signal(n).is_ok() {
            let _ = shared
                .rt_min
                .compare_exchange(0, n, Ordering::SeqCst, Ordering::SeqCst);
        }
    }
    Some(signals)
}

/// The signal thread: the first signal before the dispatch ends latch;
/// during it, every signal cancels (the first one is remembered).
fn watch(mut signals: Signals, shared: &Shared) {
    for n in signals.forever() {
        let exiting =
            shared
                .phase
                .compare_exchange(LOADING, EXITING, Ordering::SeqCst, Ordering::SeqCst);
        if exiting.is_ok() {
            let what = name(n, shared.rt_min.load(Ordering::SeqCst));
            eprintln!(
                "latch: error: {what} received before any hook ran; no hook ran and there is no outcome"
            );
            std::process::exit(i32::from(exit::CANCELLED));
        }
        if shared.phase.load(Ordering::SeqCst) == DISPATCHING {
            let _ = shared
                .first
                .compare_exchange(0, n, Ordering::SeqCst, Ordering::SeqCst);
            shared.handle.cancel();
        }
    }
}

/// `SIGHUP`, or `SIGRTMIN+3` for a real-time signal.
fn name(n: i32, rt_min: i32) -> String {
    if let Some((_, name)) = CAUGHT.iter().find(|(m, _)| *m == n) {
        return (*name).to_owned();
    }
    match n - rt_min {
        0 if rt_min > 0 => "SIGRTMIN".to_owned(),
        k if rt_min > 0 && k > 0 => format!("SIGRTMIN+{k}"),
        _ => format!("signal {n}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_standard_and_real_time_signals() {
        assert_eq!(name(1, 34), "SIGHUP");
        assert_eq!(name(34, 34), "SIGRTMIN");
        assert_eq!(name(40, 34), "SIGRTMIN+6");
        assert_eq!(name(33, 34), "signal 33");
    }
}
