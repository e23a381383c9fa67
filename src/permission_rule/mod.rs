//! Claude Code's permission-rule syntax, as a hook's `if` condition reads
//! it: `Bash`, `Bash(git push:*)`, `Bash(git *)`, `Edit(*.ts)`,
//! `Write(//abs/path)`, `mcp__srv__tool`.
//!
//! A rule is a tool name with optional content in parentheses. The hook
//! runs when the rule's tool is the called tool (exactly, case-sensitive;
//! `Edit(*.ts)` does not cover a Write) and, if there is content, when the
//! tool's argument matches it:
//!
//! - **Bash**: the command is split into simple commands ([`shell`]); the
//!   rule matches when any of them matches. `git:*` is a prefix (`git` or
//!   `git …`); anything else is a wildcard over the whole simple command
//!   ([`wildcard`]: `git *` also matches a bare `git`, `git*` also `gitk`,
//!   `git push` only `git push`). `xargs git …` counts as `git …`. A
//!   command with `$(…)`, backticks or an unresolved `$VAR` matches every
//!   rule except single-command ones (`git *`, `git*`, `git:*`), which are
//!   still checked; a command latch cannot read matches every rule.
//! - **Read, Write, Edit, MultiEdit, NotebookEdit**: the file path, as a
//!   `.gitignore` line relative to the project directory ([`path`]).
//! - **Glob, Grep**: the `pattern` argument, as a wildcard (not recorded).
//! - **WebFetch**: `domain:<host>` against the URL's host (not recorded).
//! - Any other tool (MCP tools, Agent, …): only the bare name matches;
//!   a rule with content never does, as in Claude Code.
//!
//! `Bash()` and `Bash(*)` are the bare tool. A malformed rule (no closing
//! parenthesis, text after it, no tool name) is, as in Claude Code, a tool
//! name made of the whole text, which matches no tool: Claude Code reports
//! nothing, and neither does parsing here (the dialect may lint it).
//!
//! Matching is prepared once per tool call ([`ToolInput::new`] parses the
//! command) and then checked for every rule, as Claude Code does.
//!
//! ```
//! use std::path::Path;
//! use latch::permission_rule::{Rule, ToolInput};
//!
//! # fn main() -> Result<(), latch::permission_rule::RuleError> {
//! let call = ToolInput::new("Bash", &serde_json::json!({"command": "ls && git push"}), Path::new("/ws"));
//! assert!(Rule::parse("Bash(git push)")?.matches_input(&call).runs());
//! assert!(Rule::parse("Bash(ls *)")?.matches_input(&call).runs());
//! assert!(!Rule::parse("Bash(npm *)")?.matches_input(&call).runs());
//! assert!(!Rule::parse("Edit(*.ts)")?.matches_input(&call).runs());
//! // `$(…)`: a rule that is not a single command fails open.
//! let subst = ToolInput::new("Bash", &serde_json::json!({"command": "ls $(pwd)"}), Path::new("/ws"));
//! assert!(Rule::parse("Bash(npm test)")?.matches_input(&subst).runs());
//! assert!(!Rule::parse("Bash(npm *)")?.matches_input(&subst).runs());
//! # Ok(())
//! # }
//! ```

pub mod path;
pub mod shell;
pub mod wildcard;

use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::matcher::pattern::{LazyRegex, PatternBudget, PatternError};
use path::PathRule;
pub use shell::{Commands, FailOpen};

/// The events on which Claude Code evaluates `if` (from its 2.1.197
/// code, and `PreSkillShellCommand` from 2.1.332's `qXo`; its docs say
/// "the tool events"). On any other event a hook with `if` never runs.
pub const IF_EVENTS: [&str; 6] = [
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionRequest",
    "PermissionDenied",
    "PreSkillShellCommand",
];

/// Whether Claude Code evaluates `if` on `event` (otherwise a hook with
/// `if` is skipped, see [`non_tool_event_message`]).
pub fn evaluates_on(event: &str) -> bool {
    IF_EVENTS.contains(&event)
}

/// Claude Code's debug line for a hook whose `if` rule is on a non-tool
/// event (the hook does not run).
pub fn non_tool_event_message(rule: &str, event: &str) -> String {
    format!("Hook if condition \"{rule}\" cannot be evaluated for non-tool event {event}")
}

/// Claude Code's debug line for a hook skipped because its rule did not
/// match.
pub fn skip_message(rule: &str) -> String {
    format!("Skipping hook due to if condition \"{rule}\" not matching")
}

/// A rule's content over latch's pattern limits.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RuleError {
    /// The content's wildcard or glob was refused by latch's pattern
    /// limits (length, size, the file's budget).
    #[error("the rule `{}`: {error}", crate::matcher::pattern::shown(rule))]
    Pattern {
        /// The rule as written.
        rule: String,
        /// Why its pattern was refused.
        error: PatternError,
    },
}

/// One permission rule, parsed and compiled.
#[derive(Debug, Clone)]
pub struct Rule {
    text: String,
    tool: String,
    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    content: Option<String>,
    matcher: Content,
}

#[derive(Debug, Clone)]
enum Content {
    None,
    Shell(ShellRule),
    Path(PathRule),
    Wildcard(LazyRegex),
    Domain(String),
    Unsupported,
}

#[derive(Debug, Clone)]
struct ShellRule {
    kind: ShellKind,
    /// Names a single command (`git *`, `git*`, `git:*`): still checked
    /// when the command is approximate.
    single_command: bool,
}

#[derive(Debug, Clone)]
enum ShellKind {
    Prefix(String),
    Wildcard { direct: LazyRegex, xargs: LazyRegex },
}

/// What a tool's argument is matched as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Shell,
    Path,
    Text,
    Domain,
    Unsupported,
}

/// The argument a tool's rules look at, and how.
fn tool_kind(tool: &str) -> (Kind, &'static str) {
    match tool {
        "Bash" | "Monitor" => (Kind::Shell, "command"),
        "Read" | "Write" | "Edit" | "MultiEdit" => (Kind::Path, "file_path"),
        "NotebookEdit" | "NotebookRead" => (Kind::Path, "notebook_path"),
        "Glob" | "Grep" => (Kind::Text, "pattern"),
        "WebFetch" => (Kind::Domain, "url"),
        _ => (Kind::Unsupported, ""),
    }
}

/// Claude Code's legacy tool names (`Task` is now `Agent`, …).
fn normalize_tool(name: &str) -> &str {
    crate::matcher::claude::current_tool_name(name)
}

impl Rule {
    /// Parses and compiles `text` with a budget of its own.
    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    pub fn parse(text: &str) -> Result<Rule, RuleError> {
        Rule::parse_with_budget(text, &mut PatternBudget::per_file())
    }

    /// Parses and compiles `text`, charging its patterns to `budget` (one
    /// per settings file, like every other pattern of the file).
    pub fn parse_with_budget(text: &str, budget: &mut PatternBudget) -> Result<Rule, RuleError> {
        let (tool, content) = split_rule(text);
        let tool = normalize_tool(&tool).to_owned();
        let fail = |error| RuleError::Pattern {
            rule: text.to_owned(),
            error,
        };
        let matcher = match &content {
            None => Content::None,
            Some(c) => match tool_kind(&tool).0 {
                Kind::Shell => Content::Shell(shell_rule(c, budget).map_err(fail)?),
                Kind::Path => Content::Path(PathRule::new(c, budget).map_err(fail)?),
                Kind::Text => Content::Wildcard(wildcard::check(c, budget).map_err(fail)?),
                Kind::Domain => Content::Domain(c.clone()),
                Kind::Unsupported => Content::Unsupported,
            },
        };
        Ok(Rule {
            text: text.to_owned(),
            tool,
            content,
            matcher,
        })
    }

    /// The rule as written.
    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The tool it names (legacy names normalised: `Task` is `Agent`).
    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The content between the parentheses, unescaped (`\(` is `(`);
    /// `None` for a bare tool, `Bash()` and `Bash(*)`.
    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    pub fn content(&self) -> Option<&str> {
        self.content.as_deref()
    }

    /// Whether the rule matches a call of `tool` with `input` (Claude
    /// Code's argument shape: `command` for Bash, `file_path` for
    /// Write/Edit/Read, …), with relative paths and project-relative rules
    /// read from `project_dir`.
    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    pub fn matches(&self, tool: &str, input: &Value, project_dir: &Path) -> Verdict {
        self.matches_input(&ToolInput::new(tool, input, project_dir))
    }

    /// Whether the rule matches a prepared tool call (prepare once, check
    /// every hook's rule).
    pub fn matches_input(&self, input: &ToolInput) -> Verdict {
        if self.tool != input.tool {
            return Verdict::NoMatch(NoMatch::OtherTool {
                rule: self.tool.clone(),
                called: input.tool.clone(),
            });
        }
        match (&self.matcher, &input.subject) {
            (Content::None, _) => Verdict::Match { by: None },
            (_, Subject::Missing(field)) => Verdict::NoMatch(NoMatch::NoArgument(field)),
            (Content::Shell(rule), Subject::Shell(commands)) => rule.check(commands),
            (Content::Path(rule), Subject::Path(path)) => {
                if rule.matches(path, &input.project, input.home.as_deref()) {
                    Verdict::Match {
                        by: Some(path.display().to_string()),
                    }
                } else {
                    Verdict::NoMatch(NoMatch::Argument)
                }
            }
            (Content::Wildcard(re), Subject::Text(text)) => {
                if re.is_match(text) {
                    Verdict::Match {
                        by: Some(text.clone()),
                    }
                } else {
                    Verdict::NoMatch(NoMatch::Argument)
                }
            }
            (Content::Domain(want), Subject::Domain(host)) => {
                if want
                    .strip_prefix("domain:")
                    .is_some_and(|d| d.eq_ignore_ascii_case(host))
                {
                    Verdict::Match {
                        by: Some(host.clone()),
                    }
                } else {
                    Verdict::NoMatch(NoMatch::Argument)
                }
            }
            _ => Verdict::NoMatch(NoMatch::Unsupported),
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Splits `Tool(content)` as Claude Code does: the first unescaped `(` and
/// the last unescaped `)`, which must end the text; content `""` or `*` is
/// the bare tool; `\(`, `\)` and `\\` in the content are unescaped. Any
/// other shape is a tool name made of the whole text.
fn split_rule(text: &str) -> (String, Option<String>) {
    let whole = (text.to_owned(), None);
    let Some(open) = unescaped(text, '(').next() else {
        return whole;
    };
    let Some(close) = unescaped(text, ')').last() else {
        return whole;
    };
    if close <= open || close + 1 != text.len() {
        return whole;
    }
    let tool = &text[..open];
    if tool.is_empty() {
        return whole;
    }
    let raw = &text[open + 1..close];
    if raw.is_empty() || raw == "*" {
        return (tool.to_owned(), None);
    }
    let content = raw
        .replace("\\(", "(")
        .replace("\\)", ")")
        .replace("\\\\", "\\");
    (tool.to_owned(), Some(content))
}

/// Byte offsets of `ch` not preceded by an odd number of backslashes (one
/// pass: a rule can be long).
fn unescaped(text: &str, ch: char) -> impl Iterator<Item = usize> + '_ {
    let mut slashes = 0usize;
    text.char_indices().filter_map(move |(i, c)| {
        let hit = c == ch && slashes.is_multiple_of(2);
        slashes = if c == '\\' { slashes + 1 } else { 0 };
        hit.then_some(i)
    })
}

fn shell_rule(content: &str, budget: &mut PatternBudget) -> Result<ShellRule, PatternError> {
    if let Some(prefix) = legacy_prefix(content) {
        return Ok(ShellRule {
            single_command: !prefix.chars().any(crate::text::js_space),
            kind: ShellKind::Prefix(prefix.to_owned()),
        });
    }
    Ok(ShellRule {
        single_command: single_command_wildcard(content),
        kind: ShellKind::Wildcard {
            direct: wildcard::check(content, budget)?,
            xargs: wildcard::check(&format!("xargs {content}"), budget)?,
        },
    })
}

/// `git push:*` → `git push` (JavaScript's `/^(.+):\*$/`: the prefix has
/// no line terminator).
fn legacy_prefix(content: &str) -> Option<&str> {
    let prefix = content.strip_suffix(":*")?;
    let terminator = |c: char| matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}');
    (!prefix.is_empty() && !prefix.contains(terminator)).then_some(prefix)
}

/// `/^[^\s*?[]+\s?\*$/`: one word, then an optional space, then `*`.
fn single_command_wildcard(content: &str) -> bool {
    let Some(body) = content.strip_suffix('*') else {
        return false;
    };
    let word = match body.chars().last() {
        Some(c) if crate::text::js_space(c) => &body[..body.len() - c.len_utf8()],
        _ => body,
    };
    !word.is_empty()
        && !word
            .chars()
            .any(|c| crate::text::js_space(c) || matches!(c, '*' | '?' | '['))
}

impl ShellRule {
    fn check(&self, commands: &Commands) -> Verdict {
        let list = match commands {
            Commands::Unknown(why) => return Verdict::FailOpen(why.clone()),
            Commands::Approximate { reason, .. } if !self.single_command => {
                return Verdict::FailOpen(reason.clone());
            }
            Commands::Approximate { commands, .. } | Commands::Exact(commands) => commands,
        };
        match list.iter().find(|c| self.matches_one(c)) {
            Some(c) => Verdict::Match {
                by: Some(c.clone()),
            },
            None => Verdict::NoMatch(NoMatch::NoCommand),
        }
    }

    fn matches_one(&self, command: &str) -> bool {
        match &self.kind {
            ShellKind::Prefix(p) => {
                let starts = |text: &str| {
                    text == p
                        || text
                            .strip_prefix(p.as_str())
                            .is_some_and(|r| r.starts_with(' '))
                };
                starts(command) || command.strip_prefix("xargs ").is_some_and(starts)
            }
            ShellKind::Wildcard { direct, xargs } => {
                direct.is_match(command) || xargs.is_match(command)
            }
        }
    }
}

/// A tool call prepared for matching: the tool's name and its argument,
/// parsed once (a Bash command is split here).
#[derive(Debug, Clone)]
pub struct ToolInput {
    tool: String,
    subject: Subject,
    project: PathBuf,
    home: Option<PathBuf>,
}

#[derive(Debug, Clone)]
enum Subject {
    Shell(Commands),
    Path(PathBuf),
    Text(String),
    Domain(String),
    /// The argument the tool's rules look at is missing or not a string
    /// (Claude Code's input validation fails: content rules never match).
    Missing(&'static str),
    Unsupported,
}

impl ToolInput {
    /// Prepares a call of `tool` with `input` in Claude Code's argument
    /// shape; `~` is `$HOME`.
    pub fn new(tool: &str, input: &Value, project_dir: &Path) -> ToolInput {
        let home = std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from);
        ToolInput::with_home(tool, input, project_dir, home.as_deref())
    }

    /// Like [`ToolInput::new`] with the home directory given.
    pub fn with_home(
        tool: &str,
        input: &Value,
        project_dir: &Path,
        home: Option<&Path>,
    ) -> ToolInput {
        let tool = normalize_tool(tool).to_owned();
        let project = path::normalize(project_dir);
        let (kind, field) = tool_kind(&tool);
        let arg = input.get(field).and_then(Value::as_str);
        let subject = match (kind, arg) {
            (Kind::Unsupported, _) => Subject::Unsupported,
            (_, None) => Subject::Missing(field),
            (Kind::Shell, Some(c)) => Subject::Shell(shell::split(c)),
            (Kind::Path, Some(p)) => Subject::Path(path::resolve(p, &project, home)),
            (Kind::Text, Some(t)) => Subject::Text(t.to_owned()),
            (Kind::Domain, Some(u)) => match url_host(u) {
                Some(h) => Subject::Domain(h),
                None => Subject::Missing(field),
            },
        };
        ToolInput {
            tool,
            subject,
            project,
            home: home.map(Path::to_path_buf),
        }
    }

    /// The tool's name (legacy names normalised).
    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The Bash command as split, for a shell tool.
    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    pub fn commands(&self) -> Option<&Commands> {
        match &self.subject {
            Subject::Shell(c) => Some(c),
            _ => None,
        }
    }
}

/// The host of an `http(s)://` URL, lowercased (no port, no user).
fn url_host(url: &str) -> Option<String> {
    let (_, rest) = url.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let host_port = authority.rsplit('@').next()?;
    let host = if let Some(v6) = host_port.strip_prefix('[') {
        v6.split(']').next()?
    } else {
        host_port.split(':').next()?
    };
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

/// Whether a hook with this rule runs, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Verdict {
    /// The rule matches: the hook runs.
    Match {
        /// What matched: the simple command or the path (`None` for a
        /// bare tool rule).
        by: Option<String>,
    },
    /// The rule does not match: the hook is skipped.
    NoMatch(NoMatch),
    /// The command could not be analysed enough to decide this rule, so
    /// the hook runs (as in Claude Code).
    FailOpen(FailOpen),
}

impl Verdict {
    /// Whether the hook runs.
    pub fn runs(&self) -> bool {
        !matches!(self, Verdict::NoMatch(_))
    }
}

/// Why a rule does not match.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum NoMatch {
    /// The rule names another tool.
    OtherTool {
        /// The rule's tool.
        rule: String,
        /// The called tool.
        called: String,
    },
    /// No simple command of the Bash command matches.
    NoCommand,
    /// The argument (path, pattern, host) does not match.
    Argument,
    /// The tool call lacks the argument the rule looks at.
    NoArgument(&'static str),
    /// The rule has content, and rules for this tool only match by name.
    Unsupported,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Match { by: None } => f.write_str("matches the tool"),
            Verdict::Match { by: Some(by) } => write!(f, "matches `{by}`"),
            Verdict::FailOpen(why) => write!(f, "runs because {why}"),
            Verdict::NoMatch(NoMatch::OtherTool { rule, called }) => {
                write!(f, "names {rule}, not {called}")
            }
            Verdict::NoMatch(NoMatch::NoCommand) => f.write_str("matches no simple command"),
            Verdict::NoMatch(NoMatch::Argument) => f.write_str("does not match the argument"),
            Verdict::NoMatch(NoMatch::NoArgument(field)) => {
                write!(f, "the call has no string `{field}`")
            }
            Verdict::NoMatch(NoMatch::Unsupported) => {
                f.write_str("rules with content never match this tool")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_shapes() {
        let r = |t: &str| {
            let rule = Rule::parse(t).expect(t);
            (rule.tool().to_owned(), rule.content().map(str::to_owned))
        };
        assert_eq!(r("Bash"), ("Bash".into(), None));
        assert_eq!(r("Bash()"), ("Bash".into(), None));
        assert_eq!(r("Bash(*)"), ("Bash".into(), None));
        assert_eq!(r("Bash(git *)"), ("Bash".into(), Some("git *".into())));
        assert_eq!(
            r(r"Bash(python -c print\(1\))"),
            ("Bash".into(), Some("python -c print(1)".into()))
        );
        assert_eq!(r("Bash(git"), ("Bash(git".into(), None));
        assert_eq!(r("Bash(git) x"), ("Bash(git) x".into(), None));
        assert_eq!(r("(git)"), ("(git)".into(), None));
        assert_eq!(r("Task"), ("Agent".into(), None));
        assert_eq!(r("mcp__srv__tool"), ("mcp__srv__tool".into(), None));
        assert_eq!(r(""), ("".into(), None));
        assert_eq!(r(r"Bash(a\\)"), ("Bash".into(), Some(r"a\".into())));
        assert_eq!(r(r"Bash(a\)"), (r"Bash(a\)".into(), None), "escaped closer");
        // Long runs of backslashes are read in one pass.
        let long = format!("Bash({}x)", "\\".repeat(100_000));
        let start = std::time::Instant::now();
        assert_eq!(Rule::parse(&long).map(|r| r.tool().to_owned()).ok(), None);
        assert!(start.elapsed().as_secs() < 20);
    }

    #[test]
    fn single_command_rules() {
        for (c, single) in [
            ("git *", true),
            ("git*", true),
            ("git  *", false),
            ("git push *", false),
            ("git push", false),
            ("*", false),
            ("g?t *", false),
        ] {
            assert_eq!(single_command_wildcard(c), single, "{c}");
        }
        assert_eq!(legacy_prefix("git:*"), Some("git"));
        assert_eq!(legacy_prefix(":*"), None);
        assert_eq!(legacy_prefix("a\nb:*"), None);
    }

    #[test]
    fn hosts() {
        assert_eq!(
            url_host("https://Example.com/x").as_deref(),
            Some("example.com")
        );
        assert_eq!(url_host("http://u:p@h:8080/").as_deref(), Some("h"));
        assert_eq!(url_host("http://[::1]:80/").as_deref(), Some("::1"));
        assert_eq!(url_host("nope"), None);
    }
}
