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

/// What a handler does.
#[derive(Debug, Clone, PartialEq)]
pub enum HandlerKind {
    /// Run a process: through `/bin/sh -c` (shell form) or, with `args`,
    /// directly (exec form).
    Command {
        /// The command line (shell form) or the program (exec form).
        command: String,
        /// The arguments, in exec form.
        args: Option<Vec<String>>,
        /// The `shell` field (`bash` or `powershell`), as written.
        shell: Option<String>,
    },
    /// POST the payload to a URL.
    Http {
        /// The URL.
        url: String,
        /// Extra headers; `$VAR` and `${VAR}` expand from `allowed_env_vars`.
        headers: Vec<(String, String)>,
        /// The variables headers may expand.
        allowed_env_vars: Vec<String>,
    },
    /// Ask a model.
    Prompt {
        /// The prompt, with `$ARGUMENTS`.
        prompt: String,
        /// The model override.
        model: Option<String>,
    },
    /// Run a sub-agent (the harness must provide it).
    Agent {
        /// The agent's prompt.
        prompt: String,
    },
    /// Call an MCP tool (the harness must provide it).
    McpTool {
        /// The MCP server.
        server: String,
        /// The tool.
        tool: String,
        /// The tool's arguments, with `${path}` placeholders into the
        /// payload (`${tool_input.file_path}`); `{}` when absent.
        input: serde_json::Value,
    },
}

impl HandlerKind {
    /// The `type` as written.
    pub fn type_name(&self) -> &'static str {
        match self {
            HandlerKind::Command { .. } => "command",
            HandlerKind::Http { .. } => "http",
            HandlerKind::Prompt { .. } => "prompt",
            HandlerKind::Agent { .. } => "agent",
            HandlerKind::McpTool { .. } => "mcp_tool",
        }
    }

    /// The text Claude Code shows between brackets in its messages: the
    /// command line (exec form: the program and arguments joined by single
    /// spaces, unquoted, as recorded in `r2_exec_args_exit2`), the prompt,
    /// the URL, or the MCP tool.
    pub fn shown(&self) -> String {
        match self {
            HandlerKind::Command {
                command,
                args: Some(args),
                ..
            } if !args.is_empty() => format!("{command} {}", args.join(" ")),
            HandlerKind::Command { command, .. } => command.clone(),
            HandlerKind::Http { url, .. } => url.clone(),
            HandlerKind::Prompt { prompt, .. } | HandlerKind::Agent { prompt } => prompt.clone(),
            // Claude Code's `ZD`: `server/tool`.
            HandlerKind::McpTool { server, tool, .. } => format!("{server}/{tool}"),
        }
    }
}

impl Handler {
    /// Where `key` is written in this handler, if it is.
    pub fn key_position(&self, key: &str) -> Option<Position> {
        self.key_at
            .iter()
            .rfind(|(k, _)| k == key)
            .map(|(_, at)| *at)
    }

    /// Whether `other` is a copy of this handler (see [`Handler::identity`]).
    pub fn same_hook(&self, other: &Handler) -> bool {
        self.identity() == other.identity()
    }

    /// Whether `other` is written as this handler is, as far as latch
    /// reads a handler: a copy with the same `timeout`, `async`,
    /// `asyncRewake`, `onFailure` and `statusMessage` (Claude Code's deep
    /// equality of the two objects, `isDeepStrictEqual`).
    pub fn written_alike(&self, other: &Handler) -> bool {
        self.same_hook(other)
            && self.timeout == other.timeout
            && self.run_async == other.run_async
            && self.async_rewake == other.async_rewake
            && self.on_failure_blocks == other.on_failure_blocks
            && self.status_message == other.status_message
    }

    /// What makes two handlers copies of one, which Claude Code runs once
    /// per event (recorded: `i2`, `r4_dedup_identity`): the type, the `if`
    /// (none and `""` alike) and, for a command, its `command` text as
    /// written (an exec-form handler's program, not its joined command
    /// line), its `args` and its `shell` (none counts as `bash`, as on
    /// Linux); `async` and `asyncRewake` do not count. Other handlers: the
    /// URL, the prompt, or the MCP server, tool and input. (The `shell`,
    /// `args` and non-command keys are read from Claude Code's 2.1.197
    /// code; the recordings cover `if`, `async` and `shell: "bash"`.)
    fn identity(&self) -> Identity<'_> {
        let condition = self
            .condition
            .as_ref()
            .map(|c| c.text.as_str())
            .filter(|t| !t.is_empty());
        match &self.kind {
            HandlerKind::Command {
                command,
                args,
                shell,
            } => Identity {
                kind: "command",
                text: std::borrow::Cow::Borrowed(command),
                args: args.as_deref(),
                shell: shell.as_deref().unwrap_or("bash"),
                condition,
            },
            HandlerKind::McpTool {
                server,
                tool,
                input,
            } => Identity {
                kind: "mcp_tool",
                text: std::borrow::Cow::Owned(format!("{server}\0{tool}\0{input}")),
                args: None,
                shell: "",
                condition,
            },
            kind => Identity {
                kind: kind.type_name(),
                text: std::borrow::Cow::Owned(kind.shown()),
                args: None,
                shell: "",
                condition,
            },
        }
    }
}

/// Which of `handlers`, in configuration order and each with its
/// plugin's root (`None`: a settings file), a later copy replaces: Claude
/// Code runs only the last copy, with its own settings (recorded:
/// `r4_dedup_async_first`, `r4_dedup_sync_first`), and a plugin's copy
/// counts apart from a settings file's (`r2_plugin`).
pub fn superseded<'a>(handlers: &[(Option<&'a Path>, &'a Handler)]) -> Vec<bool> {
    let keys: Vec<(Option<&Path>, Identity<'_>)> = handlers
        .iter()
        .map(|&(plugin, handler)| (plugin, handler.identity()))
        .collect();
    later_copies(&keys)
}

/// For each key, whether an equal one follows it.
fn later_copies<K: Eq + std::hash::Hash>(keys: &[K]) -> Vec<bool> {
    // A handful (the usual case, a hook or a few per event): comparing
    // each with the later ones beats hashing them all.
    if keys.len() <= 16 {
        return keys
            .iter()
            .enumerate()
            .map(|(i, key)| keys[i + 1..].contains(key))
            .collect();
    }
    let last: std::collections::HashMap<&K, usize> =
        keys.iter().enumerate().map(|(i, key)| (key, i)).collect();
    keys.iter()
        .enumerate()
        .map(|(i, key)| last.get(key) != Some(&i))
        .collect()
}

/// The message of a handler skipped as a copy of a later one.
pub const COPY_SKIPPED: &str =
    "a later handler of this event is a copy of it; Claude Code runs only the last copy";

/// What tells a handler from its copies (see [`Handler::identity`]),
/// borrowed from the handler: comparing copies costs no allocation for
/// command handlers.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Identity<'a> {
    kind: &'static str,
    text: std::borrow::Cow<'a, str>,
    args: Option<&'a [String]>,
    shell: &'a str,
    condition: Option<&'a str>,
}

/// A handler's `timeout` as Claude Code runs it: any positive number of
/// seconds loads; Node's timer fires after 1 ms for a delay under that,
/// and Claude Code 2.1.332 caps a longer one at 2,147,483,647 ms (recorded:
/// `r4_timeout_huge`, `timeout: 1e18` runs the hook to its end; 2.1.197
/// timed it out at once). The flag says the timeout was changed so.
fn node_timeout(t: &Node) -> Result<(Duration, Option<Adjusted>), String> {
    let secs = match t.value {
        Value::Int(i) => i as f64,
        Value::Float(f) => f,
        _ => return Err(t.kind().to_owned()),
    };
    if !(secs > 0.0 && secs.is_finite()) {
        return Err(t.scalar_text());
    }
    let ms = secs * 1000.0;
    Ok(if ms < 1.0 {
        (Duration::from_millis(1), Some(Adjusted::Raised))
    } else if ms > MAX_TIMER_MS as f64 {
        (Duration::from_millis(MAX_TIMER_MS), Some(Adjusted::Capped))
    } else {
        (Duration::from_secs_f64(secs), None)
    })
}

/// The longest timeout Claude Code sets, in milliseconds (Node's timer's
/// limit; 2.1.332's `Lu`).
const MAX_TIMER_MS: u64 = 2_147_483_647;

/// How [`node_timeout`] changed a timeout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Adjusted {
    /// Under a millisecond: 1 ms.
    Raised,
    /// Over Node's timer: capped.
    Capped,
}

/// One handler of a group.
#[derive(Debug, Clone)]
pub struct Handler {
    /// What it does.
    pub kind: HandlerKind,
    /// Its `timeout`, if set.
    pub timeout: Option<Duration>,
    /// `onFailure: "block"`: a failure (an exit other than 0 and 2, a
    /// timeout, a failed start, an answer that fails the schema) blocks
    /// as an exit 2 does, where Claude Code honours it (2.1.332).
    pub on_failure_blocks: bool,
    /// `statusMessage`: what the user sees while it runs, and how an
    /// answer's block names it (Claude Code 2.1.332's `qwo`).
    pub status_message: Option<String>,
    /// `async: true`: runs in the background; its decision is ignored.
    pub run_async: bool,
    /// `asyncRewake: true` (synchronous under a non-interactive harness).
    pub async_rewake: bool,
    /// The `if` condition.
    pub condition: Option<Condition>,
    /// Where it was declared.
    pub source: SourceRef,
    /// Each key as written, with where it is written, in file order (for
    /// reports that point at one key, such as `latch convert`'s).
    pub key_at: Vec<(String, Position)>,
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
    let root = if scope == Scope::Plugin {
        root
    } else {
        let (copy, cuts) = super::nesting::cut(root);
        for c in &cuts {
            // What only managed settings may set is removed first elsewhere
            // (`We`), and not named.
            if scope != Scope::Managed && super::settings_schema::managed_only(&c.key) {
                continue;
            }
            if c.key == "hooks" && copy.get("hooks").is_some_and(|h| h.as_seq().is_some()) {
                l.problem(c.at, super::nesting::hooks_error(c));
            } else {
                l.note(
                    Diagnostic::warning(super::nesting::warning(c, scope != Scope::Managed))
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

struct Loader<'a> {
    path: &'a Path,
    scope: Scope,
    /// Problems that make Claude Code drop the file.
    problems: Vec<Diagnostic>,
    /// Warnings and notes; the file still loads.
    notes: Vec<Diagnostic>,
    budget: PatternBudget,
    /// Managed settings whose `hooks` Claude Code ignores.
    hooks_dropped: bool,
    /// Under the event being read, a wrong entry or matcher group is
    /// dropped alone, with a warning, instead of dropping the file (see
    /// [`guards`]).
    lenient: bool,
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

/// Whether a managed file still sets something once its `hooks` and its
/// `wrong` settings are left out (2.1.332's `oyt`): a setting other than
/// `managedSourcesBehavior` and `wslInheritsWindowsSettings` whose value
/// is not an object holding only such objects (`{}`, `{"a": {}}`). A
/// `disableAllHooks` or `allowManagedHooksOnly` that is not a boolean
/// sets nothing (the first is ignored, the second only stands in for
/// `true`).
fn policy_left(cleaned: &Node, wrong: &[String]) -> bool {
    fn hollow(node: &Node) -> bool {
        node.as_map()
            .is_some_and(|entries| entries.iter().all(|(_, v)| hollow(v)))
    }
    let Some(entries) = cleaned.as_map() else {
        return false;
    };
    entries.iter().any(|(k, v)| {
        let name = k.scalar_text();
        let switch = matches!(name.as_str(), "disableAllHooks" | "allowManagedHooksOnly");
        let set = !switch || matches!(v.value, Value::Bool(_));
        let counted = !matches!(
            name.as_str(),
            "hooks" | "managedSourcesBehavior" | "wslInheritsWindowsSettings"
        );
        counted && set && !wrong.contains(&name) && !hollow(v)
    })
}

/// What Claude Code 2.1.332 does with a managed settings file that is not
/// a JSON object: it does not start (exit 1, `Managed settings document
/// could not be parsed as a JSON object; none of its settings are in
/// effect`; recorded: `r14k_m_badjson`, `m332_md_badjson_plus_good`).
const NO_START: &str = "Claude Code 2.1.332 does not start with a managed settings file that is not a JSON object; latch loads the other files";

/// How a warning about a managed setting ends.
const MANAGED_IGNORES: &str =
    "in managed settings Claude Code ignores this setting and keeps the others";

impl Loader<'_> {
    fn problem(&mut self, at: Position, message: String) {
        self.problems.push(
            Diagnostic::error(message)
                .in_file(self.path)
                .at(Some(at))
                .for_dialect(DIALECT),
        );
    }

    fn note(&mut self, d: Diagnostic) {
        self.notes.push(d.in_file(self.path).for_dialect(DIALECT));
    }

    /// The problems found since `from`, made warnings: Claude Code drops
    /// only the `what` they are in (see [`guards`]).
    fn forgive(&mut self, from: usize, what: &str, event: &str) {
        for d in self.problems.split_off(from) {
            self.notes.push(
                Diagnostic {
                    severity: crate::diag::Severity::Warning,
                    message: format!(
                        "{}; Claude Code ignores this {what} and loads the rest",
                        d.message
                    ),
                    ..d
                }
                .for_event(event),
            );
        }
    }

    /// A part of `hooks` with the wrong shape: where Claude Code skips it
    /// alone (`alone`; `skips` says what it does) and the rest loads, a
    /// warning; elsewhere a problem, which drops the file.
    fn wrong_shape(
        &mut self,
        alone: bool,
        at: Position,
        message: String,
        skips: &str,
        event: Option<String>,
    ) {
        if !alone {
            self.problem(at, message);
            return;
        }
        let d = Diagnostic::warning(format!("{message}; {skips}")).at(Some(at));
        self.note(match event {
            Some(e) => d.for_event(e),
            None => d,
        });
    }

    fn root(&mut self, root: &Node, file: &mut LoadedFile) {
        if root.as_map().is_none() {
            self.problem(
                root.position,
                format!("the file must hold a JSON object, not {}", root.json_kind()),
            );
            return;
        }
        for key in UNAPPLIED_KEYS {
            if let Some(node) = root.get(key) {
                file.unapplied.push((key, node.position));
            }
        }

        if let Some(env) = root.get("env") {
            file.env_at = Some(env.position);
            self.env(env, file);
        }
        for key in ["disableAllHooks", "allowManagedHooksOnly"] {
            let Some(node) = root.get(key) else { continue };
            // 2.1.332 removes the `null` of a setting that restricts before
            // its check (`Fr`): `allowManagedHooksOnly`, not `disableAllHooks`.
            if node.value == Value::Null && super::settings_schema::null_is_removed(key) {
                continue;
            }
            match node.value {
                Value::Bool(b) if key == "disableAllHooks" => {
                    file.disable_all_hooks = Some(b);
                    file.disable_all_hooks_at = Some(node.position);
                }
                Value::Bool(b) => {
                    file.allow_managed_hooks_only = Some(b);
                    if self.scope != Scope::Managed {
                        self.note(
                            Diagnostic::warning(
                                "`allowManagedHooksOnly` only counts in managed settings; here it is ignored",
                            )
                            .at(Some(node.position)),
                        );
                    }
                }
                // 2.1.332 reads a wrong setting that restricts as its
                // restrictive value (`ISa`, `Pn`; recorded:
                // `m332_amho_str`).
                _ if self.scope == Scope::Managed && key == "allowManagedHooksOnly" => {
                    file.allow_managed_hooks_only = Some(true);
                    self.note(
                        Diagnostic::warning(format!(
                            "`allowManagedHooksOnly` must be a boolean, not {}; in managed settings Claude Code reads it as `true` (its restrictive value) until it is fixed",
                            node.json_kind()
                        ))
                        .at(Some(node.position)),
                    );
                }
                // Managed settings drop a bad setting alone (see
                // `settings_types`).
                _ if self.scope == Scope::Managed => self.note(
                    Diagnostic::warning(format!(
                        "`{key}` must be a boolean, not {}; {MANAGED_IGNORES}",
                        node.json_kind()
                    ))
                    .at(Some(node.position)),
                ),
                _ => self.problem(
                    node.position,
                    format!("`{key}` must be a boolean, not {}", node.json_kind()),
                ),
            }
        }
        let Some(hooks) = root.get("hooks") else {
            // Events written at the top level are not read: a plugin's
            // hooks file copied without its `hooks` wrapper would load
            // nothing without a word.
            if let Some((name, _)) = root
                .as_map()
                .unwrap_or_default()
                .iter()
                .find(|(k, _)| ClaudeEvent::from_name(&k.scalar_text()).is_some())
            {
                self.note(
                    Diagnostic::warning(format!(
                        "`{}` is at the top level, where no hook is read: events go under `hooks` (`{{\"hooks\": {{\"{}\": [...]}}}}`), so none of this file's hooks loads",
                        name.scalar_text(),
                        name.scalar_text()
                    ))
                    .at(Some(name.position)),
                );
            }
            return;
        };
        // A plugin's hooks file may wrap its events: {"description", "hooks": {...}}.
        let hooks = match self.scope {
            Scope::Plugin => plugin_events(root).unwrap_or(hooks),
            _ => hooks,
        };
        // A settings file's `hooks` is cleaned before Claude Code checks the
        // file: a `hooks` that is not an object, an event that is not an
        // array and an unknown event are dropped with a warning, and the
        // rest of the file loads (recorded: `r13_settings_event_*`,
        // `r13_settings_hooks_*`, `r13_settings_unknown_event_*`). A
        // plugin's hooks file is checked as it is.
        let settings = self.scope != Scope::Plugin;
        // What 2.1.332's search for guard hooks drops (`Tr`, `N4s`): the
        // file, or in managed settings the file's `hooks`.
        let searched = settings;
        let Some(events) = hooks.as_map() else {
            use super::settings_schema::guard_search;
            let message = format!(
                "`hooks` must be an object of events, not {}",
                hooks.json_kind()
            );
            // A list that may hold hooks (an object, a matcher group or a
            // guard anywhere in it) is kept, and fails the file (2.1.332,
            // `Tr`).
            let holds = |items: &[Node]| {
                items.iter().any(|i| i.as_map().is_some())
                    || guard_search::in_list(hooks)
                    || guard_search::deep_null(hooks)
            };
            let kept = searched && hooks.as_seq().is_some_and(holds);
            self.wrong_shape(
                settings && !kept,
                hooks.position,
                message,
                "Claude Code ignores it and loads the rest of the file",
                None,
            );
            return;
        };
        for (name, groups) in events {
            let name_text = name.scalar_text();
            let event = ClaudeEvent::from_name(&name_text);
            if event.is_none() {
                let hint = closest(&name_text, ClaudeEvent::ALL.iter().map(|e| e.as_str()))
                    .map(|c| format!("did you mean `{c}`?"));
                let d = Diagnostic::warning(format!(
                    "unknown event `{name_text}`; Claude Code skips it and loads the rest"
                ));
                let d = match hint {
                    Some(h) => d.with_hint(h),
                    None => d,
                };
                self.note(d.at(Some(name.position)).for_event(name_text.clone()));
                // 2.1.332 keeps an unknown event that seems to hold guard
                // hooks, and it fails the file (`Tr`).
                if searched
                    && super::settings_schema::guard_search::holds_guards(
                        groups,
                        3,
                        groups.as_seq().is_none(),
                        false,
                        false,
                    )
                {
                    self.problem(
                        name.position,
                        format!("unknown event `{name_text}` seems to hold PreToolUse, PermissionRequest or PreSkillShellCommand hooks"),
                    );
                }
                if settings {
                    continue;
                }
            }
            let guard = guards(event);
            let Value::Seq(items) = &groups.value else {
                let message = format!(
                    "`{name_text}` must be an array of matcher groups, not {}",
                    groups.json_kind()
                );
                // Under a guard event a wrong list drops the file (a
                // settings file's `null` only the event: 2.1.332,
                // `drift_guard_event_object_env`); under any other it drops
                // the event alone, in a plugin too. In managed settings what
                // would drop the file drops its `hooks` (2.1.332:
                // `r14k_m_event_object`, `m332_pre_null`, `m332_stop_object`).
                let event_alone = if guard {
                    settings && groups.value == Value::Null
                } else {
                    // One that seems to hold guard hooks drops the file
                    // (2.1.332, `Tr`).
                    !(searched
                        && super::settings_schema::guard_search::holds_guards(
                            groups, 3, false, false, false,
                        ))
                };
                self.wrong_shape(
                    event_alone,
                    groups.position,
                    message,
                    "Claude Code ignores this event's hooks and loads the rest",
                    Some(name_text.clone()),
                );
                continue;
            };
            self.lenient = !guard;
            for g in items {
                // A group that seems to hold guard hooks where a matcher
                // group was expected drops the file (2.1.332, `N4s`).
                if searched
                    && super::settings_schema::guard_search::holds_guards(g, 3, false, false, false)
                {
                    self.problem(
                        g.position,
                        format!("this matcher group of `{name_text}` seems to hold PreToolUse, PermissionRequest or PreSkillShellCommand hooks where they are not read"),
                    );
                    continue;
                }
                let from = self.problems.len();
                match self.group(g, event, &name_text) {
                    Some(group) => file.groups.push(group),
                    None if self.lenient => self.forgive(from, "matcher group", &name_text),
                    None => {}
                }
            }
            self.lenient = false;
        }
    }

    /// Every setting's type, as Claude Code checks a settings file before
    /// it reads anything of it (see [`super::settings_schema`]): a wrong
    /// one drops the whole file. Managed settings are checked with each
    /// setting on its own (Claude Code 2.1.332's `ISa`; recorded:
    /// `r14k_m_*`, `m332_*`): a wrong one is a warning and only that
    /// setting is dropped. Their `hooks` are read as a settings file's
    /// (see [`guards`]), but what drops a settings file drops only the
    /// managed file's `hooks`; when nothing else of it would apply, Claude
    /// Code does not start (`m332_pre_bad_hooks_only`), which latch says
    /// with an error.
    fn settings_types(&mut self, root: &Node, file: &mut LoadedFile) {
        use super::settings_schema::{check, clean, guard_search};
        let (cleaned, removed) = clean(root, self.scope == Scope::Managed);
        for r in removed {
            self.note(Diagnostic::warning(r.message).at(Some(r.at)));
        }
        let managed = self.scope == Scope::Managed && root.as_map().is_some();
        // 2.1.332 (`bwe`): a guard hook anywhere but under `hooks` drops the
        // file; managed settings say so and load it, `hooks` included
        // (`m332_guard_outside_hooks`, `m332_guard_under_setting`).
        if let Some(at) = guard_search::outside_hooks(root) {
            let message = "a PreToolUse, PermissionRequest or PreSkillShellCommand hook seems to be written here, outside `hooks`, where none is read";
            if managed {
                self.note(
                    Diagnostic::warning(format!(
                        "{message}; in managed settings Claude Code says so and loads the file, its `hooks` included"
                    ))
                    .at(Some(at)),
                );
            } else {
                self.problem(at, message.to_owned());
            }
        }
        // `hooks` is checked event by event: what only the schema rejects
        // drops the file (managed: its `hooks`) under a guard event, and
        // itself elsewhere (see `guards`).
        if self.problems.is_empty()
            && let Some(events) = cleaned.get("hooks")
        {
            self.hooks_by_event(events, file);
        }
        if managed && !self.problems.is_empty() {
            // Every problem the loader found is in `hooks` here.
            for d in std::mem::take(&mut self.problems) {
                self.notes.push(Diagnostic {
                    severity: crate::diag::Severity::Warning,
                    message: format!(
                        "{}; in managed settings Claude Code ignores the file's `hooks` and keeps its other settings",
                        d.message
                    ),
                    ..d
                });
            }
            file.groups.clear();
            self.hooks_dropped = true;
        }
        // Checked by this loader with its own words, and `hooks` above.
        let skip = ["disableAllHooks", "allowManagedHooksOnly", "hooks"];
        let mut wrong = Vec::new();
        for r in check(&cleaned, &skip) {
            if !managed {
                self.problem(r.at, r.message);
                continue;
            }
            self.note(
                Diagnostic::warning(format!("{}; {MANAGED_IGNORES}", r.message)).at(Some(r.at)),
            );
            if r.setting == "env" {
                file.env.clear();
            }
            wrong.push(r.setting);
        }
        if managed && self.hooks_dropped && !policy_left(&cleaned, &wrong) {
            file.dropped = true;
            file.env.clear();
            self.notes.push(
                Diagnostic::error(
                    "Claude Code 2.1.332 does not start with this managed settings file: its `hooks` cannot be loaded because of a PreToolUse, PermissionRequest or PreSkillShellCommand hook, and it sets nothing else; latch loads the other files",
                )
                .in_file(self.path)
                .at(Some(root.position))
                .for_dialect(DIALECT),
            );
        }
    }

    /// The schema's check of `hooks` (what the loader does not read, such
    /// as `rewakeMessage`), one event at a time: a rejection under a guard
    /// event is a problem, which drops the file (in managed settings its
    /// `hooks`); under another event each
    /// wrong entry is dropped alone with a warning, or its matcher group
    /// when the group itself is wrong (Claude Code 2.1.332, `N4s`). What the
    /// loader dropped already, and warned of, is not said twice.
    fn hooks_by_event(&mut self, events: &Node, file: &mut LoadedFile) {
        let Some(events) = events.as_map() else {
            return;
        };
        for (name, value) in events {
            let event_name = name.scalar_text();
            if guards(ClaudeEvent::from_name(&event_name)) {
                let one = Node {
                    value: Value::Map(vec![(
                        Node {
                            value: Value::Str("hooks".to_owned()),
                            position: name.position,
                        },
                        Node {
                            value: Value::Map(vec![(name.clone(), value.clone())]),
                            position: value.position,
                        },
                    )]),
                    position: value.position,
                };
                for r in super::settings_schema::check(&one, &[]) {
                    self.problem(r.at, r.message);
                }
                continue;
            }
            let Some(groups) = value.as_seq() else {
                continue;
            };
            for (index, g) in groups.iter().enumerate() {
                let check = super::settings_schema::check_group(&event_name, index, g);
                let loaded = file.groups.iter().position(|l| {
                    l.event_name == event_name && l.source.position == Some(g.position)
                });
                let Some(at) = loaded else { continue };
                let mut dropped = Vec::new();
                if let Some(r) = check.group {
                    file.groups.remove(at);
                    dropped.push((r, "matcher group"));
                } else {
                    let entries = g.get("hooks").and_then(Node::as_seq).unwrap_or_default();
                    for (i, r) in check.entries {
                        let Some(entry) = entries.get(i) else {
                            continue;
                        };
                        let handlers = &mut file.groups[at].handlers;
                        if let Some(h) = handlers
                            .iter()
                            .position(|h| h.source.position == Some(entry.position))
                        {
                            handlers.remove(h);
                            dropped.push((r, "entry"));
                        }
                    }
                    // A group left with no hook is gone too (Claude Code
                    // keeps it, and it runs nothing).
                    if !dropped.is_empty() && file.groups[at].handlers.is_empty() {
                        file.groups.remove(at);
                    }
                }
                for (r, what) in dropped {
                    self.note(
                        Diagnostic::warning(format!(
                            "{}; Claude Code ignores this {what} and loads the rest",
                            r.message
                        ))
                        .at(Some(r.at))
                        .for_event(event_name.clone()),
                    );
                }
            }
        }
    }

    /// The `env` object. Claude Code's schema turns each value into a
    /// string (`z.coerce.string()`, JavaScript's `String(value)`), so `8000`
    /// is `"8000"`, `true` is `"true"` and `null` is `"null"`.
    fn env(&mut self, env: &Node, file: &mut LoadedFile) {
        // Not an object: the settings check drops the file.
        let Some(vars) = env.as_map() else {
            return;
        };
        for (name, value) in vars {
            let name = name.scalar_text();
            let v = js_string(value);
            if !name.is_empty() && !name.contains(['=', '\0']) && !v.contains('\0') {
                if matches!(value.value, Value::Map(_) | Value::Seq(_)) {
                    self.note(
                        Diagnostic::warning(format!(
                            "`env.{name}` is {}, which Claude Code sets as the text {v:?}",
                            value.json_kind()
                        ))
                        .at(Some(value.position)),
                    );
                }
                file.env.push((name, v));
            } else {
                self.note(
                    Diagnostic::warning(format!(
                        "`env.{name}` cannot be an environment variable (an empty name, `=` or a NUL byte); latch leaves it out"
                    ))
                    .at(Some(value.position)),
                );
            }
        }
    }

    fn group(&mut self, g: &Node, event: Option<ClaudeEvent>, event_name: &str) -> Option<Group> {
        if g.as_map().is_none() {
            self.problem(
                g.position,
                format!(
                    "a matcher group of `{event_name}` must be an object, not {}",
                    g.json_kind()
                ),
            );
            return None;
        }
        let matcher_text = match g.get("matcher") {
            None => None,
            Some(m) => match m.as_str() {
                Some(s) => Some(s.to_owned()),
                None => {
                    self.problem(
                        m.position,
                        format!("`matcher` must be a string, not {}", m.json_kind()),
                    );
                    return None;
                }
            },
        };
        if let Some(misplaced) = g.get("if") {
            self.note(
                Diagnostic::warning(
                    "`if` belongs on each handler: on a matcher group it is not read, so the group's hooks run for every call its matcher takes",
                )
                .at(Some(misplaced.position))
                .for_event(event_name),
            );
        }
        let at = g.get("matcher").map_or(g.position, |m| m.position);
        // A FileChanged matcher does two things in Claude Code (read from
        // its 2.1.197 code): split on `|`, it names the files watched from
        // the session's start (recorded: `r3_file_changed`); and it selects
        // groups like any matcher, tested against the changed file's name
        // with the narrow word set, so `.envrc` is a regex there.
        if event == Some(ClaudeEvent::FileChanged)
            && let Some(list) = matcher_text.as_deref()
        {
            for n in list.split('|').map(str::trim) {
                if n.contains(['*', '?', '[', '(', '^', '$', '\\']) {
                    self.note(
                        Diagnostic::warning(format!(
                            "FileChanged matcher `{n}` is watched as a file named exactly so, and tested as a regular expression against a changed file's name"
                        ))
                        .at(Some(at))
                        .for_event(event_name),
                    );
                }
            }
        }
        // StopFailure and FileChanged take the narrower word set (see
        // `matcher::claude`'s header).
        let narrow = matches!(
            event,
            Some(ClaudeEvent::StopFailure | ClaudeEvent::FileChanged)
        );
        // A model-switch matcher loses the `[1m]`/`[2m]` suffix of each
        // name first (Claude Code 2.1.332's `gIr`).
        let tested = match event {
            Some(e) if e.is_model_switch() => matcher_text.as_deref().map(model_matcher),
            _ => matcher_text.clone(),
        };
        let parsed = ClaudeMatcher::parse_with(
            tested.as_deref(),
            if narrow {
                WordSet::Narrow
            } else {
                WordSet::Tools
            },
            &mut self.budget,
        );
        let matcher = match parsed {
            Ok(m) => {
                for advice in m.warnings() {
                    self.note(
                        Diagnostic::warning(advice)
                            .at(Some(at))
                            .for_event(event_name),
                    );
                }
                Matcher::Valid(m)
            }
            Err(why) => {
                let why = why.to_string();
                self.note(
                    Diagnostic::warning(format!("invalid matcher: {why}; the group never runs"))
                        .at(Some(at))
                        .for_event(event_name),
                );
                Matcher::Invalid(why)
            }
        };
        let handlers = match g.get("hooks") {
            Some(Node {
                value: Value::Seq(items),
                ..
            }) => {
                let mut handlers = Vec::new();
                for h in items {
                    let from = self.problems.len();
                    match self.handler(h) {
                        Some(handler) => handlers.push(handler),
                        None if self.lenient => self.forgive(from, "entry", event_name),
                        None => {}
                    }
                }
                handlers
            }
            Some(other) => {
                self.problem(
                    other.position,
                    format!(
                        "`hooks` of a matcher group must be an array, not {}",
                        other.json_kind()
                    ),
                );
                return None;
            }
            None => {
                self.problem(
                    g.position,
                    "a matcher group needs `hooks`, an array of handlers".to_owned(),
                );
                return None;
            }
        };
        Some(Group {
            event,
            event_name: event_name.to_owned(),
            matcher_text,
            matcher,
            handlers,
            source: SourceRef {
                file: self.path.to_path_buf(),
                position: Some(g.position),
            },
        })
    }

    fn handler(&mut self, h: &Node) -> Option<Handler> {
        if h.as_map().is_none() {
            self.problem(
                h.position,
                format!("a handler must be an object, not {}", h.json_kind()),
            );
            return None;
        }
        let before = self.problems.len();
        let ty = self.string(h, "type", true).unwrap_or_default();
        let kind = match ty.as_str() {
            "command" => {
                let command = self.string(h, "command", true);
                let args = self.strings(h, "args");
                let shell = self.string(h, "shell", false);
                if let (Some(s), Some(node)) = (&shell, h.get("shell"))
                    && s != "bash"
                    && s != "powershell"
                {
                    self.problem(
                        node.position,
                        format!("`shell` must be \"bash\" or \"powershell\", not {s:?}"),
                    );
                }
                command.map(|command| HandlerKind::Command {
                    command,
                    args,
                    shell,
                })
            }
            "http" => {
                let url = self.string(h, "url", true);
                let headers = self.headers(h);
                let allowed_env_vars = self.strings(h, "allowedEnvVars").unwrap_or_default();
                url.map(|url| HandlerKind::Http {
                    url,
                    headers,
                    allowed_env_vars,
                })
            }
            "prompt" => {
                let prompt = self.string(h, "prompt", true);
                let model = self.string(h, "model", false);
                prompt.map(|prompt| HandlerKind::Prompt { prompt, model })
            }
            "agent" => self
                .string(h, "prompt", true)
                .map(|prompt| HandlerKind::Agent { prompt }),
            "mcp_tool" => {
                let server = self.string(h, "server", true);
                let tool = self.string(h, "tool", true);
                let input = match h.get("input") {
                    None => Some(serde_json::Value::Object(serde_json::Map::new())),
                    Some(n) if n.as_map().is_some() => Some(n.to_json()),
                    Some(n) => {
                        self.problem(
                            n.position,
                            format!("`input` must be an object, not {}", n.json_kind()),
                        );
                        None
                    }
                };
                match (server, tool, input) {
                    (Some(server), Some(tool), Some(input)) => Some(HandlerKind::McpTool {
                        server,
                        tool,
                        input,
                    }),
                    _ => None,
                }
            }
            "" => None,
            other => {
                let at = h.get("type").map_or(h.position, |t| t.position);
                self.problem(
                    at,
                    format!("unknown handler type {other:?}; Claude Code knows command, http, prompt, agent and mcp_tool"),
                );
                None
            }
        };
        let timeout = match h.get("timeout") {
            None => None,
            Some(t) => match node_timeout(t) {
                Ok((d, None)) => Some(d),
                Ok((d, Some(how))) => {
                    let what = match how {
                        Adjusted::Raised => {
                            "under a millisecond: Claude Code's timer fires after 1 ms, so the hook times out at once, in latch too"
                        }
                        Adjusted::Capped => {
                            "over what Claude Code's timer holds: it is capped at 2147483.647 s (about 24.8 days), in latch too"
                        }
                    };
                    self.note(
                        Diagnostic::warning(format!(
                            "a `timeout` of {} seconds is {what}",
                            t.scalar_text()
                        ))
                        .at(Some(t.position)),
                    );
                    Some(d)
                }
                Err(found) => {
                    self.problem(
                        t.position,
                        format!("`timeout` must be a positive number of seconds, not {found}"),
                    );
                    None
                }
            },
        };
        let run_async = self.boolean(h, "async");
        let async_rewake = self.boolean(h, "asyncRewake");
        self.boolean(h, "once");
        // An empty `if` is no condition: the handler runs (recorded:
        // `r4_if_empty`).
        let condition = self
            .string(h, "if", false)
            .filter(|text| !text.is_empty())
            .map(|text| {
                let rule = match Rule::parse_with_budget(&text, &mut self.budget) {
                    Ok(rule) => Some(rule),
                    Err(e) => {
                        let at = h.get("if").map_or(h.position, |n| n.position);
                        self.note(
                            Diagnostic::warning(format!(
                                "{e}; the handler runs as if it had no `if`"
                            ))
                            .at(Some(at)),
                        );
                        None
                    }
                };
                Condition { text, rule }
            });
        let status_message = self.string(h, "statusMessage", false);
        let on_failure_blocks = self.on_failure(h, kind.as_ref());
        let kind = kind.filter(|_| self.problems.len() == before)?;
        if matches!(
            kind,
            HandlerKind::Agent { .. } | HandlerKind::McpTool { .. }
        ) {
            let at = h.get("type").map_or(h.position, |t| t.position);
            self.note(
                Diagnostic::new(
                    crate::diag::Severity::Info,
                    format!(
                        "`{}` handlers run only when the harness gives latch its sub-agents and tool servers (the library's `Engine::with_harness_handlers`); `latch fire` skips them",
                        kind.type_name()
                    ),
                )
                .at(Some(at)),
            );
        }
        let key_at = h
            .as_map()
            .unwrap_or_default()
            .iter()
            .map(|(k, _)| (k.scalar_text(), k.position))
            .collect();
        Some(Handler {
            kind,
            timeout,
            run_async,
            async_rewake,
            on_failure_blocks,
            status_message,
            condition,
            source: SourceRef {
                file: self.path.to_path_buf(),
                position: Some(h.position),
            },
            key_at,
        })
    }

    /// `onFailure` (Claude Code 2.1.332): `"block"` makes the handler's
    /// failure block like an exit 2; `"continue"` (the default) does not.
    /// Another value makes the entry invalid, except on an `mcp_tool`
    /// handler, where anything but `"continue"` blocks; `prompt` and
    /// `agent` handlers have no such key (Claude Code strips it).
    fn on_failure(&mut self, h: &Node, kind: Option<&HandlerKind>) -> bool {
        let Some(n) = h.get("onFailure") else {
            return false;
        };
        match kind {
            Some(HandlerKind::McpTool { .. }) => return n.as_str() != Some("continue"),
            // Not a key of these handlers: their schema strips it.
            Some(HandlerKind::Prompt { .. } | HandlerKind::Agent { .. }) | None => return false,
            _ => {}
        }
        match n.as_str() {
            Some("block") => true,
            Some("continue") => false,
            _ => {
                self.problem(
                    n.position,
                    format!(
                        "`onFailure` must be \"continue\" or \"block\", not {}",
                        n.json_kind()
                    ),
                );
                false
            }
        }
    }

    /// The string under `key`; a problem if it is missing (when required)
    /// or not a string.
    fn string(&mut self, h: &Node, key: &str, required: bool) -> Option<String> {
        match h.get(key) {
            Some(n) => match n.as_str() {
                Some(s) => Some(s.to_owned()),
                None => {
                    self.problem(
                        n.position,
                        format!("`{key}` must be a string, not {}", n.json_kind()),
                    );
                    None
                }
            },
            None if required => {
                self.problem(h.position, format!("the handler needs `{key}`"));
                None
            }
            None => None,
        }
    }

    fn strings(&mut self, h: &Node, key: &str) -> Option<Vec<String>> {
        let n = h.get(key)?;
        let items = match &n.value {
            Value::Seq(items) => items,
            _ => {
                self.problem(
                    n.position,
                    format!("`{key}` must be an array of strings, not {}", n.json_kind()),
                );
                return None;
            }
        };
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            match item.as_str() {
                Some(s) => out.push(s.to_owned()),
                None => self.problem(
                    item.position,
                    format!("`{key}` must hold only strings, not {}", item.json_kind()),
                ),
            }
        }
        Some(out)
    }

    fn boolean(&mut self, h: &Node, key: &str) -> bool {
        match h.get(key).map(|n| (n, &n.value)) {
            None => false,
            Some((_, Value::Bool(b))) => *b,
            Some((n, _)) => {
                self.problem(
                    n.position,
                    format!("`{key}` must be a boolean, not {}", n.json_kind()),
                );
                false
            }
        }
    }

    fn headers(&mut self, h: &Node) -> Vec<(String, String)> {
        let Some(n) = h.get("headers") else {
            return Vec::new();
        };
        let Some(entries) = n.as_map() else {
            self.problem(
                n.position,
                format!(
                    "`headers` must be an object of strings, not {}",
                    n.json_kind()
                ),
            );
            return Vec::new();
        };
        let mut out = Vec::new();
        for (k, v) in entries {
            match v.as_str() {
                Some(s) => out.push((k.scalar_text(), s.to_owned())),
                None => self.problem(
                    v.position,
                    format!(
                        "header `{}` must be a string, not {}",
                        k.scalar_text(),
                        v.json_kind()
                    ),
                ),
            }
        }
        out
    }
}

/// The keys of a handler Claude Code knows (the schema lists them;
/// `onFailure`, `holdsTools` and `cloud` since 2.1.332).
pub const HANDLER_KEYS: [&str; 21] = [
    "type",
    "command",
    "args",
    "shell",
    "timeout",
    "async",
    "asyncRewake",
    "once",
    "if",
    "statusMessage",
    "url",
    "headers",
    "allowedEnvVars",
    "prompt",
    "model",
    "server",
    "tool",
    "input",
    "onFailure",
    "holdsTools",
    "cloud",
];

/// JavaScript's `String(value)` of a JSON value: numbers as JavaScript
/// writes them, an array's items joined with `,` (`null` as nothing), an
/// object `[object Object]`.
fn js_string(node: &Node) -> String {
    match &node.value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) if i.unsigned_abs() <= 1 << 53 => i.to_string(),
        Value::Int(i) => crate::dialect::js_json::js_number(*i as f64),
        Value::Float(f) => crate::dialect::js_json::js_number(*f),
        Value::Str(s) => s.clone(),
        Value::Seq(items) => items
            .iter()
            .map(|i| match i.value {
                Value::Null => String::new(),
                _ => js_string(i),
            })
            .collect::<Vec<_>>()
            .join(","),
        Value::Map(_) => "[object Object]".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_a_copy_when_an_equal_one_follows_it_few_or_many() {
        assert_eq!(
            later_copies(&[1, 2, 1, 3, 2]),
            [true, true, false, false, false]
        );
        assert!(later_copies::<u8>(&[]).is_empty());
        // Past 16 keys the hashed path answers as the pairwise one does.
        let many: Vec<u32> = (0..40).map(|i| i % 7).collect();
        let expected: Vec<bool> = (0..40).map(|i| i + 7 < 40).collect();
        assert_eq!(later_copies(&many), expected);
        let few = &many[..14];
        let expected: Vec<bool> = (0..14).map(|i| i + 7 < 14).collect();
        assert_eq!(later_copies(few), expected);
    }

    fn load(text: &str) -> (LoadedFile, Vec<Diagnostic>) {
        load_text(
            text,
            Path::new("/p/.claude/settings.json"),
            Scope::Project,
            None,
        )
    }

    #[test]
    fn one_invalid_handler_drops_the_whole_file_with_located_errors() {
        let (file, diags) = load(
            "{\"hooks\": {\"PreToolUse\": [{\"hooks\": [\n  {\"type\": \"command\", \"command\": \"true\"},\n  {\"type\": \"command\", \"command\": \"x\", \"timeout\": \"1\"}]}]}}",
        );
        assert!(file.dropped);
        assert!(file.groups.is_empty());
        let errors: Vec<String> = diags
            .iter()
            .map(|d| format!("{:?} {}", d.position.map(|p| (p.line, p.column)), d.message))
            .collect();
        assert!(
            errors.iter().any(|e| e.contains("(3, 50)")
                && e.contains("`timeout` must be a positive number of seconds, not a string")),
            "{errors:?}"
        );
        assert!(
            errors.iter().any(|e| e.contains("ignores this whole file")),
            "{errors:?}"
        );
    }

    #[test]
    fn unknown_events_are_tolerated() {
        let (file, diags) = load(
            r#"{"hooks": {"PreToolUze": [{"hooks": [{"type": "command", "command": "a"}]}], "Stop": [{"hooks": [{"type": "command", "command": "b"}]}]}}"#,
        );
        assert!(!file.dropped);
        // Claude Code drops the unknown event before it checks the file.
        assert_eq!(file.groups.len(), 1);
        assert_eq!(file.groups[0].event_name, "Stop");
        assert!(diags[0].message.contains("unknown event `PreToolUze`"));
        assert_eq!(diags[0].hint.as_deref(), Some("did you mean `PreToolUse`?"));
    }

    /// The events Claude Code 2.1.332 added load like the others.
    #[test]
    fn the_events_of_2_1_332_load() {
        let (file, diags) = load(
            r#"{"hooks":{"PreModelSwitch":[{"matcher":"claude-opus-4-6[1m]","hooks":[{"type":"command","command":"a"}]}],"PostModelSwitch":[{"hooks":[{"type":"command","command":"b"}]}],"PreSkillShellCommand":[{"matcher":"Bash","hooks":[{"type":"command","command":"c"}]}]}}"#,
        );
        assert!(!file.dropped);
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(file.groups.len(), 3);
        // The matcher as written is kept for display.
        assert_eq!(
            file.groups[0].matcher_text.as_deref(),
            Some("claude-opus-4-6[1m]")
        );
    }

    /// A model-switch matcher loses its `[1m]`/`[2m]` suffixes before a
    /// separator or the end (Claude Code 2.1.332's `gIr`), unless that
    /// leaves it blank.
    #[test]
    fn model_matchers_lose_their_context_suffix() {
        assert_eq!(model_matcher("claude-opus-4-6[1m]"), "claude-opus-4-6");
        assert_eq!(
            model_matcher("opus[1M] | sonnet[2m],haiku"),
            "opus | sonnet,haiku"
        );
        assert_eq!(model_matcher("a[1m]b"), "a[1m]b");
        assert_eq!(model_matcher("[1m]"), "[1m]");
        assert_eq!(model_matcher("x[3m]"), "x[3m]");
    }

    /// A wrong entry under an event that guards nothing drops that entry
    /// alone (or its matcher group), in a settings file and in a plugin;
    /// under `PreToolUse` or `PermissionRequest` it drops the file
    /// (Claude Code 2.1.332; recorded: `r2_invalid_hook_entry`).
    #[test]
    fn a_wrong_entry_drops_itself_except_under_a_guard_event() {
        let good = r#"{"type":"command","command":"ok"}"#;
        for (path, scope) in [
            ("/p/.claude/settings.json", Scope::Project),
            ("/p/hooks/hooks.json", Scope::Plugin),
        ] {
            for (event, groups) in [
                (
                    "Stop",
                    format!(r#"[{{"hooks":[{{"type":"bogus"}},{good}]}}]"#),
                ),
                (
                    "DirectoryAdded",
                    format!(r#"[{{"hooks":[{{"type":"command"}},{good}]}}]"#),
                ),
                (
                    "Stop",
                    format!(r#"[{{"matcher":5,"hooks":[{good}]}},{{"hooks":[{good}]}}]"#),
                ),
                ("Stop", format!(r#"[7,{{"hooks":[{good}]}}]"#)),
            ] {
                let text = format!(r#"{{"env":{{"N":"x"}},"hooks":{{"{event}":{groups}}}}}"#);
                let (file, diags) = load_text(&text, Path::new(path), scope, None);
                assert!(!file.dropped, "{path} {text}: {diags:?}");
                let handlers: usize = file.groups.iter().map(|g| g.handlers.len()).sum();
                assert_eq!(handlers, 1, "{path} {text}");
                assert!(
                    diags
                        .iter()
                        .any(|d| d.severity == crate::diag::Severity::Warning
                            && d.message.contains("Claude Code ignores this")),
                    "{path} {text}: {diags:?}"
                );
            }
            for event in ["PreToolUse", "PermissionRequest", "PreSkillShellCommand"] {
                let text = format!(
                    r#"{{"hooks":{{"{event}":[{{"hooks":[{{"type":"bogus"}},{good}]}}]}}}}"#
                );
                let (file, diags) = load_text(&text, Path::new(path), scope, None);
                assert!(file.dropped, "{path} {text}: {diags:?}");
            }
        }
    }

    /// A settings file is read as if cut at 64 levels (2.1.332, `xje`): a
    /// value cut out of a setting that may be `null` is a warning; one a
    /// hook needs fails its entry, and the file under a guard event; a
    /// `hooks` of nested arrays fails the file.
    #[test]
    fn a_file_is_read_cut_at_sixty_four_levels() {
        // `{"k":{"k":…[1]…}}`, the list at level `level` of the file.
        let deep = |level: usize| {
            format!(
                "{}[1]{}",
                r#"{"k":"#.repeat(level - 2),
                "}".repeat(level - 2)
            )
        };
        let project = |text: &str| {
            load_text(
                text,
                Path::new("/p/.claude/settings.json"),
                Scope::Project,
                None,
            )
        };
        let stop = r#"{"Stop":[{"hooks":[{"type":"command","command":"c"}]}]}"#;
        let (file, diags) = project(&format!(
            r#"{{"statusLine":{{"type":"command","command":"s","x":{}}},"hooks":{stop}}}"#,
            deep(63)
        ));
        assert!(diags.is_empty() && !file.dropped, "{diags:?}");
        let (file, diags) = project(&format!(
            r#"{{"statusLine":{{"type":"command","command":"s","x":{}}},"hooks":{stop}}}"#,
            deep(64)
        ));
        assert!(!file.dropped && file.groups.len() == 1, "{diags:?}");
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert!(
            diags[0].message.starts_with(
                "A value under \"statusLine\" is nested more than 64 levels deep, so Claude Code ignores it, and leaves it out"
            ) && diags[0].severity == crate::diag::Severity::Warning,
            "{diags:?}"
        );
        // In a hook entry: an `mcp_tool` input is cut too.
        let (file, diags) = project(&format!(
            r#"{{"hooks":{{"Stop":[{{"hooks":[{{"type":"mcp_tool","server":"s","tool":"t","input":{{"a":1,"k":{}}}}}]}}]}}}}"#,
            deep(59)
        ));
        assert!(!file.dropped, "{diags:?}");
        let HandlerKind::McpTool { input, .. } = &file.groups[0].handlers[0].kind else {
            panic!("{:?}", file.groups[0].handlers[0].kind);
        };
        assert_eq!(input["a"], 1);
        assert!(input.to_string().contains(r#"{"k":null}"#), "{input}");
        assert!(
            diags
                .iter()
                .any(|d| d.message.starts_with("A value under \"hooks\"")),
            "{diags:?}"
        );
        // `hooks` as nested arrays.
        let (file, diags) = project(&format!(
            r#"{{"hooks":[{}]}}"#,
            "[".repeat(70) + &"]".repeat(70)
        ));
        assert!(file.dropped, "{diags:?}");
        assert!(
            diags.iter().any(|d| d
                .message
                .starts_with("\"hooks\" is written as nested arrays")),
            "{diags:?}"
        );
    }

    /// Every wrong entry under an event that guards nothing drops itself,
    /// whether the loader or only the schema rejects it, and however many
    /// there are: the entries beside them still run (2.1.332, `N4s`).
    #[test]
    fn each_wrong_entry_under_one_event_drops_itself() {
        let good = |c: &str| format!(r#"{{"type":"command","command":"{c}"}}"#);
        let text = format!(
            r#"{{"hooks":{{"Stop":[
                {{"hooks":[{a},{{"type":"command","command":"x","rewakeMessage":5}},{b}]}},
                {{"hooks":[{{"type":"command","command":"y","statusMessage":[]}},{c},{{"type":"command"}},{{"type":"command","command":"z","rewakeMessage":true}}]}},
                {{"hooks":[{{"type":"command","command":"w","rewakeMessage":1}}]}}
            ]}}}}"#,
            a = good("a"),
            b = good("b"),
            c = good("c"),
        );
        for (path, scope) in [
            ("/p/.claude/settings.json", Scope::Project),
            ("/p/hooks/hooks.json", Scope::Plugin),
        ] {
            each_wrong_entry_drops_itself_in(&text, path, scope);
            // Under a guard event, one such entry drops the file.
            let guard = r#"{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"x","rewakeMessage":5}]}]}}"#;
            let (file, diags) = load_text(guard, Path::new(path), scope, None);
            assert!(file.dropped, "{path}: {diags:?}");
        }
    }

    fn each_wrong_entry_drops_itself_in(text: &str, path: &str, scope: Scope) {
        let (file, diags) = load_text(text, Path::new(path), scope, None);
        assert!(!file.dropped, "{diags:?}");
        let commands: Vec<_> = file
            .groups
            .iter()
            .flat_map(|g| &g.handlers)
            .map(|h| match &h.kind {
                HandlerKind::Command { command, .. } => command.as_str(),
                _ => "?",
            })
            .collect();
        assert_eq!(commands, ["a", "b", "c"], "{diags:?}");
        // One warning for each of the five wrong entries, none twice.
        let warnings: Vec<_> = diags
            .iter()
            .filter(|d| d.message.contains("Claude Code ignores this entry"))
            .collect();
        assert_eq!(warnings.len(), 5, "{diags:?}");
        assert!(
            diags
                .iter()
                .all(|d| d.severity == crate::diag::Severity::Warning),
            "{diags:?}"
        );
        // The group left with no hook is gone.
        assert_eq!(file.groups.len(), 2);
    }

    /// Managed settings drop a wrong setting alone (Claude Code 2.1.332's
    /// check of them; recorded: `r14k_m_model_num`, `m332_env_list`,
    /// `m332_disable_str`): `env`, a flag; a wrong hook entry drops itself
    /// under an event that does not guard (`r14k_m_badhook_same_group`,
    /// `m332_badhook_stop`), the file's `hooks` under one that does
    /// (`r14k_m_badhook_other_event`); the rest applies.
    #[test]
    fn managed_settings_drop_each_wrong_setting_alone() {
        let managed = |text: &str| {
            load_text(
                text,
                Path::new("/etc/claude-code/managed-settings.json"),
                Scope::Managed,
                None,
            )
        };
        let stop = r#"{"Stop":[{"hooks":[{"type":"command","command":"c"}]}]}"#;
        // A wrong setting beside the hooks: they run.
        let (file, diags) = managed(&format!(
            r#"{{"env":{{"M":"1"}},"model":5,"hooks":{stop}}}"#
        ));
        assert!(!file.dropped && file.groups.len() == 1, "{diags:?}");
        assert_eq!(file.env, [("M".to_owned(), "1".to_owned())]);
        assert!(
            diags[0]
                .message
                .starts_with("`model` must be a string, not a number; in managed settings"),
            "{diags:?}"
        );
        let handlers = |file: &LoadedFile| -> Vec<usize> {
            file.groups.iter().map(|g| g.handlers.len()).collect()
        };
        // A wrong hook entry, for the loader or for the schema: under
        // `Stop` it is dropped alone, under `PreToolUse` the file's
        // `hooks`; the rest applies.
        for (event, entry, left) in [
            ("Stop", r#""timeout":"5""#, vec![1, 1]),
            ("Stop", r#""rewakeMessage":5"#, vec![1, 1]),
            ("PreToolUse", r#""timeout":"5""#, vec![]),
            ("PreToolUse", r#""rewakeMessage":5"#, vec![]),
        ] {
            let text = format!(
                r#"{{"env":{{"M":"1"}},"hooks":{{"{event}":[{{"hooks":[{{"type":"command","command":"c",{entry}}},{{"type":"command","command":"d"}}]}}],"Notification":[{{"hooks":[{{"type":"command","command":"n"}}]}}]}}}}"#
            );
            let (file, diags) = managed(&text);
            assert!(!file.dropped, "{text}: {diags:?}");
            assert_eq!(handlers(&file), left, "{text}: {diags:?}");
            assert_eq!(file.env.len(), 1, "{text}");
            assert!(
                diags
                    .iter()
                    .all(|d| d.severity == crate::diag::Severity::Warning),
                "{diags:?}"
            );
        }
        // A wrong flag is ignored alone; a wrong `env` drops the variables.
        let (file, diags) = managed(&format!(
            r#"{{"disableAllHooks":"no","env":[],"hooks":{stop}}}"#
        ));
        assert!(!file.dropped && file.groups.len() == 1, "{diags:?}");
        assert_eq!(file.disable_all_hooks, None);
        assert!(file.env.is_empty());
        assert_eq!(diags.len(), 2, "{diags:?}");
        // Elsewhere the same file is dropped whole, with every problem named.
        let (file, diags) = load(r#"{"model":5,"env":[]}"#);
        assert!(file.dropped);
        assert_eq!(
            diags
                .iter()
                .filter(|d| d.severity == crate::diag::Severity::Error)
                .count(),
            3,
            "{diags:?}"
        );
    }

    /// A settings file's broken `hooks` parts are dropped, and the rest
    /// loads (`r13_settings_event_*`, `r13_settings_hooks_*`,
    /// `r13_settings_unknown_event_*`); a plugin's hooks file is dropped
    /// whole.
    #[test]
    fn settings_drop_broken_hooks_parts_and_plugins_the_whole_file() {
        let stop = r#"[{"hooks": [{"type": "command", "command": "b"}]}]"#;
        for (hooks, kept, warning) in [
            (
                "[]".to_owned(),
                0,
                "`hooks` must be an object of events, not an array; Claude Code ignores it and loads the rest of the file",
            ),
            (
                "null".to_owned(),
                0,
                "`hooks` must be an object of events, not null; Claude Code ignores it",
            ),
            (
                format!(r#"{{"Notification": {{}}, "Stop": {stop}}}"#),
                1,
                "`Notification` must be an array of matcher groups, not an object; Claude Code ignores this event's hooks and loads the rest",
            ),
            (
                format!(r#"{{"PreToolUse": null, "Stop": {stop}}}"#),
                1,
                "`PreToolUse` must be an array of matcher groups, not null",
            ),
            (
                format!(r#"{{"NoSuchEvent": 5, "Stop": {stop}}}"#),
                1,
                "unknown event `NoSuchEvent`",
            ),
            (
                format!(
                    r#"{{"NoSuchEvent": [{{"hooks": [{{"type": "bogus"}}]}}], "Stop": {stop}}}"#
                ),
                1,
                "unknown event `NoSuchEvent`",
            ),
        ] {
            let text = format!(r#"{{"env": {{"N": "x"}}, "hooks": {hooks}}}"#);
            let (file, diags) = load(&text);
            assert!(!file.dropped, "{text}: {diags:?}");
            assert_eq!(file.groups.len(), kept, "{text}");
            assert_eq!(file.env, [("N".to_owned(), "x".to_owned())], "{text}");
            assert!(
                diags
                    .iter()
                    .all(|d| d.severity == crate::diag::Severity::Warning),
                "{text}: {diags:?}"
            );
            assert!(diags[0].message.contains(warning), "{text}: {diags:?}");
            // A plugin's hooks file is dropped whole for a `hooks` that is
            // not an object, and for a guard event's wrong list; another
            // event's wrong list drops that event (2.1.332).
            let (plugin, diags) =
                load_text(&text, Path::new("/p/hooks/hooks.json"), Scope::Plugin, None);
            let whole = !hooks.starts_with('{') || hooks.contains("PreToolUse");
            assert_eq!(plugin.dropped, whole, "a plugin's {text}: {diags:?}");
        }
        // 2.1.332: a guard event's list that is not an array drops the
        // settings file, `env` and all (`drift_guard_event_object_env`,
        // `r13_settings_event_object`).
        let (file, diags) = load(&format!(
            r#"{{"env": {{"N": "x"}}, "hooks": {{"PreToolUse": {{}}, "Stop": {stop}}}}}"#
        ));
        assert!(file.dropped, "{diags:?}");
    }

    /// Claude Code 2.1.332 looks for PreToolUse, PermissionRequest and
    /// PreSkillShellCommand hooks where none is read and drops the file
    /// when it seems to find one (`bwe`, `Tr`, `N4s` in its code); each
    /// verdict here is its own `TA`'s (run on the code
    /// `extract_settings_schema.js` carves out).
    #[test]
    fn a_guard_hook_where_none_is_read_drops_the_file() {
        let many = "a".repeat(501);
        for (text, dropped) in [
            (
                r#"{"env":{"N":"x"},"PreToolUse":[{"hooks":[{"type":"command","command":"c"}]}]}"#,
                true,
            ),
            // A matcher group anywhere in another setting…
            (
                r#"{"statusLine":{"type":"command","command":"x","hooks":[1]}}"#,
                true,
            ),
            // …but in the settings it does not search.
            (r#"{"env":{"hooks":[1]}}"#, false),
            (r#"{"hooks":[{"matcher":"Bash","hooks":[]}]}"#, true),
            (r#"{"hooks":[[{"PreToolUse":[1]}]]}"#, true),
            (r#"{"hooks":[1,"x"]}"#, false),
            (r#"{"hooks":[]}"#, false),
            (
                r#"{"hooks":{"Bogus":[{"hooks":[{"type":"command","command":"x"}]}]}}"#,
                false,
            ),
            (
                r#"{"hooks":{"Bogus":[{"PreToolUse":[{"hooks":[]}]}]}}"#,
                true,
            ),
            (r#"{"hooks":{"Stop":{"PreToolUse":[1]}}}"#, true),
            (r#"{"hooks":{"Stop":{"x":1}}}"#, false),
            (
                r#"{"hooks":{"Stop":[{"PreToolUse":[1],"hooks":[]}]}}"#,
                true,
            ),
            // The `null` of a setting that restricts is removed first (`Fr`);
            // `disableAllHooks` is not one.
            (r#"{"allowManagedHooksOnly":null}"#, false),
            (r#"{"disableAllHooks":null}"#, true),
            (
                &format!(
                    r#"{{"strictKnownMarketplaces":[{{"source":"url","url":"https://x","headersHelper":"{many}"}}]}}"#
                ),
                true,
            ),
        ] {
            let (file, diags) = load(text);
            assert_eq!(
                file.dropped,
                dropped,
                "{}: {diags:?}",
                &text[..text.len().min(120)]
            );
        }
        // Managed settings keep such a file, and its `hooks`, with a
        // warning (`m332_guard_outside_hooks`).
        let (file, diags) = load_text(
            r#"{"PreToolUse":[{"hooks":[{"type":"command","command":"c"}]}],"hooks":{"Stop":[{"hooks":[{"type":"command","command":"s"}]}]}}"#,
            Path::new("/etc/claude-code/managed-settings.json"),
            Scope::Managed,
            None,
        );
        assert!(!file.dropped && file.groups.len() == 1, "{diags:?}");
        assert!(
            diags
                .iter()
                .any(|d| d.severity == crate::diag::Severity::Warning
                    && d.message.contains("outside `hooks`")),
            "{diags:?}"
        );
    }

    /// How Claude Code 2.1.332 reads a managed file's `hooks` and its
    /// switches (recorded: `r14k_m_event_object`, `m332_pre_null`,
    /// `m332_stop_object`, `m332_two_bad_same_group`,
    /// `m332_bad_group_matcher`, `m332_unknown_event`, `m332_amho_str`,
    /// `m332_amho_null`, `m332_disable_null`, `m332_pre_bad_hooks_only`,
    /// `r14k_m_badjson`).
    #[test]
    fn managed_hooks_drop_what_they_must_and_no_more() {
        let managed = |text: &str| {
            load_text(
                text,
                Path::new("/etc/claude-code/managed-settings.json"),
                Scope::Managed,
                None,
            )
        };
        let ups = r#""UserPromptSubmit":[{"hooks":[{"type":"command","command":"u"}]}]"#;
        let errors = |diags: &[Diagnostic]| {
            diags
                .iter()
                .filter(|d| d.severity == crate::diag::Severity::Error)
                .count()
        };
        // (the file's `hooks` besides `ups`, the groups left)
        for (hooks, groups) in [
            // A guard event's wrong list drops `hooks`, its `null` itself.
            (r#""PreToolUse":{}"#, 0),
            (r#""PreToolUse":null"#, 1),
            // Another event's wrong list, or an unknown event, itself.
            (r#""Stop":{}"#, 1),
            (r#""NotAnEvent":[{"hooks":[]}]"#, 1),
            // Each wrong entry alone; a wrong matcher group alone.
            (
                r#""Stop":[{"hooks":[{"type":"command"},{"type":"command","command":"s"},{"type":"command","command":5}]}]"#,
                2,
            ),
            (
                r#""Stop":[{"matcher":5,"hooks":[{"type":"command","command":"s"}]}]"#,
                1,
            ),
            // A guard hook where a matcher group belongs drops `hooks`.
            (r#""Stop":[{"PreToolUse":[{"hooks":[]}]}]"#, 0),
        ] {
            let text = format!(r#"{{"env":{{"M":"1"}},"hooks":{{{hooks},{ups}}}}}"#);
            let (file, diags) = managed(&text);
            assert!(!file.dropped, "{text}: {diags:?}");
            assert_eq!(file.groups.len(), groups, "{text}: {diags:?}");
            assert_eq!(file.env.len(), 1, "{text}");
            assert_eq!(errors(&diags), 0, "{text}: {diags:?}");
        }
        // A wrong `allowManagedHooksOnly` is `true`; its `null` is no
        // setting; a wrong or `null` `disableAllHooks` is ignored.
        for (setting, only, warned) in [
            (r#""allowManagedHooksOnly":"yes""#, Some(true), true),
            (r#""allowManagedHooksOnly":null"#, None, false),
            (r#""disableAllHooks":null"#, None, true),
        ] {
            let text = format!(r#"{{{setting},"hooks":{{{ups}}}}}"#);
            let (file, diags) = managed(&text);
            assert_eq!(file.allow_managed_hooks_only, only, "{text}");
            assert_eq!(file.disable_all_hooks, None, "{text}");
            assert_eq!(file.groups.len(), 1, "{text}");
            assert_eq!(!diags.is_empty(), warned, "{text}: {diags:?}");
        }
        // `hooks` that cannot be loaded for a guard, and nothing else:
        // Claude Code does not start; so with a file that is not JSON.
        for text in [
            format!(
                r#"{{"env":{{}},"hooks":{{"PreToolUse":[{{"hooks":[{{"type":"command"}}]}}],{ups}}}}}"#
            ),
            r#"{"env":{"M":"1"}"#.to_owned(),
            "[]".to_owned(),
        ] {
            let (file, diags) = managed(&text);
            assert!(file.dropped && file.groups.is_empty(), "{text}");
            let says = |d: &Diagnostic| {
                let hint = d.hint.as_deref().unwrap_or_default();
                d.severity == crate::diag::Severity::Error
                    && (d.message.contains("does not start") || hint.contains("does not start"))
            };
            assert!(diags.iter().any(says), "{text}: {diags:?}");
        }
    }

    /// What Claude Code 2.1.332 cleans before its check keeps the file
    /// (recorded: `claude-2.1.332/settings-cases.jsonl`).
    #[test]
    fn what_claude_code_cleans_first_keeps_the_file() {
        for (text, dropped) in [
            (r#"{"additionalMarketplaces":5}"#, false),
            (
                r#"{"allowedMarketplaces":5,"strictKnownMarketplaces":[]}"#,
                false,
            ),
            (r#"{"allowedMarketplaces":[5]}"#, true),
            (r#"{"managedMcpServers":5,"deniedModels":5}"#, false),
            (r#"{"strictKnownMarketplaces":null}"#, false),
            (r#"{"enabledMcpjsonServers":"abc"}"#, false),
            (r#"{"enabledMcpjsonServers":"a b"}"#, true),
            (r#"{"permissions":{"defaultMode":"manual"}}"#, false),
            (r#"{"permissions":{"defaultMode":"yolo"}}"#, true),
            (
                r#"{"modelPicker":{"options":[{"model":"m"},5],"replaceBuiltInOptions":"x"}}"#,
                false,
            ),
            (
                r#"{"modelPricing":{"multiplier":50,"overrides":{"m":5}}}"#,
                false,
            ),
            (r#"{"remoteControl":5}"#, false),
            (
                r#"{"extraKnownMarketplaces":{"m":{"source":{"source":"settings","name":"other","plugins":[]}}}}"#,
                false,
            ),
            // A source type Claude Code does not know keeps its entry, which
            // fails the file.
            (
                r#"{"extraKnownMarketplaces":{"m":{"source":{"source":"bogus"}}}}"#,
                true,
            ),
            (
                r#"{"sandbox":{"credentials":{"files":[{"path":"x","mode":"deny","extract":5}]}}}"#,
                false,
            ),
            (
                r#"{"sandbox":{"credentials":{"files":[{"path":"x","mode":"mask","extract":5}]}}}"#,
                true,
            ),
            (
                r#"{"hooks":{"Stop":[{"hooks":[{"type":"mcp_tool","server":"s","tool":"t","onFailure":5}]}]}}"#,
                false,
            ),
        ] {
            let (file, diags) = load(text);
            assert_eq!(file.dropped, dropped, "{text}: {diags:?}");
        }
        // Each removal is told.
        let (_, diags) = load(r#"{"modelPricing":{"multiplier":50}}"#);
        assert!(
            diags
                .iter()
                .any(|d| d.message.contains("`modelPricing.multiplier`")
                    && d.message.contains("ignores")),
            "{diags:?}"
        );
    }
}

#[cfg(test)]
mod claude_code_agreement {
    use super::*;

    /// Every settings file of `recordings/claude-2.1.332/settings-cases.jsonl`
    /// (made with `export_settings_cases.js` from Claude Code 2.1.332's own
    /// reading of a settings file: its cleaning, whose "fatal" errors drop
    /// the file, then its schema): latch keeps the file exactly when Claude
    /// Code does, except the few that only Claude Code's refinements reject
    /// (documented).
    #[test]
    fn files_are_kept_or_dropped_as_claude_code_does() {
        let mut disagree = Vec::new();
        let mut count = 0;
        for case in crate::dialect::claude::recorded_cases("claude-2.1.332/settings-cases.jsonl") {
            let input = case["input"].to_string();
            let accepted = case["accepted"] == true || case["refine_only"] == true;
            let (file, _) = load_text(
                &input,
                Path::new("/p/.claude/settings.json"),
                Scope::Project,
                None,
            );
            count += 1;
            if file.dropped == accepted {
                disagree.push(format!(
                    "{input}: Claude Code {}: {}",
                    if accepted { "keeps it" } else { "drops it" },
                    case["issues"]
                ));
            }
        }
        assert_eq!(count, 5354);
        assert!(
            disagree.is_empty(),
            "{} of {count} disagree:\n{}",
            disagree.len(),
            disagree
                .iter()
                .take(40)
                .cloned()
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}
