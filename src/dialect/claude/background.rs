//! `async` handlers (recorded: `r2_async_post_context`,
//! `r2_async_pre_decisions`): the event does not wait for them, their
//! decisions are ignored, and their `systemMessage` and `additionalContext`
//! reach the model with the next tool result, appended to it without any
//! prefix:
//!
//! ```text
//! <result>\n\n<system-reminder>\n<systemMessage>\n</system-reminder>\n\n<system-reminder>\n<additionalContext>\n</system-reminder>
//! ```
//!
//! A background job stores those texts in the session's state when it
//! ends ([`store`]); the next `PostToolUse` or `PostToolUseFailure` of the
//! session takes them ([`take`]) into its outcome.

use serde_json::{Value, json};

use crate::run::{Cancel, RunResult};
use crate::session::Session;

use super::judge::{Verdict, judge};
use super::text::{capped, reminder};

/// The session key of the answers waiting for the next tool result.
pub const DONE_KEY: &str = "claude.async.done";

/// The most answers kept waiting; older ones are dropped first.
const MAX_WAITING: usize = 64;

/// What a finished background hook of `event` gives the model: its
/// `systemMessage` and its `additionalContext`, each in a reminder,
/// nothing else; an answer Claude Code would refuse for that event (see
/// [`super::judge::for_event`]) gives nothing.
pub fn answer_texts(result: &RunResult, timeout_secs: f64, event: &str) -> Vec<String> {
    // Only a JSON answer counts, so a failed start's text (which names
    // the program) is never read.
    match super::judge::for_event(judge(result, timeout_secs, ""), event) {
        Verdict::Json(j) => texts_of(&j),
        Verdict::Async(rest) => later_answer(&rest, event),
        _ => Vec::new(),
    }
}

/// What a hook of `event` that went to the background with a first line
/// `{"async":true}` printed afterwards, as answer texts: its whole
/// remaining output when that is one JSON object, else its last line.
pub fn later_answer(rest: &str, event: &str) -> Vec<String> {
    let whole = super::text::js_trim(rest);
    let last = super::text::js_trim(whole.lines().next_back().unwrap_or(""));
    [whole, last]
        .into_iter()
        .filter(|t| t.starts_with('{'))
        .find_map(|t| {
            let verdict = super::judge::read_object(t)?;
            match super::judge::for_event(verdict, event) {
                Verdict::Json(j) => Some(texts_of(&j)),
                _ => Some(Vec::new()),
            }
        })
        .unwrap_or_default()
}

/// `systemMessage` and `additionalContext`, each in a reminder.
fn texts_of(j: &super::judge::HookJson) -> Vec<String> {
    j.system_message
        .iter()
        .map(|s| s.as_str())
        .chain(j.specific_str("additionalContext"))
        .map(|t| reminder(&capped(t)))
        .collect()
}

/// Stores a finished hook's texts for the next tool result.
pub async fn store(
    session: &Session,
    cancel: &Cancel,
    hook: &str,
    texts: Vec<String>,
) -> std::io::Result<()> {
    if texts.is_empty() {
        return Ok(());
    }
    session
        .update(cancel, |s| {
            let list = s
                .values
                .entry(DONE_KEY.to_owned())
                .or_insert_with(|| Value::Array(Vec::new()));
            if !list.is_array() {
                *list = Value::Array(Vec::new());
            }
            if let Value::Array(items) = list {
                items.push(json!({"hook": hook, "texts": texts}));
                let excess = items.len().saturating_sub(MAX_WAITING);
                items.drain(..excess);
            }
        })
        .await
}

/// Takes every waiting answer: (hook, texts), oldest first.
pub async fn take(
    session: &Session,
    cancel: &Cancel,
) -> std::io::Result<Vec<(String, Vec<String>)>> {
    let taken = session
        .update(cancel, |s| s.values.remove(DONE_KEY))
        .await?;
    let Some(Value::Array(items)) = taken else {
        return Ok(Vec::new());
    };
    Ok(items
        .into_iter()
        .filter_map(|item| {
            let hook = item["hook"].as_str()?.to_owned();
            let texts = item["texts"]
                .as_array()?
                .iter()
                .filter_map(|t| t.as_str().map(str::to_owned))
                .collect();
            Some((hook, texts))
        })
        .collect())
}
