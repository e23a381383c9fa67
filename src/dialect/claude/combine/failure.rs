//! How a run's failure and an `mcp_tool` answer are judged: the rule
//! for the user's own hooks under `CLAUDE_CODE_RESTRICT_PERSONAL_CONFIG`
//! (see [`super::super::personal`]), else `onFailure: "block"`.

use serde_json::Value;

use crate::pipeline::ToolAnswer;

use super::super::events::ClaudeEvent;
use super::super::judge::Verdict;
use super::Place;
use super::select::Selected;

/// How one of the user's own hooks runs (see [`super::super::personal`]).
#[derive(Clone)]
pub(super) struct PersonalRun {
    /// The event's name.
    pub(super) event: &'static str,
    /// The payload, for what the answer may not change.
    pub(super) payload: Value,
    /// Its failure's words after `failed; `, where its failure blocks.
    pub(super) blocks: Option<String>,
}

impl PersonalRun {
    pub(super) fn new(s: &Selected<'_>, place: &Place<'_>) -> Option<PersonalRun> {
        let personal = s.personal.as_ref()?;
        Some(PersonalRun {
            event: place.ce.as_str(),
            payload: serde_json::from_slice(place.stdin).unwrap_or(Value::Null),
            blocks: super::super::personal::failure_blocks(place.ce, s.handler)
                .then(|| personal.why.clone()),
        })
    }

    /// `verdict` with its answer cut down, then its failure blocking
    /// (the error's own words shown as `detail` says).
    pub(super) fn judge(
        &self,
        verdict: Verdict,
        stderr: &str,
        code: Option<i32>,
        detail: super::super::judge::Detail,
    ) -> Personally {
        let verdict = match verdict {
            Verdict::Json(j) => Verdict::Json(Box::new(super::super::personal::sanitize(
                *j,
                self.event,
                &self.payload,
            ))),
            other => other,
        };
        match &self.blocks {
            Some(why) => {
                let was_blocking = matches!(verdict, Verdict::Blocking(_));
                let verdict = super::super::judge::failure_blocks_because(
                    verdict, stderr, code, self.event, why, detail,
                );
                Personally {
                    failed: !was_blocking && matches!(verdict, Verdict::Blocking(_)),
                    verdict,
                    decided: true,
                }
            }
            None => Personally::as_is(verdict),
        }
    }
}

/// What the personal rule made of a verdict.
pub(super) struct Personally {
    pub(super) verdict: Verdict,
    /// The rule decides this hook's failures (`onFailure` then does not).
    pub(super) decided: bool,
    /// The verdict is the rule's block for a failure, whose text names
    /// the hook with its URLs cut (`Gg`).
    pub(super) failed: bool,
}

impl Personally {
    /// A verdict the rule leaves alone.
    pub(super) fn as_is(verdict: Verdict) -> Personally {
        Personally {
            verdict,
            decided: false,
            failed: false,
        }
    }
}

/// A command's or an `http` hook's verdict under the rules for its
/// failures: the personal rule's, for one of the user's own hooks, else
/// `onFailure: "block"`'s; and whether it became a personal hook's block
/// for a failure.
pub(super) fn failure_rules(
    personal: Option<&PersonalRun>,
    on_failure_blocks: bool,
    verdict: Verdict,
    (stderr, code): (&str, Option<i32>),
    event: &str,
    detail: super::super::judge::Detail,
) -> (Verdict, bool) {
    let p = match personal {
        Some(p) => p.judge(verdict, stderr, code, detail),
        None => Personally::as_is(verdict),
    };
    let verdict = if on_failure_blocks && !p.decided {
        super::super::judge::failure_blocks(p.verdict, stderr, code, event)
    } else {
        p.verdict
    };
    (verdict, p.failed)
}

/// An `mcp_tool` handler's verdict from what the tool answered: read as a
/// command's stdout, or, under `onFailure: "block"`, with its failures
/// blocking (see [`super::super::mcp_failure`]); an error result or a failed call
/// is a non-blocking error.
pub(super) fn mcp_tool_verdict(
    answer: Result<ToolAnswer, String>,
    server: &str,
    tool: &str,
    ce: ClaudeEvent,
    blocks: bool,
) -> Verdict {
    if blocks {
        return super::super::mcp_failure::blocks(&answer, server, ce.as_str());
    }
    let failed = |e: &str| {
        Verdict::NonBlocking(format!(
            "{}MCP tool {server}/{tool} failed: {e}",
            super::super::judge::NON_BLOCKING_LEAD
        ))
    };
    match answer {
        Ok(ToolAnswer::Text(text)) => super::super::judge::read_stdout(&text),
        // Claude Code's words when the tool said nothing.
        Ok(ToolAnswer::Error(text)) if text.is_empty() => {
            failed(super::super::mcp_failure::TOOL_ERROR)
        }
        Ok(ToolAnswer::Error(text)) => failed(&text),
        Err(e) => failed(&e),
    }
}
