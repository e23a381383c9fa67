//! Words of a command: quotes removed, brace expansion, option syntax.

use std::sync::OnceLock;

use regex::Regex;

/// An inlined multi-line heredoc that would make its argument start like an
/// option (`-x`, `--x`): Claude Code refuses it.
pub(super) fn option_syntax(arg: &str) -> bool {
    let rest = arg.strip_prefix("--").or_else(|| arg.strip_prefix('-'));
    rest.and_then(|r| r.chars().next())
        .is_some_and(|c| c.is_ascii_alphanumeric())
}

/// A node kind as a `'static` name for the reason (tree-sitter's kinds are
/// `'static` already; this keeps the signature honest).
pub(super) fn node_kind(kind: &'static str) -> &'static str {
    kind
}

/// Unquoted text: a backslash keeps the next character literally.
pub(super) fn unescape_unquoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('\n') => {}
                Some(n) => out.push(n),
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Double-quoted text: a backslash escapes only `$`, `` ` ``, `"`, `\` and
/// a newline.
pub(super) fn unescape_double(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some('$' | '`' | '"' | '\\') => {
                    if let Some(n) = chars.next() {
                        out.push(n);
                    }
                }
                Some('\n') => {
                    chars.next();
                }
                _ => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// `{a,b}` or `{1..3}` in an unquoted word: bash expands it into several
/// words.
pub(super) fn brace_expansion(word: &str) -> bool {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"\{[^{}\s]*(,|\.\.)[^{}\s]*\}").ok())
        .as_ref()
        .is_none_or(|re| re.is_match(word))
}
