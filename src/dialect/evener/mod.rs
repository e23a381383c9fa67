//! The evener dialect: Claude-Code-format plugin hooks with Evener's exact
//! semantics — nine fired events, Claude tool names, command and prompt
//! handlers, and loud warnings for everything that would silently not run.
//!
//! The pipeline, one module per stage:
//! - `discover`: plugin directories, manifests, which hooks file;
//! - `load`: a hooks configuration into groups and handlers, with diagnostics;
//! - `events`: event names, reserved names, matcher targets, the payload;
//! - `toolname`: canonical → Claude tool names (data, extensible);
//! - `judge`: one run's exit code and output into a verdict;
//! - `prompt`: the prompt handler's model call;
//! - `combine`: the verdicts, in order, into one [`Outcome`](crate::Outcome).
//!
//! The user guide is `docs/dialects/evener.md`.
//!
//! # Example
//!
//! ```
//! use latch::dialect::evener::{self, Evener};
//! use latch::{Engine, Event, EventKind, Session};
//!
//! // An Evener plugin: a manifest and a hooks file.
//! let plugin = tempfile::tempdir()?;
//! std::fs::create_dir_all(plugin.path().join(".claude-plugin"))?;
//! std::fs::create_dir_all(plugin.path().join("hooks"))?;
//! std::fs::write(plugin.path().join(".claude-plugin/plugin.json"), r#"{"name": "hello"}"#)?;
//! std::fs::write(
//!     plugin.path().join("hooks/hooks.json"),
//!     r#"{"hooks": {"SessionStart": [{"hooks": [{"type": "command",
//!         "command": "printf", "args": ["%s", "{\"systemMessage\": \"hello\"}"]}]}]}}"#,
//! )?;
//! let evener = Evener::load(evener::Options {
//!     plugin_dirs: vec![plugin.path().to_path_buf()],
//!     ..evener::Options::default()
//! });
//! let engine = Engine::new().with_dialect(evener);
//! assert_eq!(engine.diagnostics().count(), 0);
//! let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
//! let event = Event::new(EventKind::SessionStart);
//! let outcome = runtime.block_on(engine.dispatch(&event, &Session::in_memory(None)))?;
//! assert_eq!(outcome.runs.len(), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

internal_mods!(
    combine, discover, events, explain, judge, lint, load, prompt, schema, toolname, trust
);

use std::collections::HashMap;
use std::path::PathBuf;

use crate::diag::Diagnostic;
use crate::event::Event;
use crate::pipeline::Indexed;

pub(crate) use discover::Plugin;
pub(crate) use events::{EvEvent, EventName};
pub(crate) use load::{Group, HandlerKind, Matcher};
pub use prompt::PromptConfig;
pub use toolname::ToolNames;

/// The dialect's name.
pub const DIALECT: &str = "evener";

/// What to load and how to run it.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Plugin directories, in order (`--plugin-dir`, repeatable).
    pub plugin_dirs: Vec<PathBuf>,
    /// The session's working directory when an event has no `cwd`
    /// (`CLAUDE_PROJECT_DIR`, and where hooks run).
    pub project: Option<PathBuf>,
    /// The tool-name translation table.
    pub tool_names: ToolNames,
    /// Where prompt handlers send their requests.
    pub prompt: PromptConfig,
}

/// The groups of one fired event across all plugins, as (plugin index,
/// group index), in plugin then file order, indexed by matcher.
type EventGroups = Indexed<(usize, usize)>;

/// A loaded set of Evener plugins.
#[derive(Debug, Clone)]
pub struct Evener {
    plugins: Vec<Plugin>,
    events: HashMap<EvEvent, EventGroups>,
    options: Options,
    /// See [`Dialect::config_paths`](crate::dialect::Dialect::config_paths).
    watched: Vec<PathBuf>,
    diagnostics: Vec<Diagnostic>,
}

impl Evener {
    /// Loads every plugin directory. Never fails: problems are diagnostics.
    pub fn load(options: Options) -> Evener {
        let mut diagnostics = Vec::new();
        let (plugins, looked) = crate::config::files::looking(|| {
            options
                .plugin_dirs
                .iter()
                .map(|d| discover::load_plugin(d, &mut diagnostics))
                .collect::<Vec<Plugin>>()
        });
        // Each plugin's directory, and what the load read or looked for
        // (a hooks file the manifest names outside it included).
        let mut watched: Vec<PathBuf> = options.plugin_dirs.clone();
        watched.extend(looked);
        watched.sort();
        watched.dedup();
        let mut refs: HashMap<EvEvent, Vec<(usize, usize)>> = HashMap::new();
        for (pi, p) in plugins.iter().enumerate() {
            for (gi, g) in p.groups.iter().enumerate() {
                if let EventName::Fired(e) = g.event {
                    refs.entry(e).or_default().push((pi, gi));
                }
            }
        }
        let events = refs
            .into_iter()
            .map(|(e, refs)| {
                let groups =
                    Indexed::build_with(refs, |(pi, gi)| match &plugins[*pi].groups[*gi].matcher {
                        Matcher::Valid(m) => Some(m),
                        Matcher::Invalid(_) => None,
                    });
                (e, groups)
            })
            .collect();
        Evener {
            plugins,
            events,
            options,
            watched,
            diagnostics,
        }
    }

    /// The loaded plugins, in order.
    pub(crate) fn plugins(&self) -> &[Plugin] {
        &self.plugins
    }

    /// The options it was loaded with.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The groups that apply to `event`, in run order, with their plugin.
    pub(crate) fn select(&self, event: &Event) -> Vec<(&Plugin, &Group)> {
        let Some(ev) = EvEvent::from_kind(event.event) else {
            return Vec::new();
        };
        let Some(groups) = self.events.get(&ev) else {
            return Vec::new();
        };
        let target = ev.target(event, &self.options.tool_names);
        groups
            .select(Some(target))
            .into_iter()
            .map(|(pi, gi)| (&self.plugins[*pi], &self.plugins[*pi].groups[*gi]))
            .collect()
    }
}

crate::dialect::impl_dialect!(Evener);

/// [`Evener`]'s handler-group selection alone, for latch's selection bench.
#[cfg(feature = "internals")]
#[doc(hidden)]
pub fn select<'a>(evener: &'a Evener, event: &Event) -> Vec<(&'a Plugin, &'a Group)> {
    evener.select(event)
}
