//! Dialects: one module per hook-configuration format, all feeding the same
//! pipeline.
//!
//! A dialect *finds* its files, *loads* them into typed hooks (with
//! diagnostics), and on each event *selects* its hooks, *runs* them through
//! the shared [`Runner`](crate::run::Runner), *judges* each result and
//! *combines* them into one [`Outcome`]. Nothing outside a dialect's module
//! knows its field names.
//!
//! # Example
//!
//! ```
//! use latch::dialect::poolside::{Poolside, Sources};
//! use latch::dialect::Dialect;
//!
//! // A settings file with a mistake: loading keeps going and says where.
//! let project = tempfile::tempdir()?;
//! std::fs::create_dir(project.path().join(".poolside"))?;
//! std::fs::write(
//!     project.path().join(".poolside/settings.yaml"),
//!     "hooks:\n  PreToolUse:\n    - matcher: shell\n      comand: ./guard.sh\n",
//! )?;
//! let pool = Poolside::load(&Sources {
//!     project: Some(project.path().to_path_buf()),
//!     ..Sources::default()
//! });
//! assert_eq!(pool.name(), "poolside");
//! let first = &pool.diagnostics()[0];
//! assert!(first.message.contains("has no `command`"), "{first}");
//! assert_eq!(first.position.map(|p| (p.line, p.column)), Some((3, 7)));
//! # Ok::<(), std::io::Error>(())
//! ```

/// Implements [`Dialect`] for a dialect from the parts every dialect
/// module has: its `DIALECT` name, a `diagnostics` field, and its
/// `explain::explain`, `trust::definitions` and `combine::dispatch`
/// functions. Items after the
/// type (an `internal_failure` override) go into the impl as they are.
macro_rules! impl_dialect {
    ($ty:ty $(, $extra:item)* $(,)?) => {
        impl $crate::dialect::sealed::Sealed for $ty {}

        impl $crate::dialect::Dialect for $ty {
            fn name(&self) -> &'static str {
                DIALECT
            }

            fn diagnostics(&self) -> &[$crate::diag::Diagnostic] {
                &self.diagnostics
            }

            fn explain(&self, event: &$crate::event::Event) -> Vec<$crate::explain::Explanation> {
                explain::explain(self, event)
            }

            fn definitions(&self) -> Vec<$crate::trust::Definition> {
                trust::definitions(self)
            }

            fn dispatch<'a>(
                &'a self,
                event: &'a $crate::event::Event,
                cx: &'a $crate::pipeline::DispatchContext<'a>,
            ) -> $crate::pipeline::BoxFuture<'a, $crate::outcome::Outcome> {
                Box::pin(combine::dispatch(self, event, cx))
            }

            $($extra)*
        }
    };
}
pub(crate) use impl_dialect;

pub mod claude;
pub mod evener;
internal_mods!(failed, payload, tools);
pub mod peen;
pub mod poolside;

use crate::diag::Diagnostic;
use crate::event::Event;
use crate::explain::Explanation;
use crate::outcome::Outcome;

// The pipeline's types, where dialects have always found them.
pub use crate::pipeline::BoxFuture;
pub(crate) use crate::pipeline::DispatchContext;

/// Seals [`Dialect`]: the dispatch contract between the engine and a
/// dialect is internal and changes with the pipeline.
pub(crate) mod sealed {
    /// Implemented by latch's dialects only.
    pub trait Sealed {}
}

/// One loaded hook configuration format: [`claude::Claude`],
/// [`evener::Evener`], [`peen::Peen`] or [`poolside::Poolside`], added to an
/// [`Engine`](crate::Engine) with [`with_dialect`](crate::Engine::with_dialect).
///
/// Sealed: only latch's dialects implement it. A harness reads a loaded
/// dialect's name, diagnostics, explanations and trust definitions through
/// it; dispatching goes through [`Engine::dispatch`](crate::Engine::dispatch).
pub trait Dialect: Send + Sync + sealed::Sealed {
    /// The dialect's name, such as `poolside`.
    fn name(&self) -> &'static str;

    /// The problems found while loading, in file order.
    fn diagnostics(&self) -> &[Diagnostic];

    /// For one event, every configured hook and whether it would run, and
    /// why; runs nothing. The hooks that would run come first, in run order.
    fn explain(&self, event: &Event) -> Vec<Explanation>;

    /// Every hook this dialect loaded, as trust sees it (see
    /// [`crate::trust`]), in file order.
    fn definitions(&self) -> Vec<crate::trust::Definition> {
        Vec::new()
    }

    /// Runs this dialect's hooks for one event and combines their answers.
    #[doc(hidden)]
    fn dispatch<'a>(
        &'a self,
        event: &'a Event,
        cx: &'a DispatchContext<'a>,
    ) -> BoxFuture<'a, Outcome>;

    /// This dialect's answer for `event` when latch itself failed while
    /// dispatching it (the engine caught a panic); `what` says what failed.
    /// The default fails open, as poolside and evener treat a failed hook:
    /// the event proceeds with a warning. A dialect whose failures deny
    /// overrides it.
    #[doc(hidden)]
    fn internal_failure(&self, event: &Event, what: &str) -> Outcome {
        let mut out = Outcome::proceed(event.event);
        out.warnings
            .push(format!("{}: {what}; its hooks did not run", self.name()));
        out
    }
}
