//! Checking an outcome against a case's `expect` mapping.

use serde_json::Value;

use crate::matcher::compile_regex;

/// The keys an `expect` mapping may have.
pub const KEYS: &[&str] = &[
    "decision",
    "reason",
    "reason_matches",
    "tool_input",
    "tool_output",
    "prompt",
    "continuation",
    "context",
    "notices",
    "events",
    "runs",
    "warnings",
    "halt",
    "shell_env",
    "retry",
    "watch_paths",
    "worktree_path",
    "elicitation",
    "display",
    "session_title",
    "initial_user_message",
    "reload_skills",
    "terminal_sequences",
];

/// Every expectation of `expect` that `outcome` does not meet, in words.
///
/// Keys: `decision`, `reason` (every deny reason's text, joined with a
/// newline, compared exactly), `reason_matches` (a regex on that text),
/// `tool_input`, `tool_output`, `prompt`, `continuation` (the prompt),
/// `context` and `notices` (the list of texts, exactly), `events` and
/// `runs` (lists of objects, each compared as a subset of the actual one,
/// in order), `warnings` (exactly), `halt` (`true`/`false` for whether the
/// agent loop ends, or the halt's reason), `retry` and `reload_skills`
/// (`true`/`false`), and `shell_env`, `watch_paths`, `worktree_path`,
/// `elicitation`, `display`, `session_title`, `initial_user_message` and
/// `terminal_sequences` (the outcome's field, exactly).
pub fn check(expect: &Value, outcome: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let Some(expect) = expect.as_object() else {
        if !expect.is_null() {
            out.push("expect: must be a mapping".to_owned());
        }
        return out;
    };
    let texts = |key: &str, field: &str| -> Value {
        Value::Array(
            outcome[key]
                .as_array()
                .map(|a| a.iter().map(|v| v[field].clone()).collect())
                .unwrap_or_default(),
        )
    };
    let reasons = outcome["reasons"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|r| r["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default();
    for (key, want) in expect {
        let got = match key.as_str() {
            "decision" | "tool_input" | "tool_output" | "prompt" => outcome[key.as_str()].clone(),
            "reason" => Value::String(reasons.clone()),
            "continuation" => outcome["continuation"]["prompt"].clone(),
            "halt" if want.is_boolean() => Value::Bool(!outcome["halt"].is_null()),
            "halt" => outcome["halt"]["reason"].clone(),
            "retry" | "reload_skills" => Value::Bool(outcome[key.as_str()] == Value::Bool(true)),
            "shell_env"
            | "watch_paths"
            | "worktree_path"
            | "elicitation"
            | "display"
            | "session_title"
            | "initial_user_message"
            | "terminal_sequences" => outcome[key.as_str()].clone(),
            "context" => texts("context", "text"),
            "notices" => texts("notices", "text"),
            "warnings" => outcome["warnings"].clone(),
            "reason_matches" => {
                // The pattern comes from a file: checked within latch's
                // pattern limits like every configuration regex.
                match want.as_str().map(compile_regex) {
                    Some(Ok(re)) if re.is_match(&reasons) => {}
                    Some(Ok(re)) => out.push(format!(
                        "reason_matches: `{}` does not match {reasons:?}",
                        re.as_str()
                    )),
                    Some(Err(e)) => out.push(format!("reason_matches: must be a valid regex: {e}")),
                    None => out.push("reason_matches: must be a valid regex".to_owned()),
                }
                continue;
            }
            "events" | "runs" => {
                let got = outcome[key.as_str()]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                let Some(want) = want.as_array().cloned() else {
                    out.push(format!("{key}: must be a list"));
                    continue;
                };
                if got.len() != want.len() {
                    out.push(format!(
                        "{key}: expected {} entries, got {}: {}",
                        want.len(),
                        got.len(),
                        Value::Array(got)
                    ));
                    continue;
                }
                for (i, (w, g)) in want.iter().zip(&got).enumerate() {
                    if !subset(w, g) {
                        out.push(format!("{key}[{i}]: expected {w} (as a subset), got {g}"));
                    }
                }
                continue;
            }
            other => {
                out.push(format!("{other}: not an expectation (see docs/testing.md)"));
                continue;
            }
        };
        let got = if got.is_null() && key == "decision" {
            Value::from("proceed")
        } else {
            got
        };
        if !equal(want, &got) {
            out.push(format!("{key}: expected {want}, got {got}"));
        }
    }
    out
}

/// Equality where an expected empty list also matches a missing field.
fn equal(want: &Value, got: &Value) -> bool {
    match (want, got) {
        (Value::Array(w), Value::Null) => w.is_empty(),
        _ => want == got,
    }
}

/// Whether every key of `want` is in `got` with a matching value.
fn subset(want: &Value, got: &Value) -> bool {
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => w
            .iter()
            .all(|(k, v)| g.get(k).is_some_and(|gv| subset(v, gv))),
        _ => want == got,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reports_each_unmet_expectation() {
        let outcome = json!({"decision": "deny", "reasons": [{"hook": "a", "text": "no"}],
            "runs": [{"hook": "a", "status": "blocked", "duration_ms": 1.0}]});
        assert!(check(&json!({"decision": "deny", "reason": "no", "runs": [{"hook": "a", "status": "blocked"}]}), &outcome).is_empty());
        let f = check(
            &json!({"decision": "proceed", "reason_matches": "^yes", "runs": [], "bogus": 1}),
            &outcome,
        );
        assert_eq!(f.len(), 4, "{f:?}");
        let halted = json!({"decision": "proceed", "halt": {"hooks": ["a"], "reason": "R"},
            "watch_paths": ["/w/x"]});
        assert!(
            check(
                &json!({"halt": true, "retry": false, "watch_paths": ["/w/x"]}),
                &halted
            )
            .is_empty()
        );
        assert!(check(&json!({"halt": "R"}), &halted).is_empty());
        assert_eq!(
            check(&json!({"halt": false, "display": "x"}), &halted).len(),
            2
        );
        assert!(f[0].starts_with("decision: expected \"proceed\", got \"deny\""));
    }

    #[test]
    fn every_listed_key_is_an_expectation_and_no_other() {
        let outcome = json!({"decision": "proceed"});
        for key in KEYS {
            let f = check(&json!({ *key: null }), &outcome);
            assert!(
                !f.iter().any(|m| m.contains("not an expectation")),
                "{key}: {f:?}"
            );
        }
        let f = check(&json!({"bogus": null}), &outcome);
        assert!(f[0].contains("not an expectation"), "{f:?}");
    }
}
