//! `terminalSequence`: a terminal escape sequence a hook asks the harness
//! to write for it (a window title, a desktop notification, a progress
//! bar, the bell).
//!
//! Claude Code 2.1.197 writes only what passes its allowlist, and writes
//! it in its own form (read from its code): the text is a run of parts,
//! each either a BEL or an OSC sequence `ESC ] Ps ; Pt` ended by BEL or
//! `ESC \`, where `Ps` is one of 0, 1, 2 (titles), 9, 99, 777
//! (notifications), and an OSC 9 text that starts with a number is only
//! the `9;4` progress form (other terminals read `OSC 9 ; <number>` as
//! something else). Control characters in `Pt` are dropped; each OSC is
//! written again as `ESC ] Ps ; Pt BEL`. A text over 4,096 bytes, or with
//! anything else in it, is refused whole.
//!
//! Written by hand: the grammar is Claude Code's own, a few lines, and a
//! general escape-sequence parser would accept more than it does.

use std::fmt;
use std::sync::OnceLock;

/// Claude Code's limit on a whole `terminalSequence`, in UTF-8 bytes.
pub const MAX_BYTES: usize = 4096;

const ESC: u8 = 0x1b;
const BEL: u8 = 0x07;

/// The OSC numbers Claude Code lets through.
const ALLOWED: [u32; 6] = [0, 1, 2, 9, 99, 777];

/// Why a `terminalSequence` is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Over [`MAX_BYTES`].
    TooLong(usize),
    /// At this byte, something that is neither BEL nor `ESC ]`.
    NotOsc(usize),
    /// The OSC starting at this byte has no BEL or `ESC \` after it, or an
    /// `ESC` inside it.
    Unterminated(usize),
    /// The OSC's number is not one of the allowed ones (as written).
    Number(String),
    /// An OSC 9 whose text starts with a number, outside the `9;4`
    /// progress form.
    Osc9Number,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::TooLong(n) => write!(f, "it is {n} bytes long, over {MAX_BYTES}"),
            Refusal::NotOsc(at) => write!(f, "byte {at} starts neither a BEL nor an `ESC ]`"),
            Refusal::Unterminated(at) => write!(
                f,
                "the OSC at byte {at} has no BEL or `ESC \\` to end it before another ESC or the end"
            ),
            // The text is the hook's: escaped, and cut.
            Refusal::Number(n) => write!(
                f,
                "OSC {:?} is not one of 0, 1, 2, 9, 99, 777",
                n.chars().take(16).collect::<String>()
            ),
            Refusal::Osc9Number => {
                f.write_str("an OSC 9 text may only start with a number in the `9;4` progress form")
            }
        }
    }
}

/// The sequence as Claude Code writes it, or why it refuses it. An empty
/// text is no sequence (`Ok("")`): Claude Code does not look at it.
pub fn normalize(text: &str) -> Result<String, Refusal> {
    if text.len() > MAX_BYTES {
        return Err(Refusal::TooLong(text.len()));
    }
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == BEL {
            out.push('\u{7}');
            at += 1;
            continue;
        }
        if bytes[at] != ESC || bytes.get(at + 1) != Some(&b']') {
            return Err(Refusal::NotOsc(at));
        }
        let start = at + 2;
        // The end: BEL (one byte) or `ESC \` (two); any other ESC refuses.
        let mut end = None;
        let mut i = start;
        while i < bytes.len() {
            match bytes[i] {
                BEL => {
                    end = Some((i, 1));
                    break;
                }
                ESC if bytes.get(i + 1) == Some(&b'\\') => {
                    end = Some((i, 2));
                    break;
                }
                ESC => return Err(Refusal::Unterminated(at)),
                _ => i += 1,
            }
        }
        let Some((stop, width)) = end else {
            return Err(Refusal::Unterminated(at));
        };
        // Every delimiter is ASCII, so these are character boundaries.
        let body = &text[start..stop];
        let (number, payload) = body.split_once(';').unwrap_or((body, ""));
        let ps = osc_number(number).ok_or_else(|| Refusal::Number(number.to_owned()))?;
        let payload = without_controls(payload);
        if ps == 9 && !osc9_allowed(&payload) {
            return Err(Refusal::Osc9Number);
        }
        out.push_str(&format!("\u{1b}]{ps};{payload}\u{7}"));
        at = stop + width;
    }
    Ok(out)
}

/// The OSC number, when it is written in ASCII digits (leading zeros
/// allowed: JavaScript's `Number("09")` is 9) and allowed.
fn osc_number(digits: &str) -> Option<u32> {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let significant = digits.trim_start_matches('0');
    if significant.len() > 3 {
        return None;
    }
    let n = if significant.is_empty() {
        0
    } else {
        significant.parse().ok()?
    };
    ALLOWED.contains(&n).then_some(n)
}

/// Whether `c` is a C0 control, DEL or a C1 control (what Claude Code
/// drops from titles and OSC texts: `[\x00-\x1f\x7f-\x9f]`).
pub fn is_control(c: char) -> bool {
    c < ' ' || ('\u{7f}'..='\u{9f}').contains(&c)
}

/// The text without C0 controls, DEL and C1 controls.
fn without_controls(text: &str) -> String {
    text.chars().filter(|&c| !is_control(c)).collect()
}

/// An OSC 9 text Claude Code lets through: the progress form
/// `4;<0-4>[;[<0-100>]]`, or one that does not start with a number
/// (after blanks and an optional sign; any Unicode decimal digit).
fn osc9_allowed(payload: &str) -> bool {
    if is_progress(payload) {
        return true;
    }
    // JavaScript's `\s` here (controls are gone already) is Unicode's
    // White_Space with U+FEFF, which Rust's `\s` lacks; Claude Code adds
    // U+180E and U+200B.
    static NUMBER: OnceLock<Option<regex::Regex>> = OnceLock::new();
    match NUMBER
        .get_or_init(|| regex::Regex::new(r"^[\s\x{FEFF}\x{180E}\x{200B}]*[+-]?\p{Nd}").ok())
    {
        Some(re) => !re.is_match(payload),
        // Cannot happen (a constant pattern); refusing is the safe side.
        None => false,
    }
}

/// `^4;[0-4](;(100|\d{1,2})?)?$`, with ASCII digits.
fn is_progress(payload: &str) -> bool {
    let Some(rest) = payload.strip_prefix("4;") else {
        return false;
    };
    let mut bytes = rest.bytes();
    if !matches!(bytes.next(), Some(b'0'..=b'4')) {
        return false;
    }
    let tail = &rest[1..];
    let Some(value) = tail.strip_prefix(';') else {
        return tail.is_empty();
    };
    value.is_empty()
        || value == "100"
        || (value.len() <= 2 && value.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allowed_parts_are_rewritten_with_bel() {
        assert_eq!(normalize("\u{7}"), Ok("\u{7}".to_owned()));
        assert_eq!(
            normalize("\u{1b}]9;hello\u{1b}\\"),
            Ok("\u{1b}]9;hello\u{7}".to_owned())
        );
        assert_eq!(
            normalize("\u{1b}]0;title\u{7}\u{7}\u{1b}]777;notify;T;B\u{7}"),
            Ok("\u{1b}]0;title\u{7}\u{7}\u{1b}]777;notify;T;B\u{7}".to_owned())
        );
        // No `;`: an empty text, written with its `;`.
        assert_eq!(normalize("\u{1b}]2\u{7}"), Ok("\u{1b}]2;\u{7}".to_owned()));
        // Leading zeros are the number.
        assert_eq!(
            normalize("\u{1b}]0099;x\u{7}"),
            Ok("\u{1b}]99;x\u{7}".to_owned())
        );
        assert_eq!(normalize(""), Ok(String::new()));
    }

    #[test]
    fn controls_in_the_text_are_dropped() {
        assert_eq!(
            normalize("\u{1b}]2;a\tb\u{9b}c\u{7f}d\u{e9}\u{7}"),
            Ok("\u{1b}]2;abcd\u{e9}\u{7}".to_owned())
        );
    }

    #[test]
    fn anything_else_is_refused() {
        assert_eq!(normalize("\u{1b}[31m"), Err(Refusal::NotOsc(0)));
        assert_eq!(normalize("x"), Err(Refusal::NotOsc(0)));
        assert_eq!(normalize("\u{7}x"), Err(Refusal::NotOsc(1)));
        assert_eq!(normalize("\u{1b}]9;hi"), Err(Refusal::Unterminated(0)));
        assert_eq!(
            normalize("\u{1b}]9;h\u{1b}i\u{7}"),
            Err(Refusal::Unterminated(0))
        );
        assert_eq!(
            normalize("\u{1b}]52;c;e30=\u{7}"),
            Err(Refusal::Number("52".to_owned()))
        );
        assert_eq!(
            normalize("\u{1b}]+9;x\u{7}"),
            Err(Refusal::Number("+9".to_owned()))
        );
        assert_eq!(
            normalize("\u{1b}];x\u{7}"),
            Err(Refusal::Number(String::new()))
        );
        let long = format!("\u{1b}]2;{}\u{7}", "x".repeat(MAX_BYTES));
        assert_eq!(normalize(&long), Err(Refusal::TooLong(MAX_BYTES + 5)));
    }

    #[test]
    fn osc9_numbers_only_as_progress() {
        for ok in [
            "4;1", "4;0;", "4;1;50", "4;4;100", "4;2;7", "hello", "x1", "",
        ] {
            assert!(
                normalize(&format!("\u{1b}]9;{ok}\u{7}")).is_ok(),
                "{ok:?} should pass"
            );
        }
        for refused in [
            "4;5",
            "4;1;101",
            "4;1;007",
            "12",
            " 3",
            "-3",
            "+3",
            "\u{a0}3",
            "\u{feff}3",
            "\u{200b}3",
            "\u{180e}-3",
            // Decimal digits of other scripts count.
            "\u{663}",
            "\u{ff13}",
        ] {
            assert_eq!(
                normalize(&format!("\u{1b}]9;{refused}\u{7}")),
                Err(Refusal::Osc9Number),
                "{refused:?} should be refused"
            );
        }
        // Other numbers (superscripts, Roman numerals) are not decimal digits.
        assert!(normalize("\u{1b}]9;\u{b2}\u{7}").is_ok());
        assert!(normalize("\u{1b}]9;\u{2162}\u{7}").is_ok());
        // A tab before the number is a control, dropped first.
        assert_eq!(normalize("\u{1b}]9;\t3\u{7}"), Err(Refusal::Osc9Number));
        // Only OSC 9 is checked.
        assert!(normalize("\u{1b}]2;3\u{7}").is_ok());
    }

    /// Every text of `recordings/claude/terminal-cases.jsonl` (3,000, made
    /// by `export_terminal_cases.js` running Claude Code's own functions):
    /// refused exactly when Claude Code refuses it, and written as it
    /// writes it.
    #[test]
    fn agrees_with_claude_code() {
        let mut disagree = Vec::new();
        let mut count = 0;
        for case in crate::dialect::claude::recorded_cases("claude/terminal-cases.jsonl") {
            let input = case["text"].as_str().expect("a text");
            let theirs = case["out"].as_str();
            let ours = normalize(input).ok().filter(|s| !s.is_empty());
            count += 1;
            if ours.as_deref() != theirs {
                disagree.push(format!("{input:?}: Claude Code {theirs:?}, latch {ours:?}"));
            }
        }
        assert_eq!(count, 3000);
        assert!(
            disagree.is_empty(),
            "{} disagreements, first: {:?}",
            disagree.len(),
            disagree.first()
        );
    }

    proptest::proptest! {
        /// Whatever the text, no panic; what passes is made of allowed
        /// parts only, and passes again unchanged.
        #[test]
        fn normal_form_is_stable(text in "[\u{1b}\u{7}\\]\\\\;0-9a-z\u{9b}\u{e9} ]{0,40}") {
            if let Ok(out) = normalize(&text) {
                proptest::prop_assert_eq!(normalize(&out), Ok(out.clone()));
                let st = "\u{1b}\\";
                proptest::prop_assert!(!out.contains(st), "an ST ending is left");
            }
        }
    }
}
