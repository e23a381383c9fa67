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

/// Implements [`Dialect`] (and its sealed engine side) for a dialect from
/// the parts every dialect module has: its `DIALECT` name, a `diagnostics`
/// field, and its `explain::explain`, `trust::definitions` and
/// `combine::dispatch` functions. Items after the type replace the default
/// `internal_failure` (fail open), and may add other methods of the
/// sealed side (`gate_settings`).
macro_rules! impl_dialect {
    ($ty:ty $(,)?) => {
        $crate::dialect::impl_dialect!(
            $ty,
            fn internal_failure(
                &self,
                event: &$crate::event::Event,
                what: &str,
            ) -> $crate::outcome::Outcome {
                $crate::dialect::fail_open(DIALECT, event, what)
            }
        );
    };
    ($ty:ty, $($item:item),+ $(,)?) => {
        impl $crate::dialect::sealed::Sealed for $ty {
            fn dispatch<'a>(
                &'a self,
                event: &'a $crate::event::Event,
                cx: &'a $crate::pipeline::DispatchContext<'a>,
            ) -> $crate::pipeline::BoxFuture<'a, $crate::outcome::Outcome> {
                Box::pin(combine::dispatch(self, event, cx))
            }

            $($item)+
        }

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
                trust::definitions(self, None)
            }

            fn definitions_for(
                &self,
                event: &$crate::event::Event,
            ) -> Vec<$crate::trust::Definition> {
                trust::definitions(self, Some(event))
            }

            fn config_paths(&self) -> Vec<std::path::PathBuf> {
                self.watched.clone()
            }
        }
    };
}
pub(crate) use impl_dialect;

/// The names of the dialects latch has, as `--dialect` and
/// `--trust DIALECT=…` name them.
pub const NAMES: [&str; 4] = [
    poolside::DIALECT,
    peen::DIALECT,
    evener::DIALECT,
    claude::DIALECT,
];

pub mod claude;
pub mod evener;
internal_mods!(failed, js_json, output_json, payload, tools);
pub mod peen;
pub mod poolside;

use crate::diag::Diagnostic;
use crate::event::Event;
use crate::explain::Explanation;
use crate::outcome::Outcome;

// The pipeline's types, where dialects have always found them.
pub(crate) use crate::pipeline::BoxFuture;
pub(crate) use crate::pipeline::DispatchContext;

/// Seals [`Dialect`] and holds the engine's side of it: the dispatch
/// contract between the engine and a dialect is internal and changes with
/// the pipeline. Code outside latch can neither name this trait nor call
/// its methods.
pub(crate) mod sealed {
    use super::{BoxFuture, DispatchContext};
    use crate::event::Event;
    use crate::outcome::Outcome;

    /// The engine's side of a dialect; implemented by latch's dialects only.
    pub trait Sealed {
        /// Runs this dialect's hooks for one event and combines their
        /// answers.
        fn dispatch<'a>(
            &'a self,
            event: &'a Event,
            cx: &'a DispatchContext<'a>,
        ) -> BoxFuture<'a, Outcome>;

        /// This dialect's answer for `event` when latch itself failed while
        /// dispatching it (the engine caught a panic); `what` says what
        /// failed. Most dialects fail open ([`super::fail_open`]); a
        /// dialect whose failures deny says so.
        fn internal_failure(&self, event: &Event, what: &str) -> Outcome;

        /// Applies the trust `gate` to the settings of files that need
        /// approval and shape the other hooks (claude's `env` and
        /// `disableAllHooks`): an unapproved one is not applied under
        /// `require`. The engine calls it when it gets a gate and a
        /// dialect in either order. Most dialects have no such settings.
        fn gate_settings(&mut self, _gate: &crate::trust::Gate) {}
    }
}

/// The fail-open answer to latch's own failure, as poolside and evener
/// treat a failed hook: the event proceeds with a warning.
pub(crate) fn fail_open(dialect: &str, event: &Event, what: &str) -> Outcome {
    let mut out = Outcome::proceed(event.event);
    out.warnings
        .push(format!("{dialect}: {what}; its hooks did not run"));
    out
}

/// Whether `d` says hooks were lost at load: an error, or a file a
/// dialect skipped whole with only a warning (peen's rule). A reload that
/// keeps a file's last good text, and `latch convert`, count both.
pub(crate) fn lost_hooks(d: &crate::Diagnostic) -> bool {
    d.severity == crate::Severity::Error || peen::skipped_a_file(d)
}

/// One loaded hook configuration format: [`claude::Claude`],
/// [`evener::Evener`], [`peen::Peen`] or [`poolside::Poolside`], added to an
/// [`Engine`](crate::Engine) with [`with_dialect`](crate::Engine::with_dialect).
///
/// Sealed: only latch's dialects implement it. A harness reads a loaded
/// dialect's name, diagnostics, explanations, trust definitions and
/// configuration paths through it; dispatching goes through [`Engine::dispatch`](crate::Engine::dispatch).
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

    /// [`Dialect::definitions`] as they stand for `event`: a relative
    /// path in a command resolves in the directory where the hooks run
    /// for that event, as a dispatch checks them.
    fn definitions_for(&self, event: &Event) -> Vec<crate::trust::Definition> {
        let _ = event;
        self.definitions()
    }

    /// Every configuration path whose creation, change or removal changes
    /// what this dialect loads: each file its load read or looked for,
    /// existing or not (hooks files a plugin manifest names and peen's
    /// message files included), and the directories it lists (plugin
    /// directories, claude's `managed-settings.d`), which are to be
    /// watched with everything below them. A long-lived harness watches
    /// these and loads the dialect again when one changes.
    fn config_paths(&self) -> Vec<std::path::PathBuf>;
}
