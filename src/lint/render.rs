//! Rendering diagnostics the way rustc does: `path:line:col`, the source
//! line, a caret under the problem, and the hint, with `annotate-snippets`
//! (the renderer rustc and cargo use).

use std::collections::HashMap;
use std::ops::Range;
use std::path::PathBuf;

use annotate_snippets::{AnnotationKind, Group, Level, Origin, Renderer, Snippet};

use crate::diag::{Diagnostic, Position, Severity};

/// A file's text and where each of its lines starts.
struct Source {
    text: String,
    line_starts: Vec<usize>,
}

impl Source {
    fn new(text: String) -> Source {
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Source { text, line_starts }
    }

    /// Line `n` (1-based), without its newline.
    fn line(&self, n: u32) -> Option<&str> {
        let start = *self.line_starts.get((n as usize).checked_sub(1)?)?;
        let rest = self.text.get(start..)?;
        Some(&rest[..rest.find('\n').unwrap_or(rest.len())])
    }
}

/// Renders every diagnostic, reading each file once. Each snippet is the
/// diagnostic's own line, not the whole file, so rendering stays linear in
/// the number of diagnostics whatever the file's size.
pub fn render(diags: &[Diagnostic]) -> String {
    let mut sources: HashMap<PathBuf, Option<Source>> = HashMap::new();
    for d in diags {
        if let Some(f) = &d.file {
            sources.entry(f.clone()).or_insert_with(|| {
                crate::config::read_bounded_text(f, crate::config::MAX_CONFIG_FILE)
                    .ok()
                    .map(Source::new)
            });
        }
    }
    let renderer = Renderer::plain();
    let mut out = String::new();
    for d in diags {
        let level = match d.severity {
            Severity::Error => Level::ERROR,
            Severity::Warning => Level::WARNING,
            Severity::Info => Level::NOTE,
        };
        let mut message = d.message.clone();
        match (&d.hook, &d.event) {
            (Some(h), Some(e)) => message.push_str(&format!(" [hook {h}, event {e}]")),
            (Some(h), None) => message.push_str(&format!(" [hook {h}]")),
            (None, Some(e)) => message.push_str(&format!(" [event {e}]")),
            (None, None) => {}
        }
        let mut group: Group<'_> = Group::with_title(level.primary_title(message.clone()));
        let path = d.file.as_ref().map(|f| f.display().to_string());
        let line = d
            .file
            .as_ref()
            .and_then(|f| sources.get(f))
            .and_then(Option::as_ref)
            .zip(d.position)
            .and_then(|(s, pos)| s.line(pos.line).map(|l| (l, pos)));
        let range = line.and_then(|(text, pos)| {
            span(text, Position { line: 1, ..pos }).map(|r| (text, pos.line, r))
        });
        match (path, range) {
            (Some(path), Some((text, line, range))) => {
                group = group.element(
                    Snippet::source(text)
                        .line_start(line as usize)
                        .path(path)
                        .annotation(AnnotationKind::Primary.span(range)),
                );
            }
            (Some(path), _) => {
                let mut origin = Origin::path(path);
                if let Some(p) = d.position {
                    origin = origin
                        .line(p.line as usize)
                        // An origin's column is shown as given (1-based).
                        .char_column((p.column as usize).max(1));
                }
                group = group.element(origin);
            }
            _ => {}
        }
        if let Some(hint) = &d.hint {
            group = group.element(Level::HELP.message(hint.clone()));
        }
        out.push_str(&renderer.render(&[group]));
        out.push_str("\n\n");
    }
    out
}

/// The byte range of the token at `pos` (1-based line and column, in
/// characters): up to the next space or YAML/JSON punctuation, at least
/// one character; `None` if the position is outside the text.
fn span(text: &str, pos: Position) -> Option<Range<usize>> {
    let line_start = if pos.line <= 1 {
        0
    } else {
        let mut seen = 1;
        let mut start = None;
        for (i, c) in text.char_indices() {
            if c == '\n' {
                seen += 1;
                if seen == pos.line {
                    start = Some(i + 1);
                    break;
                }
            }
        }
        start?
    };
    let line = &text[line_start..];
    let line = &line[..line.find('\n').unwrap_or(line.len())];
    let col = pos.column.saturating_sub(1) as usize;
    let start = line.char_indices().nth(col).map(|(i, _)| i)?;
    let rest = &line[start..];
    let len = match rest.chars().next() {
        Some('"') => rest[1..].find('"').map_or(rest.len(), |e| e + 2),
        // A flow mapping or list: point at its opening bracket.
        Some('{' | '[') => 1,
        _ => rest
            .find(|c: char| c.is_whitespace() || ":,]}".contains(c))
            .unwrap_or(rest.len()),
    }
    .max(rest.chars().next().map_or(1, char::len_utf8))
    .min(rest.len().max(1));
    // A cut must fall on a character boundary.
    let mut len = len;
    while len < rest.len() && !rest.is_char_boundary(len) {
        len += 1;
    }
    Some(line_start + start..line_start + start + len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_0_without_a_readable_source_renders_as_an_origin() {
        let d = Diagnostic::warning("w")
            .in_file("/nonexistent/latch/settings.yaml")
            .at(Some(Position { line: 3, column: 0 }));
        let text = render(std::slice::from_ref(&d));
        assert!(
            text.contains("/nonexistent/latch/settings.yaml:3:1"),
            "{text}"
        );
        let d = d.at(Some(Position { line: 3, column: 5 }));
        let text = render(&[d]);
        assert!(
            text.contains("/nonexistent/latch/settings.yaml:3:5"),
            "{text}"
        );
    }

    #[test]
    fn spans_cover_the_token() {
        let text = "hooks:\n  PreToolUze:\n    - x\n";
        assert_eq!(span(text, Position { line: 2, column: 3 }), Some(9..19));
        assert_eq!(span(text, Position { line: 9, column: 1 }), None);
        let json = "{\"a\": \"b c\"}";
        assert_eq!(span(json, Position { line: 1, column: 7 }), Some(6..11));
        // A multi-byte space starts the token: the span covers it whole.
        let nbsp = "a:\n  \u{a0}Stop: []\n";
        let r = span(nbsp, Position { line: 2, column: 3 }).unwrap();
        assert!(nbsp.is_char_boundary(r.start) && nbsp.is_char_boundary(r.end));
        assert_eq!(span("x", Position { line: 1, column: 0 }), Some(0..1));
    }
}
