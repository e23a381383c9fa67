//! Session titles: a hook's `sessionTitle` (on `UserPromptSubmit` and
//! `SessionStart`) as Claude Code 2.1.197 keeps it, and the title latch
//! keeps for a session's later payloads (recorded: `r14_*title*`, FINDINGS
//! §43).

use serde_json::Value;

use super::text::js_trim;
use crate::event::Event;
use crate::session::SessionState;

/// Where a session's state keeps the last title a hook gave it.
pub const STATE_KEY: &str = "claude.session_title";

/// Claude Code keeps the first 200 characters (code points) of a title.
const MAX_CHARS: usize = 200;

/// A title as Claude Code 2.1.332 keeps it (`al`): trimmed as JavaScript
/// trims, each run of control and format characters (`\p{Cc}`,
/// `\p{Cf}`, U+2028, U+2029) made one space, cut at [`MAX_CHARS`]
/// characters, trimmed again; `None` when nothing is left (Claude Code
/// then keeps the title it had). 2.1.197 dropped control characters
/// instead.
pub fn clean(title: &str) -> Option<String> {
    let mut spaced = String::with_capacity(title.len());
    let mut in_run = false;
    for c in js_trim(title).chars() {
        if is_control_or_format(c) {
            if !in_run {
                spaced.push(' ');
            }
            in_run = true;
        } else {
            spaced.push(c);
            in_run = false;
        }
    }
    let cut: String = spaced.chars().take(MAX_CHARS).collect();
    let kept = js_trim(&cut);
    (!kept.is_empty()).then(|| kept.to_owned())
}

/// Whether `c` is in Unicode's general categories Cc (control) or Cf
/// (format), or is U+2028 or U+2029. Written out: the Cf list is short and
/// stable (Unicode 16), and no crate latch uses exposes categories.
pub(super) fn is_control_or_format(c: char) -> bool {
    matches!(
        c,
        '\u{0}'..='\u{1f}'
            | '\u{7f}'..='\u{9f}'
            | '\u{ad}'
            | '\u{600}'..='\u{605}'
            | '\u{61c}'
            | '\u{6dd}'
            | '\u{70f}'
            | '\u{890}'..='\u{891}'
            | '\u{8e2}'
            | '\u{180e}'
            | '\u{200b}'..='\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206f}'
            | '\u{feff}'
            | '\u{fff9}'..='\u{fffb}'
            | '\u{110bd}'
            | '\u{110cd}'
            | '\u{13430}'..='\u{1343f}'
            | '\u{1bca0}'..='\u{1bca3}'
            | '\u{1d173}'..='\u{1d17a}'
            | '\u{e0001}'
            | '\u{e0020}'..='\u{e007f}'
    )
}

/// The title a session's hooks read: the event's, when the harness gives
/// one, else the last one a hook gave the session through latch.
pub fn current(event: &Event, state: &SessionState) -> Option<String> {
    event
        .session_title
        .clone()
        .filter(|t| !t.is_empty())
        .or_else(|| stored(state))
}

/// The title kept in a session's state.
pub fn stored(state: &SessionState) -> Option<String> {
    state
        .values
        .get(STATE_KEY)
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// The title a hook's answer gives the session, when it changes it:
/// cleaned, and not the title it has (compared cleaned, as Claude Code
/// compares them).
pub fn change(given: &str, current: Option<&str>) -> Option<String> {
    let new = clean(given)?;
    (current.and_then(clean).as_deref() != Some(new.as_str())).then_some(new)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_spaces_and_the_title_is_cut_at_200_characters() {
        // Recorded: `r14_ss_title_ctrl`, `r14_ss_title_250`,
        // `r14_ss_title_250_emoji`.
        // 2.1.332: each run is one space (2.1.197 dropped them: `abcd`).
        assert_eq!(clean("a\u{7}b\nc\u{9b}d").as_deref(), Some("a b c d"));
        assert_eq!(clean("a\u{200b}\u{7}\nb").as_deref(), Some("a b"));
        assert_eq!(clean("  \u{feff}x\u{2028}  ").as_deref(), Some("x"));
        let long: String = (0..250)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        assert_eq!(clean(&long).map(|t| t.chars().count()), Some(200));
        let emoji = format!("{}{}", "x".repeat(150), "\u{1f600}".repeat(100));
        assert_eq!(
            clean(&emoji),
            Some(format!("{}{}", "x".repeat(150), "\u{1f600}".repeat(50)))
        );
        // Recorded: `r14_ss_title_empty`, `r14_ss_title_ctrl_only`.
        assert_eq!(clean(""), None);
        assert_eq!(clean("\u{7}\n\u{9b}"), None);
    }

    #[test]
    fn the_same_title_is_no_change() {
        assert_eq!(change("T", None).as_deref(), Some("T"));
        assert_eq!(change("T", Some("T")), None);
        assert_eq!(change("T\n", Some("T")), None);
        assert_eq!(change("U", Some("T")).as_deref(), Some("U"));
        assert_eq!(change("\n", Some("T")), None);
    }
}
