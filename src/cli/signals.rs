//! The signals `latch fire` answers, from its very start (`latch serve`
//! catches the same list, [`wanted`]).
//!
//! Every signal whose default action would end latch, and that a program
//! may catch, is caught (the list is [`CAUGHT`] plus the real-time signals;
//! `docs/cli.md#signals` says why each one is in or out). A thread waits
//! for them, so a signal is seen at once whatever the main thread is doing:
//! - before the dispatch starts (the event or the configuration is still
//!   being read), latch has started no hook, so it exits at once with
//!   [`super::exit::CANCELLED`], no outcome on stdout and
//!   a line on stderr naming the signal;
//! - once the dispatch runs, the signal cancels it: the running hook and its
//!   descendants are killed, no further hook starts, and the outcome of
//!   what ran is printed with a warning naming the signal.
//!
//! Whichever of "the dispatch starts" and "a signal arrives" comes first
//! wins, atomically.

use std::sync::Arc;
use std::sync::atomic::{AtomicI32, AtomicU8, AtomicUsize, Ordering};

use rustix::process::Signal;
use signal_hook::iterator::Signals;

use crate::run::{Cancel, CancelHandle};

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

const LOADING: u8 = 0;
const DISPATCHING: u8 = 1;
const EXITING: u8 = 2;
const DONE: u8 = 3;

struct Shared {
    phase: AtomicU8,
    /// Set by the signal handler itself (not the thread), so a signal that
    /// arrived before the dispatch is seen even if the thread was slow.
    arrived: Arc<AtomicUsize>,
    /// The first signal that cancelled the dispatch, 0 if none.
    first: AtomicI32,
    /// `SIGRTMIN`: the C library keeps the real-time signals below it.
    rt_min: i32,
    handle: CancelHandle,
}

/// The signal watch of one `latch fire`.
pub struct FireSignals {
    shared: Arc<Shared>,
    cancel: Cancel,
}

impl FireSignals {
    /// Catches every signal of the list (except those latch was started
    /// with ignored, which stay ignored) and starts the thread that answers
    /// them. If they are caught but cannot be watched (it should not
    /// happen), latch exits with [`super::exit::INTERNAL`]
    /// rather than swallow them.
    pub fn install() -> FireSignals {
        let (handle, cancel) = Cancel::pair();
        let shared = Arc::new(Shared {
            phase: AtomicU8::new(LOADING),
            arrived: Arc::new(AtomicUsize::new(0)),
            first: AtomicI32::new(0),
            rt_min: libc::SIGRTMIN(),
            handle,
        });
        let signals = register(&shared);
        let watcher = Arc::clone(&shared);
        let spawned = std::thread::Builder::new()
            .name("latch-signals".into())
            .spawn(move || watch(signals, &watcher));
        if let Err(e) = spawned {
            eprintln!("latch: error: cannot start the signal thread: {e}");
            std::process::exit(i32::from(exit::INTERNAL));
        }
        FireSignals { shared, cancel }
    }

    /// Marks the start of the dispatch and returns its cancel token. If a
    /// signal came first, it does not return: latch exits with
    /// [`exit::CANCELLED`].
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
        // A signal handled, but not yet seen by the thread: no hook has
        // started, so this is still "before the dispatch".
        let n = self.shared.arrived.load(Ordering::SeqCst);
        if n != 0 {
            exit_before_dispatch(i32::try_from(n).unwrap_or(0), &self.shared);
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
            n => Some(name(n, self.shared.rt_min)),
        }
    }
}

/// Registers the list, minus the signals latch was started with ignored;
/// exits if they cannot be watched. The flag goes first, so
/// a signal is never caught (visible in `SigCgt`) without setting it.
fn register(shared: &Shared) -> Signals {
    let mut caught = Vec::new();
    for n in wanted() {
        let value = usize::try_from(n).unwrap_or(0);
        // The C library's own signals are refused (EINVAL): skip them.
        if signal_hook::flag::register_usize(n, Arc::clone(&shared.arrived), value).is_ok() {
            caught.push(n);
        }
    }
    match Signals::new(&caught) {
        Ok(s) => s,
        Err(e) => {
            // The flags are set: going on would swallow every signal.
            eprintln!("latch: error: cannot watch signals: {e}");
            std::process::exit(i32::from(exit::INTERNAL));
        }
    }
}

/// The signals to catch: [`CAUGHT`] and the real-time ones, minus those
/// this process was started with ignored.
pub fn wanted() -> impl Iterator<Item = i32> {
    let ignored = ignored_at_start();
    let is_ignored = move |n: i32| (1..=64).contains(&n) && ignored & (1u64 << (n - 1)) != 0;
    CAUGHT
        .iter()
        .map(|(n, _)| *n)
        .chain(libc::SIGRTMIN()..=libc::SIGRTMAX())
        .filter(move |&n| !is_ignored(n))
}

/// The signals this process was started with ignored (`SigIgn` in
/// `/proc/self/status`, bit n-1 for signal n): whoever started latch asked
/// for them to be ignored (`nohup` ignores SIGHUP, a shell ignores SIGINT
/// and SIGQUIT in background jobs), and latch keeps them so. Read before
/// any handler is installed; 0 if it cannot be read.
fn ignored_at_start() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("SigIgn:"))
                .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
        })
        .unwrap_or(0)
}

/// The signal thread: the first signal before the dispatch ends latch;
/// during it, every signal cancels (the first one is remembered).
fn watch(mut signals: Signals, shared: &Shared) {
    // A signal between the flag's registration and the watch's was seen
    // only by the flag.
    let early = i32::try_from(shared.arrived.load(Ordering::SeqCst)).unwrap_or(0);
    let early = (early != 0).then_some(early);
    for n in early.into_iter().chain(signals.forever()) {
        let exiting =
            shared
                .phase
                .compare_exchange(LOADING, EXITING, Ordering::SeqCst, Ordering::SeqCst);
        if exiting.is_ok() {
            exit_before_dispatch(n, shared);
        }
        if shared.phase.load(Ordering::SeqCst) == DISPATCHING {
            let _ = shared
                .first
                .compare_exchange(0, n, Ordering::SeqCst, Ordering::SeqCst);
            shared.handle.cancel();
        }
    }
}

/// Ends latch for a signal that came before any hook started.
///
/// The line goes straight to file descriptor 2: the main thread may hold
/// the lock of `std::io::stderr` (it does while it prints diagnostics), and
/// `eprintln!` from here would wait for it forever.
fn exit_before_dispatch(n: i32, shared: &Shared) -> ! {
    use std::os::fd::AsFd;
    let what = name(n, shared.rt_min);
    let line = format!(
        "latch: error: {what} received before any hook ran; no hook ran and there is no outcome\n"
    );
    let stderr = std::io::stderr();
    let mut rest = line.as_bytes();
    while !rest.is_empty() {
        match rustix::io::write(stderr.as_fd(), rest) {
            Err(rustix::io::Errno::INTR) => {}
            Ok(0) | Err(_) => break,
            Ok(k) => rest = rest.get(k..).unwrap_or_default(),
        }
    }
    std::process::exit(i32::from(exit::CANCELLED));
}

/// `SIGHUP`, or `SIGRTMIN+3` for a real-time signal.
pub fn name(n: i32, rt_min: i32) -> String {
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
