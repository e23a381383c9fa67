//! The flags that say where hook configuration lives, shared by the
//! commands that load it (`fire`, `explain`), and the loading itself.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use crate::audit::AuditMode;
use crate::config::env_path;
use crate::dialect::Dialect;
use crate::dialect::claude::{self, Claude};
use crate::dialect::evener::{self, Evener, PromptConfig, ToolNames};
use crate::dialect::failed::{DenyRule, FailedLoad};
use crate::dialect::peen::{self, Peen};
use crate::dialect::poolside::{Poolside, Sources};
use crate::trust::{Gate, Policies};
use crate::{Diagnostic, Engine, Event, Session};

/// A dialect latch can load, by its name on the command line.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, ValueEnum, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum DialectName {
    /// poolside's `settings.yaml` levels.
    Poolside,
    /// peen's `hooks.yaml` layers.
    Peen,
    /// Evener plugins (`--plugin-dir`).
    Evener,
    /// Claude Code's settings files and plugins (only when named).
    Claude,
}

impl DialectName {
    /// The dialect's name, as written on the command line.
    pub fn name(self) -> &'static str {
        match self {
            DialectName::Poolside => crate::dialect::poolside::DIALECT,
            DialectName::Peen => crate::dialect::peen::DIALECT,
            DialectName::Evener => crate::dialect::evener::DIALECT,
            DialectName::Claude => crate::dialect::claude::DIALECT,
        }
    }
}

/// Where each dialect's configuration is, and which dialects to load: the
/// flags of `latch fire` and `latch explain`, and the `initialize` params of
/// `latch serve` (the same names in snake_case).
#[derive(Debug, Clone, Default, Args, serde::Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ConfigArgs {
    /// Load only this dialect (repeatable). Default: poolside and peen,
    /// plus evener when --plugin-dir is given; claude only when named.
    #[arg(long = "dialect", value_name = "NAME")]
    #[schemars(extend("minItems" = 1))]
    dialects: Vec<DialectName>,
    /// The project directory (project-level settings). Default: the current directory.
    #[arg(long, value_name = "DIR", value_parser = path_flag)]
    #[serde(deserialize_with = "some_path")]
    #[schemars(extend("minLength" = 1))]
    project: Option<PathBuf>,
    /// The user's home directory (user-level settings). Default: $HOME.
    #[arg(long, value_name = "DIR", value_parser = path_flag)]
    #[serde(deserialize_with = "some_path")]
    #[schemars(extend("minLength" = 1))]
    home: Option<PathBuf>,
    /// An explicit poolside settings file, the most specific level.
    #[arg(long, value_name = "FILE", value_parser = path_flag)]
    #[serde(deserialize_with = "some_path")]
    #[schemars(extend("minLength" = 1))]
    settings: Option<PathBuf>,
    /// An evener plugin directory (repeatable, in run order).
    #[arg(long = "plugin-dir", value_name = "DIR", value_parser = path_flag)]
    #[serde(deserialize_with = "path_list")]
    #[schemars(extend("items" = {"type": "string", "minLength": 1}))]
    plugin_dirs: Vec<PathBuf>,
    /// The OpenAI-compatible base URL for evener prompt handlers.
    /// Default: $LATCH_PROMPT_BASE_URL, else $OPENAI_BASE_URL. The API key
    /// is read from $LATCH_PROMPT_API_KEY, else $OPENAI_API_KEY.
    #[arg(long, value_name = "URL", value_parser = prompt_url)]
    #[schemars(extend("pattern" = "^https?://[^/]"))]
    prompt_base_url: Option<String>,
    /// The model for evener prompt handlers that name none.
    /// Default: $LATCH_PROMPT_MODEL.
    #[arg(long, value_name = "MODEL", value_parser = not_empty)]
    #[schemars(extend("minLength" = 1))]
    prompt_model: Option<String>,
    /// Claude Code's `--settings` for the claude dialect: a settings file,
    /// or JSON text starting with `{`.
    #[arg(long, value_name = "FILE|JSON", value_parser = not_empty)]
    #[schemars(extend("minLength" = 1))]
    claude_settings: Option<String>,
    /// The managed settings directory for the claude dialect.
    /// Default: /etc/claude-code.
    #[arg(long, value_name = "DIR", value_parser = path_flag)]
    #[serde(deserialize_with = "some_path")]
    #[schemars(extend("minLength" = 1))]
    claude_managed_dir: Option<PathBuf>,
    /// A tool vocabulary file: how the harness's tools map to Claude Code's
    /// names and argument shapes (added to the claude dialect's built-in
    /// table, or replacing it with `replace: true`; the evener dialect
    /// takes its names).
    #[arg(long, value_name = "FILE", value_parser = path_flag)]
    #[serde(deserialize_with = "some_path")]
    #[schemars(extend("minLength" = 1))]
    tool_vocabulary: Option<PathBuf>,
    /// Leave hook command lines out of the claude dialect's texts for the
    /// model (Claude Code quotes them).
    #[arg(long)]
    claude_hide_commands: bool,
    /// Peen's configuration directory (the trusted layer).
    /// Default: $PEEN_CONFIG_DIR.
    #[arg(long, value_name = "DIR", value_parser = path_flag)]
    #[serde(deserialize_with = "some_path")]
    #[schemars(extend("minLength" = 1))]
    peen_config_dir: Option<PathBuf>,
    /// The trust policy for hooks whose source needs the user's approval
    /// (project files, plugins inside the project): `off`, `warn` or
    /// `require` for every dialect, or `DIALECT=POLICY` for one
    /// (repeatable; a later value wins). Default: off, as every dialect's
    /// own product runs such hooks without asking. See docs/trust.md.
    #[arg(long = "trust", value_name = "POLICY", value_parser = trust_spec)]
    #[schemars(extend("items" = {"type": "string", "pattern": "^((poolside|peen|evener|claude)=)?(off|warn|require)$"}))]
    trust: Vec<String>,
    /// What the session's audit log records of each hook run: `off`,
    /// `runs` (the facts, never what a hook printed) or `full` (also each
    /// hook's message and the texts it contributed). Default: runs. See
    /// docs/audit.md.
    #[arg(long, value_name = "MODE", value_parser = audit_mode)]
    #[schemars(extend("enum" = ["off", "runs", "full", null]))]
    audit: Option<String>,
    /// Where per-session state lives (`latch serve`'s `initialize`; `latch
    /// fire` has its own `--state-dir`). Default: $LATCH_STATE_DIR, else
    /// $XDG_STATE_HOME/latch, else ~/.local/state/latch.
    #[arg(skip)]
    #[serde(deserialize_with = "some_path")]
    #[schemars(extend("minLength" = 1))]
    pub state_dir: Option<PathBuf>,
    /// Set by `latch serve`: messages name `initialize`'s keys
    /// (`claude_settings`) rather than the command line's flags
    /// (`--claude-settings`).
    #[arg(skip)]
    #[serde(skip)]
    pub(crate) named_as_keys: bool,
}

impl ConfigArgs {
    /// How a message names the setting of `flag` (`--plugin-dir`): so, or
    /// as `initialize`'s key (`plugin_dirs`) for `latch serve`.
    fn named(&self, flag: &str) -> String {
        if !self.named_as_keys {
            return flag.to_owned();
        }
        let key = match flag {
            "--dialect" => "dialects",
            "--plugin-dir" => "plugin_dirs",
            other => other.trim_start_matches('-'),
        };
        format!("`{}`", key.replace('-', "_"))
    }

    /// Whether any dialect's hooks are held to a trust policy.
    pub fn uses_trust(&self) -> bool {
        Policies::parse(&self.trust).is_ok_and(|p| !p.all_off())
    }

    /// Checks the values the command line checks as it parses them
    /// (`--audit`, `--trust`), for a configuration read from JSON (`latch
    /// serve`'s `initialize`): the key and why, if one is wrong.
    pub fn check_values(&self) -> Result<(), String> {
        if let Some(mode) = &self.audit {
            audit_mode(mode).map_err(|e| format!("`audit`: {e}"))?;
        }
        if let Some(url) = &self.prompt_base_url {
            prompt_url(url).map_err(|e| format!("`prompt_base_url`: {e}"))?;
        }
        for (key, value) in [
            ("prompt_model", &self.prompt_model),
            ("claude_settings", &self.claude_settings),
        ] {
            if let Some(v) = value {
                not_empty(v).map_err(|e| format!("`{key}`: {e}"))?;
            }
        }
        for spec in &self.trust {
            trust_spec(spec).map_err(|e| format!("`trust`: {e}"))?;
        }
        Ok(())
    }

    /// The flags given that change only how hooks run or what is recorded
    /// of their runs, for a command that runs no hook (`explain`, `trust`)
    /// to say they have no effect; `trust_counts`: whether the command
    /// applies `--trust` (`explain` does).
    pub fn run_only_flags(&self, trust_counts: bool) -> Vec<&'static str> {
        [
            ("--audit", self.audit.is_some()),
            ("--claude-hide-commands", self.claude_hide_commands),
            ("--prompt-base-url", self.prompt_base_url.is_some()),
            ("--prompt-model", self.prompt_model.is_some()),
            ("--trust", !trust_counts && !self.trust.is_empty()),
        ]
        .into_iter()
        .filter_map(|(flag, given)| given.then_some(flag))
        .collect()
    }

    /// The project's directory: the one given (absolute since it was
    /// read, see [`checked_path`]), else the current directory.
    pub fn project_dir(&self) -> Option<PathBuf> {
        self.project
            .clone()
            .or_else(|| std::env::current_dir().ok())
    }

    /// The files and directories whose changes can change what this
    /// configuration loads for an event in `cwd`: each dialect's
    /// configuration files and directories, the plugins, the named files
    /// (existing or not; `latch serve` watches them). `~/.claude` stands
    /// only for its settings file: the rest of it is Claude Code's own
    /// data.
    pub fn watch_roots(&self, cwd: Option<&std::path::Path>) -> Vec<PathBuf> {
        let project = self.project_dir();
        let home = self.home.clone().or_else(|| env_path("HOME"));
        let mut roots = Vec::new();
        for base in [
            project.as_ref(),
            cwd.map(std::path::Path::to_path_buf).as_ref(),
        ]
        .into_iter()
        .flatten()
        {
            for dir in [".poolside", ".agents", ".claude"] {
                roots.push(base.join(dir));
            }
        }
        // The user's files (peen has no user layer: PEEN_CONFIG_DIR below).
        if let Some(home) = home {
            roots.push(crate::dialect::poolside::user_settings(&home));
            roots.push(home.join(".claude").join("settings.json"));
        }
        roots.extend(self.plugin_dirs.iter().cloned());
        roots.extend(self.settings.iter().cloned());
        roots.extend(self.tool_vocabulary.iter().cloned());
        roots.extend(
            self.peen_config_dir
                .clone()
                .or_else(|| env_path("PEEN_CONFIG_DIR")),
        );
        roots.push(
            self.claude_managed_dir
                .clone()
                .unwrap_or_else(|| PathBuf::from("/etc/claude-code")),
        );
        if let Some(s) = self
            .claude_settings
            .as_deref()
            .filter(|_| self.inline_claude_settings().is_none())
        {
            roots.push(PathBuf::from(s.trim_start()));
        }
        // Approvals change what runs under a trust policy.
        if !self.trust.is_empty()
            && let Some(root) = self.state_dir.clone().or_else(Session::default_state_root)
        {
            roots.push(root.join("trust").join("state.json"));
        }
        roots.sort();
        roots.dedup();
        roots
    }

    /// The `--claude-settings` value when it is JSON text rather than a
    /// file: a configuration source that has no file of its own.
    pub fn inline_claude_settings(&self) -> Option<&str> {
        self.claude_settings
            .as_deref()
            .filter(|s| s.trim_start().starts_with('{'))
    }

    /// Loads the dialects for `event`: those named with `--dialect`, else
    /// poolside, peen (its workspace is the event's `cwd`, else the
    /// project, so a directory change applies to the next event), and
    /// evener when plugin directories are given. Problems outside any file
    /// (bad `PEEN_*` values) go to `diags`; file problems are the engine's
    /// diagnostics.
    ///
    /// A dialect whose loader panics (a latch bug) is replaced by a
    /// [`FailedLoad`] that reports it and answers by that dialect's rule for
    /// a failure: poolside and evener fail open, peen denies where a failed
    /// action denies.
    pub fn engine(self, event: &Event, diags: &mut Vec<Diagnostic>) -> Engine {
        let gate = self.trust_gate(diags);
        let audit = match self.audit.as_deref().map(str::parse::<AuditMode>) {
            None => AuditMode::Runs,
            Some(Ok(mode)) => mode,
            Some(Err(e)) => {
                diags.push(Diagnostic::error(format!(
                    "{e}; the audit log records runs"
                )));
                AuditMode::Runs
            }
        };
        let engine = self.load_dialects(event, diags).with_audit(audit);
        match gate {
            Some(gate) => engine.with_trust(gate),
            None => engine,
        }
    }

    /// The trust gate the `--trust` policies ask for, reading the trust
    /// store of the state directory; `None` when every policy is `off`. A
    /// policy that does not parse (only through `latch serve`: the command
    /// line checks it) is reported and read as `require`, so nothing that
    /// needs approval runs unapproved.
    fn trust_gate(&self, diags: &mut Vec<Diagnostic>) -> Option<Gate> {
        let policies = Policies::parse(&self.trust).unwrap_or_else(|e| {
            diags.push(Diagnostic::error(format!(
                "{e}; hooks that need approval run only if approved"
            )));
            Policies::parse(&["require"]).unwrap_or_default()
        });
        if policies.all_off() {
            return None;
        }
        Some(
            match self.state_dir.clone().or_else(Session::default_state_root) {
                Some(root) => Gate::load(policies, &root),
                // Read by `latch fire` and `latch serve` alike.
                None => Gate::new(policies, Err(NO_STATE_DIRECTORY_ANYWHERE.to_owned())),
            },
        )
    }

    fn load_dialects(self, event: &Event, diags: &mut Vec<Diagnostic>) -> Engine {
        let wanted = |d: DialectName| {
            if self.dialects.is_empty() {
                match d {
                    DialectName::Poolside | DialectName::Peen => true,
                    DialectName::Evener => !self.plugin_dirs.is_empty(),
                    DialectName::Claude => false,
                }
            } else {
                self.dialects.contains(&d)
            }
        };
        let (load_poolside, load_peen, load_evener, load_claude) = (
            wanted(DialectName::Poolside),
            wanted(DialectName::Peen),
            wanted(DialectName::Evener),
            wanted(DialectName::Claude),
        );
        // A dialect's flag without the dialect loads nothing: say so, or
        // the user would think those hooks run. Only when the dialects are
        // the default ones: a harness that names its dialects may pass one
        // configuration (every directory pinned) to all its runs.
        let unused: [(&str, bool, bool, &str); 7] = [
            (
                "--claude-settings",
                self.claude_settings.is_some(),
                load_claude,
                "claude",
            ),
            (
                "--claude-managed-dir",
                self.claude_managed_dir.is_some(),
                load_claude,
                "claude",
            ),
            (
                "--claude-hide-commands",
                self.claude_hide_commands,
                load_claude,
                "claude",
            ),
            (
                "--tool-vocabulary",
                self.tool_vocabulary.is_some(),
                load_claude || load_evener,
                "claude or evener",
            ),
            (
                "--plugin-dir",
                !self.plugin_dirs.is_empty(),
                load_claude || load_evener,
                "claude or evener",
            ),
            (
                "--settings",
                self.settings.is_some(),
                load_poolside,
                "poolside",
            ),
            (
                "--peen-config-dir",
                self.peen_config_dir.is_some(),
                load_peen,
                "peen",
            ),
        ];
        for (flag, given, loaded, dialect) in unused {
            if given && !loaded && self.dialects.is_empty() {
                diags.push(Diagnostic::warning(format!(
                    "{} has no effect: the {dialect} dialect is not loaded (see {})",
                    self.named(flag),
                    self.named("--dialect")
                )));
            }
        }
        let project = self.project_dir();
        // Said, not silent: every event would run no project hook, as if
        // none were configured.
        if let Some(p) = self.project.as_ref().and(project.as_ref())
            && !p.is_dir()
        {
            diags.push(Diagnostic::warning(format!(
                "the project directory {} does not exist or is not a directory: no project hooks are loaded",
                p.display()
            )));
        }
        let home = self.home.or_else(|| env_path("HOME"));
        let sources = Sources {
            home,
            project: project.clone(),
            settings: self.settings,
        };
        let mut engine = Engine::new();
        if load_poolside {
            engine = with_loaded(
                engine,
                crate::dialect::poolside::DIALECT,
                || Poolside::load(&sources),
                Box::new(|_| false),
            );
        }
        if load_peen {
            let limits = peen::Limits::from_env(diags);
            let summarize = limits.summarize;
            let options = peen::Options {
                config_dir: self.peen_config_dir.or_else(|| env_path("PEEN_CONFIG_DIR")),
                workspace: event.workdir(project.as_deref()),
                limits,
            };
            engine = with_loaded(
                engine,
                peen::DIALECT,
                || Peen::load(options),
                Box::new(move |e| peen::failure_denies(e, summarize)),
            );
        }
        // The harness's own vocabulary file: the claude dialect adds it to
        // the built-in table, evener takes its tool names.
        let own_vocabulary = (load_evener || load_claude)
            .then(|| vocabulary_file(self.tool_vocabulary.as_deref(), diags))
            .flatten();
        let mut prompt_config = PromptConfig::from_env();
        prompt_config.base_url = self.prompt_base_url.clone().or(prompt_config.base_url);
        prompt_config.model = self.prompt_model.clone().or(prompt_config.model);
        if load_evener {
            let prompt = prompt_config.clone();
            let options = evener::Options {
                plugin_dirs: self.plugin_dirs.clone(),
                project: project.clone(),
                tool_names: match &own_vocabulary {
                    Some(v) => ToolNames::default().extended_by(v),
                    None => ToolNames::default(),
                },
                prompt,
            };
            engine = with_loaded(
                engine,
                evener::DIALECT,
                || Evener::load(options),
                Box::new(|_| false),
            );
        }
        if load_claude {
            let options = claude::Options {
                sources: claude::Sources {
                    home: sources.home.clone(),
                    project: project.clone(),
                    managed_dir: self.claude_managed_dir,
                    settings: self.claude_settings,
                    plugin_dirs: self.plugin_dirs.clone(),
                },
                project: project.clone(),
                vocabulary: match own_vocabulary {
                    Some(v) => v.over_builtin(),
                    None => crate::vocabulary::Vocabulary::builtin(),
                },
                prompt: prompt_config.clone(),
                texts: claude::text::Texts {
                    hide_commands: self.claude_hide_commands,
                },
                stop_block_cap: claude::Options::stop_block_cap_from_env(diags),
                safe_mode: claude::Options::safe_mode_from_env(),
                restrict_personal_config: claude::Options::restrict_personal_config_from_env(),
                personal_config_fix: claude::Options::personal_config_fix_from_env(),
            };
            engine = with_loaded(
                engine,
                claude::DIALECT,
                || Claude::load(options),
                Box::new(|_| false),
            );
        }
        engine
    }
}

/// Checks an `--audit` value.
fn audit_mode(s: &str) -> Result<String, String> {
    s.parse::<AuditMode>().map(|_| s.to_owned())
}

/// Checks one `--trust` value.
fn trust_spec(s: &str) -> Result<String, String> {
    Policies::parse(&[s]).map(|_| s.to_owned())
}

/// What a command that needs a state directory says when there is none:
/// no `--state-dir` and none of the variables
/// [`Session::default_state_root`] reads.
pub(crate) const NO_STATE_DIRECTORY: &str =
    "no state directory: set --state-dir, $LATCH_STATE_DIR, $XDG_STATE_HOME or $HOME";

/// [`NO_STATE_DIRECTORY`] where `latch serve` may say it too.
const NO_STATE_DIRECTORY_ANYWHERE: &str = "no state directory: set --state-dir (`state_dir` in `latch serve`'s `initialize`), $LATCH_STATE_DIR, $XDG_STATE_HOME or $HOME";

/// A path as latch keeps it: not empty (an empty path would read the
/// current directory, and a project's own files would load as the user's
/// or the managed ones, which need no approval), without a NUL byte, and
/// made absolute (a trust approval names the file it read, wherever latch
/// runs next).
pub(crate) fn checked_path(path: &std::path::Path) -> Result<PathBuf, String> {
    use std::os::unix::ffi::OsStrExt;
    if path.as_os_str().is_empty() {
        return Err("the path is empty: name a file or directory, or leave it out".into());
    }
    if path.as_os_str().as_bytes().contains(&0) {
        return Err("the path contains a NUL byte".into());
    }
    Ok(std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()))
}

/// Checks a path flag ([`checked_path`]).
pub(crate) fn path_flag(s: &str) -> Result<PathBuf, String> {
    checked_path(std::path::Path::new(s))
}

/// An optional path key of `initialize` ([`checked_path`]).
fn some_path<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<PathBuf>, D::Error> {
    use serde::{Deserialize, de::Error};
    Option::<PathBuf>::deserialize(d)?
        .map(|p| checked_path(&p).map_err(D::Error::custom))
        .transpose()
}

/// A list of paths of `initialize` ([`checked_path`]).
fn path_list<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<PathBuf>, D::Error> {
    use serde::{Deserialize, de::Error};
    Vec::<PathBuf>::deserialize(d)?
        .iter()
        .map(|p| checked_path(p).map_err(D::Error::custom))
        .collect()
}

/// Checks a value that must not be empty.
fn not_empty(s: &str) -> Result<String, String> {
    if s.is_empty() {
        return Err("the value is empty: give one, or leave it out".into());
    }
    Ok(s.to_owned())
}

/// Checks `--prompt-base-url`: an `http` or `https` URL. Anything else
/// would fail every prompt hook at its first request, and a prompt hook
/// that fails lets the call through.
fn prompt_url(s: &str) -> Result<String, String> {
    let rest = s
        .strip_prefix("https://")
        .or_else(|| s.strip_prefix("http://"));
    match rest {
        Some(host) if !host.is_empty() && !host.starts_with('/') => Ok(s.to_owned()),
        _ => Err(format!(
            "`{s}` is not an http:// or https:// URL with a host"
        )),
    }
}

/// The harness's tool vocabulary file, when given; its problems go to
/// `diags`.
fn vocabulary_file(
    file: Option<&std::path::Path>,
    diags: &mut Vec<Diagnostic>,
) -> Option<crate::vocabulary::Vocabulary> {
    let file = file?;
    match crate::config::read_bounded_text(file, crate::config::MAX_CONFIG_FILE) {
        Ok(text) => {
            let (v, d) = crate::vocabulary::Vocabulary::from_text(&text, file);
            diags.extend(d);
            Some(v)
        }
        Err(e) => {
            diags.push(
                Diagnostic::error(format!("cannot read the tool vocabulary: {e}")).in_file(file),
            );
            None
        }
    }
}

/// Adds the dialect `load` returns, or, if it panics, a [`FailedLoad`]
/// for `name` that denies by `denies`.
fn with_loaded<D: Dialect + 'static>(
    engine: Engine,
    name: &'static str,
    load: impl FnOnce() -> D,
    denies: DenyRule,
) -> Engine {
    // What the load looked at before it panicked is what a fix changes.
    match crate::config::files::looking(|| crate::panic::catch(load)) {
        (Ok(d), _) => engine.with_dialect(d),
        (Err(m), looked) => engine
            .with_dialect(FailedLoad::new(name, &m, denies).watching(looked.into_iter().collect())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The schema's pattern for `trust` spells the dialect names out (an
    /// attribute takes a literal): it must name the ones the policy
    /// parser takes, no more and no fewer.
    #[test]
    fn the_trust_pattern_names_every_dialect() {
        let schema = serde_json::to_value(schemars::schema_for!(ConfigArgs)).unwrap_or_default();
        let pattern = schema["properties"]["trust"]["items"]["pattern"]
            .as_str()
            .unwrap_or_default();
        let names = format!("^(({})=)?", crate::dialect::NAMES.join("|"));
        assert!(pattern.starts_with(&names), "{pattern} against {names}");
    }
}
