//! Hooks that run in the background: the dispatch does not wait for them,
//! and what they say reaches the agent with a later event (the claude
//! dialect's `async` handlers).
//!
//! The engine does not run them itself: a harness gives it a
//! [`Background`] (`Engine::with_background`). `latch fire` gives one that
//! starts a detached latch process per job, which waits for the hook and
//! stores its answer in the session's state; without one, background
//! handlers are skipped with a record saying so.

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

/// Starts background jobs for the engine.
pub trait Background: Send + Sync {
    /// Starts `job` and returns at once; `Err` says why it could not start.
    fn start(&self, job: BackgroundJob) -> Result<(), String>;
}
