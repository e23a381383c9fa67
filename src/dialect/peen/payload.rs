//! What peen hooks see: the event input, the affected paths, and the JSON
//! a `command` action reads on stdin.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use crate::dialect::payload::JsonObject;
use crate::event::Event;

use super::events::{FILE_TOOLS, PeenEvent, Phase};
use super::input::EventInput;
use crate::config::normalize;

/// The input of an event: the tool's arguments on tool events, else the
/// lifecycle event's own object as the spec tables it.
pub fn event_input<'a>(pe: &PeenEvent, event: &'a Event, workspace: &Path) -> EventInput<'a> {
    let ws = Value::from(workspace.to_string_lossy());
    let mut obj = Map::new();
    let mut put = |k: &str, v: Option<Value>| {
        if let Some(v) = v {
            obj.insert(k.to_owned(), v);
        }
    };
    let c = event.compaction.clone().unwrap_or_default();
    match pe {
        PeenEvent::Tool(_) | PeenEvent::FileTool(..) => {
            return match &event.tool {
                Some(t) => EventInput::raw(t.input.get()),
                None => EventInput::value(Value::Null),
            };
        }
        PeenEvent::Lifecycle("preUserMessage" | "postUserMessage") => {
            put(
                "message",
                Some(Value::from(event.prompt.clone().unwrap_or_default())),
            );
            put("workspace", Some(ws));
            put("model", event.model.clone().map(Value::from));
        }
        PeenEvent::Lifecycle("sessionStart") => put("created", Some(Value::Bool(true))),
        PeenEvent::Lifecycle("turnStart") => {
            put("workspace", Some(ws));
            put(
                "model",
                Some(Value::from(event.model.clone().unwrap_or_default())),
            );
        }
        PeenEvent::Lifecycle("turnStop") => {
            put("workspace", Some(ws));
            put(
                "model",
                Some(Value::from(event.model.clone().unwrap_or_default())),
            );
            put(
                "finishReason",
                Some(Value::from(event.finish_reason.clone().unwrap_or_default())),
            );
        }
        PeenEvent::Lifecycle("turnCancelled") => put("reason", Some(Value::from("cancelled"))),
        PeenEvent::Lifecycle(name @ ("preCompact" | "postCompact")) => {
            put("workspace", Some(ws));
            put("estimatedTokens", c.estimated_tokens.map(Value::from));
            put("budgetTokens", c.budget_tokens.map(Value::from));
            put("round", c.round.map(Value::from));
            put("unitsCovered", c.units_covered.map(Value::from));
            put("messagesCovered", c.messages_covered.map(Value::from));
            if *name == "postCompact" {
                put("summaryTokens", c.summary_tokens.map(Value::from));
            }
        }
        PeenEvent::Lifecycle(_) => {}
    }
    EventInput::value(Value::Object(obj))
}

/// The paths a tool call affects, absolute and normalized: `path` of file
/// tools, `source` and `destination` of movePath, every file an applyPatch
/// touches, `directory` of runCommand and changeDirectory.
pub fn affected_paths(event: &Event, cwd: &Path) -> Vec<PathBuf> {
    let Some(tool) = &event.tool else {
        return Vec::new();
    };
    let input = EventInput::raw(tool.input.get());
    let field = |k: &str| input.string_member(k);
    let raw: Vec<String> = match tool.name.as_str() {
        "movePath" => ["source", "destination"]
            .iter()
            .filter_map(|k| field(k))
            .collect(),
        "applyPatch" => ["patch", "input", "diff"]
            .iter()
            .filter_map(|k| field(k))
            .flat_map(|p| patch_paths(&p))
            .collect(),
        "runCommand" | "changeDirectory" => field("directory").into_iter().collect(),
        name if FILE_TOOLS.contains(&name) => field("path").into_iter().collect(),
        _ => Vec::new(),
    };
    raw.iter().map(|p| normalize(&cwd.join(p))).collect()
}

/// The files a patch touches: the `*** Add/Update/Delete File:` and `***
/// Move to:` headers of peen's patch format, and `---`/`+++` lines of a
/// unified diff (without `a/`/`b/` prefixes and `/dev/null`).
pub fn patch_paths(patch: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    // In peen's own format `-`/`+` lines are hunk content, not headers.
    let peen_format = patch.contains("*** Begin Patch");
    for line in patch.lines() {
        let found = [
            "*** Add File: ",
            "*** Update File: ",
            "*** Delete File: ",
            "*** Move to: ",
        ]
        .iter()
        .find_map(|h| line.strip_prefix(h))
        .map(str::to_owned)
        .or_else(|| {
            if peen_format {
                return None;
            }
            ["+++ ", "--- "]
                .iter()
                .find_map(|h| line.strip_prefix(h))
                .and_then(|p| {
                    let p = p.split('\t').next().unwrap_or(p).trim();
                    if p == "/dev/null" {
                        None
                    } else {
                        Some(
                            p.strip_prefix("a/")
                                .or_else(|| p.strip_prefix("b/"))
                                .unwrap_or(p)
                                .to_owned(),
                        )
                    }
                })
        });
        if let Some(p) = found.map(|p| p.trim().to_owned())
            && !p.is_empty()
            && !out.contains(&p)
        {
            out.push(p);
        }
    }
    out
}

/// What a `command` action reads on stdin. Absent fields are left out;
/// `contextTokens` is always present.
pub struct CommandInput<'a> {
    /// The hook event.
    pub pe: &'a PeenEvent,
    /// The neutral event.
    pub event: &'a Event,
    /// The agent's current directory.
    pub workspace: &'a Path,
    /// The affected paths.
    pub paths: &'a [PathBuf],
    /// The event input.
    pub input: &'a EventInput<'a>,
    /// The session's private hook-state directory.
    pub state_dir: Option<&'a Path>,
}

impl<'a> CommandInput<'a> {
    /// The JSON object. The input and the tool result are borrowed, not
    /// copied.
    pub fn to_json(&self) -> JsonObject<'a> {
        let e = self.event;
        let mut m = JsonObject::new();
        let mut put = |k: &'static str, v: Option<Value>| {
            if let Some(v) = v {
                m.insert(k, Cow::Owned(v));
            }
        };
        let s = |o: &Option<String>| o.clone().filter(|v| !v.is_empty()).map(Value::from);
        put("event", Some(Value::from(self.pe.name())));
        put("sessionId", s(&e.session_id));
        put("requestId", s(&e.request_id));
        if *self.pe != PeenEvent::Lifecycle("preUserMessage") {
            put("turnId", s(&e.turn_id));
        }
        put("agentRunId", s(&e.agent_run_id));
        let tool = e.tool.as_ref().filter(|_| self.pe.is_tool());
        put("tool", tool.map(|t| Value::from(t.name.as_str())));
        put(
            "callId",
            tool.and_then(|t| t.call_id.clone()).map(Value::from),
        );
        put(
            "workspace",
            Some(Value::from(self.workspace.to_string_lossy())),
        );
        if !self.paths.is_empty() {
            put(
                "paths",
                Some(json!(
                    self.paths
                        .iter()
                        .map(|p| p.to_string_lossy())
                        .collect::<Vec<_>>()
                )),
            );
        }
        if !self.input.is_null() {
            m.insert("input", self.input.json());
        }
        let phase = match self.pe {
            PeenEvent::Tool(p) | PeenEvent::FileTool(p, _) => Some(*p),
            PeenEvent::Lifecycle(_) => None,
        };
        if matches!(phase, Some(Phase::Post))
            && let Some(output) = tool.and_then(|t| t.output.as_ref())
        {
            m.insert("result", output.get());
        }
        let mut put = |k: &'static str, v: Option<Value>| {
            if let Some(v) = v {
                m.insert(k, Cow::Owned(v));
            }
        };
        if matches!(phase, Some(Phase::Failure))
            || (matches!(phase, Some(Phase::Post))
                && e.event == crate::event::EventKind::ToolFailure)
        {
            put("error", tool.and_then(|t| t.error.clone()).map(Value::from));
        }
        put(
            "stateDirectory",
            self.state_dir.map(|d| Value::from(d.to_string_lossy())),
        );
        put(
            "contextTokens",
            Some(Value::from(e.context_tokens.unwrap_or(0))),
        );
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patch_headers_and_unified_diffs() {
        let p = "*** Begin Patch\n*** Update File: src/a.go\n@@\n*** Add File: b.md\n*** Move to: c.go\n*** End Patch";
        assert_eq!(patch_paths(p), ["src/a.go", "b.md", "c.go"]);
        let hunk = "*** Begin Patch\n*** Update File: a.go\n@@\n--- x\n+++ y\n*** End Patch";
        assert_eq!(patch_paths(hunk), ["a.go"], "hunk lines are not headers");
        let d = "--- a/x.go\t2024\n+++ b/x.go\n--- /dev/null\n+++ b/new.go\n";
        assert_eq!(patch_paths(d), ["x.go", "new.go"]);
    }
}
