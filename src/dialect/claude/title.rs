//! Session titles: a hook's `sessionTitle` (on `UserPromptSubmit` and
//! `SessionStart`) as Claude Code 2.1.197 keeps it, and the title latch
//! keeps for a session's later payloads (recorded: `r14_*title*`, FINDINGS
//! §43).

use serde_json::Value;

use crate::event::Event;
use crate::session::SessionState;

/// Where a session's state keeps the last title a hook gave it.
pub const STATE_KEY: &str = "claude.session_title";

/// Claude Code keeps the first 200 characters (code points) of a title.
const MAX_CHARS: usize = 200;

/// A title as Claude Code keeps it: C0 and C1 control characters and DEL
/// dropped, then cut at [`MAX_CHARS`] characters; `None` when nothing is
/// left (Claude Code then keeps the title it had).
pub fn clean(title: &str) -> Option<String> {
    let kept: String = title
        .chars()
        .filter(|&c| !super::terminal::is_control(c))
        .take(MAX_CHARS)
        .collect();
    (!kept.is_empty()).then_some(kept)
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
    fn controls_are_dropped_and_the_title_is_cut_at_200_characters() {
        // Recorded: `r14_ss_title_ctrl`, `r14_ss_title_250`,
        // `r14_ss_title_250_emoji`.
        assert_eq!(clean("a\u{7}b\nc\u{9b}d").as_deref(), Some("abcd"));
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
