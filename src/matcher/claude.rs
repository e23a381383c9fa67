//! Claude Code's hook matchers, as the real CLI applies them.
//!
//! # The rule
//!
//! A matcher group's `matcher` is classified on its text as written (not
//! trimmed first):
//! 1. missing, `""` or `"*"`: it matches everything;
//! 2. only ASCII letters, digits, `_`, `-`, `|`, `,` and spaces: a list of
//!    exact names, split at `|`, `,` and spaces (so surrounding spaces do
//!    not count), compared case-sensitively with the target;
//! 3. anything else: a JavaScript regular expression (no flags), tested
//!    **unanchored** against the target (`RegExp.prototype.test`), so
//!    `a.h` matches `Bash` and `Edit.*` matches `NotebookEdit`; anchor it
//!    with `^…$`.
//!
//! `StopFailure` classifies with the narrower set Claude Code's
//! documentation gives it: letters, digits, `_` and `|`
//! ([`WordSet::Narrow`]). (`FileChanged` matchers are file names, split
//! by the claude loader.)
//!
//! On a tool event the Agent tool is also matched under its former name
//! `Task` ([`legacy_tool_names`]).
//!
//! # Evidence
//!
//! Recorded with Claude Code 2.1.197 (`/work/shared/peers/claude/cases`):
//! - `l_matchers`: for `Bash` fired `Bash`, `Ba.*`, `^Bash$`, `a.h`,
//!   `B.sh`, `Bash|Write`, `Bash,Write`, `Bash | Write`, `" Bash "`, `*`,
//!   `""` and a missing matcher; not `bash` (case-sensitive), `Bas` (a word
//!   is an exact name, not a prefix), `Edit|Write`, `Write`. For `Write`
//!   fired `Edit|Write`, `Write`, `Bash|Write`, `Bash,Write`,
//!   `Bash | Write`, `*`, `""`, missing;
//! - `r2_mcp_matchers`: for `mcp__srv__echo_tool` and
//!   `mcp__my-srv__do-thing` fired the exact names (hyphens are word
//!   characters), `mcp__srv__.*`, `mcp__my-srv__.*`, `mcp__.*`,
//!   `mcp__.*__do-thing`, `<exact>|Bash` and `*`; not `mcp__srv` (with the
//!   warning of [`mcp_server_advice`]), `echo_tool`, `do-thing`, `my-srv`,
//!   `srv`;
//! - `r2_subagent`: `SubagentStart`/`SubagentStop` matchers on the agent
//!   type (`general-purpose` fired, `Explore` did not), and `PreToolUse`
//!   matcher `Task` fired for the `Agent` tool (as did `Agent`).
//!
//! - `r8_matcher_space_list`: `Bash Write` fired for neither tool (a
//!   space is part of a name; names are split on `|` and `,` and trimmed).
//!
//! The character set (with `-` since 2.1.195 and `,` since 2.1.191) and
//! the narrower set of `FileChanged`/`StopFailure` come from Claude Code's
//! documentation (`/work/shared/research/claude-code.md` §3) and its
//! 2.1.197 code, which also tests a regex against a tool's former names.
//!
//! # Not recorded (latch's choices, or read from Claude Code's code)
//!
//! - Whitespace other than the space (a tab) makes a regex; a matcher of
//!   separators only (`"|"`, `" "`) is an empty list and matches nothing;
//!   `" * "` is a regex (its text is not trimmed first).
//! - An invalid regex never matches, and its group never runs (recorded
//!   later: `r3_invalid_regex_matcher`).
//! - A regex the backtracking matcher gives up on (see
//!   [`crate::matcher::ecma`]) counts as matching, so a guard hook still
//!   runs; Claude Code would hang on it.

use super::ecma::{EcmaRegex, Exhausted, has_astral};
use super::name::{NameIndex, NameMatcher, RegexMode};
use super::pattern::{PatternBudget, PatternError};

/// Which characters make a matcher a list of exact names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WordSet {
    /// ASCII letters, digits, `_`, `-` and space, and the separators `|`
    /// and `,`: tool events, agent types, notification types, sources, ….
    /// Each name is trimmed, so `Bash | Write` is two names and
    /// `Bash Write` one, which no tool has (recorded:
    /// `r8_matcher_space_list`).
    #[default]
    Tools,
    /// ASCII letters, digits, `_`, and the separator `|`: `FileChanged`
    /// and `StopFailure`.
    Narrow,
}

impl WordSet {
    fn is_word(self, c: char) -> bool {
        match self {
            WordSet::Tools => c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ' '),
            WordSet::Narrow => c.is_ascii_alphanumeric() || c == '_',
        }
    }

    fn is_separator(self, c: char) -> bool {
        match self {
            WordSet::Tools => matches!(c, '|' | ','),
            WordSet::Narrow => c == '|',
        }
    }
}

/// One matcher group's `matcher`, classified and checked.
#[derive(Debug, Clone)]
pub enum ClaudeMatcher {
    /// Missing, `""` or `"*"`: matches everything.
    Any,
    /// Exact, case-sensitive names (an empty list matches nothing).
    Names(Vec<String>),
    /// A JavaScript regular expression, matched anywhere in the target.
    Regex(EcmaRegex),
}

/// Claude Code's table of former tool names and the tools that bear them
/// now, as its 2.1.197 code has it (`Agent` was `Task`: recorded in
/// `r2_subagent`; the others read from the code). Its matchers and `if`
/// rules accept either name.
pub const FORMER_TOOL_NAMES: [(&str, &str); 12] = [
    ("Task", "Agent"),
    ("KillShell", "TaskStop"),
    ("KillBash", "TaskStop"),
    ("AgentOutputTool", "TaskOutput"),
    ("BashOutputTool", "TaskOutput"),
    ("AgentOutput", "TaskOutput"),
    ("BashOutput", "TaskOutput"),
    ("ListPeers", "ListAgents"),
    ("Brief", "SendUserMessage"),
    ("ListMcpResources", "ListMcpResourcesTool"),
    ("ReadMcpResource", "ReadMcpResourceTool"),
    ("ReadMcpResourceDir", "ReadMcpResourceDirTool"),
];

/// The former names of a Claude Code tool ([`FORMER_TOOL_NAMES`]), which
/// its matchers still accept.
pub fn legacy_tool_names<'a>(tool: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    FORMER_TOOL_NAMES
        .iter()
        .filter(move |(_, now)| *now == tool)
        .map(|(former, _)| *former)
}

/// The name a Claude Code tool bears now: `name` itself, or the tool a
/// former name stands for ([`FORMER_TOOL_NAMES`]).
pub fn current_tool_name(name: &str) -> &str {
    FORMER_TOOL_NAMES
        .iter()
        .find(|(former, _)| *former == name)
        .map_or(name, |(_, now)| now)
}

/// The warning Claude Code logs for an exact name that looks like an MCP
/// server prefix (`mcp__srv`, which matches no tool), word for word:
/// ``Hook matcher `mcp__srv` matches no tool (it is compared as an exact
/// string). To match all tools from this server, use `mcp__srv__.*`. See
/// CHANGELOG v2.1.195.`` (recorded in `r2_mcp_matchers`). `None` for
/// other names.
pub fn mcp_server_advice(name: &str) -> Option<String> {
    let server = name.strip_prefix("mcp__")?;
    if server.is_empty() || server.contains("__") {
        return None;
    }
    Some(format!(
        "Hook matcher `{name}` matches no tool (it is compared as an exact string). To match all tools from this server, use `{name}__.*`. See CHANGELOG v2.1.195."
    ))
}

impl ClaudeMatcher {
    /// Classifies a matcher of a tool event (or any event whose words are
    /// [`WordSet::Tools`]); `None` is a missing matcher. A regex is checked
    /// within latch's pattern limits, charged to `budget` (one per
    /// configuration file).
    #[cfg_attr(not(any(test, feature = "internals")), allow(dead_code))]
    pub fn parse(
        text: Option<&str>,
        budget: &mut PatternBudget,
    ) -> Result<ClaudeMatcher, PatternError> {
        Self::parse_with(text, WordSet::Tools, budget)
    }

    /// Like [`ClaudeMatcher::parse`], with the given word set.
    pub fn parse_with(
        text: Option<&str>,
        words: WordSet,
        budget: &mut PatternBudget,
    ) -> Result<ClaudeMatcher, PatternError> {
        let Some(text) = text.filter(|t| !t.is_empty() && *t != "*") else {
            return Ok(ClaudeMatcher::Any);
        };
        if text
            .chars()
            .all(|c| words.is_word(c) || words.is_separator(c))
        {
            let names = text
                .split(|c| words.is_separator(c))
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .map(str::to_owned)
                .collect();
            return Ok(ClaudeMatcher::Names(names));
        }
        EcmaRegex::new(text, budget).map(ClaudeMatcher::Regex)
    }

    /// Whether `target` matches. A regex the backtracking matcher gives up
    /// on counts as matching (and is logged); see [`ClaudeMatcher::test`].
    pub fn is_match(&self, target: &str) -> bool {
        self.test(target)
            .unwrap_or_else(|e| gave_up(&self.describe(), target, &e))
    }

    /// Whether the tool `tool` matches, under its name or a former one
    /// ([`legacy_tool_names`]). The dispatch selects through
    /// [`ClaudeIndex`]; this one-by-one answer is what the tests and the
    /// fuzz target hold the index to.
    #[cfg_attr(not(any(test, feature = "internals")), allow(dead_code))]
    pub fn is_match_tool(&self, tool: &str) -> bool {
        std::iter::once(tool)
            .chain(legacy_tool_names(tool))
            .any(|t| self.is_match(t))
    }

    /// Like [`ClaudeMatcher::is_match_tool`] (`tool` true) or
    /// [`ClaudeMatcher::is_match`], and whether the answer is only the
    /// give-up rule's (no name matched, and the backtracking matcher gave
    /// up on one): what `latch explain` says.
    pub fn explain_match(&self, target: &str, tool: bool) -> (bool, bool) {
        let mut gave_up = false;
        let legacy = legacy_tool_names(target).filter(|_| tool);
        for t in std::iter::once(target).chain(legacy) {
            match self.test(t) {
                Ok(true) => return (true, false),
                Ok(false) => {}
                Err(_) => gave_up = true,
            }
        }
        (gave_up, gave_up)
    }

    /// Whether `target` matches, or why latch could not tell.
    pub fn test(&self, target: &str) -> Result<bool, Exhausted> {
        match self {
            ClaudeMatcher::Any => Ok(true),
            ClaudeMatcher::Names(ns) => Ok(ns.iter().any(|n| n == target)),
            ClaudeMatcher::Regex(r) => r.test(target),
        }
    }

    /// The warnings Claude Code logs for this matcher (an MCP server name
    /// given as an exact name), in its words.
    pub fn warnings(&self) -> Vec<String> {
        match self {
            ClaudeMatcher::Names(ns) => ns.iter().filter_map(|n| mcp_server_advice(n)).collect(),
            _ => Vec::new(),
        }
    }

    /// The matcher in words, for explanations.
    pub fn describe(&self) -> String {
        match self {
            ClaudeMatcher::Any => "matches everything".to_owned(),
            ClaudeMatcher::Names(ns) if ns.is_empty() => "no names (matches nothing)".to_owned(),
            ClaudeMatcher::Names(ns) if ns.len() == 1 => format!("`{}` (exact name)", ns[0]),
            ClaudeMatcher::Names(ns) => format!(
                "`{}` (exact names: {})",
                ns.join("|"),
                ns.iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            ClaudeMatcher::Regex(r) => format!(
                "`{}` (JavaScript regular expression, anywhere in the name)",
                super::pattern::shown(r.as_str())
            ),
        }
    }
}

/// All the matchers of one event, folded for fast selection: exact names
/// in a hash map and regexes run by the `regex` crate in one set
/// ([`NameIndex`]); the others one by one.
#[derive(Debug, Clone, Default)]
pub struct ClaudeIndex {
    /// `Any` and the exact names.
    names: NameIndex,
    /// The regexes the `regex` crate runs (on text without astral
    /// characters).
    translated: NameIndex,
    /// Every regex by position: the backtracking ones always, the others
    /// for text with astral characters.
    regexes: Vec<(usize, EcmaRegex)>,
}

/// The backtracking steps the regexes of one [`ClaudeIndex::select`] may
/// take together: 20 times one search's limit, about 120 ms in a release
/// build.
const SELECT_STEPS: u64 = 20 * super::ecma::vm::STEP_LIMIT;

/// A regex the backtracking matcher gave up on counts as matching, and
/// the log says so (at `warn`, which `latch fire` prints).
fn gave_up(matcher: &str, target: &str, error: &impl std::fmt::Display) -> bool {
    tracing::warn!(matcher, target, error = %error, "a hook matcher gave up; it counts as matching");
    true
}

impl ClaudeIndex {
    /// Folds the matchers. Positions must be given in ascending order.
    pub fn build<'a>(matchers: impl IntoIterator<Item = (usize, &'a ClaudeMatcher)>) -> Self {
        let (mut names, mut translated, mut regexes) = (Vec::new(), Vec::new(), Vec::new());
        for (pos, m) in matchers {
            match m {
                ClaudeMatcher::Any => names.push((pos, NameMatcher::Any)),
                ClaudeMatcher::Names(ns) if ns.is_empty() => {}
                ClaudeMatcher::Names(ns) => names.push((pos, NameMatcher::List(ns.clone()))),
                ClaudeMatcher::Regex(r) => {
                    if let Some(lazy) = r.translated() {
                        translated.push((
                            pos,
                            NameMatcher::Regex {
                                pattern: r.as_str().to_owned(),
                                mode: RegexMode::Search,
                                regex: lazy.clone(),
                            },
                        ));
                    }
                    regexes.push((pos, r.clone()));
                }
            }
        }
        ClaudeIndex {
            names: NameIndex::build(names.iter().map(|(p, m)| (*p, m))),
            translated: NameIndex::build(translated.iter().map(|(p, m)| (*p, m))),
            regexes,
        }
    }

    /// Positions whose matcher accepts `target`, ascending (as
    /// [`ClaudeMatcher::is_match`] answers, one by one). A regex the
    /// backtracking matcher gives up on counts as matching, and a sentence
    /// saying so goes to `gave_up`.
    pub fn select(&self, target: &str, gave_up: &mut Vec<String>) -> Vec<usize> {
        let mut out = self.names.select(target);
        let astral = has_astral(target);
        if !astral {
            out.extend(self.translated.select(target));
        }
        // The backtracking matcher's steps for all these regexes together:
        // a file of thousands of slow patterns cannot make one event take
        // minutes. Those left when it is spent give up, and count as
        // matching, with one sentence for them all.
        let mut allowance = SELECT_STEPS;
        let mut unrun = 0_usize;
        for (pos, r) in &self.regexes {
            if !astral && r.translated().is_some() {
                continue;
            }
            if allowance == 0 {
                unrun += 1;
                out.push(*pos);
                continue;
            }
            match r.test_within(target, &mut allowance) {
                Ok(false) => continue,
                Ok(true) => {}
                Err(_) if allowance == 0 => unrun += 1,
                Err(e) => {
                    let matcher = ClaudeMatcher::Regex(r.clone()).describe();
                    gave_up.push(format!(
                        "the matcher {matcher} gave up on {:?} ({e}); it counts as matching",
                        crate::text::summary(target, 80)
                    ));
                    self::gave_up(&matcher, target, &e);
                }
            }
            out.push(*pos);
        }
        if unrun > 0 {
            gave_up.push(format!(
                "{unrun} matchers were not tried on {:?}: latch's allowance of {SELECT_STEPS} backtracking steps for one event's matchers was spent; they count as matching",
                crate::text::summary(target, 80)
            ));
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Positions whose matcher accepts the tool `tool`, under its name or
    /// a former one (as [`ClaudeMatcher::is_match_tool`]); give-ups as for
    /// [`ClaudeIndex::select`].
    pub fn select_tool(&self, tool: &str, gave_up: &mut Vec<String>) -> Vec<usize> {
        let mut out = self.select(tool, gave_up);
        for legacy in legacy_tool_names(tool) {
            out.extend(self.select(legacy, gave_up));
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

#[cfg(test)]
#[path = "claude_tests.rs"]
mod tests;
