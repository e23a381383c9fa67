//! `async` handlers (recorded: `r2_async_post_context`,
//! `r2_async_pre_decisions`): the event does not wait for them, their
//! decisions are ignored, and their `systemMessage` and `additionalContext`
//! reach the model with the next tool result, appended to it without any
//! prefix (when only tool results come before them in the message; see
//! [`super::message`]):
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

/// The most bytes of the waiting answers' texts, all together; older
/// answers are dropped first. They live in the session's state, which
/// latch reads only up to [`crate::session::MAX_STATE_BYTES`].
const MAX_WAITING_BYTES: usize = 4 << 20;

/// The most bytes of one text of an answer (Claude Code passes any length;
/// latch keeps this much, far more than a model reads), cut on a
/// character boundary.
const MAX_TEXT_BYTES: usize = 1 << 20;

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
        .map(|t| reminder(crate::text::at_most(t, MAX_TEXT_BYTES)))
        .collect()
}

/// The bytes of an answer's texts, as stored.
fn answer_bytes(item: &Value) -> usize {
    item["texts"].as_array().map_or(0, |t| {
        t.iter().filter_map(Value::as_str).map(str::len).sum()
    })
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
                // The newest answer always stays (its texts are at most
                // 2 MiB); older ones go while there are too many or too
                // many bytes.
                let mut first_kept = items.len().saturating_sub(MAX_WAITING);
                let mut bytes: usize = items[first_kept..].iter().map(answer_bytes).sum();
                while bytes > MAX_WAITING_BYTES && first_kept + 1 < items.len() {
                    bytes -= answer_bytes(&items[first_kept]);
                    first_kept += 1;
                }
                items.drain(..first_kept);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_is_kept_up_to_a_mebibyte_on_a_character_boundary() {
        let long = "é".repeat(MAX_TEXT_BYTES);
        let cut = crate::text::at_most(&long, MAX_TEXT_BYTES + 1);
        assert_eq!(cut.len(), MAX_TEXT_BYTES);
        assert_eq!(crate::text::at_most("abc", MAX_TEXT_BYTES), "abc");
    }

    #[tokio::test]
    async fn waiting_answers_stay_under_the_byte_budget_newest_first() {
        let session = Session::in_memory(Some("s".into()));
        let cancel = Cancel::never();
        let mebibyte = "x".repeat(1 << 20);
        for n in 0..6 {
            store(&session, &cancel, &format!("h{n}"), vec![mebibyte.clone()])
                .await
                .expect("stored");
        }
        let kept = take(&session, &cancel).await.expect("taken");
        let hooks: Vec<&str> = kept.iter().map(|(h, _)| h.as_str()).collect();
        assert_eq!(hooks, ["h2", "h3", "h4", "h5"], "4 MiB: the newest four");
        // One answer alone over the budget is still kept.
        let big = vec![mebibyte.repeat(3), mebibyte.repeat(2)];
        store(&session, &cancel, "big", big).await.expect("stored");
        let kept = take(&session, &cancel).await.expect("taken");
        assert_eq!(kept.len(), 1);
    }
}
