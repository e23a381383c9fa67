//! The prompt handler: Evener-native sugar that asks a model instead of
//! running a process, and reads the reply like a command's stdout. The
//! model is asked through [`crate::model`]; this module fills in Evener's
//! template.

use serde_json::Value;

use crate::event::Event;

use super::toolname::ToolNames;

pub use crate::model::{PromptConfig, ask};

/// Substitutes `$TOOL_INPUT`, `$TOOL_RESULT`, `$USER_PROMPT`, `$MESSAGE` and
/// `$TOOL_NAME` into the template. Missing values become empty strings.
pub fn render(template: &str, event: &Event, names: &ToolNames) -> String {
    let tool = event.tool.as_ref();
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    // Parsed here only: a prompt handler is rare and its body is capped.
    let input = tool.map(|t| text(&t.input.to_value())).unwrap_or_default();
    let result = tool
        .and_then(|t| t.result())
        .map(|v| text(&v))
        .unwrap_or_default();
    let name = tool
        .map(|t| names.claude_name(&t.name).to_owned())
        .unwrap_or_default();
    let values: [(&str, &str); 5] = [
        ("$TOOL_INPUT", &input),
        ("$TOOL_RESULT", &result),
        ("$USER_PROMPT", event.prompt.as_deref().unwrap_or("")),
        ("$MESSAGE", event.message.as_deref().unwrap_or("")),
        ("$TOOL_NAME", &name),
    ];
    // One pass over the template: a substituted value is never scanned
    // again, so a prompt that contains `$TOOL_NAME` stays as the user wrote it.
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        match values.iter().find(|(k, _)| tail.starts_with(k)) {
            Some((k, v)) => {
                out.push_str(v);
                rest = &tail[k.len()..];
            }
            None => {
                out.push('$');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn substitution_is_one_pass() {
        let mut e = Event::tool_before("shell", serde_json::json!("echo $TOOL_NAME $USER_PROMPT"));
        e.prompt = Some("SECRET".into());
        let got = render(
            "in=$TOOL_INPUT by $TOOL_NAME, $5 $OTHER",
            &e,
            &ToolNames::default(),
        );
        assert_eq!(got, "in=echo $TOOL_NAME $USER_PROMPT by Bash, $5 $OTHER");
    }
}
