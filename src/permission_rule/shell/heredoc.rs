//! Heredocs as Claude Code reads them: which it refuses, and the
//! `$(cat <<'EOF' … EOF)` idiom it inlines.

use std::sync::OnceLock;

use regex::Regex;
use tree_sitter::Node;

/// Whether Claude Code refuses to read a heredoc (2.1.197's code, its
/// reasons quoted; recorded: `r9_if_heredoc`): anything under the redirect
/// but the delimiters, the body and a file descriptor (`cat <<'EOF' | wc`:
/// the pipeline hangs under the redirect); no body; a delimiter that is
/// not quoted, which "undergoes shell expansion" whatever the body holds;
/// a quoted delimiter with a backslash inside; a body with expansions; `<<-`
/// with a tab-prefixed delimiter; a body line that starts with the
/// delimiter and goes on with `)`, `` ` `` or `}`.
pub(super) fn heredoc_unreadable(node: Node<'_>, src: &str) -> bool {
    let text = |n: Node<'_>| src.get(n.byte_range()).unwrap_or("");
    let mut start = None;
    let mut body = None;
    let mut dash = false;
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        match child.kind() {
            "heredoc_start" => start = Some(text(child)),
            "heredoc_body" => body = Some(child),
            "<<-" => dash = true,
            "<<" | "heredoc_end" | "file_descriptor" => {}
            _ => return true,
        }
    }
    let (Some(start), Some(body)) = (start, body) else {
        return true;
    };
    let single = start.len() >= 2 && start.starts_with('\'') && start.ends_with('\'');
    let double = start.len() >= 2 && start.starts_with('"') && start.ends_with('"');
    let delimiter = if single || double {
        let inner = &start[1..start.len() - 1];
        if inner.contains('\\') {
            return true;
        }
        inner
    } else if let Some(rest) = start.strip_prefix('\\') {
        rest
    } else {
        return true;
    };
    let mut inner = body.walk();
    if body
        .children(&mut inner)
        .any(|c| c.kind() != "heredoc_content")
    {
        return true;
    }
    if delimiter.is_empty() {
        return false;
    }
    if dash && delimiter.starts_with('\t') {
        return true;
    }
    text(body).split('\n').any(|line| {
        let line = if dash {
            line.trim_start_matches('\t')
        } else {
            line
        };
        line.strip_prefix(delimiter)
            .is_some_and(|rest| rest.contains([')', '`', '}']))
    })
}

/// A `$(cat <<'EOF' … EOF)` inside double quotes, as Claude Code reads it.
pub(super) enum CatHeredoc<'s> {
    /// The heredoc's body: the substitution's output.
    Text(&'s str),
    /// A body Claude Code refuses (it reads `/proc/…/environ`, or looks
    /// like an awk program that runs commands): the command is unknown.
    Dangerous,
}

/// `$(cat <<'EOF' … EOF)`: one `cat` without arguments and heredocs Claude
/// Code reads (see [`heredoc_unreadable`]), none of them `<<-`. Anything
/// else is `None`: an ordinary substitution.
pub(super) fn cat_heredoc<'s>(node: Node<'_>, src: &'s str) -> Option<CatHeredoc<'s>> {
    let text = |n: Node<'_>| src.get(n.byte_range()).unwrap_or("");
    let mut statement = None;
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        match child.kind() {
            "$(" | ")" => {}
            "redirected_statement" if statement.is_none() => statement = Some(child),
            _ => return None,
        }
    }
    let statement = statement?;
    let mut cat = false;
    let mut body = None;
    let mut cursor = statement.walk();
    for child in statement.children(&mut cursor) {
        match child.kind() {
            "command" => {
                let mut inner = child.walk();
                let mut parts = child.children(&mut inner);
                let (Some(name), None) = (parts.next(), parts.next()) else {
                    return None;
                };
                if name.kind() != "command_name" || text(name) != "cat" {
                    return None;
                }
                cat = true;
            }
            "heredoc_redirect" => {
                if heredoc_unreadable(child, src) {
                    return None;
                }
                let mut inner = child.walk();
                for part in child.children(&mut inner) {
                    match part.kind() {
                        "<<-" => return None,
                        "heredoc_body" => body = Some(text(part)),
                        _ => {}
                    }
                }
            }
            _ => return None,
        }
    }
    let body = body.filter(|_| cat)?;
    if dangerous_body(body) {
        Some(CatHeredoc::Dangerous)
    } else {
        Some(CatHeredoc::Text(body))
    }
}

/// Claude Code's checks on an inlined heredoc body: `/proc/…/environ`, and
/// an awk program that runs commands, pipes, loads code or opens a socket.
pub(super) fn dangerous_body(body: &str) -> bool {
    static RES: OnceLock<Vec<Regex>> = OnceLock::new();
    let res = RES.get_or_init(|| {
        [
            r"/proc/.*/environ",
            r#"(?:^|[^|])\|&?[^/|%";#{}]*""#,
            r"(?:^|[^|])\|&?[\s\\]*getline\b",
            r"@[\s\\]*(?:load|include)\b|@[\s\\]*\w+(?:::\w+)?(?:\[[^\]]*\])*[\s\\]*\(",
            r#""/inet[46]?/"#,
            // `system(` and `extension(` not after a letter or `_` (the
            // lookbehind is checked below).
            r"(system|extension)[\s\\]*\(",
        ]
        .iter()
        .filter_map(|re| Regex::new(re).ok())
        .collect()
    });
    let (others, calls) = res.split_at(res.len().saturating_sub(1));
    others.iter().any(|re| re.is_match(body))
        || calls.iter().any(|re| {
            re.find_iter(body).any(|m| {
                !body[..m.start()]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            })
        })
}
