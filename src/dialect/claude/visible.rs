//! Invisible characters made visible, as Claude Code 2.1.332 shows a
//! hook's name on one line (`_h` over `y1`): in an answer's block, the
//! hook's `statusMessage` or command goes through [`one_line`].
//!
//! Claude Code walks the text grapheme by grapheme (`Intl.Segmenter`),
//! which matters for two of its rules: a keycap (`1️⃣`) and a tag flag
//! (Scotland's) stay whole only when they are a whole grapheme. latch
//! walks the text character by character and tells that from the
//! characters around them, by the rules of grapheme breaks (UAX #29): one
//! that joins what comes before (an extending mark, a joiner, a spacing
//! mark) after it, a prepended one, or an emoji and a joiner, before it.

use std::sync::LazyLock;

use regex::Regex;

/// `\p{Cc}`, `\p{Cf}`, `\p{Default_Ignorable_Code_Point}`, U+2028 and
/// U+2029: what Claude Code makes visible (from the `regex` crate's
/// Unicode tables rather than by hand, so they stay whole).
static INVISIBLE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\x{2028}\x{2029}]").ok()
});

/// `\p{Extended_Pictographic}`: an emoji, whose variation selector and
/// joiner stay as they are.
static PICTOGRAPHIC: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^\p{Extended_Pictographic}$").ok());

/// A character that joins the grapheme before it (`GB9`, `GB9a`).
static JOINS_BEFORE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^[\p{gcb=Extend}\p{gcb=ZWJ}\p{gcb=SpacingMark}]$").ok());

/// A character that joins the grapheme after it (`GB9b`).
static PREPEND: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"^\p{gcb=Prepend}$").ok());

/// An extending mark (`GB11` skips them between an emoji and a joiner).
static EXTEND: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"^\p{gcb=Extend}$").ok());

/// Whether a sequence written between `before` and `after` is a grapheme
/// of its own, for a sequence that starts with a character no grapheme
/// rule joins to the one before but a prepended one (`GB9b`) or, for an
/// emoji, an emoji and a joiner (`GB11`).
fn whole(before: &str, after: &str, emoji: bool) -> bool {
    let ends = !after
        .chars()
        .next()
        .is_some_and(|c| one_char_matches(&JOINS_BEFORE, c));
    let mut back = before.chars().rev();
    let starts = match back.next() {
        None => true,
        Some(p) if one_char_matches(&PREPEND, p) => false,
        Some('\u{200D}') if emoji => !back
            .find(|c| !one_char_matches(&EXTEND, *c))
            .is_some_and(|c| one_char_matches(&PICTOGRAPHIC, c)),
        Some(_) => true,
    };
    starts && ends
}

fn one_char_matches(re: &LazyLock<Option<Regex>>, c: char) -> bool {
    let mut buf = [0u8; 4];
    re.as_ref()
        .is_some_and(|r| r.is_match(c.encode_utf8(&mut buf)))
}

/// The tag flags Claude Code keeps whole: England, Scotland, Wales.
const TAG_FLAGS: [&str; 3] = [
    "\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}",
    "\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}",
    "\u{1F3F4}\u{E0067}\u{E0062}\u{E0077}\u{E006C}\u{E0073}\u{E007F}",
];

/// `text` with each invisible character made visible (`y1`): a newline
/// and a tab stay; ESC becomes `␛`, another C0 control its symbol
/// (U+2400 + code), DEL `␡`, and any other `\u{HEX}`. An emoji's
/// variation selector, skin tone and joiner, a keycap's selector and the
/// tag flags stay.
pub fn visible(text: &str) -> String {
    let Some(invisible) = INVISIBLE.as_ref() else {
        return text.to_owned();
    };
    if !invisible.is_match(text) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let before = &text[..text.len() - rest.len()];
        if let Some(flag) = TAG_FLAGS
            .iter()
            .find(|f| rest.starts_with(**f) && whole(before, &rest[f.len()..], true))
        {
            out.push_str(flag);
            rest = &rest[flag.len()..];
            continue;
        }
        let mut kept = c.len_utf8();
        let next = |at: usize| rest[at..].chars().next();
        if one_char_matches(&PICTOGRAPHIC, c) {
            match next(kept) {
                Some(v @ '\u{FE0E}') => kept += v.len_utf8(),
                after => {
                    if let Some(v @ ('\u{FE0F}' | '\u{1F3FB}'..='\u{1F3FF}')) = after {
                        kept += v.len_utf8();
                    }
                    if next(kept) == Some('\u{200D}')
                        && next(kept + 3).is_some_and(|e| one_char_matches(&PICTOGRAPHIC, e))
                    {
                        kept += 3;
                    }
                }
            }
        } else if matches!(c, '#' | '*' | '0'..='9')
            && next(1) == Some('\u{FE0F}')
            && next(4) == Some('\u{20E3}')
            && whole(before, &rest[7..], false)
        {
            kept += 3;
        } else if c != '\n' && c != '\t' && one_char_matches(&INVISIBLE, c) {
            let code = u32::from(c);
            match code {
                27 => out.push('\u{241B}'),
                0..=31 => out.extend(char::from_u32(0x2400 + code)),
                127 => out.push('\u{2421}'),
                _ => out.push_str(&format!("\\u{{{code:X}}}")),
            }
            rest = &rest[c.len_utf8()..];
            continue;
        }
        out.push_str(&rest[..kept]);
        rest = &rest[kept..];
    }
    out
}

/// `text` made visible and on one line (`_h`): a newline shown as `␤`, a
/// tab as `␉`.
pub fn one_line(text: &str) -> String {
    visible(text)
        .replace('\n', "\u{2424}")
        .replace('\t', "\u{2409}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every table of Unicode properties compiles (a `None` would make
    /// nothing visible, or keep no emoji whole).
    #[test]
    fn the_property_classes_compile() {
        for re in [&INVISIBLE, &PICTOGRAPHIC, &JOINS_BEFORE, &PREPEND, &EXTEND] {
            assert!(re.is_some());
        }
    }

    #[test]
    fn controls_become_their_symbols_and_others_escapes() {
        assert_eq!(one_line("plain text"), "plain text");
        assert_eq!(one_line("a\nb\tc"), "a\u{2424}b\u{2409}c");
        assert_eq!(one_line("\u{1b}[31mred\r"), "\u{241B}[31mred\u{240D}");
        assert_eq!(one_line("\u{0}\u{7f}"), "\u{2400}\u{2421}");
        assert_eq!(
            one_line("x\u{85}\u{200B}\u{2028}\u{FEFF}\u{AD}"),
            "x\\u{85}\\u{200B}\\u{2028}\\u{FEFF}\\u{AD}"
        );
        // A variation selector or joiner outside an emoji is shown too.
        assert_eq!(one_line("a\u{FE0F}\u{200D}"), "a\\u{FE0F}\\u{200D}");
    }

    #[test]
    fn emoji_sequences_stay_whole() {
        for kept in [
            "\u{2764}\u{FE0F}",                                                // ❤️
            "\u{1F44D}\u{1F3FD}",                                              // 👍🏽
            "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}",                     // family
            "\u{1F3F3}\u{FE0F}\u{200D}\u{1F308}",                              // rainbow flag
            "1\u{FE0F}\u{20E3}",                                               // 1️⃣
            "\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}", // Scotland
            "\u{263A}\u{FE0E}",                                                // text style
        ] {
            assert_eq!(
                visible(&format!("run {kept} now")),
                format!("run {kept} now")
            );
        }
        // A joiner not followed by an emoji is shown.
        assert_eq!(visible("\u{1F468}\u{200D}x"), "\u{1F468}\\u{200D}x");
        // Another tag sequence is shown, but for its black flag.
        assert_eq!(
            visible("\u{1F3F4}\u{E0061}\u{E007F}"),
            "\u{1F3F4}\\u{E0061}\\u{E007F}"
        );
    }
}

#[cfg(test)]
mod claude_code_agreement {
    /// Every text of `recordings/claude-2.1.332/visible-cases.jsonl` (random
    /// runs of controls, joiners, selectors, emoji and tags) is shown as
    /// Claude Code 2.1.332's own `_h` shows it.
    #[test]
    fn texts_are_shown_as_claude_code_shows_them() {
        let cases = crate::dialect::claude::recorded_cases("claude-2.1.332/visible-cases.jsonl");
        assert!(cases.len() > 1000);
        for case in cases {
            let (text, shown) = (case[0].as_str(), case[1].as_str());
            let (Some(text), Some(shown)) = (text, shown) else {
                panic!("a case is two texts: {case}");
            };
            assert_eq!(super::one_line(text), shown, "{text:?}");
        }
    }
}
