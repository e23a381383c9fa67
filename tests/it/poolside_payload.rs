//! What a poolside hook reads on stdin.

use serde_json::{Value, json};

use crate::util::Project;

fn keys(v: &Value) -> Vec<String> {
    v.as_object().unwrap().keys().cloned().collect()
}

fn project_with(event: &str, ids: &[&str]) -> Project {
    let p = Project::new();
    let mut yaml = format!("hooks:\n  {event}:\n");
    for id in ids {
        yaml.push_str(&format!("    - command: {:?}\n", p.hook(id, b"", b"", 0)));
    }
    p.settings(&yaml)
}

#[test]
fn pre_tool_use_payload_has_the_envelope_and_tool_fields_in_snake_case() {
    let p = project_with("PreToolUse", &["a"]);
    let cwd = p.dir();
    p.fire(&json!({
        "event": "tool_before", "session_id": "sess-1", "cwd": cwd,
        "transcript_path": "/tmp/t.ndjson",
        "tool": {"name": "shell", "input": {"cmd": "sudo make install"}, "call_id": "call_abc"}
    }));
    let got = p.received("a").expect("hook ran");
    assert_eq!(
        keys(&got),
        [
            "hook_api_version",
            "hook_event_name",
            "event_id",
            "session_id",
            "cwd",
            "trajectory_path",
            "tool_name",
            "tool_input",
            "tool_call_id"
        ]
    );
    assert_eq!(got["hook_api_version"], "1.0");
    assert_eq!(got["hook_event_name"], "PreToolUse");
    assert_eq!(got["session_id"], "sess-1");
    assert_eq!(got["cwd"], json!(cwd));
    assert_eq!(got["trajectory_path"], "/tmp/t.ndjson");
    assert_eq!(got["tool_name"], "shell");
    assert_eq!(got["tool_input"], json!({"cmd": "sudo make install"}));
    assert_eq!(got["tool_call_id"], "call_abc");
}

#[test]
fn unknown_envelope_fields_are_left_out() {
    let p = project_with("SessionStart", &["a"]);
    p.fire(&json!({"event": "session_start", "source": "resume"}));
    let got = p.received("a").unwrap();
    assert_eq!(
        keys(&got),
        ["hook_api_version", "hook_event_name", "event_id", "source"]
    );
    assert_eq!(got["source"], "resume");
}

#[test]
fn every_hook_of_one_event_shares_the_event_id_and_the_next_event_gets_a_new_one() {
    let p = project_with("PreToolUse", &["a", "b"]);
    let ev = json!({"event": "tool_before", "tool": {"name": "shell", "input": {}}});
    p.fire(&ev);
    let (a, b) = (p.received("a").unwrap(), p.received("b").unwrap());
    assert_eq!(a["event_id"], b["event_id"]);
    assert!(a["event_id"].as_str().unwrap().starts_with("evt-"));
    p.fire(&ev);
    assert_ne!(p.received("a").unwrap()["event_id"], a["event_id"]);
}

#[test]
fn a_given_event_id_is_used() {
    let p = project_with("Stop", &["a"]);
    p.fire(&json!({"event": "stop", "id": "evt-42", "reason": "end_turn"}));
    let got = p.received("a").unwrap();
    assert_eq!(got["event_id"], "evt-42");
    assert_eq!(got["reason"], "end_turn");
}

#[test]
fn pre_and_post_of_one_call_share_tool_call_id_not_event_id() {
    let p = Project::new();
    let yaml = format!(
        "hooks:\n  PreToolUse:\n    - command: {:?}\n  PostToolUse:\n    - command: {:?}\n",
        p.hook("pre", b"", b"", 0),
        p.hook("post", b"", b"", 0)
    );
    let p = p.settings(&yaml);
    p.fire(&json!({"event": "tool_before", "tool": {"name": "read", "input": {"path": "a"}, "call_id": "c1"}}));
    p.fire(&json!({"event": "tool_after", "tool": {"name": "read", "input": {"path": "a"}, "call_id": "c1", "output": "text"}}));
    let (pre, post) = (p.received("pre").unwrap(), p.received("post").unwrap());
    assert_eq!(pre["tool_call_id"], "c1");
    assert_eq!(post["tool_call_id"], "c1");
    assert_ne!(pre["event_id"], post["event_id"]);
    assert_eq!(post["tool_output"], "text");
    assert_eq!(
        keys(&post)[3..],
        ["tool_name", "tool_input", "tool_output", "tool_call_id"]
    );
}

#[test]
fn a_failed_tool_fires_post_tool_use_with_the_error_as_output() {
    let p = project_with("PostToolUse", &["a"]);
    p.fire(&json!({"event": "tool_failure", "tool": {"name": "shell", "input": {}, "error": "exit 1"}}));
    assert_eq!(p.received("a").unwrap()["tool_output"], "exit 1");
}

#[test]
fn user_prompt_submit_and_pre_compact_fields() {
    let p = project_with("UserPromptSubmit", &["a"]);
    p.fire(&json!({"event": "user_prompt", "prompt": "hello"}));
    assert_eq!(p.received("a").unwrap()["prompt"], "hello");

    let p = project_with("PreCompact", &["a"]);
    p.fire(&json!({"event": "compact_before", "trigger": "auto"}));
    assert_eq!(p.received("a").unwrap()["trigger"], "auto");
}

#[test]
fn events_poolside_does_not_have_run_no_hooks() {
    let p = project_with("PreToolUse", &["a"]);
    let f = p.fire(&json!({"event": "turn_start"}));
    assert_eq!(f.code, 0);
    assert!(f.runs().is_empty());
    assert!(p.received("a").is_none());
}

#[test]
fn hooks_run_in_the_event_cwd_else_the_project() {
    let p = Project::new();
    let other = tempfile::tempdir().unwrap();
    let yaml = format!(
        "hooks:\n  Stop:\n    - command: 'pwd > {}/pwd'\n",
        p.dir().display()
    );
    let p = p.settings(&yaml);
    p.fire(&json!({"event": "stop"}));
    let pwd = std::fs::read_to_string(p.dir().join("pwd")).unwrap();
    assert_eq!(
        pwd.trim(),
        p.dir().canonicalize().unwrap().to_str().unwrap()
    );
    p.fire(&json!({"event": "stop", "cwd": other.path()}));
    let pwd = std::fs::read_to_string(p.dir().join("pwd")).unwrap();
    assert_eq!(
        pwd.trim(),
        other.path().canonicalize().unwrap().to_str().unwrap()
    );
}
