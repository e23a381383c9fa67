//! Hooks that run in the background: the dispatch does not wait for them,
//! and what they say reaches the agent with a later event (the claude
//! dialect's `async` handlers, and its hooks whose first stdout line is
//! `{"async":true}`).
//!
//! The engine does not run them itself: a harness gives it a
//! [`Background`] (`Engine::with_background`). `latch fire` gives one that
//! hands each hook to a detached latch process, which waits for it and
//! stores its answer in the session's state; without one, background
//! handlers are skipped with a record saying so, and a first line
//! `{"async":true}` does not end the wait.

use serde::{Deserialize, Serialize};

use crate::run::HookCommand;

/// One hook to run in the background.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BackgroundJob {
    /// The dialect that started it, which reads its answer.
    pub dialect: String,
    /// The hook's label.
    pub hook: String,
    /// The event, in the dialect's spelling.
    pub event: String,
    /// The process.
    pub command: HookCommand,
    /// The session whose state receives the answer.
    pub session_id: Option<String>,
    /// Whether the answer is kept for a later event; `false` for hooks
    /// whose output the dialect ignores (they only need to run).
    pub deliver: bool,
}

/// A hook that went on in the background while the dispatch ran it (its
/// first stdout line asked for it), to follow to its end.
#[derive(Debug)]
pub struct DetachedJob {
    /// The dialect that ran it, which reads its answer.
    pub dialect: String,
    /// The hook's label.
    pub hook: String,
    /// The event, in the dialect's spelling.
    pub event: String,
    /// The session whose state receives the answer.
    pub session_id: Option<String>,
    /// The running process.
    pub process: crate::run::Detached,
}

/// Starts background jobs for the engine.
pub trait Background: Send + Sync {
    /// Starts `job` and returns at once; `Err` says why it could not start.
    fn start(&self, job: BackgroundJob) -> Result<(), String>;

    /// Whether [`Background::adopt`] follows hooks that run already. Only
    /// then does a hook's first stdout line `{"async":true}` end the
    /// dispatch's wait for it (claude dialect); otherwise the dispatch
    /// waits for the hook, as for any other. The default follows none.
    fn follows(&self) -> bool {
        false
    }

    /// Follows `job`, which runs already, to its end and keeps its answer
    /// for the session, returning at once. `Err` says why it cannot; the
    /// hook is then killed (the job is dropped). Called only when
    /// [`Background::follows`] says so.
    fn adopt(&self, job: DetachedJob) -> Result<(), String> {
        drop(job);
        Err("this harness does not follow hooks in the background".to_owned())
    }
}
