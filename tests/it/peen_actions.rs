//! Peen actions, failures and deny effects, through the real binary.

use serde_json::{Value, json};

use crate::peen_util::Layers;

fn lifecycle(l: &Layers, kind: &str) -> Value {
    json!({"event": kind, "session_id": "s1", "turn_id": "t1", "cwd": l.ws(), "prompt": "hi", "model": "zai/glm-5.3"})
}

#[test]
fn inject_renders_one_hook_block_per_event_with_escaped_values() {
    let l = Layers::new().workspace_hooks(
        "version: 1\npostToolUse:\n  - actions:\n      - {type: inject, message: Run make test before you report this as done.}\n      - {type: inject, message: \"second <kept> & as written\"}\n",
    );
    let f = l.fire(&l.tool("tool_after", "run<Command>", json!({"command": "make"})));
    assert_eq!(
        f.outcome["context"],
        json!([{"hook": "postToolUse-1, postToolUse-1", "placement": "after_tool_result",
            "text": "<hook>\n<event>postToolUse</event>\n<tool>run&lt;Command&gt;</tool>\n\nRun make test before you report this as done.\n\nsecond <kept> & as written\n</hook>"}])
    );
}

#[test]
fn inject_lands_in_the_system_prompt_on_opening_events_and_is_dropped_after() {
    let l = Layers::new().workspace_hooks(
        "version: 1\nturnStart:\n  - actions: [{type: inject, message: remind}]\nturnStop:\n  - actions: [{type: inject, message: late}]\n",
    );
    let f = l.fire(&lifecycle(&l, "turn_start"));
    assert_eq!(f.outcome["context"][0]["placement"], "system_prompt");
    assert_eq!(
        f.outcome["context"][0]["text"],
        "<hook>\n<event>turnStart</event>\n\nremind\n</hook>"
    );
    let f = l.fire(&lifecycle(&l, "stop"));
    assert!(f.outcome.get("context").is_none());
    assert!(f.warnings_contain("injections on turnStop are dropped"));
}

#[test]
fn message_file_is_relative_to_the_hooks_file_and_read_at_load() {
    let l = Layers::new();
    l.write(".agents/messages/go.md", "Go standards.\n");
    let l = l.workspace_hooks(
        "version: 1\nsessionStart:\n  - actions: [{type: inject, messageFile: messages/go.md}]\n",
    );
    let f = l.fire(&json!({"event": "session_start", "cwd": l.ws(), "source": "startup"}));
    assert_eq!(
        f.outcome["context"][0]["text"],
        "<hook>\n<event>sessionStart</event>\n\nGo standards.\n</hook>"
    );
    let f = l.fire(&json!({"event": "session_start", "cwd": l.ws(), "source": "resume"}));
    assert!(
        f.runs().is_empty(),
        "sessionStart runs only on a session's first turn"
    );
}

#[test]
fn emit_event_publishes_with_source_hooks_and_needs_a_session() {
    let l = Layers::new().workspace_hooks(
        "version: 1\npostWriteFile:\n  - actions:\n      - {type: emitEvent, eventType: repo.file.changed, summary: A Go file changed., data: {language: go}, delivery: queue}\n",
    );
    let f = l.fire(&l.tool("tool_after", "writeFile", json!({"path": "a.go"})));
    assert_eq!(
        f.outcome["events"],
        json!([{"type": "repo.file.changed", "summary": "A Go file changed.", "data": {"language": "go"}, "delivery": "queue", "source": "hooks"}])
    );
    let mut ev = l.tool("tool_after", "writeFile", json!({"path": "a.go"}));
    ev.as_object_mut().unwrap().remove("session_id");
    let f = l.fire(&ev);
    assert!(f.outcome.get("events").is_none());
    assert_eq!(f.runs()[0]["status"], "failed");
    assert!(f.warnings_contain("publishing a session event needs a session"));
}

#[test]
fn emit_event_size_limits_fail_the_action() {
    let l = Layers::new().workspace_hooks(
        "version: 1\npreWriteFile:\n  - actions:\n      - {type: emitEvent, eventType: big.one, summary: \"0123456789\"}\n",
    );
    let f = l.fire_env(
        &l.tool("tool_before", "writeFile", json!({"path": "a"})),
        &[("PEEN_MAX_EVENT_SUMMARY_BYTES", "5")],
    );
    assert_eq!(
        f.outcome["decision"], "deny",
        "a failure on a pre event denies by default"
    );
    assert!(
        f.reasons()[0].contains("more than PEEN_MAX_EVENT_SUMMARY_BYTES (5)"),
        "{:?}",
        f.reasons()
    );
}

#[test]
fn deny_effects_per_event() {
    let hooks = "version: 1\n{EV}:\n  - actions: [{type: deny, reason: stop here}]\n";
    for (ev, kind, denied) in [
        ("preUserMessage", "user_prompt", true),
        ("postUserMessage", "user_prompt_ready", true),
        ("turnStart", "turn_start", true),
        ("turnStop", "stop", true),
        ("turnCancelled", "turn_cancelled", false),
    ] {
        let l = Layers::new().workspace_hooks(&hooks.replace("{EV}", ev));
        let f = l.fire(&lifecycle(&l, kind));
        assert_eq!(
            f.outcome["decision"] == "deny",
            denied,
            "{ev}: {}",
            f.outcome
        );
    }
    let l = Layers::new().workspace_hooks(&hooks.replace("{EV}", "postCompact"));
    let f = l.fire_env(
        &json!({"event": "compact_after", "cwd": l.ws()}),
        &[("PEEN_COMPACTION_MODE", "summarize")],
    );
    assert_eq!(f.outcome["decision"], "proceed");
    assert!(f.warnings_contain("the summary is already stored"));
    let l = Layers::new().workspace_hooks(&hooks.replace("{EV}", "preCompact"));
    let f = l.fire_env(
        &json!({"event": "compact_before", "cwd": l.ws()}),
        &[("PEEN_COMPACTION_MODE", "summarize")],
    );
    assert_eq!(f.outcome["decision"], "deny");
    let f = l.fire(&json!({"event": "compact_before", "cwd": l.ws()}));
    assert!(
        f.runs().is_empty(),
        "compaction events need PEEN_COMPACTION_MODE=summarize"
    );
    let l = Layers::new().workspace_hooks(&hooks.replace("{EV}", "postToolUse"));
    let f = l.fire(&l.tool("tool_after", "readFile", json!({"path": "a"})));
    assert_eq!(f.outcome["decision"], "deny");
    assert_eq!(
        f.outcome["tool_output"], "stop here",
        "the result is replaced with the error"
    );
}

#[test]
fn a_deny_stops_everything_after_it() {
    let l = Layers::new().workspace_hooks(
        "version: 1\npreToolUse:\n  - actions:\n      - {type: deny, reason: first}\n      - {type: inject, message: never}\npreReadFile:\n  - actions: [{type: deny, reason: never}]\n",
    );
    let f = l.fire(&l.tool("tool_before", "readFile", json!({"path": "a"})));
    assert_eq!(f.reasons(), ["first"]);
    assert_eq!(f.runs().len(), 1);
}

#[test]
fn tool_events_fire_in_order_generic_and_per_tool() {
    let l = Layers::new().workspace_hooks(
        "version: 1\ntoolUseFailure:\n  - actions: [{type: emitEvent, eventType: a.one}]\nreadFileFailure:\n  - actions: [{type: emitEvent, eventType: a.two}]\npostToolUse:\n  - actions: [{type: emitEvent, eventType: a.three}]\npostReadFile:\n  - actions: [{type: emitEvent, eventType: a.never}]\n",
    );
    let mut ev = l.tool("tool_failure", "readFile", json!({"path": "a"}));
    ev["tool"]["error"] = json!("no such file");
    let f = l.fire(&ev);
    let types: Vec<&str> = f.outcome["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["a.one", "a.two", "a.three"]);
}

#[test]
fn on_failure_default_continue_elsewhere_publishes_hook_action_failed() {
    let l = Layers::new().workspace_hooks(
        "version: 1\npostWriteFile:\n  - name: fmt\n    actions:\n      - {name: run, type: command, command: /nonexistent/tool}\n      - {type: inject, message: still runs}\n",
    );
    let f = l.fire(&l.tool("tool_after", "writeFile", json!({"path": "a"})));
    assert_eq!(f.outcome["decision"], "proceed");
    assert_eq!(
        f.outcome["events"],
        json!([{"type": "hook.action.failed", "summary": "Hook action failed after the operation.",
            "data": {"event": "postWriteFile", "hookName": "fmt", "action": "run", "actionType": "command",
                     "source": l.ws().join(".agents/hooks.yaml")}, "source": "hooks"}])
    );
    assert!(
        f.outcome["context"][0]["text"]
            .as_str()
            .unwrap()
            .contains("still runs")
    );
}

#[test]
fn on_failure_overrides() {
    let l = Layers::new().workspace_hooks(
        "version: 1\npreToolUse:\n  - actions: [{type: command, command: /nonexistent/tool, onFailure: continue}]\npostToolUse:\n  - actions: [{type: command, command: /nonexistent/tool, onFailure: deny}]\n",
    );
    let f = l.fire(&l.tool("tool_before", "readFile", json!({})));
    assert_eq!(f.outcome["decision"], "proceed");
    let f = l.fire(&l.tool("tool_after", "readFile", json!({})));
    assert_eq!(f.outcome["decision"], "deny");
    assert!(
        f.outcome["tool_output"]
            .as_str()
            .unwrap()
            .contains("failed: cannot start /nonexistent/tool")
    );
}

#[test]
fn a_deny_is_never_overridden_by_a_failure_policy() {
    let l = Layers::new().workspace_hooks(
        "version: 1\npostToolUse:\n  - actions: [{type: deny, reason: no, onFailure: continue}]\n",
    );
    let f = l.fire(&l.tool("tool_after", "readFile", json!({})));
    assert_eq!(f.outcome["decision"], "deny");
}

#[test]
fn session_start_runs_only_on_the_first_turn_a_session_ever_runs() {
    let l = Layers::new().workspace_hooks(
        "version: 1\nsessionStart:\n  - name: hello\n    actions: [{type: inject, message: first turn only}]\n",
    );
    let start = |turn: &str| json!({"event": "session_start", "session_id": "s1", "turn_id": turn, "cwd": l.ws(), "source": "startup"});
    let f = l.fire(&start("t1"));
    assert_eq!(f.runs().len(), 1, "{}", f.outcome);
    assert!(f.outcome.get("warnings").is_none(), "{}", f.outcome);
    // The same turn again (a resumed turn) still fires; the journal reuses it.
    let f = l.fire(&start("t1"));
    assert_eq!(f.runs().len(), 1, "{}", f.outcome);
    // A later turn's session_start fires nothing, and says so.
    l.fire(&json!({"event": "turn_start", "session_id": "s1", "turn_id": "t2", "cwd": l.ws()}));
    let f = l.fire(&start("t3"));
    assert!(f.runs().is_empty(), "{}", f.outcome);
    assert!(f.outcome.get("context").is_none());
    assert!(
        f.warnings_contain(
            "peen: sessionStart did not run: it runs only on the first turn a session ever runs, and session `s1` already had turns (first turn `t1`)"
        ),
        "{}",
        f.outcome
    );
    // Another session is a first turn again.
    let mut other = start("t9");
    other["session_id"] = json!("s2");
    assert_eq!(l.fire(&other).runs().len(), 1);
}

#[test]
fn a_session_that_had_turns_before_its_first_session_start_runs_no_session_start() {
    let l = Layers::new().workspace_hooks(
        "version: 1\nsessionStart:\n  - name: hello\n    actions: [{type: inject, message: hi}]\n",
    );
    // preUserMessage comes before sessionStart: it does not count.
    l.fire(&json!({"event": "user_prompt", "session_id": "s1", "turn_id": "t1", "cwd": l.ws(), "prompt": "p"}));
    let f = l.fire(
        &json!({"event": "session_start", "session_id": "s1", "turn_id": "t1", "cwd": l.ws()}),
    );
    assert_eq!(f.runs().len(), 1, "{}", f.outcome);
    // A tool call in a session whose session_start never came counts.
    let l = Layers::new().workspace_hooks(
        "version: 1\nsessionStart:\n  - name: hello\n    actions: [{type: inject, message: hi}]\n",
    );
    l.fire(&l.tool("tool_before", "readFile", json!({"path": "a"})));
    let f = l.fire(
        &json!({"event": "session_start", "session_id": "s1", "turn_id": "t5", "cwd": l.ws()}),
    );
    assert!(f.runs().is_empty(), "{}", f.outcome);
    assert!(f.warnings_contain("sessionStart did not run"));
}

#[test]
fn an_under_budget_compaction_round_runs_neither_compaction_hook() {
    let l = Layers::new().workspace_hooks(
        "version: 1\npreCompact:\n  - name: pre\n    actions: [{type: deny, reason: no}]\npostCompact:\n  - name: post\n    actions: [{type: emitEvent, eventType: x.y, summary: s}]\n",
    );
    let summarize = [("PEEN_COMPACTION_MODE", "summarize")];
    let ev = |kind: &str, estimated: u64, budget: u64| {
        json!({"event": kind, "session_id": "s1", "turn_id": "t1", "cwd": l.ws(),
            "compaction": {"estimated_tokens": estimated, "budget_tokens": budget, "round": 7}})
    };
    for kind in ["compact_before", "compact_after"] {
        for (estimated, budget) in [(90_000, 120_000), (120_000, 120_000)] {
            let f = l.fire_env(&ev(kind, estimated, budget), &summarize);
            assert!(f.runs().is_empty(), "{kind}: {}", f.outcome);
            assert_eq!(f.outcome["decision"], "proceed");
            assert!(
                f.warnings_contain(&format!(
                    "peen: compaction round 7 is under budget ({estimated} estimated tokens, budget {budget}); neither preCompact nor postCompact runs"
                )),
                "{}",
                f.outcome
            );
        }
    }
    // Over budget, the hooks run.
    let f = l.fire_env(&ev("compact_before", 131_072, 120_000), &summarize);
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);
    // Without both figures the round counts as over budget.
    let f = l.fire_env(
        &json!({"event": "compact_before", "session_id": "s1", "turn_id": "t2", "cwd": l.ws(), "compaction": {"budget_tokens": 5}}),
        &summarize,
    );
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);
}
