//! `prompt` handlers: a model judges the event (recorded:
//! `r2_prompt_hook_pre`, `r2_prompt_hook_stop`).
//!
//! Claude Code sends the handler's `prompt` to its small fast model, with
//! `$ARGUMENTS` replaced by the compact payload (appended when the prompt
//! has no `$ARGUMENTS`), and asks for `{"ok": bool, "reason": string,
//! "impossible": bool}`. `ok: false` acts like exit 2 with the reason as
//! stderr and the prompt as the command line: on PreToolUse the tool result
//! is `PreToolUse:<Tool> hook error: [<prompt>]: <reason>`; on Stop the
//! agent goes on with `Stop hook feedback:\n[<prompt>]: <reason>`, unless
//! `impossible` is true.
//!
//! latch sends the request to the OpenAI-compatible endpoint the evener
//! dialect uses (`--prompt-base-url`, `LATCH_PROMPT_*`), with its own
//! instruction in front of the prompt: Claude Code's instruction is its
//! own text, not recorded whole.

use std::time::Duration;

use serde_json::Value;

use crate::model::{PromptConfig, ask};

use super::events::ClaudeEvent;
use super::judge::Verdict;

/// Default time limit of a prompt handler (Claude Code: 30 s).
pub const PROMPT_TIMEOUT: Duration = Duration::from_secs(30);

/// What latch puts before the handler's prompt.
pub const INSTRUCTION: &str = "You are evaluating a hook condition for a coding agent. Read the condition and the event below, then answer with one JSON object and nothing else: {\"ok\": true} if the condition is satisfied and the agent may go on, or {\"ok\": false, \"reason\": \"<why, for the agent>\"} if not; add \"impossible\": true when the agent cannot do anything about it.";

/// The events a `prompt` or `agent` handler may run on (Claude Code's
/// docs).
pub fn runs_on(ce: ClaudeEvent) -> bool {
    matches!(
        ce,
        ClaudeEvent::PreToolUse
            | ClaudeEvent::PermissionRequest
            | ClaudeEvent::PermissionDenied
            | ClaudeEvent::PostToolUse
            | ClaudeEvent::PostToolUseFailure
            | ClaudeEvent::PostToolBatch
            | ClaudeEvent::UserPromptSubmit
            | ClaudeEvent::UserPromptExpansion
            | ClaudeEvent::Stop
            | ClaudeEvent::SubagentStop
            | ClaudeEvent::TaskCreated
            | ClaudeEvent::TaskCompleted
            | ClaudeEvent::TeammateIdle
    )
}

/// The text sent to the model: the instruction, then the prompt with
/// `$ARGUMENTS` replaced by `payload` (or `payload` appended).
pub fn render(prompt: &str, payload: &str) -> String {
    format!("{INSTRUCTION}\n\n{}", with_arguments(prompt, payload))
}

/// The prompt with `$ARGUMENTS` replaced by `payload`, or `payload`
/// appended after a blank line when the prompt does not mention it.
pub fn with_arguments(prompt: &str, payload: &str) -> String {
    if prompt.contains("$ARGUMENTS") {
        prompt.replace("$ARGUMENTS", payload)
    } else {
        format!("{prompt}\n\n{payload}")
    }
}

/// Asks the model and reads its answer as a verdict.
pub async fn evaluate(
    cfg: &PromptConfig,
    ce: ClaudeEvent,
    prompt: &str,
    payload: &str,
    model: Option<&str>,
    timeout: Duration,
) -> Verdict {
    match ask(cfg, render(prompt, payload), model, timeout).await {
        Err(crate::model::AskError::TimedOut(e)) => Verdict::Stopped(
            crate::outcome::ErrorCategory::Timeout,
            format!("prompt hook failed: {e}"),
        ),
        Err(e) => Verdict::NonBlocking(format!("prompt hook failed: {e}")),
        Ok(reply) => read_answer(ce, &reply.text),
    }
}

/// A model's answer as a verdict: `ok: true` says nothing; `ok: false`
/// blocks with its reason (except an `impossible` Stop); anything else is
/// a non-blocking error.
pub fn read_answer(ce: ClaudeEvent, text: &str) -> Verdict {
    let trimmed = text
        .trim()
        .trim_start_matches("```json")
        .trim_start_matches("```")
        .trim_end_matches("```")
        .trim();
    let Ok(crate::dialect::output_json::Parsed {
        value: Value::Object(answer),
        ..
    }) = crate::dialect::output_json::parse(trimmed)
    else {
        return Verdict::NonBlocking(format!(
            "prompt hook: the model's answer is not a JSON object: {}",
            crate::text::summary(text, 200)
        ));
    };
    match answer.get("ok").and_then(Value::as_bool) {
        Some(true) => Verdict::Plain(String::new()),
        Some(false) => {
            let impossible = answer.get("impossible").and_then(Value::as_bool) == Some(true);
            if impossible && matches!(ce, ClaudeEvent::Stop | ClaudeEvent::SubagentStop) {
                return Verdict::Plain(String::new());
            }
            let reason = answer
                .get("reason")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned();
            Verdict::Blocking(if reason.trim().is_empty() {
                "No reason given".to_owned()
            } else {
                reason
            })
        }
        None => {
            Verdict::NonBlocking("prompt hook: the model's answer has no boolean `ok`".to_owned())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_replaced_or_appended() {
        assert!(render("check $ARGUMENTS now", "{}").ends_with("check {} now"));
        assert!(render("check", "{}").ends_with("check\n\n{}"));
    }

    #[test]
    fn answers() {
        assert_eq!(
            read_answer(ClaudeEvent::PreToolUse, r#"{"ok": true}"#),
            Verdict::Plain(String::new())
        );
        assert_eq!(
            read_answer(
                ClaudeEvent::PreToolUse,
                "```json\n{\"ok\": false, \"reason\": \"R\"}\n```"
            ),
            Verdict::Blocking("R".into())
        );
        assert_eq!(
            read_answer(
                ClaudeEvent::Stop,
                r#"{"ok": false, "reason": "R", "impossible": true}"#
            ),
            Verdict::Plain(String::new())
        );
        assert!(matches!(
            read_answer(ClaudeEvent::Stop, "sure"),
            Verdict::NonBlocking(_)
        ));
    }
}
