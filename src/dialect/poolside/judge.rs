//! Judging one hook run: exit code and stdout into a [`Verdict`], applying
//! poolside's per-event table of honoured fields.

use serde_json::{Map, Value};

use crate::dialect::output_json;
use crate::outcome::ErrorCategory;
use crate::run::{Exit, RunResult, SpawnFailure, Termination};

use super::events::PoolEvent;

/// More than this on stdout fails the hook.
pub const MAX_STDOUT: usize = 1024 * 1024;
/// Block reasons on stderr are kept up to this size.
pub const MAX_STDERR: usize = 64 * 1024;

/// Text a hook returned for the model or the prompt: the text, or why it
/// was rejected (the original is then kept).
pub type Text = Result<String, String>;

/// What one hook asked for, already filtered by what its event honours.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Answer {
    /// Block the event, with this reason (PreToolUse, UserPromptSubmit).
    pub deny: Option<String>,
    /// Keep the agent working (Stop); the follow-up text, if the hook gave one.
    pub continuation: Option<Option<String>>,
    /// New tool arguments (PreToolUse).
    pub tool_input: Option<Value>,
    /// New tool output (PostToolUse).
    pub tool_output: Option<Text>,
    /// New prompt (UserPromptSubmit).
    pub prompt: Option<Text>,
    /// Context to inject (UserPromptSubmit, PreCompact, SessionStart).
    pub context: Option<Text>,
    /// A block or continue the event cannot honour, described for the notice.
    pub refused: Option<String>,
    /// Fields whose text was rejected, with why (the original is kept).
    pub rejected: Vec<(String, String)>,
    /// Fields the hook set that this event does not honour, or whose value
    /// had the wrong type.
    pub ignored_fields: Vec<String>,
    /// Fields left out for nesting too deep to read (see
    /// [`output_json`]), as dotted paths.
    pub too_deep: Vec<String>,
}

/// The judgement of one run.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// The hook failed; the event proceeds as if it were absent.
    Failed {
        /// The category.
        category: ErrorCategory,
        /// What happened, in one line.
        message: String,
    },
    /// The hook answered (possibly with nothing to say).
    Answered(Box<Answer>),
}

fn failed(category: ErrorCategory, message: impl Into<String>) -> Verdict {
    Verdict::Failed {
        category,
        message: message.into(),
    }
}

/// Judges one run of a hook on `event`.
pub fn judge(event: PoolEvent, run: &RunResult, timeout_secs: f64) -> Verdict {
    let exit = match &run.termination {
        Termination::SpawnFailed { reason, message } => {
            let what = match reason {
                SpawnFailure::NotFound => "the shell was not found",
                SpawnFailure::NotExecutable => "the shell is not executable",
                SpawnFailure::BadWorkingDirectory => "the working directory does not exist",
                SpawnFailure::Other => "it could not start",
            };
            return failed(ErrorCategory::CommandError, format!("{what}: {message}"));
        }
        // Only a command with a first-line rule detaches, and this
        // dialect gives none.
        Termination::Cancelled { .. } | Termination::Detached => {
            return failed(
                ErrorCategory::Cancelled,
                "cancelled while running; latch killed it and its descendants",
            );
        }
        Termination::CancelledBeforeStart => {
            return failed(ErrorCategory::Cancelled, "cancelled before it started");
        }
        Termination::TimedOut { .. } => {
            return failed(
                ErrorCategory::Timeout,
                format!("timed out after {timeout_secs} s; latch killed it and its descendants"),
            );
        }
        Termination::Exited(exit) => *exit,
    };
    match exit {
        Exit::Signal(sig) => failed(
            ErrorCategory::CommandError,
            format!("killed by signal {sig}"),
        ),
        Exit::Code(0) => judge_stdout(event, run),
        Exit::Code(2) => Verdict::Answered(Box::new(exit_two(event, run))),
        Exit::Code(code) => {
            let why = match code {
                126 => " (the command is not executable)",
                127 => " (the command was not found)",
                _ => "",
            };
            let tail = crate::text::detail(&run.stderr.lossy(), 200);
            failed(
                ErrorCategory::CommandError,
                format!("exited with code {code}{why}{tail}"),
            )
        }
    }
}

/// Exit 2: block with stderr as the reason; on Stop, continue with stderr as
/// the follow-up; events that cannot block ignore it.
fn exit_two(event: PoolEvent, run: &RunResult) -> Answer {
    let text = run.stderr.lossy().trim().to_owned();
    let mut a = Answer::default();
    match event {
        PoolEvent::PreToolUse | PoolEvent::UserPromptSubmit => a.deny = Some(text),
        PoolEvent::Stop => a.continuation = Some(Some(text).filter(|t| !t.is_empty())),
        PoolEvent::PreCompact | PoolEvent::SessionStart | PoolEvent::PostToolUse => {
            a.refused = Some("exited with code 2 (block)".to_owned());
        }
    }
    a
}

fn judge_stdout(event: PoolEvent, run: &RunResult) -> Verdict {
    if run.stdout.truncated {
        return failed(
            ErrorCategory::OutputTooLarge,
            format!(
                "printed {} bytes on stdout, more than the 1 MiB limit",
                run.stdout.total
            ),
        );
    }
    let valid_utf8 = std::str::from_utf8(&run.stdout.bytes).is_ok();
    let text = run.stdout.lossy();
    if text.trim().is_empty() {
        return Verdict::Answered(Box::default());
    }
    let parsed = match output_json::parse(&text) {
        Ok(p) => p,
        Err(e) => {
            return failed(
                ErrorCategory::ParseError,
                format!("stdout is not valid JSON: {e}"),
            );
        }
    };
    let Value::Object(obj) = parsed.value else {
        return failed(
            ErrorCategory::ParseError,
            "stdout is JSON but not an object; a decision must be a JSON object",
        );
    };
    let mut answer = decision(event, &obj, valid_utf8);
    answer.too_deep = parsed.ignored;
    Verdict::Answered(Box::new(answer))
}

/// Reads a decision object. Unknown fields are ignored, as poolside does;
/// fields of the wrong type are ignored and named in `ignored_fields`.
fn decision(event: PoolEvent, obj: &Map<String, Value>, valid_utf8: bool) -> Answer {
    let mut a = Answer::default();
    let specific = match obj.get("hook_specific_output") {
        Some(Value::Object(m)) => m.clone(),
        Some(Value::Null) | None => Map::new(),
        Some(_) => {
            a.ignored_fields
                .push("hook_specific_output (not an object)".into());
            Map::new()
        }
    };
    let string = |a: &mut Answer, map: &Map<String, Value>, key: &str| -> Option<String> {
        match map.get(key) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => {
                a.ignored_fields.push(format!("{key} (not a string)"));
                None
            }
        }
    };
    let blocks = string(&mut a, obj, "decision");
    let reason = string(&mut a, obj, "reason");
    let perm = string(&mut a, &specific, "permission_decision");
    let perm_reason = string(&mut a, &specific, "permission_decision_reason");
    let context = string(&mut a, &specific, "additional_context");
    let prompt = string(&mut a, &specific, "updated_prompt");
    let output = string(&mut a, &specific, "updated_tool_output");
    let input = specific
        .get("updated_input")
        .filter(|v| !v.is_null())
        .cloned();
    let cont = match obj.get("continue") {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(_) => {
            a.ignored_fields.push("continue (not a boolean)".into());
            None
        }
    };
    let block = match blocks.as_deref() {
        None => false,
        Some("block") => true,
        Some(other) => {
            a.ignored_fields.push(format!(
                "decision \"{other}\" (only \"block\" is recognised)"
            ));
            false
        }
    };
    let perm_deny = match perm.as_deref() {
        None => false,
        Some("deny") => event == PoolEvent::PreToolUse,
        Some(other) => {
            a.ignored_fields.push(format!(
                "permission_decision \"{other}\" (only \"deny\" is honoured)"
            ));
            false
        }
    };
    // Text fields are checked for UTF-8 only if the output was not valid
    // UTF-8 as a whole: then a U+FFFD in a field marks bytes that were lost.
    let checked = |t: String| -> Text {
        if !valid_utf8 && t.contains('\u{FFFD}') {
            Err("is not valid UTF-8".to_owned())
        } else {
            Ok(t)
        }
    };
    let ignore = |a: &mut Answer, present: bool, field: &str| {
        if present {
            a.ignored_fields
                .push(format!("{field} (not honoured on {event})"));
        }
    };

    match event {
        PoolEvent::PreToolUse => {
            if perm_deny {
                a.deny = Some(perm_reason.or(reason).unwrap_or_default());
            } else if block {
                a.deny = Some(reason.unwrap_or_default());
            }
            a.tool_input = match input {
                Some(v) if !valid_utf8 && contains_replacement(&v) => {
                    a.rejected
                        .push(("updated_input".into(), "is not valid UTF-8".into()));
                    None
                }
                other => other,
            };
            ignore(&mut a, output.is_some(), "updated_tool_output");
            ignore(&mut a, prompt.is_some(), "updated_prompt");
            ignore(&mut a, context.is_some(), "additional_context");
            ignore(&mut a, cont.is_some(), "continue");
        }
        PoolEvent::PostToolUse => {
            a.tool_output = output.map(checked);
            if block {
                a.refused = Some("asked to block".into());
            }
            ignore(&mut a, perm.is_some(), "permission_decision");
            ignore(&mut a, input.is_some(), "updated_input");
            ignore(&mut a, prompt.is_some(), "updated_prompt");
            ignore(&mut a, context.is_some(), "additional_context");
            ignore(&mut a, cont.is_some(), "continue");
        }
        PoolEvent::UserPromptSubmit => {
            if block {
                a.deny = Some(reason.unwrap_or_default());
            }
            a.prompt = prompt.map(checked);
            a.context = context.map(checked);
            ignore(&mut a, perm.is_some(), "permission_decision");
            ignore(&mut a, input.is_some(), "updated_input");
            ignore(&mut a, output.is_some(), "updated_tool_output");
            ignore(&mut a, cont.is_some(), "continue");
        }
        PoolEvent::Stop => {
            // `continue: true`, and `decision: "block"` (which on Stop means
            // "do not stop"), both ask the agent to keep working.
            if cont == Some(true) || block {
                let text = match context.map(checked) {
                    Some(Ok(t)) => Some(t),
                    Some(Err(why)) => {
                        a.rejected.push(("additional_context".into(), why));
                        None
                    }
                    None => reason.filter(|_| block),
                };
                a.continuation = Some(text.filter(|t| !t.trim().is_empty()));
            } else {
                ignore(
                    &mut a,
                    context.is_some(),
                    "additional_context without continue: true",
                );
            }
            ignore(&mut a, perm.is_some(), "permission_decision");
            ignore(&mut a, input.is_some(), "updated_input");
            ignore(&mut a, output.is_some(), "updated_tool_output");
            ignore(&mut a, prompt.is_some(), "updated_prompt");
        }
        PoolEvent::PreCompact | PoolEvent::SessionStart => {
            a.context = context.map(checked);
            a.refused = match (block, cont == Some(true)) {
                (true, _) => Some("asked to block".into()),
                (false, true) => Some("asked to continue".into()),
                _ => None,
            };
            ignore(&mut a, perm.is_some(), "permission_decision");
            ignore(&mut a, input.is_some(), "updated_input");
            ignore(&mut a, output.is_some(), "updated_tool_output");
            ignore(&mut a, prompt.is_some(), "updated_prompt");
        }
    }
    a
}

fn contains_replacement(v: &Value) -> bool {
    match v {
        Value::String(s) => s.contains('\u{FFFD}'),
        Value::Array(items) => items.iter().any(contains_replacement),
        Value::Object(m) => m
            .iter()
            .any(|(k, v)| k.contains('\u{FFFD}') || contains_replacement(v)),
        _ => false,
    }
}
