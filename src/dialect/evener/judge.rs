//! Reading what an Evener hook returned: exit code, stdout, stderr.
//!
//! - exit 0, empty stdout: success, nothing to do;
//! - exit 0, a JSON object on stdout: a decision ([`Output`]);
//! - exit 0, anything else on stdout: plain text;
//! - exit 2: the event's exit-2 effect, with the failure text (stderr when
//!   not blank, else stdout); JSON is not parsed;
//! - any other exit, a signal, a timeout, a spawn failure: a non-blocking error.

use serde_json::{Map, Value};

use crate::dialect::output_json::{self, Parsed};
use crate::outcome::ErrorCategory;
use crate::run::{Exit, RunResult, Termination};

/// What a hook's stdout or a prompt reply says, once read.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Exit 0 and nothing on stdout.
    Empty,
    /// Exit 0 and plain text.
    Text(String),
    /// Exit 0 and a JSON decision.
    Json(Box<Output>),
    /// Exit 2, with the failure text.
    Exit2(String),
    /// A non-blocking error.
    Failed {
        /// The category.
        category: ErrorCategory,
        /// What went wrong.
        message: String,
        /// The exit code, when the hook exited.
        exit_code: Option<i32>,
        /// The failure text (stderr, else stdout), possibly empty.
        text: String,
    },
}

/// The fields of Evener's output JSON.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Output {
    /// `systemMessage`: shown to the user.
    pub system_message: Option<String>,
    /// Top-level `decision` (`approve` / `block`).
    pub decision: Option<String>,
    /// Top-level `reason`.
    pub reason: Option<String>,
    /// `hookSpecificOutput.permissionDecision`.
    pub permission_decision: Option<String>,
    /// `hookSpecificOutput.permissionDecisionReason`.
    pub permission_reason: Option<String>,
    /// `hookSpecificOutput.updatedInput`.
    pub updated_input: Option<Map<String, Value>>,
    /// `hookSpecificOutput.additionalContext`.
    pub additional_context: Option<String>,
    /// Fields that parsed but have no effect (`continue`, `suppressOutput`,
    /// `terminalSequence`, `stopReason`), or had the wrong type.
    pub no_effect: Vec<String>,
    /// Fields left out for nesting too deep to read (see
    /// [`output_json`]), as dotted paths.
    pub too_deep: Vec<String>,
}

/// Judges a command run.
pub fn judge_run(run: &RunResult, timeout_secs: f64) -> Verdict {
    let stdout = run.stdout.lossy();
    let stderr = run.stderr.lossy();
    let failure_text = || {
        if stderr.trim().is_empty() {
            stdout.trim().to_owned()
        } else {
            stderr.trim().to_owned()
        }
    };
    match &run.termination {
        Termination::SpawnFailed { message, .. } => Verdict::Failed {
            category: ErrorCategory::CommandError,
            message: message.clone(),
            exit_code: None,
            text: String::new(),
        },
        // Only a command with a first-line rule detaches, and this
        // dialect gives none.
        Termination::Cancelled { .. } | Termination::Detached => Verdict::Failed {
            category: ErrorCategory::Cancelled,
            message: "cancelled while running".to_owned(),
            exit_code: None,
            text: String::new(),
        },
        Termination::CancelledBeforeStart => Verdict::Failed {
            category: ErrorCategory::Cancelled,
            message: "cancelled before it started".to_owned(),
            exit_code: None,
            text: String::new(),
        },
        Termination::TimedOut { .. } => Verdict::Failed {
            category: ErrorCategory::Timeout,
            message: format!("timed out after {timeout_secs} s"),
            exit_code: None,
            text: failure_text(),
        },
        Termination::Exited(Exit::Signal(sig)) => Verdict::Failed {
            category: ErrorCategory::CommandError,
            message: format!("killed by signal {sig}"),
            exit_code: None,
            text: failure_text(),
        },
        Termination::Exited(Exit::Code(0)) => judge_text(&stdout),
        Termination::Exited(Exit::Code(2)) => Verdict::Exit2(failure_text()),
        Termination::Exited(Exit::Code(code)) => Verdict::Failed {
            category: ErrorCategory::CommandError,
            message: format!("exited with code {code}"),
            exit_code: Some(*code),
            text: failure_text(),
        },
    }
}

/// Judges exit-0 output (a command's stdout, or a prompt handler's reply).
pub fn judge_text(stdout: &str) -> Verdict {
    let trimmed = stdout.trim();
    if trimmed.is_empty() {
        return Verdict::Empty;
    }
    if !trimmed.starts_with('{') {
        return Verdict::Text(trimmed.to_owned());
    }
    match output_json::parse(trimmed) {
        Ok(Parsed {
            value: Value::Object(obj),
            ignored,
        }) => Verdict::Json(Box::new(Output {
            too_deep: ignored,
            ..output(&obj)
        })),
        Ok(_) => Verdict::Text(trimmed.to_owned()),
        Err(e) => Verdict::Failed {
            category: ErrorCategory::ParseError,
            message: format!("output looks like JSON but does not parse: {e}"),
            exit_code: Some(0),
            text: String::new(),
        },
    }
}

fn output(obj: &Map<String, Value>) -> Output {
    let mut o = Output::default();
    let specific = match obj.get("hookSpecificOutput") {
        Some(Value::Object(m)) => m.clone(),
        None | Some(Value::Null) => Map::new(),
        Some(_) => {
            o.no_effect
                .push("hookSpecificOutput (not an object)".into());
            Map::new()
        }
    };
    let string = |o: &mut Output, map: &Map<String, Value>, key: &str| match map.get(key) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => {
            o.no_effect.push(format!("{key} (not a string)"));
            None
        }
    };
    o.system_message = string(&mut o, obj, "systemMessage");
    o.decision = string(&mut o, obj, "decision");
    o.reason = string(&mut o, obj, "reason");
    o.permission_decision = string(&mut o, &specific, "permissionDecision");
    o.permission_reason = string(&mut o, &specific, "permissionDecisionReason");
    o.additional_context = string(&mut o, &specific, "additionalContext");
    o.updated_input = match specific.get("updatedInput") {
        None | Some(Value::Null) => None,
        Some(Value::Object(m)) => Some(m.clone()),
        Some(_) => {
            o.no_effect.push("updatedInput (not an object)".into());
            None
        }
    };
    for key in [
        "continue",
        "suppressOutput",
        "terminalSequence",
        "stopReason",
    ] {
        if obj.contains_key(key) {
            o.no_effect
                .push(format!("{key} (parsed, no effect in evener)"));
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_json_and_broken_json() {
        assert_eq!(judge_text("  \n"), Verdict::Empty);
        assert_eq!(judge_text("hello\n"), Verdict::Text("hello".into()));
        assert_eq!(judge_text("[1]"), Verdict::Text("[1]".into()));
        assert!(
            matches!(judge_text("{\"systemMessage\":\"x\"}"), Verdict::Json(o) if o.system_message.as_deref() == Some("x"))
        );
        assert!(matches!(
            judge_text("{oops"),
            Verdict::Failed {
                category: ErrorCategory::ParseError,
                ..
            }
        ));
    }

    #[test]
    fn parsed_fields_without_effect_are_listed() {
        let Verdict::Json(o) =
            judge_text(r#"{"continue":false,"suppressOutput":true,"terminalSequence":""}"#)
        else {
            panic!("not json")
        };
        assert_eq!(o.no_effect.len(), 3);
    }
}
