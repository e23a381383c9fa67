//! Tool-name matchers.

use std::collections::HashMap;

use std::sync::OnceLock;

use regex::{RegexSet, RegexSetBuilder};

use super::pattern::{LazyRegex, MAX_PATTERN_SIZE, PatternBudget, PatternError, check_regex_as};

/// At most this many patterns go into one `RegexSet`, so that no set is
/// refused by its size limit and a set's compile stays small.
const SET_CHUNK: usize = 256;

/// The size limit of one set: far above what [`SET_CHUNK`] checked patterns
/// of at most [`MAX_PATTERN_SIZE`] in total can reach.
const SET_SIZE_LIMIT: usize = 64 << 20;

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
        /// The checked form (anchored for [`RegexMode::WholeName`]),
        /// compiled on first use.
        regex: LazyRegex,
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
    ///
    /// A regex is checked within latch's pattern limits (see
    /// [`crate::matcher::pattern`]) with a budget of its own; a loader
    /// passes its file's budget to [`NameMatcher::parse_in`].
    // Also reached by the fuzz targets and property tests.
    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    pub fn parse(pattern: &str) -> Result<NameMatcher, PatternError> {
        Self::parse_with(pattern, RegexMode::WholeName)
    }

    /// Like [`NameMatcher::parse`], with the given regex mode.
    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    pub fn parse_with(pattern: &str, mode: RegexMode) -> Result<NameMatcher, PatternError> {
        Self::parse_in(pattern, mode, &mut PatternBudget::per_file())
    }

    /// Like [`NameMatcher::parse_with`], charging a regex to `budget` (one
    /// per configuration file).
    pub fn parse_in(
        pattern: &str,
        mode: RegexMode,
        budget: &mut PatternBudget,
    ) -> Result<NameMatcher, PatternError> {
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
        // The pattern is checked as written: wrapping it first would let a
        // broken pattern such as `a)|(.*` compile into one that matches
        // everything.
        let regex = check_regex_as(p, compiled_form(p, mode), budget)?;
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
    /// The regex matchers by position; the sets are built from their
    /// patterns and fall back to them one by one.
    regexes: Vec<(usize, LazyRegex)>,
    /// The combined sets, one per chunk of [`SET_CHUNK`] regexes (or less,
    /// by size), built on the first selection: loading stays cheap for
    /// commands that never select (`explain`, `lint`). `None` for a chunk
    /// means its set did not compile, and its regexes are tried one by one.
    sets: OnceLock<Vec<(usize, Option<RegexSet>)>>,
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

    /// The sets, each with the index in `regexes` of its first pattern.
    fn sets(&self) -> &[(usize, Option<RegexSet>)] {
        self.sets.get_or_init(|| {
            let mut sets = Vec::new();
            let mut start = 0;
            while start < self.regexes.len() {
                // A chunk ends at SET_CHUNK patterns or at MAX_PATTERN_SIZE
                // of estimated size, whichever comes first (at least one).
                let mut end = start;
                let mut size = 0u64;
                while end < self.regexes.len() && end - start < SET_CHUNK {
                    let s = self.regexes[end].1.size();
                    if end > start && size.saturating_add(s) > MAX_PATTERN_SIZE {
                        break;
                    }
                    size = size.saturating_add(s);
                    end += 1;
                }
                let set =
                    RegexSetBuilder::new(self.regexes[start..end].iter().map(|(_, r)| r.as_str()))
                        .size_limit(SET_SIZE_LIMIT)
                        .build()
                        .ok();
                sets.push((start, set));
                start = end;
            }
            sets
        })
    }

    /// Positions whose matcher accepts `name`, ascending.
    pub fn select(&self, name: &str) -> Vec<usize> {
        let mut out = self.any.clone();
        if let Some(ps) = self.exact.get(name) {
            out.extend_from_slice(ps);
        }
        let sets = if self.regexes.is_empty() {
            &[][..]
        } else {
            self.sets()
        };
        for (i, (start, set)) in sets.iter().enumerate() {
            let end = sets.get(i + 1).map_or(self.regexes.len(), |(s, _)| *s);
            let chunk = self.regexes.get(*start..end).unwrap_or(&[]);
            match set {
                Some(set) => out.extend(
                    set.matches(name)
                        .iter()
                        .filter_map(|j| chunk.get(j).map(|(pos, _)| *pos)),
                ),
                // This chunk's set did not compile: match one by one.
                None => out.extend(
                    chunk
                        .iter()
                        .filter(|(_, r)| r.is_match(name))
                        .map(|(pos, _)| *pos),
                ),
            }
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
    fn a_large_index_is_split_into_sets() {
        let big: Vec<NameMatcher> = (0..600)
            .map(|i| {
                NameMatcher::parse(&format!("[a-z]{{1,5}}-{i}-[a-z]{{1,5}}")).expect("checks alone")
            })
            .collect();
        let idx = NameIndex::build(big.iter().enumerate());
        assert_eq!(idx.select("a-7-b"), vec![7]);
        assert_eq!(idx.select("a-599-b"), vec![599]);
        assert!(idx.sets().len() > 2, "{}", idx.sets().len());
        assert!(idx.sets().iter().all(|(_, s)| s.is_some()));
    }

    #[test]
    fn an_oversized_matcher_is_refused_cheaply() {
        let e = NameMatcher::parse("(?:\\w{100}){100}").expect_err("too large");
        assert!(matches!(e, PatternError::TooLarge { .. }), "{e}");
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
