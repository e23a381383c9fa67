//! Claude Code's command wildcard: `*` matches anything (newlines
//! included), `\*` a literal star, `\\` a backslash; the whole text must
//! match. A pattern whose only wildcard is a trailing ` *` also matches the
//! bare command (`git *` matches `git`).

use crate::matcher::pattern::{LazyRegex, PatternBudget, PatternError, check_regex};
use crate::text::js_trim;

/// The regex a wildcard pattern stands for, anchored at both ends.
pub fn to_regex(pattern: &str) -> String {
    #[derive(PartialEq)]
    enum Piece {
        Char(char),
        Star,
    }
    let trimmed = js_trim(pattern);
    let mut pieces = Vec::new();
    let mut chars = trimmed.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if matches!(chars.peek(), Some('*' | '\\')) => {
                if let Some(n) = chars.next() {
                    pieces.push(Piece::Char(n));
                }
            }
            '*' => pieces.push(Piece::Star),
            c => pieces.push(Piece::Char(c)),
        }
    }
    let stars = pieces.iter().filter(|p| **p == Piece::Star).count();
    let optional_tail = stars == 1
        && pieces.len() >= 2
        && pieces[pieces.len() - 1] == Piece::Star
        && pieces[pieces.len() - 2] == Piece::Char(' ');
    if optional_tail {
        pieces.truncate(pieces.len() - 2);
    }
    let mut out = String::from("^(?s:");
    let mut buf = [0u8; 4];
    for piece in &pieces {
        match piece {
            Piece::Star => out.push_str(".*"),
            Piece::Char(c) => out.push_str(&regex::escape(c.encode_utf8(&mut buf))),
        }
    }
    if optional_tail {
        out.push_str("(?: .*)?");
    }
    out.push_str(")$");
    out
}

/// Checks a wildcard pattern through latch's pattern limits.
pub fn check(pattern: &str, budget: &mut PatternBudget) -> Result<LazyRegex, PatternError> {
    if pattern.len() > crate::matcher::pattern::MAX_PATTERN_LEN {
        return Err(PatternError::TooLong { len: pattern.len() });
    }
    check_regex(&to_regex(pattern), budget)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, text: &str) -> bool {
        check(pattern, &mut PatternBudget::per_file())
            .expect("valid")
            .is_match(text)
    }

    #[test]
    fn stars_and_the_optional_tail() {
        assert!(matches("git *", "git"));
        assert!(matches("git *", "git push"));
        assert!(!matches("git *", "gitk"));
        assert!(matches("git*", "gitk"));
        assert!(matches("git*", "git"));
        assert!(matches("git push *", "git push"));
        assert!(!matches("git push *", "git --version"));
        assert!(matches("* --help", "ls --help"));
        assert!(!matches("git * *", "git"), "two stars: no optional tail");
        assert!(matches("git * *", "git a b"));
        assert!(matches("echo *", "echo a\nb"), "* crosses newlines");
        assert!(matches("npm test", "npm test"));
        assert!(!matches("npm test", "npm test x"));
        assert!(matches("  npm test ", "npm test"), "the pattern is trimmed");
    }

    #[test]
    fn escapes_and_regex_characters() {
        assert!(matches(r"echo \*", "echo *"));
        assert!(!matches(r"echo \*", "echo a"));
        assert!(matches(r"a\\b", r"a\b"));
        assert!(matches("a.b(c)|[d]+?^$", "a.b(c)|[d]+?^$"));
        assert!(!matches("a.b", "axb"));
        assert!(matches(r"echo \n", r"echo \n"), "other escapes stay");
    }
}
