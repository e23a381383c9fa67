//! The peen dialect: `.agents/hooks.yaml` in each harness layer, strict
//! YAML, ordered inline actions (`deny`, `inject`, `emitEvent`, `command`),
//! rich match fields, per-file-tool events, `onFailure`, session events,
//! and a restart journal for the opening and compaction checkpoints.
//!
//! The pipeline, one module per stage:
//! - [`mod@self`]: the layers (configuration directory, then workspace);
//! - `load`: one file, strictly, into groups and actions;
//! - `events`: event names and the order they fire in;
//! - `matching`: `match` / `when` (tool, root, path, extensions, input);
//! - `payload`: event inputs, affected paths, the command's stdin;
//! - `combine`: running actions in order and folding their results.
//!
//! The user guide is `docs/dialects/peen.md`.
//!
//! # Example
//!
//! ```
//! use latch::dialect::peen::{self, Peen};
//! use latch::{Engine, Event, Session};
//!
//! // A workspace with peen's `.agents/hooks.yaml`.
//! let workspace = tempfile::tempdir()?;
//! std::fs::create_dir(workspace.path().join(".agents"))?;
//! std::fs::write(
//!     workspace.path().join(".agents/hooks.yaml"),
//!     "version: 1\npreToolUse:\n  - name: no-force-push\n    match:\n      tool: runCommand\n      \
//!      input:\n        /command:\n          regex: \"git push .*--force\"\n    actions:\n      \
//!      - name: block\n        type: deny\n        reason: Never force-push.\n",
//! )?;
//! let peen = Peen::load(peen::Options {
//!     workspace: Some(workspace.path().to_path_buf()),
//!     ..peen::Options::default()
//! });
//! let engine = Engine::new().with_dialect(peen);
//! assert_eq!(engine.diagnostics().count(), 0);
//! // Tool names and arguments are the harness's, here peen's own.
//! let event = Event::tool_before("runCommand", serde_json::json!({"command": "git push --force"}))
//!     .with_cwd(workspace.path());
//! let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
//! let outcome = runtime.block_on(engine.dispatch(&event, &Session::in_memory(None)))?;
//! assert!(outcome.is_denied());
//! assert_eq!(outcome.reasons[0].text, "Never force-push.");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

internal_mods!(
    combine, events, explain, input, lint, load, matching, payload, schema, trust
);

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::config::duration::parse_go_duration;
use crate::diag::Diagnostic;
use crate::event::Event;
use crate::outcome::Outcome;

pub(crate) use events::PeenEvent;
pub(crate) use load::{ActionKind, Group, HooksFile, OnFailure};

/// The dialect's name.
pub const DIALECT: &str = "peen";

/// The hooks file, relative to a layer's directory.
pub const HOOKS_FILE: &str = ".agents/hooks.yaml";

/// At most this many groups across all layers.
pub const MAX_GROUPS: usize = 256;

/// Peen's limits and switches, from its environment variables.
#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    /// `PEEN_DEFAULT_HOOK_COMMAND_TIMEOUT` (30 s).
    pub default_timeout: Duration,
    /// `PEEN_MAX_HOOK_COMMAND_OUTPUT` (65536 bytes per stream).
    pub max_output: usize,
    /// `PEEN_MAX_EVENT_SUMMARY_BYTES` (latch's default: 1024).
    pub max_summary: usize,
    /// `PEEN_MAX_EVENT_DATA_BYTES` (latch's default: 65536).
    pub max_data: usize,
    /// `PEEN_TOOL_TIMEOUT`: a tool call's own limit, which also bounds
    /// commands on tool events (except runCommand and waitJob). Unset: none.
    pub tool_timeout: Option<Duration>,
    /// `PEEN_COMPACTION_MODE=summarize`: the compaction events fire.
    pub summarize: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            default_timeout: Duration::from_secs(30),
            max_output: 65536,
            max_summary: 1024,
            max_data: 65536,
            tool_timeout: None,
            summarize: false,
        }
    }
}

impl Limits {
    /// Reads the `PEEN_*` variables; unset or unparsable ones keep their
    /// defaults (with a diagnostic for unparsable ones).
    pub fn from_env(diags: &mut Vec<Diagnostic>) -> Limits {
        let mut l = Limits::default();
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        let mut bad = |k: &str, v: &str, why: String| {
            diags.push(
                Diagnostic::warning(format!(
                    "{k}={v:?} is not usable ({why}); the default applies"
                ))
                .for_dialect(DIALECT),
            );
        };
        let duration = |k: &str, bad: &mut dyn FnMut(&str, &str, String)| -> Option<Duration> {
            let v = var(k)?;
            match parse_go_duration(&v) {
                Ok(n) if n > 0 => Some(Duration::from_nanos(n as u64)),
                Ok(_) => {
                    bad(k, &v, "must be positive".into());
                    None
                }
                Err(e) => {
                    bad(k, &v, e.to_string());
                    None
                }
            }
        };
        if let Some(d) = duration("PEEN_DEFAULT_HOOK_COMMAND_TIMEOUT", &mut bad) {
            l.default_timeout = d;
        }
        l.tool_timeout = duration("PEEN_TOOL_TIMEOUT", &mut bad);
        for (k, slot) in [
            ("PEEN_MAX_HOOK_COMMAND_OUTPUT", &mut l.max_output),
            ("PEEN_MAX_EVENT_SUMMARY_BYTES", &mut l.max_summary),
            ("PEEN_MAX_EVENT_DATA_BYTES", &mut l.max_data),
        ] {
            if let Some(v) = var(k) {
                match v.parse::<usize>() {
                    Ok(n) => *slot = n,
                    Err(e) => bad(k, &v, e.to_string()),
                }
            }
        }
        l.summarize = var("PEEN_COMPACTION_MODE").as_deref() == Some("summarize");
        l
    }
}

/// Where the layers are.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `PEEN_CONFIG_DIR`: the trusted, deployment-wide layer.
    pub config_dir: Option<PathBuf>,
    /// The workspace (the agent's current directory): the project layer.
    pub workspace: Option<PathBuf>,
    /// Limits and switches.
    pub limits: Limits,
}

/// A loaded set of peen layers.
#[derive(Debug, Clone)]
pub struct Peen {
    files: Vec<HooksFile>,
    /// Files skipped as invalid, with their first problem.
    skipped: Vec<(PathBuf, String)>,
    options: Options,
    /// See [`Dialect::config_paths`](crate::dialect::Dialect::config_paths).
    watched: Vec<PathBuf>,
    diagnostics: Vec<Diagnostic>,
}

impl Peen {
    /// Reads every layer's hooks file. Peen re-reads at the start of every
    /// turn and on each directory change: call this again then (a hop runs
    /// under the old scope; later calls under the new one).
    pub fn load(options: Options) -> Peen {
        let mut diagnostics = Vec::new();
        let mut files = Vec::new();
        let mut skipped = Vec::new();
        // Each layer's hooks file and the message files its inject actions
        // read (skipped files' included) are what a reload watches.
        let ((), looked) = crate::config::files::looking(|| {
            for dir in options.config_dir.iter().chain(options.workspace.iter()) {
                let path = dir.join(HOOKS_FILE);
                match crate::config::read_bounded_text(&path, crate::config::MAX_CONFIG_FILE) {
                    // A panic while loading one file (a latch bug) is treated
                    // like any invalid file: that file is skipped, the other
                    // layers keep working.
                    Ok(text) => match crate::panic::catch(|| load::load_file(&path, &text))
                        .unwrap_or_else(|m| Err(vec![internal_load_failure(&path, &m)]))
                    {
                        Ok(f) => files.push(f),
                        Err(d) => {
                            let first = d.first().map(|d| d.message.clone()).unwrap_or_default();
                            skipped.push((path.clone(), first));
                            diagnostics.extend(d);
                        }
                    },
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => {
                        skipped.push((path.clone(), format!("cannot read it: {e}")));
                        diagnostics.push(
                            Diagnostic::warning(format!("{SKIPPED}: cannot read it: {e}"))
                                .in_file(&path)
                                .for_dialect(DIALECT),
                        );
                    }
                }
            }
        });
        let mut peen = Peen {
            files,
            skipped,
            options,
            watched: looked.into_iter().collect(),
            diagnostics,
        };
        let total = peen.group_count();
        if total > MAX_GROUPS {
            peen.diagnostics.push(
                Diagnostic::error(format!(
                    "{total} hook groups across all layers, more than the limit of {MAX_GROUPS}; every turn fails until groups are removed"
                ))
                .for_dialect(DIALECT),
            );
        }
        peen
    }

    /// Re-reads every layer, as peen does at the start of every turn.
    pub fn reload(&mut self) {
        *self = Peen::load(self.options.clone());
    }

    /// Moves the workspace layer to `dir` and re-reads, as peen does on each
    /// `changeDirectory` call. Dispatch the hop itself (its `tool_before`)
    /// before calling this: a hop runs under the old scope's hooks, later
    /// calls under the new one.
    pub fn change_directory(&mut self, dir: impl Into<PathBuf>) {
        self.options.workspace = Some(dir.into());
        self.reload();
    }

    /// The valid files, in layer order.
    pub(crate) fn files(&self) -> &[HooksFile] {
        &self.files
    }

    /// The files skipped as invalid, with their first problem.
    pub(crate) fn skipped(&self) -> &[(PathBuf, String)] {
        &self.skipped
    }

    /// The options it was loaded with.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The number of groups across all layers.
    pub(crate) fn group_count(&self) -> usize {
        self.files.iter().map(|f| f.groups.len()).sum()
    }

    /// The agent's current directory for an event.
    pub(crate) fn cwd_for(&self, event: &Event) -> PathBuf {
        event
            .workdir(self.options.workspace.as_deref())
            .unwrap_or_else(|| PathBuf::from("/"))
    }

    /// Every group declared for `event`, in layer then file order.
    pub(crate) fn groups_for<'a>(
        &'a self,
        event: &'a PeenEvent,
    ) -> impl Iterator<Item = (&'a Path, &'a Group)> + 'a {
        self.files.iter().flat_map(move |f| {
            f.groups
                .iter()
                .filter(move |g| g.event == *event)
                .map(move |g| (f.path.as_path(), g))
        })
    }
}

/// The diagnostic for a hooks file whose loading panicked.
fn internal_load_failure(path: &Path, message: &str) -> Diagnostic {
    Diagnostic::warning(format!(
        "{SKIPPED}: latch failed internally while loading it ({message})"
    ))
    .in_file(path)
    .for_dialect(DIALECT)
}

/// Whether a failure of peen itself denies `event`: when any peen event it
/// fires is one whose failed actions deny by default (`pre*`,
/// `sessionStart`, `turnStart`).
pub(crate) fn failure_denies(event: &Event, summarize: bool) -> bool {
    PeenEvent::fired_by(event, summarize)
        .iter()
        .any(PeenEvent::fails_closed)
}

crate::dialect::impl_dialect!(
    Peen,
    /// Peen's rule for a failure: a deny on the events where a failed
    /// action denies, else a warning.
    fn internal_failure(&self, event: &Event, what: &str) -> Outcome {
        // Only hooks that would have run can be lost: an event with no peen
        // group for it denies nothing.
        let deny = PeenEvent::fired_by(event, self.options.limits.summarize)
            .iter()
            .any(|pe| pe.fails_closed() && self.groups_for(pe).next().is_some());
        crate::dialect::failed::failure_outcome(DIALECT, event, what, deny)
    }
);

/// How peen's warning for a hooks file it skipped whole begins (peen
/// skips an invalid file with a warning, as its spec says).
pub(crate) const SKIPPED: &str = "harness.warning: hooks file skipped";

/// Whether `d` says a hooks file was skipped whole: a load failure for
/// whoever needs the file's hooks (`latch convert`), though peen itself
/// only warns.
pub(crate) fn skipped_a_file(d: &crate::Diagnostic) -> bool {
    d.message.starts_with(SKIPPED)
}
