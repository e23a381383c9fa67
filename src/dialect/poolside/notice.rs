//! What the model reads about poolside hooks: `<hook>` tags that name the
//! hook and the event.
//!
//! Poolside documents that rewrites, blocks, continuations and failures add
//! a tag naming the hook and event, but not the tag's exact shape. latch
//! writes `<hook name="LABEL" event="EVENT">TEXT</hook>`, with the label and
//! event escaped, and TEXT capped at 32 KiB. TEXT is the hook's own words
//! and is kept as written, except that a closing `</hook` inside it, in
//! any case and with any whitespace around the slash (`</HOOK>`,
//! `< / hook`), has its `<` written `&lt;` so it cannot close the tag early.

use crate::outcome::{Notice, NoticeKind};
use crate::text::{cap, escape_markup, neutralize_close_tag};

use super::events::PoolEvent;

/// Hook text shown to the model is capped at this many bytes.
pub const MODEL_TEXT_CAP: usize = 32 * 1024;

/// Renders one tag.
pub fn tag(label: &str, event: PoolEvent, text: &str) -> String {
    format!(
        "<hook name=\"{}\" event=\"{}\">{}</hook>",
        escape_markup(label),
        event.as_str(),
        neutralize_close_tag(&cap(text, MODEL_TEXT_CAP), "hook")
    )
}

/// A notice of the given kind.
pub fn notice(kind: NoticeKind, label: &str, event: PoolEvent, text: &str) -> Notice {
    Notice {
        hook: label.to_owned(),
        event: event.as_str().to_owned(),
        kind,
        text: tag(label, event, text),
    }
}

/// The reason used when a hook blocks without giving one.
pub fn default_reason(label: &str) -> String {
    format!("blocked by hook {label}")
}

/// The continuation prompt when no continuing hook gave any text.
pub fn default_continuation(labels: &[String]) -> String {
    let names = labels
        .iter()
        .map(|l| format!("`{l}`"))
        .collect::<Vec<_>>()
        .join(", ");
    format!("The Stop hook {names} asked you to keep working before you stop.")
}
