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

/// Declares crate-internal modules: `pub(crate)`, or with the `internals`
/// feature `pub` and hidden from the documentation, so latch's own
/// integration tests, benches and fuzz targets can reach parsers and
/// dialect internals. Nothing declared this way is part of the stable API.
macro_rules! internal_mods {
    ($($(#[$meta:meta])* $name:ident),* $(,)?) => {$(
        $(#[$meta])*
        #[cfg(feature = "internals")]
        #[doc(hidden)]
        pub mod $name;
        $(#[$meta])*
        #[cfg(not(feature = "internals"))]
        pub(crate) mod $name;
    )*};
}

pub mod audit;
pub mod background;
pub mod cli;
pub mod diag;
pub mod dialect;
pub mod engine;
pub mod event;
pub mod explain;
mod join;
pub mod journal;
pub mod outcome;
pub mod run;
pub mod session;
pub mod telemetry;
pub mod trust;
pub mod vocabulary;

internal_mods!(
    config,
    convert,
    lint,
    matcher,
    model,
    panic,
    permission_rule,
    pipeline,
    scenario,
    text,
);

pub use diag::{Diagnostic, Position, Severity, SourceRef};
pub use engine::{Engine, InputValidator, ObjectArguments};
pub use event::{Event, EventError, EventKind, RawJson, ToolCall};
pub use outcome::{Decision, HookRun, Outcome};
pub use session::Session;

/// docs/embedding.md's harness, compiled and run as a doctest.
#[doc = include_str!("../docs/embedding.md")]
#[cfg(doctest)]
pub struct EmbeddingDoctests;

/// The README's Rust examples, compiled as doctests so they cannot rot.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
