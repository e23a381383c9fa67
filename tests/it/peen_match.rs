//! Peen's `match` and `when`, through the real binary.

use serde_json::{Value, json};

use crate::peen_util::Layers;

/// A workspace whose preToolUse group with `match` denies.
fn guarded(matcher: &str) -> Layers {
    Layers::new().workspace_hooks(&format!(
        "version: 1\npreToolUse:\n  - match: {matcher}\n    actions: [{{type: deny, reason: matched}}]\n"
    ))
}

fn denies(l: &Layers, tool: &str, input: Value) -> bool {
    let f = l.fire(&l.tool("tool_before", tool, input));
    assert_eq!(f.stderr, "", "no load problems expected");
    f.outcome["decision"] == "deny"
}

#[test]
fn tool_is_exact() {
    let l = guarded("{tool: runCommand}");
    assert!(denies(&l, "runCommand", json!({})));
    assert!(!denies(&l, "run_command", json!({})));
    assert!(!denies(&l, "runCommandX", json!({})));
}

#[test]
fn path_globs_relative_to_the_current_directory() {
    let cases = [
        ("\"*.go\"", "main.go", true),
        ("\"*.go\"", "pkg/main.go", false),
        ("\"**/*.go\"", "pkg/a/main.go", true),
        ("\"a?.md\"", "ab.md", true),
        ("\"[a-c].txt\"", "b.txt", true),
        ("\"[a-c].txt\"", "d.txt", false),
        ("\"{src,lib}/*.rs\"", "lib/x.rs", true),
        ("\"\\\\*.md\"", "*.md", true),
        ("\"\\\\*.md\"", "a.md", false),
    ];
    for (glob, path, want) in cases {
        let l = guarded(&format!("{{path: {glob}}}"));
        assert_eq!(
            denies(&l, "writeFile", json!({"path": path})),
            want,
            "{glob} vs {path}"
        );
    }
}

#[test]
fn only_paths_inside_the_base_match_and_root_slash_matches_anywhere() {
    let l = guarded("{extensions: [\".go\"]}");
    assert!(denies(&l, "writeFile", json!({"path": "a.go"})));
    assert!(
        !denies(&l, "writeFile", json!({"path": "/tmp/x.go"})),
        "outside the current directory"
    );
    assert!(!denies(&l, "writeFile", json!({"path": "../x.go"})));
    let l = guarded("{root: /, extensions: [\".go\"]}");
    assert!(denies(&l, "writeFile", json!({"path": "/tmp/x.go"})));
    let l = guarded("{root: sub, path: \"*.go\"}");
    assert!(denies(&l, "writeFile", json!({"path": "sub/x.go"})));
    assert!(!denies(&l, "writeFile", json!({"path": "x.go"})));
}

#[test]
fn extensions_are_the_last_dot_suffix() {
    let l = guarded("{extensions: [\".go\", \".md\"]}");
    assert!(denies(&l, "editFile", json!({"path": "x_test.go"})));
    assert!(!denies(&l, "editFile", json!({"path": "Makefile"})));
    let l = guarded("{extensions: [\"_test.go\"]}");
    let f = l.fire(&l.tool("tool_before", "editFile", json!({"path": "x_test.go"})));
    assert!(
        f.stderr.contains("each extension must start with"),
        "{}",
        f.stderr
    );
}

#[test]
fn affected_paths_of_move_patch_and_commands() {
    let l = guarded("{path: \"db/*.sql\"}");
    assert!(denies(
        &l,
        "movePath",
        json!({"source": "a.txt", "destination": "db/a.sql"})
    ));
    assert!(denies(
        &l,
        "applyPatch",
        json!({"patch": "*** Begin Patch\n*** Update File: db/b.sql\n*** End Patch"})
    ));
    assert!(denies(
        &l,
        "runCommand",
        json!({"command": "ls", "directory": "db/x.sql"})
    ));
    assert!(
        !denies(&l, "runCommand", json!({"command": "cat db/x.sql"})),
        "runCommand has a path only with directory"
    );
}

#[test]
fn lifecycle_events_have_no_paths_but_input_works() {
    let l = Layers::new().workspace_hooks(
        "version: 1\npreUserMessage:\n  - match: {path: \"**\"}\n    actions: [{type: deny, reason: path}]\n  - match: {input: {/message: {regex: secret}}}\n    actions: [{type: deny, reason: input}]\n",
    );
    let f = l.fire(&json!({"event": "user_prompt", "cwd": l.ws(), "prompt": "my secret plan"}));
    assert_eq!(f.reasons(), ["input"]);
}

#[test]
fn input_checks() {
    let l = guarded("{input: {/command: {regex: \"git push .*--force\"}}}");
    assert!(denies(
        &l,
        "runCommand",
        json!({"command": "git push origin --force"})
    ));
    assert!(!denies(
        &l,
        "runCommand",
        json!({"command": "git push origin"})
    ));
    let l = guarded("{input: {/timeout: {equals: 5}}}");
    assert!(denies(&l, "runCommand", json!({"timeout": 5})));
    assert!(!denies(&l, "runCommand", json!({"timeout": "5"})));
    let l = guarded("{input: {/purpose: {exists: false}}}");
    assert!(denies(&l, "runCommand", json!({"command": "x"})));
    assert!(!denies(&l, "runCommand", json!({"purpose": "y"})));
    let l = guarded("{input: {/opts: {regex: \"^map\\\\[a:1 b:x\\\\]$\"}}}");
    assert!(
        denies(&l, "runCommand", json!({"opts": {"b": "x", "a": 1}})),
        "objects format as Go prints them"
    );
    let l = guarded("{input: {/n: {regex: \"^1e\\\\+21$\"}}}");
    assert!(denies(&l, "runCommand", json!({"n": 1e21})));
    let l = guarded("{input: {/paths/0: {exists: true}}}");
    assert!(
        !denies(&l, "runCommand", json!({"paths": ["a"]})),
        "pointers walk objects only"
    );
}

#[test]
fn group_match_and_action_when_both_apply() {
    let l = Layers::new().workspace_hooks(
        "version: 1\npreToolUse:\n  - match: {tool: runCommand}\n    actions:\n      - {type: deny, reason: npm, when: {input: {/command: {regex: ^npm}}}}\n      - {type: inject, message: ran}\n",
    );
    let f = l.fire(&l.tool("tool_before", "runCommand", json!({"command": "make"})));
    assert_eq!(f.outcome["decision"], "proceed");
    assert_eq!(f.runs().len(), 1, "the deny's when did not match");
    let f = l.fire(&l.tool("tool_before", "runCommand", json!({"command": "npm i"})));
    assert_eq!(f.reasons(), ["npm"]);
    let f = l.fire(&l.tool("tool_before", "readFile", json!({})));
    assert!(f.runs().is_empty(), "the group's match did not match");
}
