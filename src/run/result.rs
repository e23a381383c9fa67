//! What the runner hands back: how a hook process ended and what it
//! printed, for its dialect to judge.

use std::time::Duration;

use super::{Captured, Detached};

/// How a process that ran came to an end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// It exited with this code.
    Code(i32),
    /// A signal killed it.
    Signal(i32),
}

/// Why a hook process could not start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpawnFailure {
    /// The program does not exist.
    NotFound,
    /// The program exists but cannot be executed.
    NotExecutable,
    /// The working directory does not exist or cannot be entered.
    BadWorkingDirectory,
    /// Any other reason (resource limits, …).
    Other,
}

/// The end of a hook run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Termination {
    /// The process ran and ended on its own.
    Exited(Exit),
    /// The process ran past its timeout; it and its descendants were
    /// killed. `exit` is how the leader died after the signals.
    TimedOut {
        /// How the leader ended after being signalled.
        exit: Exit,
    },
    /// The dispatch was cancelled while the process ran; it and its
    /// descendants were killed like on a timeout.
    Cancelled {
        /// How the leader ended after being signalled.
        exit: Exit,
    },
    /// The dispatch was cancelled while the hook waited for its turn to
    /// start ([`Runner::spawn_off_thread`](super::Runner::spawn_off_thread)): it never ran.
    CancelledBeforeStart,
    /// The process's first stdout line asked to go on in the background
    /// ([`HookCommand::detach`](super::HookCommand::detach)): the run returned while it runs on, and
    /// [`RunResult::detached`] holds it.
    Detached,
    /// The process never started.
    SpawnFailed {
        /// The reason, classified.
        reason: SpawnFailure,
        /// The operating system's message.
        message: String,
    },
}

/// Everything a dialect needs to judge one hook run.
#[derive(Debug)]
pub struct RunResult {
    /// How it ended.
    pub termination: Termination,
    /// Captured stdout (capped).
    pub stdout: Captured,
    /// Captured stderr (capped).
    pub stderr: Captured,
    /// From spawn to the end of the output.
    pub duration: Duration,
    /// The hook exited but something it started kept its output open past the
    /// drain window, and latch killed every descendant of the hook.
    pub killed_leftovers: bool,
    /// After that kill the output was still open: something holding it was
    /// out of latch's reach (no `/proc`, or an orphan that left the group
    /// without [`become_subreaper`](super::become_subreaper)), and may still run.
    pub leftovers_escaped: bool,
    /// The process, still running, when it went on in the background
    /// ([`Termination::Detached`]): dropping it kills it and everything it
    /// started, so whoever takes it decides what becomes of it.
    pub detached: Option<Detached>,
}

impl Termination {
    /// How the process ended, if it ran.
    pub fn exit(&self) -> Option<Exit> {
        match self {
            Termination::Exited(e)
            | Termination::TimedOut { exit: e }
            | Termination::Cancelled { exit: e } => Some(*e),
            Termination::CancelledBeforeStart
            | Termination::Detached
            | Termination::SpawnFailed { .. } => None,
        }
    }
}

impl RunResult {
    /// The exit code, when the process exited normally.
    pub fn exit_code(&self) -> Option<i32> {
        match self.termination {
            Termination::Exited(Exit::Code(c)) => Some(c),
            _ => None,
        }
    }
}
