//! Hook test scenarios: a YAML file names a dialect and its configuration,
//! then cases (an event and what its outcome must show). Hooks run for
//! real; `latch test` prints one line per case and a diff for each failure.
//! The format is documented in `docs/testing.md`.

mod config;
mod expect;

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::config::yaml;
use crate::dialect::Dialect;
use crate::dialect::claude::{self, Claude};
use crate::dialect::evener::{self, Evener};
use crate::dialect::peen::{self, Peen};
use crate::dialect::poolside::{Poolside, Sources};
use crate::engine::Engine;
use crate::event::Event;
use crate::session::Session;

pub use expect::check;

/// One parsed scenario file.
#[derive(Debug)]
pub struct Scenario {
    /// `poolside`, `evener`, `peen` or `claude`.
    pub dialect: String,
    /// The configuration directory (a copy, when inline files are given).
    pub dir: PathBuf,
    /// The cases, in order.
    pub cases: Vec<Case>,
    /// The rest of `config`: plugin directories, the tool vocabulary, and
    /// the inline configuration's temp directory, kept alive.
    config: config::Config,
    /// The home of a claude scenario with plugins: their data directories
    /// go there, never into the plugin directories.
    home: Option<tempfile::TempDir>,
}

/// The keys a scenario file may have.
const KEYS: [&str; 3] = ["dialect", "config", "cases"];

/// One case: an event and its expectations.
#[derive(Debug, Clone)]
pub struct Case {
    /// Its name (or `case N`).
    pub name: String,
    /// The event, as JSON.
    pub event: Value,
    /// The `expect` mapping, as JSON.
    pub expect: Value,
    /// What is wrong with the case itself (unknown keys, no `expect`, an
    /// `expect` of the wrong shape), each starting with its
    /// `file:line:column`.
    pub problems: Vec<String>,
    /// `file:line:column` of the case's `event` (of the case without one).
    pub event_location: String,
}

/// `file:line:column` of a node of the scenario file.
fn location(file: &Path, node: &yaml::Node) -> String {
    format!(
        "{}:{}:{}",
        file.display(),
        node.position.line,
        node.position.column
    )
}

/// A case must have an `event` and an `expect`, and nothing else but a
/// `name`: a misspelled key must not make a case pass. The `expect`
/// mapping's own shape is checked here too, so that each problem names
/// the line and column it is at.
fn case_problems(file: &Path, case: &yaml::Node) -> Vec<String> {
    let at = |node: &yaml::Node| location(file, node);
    let mut out = Vec::new();
    let Some(entries) = case.as_map() else {
        out.push(format!("{}: a case must be a mapping", at(case)));
        return out;
    };
    for (key, _) in entries {
        let name = key.as_str().unwrap_or_default();
        if !["name", "event", "expect"].contains(&name) {
            out.push(format!(
                "{}: {}: not a case key (name, event, expect)",
                at(key),
                key.scalar_text()
            ));
        }
    }
    match case.get("expect") {
        None => out.push(format!(
            "{}: expect: missing; a case must expect something",
            at(case)
        )),
        Some(expect) => out.extend(expect_problems(file, expect)),
    }
    out
}

/// What is wrong with the shape of an `expect` mapping (the values are
/// compared when the case runs).
fn expect_problems(file: &Path, expect: &yaml::Node) -> Vec<String> {
    let at = |node: &yaml::Node| location(file, node);
    let mut out = Vec::new();
    let Some(entries) = expect.as_map() else {
        if !matches!(expect.value, yaml::Value::Null) {
            out.push(format!("{}: expect: must be a mapping", at(expect)));
        }
        return out;
    };
    for (key, value) in entries {
        let name = key.as_str().unwrap_or_default();
        if !expect::KEYS.contains(&name) {
            out.push(format!(
                "{}: {}: not an expectation (see docs/testing.md)",
                at(key),
                key.scalar_text()
            ));
        } else if matches!(name, "events" | "runs") && value.as_seq().is_none() {
            out.push(format!("{}: {name}: must be a list", at(value)));
        } else if name == "reason_matches" {
            match value.as_str().map(crate::matcher::compile_regex) {
                Some(Ok(_)) => {}
                Some(Err(e)) => out.push(format!(
                    "{}: reason_matches: must be a valid regex: {e}",
                    at(value)
                )),
                None => out.push(format!(
                    "{}: reason_matches: must be a valid regex",
                    at(value)
                )),
            }
        }
    }
    out
}

/// The result of one case.
#[derive(Debug, Clone)]
pub struct CaseResult {
    /// The case name.
    pub name: String,
    /// Every expectation that did not hold, as `field: expected …, got …`.
    pub failures: Vec<String>,
}

impl Scenario {
    /// Reads a scenario file. Inline `files` are written into a temp
    /// directory (a file starting with `#!` is made executable).
    pub fn load(file: &Path) -> Result<Scenario, String> {
        let text = crate::config::read_bounded_text(file, crate::config::MAX_CONFIG_FILE)
            .map_err(|e| format!("{}: {e}", file.display()))?;
        let root = yaml::parse(&text).map_err(|e| {
            let at = e
                .position
                .map(|p| format!(":{}:{}", p.line, p.column))
                .unwrap_or_default();
            format!("{}{at}: invalid YAML: {}", file.display(), e.message)
        })?;
        let at = |node: &yaml::Node| location(file, node);
        // Where a key's value is, or the file when the key is missing.
        let at_key =
            |node: Option<&yaml::Node>| node.map_or_else(|| file.display().to_string(), &at);
        if let Some(entries) = root.as_map() {
            for (key, _) in entries {
                if !KEYS.contains(&key.as_str().unwrap_or_default()) {
                    return Err(format!(
                        "{}: {}: not a scenario key ({})",
                        at(key),
                        key.scalar_text(),
                        KEYS.join(", ")
                    ));
                }
            }
        }
        let dialect = root
            .get("dialect")
            .and_then(yaml::Node::as_str)
            .filter(|d| ["poolside", "evener", "peen", "claude"].contains(d))
            .ok_or_else(|| {
                format!(
                    "{}: `dialect` must be poolside, evener, peen or claude",
                    at_key(root.get("dialect"))
                )
            })?
            .to_owned();
        let config = config::Config::read(file, &dialect, root.get("config"))?;
        let home = if dialect == "claude" && !config.plugin_dirs.is_empty() {
            Some(tempfile::tempdir().map_err(|e| format!("cannot make a temp directory: {e}"))?)
        } else {
            None
        };
        let cases = root
            .get("cases")
            .and_then(yaml::Node::as_seq)
            .ok_or_else(|| format!("{}: `cases` must be a list", at_key(root.get("cases"))))?
            .iter()
            .enumerate()
            .map(|(i, c)| Case {
                name: c
                    .get("name")
                    .and_then(yaml::Node::as_str)
                    .map_or_else(|| format!("case {}", i + 1), str::to_owned),
                event: c.get("event").map_or(Value::Null, yaml::Node::to_json),
                expect: c.get("expect").map_or(Value::Null, yaml::Node::to_json),
                problems: case_problems(file, c),
                event_location: at(c.get("event").unwrap_or(c)),
            })
            .collect();
        Ok(Scenario {
            dialect,
            dir: config.dir.clone(),
            cases,
            config,
            home,
        })
    }

    /// Runs every case in order against one session (so session state, such
    /// as the Stop continuation counter, carries from case to case).
    pub async fn run(&self) -> Vec<CaseResult> {
        let state = tempfile::tempdir().ok();
        let mut results = Vec::new();
        for case in &self.cases {
            let event_json = case.event.clone();
            let failures = if !case.problems.is_empty() {
                case.problems.clone()
            } else {
                match serde_json::from_value::<Event>(event_json) {
                    Err(e) => vec![format!(
                        "{}: event: not a valid event: {e}",
                        case.event_location
                    )],
                    Ok(event) => {
                        let engine = self.engine(&event);
                        // A state directory that cannot be opened is not
                        // hidden behind a fresh in-memory one: the dialects
                        // answer it with their safe choice, as in `latch fire`.
                        let session = match (&state, &event.session_id) {
                            (Some(dir), Some(id)) => Session::open_or_unusable(dir.path(), id),
                            (None, Some(_)) => {
                                results.push(CaseResult {
                                    name: case.name.clone(),
                                    failures: vec![
                                        "cannot create a temporary state directory for the session"
                                            .to_owned(),
                                    ],
                                });
                                continue;
                            }
                            _ => Session::in_memory(None),
                        };
                        match engine.dispatch(&event, &session).await {
                            Ok(outcome) => check(
                                &case.expect,
                                &serde_json::to_value(&outcome).unwrap_or(Value::Null),
                            ),
                            Err(e) => vec![format!("event: {e}")],
                        }
                    }
                }
            };
            results.push(CaseResult {
                name: case.name.clone(),
                failures,
            });
        }
        results
    }

    /// Problems of the configuration that would make cases meaningless:
    /// load errors, and peen files skipped as invalid. A scenario with any
    /// of these does not run.
    pub fn config_problems(&self) -> Vec<crate::diag::Diagnostic> {
        let is_error = |d: &&crate::diag::Diagnostic| d.severity == crate::diag::Severity::Error;
        let vocabulary: Vec<crate::diag::Diagnostic> = self
            .config
            .vocabulary_diagnostics
            .iter()
            .filter(is_error)
            .cloned()
            .collect();
        if !vocabulary.is_empty() {
            return vocabulary;
        }
        if self.dialect == "peen" {
            // Peen skips an invalid file with a warning; every case would
            // then run without its hooks.
            let peen = self.peen();
            let skipped: Vec<&PathBuf> = peen.skipped().iter().map(|(f, _)| f).collect();
            return peen
                .diagnostics()
                .iter()
                .filter(|d| is_error(d) || d.file.as_ref().is_some_and(|f| skipped.contains(&f)))
                .cloned()
                .collect();
        }
        let probe = Event::new(crate::event::EventKind::SessionStart);
        self.engine(&probe)
            .diagnostics()
            .filter(is_error)
            .cloned()
            .collect()
    }

    fn peen(&self) -> Peen {
        Peen::load(peen::Options {
            workspace: Some(self.dir.clone()),
            ..peen::Options::default()
        })
    }

    fn engine(&self, event: &Event) -> Engine {
        match self.dialect.as_str() {
            "poolside" => Engine::new().with_dialect(Poolside::load(&Sources {
                project: Some(self.dir.clone()),
                ..Sources::default()
            })),
            "evener" => Engine::new().with_dialect(Evener::load(evener::Options {
                plugin_dirs: std::iter::once(self.dir.clone())
                    .chain(self.config.plugin_dirs.iter().cloned())
                    .collect(),
                project: Some(
                    event
                        .workdir(Some(&self.dir))
                        .unwrap_or_else(|| self.dir.clone()),
                ),
                tool_names: match &self.config.vocabulary {
                    Some(v) => evener::ToolNames::default().extended_by(v),
                    None => evener::ToolNames::default(),
                },
                ..evener::Options::default()
            })),
            "claude" => {
                let project = event
                    .workdir(Some(&self.dir))
                    .unwrap_or_else(|| self.dir.clone());
                Engine::new().with_dialect(Claude::load(claude::Options {
                    sources: claude::Sources {
                        // An empty temp directory: no user settings.
                        home: self.home.as_ref().map(|h| h.path().to_path_buf()),
                        project: Some(self.dir.clone()),
                        // The machine's managed settings are not the
                        // scenario's: this directory never exists.
                        managed_dir: Some(self.dir.join(".claude/no-managed-settings")),
                        plugin_dirs: self.config.plugin_dirs.clone(),
                        ..claude::Sources::default()
                    },
                    project: Some(project),
                    vocabulary: match &self.config.vocabulary {
                        Some(v) => v.clone().over_builtin(),
                        None => crate::vocabulary::Vocabulary::builtin(),
                    },
                    stop_block_cap: Some(claude::combine::STOP_BLOCK_CAP),
                    ..claude::Options::default()
                }))
            }
            _ => Engine::new().with_dialect(self.peen()),
        }
    }
}
