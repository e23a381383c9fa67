//! `latch lint`'s library side: find every hook configuration under some
//! paths, load each with its dialect, and add the checks for mistakes that
//! load fine but do not do what their author meant.
//!
//! The dialect-specific rules live in each dialect's `lint` module;
//! `discover` finds the configurations, and this module loads each one
//! and holds the checks every dialect shares.

mod discover;
mod json_keys;
pub mod render;
pub mod shell;

pub use discover::{Dialects, Target, discover_reporting};

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::diag::{Diagnostic, Position, Severity};
use crate::dialect::Dialect;
use crate::dialect::claude::{self, Claude};
use crate::dialect::evener::{self, Evener};
use crate::dialect::peen::{self, Peen};
use crate::dialect::poolside::{Poolside, Sources};

/// The user's own levels, which project configurations are checked
/// against: the findings that depend on another level or layer (the
/// poolside Stop cap, peen groups declared twice) then see the
/// combination `latch fire` would load.
#[derive(Debug, Clone, Default)]
pub struct UserLevels {
    /// The home directory holding `.config/poolside/settings.yaml`.
    pub poolside_home: Option<PathBuf>,
    /// `PEEN_CONFIG_DIR`, the peen configuration layer.
    pub peen_config_dir: Option<PathBuf>,
    /// The harness's tools (`latch lint --tool-vocabulary FILE`): claude
    /// matchers naming a Claude Code tool none of them maps to are
    /// reported.
    pub harness_tools: Option<crate::vocabulary::Vocabulary>,
}

impl UserLevels {
    /// The user's poolside settings file, when there is one.
    fn poolside_file(&self) -> Option<PathBuf> {
        self.poolside_home
            .as_ref()
            .map(|h| crate::dialect::poolside::user_settings(h))
            .filter(|f| f.is_file())
    }

    /// The peen configuration layer's hooks file, when there is one.
    fn peen_file(&self) -> Option<PathBuf> {
        self.peen_config_dir
            .as_ref()
            .map(|d| d.join(peen::HOOKS_FILE))
            .filter(|f| f.is_file())
    }
}

/// Lints each target, loading each poolside project with the user's
/// poolside level and each peen layer other than the configuration layer
/// itself together with it. Diagnostics about the user's own files are left to
/// the target that is that file, so nothing is reported twice.
pub fn lint_with(targets: &[Target], user: &UserLevels) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let poolside_user = user.poolside_file();
    let peen_user = user.peen_file();
    for t in targets {
        match t {
            Target::PoolsideProject(dir) => {
                let home = poolside_user.as_ref().and(user.poolside_home.clone());
                let p = Poolside::load(&Sources {
                    home,
                    project: Some(dir.clone()),
                    ..Sources::default()
                });
                let mut found = p.diagnostics().to_vec();
                found.extend(p.lint());
                out.extend(own(found, poolside_user.as_ref()));
            }
            Target::PoolsideFile(file) => {
                let p = Poolside::load(&Sources {
                    settings: Some(file.clone()),
                    project: file.parent().and_then(Path::parent).map(Path::to_path_buf),
                    ..Sources::default()
                });
                out.extend(p.diagnostics().iter().cloned());
                out.extend(p.lint());
            }
            Target::PeenLayer(dir) => {
                let is_config_layer = peen_user.as_ref() == Some(&dir.join(peen::HOOKS_FILE));
                let config_dir = if is_config_layer {
                    None
                } else {
                    peen_user.as_ref().and(user.peen_config_dir.clone())
                };
                let p = Peen::load(peen::Options {
                    config_dir,
                    workspace: Some(dir.clone()),
                    ..peen::Options::default()
                });
                let mut found = p.diagnostics().to_vec();
                found.extend(p.lint());
                let added = if is_config_layer {
                    None
                } else {
                    peen_user.as_ref()
                };
                out.extend(own(found, added));
            }
            Target::EvenerPlugin(dir) => {
                let e = Evener::load(evener::Options {
                    plugin_dirs: vec![dir.clone()],
                    project: Some(dir.clone()),
                    ..evener::Options::default()
                });
                out.extend(e.diagnostics().iter().cloned());
                out.extend(e.lint());
                out.extend(json_keys::duplicate_keys(
                    &e.config_paths(),
                    evener::DIALECT,
                ));
            }
            Target::ClaudeProject(dir) => {
                let sources = claude::Sources {
                    project: Some(dir.clone()),
                    // Only the project's own files are checked here.
                    managed_dir: Some(dir.join(".claude/no-managed-settings")),
                    ..claude::Sources::default()
                };
                out.extend(lint_claude(sources, Some(dir), user));
            }
            Target::ClaudePlugin(dir) => {
                let sources = claude::Sources {
                    plugin_dirs: vec![dir.clone()],
                    managed_dir: Some(dir.join(NO_MANAGED)),
                    ..claude::Sources::default()
                };
                out.extend(lint_claude(sources, Some(dir), user));
            }
            Target::ClaudeSettings(file) => {
                let Some(text) = file.to_str() else {
                    out.push(
                        Diagnostic::error(
                            "latch reads a Claude Code settings file only at a UTF-8 path",
                        )
                        .in_file(file)
                        .for_dialect(claude::DIALECT),
                    );
                    continue;
                };
                // A path that reads as JSON text is not taken for it.
                let settings = if text.trim_start().starts_with('{') {
                    format!("./{text}")
                } else {
                    text.to_owned()
                };
                let dir = file.parent().unwrap_or(Path::new("."));
                let sources = claude::Sources {
                    settings: Some(settings),
                    managed_dir: Some(dir.join(NO_MANAGED)),
                    ..claude::Sources::default()
                };
                let c = load_claude(sources, None);
                let found = claude_findings(&c, user);
                // Any JSON file given is taken for settings: one without a
                // hook (`package.json`) says so rather than pass in silence.
                if found.is_empty() && c.files().iter().all(|f| f.groups.is_empty()) {
                    out.push(
                        Diagnostic::new(
                            Severity::Info,
                            "no hooks here: read as a Claude Code settings file, it declares no hook",
                        )
                        .in_file(file)
                        .for_dialect(claude::DIALECT),
                    );
                }
                out.extend(found);
            }
            Target::ClaudeManaged(dir) => {
                let sources = claude::Sources {
                    managed_dir: Some(dir.clone()),
                    ..claude::Sources::default()
                };
                out.extend(lint_claude(sources, None, user));
            }
        }
    }
    out
}

/// A managed settings directory that is not there, for the claude
/// targets that are not managed settings (the default would read
/// `/etc/claude-code`).
const NO_MANAGED: &str = ".latch-no-managed-settings";

/// The claude dialect's findings for the files of `sources` alone.
fn lint_claude(
    sources: claude::Sources,
    project: Option<&PathBuf>,
    user: &UserLevels,
) -> Vec<Diagnostic> {
    claude_findings(&load_claude(sources, project), user)
}

/// The claude dialect with the files of `sources` alone.
fn load_claude(sources: claude::Sources, project: Option<&PathBuf>) -> Claude {
    Claude::load(claude::Options {
        sources,
        project: project.cloned(),
        ..claude::Options::default()
    })
}

/// A loaded claude configuration's findings: load diagnostics, the claude
/// lint rules, duplicate JSON keys, and with a tool vocabulary, matchers
/// naming tools the harness never calls.
fn claude_findings(c: &Claude, user: &UserLevels) -> Vec<Diagnostic> {
    let mut out = c.diagnostics().to_vec();
    out.extend(c.lint());
    out.extend(json_keys::duplicate_keys(
        &c.config_paths(),
        claude::DIALECT,
    ));
    if let Some(v) = &user.harness_tools {
        out.extend(c.lint_tools(v));
    }
    out
}

/// Drops the diagnostics about `added`, a user level loaded only so that
/// a project is seen with it.
fn own(diags: Vec<Diagnostic>, added: Option<&PathBuf>) -> Vec<Diagnostic> {
    match added {
        None => diags,
        Some(file) => diags
            .into_iter()
            .filter(|d| d.file.as_ref() != Some(file))
            .collect(),
    }
}

// ---- checks shared by the dialects ----

/// Variables hook commands often read that no engine sets: the hook's
/// input arrives as JSON on stdin, not in the environment.
pub const INVENTED_VARIABLES: [&str; 13] = [
    "TOOL_ARGS",
    "TOOL_INPUT",
    "TOOL_NAME",
    "TOOL_OUTPUT",
    "TOOL_RESULT",
    "TOOL_RESPONSE",
    "TOOL_USE_ID",
    "FILE_PATH",
    "FILE_PATHS",
    "HOOK_EVENT",
    "HOOK_EVENT_NAME",
    "HOOK_INPUT",
    "USER_PROMPT",
];

/// A script an interpreter in `command` runs that is not a regular file:
/// (the path as written, where it resolves, what is wrong). `vars` are the
/// variables the dialect expands or sets to known directories; a relative
/// path resolves against `base`, the directory the hook runs in (not after
/// a `cd`). Only looks at the file's type: never opens or runs it.
pub fn missing_scripts(
    command: &str,
    vars: &[(&str, &Path)],
    base: Option<&Path>,
) -> Vec<(String, PathBuf, String)> {
    let mut out = Vec::new();
    for c in shell::simple_commands(command) {
        for written in shell::interpreter_scripts(&c.words) {
            let resolved = shell::expand(written, vars).and_then(|p| {
                if p.is_absolute() {
                    Some(p)
                } else if c.after_cd {
                    None
                } else {
                    base.map(|b| crate::config::normalize(&b.join(&p)))
                }
            });
            if let Some(path) = resolved
                && let Some(problem) = shell::script_problem(&path)
            {
                out.push((written.to_owned(), path, problem));
            }
        }
    }
    out
}

/// The variables `command` reads that the engine does not set, each with
/// its severity and message: a warning for one no engine sets (the hook
/// input is JSON on stdin: `$TOOL_ARGS`, `$CLAUDE_TOOL_INPUT`, …), a note
/// for one only Claude Code sets. `sets`
/// are the dialect's own; `claude_only` those Claude Code sets and the
/// dialect does not.
pub fn unset_variables(
    command: &str,
    dialect: &str,
    sets: &[&str],
    claude_only: &[&str],
) -> Vec<(Severity, String)> {
    let mut out = Vec::new();
    for (name, _) in shell::variables_read(command) {
        let n = name.as_str();
        // `CLAUDE_CODE_*` are the user's own knobs.
        if sets.contains(&n) || n.starts_with("CLAUDE_CODE_") && !claude_only.contains(&n) {
            continue;
        }
        if claude_only.contains(&n) || n.starts_with("CLAUDE_PLUGIN_OPTION_") {
            out.push((
                Severity::Info,
                format!("the command reads `${n}`, which Claude Code sets but {dialect} does not; it is empty under latch"),
            ));
        } else if n.starts_with("CLAUDE_") || INVENTED_VARIABLES.contains(&n) {
            out.push((
                Severity::Warning,
                format!(
                    "the command reads `${n}`, which {dialect} does not set: it is always empty"
                ),
            ));
        }
    }
    out
}

/// The largest hook script lint reads to check what it does; a larger one
/// (or anything but a regular file) is not read.
pub const MAX_SCRIPT_FILE: u64 = 1024 * 1024;

/// The warning for a command whose text (or an argument) has a NUL
/// character, which no program's arguments or command line can hold: the
/// hook fails every time it runs, and a deny it would give never comes.
pub fn nul_in_command<'a>(mut texts: impl Iterator<Item = &'a str>) -> Option<String> {
    texts.any(|t| t.contains('\0')).then(|| {
        "the command contains a NUL character, which no program's arguments can hold: the hook fails every time it runs, and a deny it would give never comes".to_owned()
    })
}

/// A timeout under a millisecond, which every dialect accepts as positive
/// but which no hook outlives: it is killed every time, and a deny it
/// would give never comes.
pub fn tiny_timeout(secs: f64) -> Option<String> {
    (secs > 0.0 && secs < 0.001).then(|| {
        format!(
            "a `timeout` of {secs} s is under a millisecond: the hook is killed before it can start, every time"
        )
    })
}

/// A timeout in seconds that is probably milliseconds (`timeout: 5000`),
/// or one under a millisecond ([`tiny_timeout`]): for the dialects whose
/// timeouts are bare numbers of seconds.
pub fn millis_timeout(secs: f64) -> Option<String> {
    if let Some(tiny) = tiny_timeout(secs) {
        return Some(tiny);
    }
    (secs >= 1000.0).then(|| {
        format!(
            "`timeout` is in seconds: {secs} s is {}; did you mean {} s?",
            human(secs),
            secs / 1000.0
        )
    })
}

fn human(secs: f64) -> String {
    if secs >= 3600.0 {
        format!("{:.1} hours", secs / 3600.0)
    } else {
        format!("{:.1} minutes", secs / 60.0)
    }
}

/// Problems with a command's program: it does not exist, is not
/// executable, or is a relative path that depends on the working
/// directory. `base` is the directory the hook runs in; `what` names it.
pub fn check_program(
    program: &str,
    base: Option<&Path>,
    what: &str,
) -> Vec<(Severity, String, Option<String>)> {
    let mut out = Vec::new();
    if program.is_empty() || program.contains('$') {
        // Shell variables: cannot be resolved statically.
        return out;
    }
    let path = Path::new(program);
    let resolved = if path.is_absolute() {
        Some(path.to_path_buf())
    } else if program.contains('/') {
        out.push((
            Severity::Warning,
            format!("the command path `{program}` is relative: it depends on the working directory ({what})"),
            Some("use an absolute path".to_owned()),
        ));
        base.map(|b| crate::config::normalize(&b.join(path)))
    } else {
        // A bare name is looked up on PATH.
        match std::env::var_os("PATH") {
            Some(paths) => std::env::split_paths(&paths)
                .map(|d| d.join(program))
                .find(|p| p.is_file())
                .or_else(|| {
                    out.push((
                        Severity::Warning,
                        format!("the command `{program}` is not on PATH"),
                        None,
                    ));
                    None
                }),
            None => None,
        }
    };
    if let Some(p) = resolved {
        match std::fs::metadata(&p) {
            Err(_) if program.contains('/') => out.push((
                Severity::Warning,
                format!("the command `{program}` does not exist ({})", p.display()),
                None,
            )),
            Ok(m) if m.is_file() && m.permissions().mode() & 0o111 == 0 => out.push((
                Severity::Warning,
                format!("the command `{program}` is not executable"),
                Some(format!("chmod +x {}", p.display())),
            )),
            _ => {}
        }
    }
    out
}

/// The program of a shell command line: its first word, without quotes
/// (`"${ROOT}"/bin/x` is `${ROOT}/bin/x`) and without `VAR=value`
/// prefixes; `None` when the line starts with shell syntax that hides it.
pub fn shell_program(command: &str) -> Option<String> {
    let first = shell::simple_commands(command)
        .into_iter()
        .next()?
        .words
        .into_iter()
        .next()?;
    // Shell syntax, and the shell's builtins that no PATH holds (`exit 2`
    // is a whole, common hook).
    let not_a_program = [
        "{", "!", "if", "for", "while", "case", "test", "[", "[[", "cd", "until", "function",
        "exit", "return", "export", "set", "unset", ".", ":", "eval", "exec", "shift", "trap",
        "readonly", "read", "wait", "umask", "ulimit", "command", "source", "local", "alias",
        "type", "break", "continue", "times", "getopts", "hash", "jobs",
    ];
    (!not_a_program.contains(&first.as_str())).then_some(first)
}

/// A lint diagnostic with its place.
pub fn finding(
    severity: Severity,
    message: String,
    dialect: &str,
    file: &Path,
    position: Option<Position>,
    hint: Option<String>,
) -> Diagnostic {
    let mut d = Diagnostic::new(severity, message)
        .in_file(file)
        .at(position)
        .for_dialect(dialect);
    d.hint = hint;
    d
}
