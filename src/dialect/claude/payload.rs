//! The JSON a Claude Code hook reads on stdin, for each event.
//!
//! Payload fields come in the order the real CLI writes them (recorded with
//! Claude Code 2.1.197, `peers/claude` cases `a`, `e3`, `f2`, `g2`, `h`,
//! `r2_subagent`): `session_id`, `transcript_path`, `cwd`, then `prompt_id`
//! and `permission_mode` on the events that carry them, `agent_id` and
//! `agent_type` inside a sub-agent (`agent_type` alone in a session run as
//! an agent), `effort` on the tool-loop events, `hook_event_name`, then
//! the event's own fields.

use std::borrow::Cow;
use std::path::Path;

use serde_json::Value;
use serde_json::value::RawValue;

use crate::dialect::payload::{Json, JsonObject};
use crate::event::Event;

use super::events::ClaudeEvent;

/// What a payload needs besides the event.
pub struct PayloadFacts<'a> {
    /// The working directory hooks run in (`cwd`).
    pub cwd: &'a Path,
    /// The tool's name as hooks see it.
    pub tool: &'a str,
    /// `stop_hook_active` on `Stop` and `SubagentStop`: the agent is
    /// already continuing because of a Stop hook.
    pub stop_hook_active: bool,
    /// The tool's arguments in Claude Code's shape, when the vocabulary
    /// reshapes them (else the event's are sent as written, compacted).
    pub input: Option<&'a Value>,
    /// The tool's result in Claude Code's shape, when the vocabulary
    /// reshapes it.
    pub output: Option<&'a Value>,
    /// `PostToolBatch`: each call's tool name as hooks see it, and its
    /// arguments in Claude Code's shape when the vocabulary reshapes them,
    /// in the order of the event's `tool_calls`.
    pub batch: &'a [(String, Option<Value>)],
    /// The session's title (`session_title` on `UserPromptSubmit` and
    /// `SessionStart`): the event's, else the one latch kept.
    pub session_title: Option<&'a str>,
}

/// The JSON a hook reads on stdin. The tool input and output are borrowed
/// from the event, not copied.
pub fn payload<'a>(ce: ClaudeEvent, event: &'a Event, facts: &PayloadFacts<'a>) -> JsonObject<'a> {
    let mut m = JsonObject::new();
    let put = |m: &mut JsonObject<'a>, k: &'static str, v: Value| {
        m.insert(k, Cow::Owned(v));
    };
    let text = |s: &Option<String>| Value::from(s.clone().unwrap_or_default());
    let path = |p: &Option<std::path::PathBuf>| {
        Value::from(
            p.as_ref()
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default(),
        )
    };
    put(&mut m, "session_id", text(&event.session_id));
    put(&mut m, "transcript_path", path(&event.transcript_path));
    put(&mut m, "cwd", Value::from(facts.cwd.to_string_lossy()));
    // Claude Code 2.1.332 sends it on every event, when its scratchpad
    // feature is on (read from its code, `Sh`; never recorded).
    if let Some(dir) = &event.scratchpad_dir {
        put(&mut m, "scratchpad_dir", Value::from(dir.to_string_lossy()));
    }
    // SessionStart carries the prompt id only after compaction, the id of
    // the prompt that compacted (recorded: `r3_compact_auto`,
    // `r3_session_resume_*`; after a clear 2.1.197 sent it too,
    // `r14j_ss_clear`, and 2.1.332 does not, `r14j_p_ss_clear_stream`), Setup
    // never (`r3_setup_init`), InstructionsLoaded only for the files loaded
    // once a prompt came (`r3_instructions_loaded`: none on `session_start`
    // and `include`; the recorded includes were all of files loaded at the
    // start, so an include of a file loaded later is taken to be alike).
    let after_prompt = event.source.as_deref() == Some("compact");
    let loaded_at_start = ce == ClaudeEvent::InstructionsLoaded
        && matches!(
            event
                .instructions
                .as_ref()
                .and_then(|i| i.load_reason.as_deref()),
            Some("session_start" | "include")
        );
    if ce != ClaudeEvent::Setup
        && (ce != ClaudeEvent::SessionStart || after_prompt)
        && !loaded_at_start
        && let Some(id) = &event.prompt_id
    {
        put(&mut m, "prompt_id", Value::from(id.as_str()));
    }
    if ce.has_permission_mode() {
        put(
            &mut m,
            "permission_mode",
            Value::from(event.permission_mode.as_deref().unwrap_or("default")),
        );
    }
    // Claude Code's base fields end `agent_id, agent_type, effort` (read
    // from its 2.1.197 code; the recordings have the agent fields without
    // an effort and an effort outside sub-agents). `agent_type` comes
    // alone on the main thread of a session run as an agent (`--agent`).
    // The model switch has no sub-agent context: `agent_type` only
    // (Claude Code 2.1.332's `Sh(e, mS())`).
    if let Some(id) = event.agent_id.as_ref().filter(|_| !ce.is_model_switch()) {
        put(&mut m, "agent_id", Value::from(id.as_str()));
    }
    if let Some(ty) = &event.agent_type {
        put(&mut m, "agent_type", Value::from(ty.as_str()));
    }
    // Recorded (`r3_effort_fields`): `{"level": …}` on the tool-loop
    // events, when the harness gives an effort.
    if ce.has_effort()
        && let Some(level) = &event.effort
    {
        put(
            &mut m,
            "effort",
            serde_json::json!({ "level": level.as_str() }),
        );
    }
    put(&mut m, "hook_event_name", Value::from(ce.as_str()));
    let tool = event.tool.as_ref();
    let tool_input = |m: &mut JsonObject<'a>| match (facts.input, tool) {
        (Some(v), _) => m.insert("tool_input", as_javascript_writes(v)),
        (None, Some(t)) => m.insert("tool_input", as_javascript_rewrites(t.input.get())),
        (None, None) => {}
    };
    let call_id = || Value::from(tool.and_then(|t| t.call_id.clone()).unwrap_or_default());
    // Optional fields are left out when the harness gives none.
    let maybe = |m: &mut JsonObject<'a>, k: &'static str, v: Option<Value>| {
        if let Some(v) = v {
            m.insert(k, Cow::Owned(v));
        }
    };
    let opt_path = |p: Option<&std::path::PathBuf>| p.map(|p| Value::from(p.to_string_lossy()));
    // An MCP tool's server, the last key of the tool events (Claude Code
    // 2.1.332, recorded: `r2_mcp_matchers`, `r11_mcp_*`), when the harness
    // names it.
    let server = tool
        .and_then(|t| t.server.as_ref())
        .filter(|_| facts.tool.starts_with("mcp__"))
        .map(|s| serde_json::json!({"name": s.name, "source": s.source}));
    let put_server = |m: &mut JsonObject<'a>| {
        if let Some(s) = &server {
            m.insert("mcp_server", Cow::Owned(s.clone()));
        }
    };
    match ce {
        ClaudeEvent::PreToolUse | ClaudeEvent::PostToolUse | ClaudeEvent::PostToolUseFailure => {
            put(&mut m, "tool_name", Value::from(facts.tool));
            tool_input(&mut m);
            if ce == ClaudeEvent::PostToolUse {
                match (facts.output, tool.and_then(|t| t.output.as_ref())) {
                    (Some(v), _) => m.insert("tool_response", as_javascript_writes(v)),
                    (None, Some(o)) => m.insert("tool_response", as_javascript_rewrites(o.get())),
                    (None, None) => put(&mut m, "tool_response", Value::Null),
                }
            }
            put(&mut m, "tool_use_id", call_id());
            if ce == ClaudeEvent::PostToolUseFailure {
                put(
                    &mut m,
                    "error",
                    Value::from(tool.and_then(|t| t.error.clone()).unwrap_or_default()),
                );
                put(
                    &mut m,
                    "is_interrupt",
                    Value::from(tool.is_some_and(|t| t.interrupted)),
                );
            }
            if ce != ClaudeEvent::PreToolUse
                && let Some(ms) = tool.and_then(|t| t.duration_ms)
            {
                put(&mut m, "duration_ms", Value::from(ms));
            }
            put_server(&mut m);
        }
        ClaudeEvent::PermissionRequest => {
            put(&mut m, "tool_name", Value::from(facts.tool));
            tool_input(&mut m);
            if let Some(s) = &event.permission_suggestions {
                put(&mut m, "permission_suggestions", s.to_value());
            }
            put_server(&mut m);
        }
        // Claude Code 2.1.332 (`lXo`): the command as `tool_input`, then
        // the skill that holds it.
        ClaudeEvent::PreSkillShellCommand => {
            put(&mut m, "tool_name", Value::from(facts.tool));
            tool_input(&mut m);
            put(&mut m, "tool_use_id", call_id());
            let x = event.expansion.clone().unwrap_or_default();
            put(&mut m, "command_name", text(&x.command_name));
            maybe(&mut m, "command_source", x.command_source.map(Value::from));
            put(
                &mut m,
                "invoked_by",
                Value::from(x.invoked_by.unwrap_or_else(|| "other".to_owned())),
            );
        }
        // Claude Code 2.1.332 (`Uxi`, `Bxi`, `hbt`): the figures are the
        // harness's; what it leaves out is sent as Claude Code sends it
        // with no history (0 tokens, a cold cache, 5 minutes, default
        // prices).
        ClaudeEvent::PreModelSwitch | ClaudeEvent::PostModelSwitch => {
            let x = event.model_switch.clone().unwrap_or_default();
            put(&mut m, "from_model", text(&x.from));
            put(&mut m, "to_model", text(&x.to));
            put(&mut m, "requested_model", Value::from(x.requested));
            let source = if ce == ClaudeEvent::PreModelSwitch {
                "command"
            } else {
                "auto"
            };
            put(
                &mut m,
                "source",
                Value::from(event.source.as_deref().unwrap_or(source)),
            );
            put(
                &mut m,
                "context_tokens",
                Value::from(event.context_tokens.unwrap_or(0)),
            );
            put(
                &mut m,
                "prompt_cache_warm",
                Value::from(x.prompt_cache_warm.unwrap_or(false)),
            );
            put(
                &mut m,
                "cache_ttl",
                Value::from(x.cache_ttl.unwrap_or_else(|| "5m".to_owned())),
            );
            m.insert(
                "estimated_cache_write_usd",
                javascript_number(event.estimated_cache_write_usd.unwrap_or(0.0)),
            );
            put(
                &mut m,
                "pricing",
                Value::from(x.pricing.unwrap_or_else(|| "default".to_owned())),
            );
        }
        ClaudeEvent::PermissionDenied => {
            put(&mut m, "tool_name", Value::from(facts.tool));
            tool_input(&mut m);
            put(&mut m, "tool_use_id", call_id());
            put(&mut m, "reason", text(&event.reason));
            put_server(&mut m);
        }
        ClaudeEvent::PostToolBatch => {
            // Each response is serialized to a string, as Claude Code sends it.
            let calls = event
                .tool_calls
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let seen = facts.batch.get(i);
                    serde_json::json!({
                        "tool_name": seen.map_or(t.name.as_str(), |(name, _)| name.as_str()),
                        "tool_input": seen
                            .and_then(|(_, input)| input.clone())
                            .unwrap_or_else(|| t.input.to_value()),
                        "tool_use_id": t.call_id.clone().unwrap_or_default(),
                        "tool_response": t.output.as_ref().map_or_else(
                            || t.error.clone().unwrap_or_default(),
                            |o| match o.to_value() {
                                Value::String(s) => s,
                                other => other.to_string(),
                            },
                        ),
                    })
                })
                .collect();
            put(&mut m, "tool_calls", Value::Array(calls));
        }
        ClaudeEvent::SubagentStart => {}
        // The title is the last key, left out when the session has none
        // (recorded: `r14_ss_title_basic`, `r14_control_no_title`).
        ClaudeEvent::UserPromptSubmit => {
            put(&mut m, "prompt", text(&event.prompt));
            maybe(
                &mut m,
                "session_title",
                facts.session_title.map(Value::from),
            );
        }
        ClaudeEvent::UserPromptExpansion => {
            let x = event.expansion.clone().unwrap_or_default();
            put(
                &mut m,
                "expansion_type",
                Value::from(x.kind.unwrap_or_else(|| "slash_command".to_owned())),
            );
            put(&mut m, "command_name", text(&x.command_name));
            put(&mut m, "command_args", text(&x.command_args));
            maybe(&mut m, "command_source", x.command_source.map(Value::from));
            put(&mut m, "prompt", text(&event.prompt));
        }
        ClaudeEvent::SessionStart => {
            put(
                &mut m,
                "source",
                Value::from(event.source.as_deref().unwrap_or("startup")),
            );
            if let Some(model) = &event.model {
                put(&mut m, "model", Value::from(model.as_str()));
            }
            // Recorded: `r14_ss_title_resume`, `r14_ss_title_compact_stream`.
            maybe(
                &mut m,
                "session_title",
                facts.session_title.map(Value::from),
            );
            // A resumed session's figures, each when the harness gives it
            // (2.1.332 sends the four on `resume` and `fork` after an
            // answer; recorded: `r3_session_resume_id`, `r14_ss_title_resume`).
            if matches!(event.source.as_deref(), Some("resume" | "fork"))
                && let Some(seconds) = event.seconds_since_last_response
            {
                put(&mut m, "seconds_since_last_response", Value::from(seconds));
                maybe(
                    &mut m,
                    "context_tokens",
                    event.context_tokens.map(Value::from),
                );
                maybe(
                    &mut m,
                    "prompt_cache_likely_expired",
                    event.prompt_cache_likely_expired.map(Value::from),
                );
                if let Some(usd) = event.estimated_cache_write_usd {
                    m.insert("estimated_cache_write_usd", javascript_number(usd));
                }
            }
        }
        ClaudeEvent::Setup => put(
            &mut m,
            "trigger",
            Value::from(event.trigger.as_deref().unwrap_or("init")),
        ),
        ClaudeEvent::InstructionsLoaded => {
            let i = event.instructions.clone().unwrap_or_default();
            put(&mut m, "file_path", path(&i.file_path));
            put(&mut m, "memory_type", text(&i.memory_type));
            put(
                &mut m,
                "load_reason",
                Value::from(i.load_reason.unwrap_or_else(|| "session_start".to_owned())),
            );
            maybe(&mut m, "globs", i.globs.map(Value::from));
            maybe(
                &mut m,
                "trigger_file_path",
                opt_path(i.trigger_file_path.as_ref()),
            );
            maybe(
                &mut m,
                "parent_file_path",
                opt_path(i.parent_file_path.as_ref()),
            );
        }
        ClaudeEvent::MessageDisplay => {
            let d = event.display.clone().unwrap_or_default();
            put(&mut m, "turn_id", text(&event.turn_id));
            put(&mut m, "message_id", text(&d.message_id));
            put(&mut m, "index", Value::from(d.index.unwrap_or(0)));
            put(&mut m, "final", Value::from(d.last));
            put(&mut m, "delta", text(&d.delta));
        }
        ClaudeEvent::SessionEnd => put(
            &mut m,
            "reason",
            Value::from(event.reason.as_deref().unwrap_or("other")),
        ),
        ClaudeEvent::Stop | ClaudeEvent::SubagentStop => {
            put(
                &mut m,
                "stop_hook_active",
                Value::from(facts.stop_hook_active),
            );
            if ce == ClaudeEvent::SubagentStop {
                put(
                    &mut m,
                    "agent_transcript_path",
                    path(&event.agent_transcript_path),
                );
            }
            put(
                &mut m,
                "last_assistant_message",
                text(&event.last_assistant_message),
            );
            // latch knows no background tasks or scheduled prompts.
            put(&mut m, "background_tasks", Value::Array(Vec::new()));
            put(&mut m, "session_crons", Value::Array(Vec::new()));
        }
        ClaudeEvent::StopFailure => {
            put(
                &mut m,
                "error",
                Value::from(event.error.as_deref().unwrap_or("unknown")),
            );
            maybe(
                &mut m,
                "error_details",
                event.error_details.clone().map(Value::from),
            );
            put(
                &mut m,
                "last_assistant_message",
                text(&event.last_assistant_message),
            );
        }
        ClaudeEvent::TaskCreated | ClaudeEvent::TaskCompleted => {
            let t = event.task.clone().unwrap_or_default();
            put(&mut m, "task_id", text(&t.id));
            put(&mut m, "task_subject", text(&t.subject));
            maybe(&mut m, "task_description", t.description.map(Value::from));
            let team = event.team.clone().unwrap_or_default();
            maybe(&mut m, "teammate_name", team.teammate_name.map(Value::from));
            maybe(&mut m, "team_name", team.team_name.map(Value::from));
        }
        ClaudeEvent::TeammateIdle => {
            let team = event.team.clone().unwrap_or_default();
            put(&mut m, "teammate_name", text(&team.teammate_name));
            put(&mut m, "team_name", text(&team.team_name));
        }
        ClaudeEvent::ConfigChange => {
            put(
                &mut m,
                "source",
                Value::from(event.source.as_deref().unwrap_or(ce.default_source())),
            );
            maybe(&mut m, "file_path", opt_path(event.file_path.as_ref()));
        }
        ClaudeEvent::CwdChanged => {
            // The directory the shell moved to, even one the harness moved
            // it back from (recorded: `r3_cwd_changed`, `cd /tmp`).
            put(&mut m, "old_cwd", path(&event.old_cwd));
            let new = event.cwd.as_deref().unwrap_or(facts.cwd);
            put(&mut m, "new_cwd", Value::from(new.to_string_lossy()));
        }
        ClaudeEvent::DirectoryAdded => {
            put(&mut m, "directory", path(&event.directory));
            put(
                &mut m,
                "source",
                Value::from(event.source.as_deref().unwrap_or(ce.default_source())),
            );
        }
        ClaudeEvent::FileChanged => {
            put(&mut m, "file_path", path(&event.file_path));
            put(
                &mut m,
                "event",
                Value::from(event.change.as_deref().unwrap_or("change")),
            );
        }
        ClaudeEvent::WorktreeCreate => {
            let w = event.worktree.clone().unwrap_or_default();
            put(&mut m, "name", text(&w.name));
        }
        ClaudeEvent::WorktreeRemove => {
            let w = event.worktree.clone().unwrap_or_default();
            put(&mut m, "worktree_path", path(&w.path));
        }
        ClaudeEvent::Elicitation | ClaudeEvent::ElicitationResult => {
            let x = event.elicitation.clone().unwrap_or_default();
            put(&mut m, "mcp_server_name", text(&x.server));
            if ce == ClaudeEvent::Elicitation {
                put(&mut m, "message", text(&x.message));
            }
            maybe(&mut m, "mode", x.mode.map(Value::from));
            maybe(&mut m, "url", x.url.map(Value::from));
            maybe(&mut m, "elicitation_id", x.id.map(Value::from));
            if ce == ClaudeEvent::Elicitation {
                maybe(&mut m, "requested_schema", x.requested_schema);
            } else {
                put(
                    &mut m,
                    "action",
                    Value::from(x.action.unwrap_or_else(|| "cancel".to_owned())),
                );
                maybe(&mut m, "content", x.content);
            }
        }
        ClaudeEvent::Notification => {
            put(&mut m, "message", text(&event.message));
            if let Some(title) = &event.title {
                put(&mut m, "title", Value::from(title.as_str()));
            }
            put(&mut m, "notification_type", text(&event.notification_type));
        }
        ClaudeEvent::PreCompact | ClaudeEvent::PostCompact => {
            let c = event.compaction.as_ref();
            put(
                &mut m,
                "trigger",
                Value::from(event.trigger.as_deref().unwrap_or("auto")),
            );
            // `custom_instructions` is `null` when there are none
            // (recorded: `r3_compact_auto`).
            if ce == ClaudeEvent::PreCompact {
                let instructions = c.and_then(|c| c.instructions.clone());
                put(&mut m, "custom_instructions", Value::from(instructions));
            } else {
                let summary = c.and_then(|c| c.summary.clone()).unwrap_or_default();
                put(&mut m, "compact_summary", Value::from(summary));
            }
        }
    }
    m
}

/// A harness's JSON text as Claude Code would write the value it holds
/// (`JSON.stringify`; see [`crate::dialect::js_json`]), or compacted as
/// the harness wrote it when it cannot be rewritten.
fn as_javascript_rewrites(text: &RawValue) -> Json<'_> {
    // Most tool calls' inputs are written so already, but for spaces
    // between tokens: handed on compacted, unparsed.
    if crate::dialect::js_json::stringified_already(text.get()) {
        return Json::compact(text);
    }
    crate::dialect::js_json::restringify(text.get())
        .and_then(|s| RawValue::from_string(s).ok())
        .map_or_else(|| Json::compact(text), |raw| Json::Raw(Cow::Owned(raw)))
}

/// A number as `JSON.stringify` writes it (`0`, not serde's `0.0`).
fn javascript_number(n: f64) -> Json<'static> {
    RawValue::from_string(crate::dialect::js_json::js_number(n)).map_or_else(
        |_| Json::Value(Cow::Owned(Value::from(n))),
        |raw| Json::Raw(Cow::Owned(raw)),
    )
}

/// A value as `JSON.stringify` writes it.
fn as_javascript_writes(value: &Value) -> Json<'_> {
    RawValue::from_string(crate::dialect::js_json::stringify(value)).map_or_else(
        |_| Json::Value(Cow::Borrowed(value)),
        |raw| Json::Raw(Cow::Owned(raw)),
    )
}
