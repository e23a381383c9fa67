//! The claude dialect: Claude Code's own hook files (`.claude/settings.json`
//! at every level, managed settings, plugins), run with Claude Code's
//! behaviour as recorded from the real CLI: every matching handler at once,
//! identical handlers once, the strongest permission decision, and the
//! texts the model reads byte for byte.
//!
//! The pipeline, one module per stage:
//! - `discover`: which files, in configuration order;
//! - `load`: one file into matcher groups and handlers (an invalid entry
//!   drops the whole file, as Claude Code does, with located diagnostics);
//! - `events`: event names, matcher targets, the stdin payload;
//! - `judge`: one run's exit code and output into a verdict;
//! - `http`: `http` handlers;
//! - `text`: Claude Code's texts;
//! - `background`: `async` handlers' answers, kept for the next tool result;
//! - `accepted`: the settings a session keeps when a `ConfigChange` hook
//!   rejects an edit;
//! - `combine`: the verdicts into one [`Outcome`](crate::Outcome);
//! - [`message`]: for a harness that builds Claude Code's request itself,
//!   the user message Claude Code would send, from tool results and the
//!   outcome's texts.
//!
//! The user guide is `docs/dialects/claude.md`.
//!
//! # Example
//!
//! ```
//! use latch::dialect::Dialect;
//! use latch::dialect::claude::{self, Claude};
//! use latch::{Engine, Event, Session};
//!
//! // Claude Code's `--settings` as JSON text; files work the same way.
//! let dialect = Claude::load(claude::Options {
//!     sources: claude::Sources {
//!         settings: Some(
//!             r#"{"hooks": {"PreToolUse": [{"matcher": "Bash",
//!                 "hooks": [{"type": "command", "command": "echo 'no shell today' >&2; exit 2"}]}]}}"#
//!                 .into(),
//!         ),
//!         // Not this machine's /etc/claude-code.
//!         managed_dir: Some("/nonexistent".into()),
//!         ..claude::Sources::default()
//!     },
//!     // Leave the hook's command line out of what the model reads.
//!     texts: claude::Texts { hide_commands: true },
//!     ..claude::Options::default()
//! });
//! assert!(dialect.diagnostics().is_empty());
//! let engine = Engine::new().with_dialect(dialect);
//! let event = Event::tool_before("Bash", serde_json::json!({"command": "ls"}));
//! let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
//! let outcome = runtime.block_on(engine.dispatch(&event, &Session::in_memory(None)))?;
//! assert!(outcome.is_denied());
//! // stderr as the hook wrote it, as Claude Code passes it on.
//! assert_eq!(outcome.notices[0].text, "PreToolUse:Bash hook error: no shell today\n");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

internal_mods!(
    accepted,
    answer_errors,
    answer_schema,
    background,
    combine,
    discover,
    env_file,
    events,
    explain,
    harness,
    http,
    judge,
    lint,
    load,
    mcp_failure,
    mcp_output,
    nesting,
    payload,
    persist,
    personal,
    prompt,
    schema,
    settings_schema,
    skill_shell,
    terminal,
    text,
    title,
    trust,
    visible
);

pub mod message;

use std::collections::HashMap;
use std::path::PathBuf;

use crate::diag::Diagnostic;
use crate::event::Event;
use crate::matcher::{ClaudeIndex, ClaudeMatcher};
use crate::vocabulary::Vocabulary;

pub use crate::model::PromptConfig;
pub use discover::Sources;
pub(crate) use events::ClaudeEvent;
pub(crate) use load::{Group, LoadedFile, Scope};
pub use text::Texts;

/// The dialect's name.
pub const DIALECT: &str = "claude";

/// What to load and how to run it. The default loads nothing but the
/// managed settings in `/etc/claude-code`, with the built-in vocabulary
/// and Claude Code's Stop block cap of 8.
#[derive(Debug, Clone)]
pub struct Options {
    /// Where the files are.
    pub sources: Sources,
    /// The project (`CLAUDE_PROJECT_DIR`, and where hooks run when the
    /// event has no `cwd`).
    pub project: Option<PathBuf>,
    /// The harness's tools → Claude Code's names and argument shapes.
    pub vocabulary: Vocabulary,
    /// How texts are written.
    pub texts: Texts,
    /// Where `prompt` handlers send their requests.
    pub prompt: PromptConfig,
    /// The cap on consecutive Stop blocks (`None`: no cap). Default: 8, as
    /// Claude Code; [`Options::stop_block_cap_from_env`] reads Claude
    /// Code's variable.
    pub stop_block_cap: Option<u32>,
    /// Claude Code's safe mode (`--safe-mode`, `CLAUDE_CODE_SAFE_MODE`;
    /// [`Options::safe_mode_from_env`] reads the variable): only managed
    /// settings' hooks run, and the plugins the harness gives (which, in
    /// safe mode, should be those its managed settings enable). Default:
    /// off.
    pub safe_mode: bool,
    /// Claude Code's `CLAUDE_CODE_RESTRICT_PERSONAL_CONFIG`, set in its
    /// hosted sessions ([`Options::restrict_personal_config_from_env`]
    /// reads it): the user's own hooks (those of the user settings file,
    /// and their copies elsewhere) block when they fail on the events that
    /// decide, their answers lose what may widen or change a call, and a
    /// project's `disableAllHooks` spares user, `--settings` and managed
    /// hooks. Default: off.
    pub restrict_personal_config: bool,
    /// The host's sentence on how to fix the user's own files
    /// (`CLAUDE_CODE_PERSONAL_CONFIG_FIX`, read by
    /// [`Options::personal_config_fix_from_env`]), which a failed personal
    /// hook's text gives in place of Claude Code's own. Default: none.
    pub personal_config_fix: Option<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            sources: Sources::default(),
            project: None,
            vocabulary: Vocabulary::default(),
            texts: Texts::default(),
            prompt: PromptConfig::default(),
            stop_block_cap: Some(combine::STOP_BLOCK_CAP),
            safe_mode: false,
            restrict_personal_config: false,
            personal_config_fix: None,
        }
    }
}

/// Whether the variable `name` is set to `1`, `true`, `yes` or `on`, in
/// any case, spaces around allowed (Claude Code's `De`).
fn env_flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "1" | "true" | "yes" | "on"
        )
    })
}

/// A `CLAUDE_CODE_PERSONAL_CONFIG_FIX` value as Claude Code 2.1.332 takes
/// it (`T3t`; see [`Options::personal_config_fix_from_env`]).
fn personal_config_fix(v: &str) -> Option<String> {
    let v = crate::text::js_trim(v);
    static UNFIT: std::sync::LazyLock<Option<regex::Regex>> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]").ok());
    let unfit = UNFIT.as_ref().is_none_or(|re| re.is_match(v));
    let units = v.encode_utf16().count();
    (!v.is_empty() && units <= 300 && !unfit).then(|| v.to_owned())
}

impl Options {
    /// Whether `CLAUDE_CODE_SAFE_MODE` turns safe mode on, as Claude Code
    /// reads it (`De`): `1`, `true`, `yes` or `on`, in any case, spaces
    /// around allowed.
    pub fn safe_mode_from_env() -> bool {
        env_flag("CLAUDE_CODE_SAFE_MODE")
    }

    /// Whether `CLAUDE_CODE_RESTRICT_PERSONAL_CONFIG` is on, read as
    /// Claude Code 2.1.332 reads it (`lb`, its flag reader `De`): `1`,
    /// `true`, `yes` or `on`, in any case, spaces around allowed.
    pub fn restrict_personal_config_from_env() -> bool {
        env_flag("CLAUDE_CODE_RESTRICT_PERSONAL_CONFIG")
    }

    /// `CLAUDE_CODE_PERSONAL_CONFIG_FIX`, as Claude Code 2.1.332 takes it
    /// (`T3t`): trimmed; none when empty, longer than 300 UTF-16 code
    /// units, or holding a control, format, line or paragraph separator
    /// character.
    pub fn personal_config_fix_from_env() -> Option<String> {
        let v = std::env::var("CLAUDE_CODE_PERSONAL_CONFIG_FIX").ok()?;
        personal_config_fix(&v)
    }

    /// The Stop block cap from `CLAUDE_CODE_STOP_HOOK_BLOCK_CAP`, read as
    /// Claude Code reads it (its 2.1.197 code): JavaScript's `parseInt(v,
    /// 10)`, so `2x` is 2; a value that is not a number (or unset, or
    /// empty) is Claude Code's 8; 0 or less is no cap. A value that is not
    /// a plain whole number is also a warning saying how it was read.
    pub fn stop_block_cap_from_env(diags: &mut Vec<Diagnostic>) -> Option<u32> {
        let Ok(v) = std::env::var("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP") else {
            return Some(combine::STOP_BLOCK_CAP);
        };
        let read = js_parse_int(&v);
        let cap = match read {
            None => Some(combine::STOP_BLOCK_CAP),
            Some(n) if n <= 0 => None,
            Some(n) => Some(u32::try_from(n).unwrap_or(u32::MAX)),
        };
        // A whole number, signed or not (`-1`, no cap, is documented).
        let digits = v.strip_prefix('-').unwrap_or(&v);
        let plain = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
        if !v.is_empty() && !plain {
            let meaning = match cap {
                Some(n) => format!("a cap of {n}"),
                None => "no cap".to_owned(),
            };
            diags.push(
                Diagnostic::warning(format!(
                    "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP={v:?} is not a plain whole number; read as Claude Code reads it: {meaning}"
                ))
                .for_dialect(DIALECT),
            );
        }
        cap
    }
}

/// JavaScript's `parseInt(text, 10)`: leading white space, a sign, then
/// the digits up to the first other character; `None` for no digits
/// (`NaN`). Saturates past `i64`.
fn js_parse_int(text: &str) -> Option<i64> {
    let text = text::js_trim_start(text);
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let digits: Vec<i64> = digits
        .bytes()
        .take_while(u8::is_ascii_digit)
        .map(|b| i64::from(b - b'0'))
        .collect();
    if digits.is_empty() {
        return None;
    }
    let n = digits
        .iter()
        .fold(0i64, |n, d| n.saturating_mul(10).saturating_add(*d));
    Some(if negative { -n } else { n })
}

/// The groups of one event across all files, as (file index, group
/// index) in configuration order, indexed by matcher.
#[derive(Debug, Clone)]
struct EventGroups {
    refs: Vec<(usize, usize)>,
    index: ClaudeIndex,
}

/// A loaded claude configuration.
#[derive(Debug, Clone)]
pub struct Claude {
    files: Vec<LoadedFile>,
    events: HashMap<ClaudeEvent, EventGroups>,
    options: Options,
    /// See [`Dialect::config_paths`](crate::dialect::Dialect::config_paths).
    watched: Vec<PathBuf>,
    diagnostics: Vec<Diagnostic>,
    /// The diagnostics of reading the files, before the settings that
    /// shape every hook were applied ([`Claude::settle`]).
    loaded: Vec<Diagnostic>,
    /// The settings files' `env`, user first and managed last, so that
    /// the most specific source's assignment is the one a hook keeps.
    settings_env: Vec<(std::ffi::OsString, std::ffi::OsString)>,
    /// The events of the user's settings file with a problem, where
    /// Claude Code does not say where in it a personal hook is (see
    /// [`personal`]); read once, at load.
    user_problems: Vec<String>,
}

impl Claude {
    /// Loads every source. Never fails: problems are diagnostics.
    pub fn load(options: Options) -> Claude {
        let mut diagnostics = Vec::new();
        let (files, looked) =
            crate::config::files::looking(|| options.sources.load(&mut diagnostics));
        // What the load read or looked for (manifest-named hooks files
        // included), and the directories it lists.
        let mut watched: Vec<PathBuf> = looked.into_iter().collect();
        watched.extend(options.sources.watched_dirs());
        watched.sort();
        watched.dedup();
        let mut claude = Claude {
            files,
            events: HashMap::new(),
            options,
            watched,
            diagnostics: Vec::new(),
            loaded: diagnostics,
            settings_env: Vec::new(),
            user_problems: Vec::new(),
        };
        if let Some(user) = claude
            .files
            .iter()
            .find(|f| f.scope == Scope::User && !f.dropped)
        {
            claude.user_problems = claude
                .loaded
                .iter()
                .filter(|d| d.severity != crate::diag::Severity::Info)
                .filter(|d| d.file.as_deref() == Some(user.path.as_path()))
                .filter_map(|d| d.event.clone())
                .collect();
        }
        claude.settle(None);
        claude
    }

    /// Applies the settings that shape every hook (`disableAllHooks`,
    /// `allowManagedHooksOnly`, `env`) and indexes the groups that stay
    /// on. With a trust `gate`, a project file's `env` or
    /// `disableAllHooks` that is not approved is left out under `require`
    /// (and named in a warning under `warn` too): otherwise a cloned
    /// repository could turn the user's guards off, or reach every hook's
    /// environment, without approval.
    fn settle(&mut self, gate: Option<&crate::trust::Gate>) {
        for f in &mut self.files {
            if !f.switched_off.is_empty() {
                f.groups = std::mem::take(&mut f.switched_off);
            }
        }
        let mut diagnostics = self.loaded.clone();
        let mut refused: Vec<(usize, trust::Shaping)> = Vec::new();
        if let Some(gate) = gate {
            let project = self.options.project.as_deref();
            for (i, f) in self.files.iter().enumerate() {
                for (what, def) in trust::shaping_settings(project, f) {
                    let Some((held, why)) = gate.setting(&def) else {
                        continue;
                    };
                    if held {
                        refused.push((i, what));
                    }
                    diagnostics.push(
                        Diagnostic::warning(why)
                            .in_file(&f.path)
                            .at(def.source.position)
                            .for_dialect(DIALECT),
                    );
                }
            }
        }
        let (safe_mode, restrict) = (
            self.options.safe_mode,
            self.options.restrict_personal_config,
        );
        let files = &mut self.files;
        apply_switches(files, &refused, safe_mode, restrict, &mut diagnostics);
        let mut refs: HashMap<ClaudeEvent, Vec<(usize, usize)>> = HashMap::new();
        for (fi, f) in files.iter().enumerate() {
            for (gi, g) in f.groups.iter().enumerate() {
                if let Some(e) = g.event {
                    refs.entry(e).or_default().push((fi, gi));
                }
            }
        }
        // An invalid matcher is indexed as "any" so its group shows up as
        // skipped on every occurrence, never silently absent.
        static ANY: ClaudeMatcher = ClaudeMatcher::Any;
        let events = refs
            .into_iter()
            .map(|(e, refs)| {
                let index = ClaudeIndex::build(refs.iter().enumerate().map(|(i, (fi, gi))| {
                    let m = match &files[*fi].groups[*gi].matcher {
                        load::Matcher::Valid(m) => m,
                        load::Matcher::Invalid(_) => &ANY,
                    };
                    (i, m)
                }));
                (e, EventGroups { refs, index })
            })
            .collect();
        self.settings_env = settings_env(files, &refused);
        self.events = events;
        self.diagnostics = diagnostics;
    }

    /// The variables the settings files' `env` sets for every hook.
    pub(crate) fn settings_env(&self) -> &[(std::ffi::OsString, std::ffi::OsString)] {
        &self.settings_env
    }

    /// The loaded files, in configuration order (dropped ones included,
    /// with no groups).
    pub(crate) fn files(&self) -> &[LoadedFile] {
        &self.files
    }

    /// The options it was loaded with.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Where the hooks run for `event`: its working directory if that is
    /// a directory, else the project, else latch's own.
    pub(crate) fn run_dir(&self, event: &Event) -> std::path::PathBuf {
        event
            .workdir(self.options.project.as_deref())
            .unwrap_or_else(|| std::path::PathBuf::from("."))
    }

    /// The groups of `ce` whose matcher selects this event, in
    /// configuration order, with their file. `tool` is the tool's Claude
    /// name. A sentence for each regex matcher that gave up (and so
    /// selected its group) goes to `gave_up`.
    pub(crate) fn select<'a>(
        &'a self,
        ce: ClaudeEvent,
        event: &'a Event,
        tool: &'a str,
        gave_up: &mut Vec<String>,
    ) -> Vec<(&'a LoadedFile, &'a Group)> {
        let Some(groups) = self.events.get(&ce) else {
            return Vec::new();
        };
        let chosen: Vec<usize> = match ce.target(event, tool) {
            None => (0..groups.refs.len()).collect(),
            // A tool matcher also knows the tool's former names (`Task`).
            Some(t) if ce.is_tool() => groups.index.select_tool(t, gave_up),
            Some(t) => groups.index.select(t, gave_up),
        };
        chosen
            .into_iter()
            .filter_map(|i| groups.refs.get(i))
            .map(|(fi, gi)| (&self.files[*fi], &self.files[*fi].groups[*gi]))
            .collect()
    }
}

impl Claude {
    /// Whether `handler` of `file`, under `event_name`, is one of the
    /// user's own hooks under `CLAUDE_CODE_RESTRICT_PERSONAL_CONFIG` (see
    /// [`personal`]); `None` when the option is off.
    pub(crate) fn personal(
        &self,
        file: &LoadedFile,
        handler: &load::Handler,
        event_name: &str,
    ) -> Option<personal::Personal> {
        if !self.options.restrict_personal_config {
            return None;
        }
        personal::of(
            &self.files,
            file,
            handler,
            event_name,
            self.options.personal_config_fix.as_deref(),
            &self.user_problems,
        )
    }

    /// Whether any loaded file has hooks for `ce`.
    pub(crate) fn declares(&self, ce: ClaudeEvent) -> bool {
        self.events.get(&ce).is_some_and(|g| !g.refs.is_empty())
    }

    /// The files `FileChanged` matchers name (literal names split on `|`),
    /// under `base` unless absolute: what a harness watches from the
    /// session's start (recorded: `r3_file_changed`).
    pub(crate) fn file_watch_list(&self, base: &std::path::Path) -> Vec<String> {
        let mut list: Vec<String> = Vec::new();
        let Some(groups) = self.events.get(&ClaudeEvent::FileChanged) else {
            return list;
        };
        for &(fi, gi) in &groups.refs {
            // Claude Code splits the matcher's text on `|` for its watch
            // list, whatever the matcher selects.
            let group = &self.files[fi].groups[gi];
            let Some(text) = group.matcher_text.as_deref().filter(|t| *t != "*") else {
                continue;
            };
            for name in text.split('|').map(str::trim).filter(|n| !n.is_empty()) {
                let path = base.join(name).to_string_lossy().into_owned();
                if !list.contains(&path) {
                    list.push(path);
                }
            }
        }
        list
    }
}

/// `disableAllHooks` and `allowManagedHooksOnly`, as Claude Code applies
/// them (recorded: `r2_disable_all_hooks_*`): the most specific file that
/// sets `disableAllHooks` decides; `true` outside managed settings turns off
/// every hook but the managed ones, `true` in managed settings turns off
/// all. `allowManagedHooksOnly: true` in managed settings keeps only
/// managed hooks, and so does safe mode, but for the plugins the harness
/// gives (Claude Code 2.1.332 keeps its built-in plugins and those managed
/// settings enable, read from its code). Each file turned off gets a note.
/// A `disableAllHooks` in `refused` (held back by the trust policy) does
/// not count.
///
/// Under `restrict` (`CLAUDE_CODE_RESTRICT_PERSONAL_CONFIG`), a
/// `disableAllHooks: true` that only project or local settings set turns
/// off the project's, the local and the plugins' hooks, and spares the
/// user's, `--settings`' and managed ones (Claude Code 2.1.332's `r`,
/// `rHo`, `S`, `GNs`; recorded: `rp10_project_disable_all`), unless safe
/// mode or `allowManagedHooksOnly` is on.
fn apply_switches(
    files: &mut [LoadedFile],
    refused: &[(usize, trust::Shaping)],
    safe_mode: bool,
    restrict: bool,
    diags: &mut Vec<Diagnostic>,
) {
    let counted = || {
        files
            .iter()
            .enumerate()
            .filter(|(i, _)| !refused.contains(&(*i, trust::Shaping::DisableAllHooks)))
            .map(|(_, f)| f)
            .filter(|f| f.scope != Scope::Plugin && !f.dropped)
    };
    let disable = counted()
        .filter_map(|f| f.disable_all_hooks.map(|d| (f.scope, d, f.path.clone())))
        .max_by_key(|(scope, _, _)| *scope);
    let managed_only = files.iter().any(|f| {
        f.scope == Scope::Managed && !f.dropped && f.allow_managed_hooks_only == Some(true)
    });
    // `GNs`: user, `--settings` or managed settings turn all hooks off
    // themselves.
    let spared_set_it = counted().any(|f| {
        matches!(f.scope, Scope::User | Scope::Flag | Scope::Managed)
            && f.disable_all_hooks == Some(true)
    });
    let spares = restrict
        && !safe_mode
        && !managed_only
        && !spared_set_it
        && matches!(disable, Some((Scope::Project | Scope::Local, true, _)));
    for f in files.iter_mut() {
        let why = match &disable {
            Some((_, true, by))
                if spares && matches!(f.scope, Scope::Project | Scope::Local | Scope::Plugin) =>
            {
                Some(format!(
                    "disableAllHooks is true in {}, which CLAUDE_CODE_RESTRICT_PERSONAL_CONFIG lets turn off only the project's, the local and the plugins' hooks",
                    by.display()
                ))
            }
            Some((_, true, _)) if spares => None,
            Some((Scope::Managed, true, by)) => {
                Some(format!("disableAllHooks is true in {}", by.display()))
            }
            Some((_, true, by)) if f.scope != Scope::Managed => {
                Some(format!("disableAllHooks is true in {}", by.display()))
            }
            _ if managed_only && f.scope != Scope::Managed => {
                Some("allowManagedHooksOnly is true in managed settings".to_owned())
            }
            _ if safe_mode && !matches!(f.scope, Scope::Managed | Scope::Plugin) => Some(
                "Claude Code's safe mode is on (CLAUDE_CODE_SAFE_MODE), where only managed settings' hooks run"
                    .to_owned(),
            ),
            _ => None,
        };
        if let Some(why) = why
            && !f.groups.is_empty()
        {
            diags.push(
                Diagnostic::new(
                    crate::diag::Severity::Info,
                    format!("the hooks of this file do not run: {why}"),
                )
                .in_file(&f.path)
                .for_dialect(DIALECT),
            );
            f.switched_off = std::mem::take(&mut f.groups);
        }
    }
}

crate::dialect::impl_dialect!(
    Claude,
    fn internal_failure(&self, event: &Event, what: &str) -> crate::outcome::Outcome {
        crate::dialect::fail_open(DIALECT, event, what)
    },
    fn gate_settings(&mut self, gate: &crate::trust::Gate) {
        if gate.checks(DIALECT) {
            self.settle(Some(gate));
        }
    }
);

/// The settings files' `env`, from the least specific source to the most
/// (a dropped file sets nothing, nor one whose `env` is in `refused`;
/// plugins have no `env`). A hook's
/// environment keeps the last assignment of a name, so the most specific
/// source wins, as Claude Code merges scalar keys.
fn settings_env(
    files: &[LoadedFile],
    refused: &[(usize, trust::Shaping)],
) -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    let mut by_scope: Vec<&LoadedFile> = files
        .iter()
        .enumerate()
        .filter(|(i, _)| !refused.contains(&(*i, trust::Shaping::Env)))
        .map(|(_, f)| f)
        .filter(|f| !f.dropped && f.scope != load::Scope::Plugin)
        .collect();
    // `Scope` is declared from the least specific to the most.
    by_scope.sort_by_key(|f| f.scope);
    by_scope
        .iter()
        .flat_map(|f| &f.env)
        .map(|(name, value)| (name.into(), value.into()))
        .collect()
}

/// The cases of `recordings/<file>`, one JSON value a line: what
/// Claude Code's own code made of each input, for the agreement tests.
#[cfg(test)]
pub(crate) fn recorded_cases(file: &str) -> Vec<serde_json::Value> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("recordings")
        .join(file);
    let text = std::fs::read_to_string(&path).expect("the recorded cases");
    text.lines()
        .map(|line| serde_json::from_str(line).expect("a case"))
        .collect()
}

#[cfg(test)]
mod parse_int_tests {
    use super::js_parse_int;

    #[test]
    fn reads_as_javascript_s_parse_int() {
        for (text, n) in [
            ("8", Some(8)),
            (" 2x", Some(2)),
            ("\u{a0}\t-1", Some(-1)),
            ("+3", Some(3)),
            ("007", Some(7)),
            ("1e3", Some(1)),
            ("99999999999999999999999", Some(i64::MAX)),
        ] {
            assert_eq!(js_parse_int(text), n, "{text:?}");
        }
        for text in ["", "x", "-", " ", "0x10x"] {
            let expected = if text == "0x10x" { Some(0) } else { None };
            assert_eq!(js_parse_int(text), expected, "{text:?}");
        }
    }
}

#[cfg(test)]
mod personal_config_fix_tests {
    use super::personal_config_fix;

    #[test]
    fn reads_as_claude_code_s_t3t() {
        assert_eq!(
            personal_config_fix(" ask the host to fix it ").as_deref(),
            Some("ask the host to fix it")
        );
        for unfit in ["", "  ", "a\nb", "a\u{200b}b", "a\u{2028}b"] {
            assert_eq!(personal_config_fix(unfit), None, "{unfit:?}");
        }
        assert!(personal_config_fix(&"x".repeat(300)).is_some());
        assert!(personal_config_fix(&"x".repeat(301)).is_none());
        // UTF-16 code units: an astral character counts two.
        assert!(personal_config_fix(&"\u{1f600}".repeat(151)).is_none());
    }
}
