//! Small text helpers shared by dialects: caps and escaping.

/// Cuts `text` to at most `max` bytes (on a character boundary) and appends
/// a marker saying how much was cut. Text within the cap is returned as is.
pub fn cap(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}\n[latch: truncated, {} of {} bytes omitted]",
        &text[..end],
        text.len() - end,
        text.len()
    )
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
