//! Loading one `settings.yaml` into typed hooks, with a diagnostic for
//! every problem at its line and column.

use std::path::Path;
use std::time::Duration;

use crate::config::yaml::{self, Node, Value};
use crate::diag::{Diagnostic, Position, SourceRef};
use crate::matcher::pattern::shown;
use crate::matcher::{NameMatcher, PatternBudget, RegexMode};
use crate::text::closest;

use super::DIALECT;
use super::events::PoolEvent;

/// The timeout when a hook sets none.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The key that caps Stop continuations, inside `hooks:`.
pub const MAX_CONTINUATIONS_KEY: &str = "stop_hook_max_continuations";

/// The fields a hook entry may have.
pub const ENTRY_FIELDS: [&str; 4] = ["command", "matcher", "name", "timeout"];

/// The settings levels, least specific first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// `~/.config/poolside/settings.yaml`.
    User,
    /// `<project>/.poolside/settings.yaml`.
    Project,
    /// `<project>/.poolside/settings.local.yaml`.
    Local,
    /// The file given with `--settings`.
    Flag,
}

/// A hook's matcher as loaded.
#[derive(Debug, Clone)]
pub enum Matcher {
    /// A usable matcher.
    Valid(NameMatcher),
    /// A pattern that did not compile; the hook is disabled.
    Invalid {
        /// The pattern as written.
        pattern: String,
        /// Why it did not compile.
        error: String,
    },
}

/// One hook, as declared.
#[derive(Debug, Clone)]
pub struct Hook {
    /// The `name`, if set.
    pub name: Option<String>,
    /// The label shown in notices: the name, else the command's file name.
    pub label: String,
    /// The shell command.
    pub command: String,
    /// Where the command is written.
    pub command_at: Option<Position>,
    /// Where the matcher is written, if it is.
    pub matcher_at: Option<Position>,
    /// Where the timeout is written, if it is.
    pub timeout_at: Option<Position>,
    /// The matcher (`*` when omitted).
    pub matcher: Matcher,
    /// The time limit.
    pub timeout: Duration,
    /// Where the entry was written.
    pub source: SourceRef,
    /// Which settings level declared it.
    pub level: Level,
    /// The declaration of a less specific level this one replaced (same
    /// name): under a trust policy that holds this one back, that one
    /// runs in its place.
    pub replaced: Option<Box<Hook>>,
}

impl Hook {
    /// Whether its matcher selects the tool `target` (every hook selects
    /// an event without one); an invalid matcher selects, to be reported
    /// as disabled where it runs.
    pub fn selects(&self, target: Option<&str>) -> bool {
        match (&self.matcher, target) {
            (Matcher::Valid(m), Some(t)) => m.matches(t),
            _ => true,
        }
    }

    /// Why the hook will not run, if it will not.
    pub fn disabled(&self) -> Option<String> {
        match &self.matcher {
            Matcher::Valid(_) => None,
            Matcher::Invalid { pattern, error } => Some(format!(
                "invalid matcher regex `{}`: {error}",
                shown(pattern)
            )),
        }
    }
}

/// What one settings file contributes.
#[derive(Debug, Clone, Default)]
pub struct FileConfig {
    /// Hooks in file order, each with its event.
    pub hooks: Vec<(PoolEvent, Hook)>,
    /// `stop_hook_max_continuations`, if this file sets a valid value.
    pub max_continuations: Option<u32>,
}

/// Parses one settings file. Never fails: a broken file yields an empty
/// config and diagnostics; a broken entry is skipped and the rest kept.
pub fn load_file(path: &Path, level: Level, text: &str) -> (FileConfig, Vec<Diagnostic>) {
    let mut cx = Loader {
        path,
        level,
        diags: Vec::new(),
        config: FileConfig::default(),
        budget: PatternBudget::per_file(),
    };
    match yaml::parse(text) {
        Ok(root) => cx.root(&root),
        Err(e) => {
            cx.error(
                e.position,
                format!("invalid YAML: {}; the file is skipped", e.message),
            );
        }
    }
    // Report in file order, whatever order the checks ran in.
    cx.diags.sort_by_key(|d| d.position);
    (cx.config, cx.diags)
}

struct Loader<'a> {
    path: &'a Path,
    level: Level,
    diags: Vec<Diagnostic>,
    config: FileConfig,
    /// The compile work this file's matchers may still spend.
    budget: PatternBudget,
}

impl Loader<'_> {
    fn diag(&mut self, d: Diagnostic, position: Option<Position>) -> &mut Diagnostic {
        self.diags
            .push(d.in_file(self.path).at(position).for_dialect(DIALECT));
        let last = self.diags.len() - 1;
        &mut self.diags[last]
    }

    fn error(&mut self, at: Option<Position>, msg: String) -> &mut Diagnostic {
        self.diag(Diagnostic::error(msg), at)
    }

    fn warning(&mut self, at: Option<Position>, msg: String) -> &mut Diagnostic {
        self.diag(Diagnostic::warning(msg), at)
    }

    fn root(&mut self, root: &Node) {
        match &root.value {
            // An empty file is an empty configuration.
            Value::Null => {}
            Value::Map(_) => {
                // Settings files hold more than hooks; only `hooks:` is ours.
                if let Some(hooks) = root.get("hooks") {
                    self.hooks_section(hooks);
                }
            }
            _ => {
                self.error(
                    Some(root.position),
                    format!(
                        "settings must be a mapping, found {}; the file is skipped",
                        root.kind()
                    ),
                );
            }
        }
    }

    fn hooks_section(&mut self, hooks: &Node) {
        let entries = match &hooks.value {
            Value::Null => return,
            Value::Map(entries) => entries,
            _ => {
                self.error(
                    Some(hooks.position),
                    format!(
                        "`hooks` must be a mapping of event names to lists, found {}",
                        hooks.kind()
                    ),
                );
                return;
            }
        };
        for (key, value) in entries {
            let name = key.scalar_text();
            if name == MAX_CONTINUATIONS_KEY {
                self.max_continuations(value);
            } else if let Some(event) = PoolEvent::from_name(&name) {
                self.event_list(event, value);
            } else {
                let names = PoolEvent::ALL.map(PoolEvent::as_str);
                let hint = closest(&name, names.iter().copied().chain([MAX_CONTINUATIONS_KEY]))
                    .map(|c| format!("did you mean `{c}`?"))
                    .unwrap_or_else(|| format!("poolside events are {}", names.join(", ")));
                self.warning(
                    Some(key.position),
                    format!("unknown hook event `{name}`; its hooks are skipped"),
                )
                .hint = Some(hint);
            }
        }
    }

    fn max_continuations(&mut self, value: &Node) {
        match value.value {
            Value::Int(n) if n >= 0 => {
                self.config.max_continuations = Some(u32::try_from(n).unwrap_or(u32::MAX));
            }
            Value::Int(n) => {
                self.error(
                    Some(value.position),
                    format!("`{MAX_CONTINUATIONS_KEY}` must not be negative, found {n}; the value is ignored"),
                )
                .hint = Some("use 0 to refuse every continuation, or remove the key for no limit".into());
            }
            Value::Null => {}
            _ => {
                self.error(
                    Some(value.position),
                    format!(
                        "`{MAX_CONTINUATIONS_KEY}` must be a whole number, found {}; the value is ignored",
                        value.kind()
                    ),
                );
            }
        }
    }

    fn event_list(&mut self, event: PoolEvent, list: &Node) {
        let items = match &list.value {
            Value::Seq(items) => items,
            Value::Null => return,
            _ => {
                self.error(
                    Some(list.position),
                    format!(
                        "`{event}` must be a list of hooks, found {}; its hooks are skipped",
                        list.kind()
                    ),
                )
                .event = Some(event.to_string());
                return;
            }
        };
        for (index, item) in items.iter().enumerate() {
            if let Some(hook) = self.entry(event, index, item) {
                self.config.hooks.push((event, hook));
            }
        }
    }

    fn entry(&mut self, event: PoolEvent, index: usize, item: &Node) -> Option<Hook> {
        let ev = event.to_string();
        let Some(fields) = item.as_map() else {
            self.error(
                Some(item.position),
                format!(
                    "hook {index} of `{event}` must be a mapping, found {}; it is skipped",
                    item.kind()
                ),
            )
            .event = Some(ev);
            return None;
        };
        for (key, _) in fields {
            let k = key.scalar_text();
            if !ENTRY_FIELDS.contains(&k.as_str()) {
                let d = self.warning(
                    Some(key.position),
                    format!("unknown field `{k}` in a `{event}` hook; it is ignored"),
                );
                d.event = Some(ev.clone());
                d.hint = closest(&k, ENTRY_FIELDS).map(|c| format!("did you mean `{c}`?"));
            }
        }
        let name = match item.get("name") {
            None => None,
            Some(n) => match n.as_str().map(str::trim) {
                Some(s) if !s.is_empty() => Some(s.to_owned()),
                _ => {
                    self.warning(
                        Some(n.position),
                        format!(
                            "`name` must be a non-empty string, found {}; it is ignored",
                            n.kind()
                        ),
                    )
                    .event = Some(ev.clone());
                    None
                }
            },
        };
        let command = match item.get("command") {
            Some(c) => {
                match c.as_str() {
                    Some(s) if !s.trim().is_empty() => s.to_owned(),
                    _ => {
                        let d = self.error(
                        Some(c.position),
                        format!("`command` must be a non-empty string, found {}; the hook is skipped", c.kind()),
                    );
                        d.event = Some(ev);
                        d.hook = name;
                        return None;
                    }
                }
            }
            None => {
                let d = self.error(
                    Some(item.position),
                    format!(
                        "hook #{} of `{event}` has no `command`; it is skipped",
                        index + 1
                    ),
                );
                d.event = Some(ev);
                d.hook = name;
                d.hint = Some("add `command: /path/to/script.sh`".into());
                return None;
            }
        };
        let label = name.clone().unwrap_or_else(|| command_label(&command));
        let matcher = match item.get("matcher") {
            None => Matcher::Valid(NameMatcher::Any),
            Some(m) => {
                let text = match &m.value {
                    Value::Null => String::new(),
                    Value::Seq(_) | Value::Map(_) => {
                        let d = self.error(
                            Some(m.position),
                            format!(
                                "`matcher` must be a string, found {}; the hook is skipped",
                                m.kind()
                            ),
                        );
                        d.event = Some(ev);
                        d.hook = Some(label);
                        return None;
                    }
                    _ => m.scalar_text(),
                };
                match NameMatcher::parse_in(&text, RegexMode::WholeName, &mut self.budget) {
                    Ok(nm) => Matcher::Valid(nm),
                    Err(e) if !e.reported() => Matcher::Invalid {
                        pattern: text,
                        error: e.to_string(),
                    },
                    Err(e) => {
                        let error = e.to_string();
                        let d = self.warning(
                            Some(m.position),
                            format!(
                                "invalid matcher regex `{}`: {error}; the hook is disabled",
                                shown(&text)
                            ),
                        );
                        d.event = Some(ev.clone());
                        d.hook = Some(label.clone());
                        d.hint = Some(
                            "matchers use RE2 syntax: no look-around, no backreferences".into(),
                        );
                        Matcher::Invalid {
                            pattern: text,
                            error,
                        }
                    }
                }
            }
        };
        let timeout = match item.get("timeout") {
            None => DEFAULT_TIMEOUT,
            Some(t) => match t.seconds() {
                Ok(d) => d,
                Err(found) => {
                    let d = self.warning(
                        Some(t.position),
                        format!(
                            "`timeout` must be a positive number of seconds, found {found}; the default of 60 s is used"
                        ),
                    );
                    d.event = Some(ev.clone());
                    d.hook = Some(label.clone());
                    DEFAULT_TIMEOUT
                }
            },
        };
        Some(Hook {
            name,
            label,
            command,
            command_at: item.get("command").map(|c| c.position),
            matcher_at: item.get("matcher").map(|c| c.position),
            timeout_at: item.get("timeout").map(|c| c.position),
            matcher,
            timeout,
            source: SourceRef {
                file: self.path.to_path_buf(),
                position: Some(item.position),
            },
            level: self.level,
            replaced: None,
        })
    }
}

/// The label of an unnamed hook: the file name of the command's program.
pub fn command_label(command: &str) -> String {
    let trimmed = command.trim_start();
    // A quoted program path may contain spaces: take it up to its closing quote.
    let first = match trimmed.chars().next() {
        Some(q @ ('"' | '\'')) => trimmed[1..].split(q).next().unwrap_or(""),
        _ => trimmed.split_whitespace().next().unwrap_or(trimmed),
    };
    Path::new(first)
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .filter(|f| !f.is_empty())
        .unwrap_or_else(|| first.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> (FileConfig, Vec<Diagnostic>) {
        load_file(Path::new("settings.yaml"), Level::Project, text)
    }

    #[test]
    fn labels_fall_back_to_the_command_file_name() {
        assert_eq!(command_label("/a/b/block-sudo.sh --x"), "block-sudo.sh");
        assert_eq!(command_label("'/a b/c.sh'"), "c.sh");
        assert_eq!(command_label("jq -n '{}'"), "jq");
    }

    #[test]
    fn every_problem_is_reported_with_its_position() {
        let (cfg, diags) = load(
            "hooks:\n  PreToolUze: []\n  PreToolUse:\n    - matcher: \"(?<=x)\"\n      command: a\n    - name: n\n    - command: b\n      timeout: -1\n      tiemout: 3\n  stop_hook_max_continuations: -2\n",
        );
        let lines: Vec<String> = diags.iter().map(|d| d.to_string()).collect();
        assert_eq!(diags.len(), 6, "{lines:#?}");
        assert!(
            lines[0].starts_with("settings.yaml:2:3: warning: unknown hook event `PreToolUze`")
        );
        assert!(lines[0].contains("did you mean `PreToolUse`?"));
        assert!(
            lines[1].starts_with("settings.yaml:4:16: warning: invalid matcher regex `(?<=x)`")
        );
        assert!(
            lines[2]
                .starts_with("settings.yaml:6:7: error: hook #2 of `PreToolUse` has no `command`")
        );
        assert!(
            lines[3]
                .starts_with("settings.yaml:8:16: warning: `timeout` must be a positive number")
        );
        assert!(lines[4].starts_with("settings.yaml:9:7: warning: unknown field `tiemout`"));
        assert!(lines[5].starts_with(
            "settings.yaml:10:32: error: `stop_hook_max_continuations` must not be negative"
        ));
        assert_eq!(cfg.hooks.len(), 2);
        assert!(cfg.hooks[0].1.disabled().is_some());
        assert_eq!(cfg.hooks[1].1.timeout, DEFAULT_TIMEOUT);
        assert_eq!(cfg.max_continuations, None);
    }

    #[test]
    fn fractional_timeouts_are_seconds() {
        let (cfg, diags) = load("hooks:\n  Stop:\n    - command: x\n      timeout: 0.5\n");
        assert!(diags.is_empty());
        assert_eq!(cfg.hooks[0].1.timeout, Duration::from_millis(500));
    }
}
