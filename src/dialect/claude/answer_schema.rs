//! Claude Code's schema of a hook's JSON answer (2.1.332), checked as its
//! schema checks it: every field is optional but none may be `null`,
//! unknown keys are dropped, and `hookSpecificOutput` must be one of the
//! per-event shapes below, `hookEventName` included. An answer that fails
//! anywhere is a non-blocking error as a whole (recorded: `r13_null_*`,
//! `r13_pre_deny_updated_input_str`; the schema is read from Claude Code's
//! code, and `recordings/claude-2.1.332/answer-cases.jsonl` holds 4,704
//! answers its own schema and stdout reader judged, with the first line of
//! its message for each it refused).
//!
//! The message names the first wrong field in Claude Code's words (see
//! [`answer_errors`](super::answer_errors)), shows the answer as
//! `JSON.stringify(answer, null, 2)` writes it, and, for a command or
//! `mcp_tool` hook, the schema Claude Code prints (its `Mhn`, `k8`, `Ihn`).

use serde_json::{Map, Value, json};

use super::answer_errors::{Field, Literal, Schema, Step, first_issue};
use crate::dialect::js_json::stringify_pretty;

use Schema::{Any, Bool, Is, List, Num, Object, OneOf, Record, Str, Union};

const fn event(name: &'static str) -> Field {
    ("hookEventName", Is(Literal::Str(name)), false)
}

const CONTEXT: Field = ("additionalContext", Str, true);
const REASON: Field = ("permissionDecisionReason", Str, true);
const UPDATED_INPUT: Field = ("updatedInput", Record, true);
const DECISIONS: Schema = OneOf(&["allow", "deny", "ask", "defer"]);
const WATCH_PATHS: Field = ("watchPaths", List(&Str), true);
const SUPPRESS_PROMPT: Field = ("suppressOriginalPrompt", Bool, true);
const TITLE: Field = ("sessionTitle", Str, true);
const ELICITATION_ACTION: Field = ("action", OneOf(&["accept", "decline", "cancel"]), true);
const ELICITATION_CONTENT: Field = ("content", Record, true);

/// `hookSpecificOutput`: one shape for each event that has one, in Claude
/// Code's order (which its message follows). An event not listed
/// (`SessionEnd`, `PreCompact`, `TaskCreated`, …) takes none.
const SPECIFIC: Schema = Union(&[
    // Its `permissionDisplay` is caught (`.catch(void 0)`): any value
    // passes, as an unknown key does.
    Object(&[
        event("PreToolUse"),
        ("permissionDecision", DECISIONS, true),
        REASON,
        UPDATED_INPUT,
        CONTEXT,
        ("permissionDisplay", Any, true),
    ]),
    Object(&[event("UserPromptSubmit"), CONTEXT, TITLE, SUPPRESS_PROMPT]),
    // `suppressOriginalPrompt` since 2.1.332 (its output schema, `NM`).
    Object(&[event("UserPromptExpansion"), CONTEXT, SUPPRESS_PROMPT]),
    Object(&[
        event("SessionStart"),
        CONTEXT,
        ("initialUserMessage", Str, true),
        TITLE,
        WATCH_PATHS,
        ("reloadSkills", Bool, true),
    ]),
    Object(&[event("Setup"), CONTEXT]),
    // Claude Code 2.1.332's three new shapes (its output schema).
    Object(&[
        event("PreModelSwitch"),
        ("permissionDecision", OneOf(&["allow", "deny", "ask"]), true),
        REASON,
    ]),
    Object(&[
        event("PreSkillShellCommand"),
        ("permissionDecision", DECISIONS, true),
        REASON,
        UPDATED_INPUT,
    ]),
    Object(&[event("PostModelSwitch"), CONTEXT]),
    Object(&[event("SubagentStart"), CONTEXT]),
    // `classifierContext` since 2.1.332 (its output schema, `NM`).
    Object(&[
        event("PostToolUse"),
        CONTEXT,
        ("classifierContext", Str, true),
        ("updatedToolOutput", Any, true),
        ("updatedMCPToolOutput", Any, true),
    ]),
    Object(&[event("PostToolUseFailure"), CONTEXT]),
    Object(&[event("PostToolBatch"), CONTEXT]),
    Object(&[event("Stop"), CONTEXT]),
    Object(&[event("SubagentStop"), CONTEXT]),
    Object(&[event("PermissionDenied"), ("retry", Bool, true)]),
    Object(&[event("Notification"), CONTEXT]),
    Object(&[
        event("PermissionRequest"),
        ("decision", PERMISSION_DECISION, false),
    ]),
    Object(&[
        event("Elicitation"),
        ELICITATION_ACTION,
        ELICITATION_CONTENT,
    ]),
    Object(&[
        event("ElicitationResult"),
        ELICITATION_ACTION,
        ELICITATION_CONTENT,
    ]),
    Object(&[event("CwdChanged"), WATCH_PATHS]),
    Object(&[event("FileChanged"), WATCH_PATHS]),
    Object(&[event("WorktreeCreate"), ("worktreePath", Str, false)]),
    Object(&[event("MessageDisplay"), ("displayContent", Str, true)]),
]);

/// `PermissionRequest`'s `decision`.
const PERMISSION_DECISION: Schema = Union(&[
    Object(&[
        ("behavior", Is(Literal::Str("allow")), false),
        UPDATED_INPUT,
        ("updatedPermissions", List(&PERMISSION_UPDATE), true),
    ]),
    Object(&[
        ("behavior", Is(Literal::Str("deny")), false),
        ("message", Str, true),
        ("interrupt", Bool, true),
    ]),
]);

const RULES: Schema = List(&Object(&[
    ("toolName", Str, false),
    ("ruleContent", Str, true),
]));
const RULE_BEHAVIOR: Field = ("behavior", OneOf(&["allow", "deny", "ask"]), false);
const DESTINATION: Field = (
    "destination",
    OneOf(&[
        "userSettings",
        "projectSettings",
        "localSettings",
        "session",
        "cliArg",
    ]),
    false,
);
const DIRECTORIES: Field = ("directories", List(&Str), false);

const fn kind(name: &'static str) -> Field {
    ("type", Is(Literal::Str(name)), false)
}

/// One entry of `updatedPermissions`, by its `type`.
const PERMISSION_UPDATE: Schema = Schema::Tagged(
    "type",
    &[
        (
            "addRules",
            Object(&[
                kind("addRules"),
                ("rules", RULES, false),
                RULE_BEHAVIOR,
                DESTINATION,
            ]),
        ),
        (
            "replaceRules",
            Object(&[
                kind("replaceRules"),
                ("rules", RULES, false),
                RULE_BEHAVIOR,
                DESTINATION,
            ]),
        ),
        (
            "removeRules",
            Object(&[
                kind("removeRules"),
                ("rules", RULES, false),
                RULE_BEHAVIOR,
                DESTINATION,
            ]),
        ),
        (
            "setMode",
            Object(&[
                kind("setMode"),
                (
                    "mode",
                    OneOf(&[
                        "acceptEdits",
                        "auto",
                        "bypassPermissions",
                        "default",
                        "dontAsk",
                        "plan",
                    ]),
                    false,
                ),
                DESTINATION,
            ]),
        ),
        (
            "addDirectories",
            Object(&[kind("addDirectories"), DIRECTORIES, DESTINATION]),
        ),
        (
            "removeDirectories",
            Object(&[kind("removeDirectories"), DIRECTORIES, DESTINATION]),
        ),
    ],
);

/// A whole answer: Claude Code's other form, `{"async": true,
/// "asyncTimeout"?: number}`, or the usual one.
const ANSWER: Schema = Union(&[
    Object(&[
        ("async", Is(Literal::True), false),
        ("asyncTimeout", Num, true),
    ]),
    Object(&[
        ("continue", Bool, true),
        ("suppressOutput", Bool, true),
        ("stopReason", Str, true),
        ("decision", OneOf(&["approve", "block"]), true),
        ("reason", Str, true),
        ("systemMessage", Str, true),
        ("terminalSequence", Str, true),
        ("hookSpecificOutput", SPECIFIC, true),
    ]),
]);

/// How Claude Code's message for an answer that fails its schema starts.
pub const LEAD: &str = "Hook JSON output validation failed \u{2014} ";

/// Whether an answer reads as Claude Code's other form, `{"async": true,
/// "asyncTimeout"?: number}`, which keeps nothing else of the answer.
pub fn is_async(answer: &Map<String, Value>) -> bool {
    answer.get("async") == Some(&Value::Bool(true))
        && answer.get("asyncTimeout").is_none_or(Value::is_number)
}

/// Checks a hook's answer against Claude Code's schema. A refusal is what
/// Claude Code's message says after [`LEAD`]: the first wrong field's
/// path and what was wrong (`continue: expected boolean, received null`),
/// or one of its own sentences for the mistakes it foresees (an object
/// `hookSpecificOutput` without `hookEventName`, a `PermissionRequest`
/// `decision` that is not an object, a top-level `decision` of `allow`,
/// `deny` or `ask`).
pub fn check(answer: &Value) -> Result<(), String> {
    let Some(issue) = first_issue(ANSWER, answer) else {
        return Ok(());
    };
    let specific = answer.get("hookSpecificOutput").and_then(Value::as_object);
    if specific.is_some_and(|s| !s.contains_key("hookEventName")) {
        return Err("hookSpecificOutput is missing required field \"hookEventName\"".to_owned());
    }
    let mut first = format!("{}: {}", issue.path_text(), issue.message);
    let permission_request = specific.is_some_and(|s| {
        s.get("hookEventName").and_then(Value::as_str) == Some("PermissionRequest")
            && !s.get("decision").is_some_and(Value::is_object)
    });
    let decision = answer.get("decision").and_then(Value::as_str);
    if permission_request
        && issue
            .path
            .starts_with(&[Step::Key("hookSpecificOutput"), Step::Key("decision")])
    {
        first.push_str(
            " (PermissionRequest decision must be {\"behavior\": \"allow\"} or {\"behavior\": \"deny\", \"message\": \"...\"})",
        );
    } else if issue.path == [Step::Key("decision")] {
        match decision {
            Some("ask") => first.push_str(
                " (top-level decision is the legacy approve|block field; for \"ask\" use hookSpecificOutput.permissionDecision in a PreToolUse hook)",
            ),
            Some(d @ ("allow" | "deny")) => first.push_str(&format!(
                " (top-level decision is the legacy approve|block field; for \"{d}\" use hookSpecificOutput.permissionDecision in a PreToolUse hook, or hookSpecificOutput.decision: {{\"behavior\": \"{d}\"}} in a PermissionRequest hook)"
            )),
            _ => {}
        }
    }
    Err(first)
}

/// How much of a refused answer its message shows, written out: Claude
/// Code shows it whole, but written out a deeply nested answer grows by
/// its depth (8 MiB of stdout could become gigabytes).
pub const MAX_SHOWN: usize = 64 << 10;

/// Claude Code's message for `answer`, refused with `first` (see
/// [`check`]): [`LEAD`] and `first`, then the answer as
/// `JSON.stringify(answer, null, 2)` writes it, then, `with_schema` (a
/// command or `mcp_tool` hook's answer, not an HTTP hook's), the schema
/// Claude Code shows. Past [`MAX_SHOWN`] bytes the answer is cut, and the
/// message says so.
pub fn refusal_text(first: &str, answer: &Value, with_schema: bool) -> String {
    let (shown, cut) = crate::dialect::js_json::stringify_pretty_within(answer, MAX_SHOWN);
    let mut text = format!("{LEAD}{first}\n\nThe hook's output was: {shown}");
    if cut {
        text.push_str(&format!(
            "\n[latch cut the answer here: past {MAX_SHOWN} bytes written out]"
        ));
    }
    if with_schema {
        text.push_str("\n\nExpected schema:\n");
        text.push_str(&expected_schema());
    }
    text
}

/// The schema Claude Code's message shows (its `Ihn`): a summary of a few
/// events' shapes, not the schema it checks.
fn expected_schema() -> String {
    stringify_pretty(&json!({
        "continue": "boolean (optional)",
        "suppressOutput": "boolean (optional)",
        "stopReason": "string (optional)",
        "decision": "\"approve\" | \"block\" (optional)",
        "reason": "string (optional)",
        "systemMessage": "string (optional)",
        "terminalSequence": "string (optional)",
        "hookSpecificOutput": {
            "for PreToolUse": {
                "hookEventName": "\"PreToolUse\"",
                "permissionDecision": "\"allow\" | \"deny\" | \"ask\" | \"defer\" (optional)",
                "permissionDecisionReason": "string (optional)",
                "updatedInput": "object (optional) - Modified tool input to use"
            },
            "for PermissionRequest": {
                "hookEventName": "\"PermissionRequest\"",
                "decision": {
                    "to allow": {
                        "behavior": "\"allow\"",
                        "updatedInput": "object (optional) - Modified tool input to use",
                        "updatedPermissions": "array (optional) - Permission updates"
                    },
                    "to deny": {
                        "behavior": "\"deny\"",
                        "message": "string (optional)",
                        "interrupt": "boolean (optional)"
                    }
                }
            },
            "for UserPromptSubmit": {
                "hookEventName": "\"UserPromptSubmit\"",
                "additionalContext": "string (optional)"
            },
            "for PostToolUse": {
                "hookEventName": "\"PostToolUse\"",
                "additionalContext": "string (optional)"
            },
            "for PostToolBatch": {
                "hookEventName": "\"PostToolBatch\"",
                "additionalContext": "string (optional)"
            },
            "for Stop / SubagentStop": {
                "hookEventName": "\"Stop\" | \"SubagentStop\"",
                "additionalContext": "string (optional) - Feedback for the model; the conversation continues so the model can act on it"
            }
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deeply nested answer is shown cut, in bounded work: written out,
    /// each level indents every line below it.
    #[test]
    fn a_huge_answer_is_shown_cut() {
        let mut deep = serde_json::json!([1, 2, 3]);
        for _ in 0..400 {
            deep = serde_json::json!([deep.clone(), deep]);
            if deep.to_string().len() > 1 << 20 {
                break;
            }
        }
        let answer = serde_json::json!({"continue": null, "x": deep});
        let text = refusal_text("continue: expected boolean, received null", &answer, false);
        assert!(text.len() < MAX_SHOWN + 1_000, "{}", text.len());
        assert!(
            text.ends_with("\n[latch cut the answer here: past 65536 bytes written out]"),
            "the end: {:?}",
            &text[text.len().saturating_sub(100)..]
        );
    }

    fn first(v: Value) -> String {
        match check(&v) {
            Err(first) => first,
            Ok(()) => "valid".to_owned(),
        }
    }

    #[test]
    fn null_is_never_a_value() {
        assert_eq!(
            first(json!({"decision": "block", "reason": "R", "systemMessage": null})),
            "systemMessage: expected string, received null"
        );
        assert_eq!(
            first(
                json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": null}})
            ),
            "hookSpecificOutput.additionalContext: expected string, received null"
        );
        // `z.unknown()` takes null.
        assert_eq!(
            first(
                json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": null}})
            ),
            "valid"
        );
    }

    #[test]
    fn each_event_has_its_shape() {
        assert_eq!(
            first(
                json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "updatedInput": "str"}})
            ),
            "hookSpecificOutput.updatedInput: expected record, received string"
        );
        // No shape of that name: the first six names, then `…`.
        assert_eq!(
            first(json!({"hookSpecificOutput": {"hookEventName": "TaskCreated"}})),
            "hookSpecificOutput.hookEventName: expected one of \"PreToolUse\" | \"UserPromptSubmit\" | \"UserPromptExpansion\" | \"SessionStart\" | \"Setup\" | \"PreModelSwitch\" | \u{2026}"
        );
        assert_eq!(
            first(json!({"hookSpecificOutput": {"hookEventName": "WorktreeCreate"}})),
            "hookSpecificOutput.worktreePath: expected string, received undefined"
        );
        assert_eq!(
            first(json!({"continue": null, "hookSpecificOutput": {"additionalContext": "x"}})),
            "hookSpecificOutput is missing required field \"hookEventName\""
        );
        // Unknown keys are dropped, at both levels.
        assert_eq!(
            first(
                json!({"extra": null, "hookSpecificOutput": {"hookEventName": "Stop", "extra": 1}})
            ),
            "valid"
        );
    }

    #[test]
    fn claude_code_s_hints_for_foreseen_mistakes() {
        assert_eq!(
            first(json!({"decision": "ask"})),
            "decision: Invalid option: expected one of \"approve\"|\"block\" (top-level decision is the legacy approve|block field; for \"ask\" use hookSpecificOutput.permissionDecision in a PreToolUse hook)"
        );
        assert_eq!(
            first(json!({"decision": "allow"})),
            "decision: Invalid option: expected one of \"approve\"|\"block\" (top-level decision is the legacy approve|block field; for \"allow\" use hookSpecificOutput.permissionDecision in a PreToolUse hook, or hookSpecificOutput.decision: {\"behavior\": \"allow\"} in a PermissionRequest hook)"
        );
        // Another field is reported first: no hint.
        assert_eq!(
            first(json!({"continue": 1, "decision": "deny"})),
            "continue: expected boolean, received number"
        );
        assert_eq!(
            first(
                json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": "allow"}})
            ),
            "hookSpecificOutput.decision: expected object, received string (PermissionRequest decision must be {\"behavior\": \"allow\"} or {\"behavior\": \"deny\", \"message\": \"...\"})"
        );
    }

    #[test]
    fn the_text_shows_the_answer_and_the_schema() {
        // Recorded: `r13_null_post_ctx`, whose schema
        // `spec/expected_schema.txt` holds.
        let schema = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("recordings/claude-2.1.332/spec/expected_schema.txt"),
        )
        .expect("the recorded schema");
        let answer = json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": null}});
        let first = check(&answer).expect_err("refused");
        let shown = "{\n  \"hookSpecificOutput\": {\n    \"hookEventName\": \"PostToolUse\",\n    \"additionalContext\": null\n  }\n}";
        let http = format!(
            "Hook JSON output validation failed \u{2014} hookSpecificOutput.additionalContext: expected string, received null\n\nThe hook's output was: {shown}"
        );
        assert_eq!(refusal_text(&first, &answer, false), http);
        let text = refusal_text(&first, &answer, true);
        assert!(
            text == format!("{http}\n\nExpected schema:\n{schema}"),
            "the text differs from the recording's ({} bytes, {} recorded)",
            text.len(),
            http.len() + 18 + schema.len()
        );
    }

    /// Every answer of `recordings/claude-2.1.332/answer-cases.jsonl`
    /// (4,704, made by `export_answer_cases.js` with Claude Code 2.1.332's
    /// own schema and stdout reader): valid exactly when Claude Code's
    /// schema says so, and, for each of the 3,010 it refuses, the first
    /// line of its message exactly.
    #[test]
    fn answers_are_valid_exactly_when_claude_code_says_so() {
        let mut disagree = Vec::new();
        let (mut count, mut refused) = (0, 0);
        for case in crate::dialect::claude::recorded_cases("claude-2.1.332/answer-cases.jsonl") {
            if !case["answer"].is_object() {
                continue;
            }
            count += 1;
            let ours = check(&case["answer"])
                .err()
                .map(|first| format!("{LEAD}{first}"));
            let theirs = case["message"].as_str();
            refused += usize::from(theirs.is_some());
            if ours.as_deref() != theirs {
                disagree.push(format!(
                    "{}: Claude Code {theirs:?}, latch {ours:?}",
                    case["answer"]
                ));
            }
        }
        assert_eq!((count, refused), (4704, 3010));
        assert!(
            disagree.is_empty(),
            "{} disagree:\n{}",
            disagree.len(),
            disagree
                .iter()
                .take(30)
                .map(|d| crate::text::summary(d, 400))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }

    #[test]
    fn permission_request_decisions() {
        let ok = |d: Value| {
            check(&json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": d}})).is_ok()
        };
        assert!(ok(
            json!({"behavior": "deny", "message": "m", "interrupt": true})
        ));
        assert!(ok(json!({"behavior": "allow", "updatedPermissions": [
            {"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "ls"}], "behavior": "allow", "destination": "session"},
            {"type": "setMode", "mode": "plan", "destination": "session"},
            {"type": "addDirectories", "directories": ["/x"], "destination": "localSettings"}]})));
        assert!(!ok(json!({"behavior": "maybe"})));
        assert!(!ok(json!({"behavior": "deny", "message": null})));
        assert!(!ok(
            json!({"behavior": "allow", "updatedPermissions": [{"type": "setMode", "mode": "yolo", "destination": "session"}]})
        ));
        assert!(!ok(
            json!({"behavior": "allow", "updatedPermissions": [{"type": "addRules", "rules": [{}], "behavior": "allow", "destination": "session"}]})
        ));
    }
}
