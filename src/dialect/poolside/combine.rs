//! Running the selected hooks one after another and combining their
//! verdicts into one [`Outcome`], by poolside's rules:
//!
//! - hooks run sequentially in configuration order, never in parallel;
//! - rewrites thread from hook to hook: each sees the previous hook's
//!   validated rewrite;
//! - any deny blocks; deny reasons combine in order; later hooks still run,
//!   but their rewrites are not applied after a deny; context accumulates;
//! - a failed hook is skipped, the model is told, and it never blocks;
//! - Stop continuations are capped by `stop_hook_max_continuations`.

use std::borrow::Cow;
use std::ffi::OsString;
use std::path::PathBuf;

use serde_json::Value;

use crate::dialect::output_json;
use crate::event::Event;
use crate::outcome::{
    Continuation, Decision, ErrorCategory, HookRun, Injection, NoticeKind, Outcome, Placement,
    Reason, RunStatus,
};
use crate::pipeline::{self, DispatchContext, Job};
use crate::run::{EnvPolicy, HookCommand, OutputLimits, OutputWait, Program};
use crate::text::cap;

use super::events::{PoolEvent, Threaded, payload};
use super::judge::{Answer, MAX_STDERR, MAX_STDOUT, Verdict, judge};
use super::load::Hook;
use super::notice::{self, MODEL_TEXT_CAP, notice};
use super::{DIALECT, Poolside};
use crate::dialect::payload::Json;

/// The session key of the consecutive-continuation counter.
pub const CONTINUATIONS_KEY: &str = "poolside.stop_continuations";

/// The shell every poolside command runs through.
const SHELL: &str = "/bin/sh";

/// The state of one dispatch as hooks run.
struct Fold<'a> {
    event: PoolEvent,
    now: Threaded<'a>,
    continuing: Vec<String>,
    continuation_texts: Vec<String>,
    output_rewriters: Vec<String>,
    out: Outcome,
    tool: &'a str,
}

/// Runs poolside's hooks for one event.
pub async fn dispatch(cfg: &Poolside, event: &Event, cx: &DispatchContext<'_>) -> Outcome {
    let Some(pe) = PoolEvent::from_kind(event.event) else {
        return Outcome::proceed(event.event);
    };
    let mut fold = Fold {
        event: pe,
        now: Threaded::from_event(event),
        continuing: Vec::new(),
        continuation_texts: Vec::new(),
        output_rewriters: Vec::new(),
        out: Outcome::proceed(event.event),
        tool: event.tool_name().unwrap_or(""),
    };
    if pe == PoolEvent::UserPromptSubmit {
        // A real prompt resets the count of consecutive Stop continuations.
        // When the state cannot be had, the count stays as it was: a later
        // Stop is refused sooner, never allowed past the cap.
        if let Err(e) = cx
            .session
            .update(cx.cancel, |s| s.set_counter(CONTINUATIONS_KEY, 0))
            .await
        {
            fold.out.warnings.push(format!(
                "latch could not reset the Stop continuation counter: {e}"
            ));
        }
    }
    let original = fold.now.clone();
    // Hooks run in the agent's working directory, else in the project.
    let cwd = event.workdir(cfg.workdir());
    let target = event.tool_name().filter(|_| pe.uses_matcher());
    // Under a trust policy, a declaration held back gives way to the less
    // specific level's hook of the same name it replaced, where that one's
    // own matcher selects the tool: an unapproved project file cannot turn
    // the user's guard off by naming its own hook alike (whatever its own
    // matcher). So every declaration is walked, not only the selected.
    let gated = cx.trust.is_some_and(|g| g.checks(DIALECT));
    let declared: Vec<&Hook> = if gated {
        cfg.hooks(pe).iter().collect()
    } else {
        cfg.select(event)
    };
    for declared in declared {
        if cx.cancel.is_cancelled() {
            break;
        }
        let mut next = Some(declared);
        while let Some(hook) = next.take() {
            let definition = || super::trust::definition(cfg, pe, hook, cwd.as_deref());
            if !hook.selects(target) {
                // It runs nothing here; held back, it still gives way to
                // the hook it replaced, which may select the tool.
                let held = gated
                    && cx.trust.is_some_and(|g| {
                        matches!(g.admit(&definition()), crate::trust::Admission::Refuse(_))
                    });
                next = hook.replaced.as_deref().filter(|_| held);
                continue;
            }
            let mut record =
                HookRun::new(&hook.label, DIALECT, pe.as_str(), Some(hook.source.clone()));
            if crate::trust::check(
                cx.trust,
                DIALECT,
                definition,
                &mut fold.out.warnings,
                &mut record,
            ) {
                // Held back: recorded so, and the hook it replaced is next.
                fold.out.runs.push(record);
                next = hook.replaced.as_deref();
                continue;
            }
            let record = run_one(&mut fold, hook, record, event, cx, cwd.clone()).await;
            fold.out.runs.push(record);
        }
    }
    fold.finish(&original, cfg.max_continuations(), cx).await
}

/// Runs one hook; `record` names it (and holds its trust state).
async fn run_one(
    fold: &mut Fold<'_>,
    hook: &Hook,
    mut record: HookRun,
    event: &Event,
    cx: &DispatchContext<'_>,
    cwd: Option<PathBuf>,
) -> HookRun {
    let pe = fold.event;
    if let Some(why) = hook.disabled() {
        record.status = RunStatus::Skipped;
        record.error = Some(ErrorCategory::InvalidMatcher);
        record.message = Some(why);
        return record;
    }
    let stdin = crate::dialect::payload::to_bytes(&payload(pe, event, cx.event_id, &fold.now));
    let cmd = HookCommand {
        program: Program::Shell {
            shell: PathBuf::from(SHELL),
            script: hook.command.clone(),
        },
        env: EnvPolicy::Inherit(Vec::<(OsString, OsString)>::new()),
        cwd,
        stdin,
        timeout: hook.timeout,
        limits: OutputLimits {
            stdout: MAX_STDOUT,
            stderr: MAX_STDERR,
        },
        output_wait: OutputWait::Drain,
        detach: None,
    };
    let done = pipeline::run(
        cx,
        Job {
            command: cmd,
            record,
        },
    )
    .await;
    let (result, mut record) = (done.result, done.record);
    fold.out.warnings.extend(done.warning);
    match judge(pe, &result, hook.timeout.as_secs_f64()) {
        Verdict::Failed { category, message } => {
            fold.out.notices.push(notice(
                NoticeKind::Failure,
                &hook.label,
                pe,
                &format!(
                    "The hook failed and was skipped: {message}. The event continued without it."
                ),
            ));
            record.fail(category, message);
        }
        Verdict::Answered(answer) => fold.apply(hook, *answer, &mut record, cx),
    }
    record
}

impl Fold<'_> {
    fn apply(&mut self, hook: &Hook, a: Answer, record: &mut HookRun, cx: &DispatchContext<'_>) {
        let pe = self.event;
        let label = hook.label.as_str();
        record.ignored_fields = a.ignored_fields;
        output_json::note_ignored(
            &a.too_deep,
            || format!("{pe} hook {label}"),
            record,
            &mut self.out.warnings,
        );
        for (field, why) in &a.rejected {
            self.reject(label, field, why, record);
        }
        if let Some(reason) = a.deny {
            let text = if reason.trim().is_empty() {
                notice::default_reason(label)
            } else {
                reason
            };
            self.block(label, text, record, ErrorCategory::HookBlocked);
        }
        if let Some(input) = a.tool_input {
            if self.out.is_denied() {
                record
                    .ignored_fields
                    .push("updated_input (after a deny)".into());
            } else {
                match cx.validator.validate(self.tool, &input) {
                    Ok(()) => {
                        let shown = serde_json::to_string(&input).unwrap_or_default();
                        self.now.tool_input = Json::Value(Cow::Owned(input));
                        self.out.notices.push(notice(
                            NoticeKind::Rewrite,
                            label,
                            pe,
                            &format!("Rewrote the tool arguments; the tool runs with: {shown}"),
                        ));
                    }
                    Err(why) => {
                        let text = format!(
                            "hook {label} rewrote the tool arguments, but they failed validation: {why}"
                        );
                        self.block(label, text, record, ErrorCategory::InvalidRewrite);
                    }
                }
            }
        }
        if let Some(text) = a.tool_output {
            match text {
                Ok(t) => {
                    self.now.tool_output = Json::Value(Cow::Owned(Value::String(t)));
                    self.output_rewriters.push(label.to_owned());
                }
                Err(why) => self.reject(label, "updated_tool_output", &why, record),
            }
        }
        if let Some(text) = a.prompt {
            match text {
                Ok(_) if self.out.is_denied() => record
                    .ignored_fields
                    .push("updated_prompt (after a deny)".into()),
                Ok(t) => {
                    self.now.prompt = Some(t);
                    self.out.notices.push(notice(
                        NoticeKind::Rewrite,
                        label,
                        pe,
                        "Rewrote the user's prompt.",
                    ));
                }
                Err(why) => self.reject(label, "updated_prompt", &why, record),
            }
        }
        if let Some(text) = a.context {
            match text {
                Ok(t) if !t.is_empty() => self.out.context.push(Injection {
                    hook: label.to_owned(),
                    placement: placement(pe),
                    text: cap(&t, MODEL_TEXT_CAP),
                    own_message: false,
                }),
                Ok(_) => {}
                Err(why) => self.reject(label, "additional_context", &why, record),
            }
        }
        if let Some(text) = a.continuation {
            record.status = RunStatus::Continued;
            self.continuing.push(label.to_owned());
            self.continuation_texts.extend(text);
        }
        if let Some(what) = a.refused {
            record
                .ignored_fields
                .push(format!("{what} (not possible on {pe})"));
            if pe == PoolEvent::PostToolUse {
                self.out.warnings.push(format!(
                    "hook {label} {what} on PostToolUse, which cannot block; it was ignored"
                ));
            } else {
                self.out.notices.push(notice(
                    NoticeKind::Ignored,
                    label,
                    pe,
                    &format!("The hook {what}, which {pe} cannot do; the request was ignored."),
                ));
            }
        }
    }

    fn block(&mut self, label: &str, text: String, record: &mut HookRun, category: ErrorCategory) {
        self.out.decision = Decision::Deny;
        record.status = RunStatus::Blocked;
        record.error = Some(category);
        record.message = Some(crate::text::first_line(&text).unwrap_or("").to_owned());
        // The model never sees a blocked prompt; only tool calls get a tag.
        if self.event == PoolEvent::PreToolUse {
            self.out.notices.push(notice(
                NoticeKind::Block,
                label,
                self.event,
                &format!("Blocked this tool call: {text}"),
            ));
        }
        self.out.reasons.push(Reason {
            hook: label.to_owned(),
            text,
        });
    }

    fn reject(&mut self, label: &str, field: &str, why: &str, record: &mut HookRun) {
        record.error = Some(ErrorCategory::InvalidText);
        record.ignored_fields.push(format!("{field} ({why})"));
        self.out.notices.push(notice(
            NoticeKind::Rejected,
            label,
            self.event,
            &format!(
                "The hook returned {field} that {why}; it was rejected and the original kept."
            ),
        ));
    }

    async fn finish(
        mut self,
        original: &Threaded<'_>,
        max_continuations: Option<u32>,
        cx: &DispatchContext<'_>,
    ) -> Outcome {
        let pe = self.event;
        if self.out.is_denied() {
            // Rewrites of a denied call or prompt never take effect; do not
            // tell the model they did.
            self.out.notices.retain(|n| n.kind != NoticeKind::Rewrite);
        }
        match pe {
            PoolEvent::PreToolUse
                if !self.out.is_denied()
                    && !self.now.tool_input.same_value(&original.tool_input) =>
            {
                self.out.tool_input = Some(self.now.tool_input.to_value());
            }
            PoolEvent::PostToolUse if !self.output_rewriters.is_empty() => {
                let text = self.now.tool_output.to_text();
                let mut shown = cap(&text, MODEL_TEXT_CAP);
                for label in &self.output_rewriters {
                    shown.push('\n');
                    shown.push_str(&notice::tag(
                        label,
                        pe,
                        "This tool output was rewritten by the hook.",
                    ));
                }
                self.out.tool_output = Some(shown);
            }
            PoolEvent::UserPromptSubmit
                if !self.out.is_denied() && self.now.prompt != original.prompt =>
            {
                // Prompt rewrites are not capped.
                self.out.prompt = self.now.prompt.clone();
            }
            PoolEvent::Stop if !self.continuing.is_empty() => {
                self.continue_or_refuse(max_continuations, cx).await
            }
            _ => {}
        }
        self.out
    }

    async fn continue_or_refuse(&mut self, max: Option<u32>, cx: &DispatchContext<'_>) {
        let allowed = cx
            .session
            .try_update(cx.cancel, |s| {
                // A count that is not a whole number fails closed, like a
                // corrupt file.
                let count = s.counter(CONTINUATIONS_KEY)?;
                if max.is_some_and(|m| count >= u64::from(m)) {
                    Ok(false)
                } else {
                    s.set_counter(CONTINUATIONS_KEY, count + 1);
                    Ok(true)
                }
            })
            .await;
        let why = match allowed {
            Ok(true) => None,
            Ok(false) => {
                let m = max.unwrap_or(0);
                self.out.warnings.push(format!(
                    "Stop hook continuation refused: stop_hook_max_continuations ({m}) reached"
                ));
                Some("continuation refused by stop_hook_max_continuations")
            }
            Err(e) => {
                // Without the counter the cap cannot be enforced; refusing is
                // the choice that cannot loop forever (whatever the cap, and
                // also while the state is busy or the dispatch cancelled).
                self.out.warnings.push(format!(
                    "Stop hook continuation refused: latch could not use the Stop continuation counter ({e})"
                ));
                Some("continuation refused: the Stop continuation counter could not be used")
            }
        };
        if let Some(why) = why {
            for run in &mut self.out.runs {
                if run.status == RunStatus::Continued {
                    run.message = Some(why.into());
                }
            }
            return;
        }
        let prompt = if self.continuation_texts.is_empty() {
            notice::default_continuation(&self.continuing)
        } else {
            cap(&self.continuation_texts.join("\n"), MODEL_TEXT_CAP)
        };
        for label in &self.continuing {
            self.out.notices.push(notice(
                NoticeKind::Continuation,
                label,
                PoolEvent::Stop,
                "Asked the agent to keep working instead of stopping.",
            ));
        }
        self.out.continuation = Some(Continuation {
            prompt,
            hooks: self.continuing.clone(),
        });
    }
}

fn placement(pe: PoolEvent) -> Placement {
    match pe {
        PoolEvent::UserPromptSubmit => Placement::WithPrompt,
        PoolEvent::PreCompact => Placement::AfterCompaction,
        PoolEvent::PostToolUse => Placement::AfterToolResult,
        PoolEvent::SessionStart | PoolEvent::PreToolUse | PoolEvent::Stop => {
            Placement::SystemPrompt
        }
    }
}
