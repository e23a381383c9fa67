//! Claude Code's schema of a hook's JSON answer (2.1.332), checked as its
//! schema checks it: every field is optional but none may be `null`,
//! unknown keys are dropped, and `hookSpecificOutput` must be one of the
//! per-event shapes below, `hookEventName` included. An answer that fails
//! anywhere is a non-blocking error as a whole (recorded: `r13_null_*`,
//! `r13_pre_deny_updated_input_str`; the schema is read from Claude Code's
//! code, and `recordings/claude-2.1.332/answer-cases.jsonl` holds 4,704
//! answers its own schema and stdout reader judged). 2.1.197's message
//! never named the field; 2.1.332's names the first wrong one in its own
//! words, which latch does not copy yet (latch's names it too, in latch's).
//!
//! Written as a table rather than with a JSON Schema crate: the schema is
//! small and fixed, and what matters is its exact reading (a union of plain
//! objects, `optional()` refusing `null`, as zod's and the zod-like library
//! 2.1.332 carries read it), which a table states directly.

use serde_json::{Map, Value};

/// A field's type, as far as Claude Code's schema checks it.
#[derive(Clone, Copy)]
enum Ty {
    Str,
    Bool,
    /// Anything, `null` included (`z.unknown()`).
    Any,
    /// One of these strings.
    OneOf(&'static [&'static str]),
    /// A JSON object of anything (`z.record(z.string(), z.unknown())`).
    Record,
    /// A list of strings.
    Strings,
    /// `PermissionRequest`'s `decision`.
    PermissionDecision,
}

/// A field of a shape: its name, type and whether it must be there.
type Field = (&'static str, Ty, bool);

const CONTEXT: Field = ("additionalContext", Ty::Str, false);

/// The top level (besides `hookSpecificOutput`).
const TOP: &[Field] = &[
    ("continue", Ty::Bool, false),
    ("suppressOutput", Ty::Bool, false),
    ("stopReason", Ty::Str, false),
    ("decision", Ty::OneOf(&["approve", "block"]), false),
    ("reason", Ty::Str, false),
    ("systemMessage", Ty::Str, false),
    ("terminalSequence", Ty::Str, false),
];

/// `hookSpecificOutput`'s shape for each event that has one. An event not
/// listed (`SessionEnd`, `PreCompact`, `TaskCreated`, …) takes none.
const SPECIFIC: &[(&str, &[Field])] = &[
    (
        "PreToolUse",
        &[
            (
                "permissionDecision",
                Ty::OneOf(&["allow", "deny", "ask", "defer"]),
                false,
            ),
            ("permissionDecisionReason", Ty::Str, false),
            ("updatedInput", Ty::Record, false),
            CONTEXT,
        ],
    ),
    // Claude Code 2.1.332's three new shapes (its output schema).
    (
        "PreModelSwitch",
        &[
            (
                "permissionDecision",
                Ty::OneOf(&["allow", "deny", "ask"]),
                false,
            ),
            ("permissionDecisionReason", Ty::Str, false),
        ],
    ),
    (
        "PreSkillShellCommand",
        &[
            (
                "permissionDecision",
                Ty::OneOf(&["allow", "deny", "ask", "defer"]),
                false,
            ),
            ("permissionDecisionReason", Ty::Str, false),
            ("updatedInput", Ty::Record, false),
        ],
    ),
    ("PostModelSwitch", &[CONTEXT]),
    (
        "UserPromptSubmit",
        &[
            CONTEXT,
            ("sessionTitle", Ty::Str, false),
            ("suppressOriginalPrompt", Ty::Bool, false),
        ],
    ),
    // `suppressOriginalPrompt` since 2.1.332 (its output schema, `NM`).
    (
        "UserPromptExpansion",
        &[CONTEXT, ("suppressOriginalPrompt", Ty::Bool, false)],
    ),
    (
        "SessionStart",
        &[
            CONTEXT,
            ("initialUserMessage", Ty::Str, false),
            ("sessionTitle", Ty::Str, false),
            ("watchPaths", Ty::Strings, false),
            ("reloadSkills", Ty::Bool, false),
        ],
    ),
    ("Setup", &[CONTEXT]),
    ("SubagentStart", &[CONTEXT]),
    // `classifierContext` since 2.1.332 (its output schema, `NM`; recorded:
    // `claude-2.1.332/answer-cases.jsonl`). Its PreToolUse `permissionDisplay`
    // is caught (`.catch(void 0)`): any value passes, as an unknown key does.
    (
        "PostToolUse",
        &[
            CONTEXT,
            ("classifierContext", Ty::Str, false),
            ("updatedToolOutput", Ty::Any, false),
            ("updatedMCPToolOutput", Ty::Any, false),
        ],
    ),
    ("PostToolUseFailure", &[CONTEXT]),
    ("PostToolBatch", &[CONTEXT]),
    ("Stop", &[CONTEXT]),
    ("SubagentStop", &[CONTEXT]),
    ("PermissionDenied", &[("retry", Ty::Bool, false)]),
    ("Notification", &[CONTEXT]),
    (
        "PermissionRequest",
        &[("decision", Ty::PermissionDecision, true)],
    ),
    ("Elicitation", ELICITATION),
    ("ElicitationResult", ELICITATION),
    ("CwdChanged", &[("watchPaths", Ty::Strings, false)]),
    ("FileChanged", &[("watchPaths", Ty::Strings, false)]),
    ("WorktreeCreate", &[("worktreePath", Ty::Str, true)]),
    ("MessageDisplay", &[("displayContent", Ty::Str, false)]),
];

const ELICITATION: &[Field] = &[
    ("action", Ty::OneOf(&["accept", "decline", "cancel"]), false),
    ("content", Ty::Record, false),
];

/// Why an answer fails Claude Code's schema.
pub enum Refusal {
    /// `hookSpecificOutput` is an object without `hookEventName`: Claude
    /// Code's message says so.
    NoEventName,
    /// Anything else: Claude Code 2.1.197 said only `(root): Invalid
    /// input`, 2.1.332 names the field in its words; the text is latch's,
    /// naming the field.
    Invalid(String),
}

/// Whether an answer reads as Claude Code's other form, `{"async": true,
/// "asyncTimeout"?: number}`, which keeps nothing else of the answer.
pub fn is_async(answer: &Map<String, Value>) -> bool {
    answer.get("async") == Some(&Value::Bool(true))
        && answer.get("asyncTimeout").is_none_or(Value::is_number)
}

/// Checks a hook's answer against Claude Code's schema.
pub fn check(answer: &Map<String, Value>) -> Result<(), Refusal> {
    if is_async(answer) {
        return Ok(());
    }
    fields(answer, TOP, "").map_err(Refusal::Invalid)?;
    let Some(specific) = answer.get("hookSpecificOutput") else {
        return Ok(());
    };
    let Value::Object(specific) = specific else {
        return Err(Refusal::Invalid(format!(
            "`hookSpecificOutput` must be an object, not {}",
            kind(specific)
        )));
    };
    let name = match specific.get("hookEventName") {
        None => return Err(Refusal::NoEventName),
        Some(Value::String(name)) => name,
        Some(other) => {
            return Err(Refusal::Invalid(format!(
                "`hookSpecificOutput.hookEventName` must be a string, not {}",
                kind(other)
            )));
        }
    };
    let Some((_, shape)) = SPECIFIC.iter().find(|(event, _)| event == name) else {
        return Err(Refusal::Invalid(format!(
            "{name} takes no `hookSpecificOutput`"
        )));
    };
    fields(specific, shape, "hookSpecificOutput.").map_err(Refusal::Invalid)
}

/// Checks the fields of `shape` in `obj`; other keys are ignored.
fn fields(obj: &Map<String, Value>, shape: &[Field], prefix: &str) -> Result<(), String> {
    for &(name, ty, required) in shape {
        match obj.get(name) {
            None if required => return Err(format!("`{prefix}{name}` is required")),
            Some(v) if !fits(v, ty) => {
                return Err(format!(
                    "`{prefix}{name}` must be {}, not {}",
                    ty.wanted(),
                    kind(v)
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

fn fits(v: &Value, ty: Ty) -> bool {
    match ty {
        Ty::Str => v.is_string(),
        Ty::Bool => v.is_boolean(),
        Ty::Any => true,
        Ty::OneOf(allowed) => v.as_str().is_some_and(|s| allowed.contains(&s)),
        Ty::Record => v.is_object(),
        Ty::Strings => v
            .as_array()
            .is_some_and(|items| items.iter().all(Value::is_string)),
        Ty::PermissionDecision => permission_decision(v),
    }
}

impl Ty {
    fn wanted(self) -> String {
        match self {
            Ty::Str => "a string".to_owned(),
            Ty::Bool => "a boolean".to_owned(),
            Ty::Any => "anything".to_owned(),
            Ty::OneOf(allowed) => format!("one of {}", allowed.join(", ")),
            Ty::Record => "an object".to_owned(),
            Ty::Strings => "a list of strings".to_owned(),
            Ty::PermissionDecision => {
                "`{behavior: \"allow\", updatedInput?, updatedPermissions?}` or `{behavior: \"deny\", message?, interrupt?}`".to_owned()
            }
        }
    }
}

/// `{behavior: "allow", updatedInput?, updatedPermissions?}` or
/// `{behavior: "deny", message?, interrupt?}`.
fn permission_decision(v: &Value) -> bool {
    let Some(d) = v.as_object() else { return false };
    match d.get("behavior").and_then(Value::as_str) {
        Some("allow") => {
            fields(d, &[("updatedInput", Ty::Record, false)], "").is_ok()
                && d.get("updatedPermissions").is_none_or(|u| {
                    u.as_array()
                        .is_some_and(|list| list.iter().all(permission_update))
                })
        }
        Some("deny") => fields(
            d,
            &[("message", Ty::Str, false), ("interrupt", Ty::Bool, false)],
            "",
        )
        .is_ok(),
        _ => false,
    }
}

const DESTINATIONS: Ty = Ty::OneOf(&[
    "userSettings",
    "projectSettings",
    "localSettings",
    "session",
    "cliArg",
]);

/// One entry of `updatedPermissions`, by its `type`.
fn permission_update(v: &Value) -> bool {
    let Some(u) = v.as_object() else { return false };
    let destination = ("destination", DESTINATIONS, true);
    match u.get("type").and_then(Value::as_str) {
        Some("addRules" | "replaceRules" | "removeRules") => {
            fields(
                u,
                &[
                    ("behavior", Ty::OneOf(&["allow", "deny", "ask"]), true),
                    destination,
                ],
                "",
            )
            .is_ok()
                && u.get("rules")
                    .and_then(Value::as_array)
                    .is_some_and(|rules| {
                        rules.iter().all(|r| {
                            r.as_object().is_some_and(|r| {
                                fields(
                                    r,
                                    &[("toolName", Ty::Str, true), ("ruleContent", Ty::Str, false)],
                                    "",
                                )
                                .is_ok()
                            })
                        })
                    })
        }
        Some("setMode") => fields(
            u,
            &[
                (
                    "mode",
                    Ty::OneOf(&[
                        "acceptEdits",
                        "auto",
                        "bypassPermissions",
                        "default",
                        "dontAsk",
                        "plan",
                    ]),
                    true,
                ),
                destination,
            ],
            "",
        )
        .is_ok(),
        Some("addDirectories" | "removeDirectories") => {
            fields(u, &[("directories", Ty::Strings, true), destination], "").is_ok()
        }
        _ => false,
    }
}

/// `a string`, `null`, … for a message.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(v: Value) -> Result<(), Refusal> {
        check(v.as_object().expect("an object"))
    }

    fn invalid(v: Value) -> String {
        match answer(v) {
            Err(Refusal::Invalid(why)) => why,
            Err(Refusal::NoEventName) => "no event name".to_owned(),
            Ok(()) => "valid".to_owned(),
        }
    }

    #[test]
    fn null_is_never_a_value() {
        assert_eq!(
            invalid(serde_json::json!({"decision": "block", "reason": "R", "systemMessage": null})),
            "`systemMessage` must be a string, not null"
        );
        assert_eq!(
            invalid(
                serde_json::json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": null}})
            ),
            "`hookSpecificOutput.additionalContext` must be a string, not null"
        );
        // `z.unknown()` takes null.
        assert!(answer(serde_json::json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": null}})).is_ok());
    }

    #[test]
    fn each_event_has_its_shape() {
        assert_eq!(
            invalid(
                serde_json::json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "updatedInput": "str"}})
            ),
            "`hookSpecificOutput.updatedInput` must be an object, not a string"
        );
        assert_eq!(
            invalid(serde_json::json!({"hookSpecificOutput": {"hookEventName": "TaskCreated"}})),
            "TaskCreated takes no `hookSpecificOutput`"
        );
        assert_eq!(
            invalid(serde_json::json!({"hookSpecificOutput": {"hookEventName": "WorktreeCreate"}})),
            "`hookSpecificOutput.worktreePath` is required"
        );
        assert!(matches!(
            answer(serde_json::json!({"hookSpecificOutput": {"additionalContext": "x"}})),
            Err(Refusal::NoEventName)
        ));
        // Unknown keys are dropped, at both levels.
        assert!(answer(serde_json::json!({"extra": null, "hookSpecificOutput": {"hookEventName": "Stop", "extra": 1}})).is_ok());
    }

    /// Every answer of `recordings/claude-2.1.332/answer-cases.jsonl`
    /// (4,704, made by `export_answer_cases.js` with Claude Code 2.1.332's
    /// own schema and stdout reader): valid exactly when Claude Code's
    /// schema says so, with its kind of message.
    #[test]
    fn answers_are_valid_exactly_when_claude_code_says_so() {
        let mut disagree = Vec::new();
        let mut count = 0;
        for case in crate::dialect::claude::recorded_cases("claude-2.1.332/answer-cases.jsonl") {
            let Some(obj) = case["answer"].as_object() else {
                continue;
            };
            count += 1;
            let ours = match check(obj) {
                Ok(()) => "valid",
                Err(Refusal::NoEventName) => "no event name",
                Err(Refusal::Invalid(_)) => "invalid",
            };
            let theirs = match case["message"].as_str() {
                None => "valid",
                Some(m) if m.contains("missing required field") => "no event name",
                Some(_) => "invalid",
            };
            if ours != theirs {
                disagree.push(format!(
                    "{}: Claude Code {theirs}, latch {ours}",
                    case["answer"]
                ));
            }
        }
        assert_eq!(count, 4704);
        assert!(
            disagree.is_empty(),
            "{} disagree:\n{}",
            disagree.len(),
            disagree
                .iter()
                .take(30)
                .cloned()
                .collect::<Vec<_>>()
                .join("\n")
        );
    }

    #[test]
    fn permission_request_decisions() {
        let ok = |d: Value| {
            answer(serde_json::json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": d}})).is_ok()
        };
        assert!(ok(
            serde_json::json!({"behavior": "deny", "message": "m", "interrupt": true})
        ));
        assert!(ok(
            serde_json::json!({"behavior": "allow", "updatedPermissions": [
            {"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "ls"}], "behavior": "allow", "destination": "session"},
            {"type": "setMode", "mode": "plan", "destination": "session"},
            {"type": "addDirectories", "directories": ["/x"], "destination": "localSettings"}]})
        ));
        assert!(!ok(serde_json::json!({"behavior": "maybe"})));
        assert!(!ok(
            serde_json::json!({"behavior": "deny", "message": null})
        ));
        assert!(!ok(
            serde_json::json!({"behavior": "allow", "updatedPermissions": [{"type": "setMode", "mode": "yolo", "destination": "session"}]})
        ));
        assert!(!ok(
            serde_json::json!({"behavior": "allow", "updatedPermissions": [{"type": "addRules", "rules": [{}], "behavior": "allow", "destination": "session"}]})
        ));
    }
}
