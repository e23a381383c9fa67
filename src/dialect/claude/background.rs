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

use crate::run::Cancel;
use crate::session::Session;

use super::judge::Verdict;
use super::text::reminder;

/// The session key of the answers waiting for the next tool result.
pub const DONE_KEY: &str = "claude.async.done";

/// The most answers kept waiting; older ones are dropped first.
const MAX_WAITING: usize = 64;

/// What a finished background hook of `event` gives the model, from what
/// it printed on stdout and whether it ended on its own (`false`: stopped
/// at its timeout or by a cancel, which gives nothing): the
/// `systemMessage` and `additionalContext` of its answer (see
/// [`super::judge::background_answer`]), each in a reminder, nothing else;
/// an answer Claude Code would refuse for that event (see
/// [`super::judge::for_event`]) gives nothing.
pub fn answer_of(stdout: &[u8], ended: bool, event: &str) -> Vec<String> {
    if !ended {
        return Vec::new();
    }
    match super::judge::background_answer(&String::from_utf8_lossy(stdout))
        .map(|v| super::judge::for_event(v, event))
    {
        Some(Verdict::Json(j)) => texts_of(&j),
        _ => Vec::new(),
    }
}

/// What a hook of `event` that went to the background with a first line
/// `{"async":true}` printed afterwards, as answer texts, when latch saw it
/// end before it could go (see [`answer_of`]).
pub fn later_answer(rest: &str, event: &str) -> Vec<String> {
    answer_of(rest.as_bytes(), true, event)
}

/// `systemMessage` and `additionalContext`, each in a reminder, whole:
/// Claude Code neither cuts nor saves an `async` hook's answer, however
/// long (recorded: `r11_async_cfg_post_ctx12k`, `_sysmsg12k`).
fn texts_of(j: &super::judge::HookJson) -> Vec<String> {
    j.system_message
        .iter()
        .map(|s| s.as_str())
        .chain(j.specific_str("additionalContext"))
        .map(reminder)
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
