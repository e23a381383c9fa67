//! Peen's strict loading, through the real binary.

use serde_json::json;

use crate::peen_util::Layers;

const DENY_ALL: &str =
    "version: 1\npreToolUse:\n  - actions:\n      - type: deny\n        reason: no\n";

fn skipped(yaml: &str, expected: &str) {
    let l = Layers::new().workspace_hooks(yaml);
    let f = l.fire(&l.tool("tool_before", "readFile", json!({"path": "a"})));
    assert_eq!(f.code, 0);
    let file = l.ws().join(".agents/hooks.yaml");
    assert!(
        f.stderr.contains(&format!("{}:", file.display()))
            && f.stderr
                .contains("warning: harness.warning: hooks file skipped: "),
        "{}",
        f.stderr
    );
    assert!(
        f.stderr.contains(expected),
        "expected {expected:?} in:\n{}",
        f.stderr
    );
    assert_eq!(
        f.outcome["decision"], "proceed",
        "every hook of a skipped file stops applying, denies included"
    );
}

#[test]
fn a_valid_file_denies() {
    let l = Layers::new().workspace_hooks(DENY_ALL);
    let f = l.fire(&l.tool("tool_before", "readFile", json!({"path": "a"})));
    assert_eq!(f.outcome["decision"], "deny", "{}", f.stderr);
    assert_eq!(f.reasons(), ["no"]);
    assert_eq!(
        f.runs()[0]["hook"],
        "preToolUse-1/deny-1",
        "default names count from 1"
    );
}

#[test]
fn whole_file_invalid_for_each_documented_reason() {
    let cases = [
        (
            "preToolUse:\n  - actions: [{type: deny, reason: x}]\n",
            "`version: 1` is required",
        ),
        ("version: 2\n", "`version` must be 1, found 2"),
        (
            "version: 1\npreToolUse:\n  - actions: [{type: deny, reason: x, colour: red}]\n",
            ":3:39: warning: harness.warning: hooks file skipped: unknown field `colour` in an action",
        ),
        (
            "version: 1\npreToolUze: []\n",
            "unknown hook event `preToolUze` (did you mean `preToolUse`?)",
        ),
        (
            "version: 1\npreToolUse:\n  - actions: []\n",
            "has an empty `actions` list",
        ),
        (
            "version: 1\npreToolUse:\n  - match: {input: {/a: {regex: \"(\"}}}\n    actions: [{type: deny, reason: x}]\n",
            "invalid regular expression \"(\"",
        ),
        (
            "version: 1\npreToolUse:\n  - match: {path: \"a[\"}\n    actions: [{type: deny, reason: x}]\n",
            "invalid glob \"a[\"",
        ),
        (
            "version: 1\npostToolUse:\n  - actions: [{type: emitEvent, eventType: job.done}]\n",
            "reserved for peen (job. or agent.)",
        ),
        (
            "version: 1\npostToolUse:\n  - actions: [{type: emitEvent, eventType: agent.x}]\n",
            "reserved for peen (job. or agent.)",
        ),
        (
            "version: 1\npostToolUse:\n  - actions: [{type: emitEvent, eventType: Repo.X}]\n",
            "must start with a lowercase letter",
        ),
        ("version: 1\n---\nversion: 1\n", "invalid YAML"),
        (
            "version: 1\npostToolUse:\n  - actions: [{type: command, command: x, timeout: 5}]\n",
            "missing unit in duration \"5\"",
        ),
        (
            "version: 1\npostToolUse:\n  - actions: [{type: command, command: x, timeout: 0s}]\n",
            "`timeout` must be positive",
        ),
        (
            "version: 1\npostToolUse:\n  - actions: [{type: command, command: x, timeout: -1s}]\n",
            "`timeout` must be positive",
        ),
        (
            "version: 1\npostToolUse:\n  - actions: [{type: command, command: x, timeout: 1d}]\n",
            "unknown unit \"d\"",
        ),
        (
            "version: 1\npostToolUse:\n  - actions: [{type: inject, message: a, messageFile: b.md}]\n",
            "sets both `message` and `messageFile`",
        ),
        (
            "version: 1\npostToolUse:\n  - actions: [{type: inject}]\n",
            "needs `message` or `messageFile`",
        ),
        (
            "version: 1\npostToolUse:\n  - actions: [{type: inject, messageFile: missing.md}]\n",
            "cannot be read",
        ),
        (
            "version: 1\npostToolUse:\n  - match: {input: {/a: {equals: null}}}\n    actions: [{type: deny, reason: x}]\n",
            "has no check (`equals: null` is none)",
        ),
        (
            "version: 1\npreToolUse:\n  - actions: [{type: deny}]\n",
            "needs a `reason`",
        ),
        (
            "version: 1\npreToolUse:\n  - actions: [{type: block, reason: x}]\n",
            "unknown action type `block`",
        ),
        (
            "version: 1\npreToolUse:\n  - match: {extensions: [go]}\n    actions: [{type: deny, reason: x}]\n",
            "each extension must start with \".\"",
        ),
        (
            "version: 1\npostToolUse:\n  - actions: [{type: command, command: x, args: [{a: 1}]}]\n",
            "each of `args` must be a string, found a mapping",
        ),
        (
            "version: 1\npostToolUse:\n  - actions: [{type: command, command: x, environment: {A: [1]}}]\n",
            "`environment.A` must be a string, found a list",
        ),
        (
            "version: 1\npostToolUse:\n  - actions: [{type: inject, messageFile: /dev/zero}]\n",
            "it is not a regular file",
        ),
    ];
    for (yaml, expected) in cases {
        skipped(yaml, expected);
    }
}

#[test]
fn an_empty_message_file_is_invalid() {
    let l = Layers::new();
    l.write(".agents/empty.md", "  \n");
    let l = l.workspace_hooks(
        "version: 1\npostToolUse:\n  - actions: [{type: inject, messageFile: empty.md}]\n",
    );
    let f = l.fire(&l.tool("tool_after", "readFile", json!({"path": "a"})));
    assert!(f.stderr.contains("is empty"), "{}", f.stderr);
}

#[test]
fn every_problem_of_a_file_is_reported_at_once() {
    let l =
        Layers::new().workspace_hooks("version: 3\npreToolUze: []\npreToolUse:\n  - actions: []\n");
    let f = l.fire(&l.tool("tool_before", "readFile", json!({})));
    assert_eq!(
        f.stderr.matches("hooks file skipped").count(),
        3,
        "{}",
        f.stderr
    );
}

#[test]
fn a_field_of_another_action_type_is_accepted_and_ignored() {
    let l = Layers::new().workspace_hooks("version: 1\npreToolUse:\n  - actions:\n      - {type: deny, reason: no, message: ignored, command: x}\n");
    let f = l.fire(&l.tool("tool_before", "readFile", json!({})));
    assert_eq!(f.stderr, "");
    assert_eq!(f.reasons(), ["no"]);
    assert!(f.outcome.get("context").is_none());
}

#[test]
fn an_invalid_layer_is_skipped_and_the_others_kept_in_layer_order() {
    let l = Layers::new()
        .config_hooks("version: 1\npreToolUse:\n  - name: trusted\n    actions:\n      - {type: inject, message: from config}\n")
        .workspace_hooks("version: 1\npreToolUse:\n  - name: project\n    actions:\n      - {type: inject, message: from workspace}\n");
    let f = l.fire(&l.tool("tool_before", "readFile", json!({})));
    assert_eq!(f.outcome["context"][0]["hook"], "trusted, project");
    assert!(
        f.outcome["context"][0]["text"]
            .as_str()
            .unwrap()
            .contains("from config\n\nfrom workspace")
    );
    let l = l.workspace_hooks("version: 1\nbogus: 1\n");
    let f = l.fire(&l.tool("tool_before", "readFile", json!({})));
    assert_eq!(f.outcome["context"][0]["hook"], "trusted");
}

#[test]
fn anchors_and_aliases_work() {
    let l = Layers::new().workspace_hooks(
        "version: 1\npreReadFile:\n  - actions:\n      - &d {name: shared, type: deny, reason: anchored}\npreWriteFile:\n  - actions: [*d]\n",
    );
    let f = l.fire(&l.tool("tool_before", "writeFile", json!({"path": "x"})));
    assert_eq!(f.reasons(), ["anchored"]);
    assert_eq!(f.runs()[0]["hook"], "preWriteFile-1/shared");
}

#[test]
fn more_than_256_groups_fail_every_turn() {
    let mut yaml = "version: 1\nturnStart:\n".to_owned();
    for _ in 0..257 {
        yaml.push_str("  - actions: [{type: inject, message: x}]\n");
    }
    let l = Layers::new().workspace_hooks(&yaml);
    let f = l.fire(&json!({"event": "turn_start", "cwd": l.ws()}));
    assert_eq!(f.outcome["decision"], "deny");
    assert!(
        f.reasons()[0].contains("257 hook groups across all layers, more than the limit of 256")
    );
    assert!(
        f.stderr
            .contains("every turn fails until groups are removed")
    );
}
