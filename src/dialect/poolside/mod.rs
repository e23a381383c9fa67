//! The poolside dialect: `hooks:` in `settings.yaml` at four levels, shell
//! commands run one after another, rewrites that thread from hook to hook,
//! and hooks that fail open.
//!
//! The pipeline, one module per stage:
//! - `discover`: which settings files, in which level order;
//! - `load`: one file into typed hooks, with located diagnostics;
//! - `merge`: the levels into one ordered list per event (named replacement);
//! - `events`: the event names and the stdin payload;
//! - `judge`: one run's exit code and stdout into a verdict;
//! - `combine`: the verdicts, in order, into one [`Outcome`](crate::Outcome).
//!
//! The user guide is `docs/dialects/poolside.md`.
//!
//! # Example
//!
//! ```
//! use latch::dialect::poolside::{Poolside, Sources};
//! use latch::{Engine, Event, Session};
//!
//! // A project with `.poolside/settings.yaml`; a hook that exits 2 blocks.
//! let project = tempfile::tempdir()?;
//! std::fs::create_dir(project.path().join(".poolside"))?;
//! std::fs::write(
//!     project.path().join(".poolside/settings.yaml"),
//!     "hooks:\n  PreToolUse:\n    - name: no-sudo\n      matcher: shell\n      \
//!      command: \"grep -q sudo && { echo 'no sudo' >&2; exit 2; } || true\"\n",
//! )?;
//! let pool = Poolside::load(&Sources {
//!     project: Some(project.path().to_path_buf()),
//!     ..Sources::default()
//! });
//! let engine = Engine::new().with_dialect(pool);
//! assert_eq!(engine.diagnostics().count(), 0);
//! let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
//! let session = Session::in_memory(None);
//! let sudo = Event::tool_before("shell", serde_json::json!({"cmd": "sudo rm -rf /"}));
//! assert!(runtime.block_on(engine.dispatch(&sudo, &session))?.is_denied());
//! let ls = Event::tool_before("shell", serde_json::json!({"cmd": "ls"}));
//! assert!(!runtime.block_on(engine.dispatch(&ls, &session))?.is_denied());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

internal_mods!(
    combine, discover, events, explain, judge, lint, load, merge, notice, schema, trust
);

use std::collections::HashMap;
use std::path::PathBuf;

use crate::diag::Diagnostic;
use crate::event::Event;
use crate::pipeline::Indexed;

pub use discover::Sources;
pub(crate) use discover::user_settings;
pub(crate) use events::PoolEvent;
pub(crate) use load::{Hook, Matcher};

/// The dialect's name.
pub const DIALECT: &str = "poolside";

/// The hooks of one event, in run order, indexed by matcher. A disabled
/// hook (invalid matcher) shows up in every selection as skipped.
pub(crate) type EventHooks = Indexed<Hook>;

fn event_hooks(hooks: Vec<Hook>) -> EventHooks {
    Indexed::build(hooks, |h| match &h.matcher {
        Matcher::Valid(m) => Some(m),
        Matcher::Invalid { .. } => None,
    })
}

/// A loaded poolside configuration.
#[derive(Debug, Clone, Default)]
pub struct Poolside {
    events: HashMap<PoolEvent, EventHooks>,
    max_continuations: Option<u32>,
    workdir: Option<PathBuf>,
    /// See [`Dialect::config_paths`](crate::dialect::Dialect::config_paths).
    watched: Vec<PathBuf>,
    diagnostics: Vec<Diagnostic>,
}

impl Poolside {
    /// Finds and loads every settings level. Never fails: problems are
    /// diagnostics, and whatever is usable is kept.
    pub fn load(sources: &Sources) -> Poolside {
        let mut levels = Vec::new();
        let mut diagnostics = Vec::new();
        let (found, looked) = crate::config::files::looking(|| sources.files(&mut diagnostics));
        for found in found {
            let (config, diags) = load::load_file(&found.path, found.level, &found.text);
            diagnostics.extend(diags);
            levels.push(config);
        }
        let merged = merge::merge(levels, &mut diagnostics);
        Poolside {
            events: merged
                .hooks
                .into_iter()
                .map(|(e, hooks)| (e, event_hooks(hooks)))
                .collect(),
            max_continuations: merged.max_continuations,
            workdir: sources.project.clone(),
            watched: looked.into_iter().collect(),
            diagnostics,
        }
    }

    /// The hooks of one event, after merging.
    pub(crate) fn hooks(&self, event: PoolEvent) -> &[Hook] {
        self.events.get(&event).map_or(&[], |e| e.items())
    }

    /// The effective `stop_hook_max_continuations` (`None`: unlimited).
    pub(crate) fn max_continuations(&self) -> Option<u32> {
        self.max_continuations
    }

    /// The directory hooks run in when the event has no `cwd`: the project.
    pub(crate) fn workdir(&self) -> Option<&std::path::Path> {
        self.workdir.as_deref()
    }

    /// The hooks that would run for `event`, in order.
    pub(crate) fn select(&self, event: &Event) -> Vec<&Hook> {
        let Some(pe) = PoolEvent::from_kind(event.event) else {
            return Vec::new();
        };
        let target = event.tool_name().filter(|_| pe.uses_matcher());
        self.events
            .get(&pe)
            .map(|e| e.select(target))
            .unwrap_or_default()
    }
}

crate::dialect::impl_dialect!(Poolside);

/// [`Poolside`]'s hook selection alone, for latch's selection bench.
#[cfg(feature = "internals")]
#[doc(hidden)]
pub fn select<'a>(pool: &'a Poolside, event: &Event) -> Vec<&'a Hook> {
    pool.select(event)
}
