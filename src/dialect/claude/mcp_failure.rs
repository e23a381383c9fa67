//! An `mcp_tool` handler's failure under `onFailure: "block"` (Claude
//! Code 2.1.332's `Ukn`, `mfe`, `slt`, `nlt`, `Kkn`; read from its code):
//! the block says the hook got no usable answer from its server, then a
//! fixed text for the kind of failure, since the tool server may have
//! written the message itself.

use super::judge::{Verdict, read_stdout};
use crate::pipeline::ToolAnswer;

/// Why the hook blocks: longer than a command's, since the fix is the
/// server's.
pub const WHY: &str = "blocking because onFailure is \"block\" and the hook got no usable answer from its MCP server. The user needs to fix the cause (in a session, /mcp shows the server's state) or ask whoever manages the hook; Claude should not change the hook or work around it.";
/// The call to the server failed.
pub const CALL: &str = "The call to the MCP server failed.";
/// The tool answered with an error (MCP's `isError`) that has text.
pub const TOOL: &str = "The MCP tool returned an error.";
/// Anything else: an error result without text, say.
pub const OTHER: &str = "The hook got no answer that Claude Code can use.";
/// What stands for an error result without text (`y_o`).
pub const TOOL_ERROR: &str = "MCP tool returned an error";
/// The answer looks like JSON but is not a hook's answer.
pub const INVALID: &str = "The MCP tool's answer looks like JSON, but is not a valid hook output.";
/// The answer is text where the event needs a verdict.
pub const NO_VERDICT: &str = "The MCP tool's answer is not a hook's JSON output, {} or empty.";
/// What follows each of them (`Kkn`).
pub const LEFT_OUT: &str = " Details are left out of this message, since the MCP server may have written them. To see them, start Claude Code with --debug and try again: they go to its debug log.";

/// The events where text that is no answer is a failure (Claude Code's
/// `E8` but `PreCompact`, whose plain text adds to the compaction's
/// instructions).
const VERDICT_EVENTS: [&str; 11] = [
    "PreToolUse",
    "PermissionRequest",
    "PreSkillShellCommand",
    "PreModelSwitch",
    "UserPromptSubmit",
    "UserPromptExpansion",
    "ConfigChange",
    "Elicitation",
    "ElicitationResult",
    "PostToolBatch",
    "TaskCreated",
];

/// The handler's result on `event`: `answer` is what the tool answered,
/// or why the call failed (the harness's `MCP server '<name>' not
/// connected` is said as it is). A failed call, an error result, an
/// answer that is not a valid hook answer, and, on the events that take
/// a verdict, text that is no answer (an object of `reason` alone counts
/// as none) block.
pub fn blocks(answer: &Result<ToolAnswer, String>, server: &str, event: &str) -> Verdict {
    let fixed = |text: &str| Verdict::Blocking(format!("failed; {WHY}\n{text}{LEFT_OUT}"));
    let text = match answer {
        Err(why) if *why == format!("MCP server '{server}' not connected") => {
            return Verdict::Blocking(format!("failed; {WHY}\n{why}"));
        }
        Err(_) => return fixed(CALL),
        Ok(ToolAnswer::Error(text)) if text.is_empty() => return fixed(OTHER),
        Ok(ToolAnswer::Error(_)) => return fixed(TOOL),
        Ok(ToolAnswer::Text(text)) => text,
    };
    let takes_verdict = VERDICT_EVENTS.contains(&event);
    match read_stdout(text) {
        Verdict::NonBlocking(_) => fixed(INVALID),
        Verdict::Plain(plain) if !plain.is_empty() && takes_verdict => fixed(NO_VERDICT),
        Verdict::Json(_) if takes_verdict && reason_alone(text) => fixed(NO_VERDICT),
        other => other,
    }
}

/// The verdict of a handler that ran out of time.
pub fn timed_out() -> Verdict {
    Verdict::Blocking(format!("timed out; {WHY}"))
}

/// Whether `text` is a JSON object whose only key is `reason` (`slt`).
fn reason_alone(text: &str) -> bool {
    serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(text.trim())
        .is_ok_and(|m| m.len() == 1 && m.contains_key("reason"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(v: Verdict) -> String {
        match v {
            Verdict::Blocking(t) => t,
            _ => String::new(),
        }
    }

    #[test]
    fn each_failure_blocks_in_its_fixed_words() {
        let blocks = |answer: Result<&str, &str>, event: &str| {
            let answer = answer
                .map(|t| ToolAnswer::Text(t.to_owned()))
                .map_err(str::to_owned);
            blocks(&answer, "s", event)
        };
        assert_eq!(
            text(blocks(Err("boom"), "PreToolUse")),
            format!("failed; {WHY}\n{CALL}{LEFT_OUT}")
        );
        assert_eq!(
            text(blocks(Err("MCP server 's' not connected"), "Stop")),
            format!("failed; {WHY}\nMCP server 's' not connected")
        );
        assert_eq!(
            text(blocks(Ok(r#"{"reason": "x"}"#), "PreToolUse")),
            format!("failed; {WHY}\n{NO_VERDICT}{LEFT_OUT}")
        );
        // Text on an event that takes no verdict, `{}`, and a real answer
        // are no failures.
        assert!(matches!(
            blocks(Ok("note"), "PreCompact"),
            Verdict::Plain(_)
        ));
        assert!(matches!(blocks(Ok("{}"), "PreToolUse"), Verdict::Json(_)));
        assert!(matches!(
            blocks(Ok(r#"{"reason": "x"}"#), "Stop"),
            Verdict::Json(_)
        ));
        assert_eq!(text(timed_out()), format!("timed out; {WHY}"));
    }

    /// An error result (`isError`) blocks whatever its text: in the fixed
    /// words of a tool's error, or of no usable answer when it has none.
    #[test]
    fn an_error_result_blocks_in_its_own_words() {
        let error = |t: &str| Ok(ToolAnswer::Error(t.to_owned()));
        assert_eq!(
            text(super::blocks(
                &error(r#"{"decision":"approve"}"#),
                "s",
                "Stop"
            )),
            format!("failed; {WHY}\n{TOOL}{LEFT_OUT}")
        );
        assert_eq!(
            text(super::blocks(&error(""), "s", "PreToolUse")),
            format!("failed; {WHY}\n{OTHER}{LEFT_OUT}")
        );
    }
}
