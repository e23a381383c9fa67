//! Trust: a project's hooks run only once the user approved exactly those
//! hooks.
//!
//! Every dialect describes each hook it loaded as a [`Definition`]: where
//! it is declared, its event and matcher, what it runs, the script files
//! its command names inside the project, and whether its source needs
//! approval at all (the user's own files, managed settings and
//! configuration layers do not; files and plugins inside the project do).
//! An approval ([`Approval`]) records that definition with a hash of each
//! script; any change to it makes the hook untrusted again, while other
//! edits to the same file do not.
//!
//! What happens to an untrusted hook is the harness's [`Policy`]: `off`
//! (the default of every dialect: their own products run project hooks
//! without asking), `warn`, or `require`. The engine hands the dialects a
//! [`Gate`] holding the policies and the approvals read once per engine;
//! without one no definition is even built.
//!
//! # Example
//!
//! ```
//! use latch::trust::{self, Gate, Policies, Store};
//! use latch::dialect::poolside::{Poolside, Sources};
//! use latch::Engine;
//!
//! // A project hook needs the user's approval under `require`.
//! let project = tempfile::tempdir()?;
//! let state = tempfile::tempdir()?;
//! std::fs::create_dir(project.path().join(".poolside"))?;
//! std::fs::write(
//!     project.path().join(".poolside/settings.yaml"),
//!     "hooks:\n  Stop:\n    - name: tests\n      command: make test\n",
//! )?;
//! let pool = Poolside::load(&Sources {
//!     project: Some(project.path().to_path_buf()),
//!     ..Sources::default()
//! });
//! let policies = Policies::parse(&["require"])?;
//! let engine = Engine::new()
//!     .with_dialect(pool)
//!     .with_trust(Gate::load(policies, state.path()));
//! let definitions = engine.definitions();
//! let listed = trust::list(&definitions, &Store::load(state.path())?);
//! assert!(listed[0].needs_approval && !listed[0].trust.trusted());
//! // What `latch trust approve tests` does:
//! trust::approve(state.path(), trust::select(&definitions, &["tests".to_owned()], false)?)?;
//! let listed = trust::list(&definitions, &Store::load(state.path())?);
//! assert!(listed[0].trust.trusted());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

internal_mods!(scripts);
mod store;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::diag::SourceRef;
use crate::outcome::TrustWord;

pub use store::{Approval, Store};

/// What happens to a hook from a source that needs approval when it is
/// not approved.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Policy {
    /// It runs; nothing is checked (every dialect's default).
    #[default]
    Off,
    /// It runs, and the outcome warns that it is not approved.
    Warn,
    /// It does not run; its run record says `untrusted`.
    Require,
}

impl std::str::FromStr for Policy {
    type Err = String;
    fn from_str(s: &str) -> Result<Policy, String> {
        match s {
            "off" => Ok(Policy::Off),
            "warn" => Ok(Policy::Warn),
            "require" => Ok(Policy::Require),
            _ => Err(format!("`{s}` is not a trust policy (off, warn, require)")),
        }
    }
}

/// The policy of each dialect.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policies {
    all: Policy,
    dialects: BTreeMap<String, Policy>,
}

impl Policies {
    /// From `--trust` values: `POLICY` for every dialect, `DIALECT=POLICY`
    /// for one (later values win). `DIALECT` is `poolside`, `peen`,
    /// `evener` or `claude`: another name is an error, as it would leave
    /// the dialect meant unguarded.
    pub fn parse<S: AsRef<str>>(specs: &[S]) -> Result<Policies, String> {
        let mut out = Policies::default();
        for spec in specs {
            let spec = spec.as_ref();
            match spec.split_once('=') {
                Some((dialect, policy)) => {
                    // A misspelt name would leave that dialect unguarded.
                    if !crate::dialect::NAMES.contains(&dialect) {
                        return Err(format!(
                            "`{dialect}` is not a dialect ({})",
                            crate::dialect::NAMES.join(", ")
                        ));
                    }
                    out.dialects.insert(dialect.to_owned(), policy.parse()?);
                }
                None => {
                    out.all = spec.parse()?;
                    out.dialects.clear();
                }
            }
        }
        Ok(out)
    }

    /// The policy for `dialect`.
    pub fn of(&self, dialect: &str) -> Policy {
        self.dialects.get(dialect).copied().unwrap_or(self.all)
    }

    /// Whether every dialect's policy is `off`.
    pub fn all_off(&self) -> bool {
        self.all == Policy::Off && self.dialects.values().all(|p| *p == Policy::Off)
    }
}

/// What a hook runs, as trust compares it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Runs {
    /// A shell command line (with the shell, when the hook chooses one).
    Command {
        /// The command line.
        command: String,
        /// The shell, when the hook names one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        shell: Option<String>,
    },
    /// A program and its arguments, no shell.
    Exec {
        /// The program.
        program: String,
        /// Its arguments.
        args: Vec<String>,
    },
    /// An HTTP request.
    Http {
        /// The URL.
        url: String,
    },
    /// A prompt for a model, or a text to inject.
    Text {
        /// What kind of text (`prompt`, `inject`, …).
        of: String,
        /// The text.
        text: String,
    },
}

impl std::fmt::Display for Runs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Runs::Command {
                command,
                shell: None,
            } => write!(f, "{command}"),
            Runs::Command {
                command,
                shell: Some(s),
            } => write!(f, "{command} (shell {s})"),
            Runs::Exec { program, args } => {
                write!(f, "{program}")?;
                for a in args {
                    write!(f, " {a:?}")?;
                }
                Ok(())
            }
            Runs::Http { url } => write!(f, "POST {url}"),
            Runs::Text { of, text } => write!(f, "{of}: {text}"),
        }
    }
}

/// One loaded hook, as trust sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Definition {
    /// The dialect that loaded it.
    pub dialect: String,
    /// Its event, in the dialect's spelling.
    pub event: String,
    /// Its label, as run records name it.
    pub hook: String,
    /// Where it is declared.
    pub source: SourceRef,
    /// Whether its source needs approval (a file or plugin inside the
    /// project); the user's own and managed files do not.
    pub needs_approval: bool,
    /// Its matcher as written, if it has one.
    pub matcher: Option<String>,
    /// What it runs.
    pub runs: Runs,
    /// The script files its command names inside the project.
    pub scripts: Vec<PathBuf>,
    /// Other settings that change what runs or what it may see (claude:
    /// `if`, `async`, `headers`, `allowedEnvVars`, `model`; peen:
    /// `environment`, `workingDir`), by name.
    pub settings: BTreeMap<String, String>,
}

impl Definition {
    /// The approval that would trust this definition as it is now (the
    /// scripts hashed now).
    pub fn approval(&self) -> Approval {
        Approval {
            dialect: self.dialect.clone(),
            event: self.event.clone(),
            hook: self.hook.clone(),
            matcher: self.matcher.clone(),
            runs: self.runs.clone(),
            scripts: scripts::hashes(&self.scripts),
            settings: self.settings.clone(),
            approved_at: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
        }
    }

    /// Its trust state against `store`.
    pub fn state(&self, store: &Store) -> TrustState {
        if !self.needs_approval {
            return TrustState::NotRequired;
        }
        let now = self.approval();
        // A script latch cannot hash (too large, unreadable, a FIFO) may
        // hold anything by the time it runs: no approval covers it.
        let unhashable: Vec<Change> = now
            .scripts
            .iter()
            .filter(|(_, pin)| !scripts::is_pinned(pin))
            .map(|(path, pin)| Change {
                what: UNHASHABLE.into(),
                path: Some(path.clone()),
                before: None,
                after: Some(pin.clone()),
            })
            .collect();
        if !unhashable.is_empty() {
            return TrustState::Changed(unhashable);
        }
        let approvals = store.approvals(&self.source.file);
        if approvals.iter().any(|a| a.same_definition(&now)) {
            return TrustState::Approved;
        }
        // The approval this hook most likely was: same event and label,
        // else same event and same command.
        let was = approvals
            .iter()
            .filter(|a| a.dialect == now.dialect && a.event == now.event)
            .find(|a| a.hook == now.hook)
            .or_else(|| {
                approvals.iter().find(|a| {
                    a.dialect == now.dialect && a.event == now.event && a.runs == now.runs
                })
            });
        match was {
            Some(was) => TrustState::Changed(changes(was, &now)),
            None => TrustState::New,
        }
    }
}

/// The [`Change::what`] of a script latch cannot hash.
const UNHASHABLE: &str = "unhashable script";

/// A hook's trust state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(tag = "state", content = "changes", rename_all = "snake_case")]
pub enum TrustState {
    /// Its source needs no approval (the user's own, managed, a
    /// configuration layer).
    NotRequired,
    /// Approved, and unchanged since.
    Approved,
    /// Never approved.
    New,
    /// Approved once, changed since.
    Changed(Vec<Change>),
}

impl TrustState {
    /// Whether the hook may run under `require`.
    pub fn trusted(&self) -> bool {
        matches!(self, TrustState::NotRequired | TrustState::Approved)
    }
}

/// One difference between an approved definition and the current one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Change {
    /// What changed: `matcher`, `runs`, `script` (then `path` says
    /// which), `unhashable script` (a script no approval can cover: `path`
    /// says which, `after` why), or the name of another setting (`if`,
    /// `environment`, …).
    pub what: String,
    /// The script, for a script change.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
    /// Before (approved), if there was anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    /// Now, if there is anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
}

impl std::fmt::Display for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "(none)".to_owned());
        match (&self.path, self.what.as_str()) {
            (Some(p), UNHASHABLE) => write!(
                f,
                "script {} cannot be approved: it is {}",
                p.display(),
                show(&self.after)
            ),
            (Some(p), _) => match (&self.before, &self.after) {
                (None, _) => write!(f, "script {} is new", p.display()),
                (_, None) => write!(f, "script {} is no longer run", p.display()),
                _ => write!(f, "script {} changed", p.display()),
            },
            (None, what) => write!(f, "{what}: {} → {}", show(&self.before), show(&self.after)),
        }
    }
}

fn changes(was: &Approval, now: &Approval) -> Vec<Change> {
    let mut out = Vec::new();
    if was.matcher != now.matcher {
        out.push(Change {
            what: "matcher".into(),
            path: None,
            before: was.matcher.clone(),
            after: now.matcher.clone(),
        });
    }
    if was.runs != now.runs {
        out.push(Change {
            what: "runs".into(),
            path: None,
            before: Some(was.runs.to_string()),
            after: Some(now.runs.to_string()),
        });
    }
    let names: std::collections::BTreeSet<&String> =
        was.settings.keys().chain(now.settings.keys()).collect();
    for name in names {
        let (before, after) = (was.settings.get(name), now.settings.get(name));
        if before != after {
            out.push(Change {
                what: name.clone(),
                path: None,
                before: before.cloned(),
                after: after.cloned(),
            });
        }
    }
    let paths: std::collections::BTreeSet<&PathBuf> =
        was.scripts.keys().chain(now.scripts.keys()).collect();
    for p in paths {
        let (before, after) = (was.scripts.get(p), now.scripts.get(p));
        if before != after {
            out.push(Change {
                what: "script".into(),
                path: Some(p.clone()),
                before: before.cloned(),
                after: after.cloned(),
            });
        }
    }
    out
}

/// One hook as `latch trust --format json` and `latch serve`'s
/// `trust/list` show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Listed {
    /// The dialect that loads it.
    pub dialect: String,
    /// Its event, in the dialect's spelling.
    pub event: String,
    /// Its label.
    pub hook: String,
    /// Where it is declared: `FILE:LINE:COLUMN`.
    pub source: String,
    /// Whether its source needs approval.
    pub needs_approval: bool,
    /// Its matcher as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matcher: Option<String>,
    /// What it runs.
    pub runs: Runs,
    /// The script files its command names inside the project.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scripts: Vec<PathBuf>,
    /// Other settings that change what runs, by name.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub settings: BTreeMap<String, String>,
    /// Its trust state against the store.
    pub trust: TrustState,
}

/// Every definition with its trust state against `store`.
pub fn list(definitions: &[Definition], store: &Store) -> Vec<Listed> {
    definitions
        .iter()
        .map(|d| Listed {
            dialect: d.dialect.clone(),
            event: d.event.clone(),
            hook: d.hook.clone(),
            source: d.source.to_string(),
            needs_approval: d.needs_approval,
            matcher: d.matcher.clone(),
            runs: d.runs.clone(),
            scripts: d.scripts.clone(),
            settings: d.settings.clone(),
            trust: d.state(store),
        })
        .collect()
}

/// Whether `name` names `d`: its label, `FILE:LINE` or
/// `FILE:LINE:COLUMN` of its declaration.
pub(crate) fn names(d: &Definition, name: &str) -> bool {
    let line = d.source.position.map(|p| p.line);
    name == d.hook
        || line.is_some_and(|l| name == format!("{}:{l}", d.source.file.display()))
        || name == d.source.to_string()
}

/// The definitions `names` name (a hook's label, `FILE:LINE` or
/// `FILE:LINE:COLUMN` of its declaration), or every one with `all`.
///
/// # Errors
/// When a name matches no definition, or there is no name and no `all`
/// (the message says which).
pub fn select<'a>(
    definitions: &'a [Definition],
    hooks: &[String],
    all: bool,
) -> Result<Vec<&'a Definition>, String> {
    if !all && hooks.is_empty() {
        return Err("name the hooks, or select all".to_owned());
    }
    // Both would mean all, and the names would be read for nothing.
    if all && !hooks.is_empty() {
        return Err("name the hooks or select all, not both".to_owned());
    }
    if let Some(unknown) = hooks
        .iter()
        .find(|h| !definitions.iter().any(|d| names(d, h)))
    {
        return Err(format!("no hook `{unknown}` is loaded"));
    }
    Ok(definitions
        .iter()
        .filter(|d| all || hooks.iter().any(|h| names(d, h)))
        .collect())
}

/// A hook named in `latch trust approve`'s and `revoke`'s answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub(crate) struct Brief {
    /// The dialect that loads it.
    pub dialect: String,
    /// Its event, in the dialect's spelling.
    pub event: String,
    /// Its label.
    pub hook: String,
    /// Where it is declared: `FILE:LINE:COLUMN`.
    pub source: String,
}

impl From<&Definition> for Brief {
    fn from(d: &Definition) -> Brief {
        Brief {
            dialect: d.dialect.clone(),
            event: d.event.clone(),
            hook: d.hook.clone(),
            source: d.source.to_string(),
        }
    }
}

/// What a dialect does with one hook under the harness's policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Admission {
    /// Run it.
    Run,
    /// Run it, and add this warning to the outcome.
    Warn(String),
    /// Do not run it: record it as `untrusted` with this message, and add
    /// it to the outcome's warnings.
    Refuse(String),
}

/// The policies and the approvals, for the dispatches of one engine.
#[derive(Debug, Clone)]
pub struct Gate {
    policies: Policies,
    /// The approvals, or why they could not be read.
    store: Result<Store, String>,
}

impl Gate {
    /// A gate with these policies and approvals (`Err`: the store could not
    /// be read; `require` then refuses every hook that needs approval).
    pub fn new(policies: Policies, store: Result<Store, String>) -> Gate {
        Gate { policies, store }
    }

    /// A gate reading the store under `state_root` now.
    pub fn load(policies: Policies, state_root: &std::path::Path) -> Gate {
        let store = Store::load(state_root).map_err(|e| e.to_string());
        Gate::new(policies, store)
    }

    /// The approvals it judges by, or why they could not be read.
    pub fn store(&self) -> Result<&Store, &str> {
        self.store.as_ref().map_err(String::as_str)
    }

    /// Whether any dialect's policy asks for anything.
    pub fn active(&self) -> bool {
        !self.policies.all_off()
    }

    /// Whether `dialect`'s hooks are checked at all (build definitions
    /// only then).
    pub fn checks(&self, dialect: &str) -> bool {
        self.policies.of(dialect) != Policy::Off
    }

    /// What to do with the hook `def`.
    pub fn admit(&self, def: &Definition) -> Admission {
        self.judge(def).1
    }

    /// What [`Gate::admit`] would do with the hook `def`, in words for
    /// `latch explain` ("it would not run"), for an event that has not
    /// been fired.
    pub fn foresee(&self, def: &Definition) -> Admission {
        self.judge_in(def, Tense::Would).1
    }

    /// What the policy does with a setting that shapes every hook of its
    /// dialect (claude's `env` and `disableAllHooks` in a project's
    /// settings), described by `def`: `None` when it applies with nothing
    /// to say, else whether it is held back (`require`) and a sentence for
    /// the load's diagnostics.
    pub(crate) fn setting(&self, def: &Definition) -> Option<(bool, String)> {
        if !def.needs_approval || self.policies.of(&def.dialect) == Policy::Off {
            return None;
        }
        let why = match &self.store {
            Err(e) => format!("cannot be checked: latch cannot read its trust store ({e})"),
            Ok(store) => match def.state(store) {
                TrustState::NotRequired | TrustState::Approved => return None,
                TrustState::New => "is not approved".to_owned(),
                TrustState::Changed(changes) => changed_since(&changes),
            },
        };
        let refused = self.policies.of(&def.dialect) == Policy::Require;
        let then = if refused {
            "latch does not apply it"
        } else {
            "latch applies it anyway"
        };
        Some((
            refused,
            format!(
                "setting `{}` ({} {}, {}) {why}; {then} (review it with `latch trust`, approve it with `latch trust approve`)",
                def.hook, def.dialect, def.event, def.source
            ),
        ))
    }

    /// The hook's trust state, and what to do with it.
    fn judge(&self, def: &Definition) -> (TrustWord, Admission) {
        self.judge_in(def, Tense::Did)
    }

    /// [`Gate::judge`], its messages in `tense`.
    fn judge_in(&self, def: &Definition, tense: Tense) -> (TrustWord, Admission) {
        let policy = self.policies.of(&def.dialect);
        if !def.needs_approval {
            return (TrustWord::NotRequired, Admission::Run);
        }
        let state = match &self.store {
            Ok(store) => def.state(store),
            Err(why) => {
                let text = format!(
                    "{}: latch cannot read its trust store ({why}), so it cannot tell whether the hook is approved",
                    describe(def)
                );
                let admission = match policy {
                    Policy::Off => Admission::Run,
                    Policy::Require => Admission::Refuse(format!("{text}; {}", tense.words(false))),
                    Policy::Warn => {
                        Admission::Warn(format!("{text}; {} anyway", tense.words(true)))
                    }
                };
                return (TrustWord::Unknown, admission);
            }
        };
        let word = match &state {
            TrustState::NotRequired => TrustWord::NotRequired,
            TrustState::Approved => TrustWord::Approved,
            TrustState::New => TrustWord::New,
            TrustState::Changed(_) => TrustWord::Changed,
        };
        if policy == Policy::Off {
            return (word, Admission::Run);
        }
        (word, Self::admission(def, &state, policy, tense))
    }

    fn admission(def: &Definition, state: &TrustState, policy: Policy, tense: Tense) -> Admission {
        let why = match state {
            TrustState::NotRequired | TrustState::Approved => return Admission::Run,
            TrustState::New => "is not approved".to_owned(),
            TrustState::Changed(changes) => changed_since(changes),
        };
        let how = "review it with `latch trust`, approve it with `latch trust approve`";
        let refused = policy == Policy::Require;
        let text = format!("{} {why}; {} ({how})", describe(def), tense.words(!refused));
        if refused {
            Admission::Refuse(text)
        } else {
            Admission::Warn(text)
        }
    }
}

/// `changed since it was approved (script … changed; runs: A → B)`.
fn changed_since(changes: &[Change]) -> String {
    let changes: Vec<String> = changes.iter().map(ToString::to_string).collect();
    format!("changed since it was approved ({})", changes.join("; "))
}

/// Whether a message tells what happened to a hook or what would.
#[derive(Debug, Clone, Copy)]
enum Tense {
    /// A dispatch: "it did not run".
    Did,
    /// `latch explain`: "it would not run".
    Would,
}

impl Tense {
    fn words(self, runs: bool) -> &'static str {
        match (self, runs) {
            (Tense::Did, true) => "it ran",
            (Tense::Did, false) => "it did not run",
            (Tense::Would, true) => "it would run",
            (Tense::Would, false) => "it would not run",
        }
    }
}

/// Approves `definitions` as they are now (scripts hashed now), in the
/// store under `state_root`: each one's earlier approval (same file,
/// dialect, event and label, or the same definition) gives way. Those
/// whose source needs no approval are left out. Returns the approved ones.
///
/// # Errors
/// When the store cannot be read, is not a store, or cannot be written.
pub fn approve<'a>(
    state_root: &std::path::Path,
    definitions: impl IntoIterator<Item = &'a Definition>,
) -> std::io::Result<Vec<&'a Definition>> {
    change(state_root, definitions, true)
}

/// Withdraws the approvals of `definitions` from the store under
/// `state_root`. Returns those that had one.
///
/// # Errors
/// As for [`approve`].
pub fn revoke<'a>(
    state_root: &std::path::Path,
    definitions: impl IntoIterator<Item = &'a Definition>,
) -> std::io::Result<Vec<&'a Definition>> {
    change(state_root, definitions, false)
}

fn change<'a>(
    state_root: &std::path::Path,
    definitions: impl IntoIterator<Item = &'a Definition>,
    approve: bool,
) -> std::io::Result<Vec<&'a Definition>> {
    let chosen: Vec<&Definition> = definitions
        .into_iter()
        .filter(|d| d.needs_approval)
        .collect();
    Store::update(state_root, |store| {
        let mut changed = Vec::new();
        for d in chosen {
            let now = d.approval();
            let approvals = store.files.entry(d.source.file.clone()).or_default();
            let before = approvals.len();
            approvals.retain(|a| {
                !(a.dialect == now.dialect
                    && a.event == now.event
                    && (a.hook == now.hook || a.same_definition(&now)))
            });
            let removed = before != approvals.len();
            if approve {
                approvals.push(now);
                changed.push(d);
            } else if removed {
                changed.push(d);
            }
        }
        changed
    })
}

/// What every dialect does before it runs a hook: asks `gate` (if there is
/// one and it checks `dialect`) about the hook `definition` describes,
/// built only then, and notes the hook's trust state in its `record`. A
/// warning goes into `warnings`. On a refusal the record becomes
/// [`RunStatus::Untrusted`](crate::outcome::RunStatus::Untrusted) with the
/// message (also in `warnings`) and `true` comes back: the caller records
/// the hook instead of running it.
pub(crate) fn check(
    gate: Option<&Gate>,
    dialect: &str,
    definition: impl FnOnce() -> Definition,
    warnings: &mut Vec<String>,
    record: &mut crate::outcome::HookRun,
) -> bool {
    let Some(gate) = gate.filter(|g| g.checks(dialect)) else {
        return false;
    };
    let (word, admission) = gate.judge(&definition());
    record.trust = Some(word);
    match admission {
        Admission::Run => false,
        Admission::Warn(warning) => {
            warnings.push(warning);
            false
        }
        Admission::Refuse(warning) => {
            warnings.push(warning.clone());
            record.status = crate::outcome::RunStatus::Untrusted;
            record.message = Some(warning);
            true
        }
    }
}

/// `hook `guard` (claude PreToolUse, /p/.claude/settings.json:3:5)`.
fn describe(def: &Definition) -> String {
    format!(
        "hook `{}` ({} {}, {})",
        def.hook, def.dialect, def.event, def.source
    )
}
