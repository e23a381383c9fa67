//! Tool-name matchers.

use std::collections::HashMap;

use std::sync::OnceLock;

use regex::{Regex, RegexBuilder, RegexSet, RegexSetBuilder};

/// The largest compiled regex latch accepts from a configuration. A pattern
/// over it is refused at load instead of using unbounded memory.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// One matcher for a name (a tool name, or another target a dialect tests).
#[derive(Debug, Clone)]
pub enum NameMatcher {
    /// Matches every name (`""`, `"*"`, or no matcher).
    Any,
    /// Matches exactly one name.
    Exact(String),
    /// Matches any of several exact names (`a|b|c`).
    List(Vec<String>),
    /// A regular expression.
    Regex {
        /// The pattern as written.
        pattern: String,
        /// How the pattern is applied to the name.
        mode: RegexMode,
        /// The compiled form (anchored for [`RegexMode::WholeName`]).
        regex: Regex,
    },
}

/// How a regex matcher is applied to a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegexMode {
    /// The pattern must match the whole name (`^(?:p)$`).
    WholeName,
    /// The pattern may match anywhere in the name, as Go's
    /// `regexp.MatchString` does.
    Search,
}

impl NameMatcher {
    /// Classifies a matcher the way poolside and evener do: surrounding
    /// whitespace is trimmed; empty or `*` matches everything; a string of
    /// only `[A-Za-z0-9_|]` is an exact name or a pipe list; anything else is
    /// a regular expression (RE2 syntax), which must match the whole name.
    pub fn parse(pattern: &str) -> Result<NameMatcher, regex::Error> {
        Self::parse_with(pattern, RegexMode::WholeName)
    }

    /// Like [`NameMatcher::parse`], with the given regex mode.
    pub fn parse_with(pattern: &str, mode: RegexMode) -> Result<NameMatcher, regex::Error> {
        let p = pattern.trim();
        if p.is_empty() || p == "*" {
            return Ok(NameMatcher::Any);
        }
        if p.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '|')
        {
            let names: Vec<String> = p
                .split('|')
                .filter(|n| !n.is_empty())
                .map(str::to_owned)
                .collect();
            return Ok(match names.len() {
                0 => NameMatcher::Any,
                1 => NameMatcher::Exact(names.into_iter().next().unwrap_or_default()),
                _ => NameMatcher::List(names),
            });
        }
        // Validate the pattern as written (parsing only, which is cheap):
        // wrapping it first would let a broken pattern such as `a)|(.*`
        // compile into one that matches everything.
        regex_syntax::Parser::new()
            .parse(p)
            .map_err(|e| regex::Error::Syntax(e.to_string()))?;
        let regex = RegexBuilder::new(&compiled_form(p, mode))
            .size_limit(REGEX_SIZE_LIMIT)
            .build()?;
        Ok(NameMatcher::Regex {
            pattern: p.to_owned(),
            mode,
            regex,
        })
    }

    /// The names an exact or list matcher spells out; none for the others.
    pub fn exact_names(&self) -> Vec<&str> {
        match self {
            NameMatcher::Exact(n) => vec![n.as_str()],
            NameMatcher::List(ns) => ns.iter().map(String::as_str).collect(),
            _ => Vec::new(),
        }
    }

    /// The matcher in words, for explanations: `` `Bash` (exact name) ``.
    pub fn describe(&self) -> String {
        match self {
            NameMatcher::Any => "`*` (matches everything)".to_owned(),
            NameMatcher::Exact(n) => format!("`{n}` (exact name)"),
            NameMatcher::List(ns) => format!("`{}` (list of exact names)", ns.join("|")),
            NameMatcher::Regex { pattern, mode, .. } => match mode {
                RegexMode::WholeName => format!("`{pattern}` (regex on the whole name)"),
                RegexMode::Search => format!("`{pattern}` (regex, anywhere in the name)"),
            },
        }
    }

    /// Whether `name` matches.
    pub fn matches(&self, name: &str) -> bool {
        match self {
            NameMatcher::Any => true,
            NameMatcher::Exact(n) => n == name,
            NameMatcher::List(ns) => ns.iter().any(|n| n == name),
            NameMatcher::Regex { regex, .. } => regex.is_match(name),
        }
    }
}

/// The explanation line of a regex error (the crate's message spans several
/// lines with a caret diagram).
pub fn regex_error_message(e: &regex::Error) -> String {
    let text = e.to_string();
    text.lines()
        .rev()
        .find(|l| l.starts_with("error:"))
        .map(|l| l.trim_start_matches("error:").trim().to_owned())
        .unwrap_or(text)
}

/// Compiles a configuration's regex as written, within latch's size limit;
/// the error is [`regex_error_message`]'s one line.
pub fn compile_regex(pattern: &str) -> Result<Regex, String> {
    RegexBuilder::new(pattern)
        .size_limit(REGEX_SIZE_LIMIT)
        .build()
        .map_err(|e| regex_error_message(&e))
}

fn compiled_form(pattern: &str, mode: RegexMode) -> String {
    match mode {
        RegexMode::WholeName => format!("^(?:{pattern})$"),
        RegexMode::Search => pattern.to_owned(),
    }
}

/// All the matchers of one event, folded for fast selection.
///
/// Built from `(position, matcher)` pairs; [`NameIndex::select`] returns the
/// positions whose matcher accepts a name, in ascending order, so hooks still
/// run in configuration order.
#[derive(Debug, Clone, Default)]
pub struct NameIndex {
    any: Vec<usize>,
    exact: HashMap<String, Vec<usize>>,
    /// The regex matchers by position, compiled; the set is built from
    /// their patterns and falls back to them one by one.
    regexes: Vec<(usize, Regex)>,
    /// The combined set, built on the first selection: loading stays cheap
    /// for commands that never select (`explain`, `lint`), and `None` inside
    /// means the set was over its size limit.
    set: OnceLock<Option<RegexSet>>,
}

impl NameIndex {
    /// Folds the matchers. Positions must be given in ascending order.
    pub fn build<'a>(matchers: impl IntoIterator<Item = (usize, &'a NameMatcher)>) -> Self {
        let mut index = NameIndex::default();
        for (pos, m) in matchers {
            match m {
                NameMatcher::Any => index.any.push(pos),
                NameMatcher::Exact(n) => index.exact.entry(n.clone()).or_default().push(pos),
                NameMatcher::List(ns) => {
                    for n in ns {
                        let slot = index.exact.entry(n.clone()).or_default();
                        if slot.last() != Some(&pos) {
                            slot.push(pos);
                        }
                    }
                }
                NameMatcher::Regex { regex, .. } => index.regexes.push((pos, regex.clone())),
            }
        }
        index
    }

    fn set(&self) -> Option<&RegexSet> {
        self.set
            .get_or_init(|| {
                // Each pattern compiled on its own already; the set only
                // fails if the combined size is over the limit, and then the
                // per-regex fallback in `select` keeps selection correct.
                RegexSetBuilder::new(self.regexes.iter().map(|(_, r)| r.as_str()))
                    .size_limit(REGEX_SIZE_LIMIT * 8)
                    .build()
                    .ok()
            })
            .as_ref()
    }

    /// Positions whose matcher accepts `name`, ascending.
    pub fn select(&self, name: &str) -> Vec<usize> {
        let mut out = self.any.clone();
        if let Some(ps) = self.exact.get(name) {
            out.extend_from_slice(ps);
        }
        if self.regexes.is_empty() {
            // nothing to search
        } else if let Some(set) = self.set() {
            out.extend(
                set.matches(name)
                    .iter()
                    .filter_map(|i| self.regexes.get(i).map(|(pos, _)| *pos)),
            );
        } else {
            // The combined set was over its size limit: match one by one.
            out.extend(
                self.regexes
                    .iter()
                    .filter(|(_, r)| r.is_match(name))
                    .map(|(pos, _)| *pos),
            );
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `case!(test_name: pattern, target)` or `case!(test_name: pattern, !target)`.
    macro_rules! case {
        ($name:ident: $pat:expr, !$target:literal) => {
            #[test]
            fn $name() {
                let m = NameMatcher::parse($pat).expect("pattern compiles");
                assert!(
                    !m.matches($target),
                    "{:?} should not match {:?}",
                    $pat,
                    $target
                );
            }
        };
        ($name:ident: $pat:expr, $target:literal) => {
            #[test]
            fn $name() {
                let m = NameMatcher::parse($pat).expect("pattern compiles");
                assert!(m.matches($target), "{:?} should match {:?}", $pat, $target);
            }
        };
    }

    case!(empty_matches_all: "", "shell");
    case!(star_matches_all: "*", "anything");
    case!(exact: "shell", "shell");
    case!(exact_is_not_substring: "shell", !"shell_exec");
    case!(exact_is_not_prefix: "Bash", !"BashOutput");
    case!(exact_is_case_sensitive: "shell", !"Shell");
    case!(list_first: "shell|bash", "shell");
    case!(list_second: "shell|bash", "bash");
    case!(list_no_substring: "shell|bash", !"bas");
    case!(regex_whole_name: "web_.*", "web_fetch");
    case!(regex_is_anchored_at_start: "fetch", !"web_fetch");
    case!(regex_is_anchored_at_end: "web_.", !"web_fetch");
    case!(regex_alternation_is_grouped: "read|write.*", "write_file");
    case!(trimmed: " shell ", "shell");
    case!(mcp_regex: "mcp__.*", "mcp__github__search");

    #[test]
    fn search_mode_matches_anywhere() {
        let m = NameMatcher::parse_with("memor.", RegexMode::Search).expect("compiles");
        assert!(m.matches("memory__search"));
        let idx = NameIndex::build([(0, &m)]);
        assert_eq!(idx.select("memory__search"), vec![0]);
    }

    #[test]
    fn invalid_regex_is_an_error() {
        assert!(NameMatcher::parse("(?<=a)b").is_err());
        assert!(NameMatcher::parse("(unclosed").is_err());
        // Wrapped as ^(?:…)$ this would compile and match everything.
        assert!(NameMatcher::parse("Bash)|(.*").is_err());
    }

    #[test]
    fn an_index_over_the_set_size_limit_still_selects() {
        let big: Vec<NameMatcher> = (0..40)
            .map(|i| {
                NameMatcher::parse(&format!("\\w{{1,5}}X{i}\\w{{1,5}}")).expect("compiles alone")
            })
            .collect();
        let idx = NameIndex::build(big.iter().enumerate());
        assert!(idx.set().is_none(), "the set should be over its limit");
        assert_eq!(idx.select("aX7b"), vec![7]);
    }

    #[test]
    fn index_returns_positions_in_order() {
        let ms: Vec<NameMatcher> = ["web_.*", "shell", "*", "shell|read", "nope"]
            .iter()
            .map(|p| NameMatcher::parse(p).expect("compiles"))
            .collect();
        let idx = NameIndex::build(ms.iter().enumerate());
        assert_eq!(idx.select("shell"), vec![1, 2, 3]);
        assert_eq!(idx.select("web_fetch"), vec![0, 2]);
        assert_eq!(idx.select("other"), vec![2]);
    }
}
