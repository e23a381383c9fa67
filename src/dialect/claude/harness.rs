//! `mcp_tool` and `agent` handlers, run through the harness's
//! [`HarnessHandlers`](crate::pipeline::HarnessHandlers) (recorded:
//! `r2_mcp_tool_hook`).
//!
//! An `mcp_tool` handler's `input` may hold `${path}` placeholders, a
//! dotted path into the payload (`${tool_input.command}`, `${tool_name}`),
//! replaced in every string of the input before the call. A string value
//! goes in as it is, any other value as its compact JSON, a path that
//! leads nowhere as an empty string.

use std::time::Duration;

use serde_json::Value;

/// Default time limit of an `agent` handler (Claude Code: 60 s).
pub const AGENT_TIMEOUT: Duration = Duration::from_secs(60);

/// `input` with every `${path}` replaced from `payload`.
pub fn interpolate(input: &Value, payload: &Value) -> Value {
    match input {
        Value::String(s) => Value::String(fill(s, payload)),
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| interpolate(v, payload)).collect())
        }
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), interpolate(v, payload)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// One string with its placeholders replaced.
fn fill(text: &str, payload: &Value) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[at..]);
            return out;
        };
        let path = &after[..end];
        let found = path.split('.').try_fold(payload, |v, key| v.get(key));
        match found {
            Some(Value::String(s)) => out.push_str(s),
            Some(Value::Null) | None => {}
            Some(other) => out.push_str(&other.to_string()),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn placeholders_take_payload_values() {
        let payload = json!({"tool_name": "Bash", "tool_input": {"command": "ls", "n": 3}});
        let input = json!({"text": "${tool_name}: ${tool_input.command} ${tool_input.n}${nope} ${open",
            "list": ["${tool_input.command}"], "n": 1});
        assert_eq!(
            interpolate(&input, &payload),
            json!({"text": "Bash: ls 3 ${open", "list": ["ls"], "n": 1})
        );
    }
}
