//! Loading an Evener hooks configuration (a `hooks.json` file, or the
//! inline `hooks` object of a manifest) into typed groups and handlers.
//!
//! Evener's rules: both the wrapper shape (`description` + `hooks`) and the
//! direct shape (events at the top level); a hook on a reserved or unknown
//! event loads with a loud warning and never runs; an invalid regex skips
//! its group; unsupported handler types are skipped; a handler without
//! `type`, or a malformed hooks array, is a load error naming the source,
//! event, matcher and handler index; unknown handler fields are reported and ignored.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::config::yaml::{Node, Value};
use crate::diag::{Diagnostic, Position, SourceRef};
use crate::matcher::{NameMatcher, PatternBudget, RegexMode};
use crate::run::Program;
use crate::text::closest;

use super::DIALECT;
use super::events::{EvEvent, EventName};

/// Default time limit of a command handler.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(60);
/// Default time limit of a prompt handler.
pub const PROMPT_TIMEOUT: Duration = Duration::from_secs(30);

/// Fields every handler may have.
pub const COMMON_FIELDS: [&str; 5] = ["type", "timeout", "if", "statusMessage", "once"];
/// Fields that parse but have no effect yet.
pub const RESERVED_FIELDS: [&str; 5] = ["if", "statusMessage", "once", "async", "asyncRewake"];
/// Fields of a command handler.
pub const COMMAND_FIELDS: [&str; 5] = ["command", "args", "shell", "async", "asyncRewake"];
/// Fields of a prompt handler.
pub const PROMPT_FIELDS: [&str; 2] = ["prompt", "model"];
/// Handler types Evener knows but does not run.
pub const RESERVED_TYPES: [&str; 3] = ["http", "mcp_tool", "agent"];

/// What a handler does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HandlerKind {
    /// Run a process. `Err` holds why it cannot run (an unsupported shell),
    /// reported at load and again as a failed run.
    Command(Result<Program, String>),
    /// Ask a model.
    Prompt {
        /// The prompt template, with `$TOOL_INPUT` and friends.
        prompt: String,
        /// The `provider/model` override.
        model: Option<String>,
    },
    /// A reserved handler type (`http`, `mcp_tool`, `agent`) or an unknown one.
    Unsupported(String),
}

/// One handler of a group.
#[derive(Debug, Clone)]
pub struct Handler {
    /// What it does.
    pub kind: HandlerKind,
    /// Its time limit.
    pub timeout: Duration,
    /// Where it was declared.
    pub source: SourceRef,
    /// Where its `command` is written, for command handlers.
    pub command_at: Option<Position>,
    /// Its `command` as written, for command handlers (also when it cannot
    /// run), to tell handlers apart.
    pub command_text: Option<String>,
    /// Where each reserved or unknown field is written (they have no
    /// effect; `explain` lists them).
    pub extra_at: BTreeMap<String, Position>,
}

/// A matcher as loaded.
#[derive(Debug, Clone)]
pub enum Matcher {
    /// A usable matcher.
    Valid(NameMatcher),
    /// A pattern that does not compile (lookbehind, backreferences, …): the
    /// group is skipped.
    Invalid(String),
}

/// A matcher group: one matcher and its handlers.
#[derive(Debug, Clone)]
pub struct Group {
    /// The event it is declared for.
    pub event: EventName,
    /// The matcher as written (trimmed).
    pub matcher_text: String,
    /// The compiled matcher.
    pub matcher: Matcher,
    /// Where the matcher is written, if it is.
    pub matcher_at: Option<Position>,
    /// The handlers, in order.
    pub handlers: Vec<Handler>,
    /// Where the group was declared.
    pub source: SourceRef,
    /// Keys of the group other than `matcher` and `hooks`, which evener
    /// ignores, with where each is written.
    pub ignored_keys: Vec<(String, Position)>,
}

/// Loads the hooks configuration rooted at `root` (a whole file, or a
/// manifest's inline object) for plugin `plugin` whose directory is `dir`.
pub fn load_config(
    root: &Node,
    file: &Path,
    plugin: &str,
    dir: &Path,
) -> (Vec<Group>, Vec<Diagnostic>) {
    let mut l = Loader {
        file,
        plugin,
        dir,
        diags: Vec::new(),
        groups: Vec::new(),
        budget: PatternBudget::per_file(),
    };
    l.root(root);
    // Report in file order, whatever order the checks ran in.
    l.diags.sort_by_key(|d| d.position);
    (l.groups, l.diags)
}

struct Loader<'a> {
    file: &'a Path,
    plugin: &'a str,
    dir: &'a Path,
    diags: Vec<Diagnostic>,
    groups: Vec<Group>,
    /// The compile work this file's matchers may still spend.
    budget: PatternBudget,
}

impl Loader<'_> {
    fn push(&mut self, d: Diagnostic, at: Position) -> &mut Diagnostic {
        self.diags.push(
            d.in_file(self.file)
                .at(Some(at))
                .for_dialect(DIALECT)
                .for_hook(self.plugin),
        );
        let last = self.diags.len() - 1;
        &mut self.diags[last]
    }

    fn source(&self, at: Position) -> SourceRef {
        SourceRef {
            file: self.file.to_path_buf(),
            position: Some(at),
        }
    }

    fn root(&mut self, root: &Node) {
        let Some(entries) = root.as_map() else {
            self.push(
                Diagnostic::error(format!(
                    "hooks configuration must be a JSON object, found {}",
                    root.json_kind()
                )),
                root.position,
            );
            return;
        };
        // The wrapper shape has a `hooks` object; the direct shape has events
        // at the top level (no event is called `hooks`).
        if let Some(hooks) = root.get("hooks") {
            // Other top-level keys are ignored silently (`$schema`, a
            // description, a settings file's other keys); only one that looks
            // like hooks put in the wrong place is a load problem.
            for (k, _) in entries {
                let key = k.scalar_text();
                if key == "hooks" {
                    continue;
                }
                let misplaced_event = !matches!(EventName::classify(&key), EventName::Unknown(_));
                if misplaced_event {
                    self.push(
                        Diagnostic::warning(format!(
                            "event \"{key}\" is declared next to \"hooks\", not inside it; it is ignored"
                        )),
                        k.position,
                    )
                    .hint = Some(format!("move \"{key}\" into the \"hooks\" object"));
                } else if let Some(c) = closest(&key, ["hooks"]) {
                    self.push(
                        Diagnostic::warning(format!(
                            "unknown top-level field \"{key}\" next to \"hooks\"; it is ignored"
                        )),
                        k.position,
                    )
                    .hint = Some(format!("did you mean \"{c}\"?"));
                }
            }
            match hooks.as_map() {
                Some(events) => self.events(events),
                None => {
                    self.push(
                        Diagnostic::error(format!(
                            "\"hooks\" must be an object keyed by event name, found {}",
                            hooks.json_kind()
                        )),
                        hooks.position,
                    );
                }
            }
        } else {
            let events: Vec<(Node, Node)> = entries
                .iter()
                .filter(|(k, _)| k.as_str() != Some("description"))
                .cloned()
                .collect();
            self.events(&events);
        }
    }

    fn events(&mut self, events: &[(Node, Node)]) {
        for (key, list) in events {
            let name = EventName::classify(&key.scalar_text());
            match &name {
                EventName::Fired(_) => {}
                EventName::Reserved(n) => {
                    self.push(
                        Diagnostic::warning(format!(
                            "{n} hook declared for a reserved event evener does not yet fire; this hook will not run."
                        )),
                        key.position,
                    )
                    .event = Some(n.clone());
                }
                EventName::Unknown(n) => {
                    let hint = closest(n, EvEvent::ALL.map(EvEvent::as_str))
                        .map(|c| format!("did you mean \"{c}\"?"));
                    let d = self.push(
                        Diagnostic::warning(format!(
                            "\"{n}\" is not a recognized Claude or evener event (likely a typo); this hook will never fire."
                        )),
                        key.position,
                    );
                    d.event = Some(n.clone());
                    d.hint = hint;
                }
            }
            self.groups_of(&name, list);
        }
    }

    fn groups_of(&mut self, event: &EventName, list: &Node) {
        let ev = event.as_str().to_owned();
        let Value::Seq(groups) = &list.value else {
            self.push(
                Diagnostic::error(format!(
                    "malformed hooks array: \"{ev}\" must be an array of matcher groups, found {}",
                    list.json_kind()
                )),
                list.position,
            )
            .event = Some(ev.clone());
            return;
        };
        for (gi, g) in groups.iter().enumerate() {
            let Some(_) = g.as_map() else {
                self.push(
                    Diagnostic::error(format!(
                        "malformed hooks array: \"{ev}\" group {gi} must be an object with \"matcher\" and \"hooks\", found {}",
                        g.json_kind()
                    )),
                    g.position,
                )
                .event = Some(ev.clone());
                continue;
            };
            // A group's other keys (`description`, `id`, …) are ignored
            // silently, as documented; only a misspelt `matcher` or `hooks`, or
            // a handler's field written on the group, changes what runs.
            let mut ignored_keys = Vec::new();
            for (k, _) in g.as_map().unwrap_or(&[]) {
                let key = k.scalar_text();
                if key == "matcher" || key == "hooks" {
                    continue;
                }
                let typo = closest(&key, ["matcher", "hooks"]);
                let handler_field = COMMON_FIELDS.contains(&key.as_str())
                    || COMMAND_FIELDS.contains(&key.as_str())
                    || PROMPT_FIELDS.contains(&key.as_str());
                if let Some(c) = typo {
                    let d = self.push(
                        Diagnostic::warning(format!(
                            "unknown field \"{key}\" in a \"{ev}\" matcher group; it is ignored"
                        )),
                        k.position,
                    );
                    d.event = Some(ev.clone());
                    d.hint = Some(format!("did you mean \"{c}\"?"));
                } else if handler_field {
                    let d = self.push(
                        Diagnostic::warning(format!(
                            "handler field \"{key}\" is written on a \"{ev}\" matcher group, not on a handler in its \"hooks\"; it is ignored"
                        )),
                        k.position,
                    );
                    d.event = Some(ev.clone());
                    d.hint = Some(format!(
                        "move \"{key}\" into a handler: {{\"matcher\": …, \"hooks\": [{{\"type\": \"command\", …}}]}}"
                    ));
                }
                ignored_keys.push((key, k.position));
            }
            let matcher_text = match g.get("matcher") {
                None => String::new(),
                Some(m) => match &m.value {
                    Value::Null => String::new(),
                    Value::Str(s) => s.trim().to_owned(),
                    _ => {
                        self.push(
                            Diagnostic::error(format!(
                                "\"{ev}\" group {gi}: \"matcher\" must be a string, found {}; the group is skipped",
                                m.json_kind()
                            )),
                            m.position,
                        )
                        .event = Some(ev.clone());
                        continue;
                    }
                },
            };
            let matcher = match NameMatcher::parse_in(
                &matcher_text,
                RegexMode::Search,
                &mut self.budget,
            ) {
                Ok(m) => Matcher::Valid(m),
                Err(e) if !e.reported() => Matcher::Invalid(e.to_string()),
                Err(e) => {
                    let at = g.get("matcher").map_or(g.position, |m| m.position);
                    let d = self.push(
                        Diagnostic::warning(format!(
                            "plugin {}: invalid matcher regex \"{}\" for {ev}: {}; the hook is skipped",
                            self.plugin,
                            crate::matcher::pattern::shown(&matcher_text),
                            e
                        )),
                        at,
                    );
                    d.event = Some(ev.clone());
                    d.hint =
                        Some("Evener matches with RE2: no lookbehind, no backreferences".into());
                    Matcher::Invalid(e.to_string())
                }
            };
            let handlers = match g.get("hooks") {
                Some(Node {
                    value: Value::Seq(hs),
                    ..
                }) => hs
                    .iter()
                    .enumerate()
                    .filter_map(|(hi, h)| self.handler(&ev, &matcher_text, hi, h))
                    .collect(),
                Some(other) => {
                    self.push(
                        Diagnostic::error(format!(
                            "malformed hooks array: \"{ev}\" matcher \"{matcher_text}\": \"hooks\" must be an array of handlers, found {}",
                            other.json_kind()
                        )),
                        other.position,
                    )
                    .event = Some(ev.clone());
                    continue;
                }
                None => {
                    self.push(
                        Diagnostic::error(format!(
                            "malformed hooks array: \"{ev}\" matcher \"{matcher_text}\" has no \"hooks\" array"
                        )),
                        g.position,
                    )
                    .event = Some(ev.clone());
                    continue;
                }
            };
            self.groups.push(Group {
                event: event.clone(),
                matcher_text,
                matcher,
                matcher_at: g.get("matcher").map(|m| m.position),
                handlers,
                ignored_keys,
                source: self.source(g.position),
            });
        }
    }

    fn handler(&mut self, ev: &str, matcher: &str, index: usize, h: &Node) -> Option<Handler> {
        let place = format!("\"{ev}\" matcher \"{matcher}\" handler {index}");
        let Some(fields) = h.as_map() else {
            self.push(
                Diagnostic::error(format!(
                    "{place} must be an object, found {}",
                    h.json_kind()
                )),
                h.position,
            )
            .event = Some(ev.to_owned());
            return None;
        };
        let type_name = match h.get("type").map(|t| (t, t.as_str())) {
            Some((_, Some(t))) => t.to_owned(),
            Some((t, None)) => {
                self.push(
                    Diagnostic::error(format!(
                        "{place}: \"type\" must be a string, found {}",
                        t.json_kind()
                    )),
                    t.position,
                )
                .event = Some(ev.to_owned());
                return None;
            }
            None => {
                let d = self.push(
                    Diagnostic::error(format!(
                        "{place} has no \"type\"; the handler is not loaded"
                    )),
                    h.position,
                );
                d.event = Some(ev.to_owned());
                d.hint = Some("add \"type\": \"command\"".into());
                return None;
            }
        };
        let default_timeout = if type_name == "prompt" {
            PROMPT_TIMEOUT
        } else {
            COMMAND_TIMEOUT
        };
        let timeout = match h.get("timeout") {
            None => default_timeout,
            Some(t) => match t.seconds() {
                Ok(d) => d,
                Err(_) => {
                    let found = match t.value {
                        Value::Int(_) | Value::Float(_) => t.scalar_text(),
                        _ => t.json_kind().to_owned(),
                    };
                    self.push(
                        Diagnostic::warning(format!(
                            "{place}: \"timeout\" must be a positive number of seconds, found {found}; the default of {} s is used",
                            default_timeout.as_secs()
                        )),
                        t.position,
                    )
                    .event = Some(ev.to_owned());
                    default_timeout
                }
            },
        };
        let type_fields: &[&str] = match type_name.as_str() {
            "command" => &COMMAND_FIELDS,
            "prompt" => &PROMPT_FIELDS,
            _ => &[],
        };
        let mut extra_at = BTreeMap::new();
        for (k, _) in fields {
            let key = k.scalar_text();
            if RESERVED_FIELDS.contains(&key.as_str())
                && (COMMON_FIELDS.contains(&key.as_str()) || type_fields.contains(&key.as_str()))
            {
                self.push(
                    Diagnostic::new(
                        crate::diag::Severity::Info,
                        format!("{place}: \"{key}\" is parsed but reserved; it has no effect yet"),
                    ),
                    k.position,
                )
                .event = Some(ev.to_owned());
                extra_at.insert(key, k.position);
            } else if !COMMON_FIELDS.contains(&key.as_str()) && !type_fields.contains(&key.as_str())
            {
                // Unknown handler fields are not errors: reported, then ignored.
                self.push(
                    Diagnostic::new(
                        crate::diag::Severity::Info,
                        format!("{place}: unknown field \"{key}\" is kept but has no effect"),
                    ),
                    k.position,
                )
                .event = Some(ev.to_owned());
                extra_at.insert(key, k.position);
            }
        }
        let kind = match type_name.as_str() {
            "command" => HandlerKind::Command(self.command(&place, ev, h)?),
            "prompt" => {
                let prompt = match h.get("prompt").and_then(Node::as_str) {
                    Some(p) if !p.trim().is_empty() => p.to_owned(),
                    _ => {
                        self.push(
                            Diagnostic::error(format!(
                                "{place}: a prompt handler needs a non-empty \"prompt\" string"
                            )),
                            h.position,
                        )
                        .event = Some(ev.to_owned());
                        return None;
                    }
                };
                let model = h.get("model").and_then(Node::as_str).map(str::to_owned);
                HandlerKind::Prompt { prompt, model }
            }
            other => {
                let known = RESERVED_TYPES.contains(&other);
                let at = h.get("type").map_or(h.position, |t| t.position);
                self.push(
                    Diagnostic::warning(if known {
                        format!(
                            "plugin {}: {ev} handler type \"{other}\" is reserved and not run yet; the handler is skipped",
                            self.plugin
                        )
                    } else {
                        format!(
                            "plugin {}: {ev} handler type \"{other}\" is not a handler type (command, prompt); the handler is skipped",
                            self.plugin
                        )
                    }),
                    at,
                )
                .event = Some(ev.to_owned());
                HandlerKind::Unsupported(other.to_owned())
            }
        };
        Some(Handler {
            kind,
            timeout,
            command_at: h.get("command").map(|c| c.position),
            command_text: h.get("command").and_then(Node::as_str).map(str::to_owned),
            source: self.source(h.position),
            extra_at,
        })
    }

    /// Builds the command's program: exec form when `args` is non-empty,
    /// else `bash -c` (the only shell Evener supports).
    fn command(&mut self, place: &str, ev: &str, h: &Node) -> Option<Result<Program, String>> {
        let command = match h.get("command").and_then(Node::as_str) {
            Some(c) if !c.trim().is_empty() => c.to_owned(),
            _ => {
                self.push(
                    Diagnostic::error(format!(
                        "{place}: a command handler needs a non-empty \"command\" string"
                    )),
                    h.position,
                )
                .event = Some(ev.to_owned());
                return None;
            }
        };
        let args: Vec<String> = match h.get("args") {
            None => Vec::new(),
            Some(Node {
                value: Value::Seq(items),
                ..
            }) => {
                let mut args = Vec::new();
                for a in items {
                    match &a.value {
                        Value::Str(s) => args.push(self.expand(s)),
                        Value::Int(_) | Value::Float(_) | Value::Bool(_) => {
                            args.push(a.scalar_text())
                        }
                        _ => {
                            self.push(
                                Diagnostic::error(format!(
                                    "{place}: each of \"args\" must be a string, found {}",
                                    a.json_kind()
                                )),
                                a.position,
                            )
                            .event = Some(ev.to_owned());
                            return None;
                        }
                    }
                }
                args
            }
            Some(other) => {
                self.push(
                    Diagnostic::error(format!(
                        "{place}: \"args\" must be an array of strings, found {}",
                        other.json_kind()
                    )),
                    other.position,
                )
                .event = Some(ev.to_owned());
                return None;
            }
        };
        if !args.is_empty() {
            return Some(Ok(Program::Exec {
                program: PathBuf::from(self.expand(&command)),
                args,
            }));
        }
        let shell = h.get("shell");
        let bad = match shell.map(|s| (s, s.as_str())) {
            None | Some((_, Some("bash"))) => None,
            Some((_, Some("powershell"))) => Some(
                "shell \"powershell\" is reserved and not supported on this platform".to_owned(),
            ),
            Some((_, Some(other))) => Some(format!(
                "shell \"{other}\" is not supported (only \"bash\")"
            )),
            Some((s, None)) => Some(format!(
                "\"shell\" must be a string, found {}",
                s.json_kind()
            )),
        };
        if let Some(why) = bad {
            let at = shell.map_or(h.position, |s| s.position);
            let d = self.push(
                Diagnostic::error(format!(
                    "{place}: {why}; the handler will fail when it runs"
                )),
                at,
            );
            d.event = Some(ev.to_owned());
            d.hint = Some(
                "omit \"shell\" or set it to \"bash\"; Evener never falls back silently".into(),
            );
            return Some(Err(why));
        }
        // In shell form bash expands `${CLAUDE_PLUGIN_ROOT}` itself from the
        // environment latch sets: the same value as a textual expansion,
        // without pasting a directory name (which may hold `$(…)`) into a
        // script.
        Some(Ok(Program::Shell {
            shell: PathBuf::from("bash"),
            script: command,
        }))
    }

    /// Expands `${CLAUDE_PLUGIN_ROOT}` and `${PLUGIN_ROOT}` (at load, as Evener does).
    fn expand(&self, s: &str) -> String {
        expand_root(s, self.dir)
    }
}

/// Replaces `${CLAUDE_PLUGIN_ROOT}` and `${PLUGIN_ROOT}` with the plugin directory.
pub fn expand_root(s: &str, dir: &Path) -> String {
    let root = dir.to_string_lossy();
    s.replace("${CLAUDE_PLUGIN_ROOT}", &root)
        .replace("${PLUGIN_ROOT}", &root)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::json;

    fn load(text: &str) -> (Vec<Group>, Vec<Diagnostic>) {
        let node = json::parse(text).expect("valid JSON");
        load_config(&node, Path::new("hooks.json"), "p", Path::new("/plug"))
    }

    #[test]
    fn default_timeouts_are_60_s_for_commands_and_30_s_for_prompts() {
        let (groups, _) = load(
            r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"x"},{"type":"prompt","prompt":"y"},{"type":"command","command":"z","timeout":5}]}]}}"#,
        );
        let t: Vec<u64> = groups[0]
            .handlers
            .iter()
            .map(|h| h.timeout.as_secs())
            .collect();
        assert_eq!(t, [60, 30, 5]);
    }

    #[test]
    fn plugin_root_is_expanded_in_command_and_args_at_load() {
        let (groups, _) = load(
            r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"${CLAUDE_PLUGIN_ROOT}/a","args":["${PLUGIN_ROOT}/b","$HOME"]},{"type":"command","command":"${PLUGIN_ROOT}/c --x"}]}]}}"#,
        );
        match &groups[0].handlers[0].kind {
            HandlerKind::Command(Ok(Program::Exec { program, args })) => {
                assert_eq!(program, Path::new("/plug/a"));
                assert_eq!(args, &["/plug/b", "$HOME"]);
            }
            other => panic!("{other:?}"),
        }
        match &groups[0].handlers[1].kind {
            HandlerKind::Command(Ok(Program::Shell { shell, script })) => {
                assert_eq!(shell, Path::new("bash"));
                assert_eq!(
                    script, "${PLUGIN_ROOT}/c --x",
                    "bash expands it from the environment"
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_empty_args_array_is_shell_form() {
        let (groups, _) =
            load(r#"{"Stop":[{"hooks":[{"type":"command","command":"a b","args":[]}]}]}"#);
        assert!(matches!(
            &groups[0].handlers[0].kind,
            HandlerKind::Command(Ok(Program::Shell { .. }))
        ));
    }

    #[test]
    fn groups_on_reserved_and_unknown_events_are_kept_but_classified() {
        let (groups, diags) = load(r#"{"Setup":[{"hooks":[]}],"Stopp":[{"hooks":[]}]}"#);
        assert_eq!(groups[0].event, EventName::Reserved("Setup".into()));
        assert_eq!(groups[1].event, EventName::Unknown("Stopp".into()));
        assert_eq!(diags.len(), 2);
        assert_eq!(diags[1].hint.as_deref(), Some("did you mean \"Stop\"?"));
    }
}
