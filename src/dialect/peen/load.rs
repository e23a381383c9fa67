//! Loading one `.agents/hooks.yaml` strictly.
//!
//! Peen's YAML is strict: any problem listed in the spec makes the whole
//! file invalid, and the file is skipped (other layers keep working). latch
//! collects every problem of the file, each with its line and column, so a
//! user fixes them all at once.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value as Json;

use crate::config::duration::parse_go_duration;
use crate::config::yaml::{self, Node, Value};
use crate::diag::{Diagnostic, Position, SourceRef};
use crate::matcher::pattern::{self, PatternBudget, shown};
use crate::text::closest;

use super::DIALECT;
use super::events::PeenEvent;
use super::matching::{Check, Match, parse_pointer};

/// What a failed action does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnFailure {
    /// The failure counts as a deny.
    Deny,
    /// Log, publish `hook.action.failed`, and carry on.
    Continue,
}

/// A session event an action publishes.
#[derive(Debug, Clone, PartialEq)]
pub struct EventSpec {
    /// The session event's type, such as `repo.file.changed`.
    pub event_type: String,
    /// One line for the model.
    pub summary: String,
    /// A JSON object.
    pub data: Option<Json>,
    /// `queue` or `wake`.
    pub delivery: Option<String>,
}

/// A `command` action's process.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandSpec {
    /// The executable.
    pub command: String,
    /// Where `command` is written.
    pub command_at: Option<Position>,
    /// Its arguments.
    pub args: Vec<String>,
    /// Variables added to `PATH`.
    pub environment: Vec<(String, String)>,
    /// Relative to the agent's current directory.
    pub working_dir: Option<String>,
    /// Its own limit; `None` uses `PEEN_DEFAULT_HOOK_COMMAND_TIMEOUT`.
    pub timeout: Option<Duration>,
}

/// What an action does.
#[derive(Debug, Clone, PartialEq)]
pub enum ActionKind {
    /// Stop the operation with this reason.
    Deny(String),
    /// Give the model this text.
    Inject(String),
    /// Publish a session event.
    EmitEvent(EventSpec),
    /// Run an executable.
    Command(CommandSpec),
}

impl ActionKind {
    /// The action type as written.
    pub fn type_name(&self) -> &'static str {
        match self {
            ActionKind::Deny(_) => "deny",
            ActionKind::Inject(_) => "inject",
            ActionKind::EmitEvent(_) => "emitEvent",
            ActionKind::Command(_) => "command",
        }
    }
}

/// One action.
#[derive(Debug, Clone)]
pub struct Action {
    /// Its name, or `<type>-<position>`.
    pub name: String,
    /// Its `when`.
    pub when: Option<Match>,
    /// Its `onFailure`, if set.
    pub on_failure: Option<OnFailure>,
    /// What it does.
    pub kind: ActionKind,
    /// Where it was written.
    pub source: SourceRef,
}

/// One group.
#[derive(Debug, Clone)]
pub struct Group {
    /// Its name, or `<event>-<position>`.
    pub name: String,
    /// The event it runs on.
    pub event: PeenEvent,
    /// Its `match`.
    pub matcher: Option<Match>,
    /// Its actions, in order.
    pub actions: Vec<Action>,
    /// Where it was written.
    pub source: SourceRef,
}

/// A valid hooks file.
#[derive(Debug, Clone)]
pub struct HooksFile {
    /// Its path.
    pub path: PathBuf,
    /// Its groups, in file order.
    pub groups: Vec<Group>,
}

/// Fields of a group.
pub const GROUP_FIELDS: [&str; 3] = ["name", "match", "actions"];
/// Fields of a `match` or `when`.
pub const MATCH_FIELDS: [&str; 5] = ["tool", "root", "path", "extensions", "input"];
/// Fields of an input check.
pub const CHECK_FIELDS: [&str; 3] = ["exists", "equals", "regex"];
/// Every action type shares one set of field names.
pub const ACTION_FIELDS: [&str; 16] = [
    "name",
    "type",
    "when",
    "onFailure",
    "reason",
    "message",
    "messageFile",
    "eventType",
    "summary",
    "data",
    "delivery",
    "command",
    "args",
    "environment",
    "workingDir",
    "timeout",
];
/// The action types.
pub const ACTION_TYPES: [&str; 4] = ["deny", "inject", "emitEvent", "command"];

/// Checks a session event type: 1 to 8 lowercase dotted parts, each
/// starting with a letter and holding only letters and digits, at most 128
/// characters, not starting with `job.` or `agent.`.
pub fn check_event_type(t: &str) -> Result<(), String> {
    if t.starts_with("job.") || t.starts_with("agent.") {
        return Err(format!(
            "event type {t:?} starts with a prefix reserved for peen (job. or agent.)"
        ));
    }
    if t.is_empty() || t.len() > 128 {
        return Err(format!("event type {t:?} must have 1 to 128 characters"));
    }
    let parts: Vec<&str> = t.split('.').collect();
    if parts.len() > 8 {
        return Err(format!("event type {t:?} has more than 8 dotted parts"));
    }
    for p in parts {
        let mut chars = p.chars();
        let ok = chars.next().is_some_and(|c| c.is_ascii_lowercase())
            && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
        if !ok {
            return Err(format!(
                "event type {t:?}: each dotted part must start with a lowercase letter and hold only lowercase letters and digits"
            ));
        }
    }
    Ok(())
}

/// Loads one hooks file. `Err` holds every reason the file is invalid; the
/// caller skips the whole file.
pub fn load_file(path: &Path, text: &str) -> Result<HooksFile, Vec<Diagnostic>> {
    let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    let mut l = Loader {
        path,
        dir,
        problems: Vec::new(),
        budget: PatternBudget::per_file(),
    };
    let root = match yaml::parse(text) {
        Ok(r) => r,
        Err(e) => {
            l.problem(e.position, format!("invalid YAML: {}", e.message));
            return Err(l.finish());
        }
    };
    let groups = l.root(&root);
    if l.problems.is_empty() {
        Ok(HooksFile {
            path: path.to_path_buf(),
            groups,
        })
    } else {
        Err(l.finish())
    }
}

struct Loader<'a> {
    path: &'a Path,
    dir: PathBuf,
    problems: Vec<(Option<Position>, String)>,
    /// The compile work this file's globs and regexes may still spend.
    budget: PatternBudget,
}

impl Loader<'_> {
    fn problem(&mut self, at: Option<Position>, msg: String) {
        self.problems.push((at, msg));
    }

    /// A string, number or boolean as text; anything else is a problem.
    fn scalar(&mut self, n: &Node, what: &str) -> Option<String> {
        match &n.value {
            Value::Str(s) => Some(s.clone()),
            Value::Int(_) | Value::Float(_) | Value::Bool(_) => Some(n.scalar_text()),
            _ => {
                self.problem(
                    Some(n.position),
                    format!("{what} must be a string, found {}", n.kind()),
                );
                None
            }
        }
    }

    fn finish(mut self) -> Vec<Diagnostic> {
        self.problems.sort_by_key(|(p, _)| *p);
        self.problems
            .into_iter()
            .map(|(at, msg)| {
                Diagnostic::warning(format!("{}: {msg}", super::SKIPPED))
                    .in_file(self.path)
                    .at(at)
                    .for_dialect(DIALECT)
            })
            .collect()
    }

    fn unknown_fields(&mut self, node: &Node, allowed: &[&str], what: &str) {
        for (k, _) in node.as_map().unwrap_or(&[]) {
            let key = k.scalar_text();
            if !allowed.contains(&key.as_str()) {
                let hint = closest(&key, allowed.iter().copied())
                    .map(|c| format!(" (did you mean `{c}`?)"))
                    .unwrap_or_default();
                self.problem(
                    Some(k.position),
                    format!("unknown field `{key}` in {what}{hint}"),
                );
            }
        }
    }

    /// The optional field `what` as text (see [`Loader::scalar`]).
    fn string(&mut self, node: Option<&Node>, what: &str) -> Option<String> {
        self.scalar(node?, &format!("`{what}`"))
    }

    fn root(&mut self, root: &Node) -> Vec<Group> {
        let Some(entries) = root.as_map() else {
            self.problem(
                Some(root.position),
                format!("the file must be a mapping, found {}", root.kind()),
            );
            return Vec::new();
        };
        match root.get("version") {
            Some(Node {
                value: Value::Int(1),
                ..
            }) => {}
            Some(v) => self.problem(
                Some(v.position),
                format!("`version` must be 1, found {}", v.scalar_text()),
            ),
            None => self.problem(Some(root.position), "`version: 1` is required".to_owned()),
        }
        let mut groups = Vec::new();
        for (k, v) in entries {
            let key = k.scalar_text();
            if key == "version" {
                continue;
            }
            let Some(event) = PeenEvent::from_name(&key) else {
                let names: Vec<String> = PeenEvent::all().iter().map(PeenEvent::name).collect();
                let hint = closest(&key, names.iter().map(String::as_str))
                    .map(|c| format!(" (did you mean `{c}`?)"))
                    .unwrap_or_default();
                self.problem(
                    Some(k.position),
                    format!("unknown hook event `{key}`{hint}"),
                );
                continue;
            };
            let Value::Seq(items) = &v.value else {
                self.problem(
                    Some(v.position),
                    format!("`{key}` must be a list of groups, found {}", v.kind()),
                );
                continue;
            };
            for (i, g) in items.iter().enumerate() {
                if let Some(group) = self.group(&event, i + 1, g) {
                    groups.push(group);
                }
            }
        }
        groups
    }

    fn group(&mut self, event: &PeenEvent, position: usize, g: &Node) -> Option<Group> {
        if g.as_map().is_none() {
            self.problem(
                Some(g.position),
                format!("a `{event}` group must be a mapping, found {}", g.kind()),
            );
            return None;
        }
        self.unknown_fields(g, &GROUP_FIELDS, "a group");
        let name = self
            .string(g.get("name"), "name")
            .unwrap_or_else(|| format!("{event}-{position}"));
        let matcher = g.get("match").and_then(|m| self.matcher(m, "match"));
        let actions = match g.get("actions") {
            Some(Node {
                value: Value::Seq(items),
                position: at,
            }) => {
                if items.is_empty() {
                    self.problem(
                        Some(*at),
                        format!("group `{name}` has an empty `actions` list"),
                    );
                }
                items
                    .iter()
                    .enumerate()
                    .filter_map(|(i, a)| self.action(i + 1, a))
                    .collect()
            }
            Some(other) => {
                self.problem(
                    Some(other.position),
                    format!("`actions` must be a list, found {}", other.kind()),
                );
                Vec::new()
            }
            None => {
                self.problem(
                    Some(g.position),
                    format!("group `{name}` needs a non-empty `actions` list"),
                );
                Vec::new()
            }
        };
        Some(Group {
            name,
            event: event.clone(),
            matcher,
            actions,
            source: SourceRef {
                file: self.path.to_path_buf(),
                position: Some(g.position),
            },
        })
    }

    fn matcher(&mut self, m: &Node, what: &str) -> Option<Match> {
        if m.as_map().is_none() {
            self.problem(
                Some(m.position),
                format!("`{what}` must be a mapping, found {}", m.kind()),
            );
            return None;
        }
        self.unknown_fields(m, &MATCH_FIELDS, &format!("`{what}`"));
        let mut out = Match {
            tool: self.string(m.get("tool"), "tool"),
            tool_at: m.get("tool").map(|t| t.position),
            root: self.string(m.get("root"), "root"),
            ..Match::default()
        };
        if let Some(p) = m.get("path")
            && let Some(glob) = self.string(Some(p), "path")
        {
            match pattern::check_glob(&glob, &mut self.budget) {
                Ok(g) => out.path = Some(g),
                Err(e) if !e.reported() => {}
                Err(e) => self.problem(
                    Some(p.position),
                    format!("invalid glob {:?}: {e}", shown(&glob)),
                ),
            }
        }
        if let Some(e) = m.get("extensions") {
            match &e.value {
                Value::Seq(items) => {
                    let mut exts = Vec::new();
                    for it in items {
                        match it.as_str() {
                            Some(s) if s.starts_with('.') && s.len() > 1 => exts.push(s.to_owned()),
                            _ => self.problem(
                                Some(it.position),
                                format!("each extension must start with \".\", such as \".go\"; found {}", it.scalar_text()),
                            ),
                        }
                    }
                    out.extensions = Some(exts);
                }
                _ => self.problem(
                    Some(e.position),
                    format!("`extensions` must be a list, found {}", e.kind()),
                ),
            }
        }
        if let Some(input) = m.get("input") {
            match input.as_map() {
                Some(entries) => {
                    for (k, check) in entries {
                        let ptr_text = k.scalar_text();
                        let ptr = match parse_pointer(&ptr_text) {
                            Ok(p) => p,
                            Err(e) => {
                                self.problem(Some(k.position), e);
                                continue;
                            }
                        };
                        if let Some(c) = self.check(&ptr_text, check) {
                            out.input.push((ptr_text.clone(), ptr, c));
                        }
                    }
                }
                None => self.problem(
                    Some(input.position),
                    format!("`input` must be a mapping, found {}", input.kind()),
                ),
            }
        }
        Some(out)
    }

    fn check(&mut self, ptr: &str, c: &Node) -> Option<Check> {
        if c.as_map().is_none() {
            self.problem(
                Some(c.position),
                format!(
                    "the check for {ptr:?} must be a mapping, found {}",
                    c.kind()
                ),
            );
            return None;
        }
        self.unknown_fields(c, &CHECK_FIELDS, "an input check");
        let exists = match c.get("exists") {
            None => None,
            Some(Node {
                value: Value::Bool(b),
                ..
            }) => Some(*b),
            Some(other) => {
                self.problem(
                    Some(other.position),
                    format!(
                        "`exists` must be true or false, found {}",
                        other.scalar_text()
                    ),
                );
                None
            }
        };
        // `equals: null` counts as no check.
        let equals = c.get("equals").map(Node::to_json).filter(|v| !v.is_null());
        let regex = match c.get("regex") {
            None => None,
            Some(r) => {
                let pattern = self.string(Some(r), "regex")?;
                match pattern::check_regex(&pattern, &mut self.budget) {
                    Ok(re) => Some(re),
                    Err(e) => {
                        if e.reported() {
                            self.problem(
                                Some(r.position),
                                format!("invalid regular expression {:?}: {e}", shown(&pattern)),
                            );
                        }
                        None
                    }
                }
            }
        };
        if exists.is_none() && equals.is_none() && c.get("regex").is_none() {
            self.problem(
                Some(c.position),
                format!("the input check for {ptr:?} has no check (`equals: null` is none); use `exists: false` to match a missing field"),
            );
            return None;
        }
        Some(Check {
            exists,
            equals,
            regex,
        })
    }

    fn action(&mut self, position: usize, a: &Node) -> Option<Action> {
        if a.as_map().is_none() {
            self.problem(
                Some(a.position),
                format!("an action must be a mapping, found {}", a.kind()),
            );
            return None;
        }
        self.unknown_fields(a, &ACTION_FIELDS, "an action");
        let type_name = match a.get("type") {
            Some(t) => match t.as_str() {
                Some(s) if ACTION_TYPES.contains(&s) => s.to_owned(),
                _ => {
                    let hint = closest(&t.scalar_text(), ACTION_TYPES)
                        .map(|c| format!(" (did you mean `{c}`?)"))
                        .unwrap_or_default();
                    self.problem(
                        Some(t.position),
                        format!("unknown action type `{}`; use deny, inject, emitEvent or command{hint}", t.scalar_text()),
                    );
                    return None;
                }
            },
            None => {
                self.problem(Some(a.position), "an action needs a `type`".to_owned());
                return None;
            }
        };
        let name = self
            .string(a.get("name"), "name")
            .unwrap_or_else(|| format!("{type_name}-{position}"));
        let when = a.get("when").and_then(|w| self.matcher(w, "when"));
        let on_failure = match a.get("onFailure").map(|n| (n, n.as_str())) {
            None => None,
            Some((_, Some("deny"))) => Some(OnFailure::Deny),
            Some((_, Some("continue"))) => Some(OnFailure::Continue),
            Some((n, _)) => {
                self.problem(
                    Some(n.position),
                    format!(
                        "`onFailure` must be deny or continue, found {}",
                        n.scalar_text()
                    ),
                );
                None
            }
        };
        let kind = match type_name.as_str() {
            "deny" => match self.string(a.get("reason"), "reason") {
                Some(r) if !r.trim().is_empty() => ActionKind::Deny(r),
                _ => {
                    self.problem(
                        Some(a.position),
                        format!("deny action `{name}` needs a `reason`"),
                    );
                    return None;
                }
            },
            "inject" => ActionKind::Inject(self.inject(&name, a)?),
            "emitEvent" => ActionKind::EmitEvent(self.emit(&name, a)?),
            _ => ActionKind::Command(self.command(&name, a)?),
        };
        Some(Action {
            name,
            when,
            on_failure,
            kind,
            source: SourceRef {
                file: self.path.to_path_buf(),
                position: Some(a.position),
            },
        })
    }

    fn inject(&mut self, name: &str, a: &Node) -> Option<String> {
        let message = self.string(a.get("message"), "message");
        let file = self.string(a.get("messageFile"), "messageFile");
        match (message, file) {
            (Some(m), None) => Some(m),
            (None, Some(f)) => {
                let at = a.get("messageFile").map(|n| n.position);
                let path = self.dir.join(&f);
                match read_message_file(&path) {
                    Ok(t) if !t.trim().is_empty() => Some(t),
                    Ok(_) => {
                        self.problem(at, format!("messageFile {} is empty", path.display()));
                        None
                    }
                    Err(e) => {
                        self.problem(
                            at,
                            format!("messageFile {} cannot be read: {e}", path.display()),
                        );
                        None
                    }
                }
            }
            (Some(_), Some(_)) => {
                self.problem(Some(a.position), format!("inject action `{name}` sets both `message` and `messageFile`; set exactly one"));
                None
            }
            (None, None) => {
                self.problem(
                    Some(a.position),
                    format!("inject action `{name}` needs `message` or `messageFile`"),
                );
                None
            }
        }
    }

    fn emit(&mut self, name: &str, a: &Node) -> Option<EventSpec> {
        let Some(event_type) = self.string(a.get("eventType"), "eventType") else {
            self.problem(
                Some(a.position),
                format!("emitEvent action `{name}` needs an `eventType`"),
            );
            return None;
        };
        if let Err(e) = check_event_type(&event_type) {
            self.problem(a.get("eventType").map(|n| n.position), e);
            return None;
        }
        let summary = self.string(a.get("summary"), "summary").unwrap_or_default();
        let data = match a.get("data") {
            None => None,
            Some(d) if d.as_map().is_some() => Some(d.to_json()),
            Some(d) if matches!(d.value, Value::Null) => None,
            Some(d) => {
                self.problem(
                    Some(d.position),
                    format!("`data` must be a mapping, found {}", d.kind()),
                );
                return None;
            }
        };
        let delivery = match a.get("delivery").map(|n| (n, n.as_str())) {
            None => None,
            Some((_, Some(d @ ("queue" | "wake")))) => Some(d.to_owned()),
            Some((n, _)) => {
                self.problem(
                    Some(n.position),
                    format!(
                        "`delivery` must be queue or wake, found {}",
                        n.scalar_text()
                    ),
                );
                return None;
            }
        };
        Some(EventSpec {
            event_type,
            summary,
            data,
            delivery,
        })
    }

    fn command(&mut self, name: &str, a: &Node) -> Option<CommandSpec> {
        let command = match self.string(a.get("command"), "command") {
            Some(c) if !c.trim().is_empty() => c,
            _ => {
                self.problem(
                    Some(a.position),
                    format!("command action `{name}` needs a `command`"),
                );
                return None;
            }
        };
        let args = match a.get("args") {
            None => Vec::new(),
            Some(Node {
                value: Value::Seq(items),
                ..
            }) => {
                let mut args = Vec::new();
                for it in items {
                    match self.scalar(it, "each of `args`") {
                        Some(a) => args.push(a),
                        None => return None,
                    }
                }
                args
            }
            Some(other) => {
                self.problem(
                    Some(other.position),
                    format!("`args` must be a list, found {}", other.kind()),
                );
                return None;
            }
        };
        let environment = match a.get("environment") {
            None => Vec::new(),
            Some(e) => match e.as_map() {
                Some(entries) => {
                    let mut env = Vec::new();
                    for (k, v) in entries {
                        match self.scalar(v, &format!("`environment.{}`", k.scalar_text())) {
                            Some(val) => env.push((k.scalar_text(), val)),
                            None => return None,
                        }
                    }
                    env
                }
                None => {
                    self.problem(
                        Some(e.position),
                        format!("`environment` must be a mapping, found {}", e.kind()),
                    );
                    return None;
                }
            },
        };
        let working_dir = self.string(a.get("workingDir"), "workingDir");
        let timeout = match a.get("timeout") {
            None => None,
            Some(t) => {
                let text = t.scalar_text();
                match parse_go_duration(&text) {
                    Ok(n) if n > 0 => Some(Duration::from_nanos(n as u64)),
                    Ok(_) => {
                        self.problem(
                            Some(t.position),
                            format!("`timeout` must be positive, found {text:?}"),
                        );
                        return None;
                    }
                    Err(e) => {
                        self.problem(
                            Some(t.position),
                            format!("`timeout`: {e} (use a Go duration such as 20s, 5m or 1h30m)"),
                        );
                        return None;
                    }
                }
            }
        };
        Some(CommandSpec {
            command_at: a.get("command").map(|n| n.position),
            command,
            args,
            environment,
            working_dir,
            timeout,
        })
    }
}

/// The largest message file latch reads: the text goes to the model, and a
/// huge (or endless, like a FIFO or `/dev/zero`) file must not stall loading.
const MAX_MESSAGE_FILE: u64 = 1024 * 1024;

fn read_message_file(path: &Path) -> std::io::Result<String> {
    crate::config::read_bounded_text(path, MAX_MESSAGE_FILE)
}
