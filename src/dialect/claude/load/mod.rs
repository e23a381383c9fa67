//! Loading one Claude Code settings file (or a plugin's `hooks/hooks.json`)
//! into matcher groups and handlers.
//!
//! Claude Code validates a settings file as a whole: one invalid hook
//! entry (a handler without `command`, a `timeout` written as a string)
//! makes it ignore the **whole file**, silently (recorded: cases
//! `r2_timeout_string`, `r2_invalid_hook_entry`). latch drops the file the
//! same way, but never silently: each problem is an error diagnostic with
//! its line and column, and one more says that the file was dropped. An
//! unknown event name is tolerated (`r2_invalid_event_name`): a warning,
//! and the rest loads.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::config::yaml::{Node, Value};
use crate::diag::{Diagnostic, Position, SourceRef};
use crate::matcher::{ClaudeMatcher, PatternBudget, WordSet};
use crate::permission_rule::Rule;
use crate::text::closest;

use super::DIALECT;
use super::events::ClaudeEvent;
use super::{nesting, settings_schema};

#[cfg(test)]
mod agreement;
mod handler;
mod loader;
mod settings;
#[cfg(test)]
mod tests;

pub use handler::{COPY_SKIPPED, HANDLER_KEYS, Handler, HandlerKind, superseded};
use loader::Loader;

/// Where a configuration file comes from. The order is Claude Code's
/// precedence for single values, least specific first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    /// `~/.claude/settings.json`.
    User,
    /// `<project>/.claude/settings.json`.
    Project,
    /// `<project>/.claude/settings.local.json`.
    Local,
    /// The `--claude-settings` file or JSON text (Claude Code's `--settings`).
    Flag,
    /// Managed settings (`managed-settings.json` and `managed-settings.d/`).
    Managed,
    /// A plugin's hooks file.
    Plugin,
}

impl Scope {
    /// The label Claude Code shows for hooks of this scope.
    pub fn label(self) -> &'static str {
        match self {
            Scope::User => "User",
            Scope::Project => "Project",
            Scope::Local => "Local",
            Scope::Flag => "Flag",
            Scope::Managed => "Managed",
            Scope::Plugin => "Plugin",
        }
    }
}

/// The plugin a hooks file belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginInfo {
    /// The plugin's name.
    pub name: String,
    /// The plugin directory (`CLAUDE_PLUGIN_ROOT`).
    pub root: PathBuf,
    /// The plugin's data directory (`CLAUDE_PLUGIN_DATA`).
    pub data: PathBuf,
}

/// A handler's `if`: one Claude Code permission rule.
#[derive(Debug, Clone)]
pub struct Condition {
    /// The rule as written.
    pub text: String,
    /// The rule; `None` when its pattern is over latch's limits (a
    /// diagnostic; the handler then runs as if it had no `if`).
    pub rule: Option<Rule>,
}

/// A matcher as loaded.
#[derive(Debug, Clone)]
pub enum Matcher {
    /// A usable matcher.
    Valid(ClaudeMatcher),
    /// A pattern that does not compile: the group never runs.
    Invalid(String),
}

/// A matcher group: one matcher and its handlers.
#[derive(Debug, Clone)]
pub struct Group {
    /// The event, if latch fires it.
    pub event: Option<ClaudeEvent>,
    /// The event name as written.
    pub event_name: String,
    /// The matcher as written, if there is one.
    pub matcher_text: Option<String>,
    /// The compiled matcher.
    pub matcher: Matcher,
    /// The handlers, in order.
    pub handlers: Vec<Handler>,
    /// Where the group was declared.
    pub source: SourceRef,
}

/// One loaded settings or hooks file.
#[derive(Debug, Clone)]
pub struct LoadedFile {
    /// Where it comes from.
    pub scope: Scope,
    /// The file (for `--claude-settings` JSON text, a name for it).
    pub path: PathBuf,
    /// The plugin it belongs to.
    pub plugin: Option<PluginInfo>,
    /// Its matcher groups, in file order (none when the file was dropped).
    pub groups: Vec<Group>,
    /// Its `disableAllHooks`, if set, and where.
    pub disable_all_hooks: Option<bool>,
    /// Where `disableAllHooks` is written.
    pub disable_all_hooks_at: Option<Position>,
    /// Its `allowManagedHooksOnly`, if set (honoured in managed settings).
    pub allow_managed_hooks_only: Option<bool>,
    /// Claude Code would ignore the whole file (see the module docs).
    pub dropped: bool,
    /// Keys of Claude Code's that bear on hooks and that latch does not
    /// apply ([`UNAPPLIED_KEYS`]), where they are; `latch lint` names them.
    pub unapplied: Vec<(&'static str, Position)>,
    /// Its `env`: variables Claude Code sets for the session, so its hooks
    /// have them (recorded: `r5_settings_env_in_hooks`).
    pub env: Vec<(String, String)>,
    /// Where `env` is written.
    pub env_at: Option<Position>,
    /// The groups a `disableAllHooks` or `allowManagedHooksOnly` turned
    /// off (`groups` is then empty), kept for a trust gate that does not
    /// let an unapproved project file turn them off.
    pub switched_off: Vec<Group>,
}

/// Settings keys that change what Claude Code's hooks do or see, which
/// latch reads no further than to say so (`latch lint`, docs/dialects/claude.md).
pub const UNAPPLIED_KEYS: [&str; 4] = [
    "enabledPlugins",
    "allowedHttpHookUrls",
    "httpHookAllowedEnvVars",
    "strictPluginOnlyCustomization",
];

/// What Claude Code 2.1.332 does with a managed settings file that is not
/// a JSON object: it does not start (exit 1, `Managed settings document
/// could not be parsed as a JSON object; none of its settings are in
/// effect`; recorded: `r14k_m_badjson`, `m332_md_badjson_plus_good`).
const NO_START: &str = "Claude Code 2.1.332 does not start with a managed settings file that is not a JSON object; latch loads the other files";

/// Loads one file's text. `plugin` is set for a plugin's hooks file, whose
/// top level may wrap the events in `{"description", "hooks"}` too.
pub fn load_text(
    text: &str,
    path: &Path,
    scope: Scope,
    plugin: Option<PluginInfo>,
) -> (LoadedFile, Vec<Diagnostic>) {
    let mut file = LoadedFile {
        scope,
        path: path.to_path_buf(),
        plugin,
        groups: Vec::new(),
        disable_all_hooks: None,
        disable_all_hooks_at: None,
        allow_managed_hooks_only: None,
        dropped: false,
        unapplied: Vec::new(),
        env: Vec::new(),
        env_at: None,
        switched_off: Vec::new(),
    };
    let root = match crate::config::json::parse(text) {
        Ok(root) => root,
        Err(e) => {
            file.dropped = true;
            let d = Diagnostic::error(format!("invalid JSON: {}", e.message))
                .in_file(path)
                .at(e.position)
                .for_dialect(DIALECT)
                .with_hint(if scope == Scope::Managed {
                    NO_START
                } else {
                    "Claude Code ignores the whole file"
                });
            return (file, vec![d]);
        }
    };
    let mut l = Loader {
        path,
        scope,
        problems: Vec::new(),
        notes: Vec::new(),
        budget: PatternBudget::per_file(),
        hooks_dropped: false,
        lenient: false,
    };
    // A settings file is read through a copy cut at 64 levels (2.1.332).
    // (Not a plugin's hooks file, and not a file that is no object: that
    // is all Claude Code says of it.)
    let root = if scope == Scope::Plugin || root.as_map().is_none() {
        root
    } else {
        let (copy, cuts) = nesting::cut(root);
        for c in &cuts {
            // What only managed settings may set is removed first (`so`),
            // and not named (`We`).
            if scope != Scope::Managed && settings_schema::managed_only(&c.key) {
                continue;
            }
            if c.key == "hooks" && copy.get("hooks").is_some_and(|h| h.as_seq().is_some()) {
                l.problem(c.at, nesting::hooks_error(c));
            } else {
                l.note(
                    Diagnostic::warning(nesting::warning(c, scope != Scope::Managed))
                        .at(Some(c.at)),
                );
            }
        }
        copy
    };
    l.root(&root, &mut file);
    if scope != Scope::Plugin {
        l.settings_types(&root, &mut file);
    } else if l.problems.is_empty()
        && let Some(events) = plugin_events(&root)
    {
        // A plugin's hooks file has no other setting to check.
        l.hooks_by_event(events, &mut file);
    }
    let mut diags = l.notes;
    if !l.problems.is_empty() {
        file.dropped = true;
        file.groups.clear();
        // Left in managed settings: the document is not an object.
        let how = if scope == Scope::Managed {
            NO_START
        } else {
            "none of its hooks run"
        };
        let count = l.problems.len();
        let entries = if count == 1 { "entry" } else { "entries" };
        diags.push(
            Diagnostic::error(format!(
                "Claude Code ignores this whole file because of {count} invalid {entries}; {how}"
            ))
            .in_file(path)
            .at(Some(root.position))
            .for_dialect(DIALECT),
        );
        diags.extend(l.problems);
    }
    diags.sort_by_key(|d| d.position);
    (file, diags)
}

/// The events of a plugin's hooks file: its `hooks`, or the `hooks` inside
/// that when it wraps them once more (`{"description", "hooks": {...}}`
/// written under `hooks`).
fn plugin_events(root: &Node) -> Option<&Node> {
    let hooks = root.get("hooks")?;
    match hooks.get("hooks") {
        Some(inner) if hooks.get("PreToolUse").is_none() => Some(inner),
        _ => Some(hooks),
    }
}

/// A `PreModelSwitch`/`PostModelSwitch` matcher as Claude Code 2.1.332
/// tests it (`gIr`): each `[1m]` or `[2m]` (any case) before a `|`, a `,`
/// or the end, spaces allowed between, removed, unless nothing but spaces
/// would be left. Its target, the model's name, loses `[1m]` too.
pub fn model_matcher(matcher: &str) -> String {
    static SUFFIX: std::sync::LazyLock<Option<regex::Regex>> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"(?i)\[[12]m\](\s*(?:[|,]|$))").ok());
    let Some(re) = SUFFIX.as_ref() else {
        return matcher.to_owned();
    };
    let stripped = re.replace_all(matcher, "$1");
    if stripped.trim().is_empty() {
        matcher.to_owned()
    } else {
        stripped.into_owned()
    }
}

/// Whether a wrong entry under `event` drops the whole file (Claude Code
/// 2.1.332, `Tr`/`N4s`): under the events whose hooks guard what runs
/// (`PreToolUse`, `PermissionRequest`, `PreSkillShellCommand`) it does,
/// `env` and all, so a typo
/// never leaves a guard out unnoticed; under any other event only that
/// entry (or matcher group, or the event's list) is dropped (recorded:
/// `r2_invalid_hook_entry`, `r13_settings_event_object`,
/// `drift_guard_event_object_env`). In managed settings the same wrong
/// entry under a guard event drops the file's `hooks` only, its other
/// settings applying (recorded with 2.1.332: `r14k_m_badhook_other_event`,
/// `m332_badhook_permreq`, `m332_badhook_skillshell`).
pub fn guards(event: Option<ClaudeEvent>) -> bool {
    matches!(
        event,
        Some(
            ClaudeEvent::PreToolUse
                | ClaudeEvent::PermissionRequest
                | ClaudeEvent::PreSkillShellCommand
        )
    )
}
