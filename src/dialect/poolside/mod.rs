//! The poolside dialect: `hooks:` in `settings.yaml` at four levels, shell
//! commands run one after another, rewrites that thread from hook to hook,
//! and hooks that fail open.
//!
//! The pipeline, one module per stage:
//! - [`discover`]: which settings files, in which level order;
//! - [`load`]: one file into typed hooks, with located diagnostics;
//! - [`merge`]: the levels into one ordered list per event (named replacement);
//! - [`events`]: the event names and the stdin payload;
//! - [`judge`]: one run's exit code and stdout into a verdict;
//! - [`combine`]: the verdicts, in order, into one [`Outcome`](crate::Outcome).
//!
//! The user guide is `docs/dialects/poolside.md`.

pub mod combine;
pub mod discover;
pub mod events;
pub mod explain;
pub mod judge;
pub mod lint;
pub mod load;
pub mod merge;
pub mod notice;
pub mod schema;
pub mod trust;

use std::collections::HashMap;
use std::path::PathBuf;

use crate::diag::Diagnostic;
use crate::event::Event;
use crate::pipeline::Indexed;

pub use discover::{Sources, user_settings};
pub use events::PoolEvent;
pub use load::{Hook, Level, Matcher};

/// The dialect's name.
pub const DIALECT: &str = "poolside";

/// The hooks of one event, in run order, indexed by matcher. A disabled
/// hook (invalid matcher) shows up in every selection as skipped.
pub type EventHooks = Indexed<Hook>;

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
    files: Vec<PathBuf>,
    diagnostics: Vec<Diagnostic>,
}

impl Poolside {
    /// Finds and loads every settings level. Never fails: problems are
    /// diagnostics, and whatever is usable is kept.
    pub fn load(sources: &Sources) -> Poolside {
        let mut levels = Vec::new();
        let mut diagnostics = Vec::new();
        let mut files = Vec::new();
        for found in sources.files(&mut diagnostics) {
            let (config, diags) = load::load_file(&found.path, found.level, &found.text);
            diagnostics.extend(diags);
            files.push(found.path);
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
            files,
            diagnostics,
        }
    }

    /// The hooks of one event, after merging.
    pub fn hooks(&self, event: PoolEvent) -> &[Hook] {
        self.events.get(&event).map_or(&[], |e| e.items())
    }

    /// The effective `stop_hook_max_continuations` (`None`: unlimited).
    pub fn max_continuations(&self) -> Option<u32> {
        self.max_continuations
    }

    /// The directory hooks run in when the event has no `cwd`: the project.
    pub fn workdir(&self) -> Option<&std::path::Path> {
        self.workdir.as_deref()
    }

    /// The settings files that were read, least specific first.
    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }

    /// The hooks that would run for `event`, in order.
    pub fn select(&self, event: &Event) -> Vec<&Hook> {
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
