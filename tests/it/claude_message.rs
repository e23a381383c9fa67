//! The user message Claude Code sends after a batch of tool calls, rebuilt
//! from latch's outcomes with `latch::dialect::claude::message`: each case
//! runs the recording's own settings through `latch fire` and must give
//! the message Claude Code 2.1.332 sent byte for byte
//! (`recordings/claude-2.1.332/messages.json`, taken from its recordings
//! by `messages.py` there; README item 15: hook texts folded into the tool
//! result, no newline between text blocks). The settings and the model's
//! script are the cases' (`recordings/claude/<case>/`, the same in both
//! recordings).

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
/// @OUT@ …`) swapped for the fixture hook, which takes the same flags; and
/// each command as Claude Code 2.1.332's recording quotes it, with the
/// fixture's command in its place.
fn recorded_settings(c: &Claude, case: &str) -> (Value, Vec<(String, String)>) {
    let mut settings = read_json(recording(case).join("settings.json"));
    let mut commands = Vec::new();
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
        let quoted = command
            .replace("@HOOK@", "<PY> <HARNESS>/bin/hook.py")
            .replace("@OUT@", "<RUN>");
        let fixture = c.hook(label, args.trim_start());
        handler["command"] = json!(fixture);
        commands.push((quoted, fixture));
    }
    (settings, commands)
}

/// `value` with each recorded command in its strings replaced by the
/// fixture's.
fn with_commands(value: &mut Value, commands: &[(String, String)]) {
    match value {
        Value::String(s) => {
            for (quoted, fixture) in commands {
                *s = s.replace(quoted.as_str(), fixture);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| with_commands(v, commands)),
        Value::Object(map) => map.values_mut().for_each(|v| with_commands(v, commands)),
        _ => {}
    }
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

/// The last user message of the case's last request as Claude Code 2.1.332
/// sent it, without its own `<total_tokens>` reminder.
fn recorded_message(case: &str) -> Value {
    let messages = read_json(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("recordings/claude-2.1.332/messages.json"),
    );
    let mut message = messages[case].clone();
    assert!(message.is_array(), "{case}: not in messages.json");
    without_total_tokens(&mut message);
    message
}

/// Whether `text` is the reminder of the tokens left that Claude Code adds
/// to every request.
fn is_total_tokens(text: &str) -> bool {
    text.starts_with("<system-reminder>\n<total_tokens>")
        && text.ends_with("</total_tokens>\n</system-reminder>")
}

/// Takes off the `<total_tokens>` reminder, an attachment latch has no
/// part in, which Claude Code folds in last: from a text result with the
/// blank line before it, from a list with the newline its folding gave
/// the list's last text, or as a text block.
fn without_total_tokens(message: &mut Value) {
    let blocks = message.as_array_mut().expect("a list of blocks");
    blocks.retain(|b| !b["text"].as_str().is_some_and(is_total_tokens));
    for block in blocks.iter_mut() {
        match block.get_mut("content") {
            Some(Value::String(content)) => {
                if let Some((kept, last)) = content.rsplit_once("\n\n")
                    && is_total_tokens(last)
                {
                    *content = kept.to_owned();
                }
            }
            Some(Value::Array(list))
                if list
                    .last()
                    .and_then(|b| b["text"].as_str())
                    .is_some_and(is_total_tokens) =>
            {
                list.pop();
                if let Some(Value::String(text)) = list.last_mut().and_then(|b| b.get_mut("text"))
                    && text.ends_with('\n')
                {
                    text.pop();
                }
            }
            _ => {}
        }
    }
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
    rebuilt_message_and_commands(case, outputs).0
}

/// [`rebuilt_message`], and the commands [`recorded_settings`] swapped.
fn rebuilt_message_and_commands(case: &str, outputs: &[Value]) -> (Value, Vec<(String, String)>) {
    let c = Claude::new();
    let (settings, commands) = recorded_settings(&c, case);
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
    let message = serde_json::to_value(user_message(pieces)).expect("serializes");
    (message, commands)
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

/// Two `PreToolUse` contexts on a denied call follow its result in one
/// reminder, in the order the hooks finished, with no newline.
#[test]
fn r3_deny_slow_plus_context_fast_message() {
    agrees_with_recording("r3_deny_slow_plus_context_fast", &["hi"]);
}

/// `PostToolUse` contexts on two calls and two `PostToolBatch` contexts:
/// each call's text is folded into its result, then the batch texts into
/// the last one.
#[test]
fn r3_post_tool_batch_two_contexts_message() {
    agrees_with_recording("r3_post_tool_batch_two_contexts", &["one", "two"]);
}

/// Each call's `PostToolUse` text is folded into its own result.
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

/// The `PostToolUse` text, then the batch text, folded into the result.
#[test]
fn r10_seam_single_post_ctx_batch_message() {
    agrees_with_recording("r10_seam_single_post_ctx_batch", &["hi"]);
}

/// A `PreToolUse` text follows the result, so the batch text is a block.
#[test]
fn r10_seam_single_pre_ctx_batch_message() {
    agrees_with_recording("r10_seam_single_pre_ctx_batch", &["hi"]);
}

/// `[TR1, TR2, PRE1, POST1, PRE2, POST2, BATCH]`: after a `PreToolUse`
/// text nothing is folded, and no text ends with a newline.
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

/// After an MCP tool's list of blocks, the batch text joins the list, the
/// list's last text ending with a newline.
#[test]
fn r12_mcp_list_batch_ctx_message() {
    agrees_with_recording_of("r12_mcp_list_batch_ctx", &[mcp_answer()]);
}

/// The `PostToolUse` text, then the batch text, join the list.
#[test]
fn r12_mcp_list_post_and_batch_message() {
    agrees_with_recording_of("r12_mcp_list_post_and_batch", &[mcp_answer()]);
}

/// The control: after Bash's text result, the batch text is folded in.
#[test]
fn r12_bash_string_batch_ctx_message() {
    agrees_with_recording("r12_bash_string_batch_ctx", &["hi"]);
}

/// A `PostToolUse` blocking error (`decision: block` without a reason) is
/// folded into the result too; its text quotes the hook's command.
#[test]
fn r13_block_noreason_post_message() {
    let case = "r13_block_noreason_post";
    let (rebuilt, commands) = rebuilt_message_and_commands(case, &[json!("hi")]);
    let mut recorded = recorded_message(case);
    with_commands(&mut recorded, &commands);
    assert_eq!(rebuilt, recorded, "{case}");
}
