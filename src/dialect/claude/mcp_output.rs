//! A `PostToolUse` hook's replacement of an MCP tool's result, as Claude
//! Code applies it (recorded: `r11_mcp_updated_*`, FINDINGS §39): no
//! check against the tool's output shape, unlike other tools.
//!
//! - `updatedToolOutput` counts whenever the answer has it, `null`
//!   included; the older `updatedMCPToolOutput` only when that is absent
//!   and it is JavaScript-truthy.
//! - An empty value (`null`, `false`, `0`, a blank string, `[]`, or text
//!   blocks that are all blank) reads `(<tool> completed with no output)`.
//! - A string is the result; a list is the result's content blocks, as
//!   they are, less the `_meta` of text blocks.
//! - An object, a number or `true` is the result as `JSON.stringify`
//!   writes it (Claude Code 2.1.332, recorded: `r11_mcp_updated_object`,
//!   `_number`, `_bool`, `_legacy_mcp_object`; 2.1.197 failed the call).
//! - A list holding `null` or a text block without `text` makes Claude
//!   Code's own checks throw, and the call fails with that JavaScript
//!   error; latch keeps the output as it stands instead and says so in the
//!   run's `ignored_fields` (`docs/dialects/claude.md`, "Where latch
//!   differs").

use serde_json::{Map, Value};

use super::text::js_trim;

/// What a hook's answer does to an MCP tool's result.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Replacement {
    /// The answer replaces nothing.
    None,
    /// The result the model reads instead: a string, or the JSON text of a
    /// list of content blocks.
    Output(String),
    /// A value Claude Code fails the call on; the note for `ignored_fields`.
    Ignored(String),
}

/// The replacement `specific` (the answer's `hookSpecificOutput`) makes of
/// the result of the MCP tool `tool`.
pub(crate) fn replacement(tool: &str, specific: &Map<String, Value>) -> Replacement {
    let (key, value) = match specific.get("updatedToolOutput") {
        Some(value) => ("updatedToolOutput", value),
        None => match specific.get("updatedMCPToolOutput") {
            Some(value) if truthy(value) => ("updatedMCPToolOutput", value),
            _ => return Replacement::None,
        },
    };
    if empty(value) {
        return Replacement::Output(format!("({tool} completed with no output)"));
    }
    match value {
        Value::String(s) => Replacement::Output(s.clone()),
        Value::Array(blocks) if !throws(blocks) => {
            Replacement::Output(Value::Array(blocks.iter().map(without_meta).collect()).to_string())
        }
        Value::Array(_) => Replacement::Ignored(format!(
            "{key} (a list Claude Code's checks fail on: the call fails with an error there; the original output is used)"
        )),
        other => Replacement::Output(crate::dialect::js_json::stringify(other)),
    }
}

/// Whether Claude Code's code throws on the list `blocks` (recorded for
/// other values: `r11_mcp_updated_object`; the list cases follow the code,
/// checked by running Claude Code 2.1.197's own functions):
/// - the mapper that drops `_meta` reads `r.type` of every element, and
///   `null` throws there;
/// - unless an image or a document is in the list (then it is passed on
///   as it is), the size count reads each text block's `text.length`,
///   which throws when `text` is missing or `null`.
fn throws(blocks: &[Value]) -> bool {
    let kind = |b: &Value| b.get("type").and_then(Value::as_str).map(str::to_owned);
    if blocks.iter().any(Value::is_null) {
        return true;
    }
    if blocks
        .iter()
        .any(|b| matches!(kind(b).as_deref(), Some("image" | "document")))
    {
        return false;
    }
    blocks.iter().any(|block| {
        kind(block).as_deref() == Some("text")
            && matches!(block.get("text"), None | Some(Value::Null))
    })
}

/// A text block with no text in it (its `text` blank or not a string).
fn is_blank_text(block: &Value) -> bool {
    block.get("type").and_then(Value::as_str) == Some("text")
        && block
            .get("text")
            .is_some_and(|t| t.as_str().is_none_or(|t| js_trim(t).is_empty()))
}

/// JavaScript's truthiness of a JSON value.
fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

/// Claude Code's test for a result with nothing in it.
fn empty(value: &Value) -> bool {
    match value {
        Value::String(s) => js_trim(s).is_empty(),
        Value::Array(blocks) => blocks.iter().all(is_blank_text),
        other => !truthy(other),
    }
}

/// A text block without its `_meta` (when that is set), as Claude Code's
/// MCP result mapper leaves it.
fn without_meta(block: &Value) -> Value {
    match block {
        Value::Object(fields)
            if fields.get("type").and_then(Value::as_str) == Some("text")
                && fields.get("_meta").is_some_and(truthy) =>
        {
            let mut fields = fields.clone();
            fields.shift_remove("_meta");
            Value::Object(fields)
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn of(answer: Value) -> Replacement {
        let Value::Object(specific) = answer else {
            unreachable!("an object")
        };
        replacement("mcp__srv__echo_tool", &specific)
    }

    fn output(text: &str) -> Replacement {
        Replacement::Output(text.to_owned())
    }

    #[test]
    fn recorded_replacements() {
        // r11_mcp_updated_string, _array, _array_strings.
        assert_eq!(
            of(json!({"updatedToolOutput": "REPLACED"})),
            output("REPLACED")
        );
        assert_eq!(
            of(json!({"updatedToolOutput": [{"type": "text", "text": "R"}]})),
            output(r#"[{"type":"text","text":"R"}]"#)
        );
        assert_eq!(
            of(json!({"updatedToolOutput": ["A", "B"]})),
            output(r#"["A","B"]"#)
        );
        // _null, _empty_string.
        for empty in [json!(null), json!("")] {
            assert_eq!(
                of(json!({"updatedToolOutput": empty})),
                output("(mcp__srv__echo_tool completed with no output)")
            );
        }
        // _object, _number, _bool, _legacy_mcp_object: the value as
        // `JSON.stringify` writes it (2.1.332; 2.1.197 failed the call).
        for (value, text) in [
            (
                json!({"content": [{"type": "text", "text": "R"}]}),
                r#"{"content":[{"type":"text","text":"R"}]}"#,
            ),
            (json!(42), "42"),
            (json!(true), "true"),
            (json!(2.0), "2"),
        ] {
            assert_eq!(of(json!({"updatedToolOutput": value})), output(text));
        }
        assert_eq!(
            of(json!({"updatedMCPToolOutput": {"content": []}})),
            output(r#"{"content":[]}"#)
        );
        // _legacy_mcp_string, _both_fields.
        assert_eq!(
            of(json!({"updatedMCPToolOutput": "LEGACY"})),
            output("LEGACY")
        );
        assert_eq!(
            of(json!({"updatedToolOutput": "NEW", "updatedMCPToolOutput": "LEGACY"})),
            output("NEW")
        );
    }

    #[test]
    fn a_falsy_legacy_field_replaces_nothing() {
        for value in [json!(null), json!(""), json!(0), json!(false)] {
            assert_eq!(
                of(json!({"updatedMCPToolOutput": value})),
                Replacement::None
            );
        }
        assert_eq!(of(json!({"additionalContext": "x"})), Replacement::None);
    }

    #[test]
    fn blank_text_blocks_and_zero_are_empty() {
        for value in [
            json!([]),
            json!([{"type": "text", "text": " \n"}, {"type": "text", "text": 3}]),
            json!("\u{feff} "),
            json!(0),
            json!(false),
        ] {
            assert_eq!(
                of(json!({"updatedToolOutput": value})),
                output("(mcp__srv__echo_tool completed with no output)")
            );
        }
        assert_ne!(
            of(json!({"updatedToolOutput": [{"type": "image", "data": ""}]})),
            output("(mcp__srv__echo_tool completed with no output)")
        );
    }

    /// Lists Claude Code's checks throw on: Ignored.
    #[test]
    fn lists_that_make_claude_code_throw_are_ignored() {
        for list in [
            json!([null]),
            json!([{"type": "text", "text": " "}, null]),
            json!(["a", null]),
            json!([{"type": "text"}]),
            json!([{"type": "text", "text": "x"}, {"type": "text", "text": null}]),
        ] {
            assert!(
                matches!(
                    of(json!({"updatedToolOutput": list})),
                    Replacement::Ignored(_)
                ),
                "{list}"
            );
        }
        assert!(matches!(
            of(json!({"updatedToolOutput": [{"type": "image", "data": "d"}, null]})),
            Replacement::Ignored(_)
        ));
        // With an image nothing is counted; numbers and strings have no
        // text to count.
        for list in [
            json!([{"type": "image", "data": "d"}, {"type": "text"}]),
            json!([1, "b", {"type": "text", "text": 3}]),
        ] {
            assert!(
                matches!(
                    of(json!({"updatedToolOutput": list})),
                    Replacement::Output(_)
                ),
                "{list}"
            );
        }
    }

    #[test]
    fn text_blocks_lose_a_set_meta() {
        assert_eq!(
            of(json!({"updatedToolOutput": [
                {"type": "text", "text": "a", "_meta": {"k": 1}},
                {"type": "text", "text": "b", "_meta": null},
                {"type": "image", "data": "d", "_meta": {"k": 1}}
            ]})),
            output(
                r#"[{"type":"text","text":"a"},{"type":"text","text":"b","_meta":null},{"type":"image","data":"d","_meta":{"k":1}}]"#
            )
        );
    }
}
