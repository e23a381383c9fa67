//! Hook texts over 10,000 characters, as Claude Code keeps them (recorded:
//! `r8_big_*`; the layout read from its 2.1.197 code): the whole text goes
//! to a file, and the model reads a preview of its first 2,000 characters
//! with the file's path.
//!
//! This holds for plain stdout on exit 0, `additionalContext`,
//! `systemMessage` and SessionStart's `initialUserMessage`. Lengths are
//! JavaScript's (UTF-16 code units), so a text of 6,000 two-byte
//! characters stays inline. Claude Code writes the
//! file beside its transcript (`<session>/tool-results/`); latch writes
//! it in the session's state directory, `tool-results/`, private (0700).

use std::io::Write;
use std::path::Path;

use crate::session::Session;

/// Longer texts go to a file (Claude Code's `1e4`).
pub const MAX_INLINE: usize = 10_000;

/// The preview's length, in UTF-16 code units (Claude Code's `2000`).
const PREVIEW: usize = 2_000;

/// What a hook's text is: it names the file (Claude Code 2.1.332's
/// `jEe`): `hook-<run>-<tag>-stdout.txt` for plain stdout, and
/// `hook-<id>-<Event>-<tag>-<field>.txt` for the others, where `<id>` is
/// the tool call's id (else the run's) and `<tag>` 32 hex digits. Claude
/// Code makes the tag with a key of its process, so no two runs agree;
/// latch makes it from the text (its SHA-256), so the same text keeps its
/// name. 2.1.197 named the file by the handler's place in its group.
#[derive(Debug, Clone, Copy)]
pub enum Field {
    /// Plain stdout on exit 0.
    Stdout,
    /// `additionalContext`.
    AdditionalContext,
    /// `systemMessage`.
    SystemMessage,
    /// SessionStart's `initialUserMessage`.
    InitialUserMessage,
}

impl Field {
    fn name(self) -> &'static str {
        match self {
            Field::Stdout => "stdout",
            Field::AdditionalContext => "additionalContext",
            Field::SystemMessage => "systemMessage",
            Field::InitialUserMessage => "initialUserMessage",
        }
    }

    fn file_name(self, id: &str, event: &str, text: &str) -> String {
        use sha2::Digest;
        let digest = sha2::Sha256::digest(text.as_bytes());
        let tag: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
        match self {
            Field::Stdout => format!("hook-{id}-{tag}-stdout.txt"),
            _ => format!("hook-{id}-{event}-{tag}-{}.txt", self.name()),
        }
    }
}

/// `text` as the model reads it: itself up to [`MAX_INLINE`] characters;
/// past that, saved to a file in `session`'s state named after `id` (the
/// tool call's id, or one of the hook run's), the `event` and `field`
/// (see [`Field`]), and replaced by
/// Claude Code's `<persisted-output>` preview; when the file cannot be
/// written, cut with Claude Code's note saying so.
pub fn inline_or_saved(
    text: &str,
    session: &Session,
    id: &str,
    event: &str,
    field: Field,
) -> String {
    let units = utf16_len(text);
    if units <= MAX_INLINE {
        return text.to_owned();
    }
    // The id comes from the harness: one safe file name whatever it holds.
    let id = crate::session::encode_id(id);
    match save(text, session, &field.file_name(&id, event, text)) {
        Ok(path) => {
            let (preview, more) = preview(text);
            format!(
                "<persisted-output>\nOutput too large ({}). Full output saved to: {}\n\nPreview (first {}):\n{preview}{}</persisted-output>",
                size_label(units),
                path.display(),
                size_label(PREVIEW),
                if more { "\n...\n" } else { "\n" },
            )
        }
        Err(why) => format!(
            "{}\n\n[Hook {} truncated at {MAX_INLINE} chars \u{2014} persist-to-disk failed: {why}]",
            &text[..byte_at_unit(text, MAX_INLINE)],
            field.name()
        ),
    }
}

/// Writes `text` to `name` in the session's `tool-results` directory.
/// A file of that name that holds the same text is kept; one that holds
/// another (a file left there by someone else) makes the name `<name>.2`,
/// `.3`, …, so the path the model reads always holds its text. A failed write leaves no
/// file behind.
fn save(text: &str, session: &Session, name: &str) -> Result<std::path::PathBuf, String> {
    let dir = session
        .private_dir("tool-results")
        .map_err(|e| e.to_string())?
        .ok_or_else(|| "the session has no state directory".to_owned())?;
    let (stem, ext) = name.rsplit_once('.').unwrap_or((name, "txt"));
    for n in 1..=MAX_NAMES {
        let path = if n == 1 {
            dir.join(name)
        } else {
            dir.join(format!("{stem}.{n}.{ext}"))
        };
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut file) => {
                return match file.write_all(text.as_bytes()) {
                    Ok(()) => Ok(path),
                    Err(e) => {
                        let _ = std::fs::remove_file(&path);
                        Err(e.to_string())
                    }
                };
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                if holds(&path, text) {
                    return Ok(path);
                }
            }
            Err(e) => return Err(e.to_string()),
        }
    }
    Err(format!("{MAX_NAMES} files named {name} hold other texts"))
}

/// How many names [`save`] tries for one text.
const MAX_NAMES: usize = 16;

/// Whether the regular file at `path` (not followed if a link) holds
/// exactly `text`; read only when its size says it may.
fn holds(path: &Path, text: &str) -> bool {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_file() && m.len() == text.len() as u64 => {
            std::fs::read(path).is_ok_and(|bytes| bytes == text.as_bytes())
        }
        _ => false,
    }
}

/// Claude Code's preview: the first [`PREVIEW`] units, cut back to the
/// last line break in them when it lies past their middle (the break
/// dropped); and whether text follows.
fn preview(text: &str) -> (&str, bool) {
    if utf16_len(text) <= PREVIEW {
        return (text, false);
    }
    let head = &text[..byte_at_unit(text, PREVIEW)];
    let end = match head.rfind('\n') {
        Some(at) if utf16_len(&head[..at]) > PREVIEW / 2 => at,
        _ => head.len(),
    };
    (&text[..end], true)
}

/// Claude Code's size label of `n` characters: `n bytes` below 1 KiB, else
/// KiB (then MiB, GiB) with one decimal, a trailing `.0` dropped.
fn size_label(n: usize) -> String {
    let mut size = n as f64 / 1024.0;
    if size < 1.0 {
        return format!("{n} bytes");
    }
    for unit in ["KB", "MB"] {
        if size < 1024.0 {
            return format!("{}{unit}", one_decimal(size));
        }
        size /= 1024.0;
    }
    format!("{}GB", one_decimal(size))
}

/// JavaScript's `x.toFixed(1)` without a trailing `.0`.
fn one_decimal(x: f64) -> String {
    let s = format!("{x:.1}");
    s.strip_suffix(".0").map(str::to_owned).unwrap_or(s)
}

/// The text's length in UTF-16 code units (JavaScript's `length`).
fn utf16_len(text: &str) -> usize {
    text.chars().map(char::len_utf16).sum()
}

/// The byte offset where the first `units` UTF-16 code units of `text`
/// end (never inside a character: one that would straddle stays out).
fn byte_at_unit(text: &str, units: usize) -> usize {
    let mut seen = 0;
    for (at, c) in text.char_indices() {
        seen += c.len_utf16();
        if seen > units {
            return at;
        }
    }
    text.len()
}

/// A fresh id for a hook run's files when the event names no tool call.
pub fn run_id() -> String {
    crate::engine::unique_id("run")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_previews_read_as_claude_code_writes_them() {
        assert_eq!(size_label(12_000), "11.7KB");
        assert_eq!(size_label(10_001), "9.8KB");
        assert_eq!(size_label(2_000), "2KB");
        assert_eq!(size_label(500), "500 bytes");
        assert_eq!(size_label(3 << 20), "3MB");
        let lines: String = (0..300).map(|i| format!("{i:039}\n")).collect();
        let (p, more) = preview(&lines);
        assert!(more);
        assert_eq!(p.len(), 1_999, "50 lines without the last break");
        let a = "A".repeat(12_000);
        assert_eq!(preview(&a).0.len(), 2_000);
        // A break early in the head is no cut.
        let early = format!("ab\n{}", "A".repeat(12_000));
        assert_eq!(preview(&early).0.len(), 2_000);
        // SHA-256("abc") begins ba7816bf8f01cfea414140de5dae2223.
        assert_eq!(
            Field::AdditionalContext.file_name("toolu_1", "PostToolUse", "abc"),
            "hook-toolu_1-PostToolUse-ba7816bf8f01cfea414140de5dae2223-additionalContext.txt"
        );
        assert_eq!(
            Field::Stdout.file_name("u", "Stop", "abc"),
            "hook-u-ba7816bf8f01cfea414140de5dae2223-stdout.txt"
        );
    }

    #[test]
    fn lengths_are_javascript_s() {
        assert_eq!(utf16_len("é😀"), 3);
        assert_eq!(byte_at_unit("a😀b", 2), 1, "a pair is not split");
        let wide = "é".repeat(6_000);
        let session = Session::in_memory(None);
        assert_eq!(
            inline_or_saved(&wide, &session, "x", "Stop", Field::Stdout),
            wide
        );
        let long = "x".repeat(10_001);
        let cut = inline_or_saved(&long, &session, "x", "Stop", Field::AdditionalContext);
        assert!(cut.starts_with(&"x".repeat(10_000)));
        assert!(cut.ends_with(
            "\n\n[Hook additionalContext truncated at 10000 chars \u{2014} persist-to-disk failed: the session has no state directory]"
        ));
    }
}
