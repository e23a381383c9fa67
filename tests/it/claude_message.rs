//! The user message Claude Code sends after a batch of tool calls, rebuilt
//! from latch's outcomes with `latch::dialect::claude::message`: each case
//! runs the recording's own settings through `latch fire` and must give
//! the recorded message byte for byte (`recordings/claude/FINDINGS.md`
//! §38: the newline between text blocks, the folding of a `PostToolBatch`
//! text into a tool result).

use std::path::PathBuf;

use latch::dialect::claude::message::{Content, Piece, user_message};
use latch::outcome::Injection;
use serde_json::{Value, json};

use crate::claude_events::event;
use crate::claude_util::Claude;

fn recording(case: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("recordings/claude")
        .join(case)
}

fn read_json(path: PathBuf) -> Value {
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The recording's settings, its harness hook (`@HOOK@ --label L --out
/// @OUT@ …`) swapped for the fixture hook, which takes the same flags.
fn recorded_settings(c: &Claude, case: &str) -> Value {
    let mut settings = read_json(recording(case).join("settings.json"));
    let groups = settings["hooks"].as_object_mut().expect("hooks");
    for handler in groups
        .values_mut()
        .flat_map(|g| g.as_array_mut().expect("groups").iter_mut())
        .flat_map(|g| g["hooks"].as_array_mut().expect("handlers").iter_mut())
    {
        let command = handler["command"].as_str().expect("command");
        let rest = command
            .strip_prefix("@HOOK@ --label ")
            .expect("a recorded hook");
        let (label, args) = rest.split_once(" --out @OUT@").expect("--out");
        handler["command"] = json!(c.hook(label, args.trim_start()));
    }
    settings
}

/// The tool calls of the recorded model's first turn: (name, input).
fn recorded_calls(case: &str) -> Vec<(String, Value)> {
    let script = read_json(recording(case).join("script.json"));
    let turn = &script["turns"][0];
    let uses = match turn["tool_uses"].as_array() {
        Some(many) => many.clone(),
        None => vec![turn["tool_use"].clone()],
    };
    uses.iter()
        .map(|u| {
            let name = u["name"].as_str().expect("a tool name").to_owned();
            (name, u["input"].clone())
        })
        .collect()
}

/// The last user message of the recording's last request.
fn recorded_message(case: &str) -> Value {
    let observed = read_json(recording(case).join("observed.json"));
    let last = observed["api_main_requests"]
        .as_array()
        .and_then(|r| r.last())
        .expect("a request")
        .clone();
    last["new_messages"]
        .as_array()
        .and_then(|m| m.iter().rev().find(|m| m["role"] == "user"))
        .expect("a user message")["content"]
        .clone()
}

/// The outcome's `context` entries (absent when there is none).
fn pieces_of(outcome: &Value) -> Vec<Piece> {
    let entries: Vec<Injection> = match &outcome["context"] {
        Value::Null => Vec::new(),
        list => serde_json::from_value(list.clone()).expect("context entries"),
    };
    entries.iter().filter_map(Piece::from_context).collect()
}

/// Runs the recorded batch through latch, as a harness would (for each
/// call `tool_before`, the tool, `tool_after`; then `tool_batch`), and
/// builds the message from the tool results and the outcomes' texts.
fn rebuilt_message(case: &str, outputs: &[Value]) -> Value {
    let c = Claude::new();
    let settings = recorded_settings(&c, case);
    let c = c.project_settings(&settings);
    let calls = recorded_calls(case);
    assert_eq!(calls.len(), outputs.len(), "{case}: one output per call");
    let mut pieces = Vec::new();
    let mut batch = Vec::new();
    for (i, ((name, input), output)) in calls.iter().zip(outputs).enumerate() {
        let id = format!("toolu_fake_00_{i:02}");
        let mut before = event(
            "tool_before",
            json!({"prompt_id": "p1", "permission_mode": "bypassPermissions",
                "tool": {"name": name, "input": input, "call_id": id}}),
        );
        let f = c.fire(&before);
        pieces.extend(pieces_of(&f.outcome));
        if f.outcome["decision"] == "deny" {
            let reason = f.outcome["notices"][0]["text"].as_str().expect("a notice");
            pieces.push(Piece::ToolResult {
                tool_use_id: id,
                content: Content::Text(reason.to_owned()),
                is_error: Some(true),
            });
            continue;
        }
        pieces.push(match output {
            Value::Array(blocks) => Piece::mcp_result(&id, blocks.clone()),
            text => Piece::tool_result(&id, text.as_str().expect("text or blocks")),
        });
        before["event"] = json!("tool_after");
        before["tool"]["output"] = output.clone();
        pieces.extend(pieces_of(&c.fire(&before).outcome));
        batch.push(json!({"name": name, "input": input, "call_id": id, "output": output}));
    }
    if !batch.is_empty() {
        let f = c.fire(&event(
            "tool_batch",
            json!({"prompt_id": "p1", "permission_mode": "bypassPermissions", "tool_calls": batch}),
        ));
        pieces.extend(pieces_of(&f.outcome));
    }
    serde_json::to_value(user_message(pieces)).expect("serializes")
}

fn agrees_with_recording(case: &str, outputs: &[&str]) {
    let outputs: Vec<Value> = outputs.iter().map(|o| json!(o)).collect();
    agrees_with_recording_of(case, &outputs);
}

fn agrees_with_recording_of(case: &str, outputs: &[Value]) {
    assert_eq!(
        rebuilt_message(case, outputs),
        recorded_message(case),
        "{case}"
    );
}

/// Two `PreToolUse` contexts on a denied call: the first ends with `\n`
/// (2.1.197's layout). The deny's text is 2.1.332's, a hook error; 2.1.332
/// also joins the two contexts into one reminder, which latch does not do
/// yet (recordings/claude-2.1.332/README.md, item 15).
#[test]
fn r3_deny_slow_plus_context_fast_message() {
    let case = "r3_deny_slow_plus_context_fast";
    let mut recorded = recorded_message(case);
    recorded[0]["content"] = json!("PreToolUse:Bash hook error: DENY_A_SENTINEL reason");
    assert_eq!(rebuilt_message(case, &[json!("hi")]), recorded, "{case}");
}

/// `PostToolUse` contexts on two calls and two `PostToolBatch` contexts:
/// the batch texts move before the second call's text, and only the last
/// of them ends with `\n`.
#[test]
fn r3_post_tool_batch_two_contexts_message() {
    agrees_with_recording("r3_post_tool_batch_two_contexts", &["one", "two"]);
}

#[test]
fn r3_post_tool_batch_posttooluse_ctx_only_message() {
    agrees_with_recording("r3_post_tool_batch_posttooluse_ctx_only", &["one", "two"]);
}

/// Nothing but tool results before it: the batch text is folded into the
/// last result (its plain stdout reaches no one).
#[test]
fn r3_post_tool_batch_context_message() {
    agrees_with_recording("r3_post_tool_batch_context", &["one", "two"]);
}

#[test]
fn r10_seam_single_post_ctx_batch_message() {
    agrees_with_recording("r10_seam_single_post_ctx_batch", &["hi"]);
}

#[test]
fn r10_seam_single_pre_ctx_batch_message() {
    agrees_with_recording("r10_seam_single_pre_ctx_batch", &["hi"]);
}

#[test]
fn r10_seam_two_pre_post_batch_message() {
    agrees_with_recording("r10_seam_two_pre_post_batch", &["one", "two"]);
}

#[test]
fn r10_seam_two_post_first_only_batch_message() {
    agrees_with_recording("r10_seam_two_post_first_only_batch", &["one", "two"]);
}

/// The MCP server's answer in the round-12 recordings.
fn mcp_answer() -> Value {
    json!([{"type": "text", "text": "MCP_RESULT echo_tool ORIGINAL_MCP_SENTINEL"}])
}

/// After an MCP tool's list of blocks, the batch text is a block of its
/// own, not folded into the result.
#[test]
fn r12_mcp_list_batch_ctx_message() {
    agrees_with_recording_of("r12_mcp_list_batch_ctx", &[mcp_answer()]);
}

/// The batch text moves before the `PostToolUse` text, and gets `\n`.
#[test]
fn r12_mcp_list_post_and_batch_message() {
    agrees_with_recording_of("r12_mcp_list_post_and_batch", &[mcp_answer()]);
}

/// The control: after Bash's text result, the batch text is folded in.
#[test]
fn r12_bash_string_batch_ctx_message() {
    agrees_with_recording("r12_bash_string_batch_ctx", &["hi"]);
}
