//! Text that tree-sitter-bash and bash read differently, refused before
//! parsing.

use std::sync::OnceLock;

use regex::Regex;

/// The first code point tree-sitter-bash is not given: every character
/// from here on is refused before parsing (planes 3 to 16, where the
/// parser's crash lies; a full scan found none below U+40000).
pub(super) const BEYOND_PARSER: u32 = 0x30000;

/// Text that tree-sitter and bash split differently, which Claude Code
/// refuses to analyse (every rule then matches).
pub(super) fn differential(command: &str) -> Option<&'static str> {
    static CHECKS: OnceLock<Vec<(Option<Regex>, &'static str)>> = OnceLock::new();
    let checks = CHECKS.get_or_init(|| {
        [
            (r"[\x00-\x08\x0B-\x1F\x7F]", "a control character"),
            (
                r"[\u{00A0}\u{1680}\u{2000}-\u{200B}\u{2028}\u{2029}\u{202F}\u{205F}\u{3000}\u{FEFF}]",
                "a Unicode space",
            ),
            (r"\\[ \t]|[^ \t\n\\]\\\n", "a backslash before a space"),
            (r"~\[", "zsh's ~[ expansion"),
            (r"(?:^|[\s;&|])=[a-zA-Z_]", "zsh's =command expansion"),
        ]
        .into_iter()
        .map(|(re, what)| (Regex::new(re).ok(), what))
        .collect()
    });
    for (re, what) in checks {
        // A check that failed to compile refuses everything (fail open).
        if re.as_ref().is_none_or(|re| re.is_match(command)) {
            return Some(what);
        }
    }
    if brace_with_quote(command) {
        return Some("a quote inside braces");
    }
    None
}

/// `{a'}',b}`: a brace with a quote character after it, outside quotes.
fn brace_with_quote(command: &str) -> bool {
    if !command.contains('{') {
        return false;
    }
    // Mask `{` inside quotes, then look for `{` followed (before any `}`)
    // by a quote character.
    let mut masked = String::with_capacity(command.len());
    let (mut single, mut double) = (false, false);
    let mut chars = command.chars().peekable();
    while let Some(c) = chars.next() {
        if single {
            if c == '\'' {
                single = false;
            }
            masked.push(if c == '{' { ' ' } else { c });
        } else if double {
            if c == '\\' && matches!(chars.peek(), Some('"' | '\\')) {
                masked.push(c);
                if let Some(n) = chars.next() {
                    masked.push(n);
                }
                continue;
            }
            if c == '"' {
                double = false;
            }
            masked.push(if c == '{' { ' ' } else { c });
        } else if c == '\\' {
            masked.push(c);
            if let Some(n) = chars.next() {
                masked.push(n);
            }
        } else {
            if c == '\'' {
                single = true;
            } else if c == '"' {
                double = true;
            }
            masked.push(c);
        }
    }
    let mut open = false;
    for c in masked.chars() {
        match c {
            '{' => open = true,
            '}' => open = false,
            '\'' | '"' if open => return true,
            _ => {}
        }
    }
    false
}
