//! Running the selected handlers in order and combining their results by
//! Evener's rules into one [`Outcome`].
//!
//! - Handlers run one at a time: plugins in `--plugin-dir` order, groups
//!   and handlers in file order.
//! - PreToolUse: every hook sees the raw arguments; their `updatedInput`s
//!   are merged in order afterwards, then the harness's validator runs on
//!   the final arguments. Any deny blocks the call.
//! - Exit 2 and `decision: "block"` have the effect the spec's exit-code
//!   table gives each event; other failures are non-blocking errors.
//! - SessionStart failures become one user warning in Evener's format;
//!   SessionEnd output is discarded.

use std::ffi::OsString;
use std::path::PathBuf;

use serde_json::{Map, Value};

use crate::dialect::output_json;
use crate::event::Event;
use crate::outcome::{
    Continuation, Decision, ErrorCategory, HookRun, Injection, Notice, NoticeKind, Outcome,
    Placement, Reason, RunStatus,
};
use crate::pipeline::{self, DispatchContext, Job};
use crate::run::{EnvPolicy, HookCommand, OutputLimits, OutputWait, Program};

use super::events::{EvEvent, payload};
use super::judge::{Output, Verdict, judge_run, judge_text};
use super::load::{Handler, HandlerKind, Matcher};
use super::prompt::{ask, render};
use super::{DIALECT, Evener, Plugin};
use crate::model::AskError;

/// Output kept per stream. Evener documents no limit; latch keeps 1 MiB of
/// each and says so when it cuts.
pub const MAX_OUTPUT: usize = 1024 * 1024;

/// Variables removed from what hooks inherit: the three Evener does not
/// set, the two latch sets per hook (so a stale value from latch's caller
/// never shows through), and the prompt handler's API keys.
pub const UNSET_VARS: [&str; 7] = [
    "CLAUDE_PLUGIN_DATA",
    "CLAUDE_CODE_REMOTE",
    "CLAUDE_ENV_FILE",
    "CLAUDE_EFFORT",
    "CLAUDE_PROJECT_DIR",
    "LATCH_PROMPT_API_KEY",
    "OPENAI_API_KEY",
];

/// The variables evener sets in a command's environment (`command_env`);
/// lint and convert check a hook's reads against this list.
pub const SET_VARS: [&str; 4] = [
    "CLAUDE_PLUGIN_ROOT",
    "PLUGIN_ROOT",
    "CLAUDE_PROJECT_DIR",
    "CLAUDE_EFFORT",
];

/// A SessionStart failure line keeps this many characters of output.
const SUMMARY_CHARS: usize = 160;

struct State {
    ev: EvEvent,
    merges: Vec<Map<String, Value>>,
    /// The plugins whose hooks returned an `updatedInput`, in order.
    mergers: Vec<String>,
    continuing: Vec<String>,
    continuation_texts: Vec<String>,
    out: Outcome,
}

/// Runs Evener's hooks for one event.
pub async fn dispatch(evener: &Evener, event: &Event, cx: &DispatchContext<'_>) -> Outcome {
    let Some(ev) = EvEvent::from_kind(event.event) else {
        return Outcome::proceed(event.event);
    };
    // A pending, unanswered question is a stronger stop than any hook.
    if ev == EvEvent::Stop && event.pending_questions {
        return Outcome::proceed(event.event);
    }
    let mut st = State {
        ev,
        merges: Vec::new(),
        mergers: Vec::new(),
        continuing: Vec::new(),
        continuation_texts: Vec::new(),
        out: Outcome::proceed(event.event),
    };
    let options = evener.options();
    let project = event.workdir(options.project.as_deref());
    // Serialized once; each handler's command borrows the buffer and hands
    // it back after its run, so a large payload is never copied.
    let mut stdin = crate::dialect::payload::to_bytes(&payload(ev, event, &options.tool_names));
    'groups: for (plugin, group) in evener.select(event) {
        if let Matcher::Invalid(error) = &group.matcher {
            let mut record = HookRun::new(
                &plugin.name,
                DIALECT,
                ev.as_str(),
                Some(group.source.clone()),
            );
            record.status = RunStatus::Skipped;
            record.error = Some(ErrorCategory::InvalidMatcher);
            record.message = Some(format!(
                "invalid matcher regex \"{}\": {error}",
                crate::matcher::pattern::shown(&group.matcher_text)
            ));
            st.out.runs.push(record);
            continue;
        }
        for handler in &group.handlers {
            if cx.cancel.is_cancelled() {
                break 'groups;
            }
            let mut record = HookRun::new(
                &plugin.name,
                DIALECT,
                ev.as_str(),
                Some(handler.source.clone()),
            );
            let definition =
                || super::trust::definition(evener, plugin, group, handler, project.as_deref());
            if crate::trust::check(
                cx.trust,
                DIALECT,
                definition,
                &mut st.out.warnings,
                &mut record,
            ) {
                st.out.runs.push(record);
                continue;
            }
            let verdict = match &handler.kind {
                HandlerKind::Unsupported(t) => {
                    record.status = RunStatus::Skipped;
                    record.error = Some(ErrorCategory::UnsupportedHandler);
                    record.message = Some(format!("handler type \"{t}\" is not supported"));
                    st.out.runs.push(record);
                    continue;
                }
                HandlerKind::Command(Err(why)) => Verdict::Failed {
                    category: ErrorCategory::CommandError,
                    message: why.clone(),
                    exit_code: None,
                    text: String::new(),
                },
                HandlerKind::Command(Ok(program)) => {
                    let cmd = command(
                        program,
                        plugin,
                        handler,
                        event,
                        project.clone(),
                        std::mem::take(&mut stdin),
                    );
                    let done = pipeline::run(
                        cx,
                        Job {
                            command: cmd,
                            record,
                        },
                    )
                    .await;
                    record = done.record;
                    stdin = done.stdin;
                    let result = done.result;
                    if result.stdout.truncated || result.stderr.truncated {
                        st.out.warnings.push(format!(
                            "{ev} hook {} printed more than 1 MiB; latch kept the first 1 MiB",
                            plugin.name
                        ));
                    }
                    // A cut at the 1 MiB cap may split a character: that
                    // is the cap's doing, not invalid output.
                    let invalid = |c: &crate::run::Captured| match std::str::from_utf8(&c.bytes) {
                        Ok(_) => false,
                        Err(e) => !(c.truncated && e.error_len().is_none()),
                    };
                    if invalid(&result.stdout) || invalid(&result.stderr) {
                        st.out.warnings.push(format!(
                            "{ev} hook {} printed invalid UTF-8; latch replaced the bad bytes with U+FFFD",
                            plugin.name
                        ));
                    }
                    st.out.warnings.extend(done.warning);
                    judge_run(&result, handler.timeout.as_secs_f64())
                }
                HandlerKind::Prompt { prompt, model } => {
                    let started = std::time::Instant::now();
                    let text = render(prompt, event, &options.tool_names);
                    // A failure of a prompt handler is a `prompt_error`,
                    // except a call past the handler's `timeout` and a
                    // cancelled dispatch: those have the categories every
                    // run shares (`timeout`, `cancelled`), as for commands.
                    let reply = tokio::select! {
                        r = ask(&options.prompt, text, model.as_deref(), handler.timeout) => r.map_err(|e| match e {
                            AskError::TimedOut(m) => (ErrorCategory::Timeout, m),
                            AskError::Failed(m) => (ErrorCategory::PromptError, m),
                        }),
                        _ = cx.cancel.cancelled() => Err((ErrorCategory::Cancelled, "cancelled while running".to_owned())),
                    };
                    record.took(started.elapsed());
                    if let Ok(r) = &reply
                        && r.truncated
                    {
                        record.stdout_truncated = true;
                        st.out.warnings.push(format!(
                            "{ev} hook {} replied with more than 1 MiB; latch kept the first 1 MiB",
                            plugin.name
                        ));
                    }
                    match reply {
                        Ok(reply) => match judge_text(&reply.text) {
                            Verdict::Failed { message, .. } => Verdict::Failed {
                                category: ErrorCategory::PromptError,
                                message: format!("the model's reply: {message}"),
                                exit_code: None,
                                text: String::new(),
                            },
                            v => v,
                        },
                        Err((category, message)) => Verdict::Failed {
                            category,
                            message,
                            exit_code: None,
                            text: String::new(),
                        },
                    }
                }
            };
            st.apply(plugin, verdict, &mut record);
            st.out.runs.push(record);
        }
    }
    st.finish(event, cx)
}

fn command(
    program: &Program,
    plugin: &Plugin,
    handler: &Handler,
    event: &Event,
    project: Option<PathBuf>,
    stdin: Vec<u8>,
) -> HookCommand {
    let root = plugin.root.as_os_str().to_owned();
    let mut env: Vec<(OsString, OsString)> = std::env::vars_os()
        .filter(|(k, _)| !UNSET_VARS.iter().any(|u| k == u))
        .collect();
    env.push(("CLAUDE_PLUGIN_ROOT".into(), root.clone()));
    env.push(("PLUGIN_ROOT".into(), root));
    if let Some(dir) = &project {
        env.push(("CLAUDE_PROJECT_DIR".into(), dir.as_os_str().to_owned()));
    }
    if let Some(effort) = &event.effort {
        env.push(("CLAUDE_EFFORT".into(), effort.into()));
    }
    HookCommand {
        program: program.clone(),
        env: EnvPolicy::Only(env),
        cwd: project,
        stdin,
        timeout: handler.timeout,
        limits: OutputLimits {
            stdout: MAX_OUTPUT,
            stderr: MAX_OUTPUT,
        },
        output_wait: OutputWait::Drain,
        detach: None,
    }
}

/// Wraps text for the model as Evener does. A closing
/// `</SYSTEM-REMINDER` inside the text (any case, any whitespace around
/// the slash) has its `<` written `&lt;`, so the text cannot end the
/// wrapper early; everything else is written as is.
pub fn system_reminder(text: &str) -> String {
    let text = crate::text::neutralize_close_tag(text, "SYSTEM-REMINDER");
    format!("<SYSTEM-REMINDER>\n{text}\n</SYSTEM-REMINDER>")
}

fn placement(ev: EvEvent) -> Placement {
    match ev {
        EvEvent::SessionStart => Placement::SystemPrompt,
        EvEvent::PreToolUse | EvEvent::PostToolUse => Placement::AfterToolResult,
        EvEvent::PreCompact => Placement::AfterCompaction,
        _ => Placement::WithPrompt,
    }
}

impl State {
    fn context(&mut self, plugin: &str, text: &str) {
        if !text.trim().is_empty() {
            self.out.context.push(Injection {
                hook: plugin.to_owned(),
                placement: placement(self.ev),
                text: system_reminder(text.trim()),
                own_message: false,
            });
        }
    }

    fn deny(&mut self, plugin: &str, reason: Option<String>, record: &mut HookRun) {
        let text = reason
            .filter(|r| !r.trim().is_empty())
            .unwrap_or_else(|| format!("blocked by {} hook {plugin}", self.ev));
        self.out.decision = Decision::Deny;
        record.status = RunStatus::Blocked;
        record.error = Some(ErrorCategory::HookBlocked);
        record.message = Some(crate::text::summary(&text, SUMMARY_CHARS));
        self.out.notices.push(Notice {
            hook: plugin.to_owned(),
            event: self.ev.as_str().to_owned(),
            kind: NoticeKind::Block,
            text: text.clone(),
        });
        self.out.reasons.push(Reason {
            hook: plugin.to_owned(),
            text,
        });
    }

    fn keep_going(&mut self, plugin: &str, text: Option<String>, record: &mut HookRun) {
        record.status = RunStatus::Continued;
        record.error = Some(ErrorCategory::HookBlocked);
        self.continuing.push(plugin.to_owned());
        self.continuation_texts
            .extend(text.filter(|t| !t.trim().is_empty()));
    }

    /// The effect of exit 2 (and of `decision: "block"`) on each event.
    fn block_effect(&mut self, plugin: &str, text: String, record: &mut HookRun) {
        match self.ev {
            EvEvent::PreToolUse => self.deny(plugin, Some(text), record),
            EvEvent::Stop | EvEvent::SubagentStop => self.keep_going(plugin, Some(text), record),
            EvEvent::UserPromptSubmit
            | EvEvent::PreCompact
            | EvEvent::PostToolUse
            | EvEvent::Notification => {
                record.message = Some(format!(
                    "block is not enforced on {}; the text was delivered to the model",
                    self.ev
                ));
                self.context(plugin, &text);
            }
            EvEvent::SessionStart => {
                // Exit 2 is no block on SessionStart: a failure like any non-zero exit.
                record.fail(ErrorCategory::CommandError, "exited with code 2");
                self.session_start_failed(plugin, Some(2), &text, "")
            }
            EvEvent::SessionEnd => record.message = Some("SessionEnd output is discarded".into()),
        }
    }

    fn session_start_failed(&mut self, plugin: &str, exit: Option<i32>, text: &str, error: &str) {
        let line = match exit {
            Some(code) => {
                let first = crate::text::summary(text, SUMMARY_CHARS);
                if first.is_empty() {
                    format!("SessionStart hook {plugin} failed (exit {code})")
                } else {
                    format!("SessionStart hook {plugin} failed (exit {code}): {first}")
                }
            }
            None => format!("SessionStart hook {plugin} failed to run: {error}"),
        };
        self.out.warnings.push(line);
    }

    fn apply(&mut self, plugin: &Plugin, verdict: Verdict, record: &mut HookRun) {
        let name = plugin.name.as_str();
        let ev = self.ev;
        match verdict {
            Verdict::Empty => {}
            Verdict::Text(text) => match ev {
                EvEvent::SessionStart | EvEvent::UserPromptSubmit => self.context(name, &text),
                EvEvent::SessionEnd => {
                    record.message = Some("SessionEnd output is discarded".into())
                }
                _ => self.out.warnings.push(format!("{ev} hook {name}: {text}")),
            },
            Verdict::Json(o) => {
                if ev == EvEvent::SessionEnd {
                    record.message = Some("SessionEnd output is discarded".into());
                } else {
                    self.json(name, *o, record);
                }
            }
            Verdict::Exit2(text) => self.block_effect(name, text, record),
            Verdict::Failed {
                category,
                message,
                exit_code,
                text,
            } => {
                record.fail(category, message.clone());
                match ev {
                    EvEvent::SessionEnd => {}
                    EvEvent::SessionStart if category != ErrorCategory::ParseError => {
                        self.session_start_failed(name, exit_code, &text, &message)
                    }
                    _ => {
                        let detail = crate::text::detail(&text, SUMMARY_CHARS);
                        self.out
                            .warnings
                            .push(format!("{ev} hook {name} failed: {message}{detail}"));
                    }
                }
            }
        }
    }

    fn json(&mut self, name: &str, o: Output, record: &mut HookRun) {
        let ev = self.ev;
        record.ignored_fields.extend(o.no_effect);
        output_json::note_ignored(
            &o.too_deep,
            || format!("{ev} hook {name}"),
            record,
            &mut self.out.warnings,
        );
        if let Some(msg) = o.system_message.filter(|m| !m.trim().is_empty()) {
            self.out.warnings.push(msg);
        }
        if let Some(ctx) = &o.additional_context {
            self.context(name, ctx);
        }
        if ev == EvEvent::PreToolUse {
            // The preferred permissionDecision wins over the deprecated
            // top-level decision; the deprecated form is the fallback.
            let (decision, reason) = match (&o.permission_decision, o.decision.as_deref()) {
                (Some(d), _) => (
                    Some(d.clone()),
                    o.permission_reason.clone().or(o.reason.clone()),
                ),
                (None, Some("approve")) => (Some("allow".to_owned()), o.reason.clone()),
                (None, Some("block")) => (Some("deny".to_owned()), o.reason.clone()),
                (None, Some(other)) => {
                    record
                        .ignored_fields
                        .push(format!("decision \"{other}\" (approve or block)"));
                    (None, None)
                }
                (None, None) => (None, None),
            };
            match decision.as_deref() {
                Some("deny") => self.deny(name, reason, record),
                Some("allow") | None => {}
                Some(d @ ("ask" | "defer")) => self.out.warnings.push(format!(
                    "PreToolUse hook {name} returned permissionDecision \"{d}\", which evener does not honour (no interactive permission prompt); the call proceeds"
                )),
                Some(other) => record
                    .ignored_fields
                    .push(format!("permissionDecision \"{other}\" (allow, deny, ask or defer)")),
            }
            if let Some(input) = o.updated_input {
                self.merges.push(input);
                if !self.mergers.iter().any(|m| m == name) {
                    self.mergers.push(name.to_owned());
                }
            }
            return;
        }
        if o.permission_decision.is_some() {
            record
                .ignored_fields
                .push(format!("permissionDecision (only on PreToolUse, not {ev})"));
        }
        if o.updated_input.is_some() {
            record
                .ignored_fields
                .push(format!("updatedInput (only on PreToolUse, not {ev})"));
        }
        match o.decision.as_deref() {
            Some("block") => match ev {
                EvEvent::Stop | EvEvent::SubagentStop => self.keep_going(name, o.reason, record),
                EvEvent::SessionStart => record
                    .ignored_fields
                    .push("decision \"block\" (SessionStart cannot block)".into()),
                _ => self.block_effect(name, o.reason.unwrap_or_default(), record),
            },
            Some(other) => record
                .ignored_fields
                .push(format!("decision \"{other}\" (not honoured on {ev})")),
            None => {}
        }
    }

    fn finish(mut self, event: &Event, cx: &DispatchContext<'_>) -> Outcome {
        match self.ev {
            EvEvent::PreToolUse if !self.out.is_denied() && !self.merges.is_empty() => {
                let raw = event
                    .tool
                    .as_ref()
                    .map(|t| t.input.to_value())
                    .unwrap_or(Value::Null);
                let mut merged = match &raw {
                    Value::Object(m) => m.clone(),
                    _ => Map::new(),
                };
                for m in std::mem::take(&mut self.merges) {
                    merged.extend(m);
                }
                let merged = Value::Object(merged);
                let tool = event.tool_name().unwrap_or("");
                match cx.validator.validate(tool, &merged) {
                    Ok(()) if merged != raw => self.out.tool_input = Some(merged),
                    Ok(()) => {}
                    Err(why) => {
                        // The rewrite belongs to every hook that returned
                        // updatedInput; one record names them all.
                        let hooks = std::mem::take(&mut self.mergers).join(", ");
                        let mut record = HookRun::new(&hooks, DIALECT, "PreToolUse", None);
                        self.deny(
                            &hooks,
                            Some(format!(
                                "the arguments rewritten by {hooks} failed validation: {why}"
                            )),
                            &mut record,
                        );
                        record.error = Some(ErrorCategory::InvalidRewrite);
                        record.message = Some(format!("updatedInput failed validation: {why}"));
                        self.out.runs.push(record);
                    }
                }
            }
            EvEvent::Stop | EvEvent::SubagentStop if !self.continuing.is_empty() => {
                // One continuation per stop, however many hooks blocked
                // (for SubagentStop: exactly one continuation).
                let prompt = if self.continuation_texts.is_empty() {
                    format!(
                        "{} hook {} blocked stopping.",
                        self.ev,
                        self.continuing.join(", ")
                    )
                } else {
                    self.continuation_texts.join("\n")
                };
                self.out.continuation = Some(Continuation {
                    prompt,
                    hooks: self.continuing.clone(),
                });
            }
            _ => {}
        }
        self.out
    }
}
