//! The shared dispatch pipeline: what every dialect needs from the engine
//! to run its hooks, whatever its rules.
//!
//! A dialect decides *which* hooks run, with *what* input, and what their
//! answers mean. Everything else is here, once:
//!
//! - [`context`]: what the engine hands a dialect for one dispatch (the
//!   runner, the session, the harness's [`InputValidator`], cancellation);
//! - [`select`]: an event's hooks in order, indexed by matcher;
//! - [`background`]: hooks the dispatch does not wait for;
//! - [`harness`]: handlers only the harness can run (sub-agents, tool
//!   servers);
//! - [`job`]: running one hook process and recording the facts of the run
//!   (duration, exit code or signal, truncation, processes it left behind),
//!   one job at a time, or several at once with their finishing order.
//!
//! Neither the engine nor a dialect imports the other through this module:
//! both depend on it, and it depends only on the runner, the session and
//! the outcome types.

pub mod background;
pub mod context;
pub mod harness;
pub mod job;
pub mod select;

pub use background::{Background, BackgroundJob, DetachedJob};
pub use context::{BoxFuture, DispatchContext, InputValidator, ObjectArguments};
pub use harness::{HarnessHandlers, ToolAnswer};
pub use job::{Job, join_all, run, run_all, run_among};
pub use select::Indexed;
