//! Hook output that `JSON.parse` and Go's decoder read but `serde_json`
//! refuses by default: nesting deeper than 128 levels and lone surrogate
//! escapes. In every dialect the deny in such an answer is honoured; a
//! field nested past latch's limit (500 levels) is left out with a
//! warning, and the deny beside it still counts.

use serde_json::{Value, json};

use crate::claude_util::{Claude, bash_before, settings};
use crate::evener_util::{Plugins, pre};
use crate::peen_util::Layers;
use crate::util::{Fired, Project};

/// `n` nested arrays.
fn nested(n: usize) -> String {
    format!("{}{}", "[".repeat(n), "]".repeat(n))
}

/// The three answers each dialect must read as a deny, with the reason
/// each gives: `deny_fields` is the dialect's own deny, as JSON members
/// without braces, and `reason` its reason member's name.
fn answers(deny_fields: &str, reason: &str) -> Vec<(String, &'static str)> {
    vec![
        (
            format!(r#"{{{deny_fields},"{reason}":"deep","x":{}}}"#, nested(200)),
            "deep",
        ),
        (
            format!(r#"{{{deny_fields},"{reason}":"bad \ud800 half"}}"#),
            "bad \u{fffd} half",
        ),
        (
            format!(
                r#"{{{deny_fields},"{reason}":"too deep","x":{}}}"#,
                nested(1100)
            ),
            "too deep",
        ),
    ]
}

/// Checks one fired answer: denied with `reason`, and for the too-deep
/// answer a warning and a run record that name the field left out.
fn assert_denied(f: &Fired, reason: &str, warnings: &[String]) {
    assert_eq!(f.outcome["decision"], "deny", "{reason}: {}", f.outcome);
    assert!(
        f.reasons().iter().any(|r| r.contains(reason)),
        "{reason}: {:?}",
        f.reasons()
    );
    if reason == "too deep" {
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("nested deeper than 500 levels; latch ignored `x`")),
            "{warnings:?}"
        );
        assert!(
            f.runs()[0]["ignored_fields"]
                .as_array()
                .is_some_and(|a| a.contains(&json!("x (nested deeper than 500 levels)"))),
            "{}",
            f.outcome
        );
    }
}

fn warnings(f: &Fired) -> Vec<String> {
    f.outcome["warnings"]
        .as_array()
        .map(|w| {
            w.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn claude_reads_deep_and_surrogate_json_as_node_does() {
    for (text, reason) in answers(r#""decision":"block""#, "reason") {
        let c = Claude::new();
        let file = c.write("answer.json", &text);
        let c = c.project_settings(&settings(
            "PreToolUse",
            Some("Bash"),
            &[&format!("cat {}", file.display())],
        ));
        let f = c.fire(&bash_before("ls"));
        assert_denied(&f, reason, &warnings(&f));
    }
}

#[test]
fn evener_reads_deep_and_surrogate_json_as_go_does() {
    for (text, reason) in answers(
        r#""hookSpecificOutput":{"permissionDecision":"deny"}"#,
        "reason",
    ) {
        // Evener reads the reason from permissionDecisionReason; the
        // top-level one stands beside it, so put it there too.
        let text = text.replace(
            r#""permissionDecision":"deny"}"#,
            &format!(r#""permissionDecision":"deny","permissionDecisionReason":"{reason}"}}"#),
        );
        let p = Plugins::new();
        let file = p.write("answer.json", text.as_bytes());
        let p = p.command(
            "p",
            "PreToolUse",
            "*",
            &format!("cat > /dev/null; cat {}", file.display()),
        );
        let f = p.fire(&pre("shell", json!({})));
        assert_denied(&f, reason, &warnings(&f));
    }
}

#[test]
fn poolside_reads_deep_and_surrogate_json() {
    for (text, reason) in answers(r#""decision":"block""#, "reason") {
        let p = Project::new();
        let file = p.dir().join("answer.json");
        std::fs::write(&file, &text).unwrap();
        let p = p.settings(&format!(
            "hooks:\n  PreToolUse:\n    - {{name: h, command: 'cat {}'}}\n",
            file.display()
        ));
        let f = p.fire(&json!({"event": "tool_before", "tool": {"name": "shell", "input": {}}}));
        assert_denied(&f, reason, &warnings(&f));
    }
}

#[test]
fn peen_reads_deep_and_surrogate_json_as_go_does() {
    // peen's output allows only decision, reason, message and events: the
    // deep value goes in `events`, which is left out whole when too deep.
    for (text, reason) in answers(r#""decision":"deny""#, "reason") {
        let text = text.replace(r#""x":"#, r#""events":"#).replace(
            &format!(r#""events":{}"#, nested(200)),
            &format!(
                r#""events":[{{"type":"hook.checked","summary":"s","data":{{"d":{}}}}}]"#,
                nested(200)
            ),
        );
        let l = Layers::new();
        l.write("answer.json", &text);
        l.script("hook.sh", "#!/bin/sh\ncat answer.json\n");
        let l = l.workspace_hooks(
            "version: 1\npreWriteFile:\n  - name: g\n    actions:\n      - {name: c, type: command, command: ./hook.sh}\n",
        );
        let f = l.fire(&l.tool(
            "tool_before",
            "writeFile",
            json!({"path": "src/a.go", "content": "x"}),
        ));
        let expected = if reason == "too deep" {
            // The field is `events` here.
            assert!(
                warnings(&f)
                    .iter()
                    .any(|w| w.contains("latch ignored `events`")),
                "{:?}",
                warnings(&f)
            );
            "too deep"
        } else {
            reason
        };
        assert_eq!(
            f.outcome["decision"], "deny",
            "{reason}: {} {}",
            f.outcome, f.stderr
        );
        assert!(
            f.reasons().iter().any(|r| r.contains(expected)),
            "{:?}",
            f.reasons()
        );
    }
}
