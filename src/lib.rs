//! latch: a hook engine for AI coding agents.
//!
//! Coding agents let their users run commands at fixed points of a turn:
//! before a tool call, after it, when a prompt arrives, when the agent wants
//! to stop, around compaction, at session start. latch is that engine, done
//! once: it finds and loads hook configuration in several *dialects* (each
//! with the exact semantics of the product it comes from), selects the hooks
//! for each [`Event`], runs them, and returns one [`Outcome`] for the harness
//! to apply.
//!
//! # Theory of operation
//!
//! ```text
//! harness ──Event──▶ Engine ──▶ dialect: select ─▶ Runner ─▶ judge ─▶ combine ──Outcome──▶ harness
//!                       ▲
//!                    Session (state directory, counters)
//! ```
//!
//! - A dialect loads its files once into typed hooks ([`dialect::poolside::Poolside::load`]);
//!   problems become [`Diagnostic`]s with file, line and column, never panics.
//! - [`Engine::dispatch`] hands the event to each dialect in turn. A dialect
//!   selects its hooks (matchers are compiled at load), runs each through
//!   the shared [`run::Runner`] (process group, caps, timeout), judges each
//!   result by its own rules and folds them into an [`Outcome`].
//! - State that must outlive one dispatch (the Stop continuation counter)
//!   lives in a [`Session`], on disk when the harness shells out to
//!   `latch fire` once per event.
//!
//! ```no_run
//! use latch::{Engine, Event, Session};
//! use latch::dialect::poolside::{Poolside, Sources};
//!
//! # async fn demo() -> Result<(), latch::EventError> {
//! let pool = Poolside::load(&Sources {
//!     project: Some(".".into()),
//!     ..Sources::default()
//! });
//! let engine = Engine::new().with_dialect(pool);
//! let event = Event::tool_before("shell", serde_json::json!({"cmd": "sudo rm -rf /"}));
//! let outcome = engine.dispatch(&event, &Session::in_memory(None)).await?;
//! if outcome.is_denied() {
//!     // give the model the block notices instead of running the tool
//! }
//! # Ok(())
//! # }
//! ```

pub mod audit;
pub mod background;
pub mod config;
pub mod convert;
pub mod diag;
pub mod dialect;
pub mod engine;
pub mod event;
pub mod explain;
pub mod journal;
pub mod lint;
pub mod matcher;
pub mod model;
pub mod outcome;
pub mod panic;
pub mod permission_rule;
pub mod pipeline;
pub mod run;
pub mod scenario;
pub mod session;
pub mod telemetry;
pub mod text;
pub mod trust;
pub mod vocabulary;

pub use diag::{Diagnostic, Position, Severity, SourceRef};
pub use engine::{Engine, InputValidator, ObjectArguments};
pub use event::{Event, EventError, EventKind, RawJson, ToolCall};
pub use outcome::{Decision, HookRun, Outcome};
pub use session::Session;

/// The README's Rust examples, compiled as doctests so they cannot rot.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
