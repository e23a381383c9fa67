//! Small text helpers shared by dialects: caps and escaping.

/// The word serde writes for a unit enum value (`blocked`, `hook_blocked`,
/// `deny`); empty for anything that is not a plain string.
pub fn serde_word<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// Cuts `text` to at most `max` bytes (on a character boundary) and appends
/// a marker saying how much was cut. Text within the cap is returned as is.
pub fn cap(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let kept = at_most(text, max);
    format!(
        "{kept}\n[latch: truncated, {} of {} bytes omitted]",
        text.len() - kept.len(),
        text.len()
    )
}

/// `text` cut to at most `max` bytes, on a character boundary.
pub fn at_most(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// JavaScript's `\s`: Unicode spaces, line terminators and the BOM.
pub fn js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | ' ' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

/// JavaScript's `String.prototype.trim`: Unicode white space and line
/// terminators, and the byte-order mark U+FEFF, but not U+0085, which
/// Rust's `trim` takes.
pub fn js_trim(text: &str) -> &str {
    text.trim_matches(js_space)
}

/// `value` safe to print on a terminal: each control character (line
/// breaks, carriage returns, escape sequences, C1 controls) written as a
/// visible escape (`\r`, `\u{1b}`), so text from a configuration file
/// cannot rewrite what is shown around it (hide a command behind `\r`
/// and `ESC[K`) or forge a line. Text without one is returned as is.
pub fn visible(value: &str) -> std::borrow::Cow<'_, str> {
    if !value.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(value);
    }
    let mut out = String::with_capacity(value.len() + 8);
    for c in value.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&c.escape_unicode().to_string()),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// [`visible`] for text of several lines: its line breaks stay.
pub fn visible_lines(value: &str) -> String {
    value
        .split('\n')
        .map(visible)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Escapes `&`, `<`, `>` and `"` so a value cannot close a tag or attribute.
pub fn escape_markup(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

/// Neutralises every closing tag of `tag` in `text`, so text wrapped in
/// `<tag>…</tag>` cannot end the wrapper early: a `<` that starts a close
/// tag of `tag` is written `&lt;`. Matching is as lenient as a reader
/// might be: any ASCII case (`</HOOK>`, `</Hook`) and whitespace around the
/// slash (`< /hook`, `</ hook`, `</\nhook`), and a close tag cut off at
/// the end of the text. Everything else, such as `</hooks>`, is kept as
/// written. `tag` must be ASCII.
pub fn neutralize_close_tag(text: &str, tag: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (at, _) in text.match_indices('<') {
        let rest = &bytes[at + 1..];
        let ws = |s: &[u8]| s.iter().take_while(|b| b.is_ascii_whitespace()).count();
        let mut i = ws(rest);
        if rest.get(i) != Some(&b'/') {
            continue;
        }
        i += 1;
        i += ws(&rest[i..]);
        let name = &rest[i..];
        let ends = |b: Option<&u8>| {
            b.is_none_or(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':')))
        };
        if name.len() >= tag.len()
            && name[..tag.len()].eq_ignore_ascii_case(tag.as_bytes())
            && ends(name.get(tag.len()))
        {
            out.push_str(&text[last..at]);
            out.push_str("&lt;");
            last = at + 1;
        }
    }
    out.push_str(&text[last..]);
    out
}

/// `line` cut to at most `max` characters, with an ellipsis when cut.
pub fn clip(line: &str, max: usize) -> String {
    if line.chars().count() > max {
        let cut: String = line.chars().take(max).collect();
        format!("{cut}…")
    } else {
        line.to_owned()
    }
}

/// The first non-empty line of `text`, trimmed.
pub fn first_line(text: &str) -> Option<&str> {
    text.lines().map(str::trim).find(|l| !l.is_empty())
}

/// The first non-empty line of `text` clipped to `max` characters, for a
/// one-line message; empty when `text` has no such line.
pub fn summary(text: &str, max: usize) -> String {
    first_line(text).map(|l| clip(l, max)).unwrap_or_default()
}

/// `": "` and the [`summary`] of `text`, to append to a message; empty
/// when `text` has no non-empty line.
pub fn detail(text: &str, max: usize) -> String {
    first_line(text)
        .map(|l| format!(": {}", clip(l, max)))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_and_detail_take_the_first_non_empty_line_clipped() {
        assert_eq!(summary("\n  first  \nsecond", 3), "fir…");
        assert_eq!(summary(" \n", 3), "");
        assert_eq!(detail("\nboom\nmore", 10), ": boom");
        assert_eq!(detail("", 10), "");
    }

    #[test]
    fn cap_keeps_short_text() {
        assert_eq!(cap("abc", 3), "abc");
    }

    #[test]
    fn cap_cuts_on_a_char_boundary_and_marks_it() {
        let s = "ééé"; // 6 bytes
        let c = cap(s, 3);
        assert!(
            c.starts_with("é\n[latch: truncated, 4 of 6 bytes omitted]"),
            "{c}"
        );
    }

    #[test]
    fn neutralizes_close_tags_in_any_case_and_spacing() {
        let n = |t: &str| neutralize_close_tag(t, "hook");
        assert_eq!(n("a</hook>b"), "a&lt;/hook>b");
        assert_eq!(n("</HOOK>"), "&lt;/HOOK>");
        assert_eq!(n("</Hook >"), "&lt;/Hook >");
        assert_eq!(n("< /hook>"), "&lt; /hook>");
        assert_eq!(n("</ hook>"), "&lt;/ hook>");
        assert_eq!(n("<\t/\n\tHoOk>"), "&lt;\t/\n\tHoOk>");
        assert_eq!(n("</hooks> </hook-x>"), "</hooks> </hook-x>");
        assert_eq!(
            n("<hook> </b> <//hook> < / é </ho"),
            "<hook> </b> <//hook> < / é </ho"
        );
        assert_eq!(n("é</HOOK>é<"), "é&lt;/HOOK>é<");
        assert_eq!(n("x </hook"), "x &lt;/hook");
    }

    #[test]
    fn makes_control_characters_visible() {
        assert_eq!(visible("plain text"), "plain text");
        assert_eq!(
            visible("touch x #\r\u{1b}[K    runs: ok\n"),
            "touch x #\\r\\u{1b}[K    runs: ok\\n"
        );
        assert_eq!(visible("\u{9b}"), "\\u{9b}");
        assert_eq!(visible_lines("a\rb\nc"), "a\\rb\nc");
    }

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape_markup("<a & \"b\">"),
            "&lt;a &amp; &quot;b&quot;&gt;"
        );
    }
}

/// The candidate closest to `word` by edit distance, if it is close enough to
/// be a likely typo (at most a third of the word's length, and at least 1).
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .map(|c| (edit_distance(&word.to_lowercase(), &c.to_lowercase()), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod closest_tests {
    use super::*;

    #[test]
    fn suggests_near_names_only() {
        let names = ["PreToolUse", "PostToolUse", "Stop"];
        assert_eq!(closest("PreToolUze", names), Some("PreToolUse"));
        assert_eq!(closest("pretooluse", names), Some("PreToolUse"));
        assert_eq!(closest("Whatever", names), None);
    }
}

/// `text` with each bare `var` (such as `$CLAUDE_PLUGIN_ROOT`) that no
/// name character follows replaced by `value`: `$VARX` stays as written.
/// A shell would expand it so; latch writes it out where a hook's command
/// is shown or converted.
pub fn expand_bare(text: &str, var: &str, value: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(var) {
        let after = &rest[at + var.len()..];
        out.push_str(&rest[..at]);
        if after
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            out.push_str(var);
        } else {
            out.push_str(value);
        }
        rest = after;
    }
    out.push_str(rest);
    out
}
