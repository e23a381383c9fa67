//! Running peen's groups and actions for one event, in layer then file
//! order, one action at a time, and folding what they did into one
//! [`Outcome`].
//!
//! - A deny (a `deny` action, or a command's `decision: deny`) always stops
//!   the operation; nothing after it runs. `allow` skips nothing.
//! - Any other failure follows `onFailure`: by default a deny on `pre*`
//!   events, `sessionStart` and `turnStart`; elsewhere a warning, a
//!   `hook.action.failed` session event, and the next action.
//! - Injections of one event are joined into one `<hook>` block.
//! - The opening and compaction checkpoints go through the restart journal.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tracing::debug;

use crate::dialect::output_json;
use crate::event::Event;
use crate::journal::{Begin, Journal, RUNNING_WAIT, RunState};
use crate::outcome::{
    Decision, ErrorCategory, HookRun, Injection, Outcome, Placement, PublishedEvent, Reason,
    RunStatus,
};
use crate::pipeline::{self, DispatchContext, Job};
use crate::run::{EnvPolicy, Exit, HookCommand, OutputLimits, OutputWait, Program, Termination};
use crate::text::escape_markup;

use super::events::PeenEvent;
use super::load::{ActionKind, CommandSpec, EventSpec, Group, OnFailure, check_event_type};
use super::matching::Subject;
use super::payload::{CommandInput, affected_paths, event_input};
use super::{DIALECT, MAX_GROUPS, Peen};

/// The reason of a command's deny that gives none.
pub const DEFAULT_DENY: &str = "hook command denied operation";
/// Every published event's source.
pub const SOURCE: &str = "hooks";
/// Tools whose calls do not bound their hooks' commands.
const UNBOUNDED_TOOLS: [&str; 2] = ["runCommand", "waitJob"];

/// What the hooks of one peen event did, storable in the journal.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EventResult {
    /// The deny: (group/action label, reason).
    pub deny: Option<(String, String)>,
    /// Injected texts, in order, with the group that injected each.
    pub injections: Vec<(String, String)>,
    /// Published session events.
    pub events: Vec<PublishedEvent>,
    /// Warnings for the user.
    pub warnings: Vec<String>,
    /// The deny blocks the turn whatever the event (an uncertain checkpoint
    /// needs inspection even on postCompact).
    #[serde(default)]
    pub blocks_always: bool,
    /// A command action started a process, which may have changed files
    /// even if it was then cancelled. Not journaled.
    #[serde(skip)]
    pub started_process: bool,
}

/// How one action ended.
enum ActionEnd {
    /// It succeeded, possibly with text to inject.
    Done(Option<String>),
    /// It denied.
    Deny(String),
    /// It failed.
    Failed(ErrorCategory, String),
}

/// Runs peen's hooks for one event.
pub async fn dispatch(peen: &Peen, event: &Event, cx: &DispatchContext<'_>) -> Outcome {
    let mut out = Outcome::proceed(event.event);
    // Without a single group there is nothing to run, and no reason to
    // take the session lock (the first-turn record) for harnesses that
    // only use other dialects.
    if peen.group_count() == 0 {
        return out;
    }
    let turn = event
        .turn_id
        .clone()
        .or_else(|| event.request_id.clone())
        .or_else(|| event.id.clone());
    let (events, warnings) = super::events::select(
        event,
        peen.options().limits.summarize,
        cx.session,
        cx.cancel,
        turn.as_deref(),
        |pe| peen.groups_for(pe).next().is_some(),
    )
    .await;
    out.warnings.extend(warnings);
    if events.is_empty() {
        return out;
    }
    if peen.group_count() > MAX_GROUPS {
        out.decision = Decision::Deny;
        out.reasons.push(Reason {
            hook: DIALECT.to_owned(),
            text: format!(
                "peen has {} hook groups across all layers, more than the limit of {MAX_GROUPS}; remove some groups",
                peen.group_count()
            ),
        });
        return out;
    }
    let cwd = peen.cwd_for(event);
    let paths = if event.event.is_tool_event() {
        affected_paths(event, &cwd)
    } else {
        Vec::new()
    };
    // A session's private directory that cannot be made is latch's own
    // failure, not a hook's: journaled checkpoints record it as failed.
    let (state_dir, internal_error) = match cx.session.id() {
        Some(_) => match cx.session.private_dir("peen-hook-state") {
            Ok(d) => (d, None),
            Err(e) => {
                let why = format!("latch cannot create the session's hook state directory: {e}");
                out.warnings.push(format!("peen: {why}"));
                (None, Some(why))
            }
        },
        None => (None, None),
    };
    for pe in events {
        let started = Instant::now();
        debug!(
            hook_event = %pe,
            session_id = event.session_id.as_deref().unwrap_or(""),
            turn_id = event.turn_id.as_deref().unwrap_or(""),
            request_id = event.request_id.as_deref().unwrap_or(""),
            "hook event started"
        );
        // One checkpoint per turn and event; a turn may compact more than
        // once, so compaction checkpoints also carry their round.
        let round = event
            .compaction
            .as_ref()
            .and_then(|c| c.round)
            .filter(|_| matches!(pe, PeenEvent::Lifecycle("preCompact" | "postCompact")))
            .map(|r| format!("/round-{r}"))
            .unwrap_or_default();
        // A child agent keeps its own checkpoints.
        let agent = event
            .agent_run_id
            .as_deref()
            .map(|a| format!("/agent-{a}"))
            .unwrap_or_default();
        // Events no group handles leave no checkpoint (the journal would
        // only grow).
        let handled = peen.groups_for(&pe).next().is_some();
        let key = turn
            .as_ref()
            .filter(|_| handled && pe.journaled() && cx.session.dir().is_some())
            .map(|t| format!("{t}/{pe}{round}{agent}"));
        let journal = Journal::new(cx.session).cancel_on(cx.cancel);
        // If this dispatch is dropped while the hooks run, the checkpoint
        // stays `started` and this process gives it up (uncertain).
        let mut _give_up = None;
        let mut runs = Vec::new();
        // A copy of this checkpoint that another latch process is running
        // is waited for, so its result is reused and it never runs twice.
        let begun = match &key {
            Some(k) => Some(
                journal
                    .begin_or_wait(k, DIALECT, &pe.name(), RUNNING_WAIT)
                    .await,
            ),
            None => None,
        };
        let result = match begun {
            Some(Ok(Begin::Finished(entry))) => {
                let mut r = HookRun::new(&pe.name(), DIALECT, &pe.name(), None);
                r.message = Some(format!(
                    "reused the journaled result of {} (state: {:?})",
                    entry.key, entry.state
                ));
                runs.push(r);
                match entry.state {
                    RunState::Failed => EventResult {
                        deny: Some((
                            pe.name(),
                            entry.reason.unwrap_or_else(|| {
                                format!("the {pe} hook failed earlier; it is not run again")
                            }),
                        )),
                        ..EventResult::default()
                    },
                    state => {
                        let mut reused: EventResult = entry
                            .result
                            .and_then(|v| serde_json::from_value(v).ok())
                            .unwrap_or_default();
                        // A journaled deny stays a deny even when its stored
                        // result is missing or no longer reads.
                        if state == RunState::Denied && reused.deny.is_none() {
                            reused.deny = Some((
                                pe.name(),
                                entry.reason.unwrap_or_else(|| {
                                    format!("the {pe} hook denied earlier; it is not run again")
                                }),
                            ));
                        }
                        reused
                    }
                }
            }
            Some(Ok(Begin::Uncertain(entry))) => EventResult {
                deny: Some((
                    pe.name(),
                    format!(
                        "the {pe} hook run {} was interrupted and its outcome is uncertain; inspect and resolve it before the turn continues",
                        entry.key
                    ),
                )),
                blocks_always: true,
                ..EventResult::default()
            },
            Some(Ok(Begin::Running(entry))) => EventResult {
                deny: Some((
                    pe.name(),
                    format!(
                        "the {pe} hook run {} is still running in latch process {} after {} s of waiting; it is not run twice: send the event again once it has finished",
                        entry.key,
                        entry.owner.map_or(0, |o| o.pid),
                        RUNNING_WAIT.as_secs()
                    ),
                )),
                blocks_always: true,
                ..EventResult::default()
            },
            Some(Err(e)) => {
                // latch itself failed: record nothing runnable, fail the turn
                // with a reason naming the event; the hook is not run.
                EventResult {
                    deny: Some((
                        pe.name(),
                        format!("latch could not use the restart journal for {pe}: {e}"),
                    )),
                    ..EventResult::default()
                }
            }
            Some(Ok(Begin::Fresh)) if internal_error.is_some() => {
                let why = format!(
                    "{pe} hook failed inside latch: {}",
                    internal_error.clone().unwrap_or_default()
                );
                if let Some(k) = &key
                    && let Err(e) = journal
                        .finish(k, RunState::Failed, None, Some(why.clone()))
                        .await
                {
                    out.warnings.push(format!(
                        "latch could not record {k} in the restart journal: {e}"
                    ));
                }
                EventResult {
                    deny: Some((pe.name(), why)),
                    ..EventResult::default()
                }
            }
            Some(Ok(Begin::Fresh)) | None => {
                _give_up = key.as_deref().map(|k| GiveUp(&journal, k));
                let r = run_event(
                    peen,
                    &pe,
                    event,
                    cx,
                    &cwd,
                    &paths,
                    state_dir.as_deref(),
                    &mut runs,
                )
                .await;
                // A run stopped by cancellation (a worker shutdown) has an
                // uncertain outcome: leave it `started` for inspection.
                let interrupted = cx.cancel.is_cancelled()
                    || runs
                        .iter()
                        .any(|r| r.error == Some(ErrorCategory::Cancelled));
                if let Some(k) = key.as_ref().filter(|_| interrupted) {
                    if r.started_process {
                        journal.abandon(k);
                    } else {
                        // Cancelled before any of its commands started:
                        // nothing is uncertain, and the event runs afresh
                        // next time.
                        journal.discard(k).await;
                    }
                }
                if let Some(k) = key.as_ref().filter(|_| !interrupted) {
                    let state = if r.deny.is_some() {
                        RunState::Denied
                    } else {
                        RunState::Completed
                    };
                    if let Err(e) = journal
                        .finish(
                            k,
                            state,
                            serde_json::to_value(&r).ok(),
                            r.deny.as_ref().map(|d| d.1.clone()),
                        )
                        .await
                    {
                        out.warnings.push(format!(
                            "latch could not record {k} in the restart journal: {e}"
                        ));
                    }
                }
                r
            }
        };
        debug!(
            hook_event = %pe,
            outcome = if result.deny.is_some() { "deny" } else { "ok" },
            duration_ms = started.elapsed().as_secs_f64() * 1000.0,
            "hook event finished"
        );
        out.runs.extend(runs);
        let denied = apply(&mut out, &pe, event, result);
        if denied || cx.cancel.is_cancelled() {
            break;
        }
    }
    out
}

/// Gives up this process's claim on a journaled run when dropped (a no-op
/// once the run is finished).
struct GiveUp<'j, 'a>(&'j Journal<'a>, &'j str);

impl Drop for GiveUp<'_, '_> {
    fn drop(&mut self) {
        self.0.abandon(self.1);
    }
}

/// Folds one event's result into the outcome; true if the operation is denied.
fn apply(out: &mut Outcome, pe: &PeenEvent, event: &Event, r: EventResult) -> bool {
    out.events.extend(r.events);
    out.warnings.extend(r.warnings);
    if !r.injections.is_empty() {
        if pe.injects() {
            let hooks: Vec<&str> = r.injections.iter().map(|(g, _)| g.as_str()).collect();
            let mut block = format!("<hook>\n<event>{}</event>\n", escape_markup(&pe.name()));
            if pe.is_tool()
                && let Some(t) = event.tool_name()
            {
                block.push_str(&format!("<tool>{}</tool>\n", escape_markup(t)));
            }
            block.push('\n');
            block.push_str(
                &r.injections
                    .iter()
                    .map(|(_, t)| t.trim_end())
                    .collect::<Vec<_>>()
                    .join("\n\n"),
            );
            block.push_str("\n</hook>");
            out.context.push(Injection {
                hook: hooks.join(", "),
                placement: if pe.is_tool() {
                    Placement::AfterToolResult
                } else {
                    Placement::SystemPrompt
                },
                text: block,
                own_message: false,
            });
        } else {
            out.warnings.push(format!(
                "peen: injections on {pe} are dropped: no model call follows"
            ));
        }
    }
    let Some((hook, reason)) = r.deny else {
        return false;
    };
    if r.blocks_always {
        out.decision = Decision::Deny;
        out.reasons.push(Reason { hook, text: reason });
        return true;
    }
    match pe {
        PeenEvent::Lifecycle("turnCancelled") => {
            out.warnings.push(format!(
                "peen: {hook} denied turnCancelled; the turn is already cancelled"
            ));
            false
        }
        PeenEvent::Lifecycle("postCompact") => {
            out.warnings.push(format!(
                "peen: {hook} denied on postCompact; the summary is already stored ({reason})"
            ));
            false
        }
        _ => {
            out.decision = Decision::Deny;
            if matches!(pe, PeenEvent::Tool(p) | PeenEvent::FileTool(p, _) if *p != super::events::Phase::Pre)
            {
                // The tool already ran: its result is replaced with the error.
                out.tool_output = Some(reason.clone());
            }
            out.reasons.push(Reason { hook, text: reason });
            true
        }
    }
}

#[allow(clippy::too_many_arguments)]
async fn run_event(
    peen: &Peen,
    pe: &PeenEvent,
    event: &Event,
    cx: &DispatchContext<'_>,
    cwd: &Path,
    paths: &[PathBuf],
    state_dir: Option<&Path>,
    runs: &mut Vec<HookRun>,
) -> EventResult {
    let mut result = EventResult::default();
    let input = event_input(pe, event, cwd);
    let subject = Subject {
        tool: event.tool_name().filter(|_| pe.is_tool()),
        cwd,
        paths,
        input: &input,
    };
    for (file, group) in peen.groups_for(pe) {
        if group.matcher.as_ref().is_some_and(|m| !m.matches(&subject)) {
            continue;
        }
        debug!(hook_name = %group.name, "group started");
        for action in &group.actions {
            if action.when.as_ref().is_some_and(|m| !m.matches(&subject)) {
                continue;
            }
            let label = format!("{}/{}", group.name, action.name);
            if cx.cancel.is_cancelled() {
                // An action that would have run did not: on an event whose
                // failures deny, that must not read as "nothing objected".
                if pe.fails_closed() && result.deny.is_none() {
                    result.deny = Some((
                        label,
                        format!("the dispatch was cancelled before this {pe} action ran"),
                    ));
                }
                return result;
            }
            let mut record = HookRun::new(&label, DIALECT, &pe.name(), Some(action.source.clone()));
            let definition = || super::trust::definition(peen, file, group, action, Some(cwd));
            if crate::trust::check(
                cx.trust,
                DIALECT,
                definition,
                &mut result.warnings,
                &mut record,
            ) {
                runs.push(record);
                continue;
            }
            let started = Instant::now();
            let end = match &action.kind {
                ActionKind::Deny(reason) => ActionEnd::Deny(reason.clone()),
                ActionKind::Inject(text) => ActionEnd::Done(Some(text.clone())),
                ActionKind::EmitEvent(spec) => match publish(spec, cx, &peen.options().limits) {
                    Ok(e) => {
                        result.events.push(e);
                        ActionEnd::Done(None)
                    }
                    Err(why) => ActionEnd::Failed(ErrorCategory::CommandError, why),
                },
                ActionKind::Command(spec) => {
                    let stdin = CommandInput {
                        pe,
                        event,
                        workspace: cwd,
                        paths,
                        input: &input,
                        state_dir,
                    };
                    command(
                        spec,
                        pe,
                        event,
                        cwd,
                        crate::dialect::payload::to_bytes(&stdin.to_json()),
                        peen,
                        cx,
                        &mut record,
                        &mut result,
                    )
                    .await
                }
            };
            record.took(started.elapsed());
            let outcome = match end {
                ActionEnd::Done(text) => {
                    if let Some(t) = text {
                        result.injections.push((group.name.clone(), t));
                    }
                    "ok"
                }
                ActionEnd::Deny(reason) => {
                    record.status = RunStatus::Blocked;
                    record.error = Some(ErrorCategory::HookBlocked);
                    record.message = Some(crate::text::summary(&reason, 200));
                    result.deny = Some((label.clone(), reason));
                    "deny"
                }
                ActionEnd::Failed(category, why) => {
                    record.fail(category, why.clone());
                    let policy = action.on_failure.unwrap_or(if pe.fails_closed() {
                        OnFailure::Deny
                    } else {
                        OnFailure::Continue
                    });
                    match policy {
                        OnFailure::Deny => {
                            result.deny =
                                Some((label.clone(), format!("hook action {label} failed: {why}")));
                            "failed, deny"
                        }
                        OnFailure::Continue => {
                            result
                                .warnings
                                .push(format!("peen: hook action {label} on {pe} failed: {why}"));
                            if cx.session.id().is_some() {
                                result.events.push(action_failed(
                                    pe,
                                    group,
                                    &action.name,
                                    action.kind.type_name(),
                                    file,
                                ));
                            }
                            "failed, continue"
                        }
                    }
                }
            };
            debug!(
                hook_name = %group.name,
                hook_action_name = %action.name,
                outcome,
                duration_ms = started.elapsed().as_secs_f64() * 1000.0,
                "action finished"
            );
            runs.push(record);
            if result.deny.is_some() {
                return result;
            }
        }
    }
    result
}

/// The `hook.action.failed` session event.
fn action_failed(
    pe: &PeenEvent,
    group: &Group,
    action: &str,
    action_type: &str,
    file: &Path,
) -> PublishedEvent {
    PublishedEvent {
        event_type: "hook.action.failed".to_owned(),
        summary: "Hook action failed after the operation.".to_owned(),
        data: Some(json!({
            "event": pe.name(),
            "hookName": group.name,
            "action": action,
            "actionType": action_type,
            "source": file.to_string_lossy(),
        })),
        delivery: None,
        source: SOURCE.to_owned(),
    }
}

/// Checks and builds a session event; publishing needs a session.
fn publish(
    spec: &EventSpec,
    cx: &DispatchContext<'_>,
    limits: &super::Limits,
) -> Result<PublishedEvent, String> {
    if cx.session.id().is_none() {
        return Err("publishing a session event needs a session".to_owned());
    }
    check_event_type(&spec.event_type)?;
    if spec.summary.len() > limits.max_summary {
        return Err(format!(
            "the summary of {} has {} bytes, more than PEEN_MAX_EVENT_SUMMARY_BYTES ({})",
            spec.event_type,
            spec.summary.len(),
            limits.max_summary
        ));
    }
    if let Some(d) = &spec.data {
        let size = serde_json::to_vec(d).map_or(0, |v| v.len());
        if size > limits.max_data {
            return Err(format!(
                "the data of {} has {size} bytes, more than PEEN_MAX_EVENT_DATA_BYTES ({})",
                spec.event_type, limits.max_data
            ));
        }
    }
    Ok(PublishedEvent {
        event_type: spec.event_type.clone(),
        summary: spec.summary.clone(),
        data: spec.data.clone(),
        delivery: spec.delivery.clone(),
        source: SOURCE.to_owned(),
    })
}

#[allow(clippy::too_many_arguments)]
async fn command(
    spec: &CommandSpec,
    pe: &PeenEvent,
    event: &Event,
    cwd: &Path,
    stdin: Vec<u8>,
    peen: &Peen,
    cx: &DispatchContext<'_>,
    record: &mut HookRun,
    result: &mut EventResult,
) -> ActionEnd {
    let limits = &peen.options().limits;
    let mut timeout = spec.timeout.unwrap_or(limits.default_timeout);
    if pe.is_tool()
        && !event
            .tool_name()
            .is_some_and(|t| UNBOUNDED_TOOLS.contains(&t))
        && let Some(t) = limits.tool_timeout
    {
        timeout = timeout.min(t);
    }
    let mut env: Vec<(OsString, OsString)> = vec![(
        "PATH".into(),
        std::env::var_os("PATH").unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into()),
    )];
    env.extend(
        spec.environment
            .iter()
            .map(|(k, v)| (OsString::from(k), OsString::from(v))),
    );
    let cmd = HookCommand {
        program: Program::Exec {
            program: PathBuf::from(&spec.command),
            args: spec.args.clone(),
        },
        env: EnvPolicy::Only(env),
        cwd: Some(
            spec.working_dir
                .as_ref()
                .map_or_else(|| cwd.to_path_buf(), |w| cwd.join(w)),
        ),
        stdin,
        timeout,
        limits: OutputLimits {
            stdout: limits.max_output,
            stderr: limits.max_output,
        },
        output_wait: OutputWait::Drain,
        detach: None,
    };
    let done = pipeline::run(
        cx,
        Job {
            command: cmd,
            record: record.clone(),
        },
    )
    .await;
    *record = done.record;
    result.warnings.extend(done.warning);
    let run = done.result;
    result.started_process |= !matches!(
        run.termination,
        Termination::CancelledBeforeStart | Termination::SpawnFailed { .. }
    );
    match &run.termination {
        Termination::SpawnFailed { message, .. } => {
            return ActionEnd::Failed(
                ErrorCategory::CommandError,
                format!("cannot start {}: {message}", spec.command),
            );
        }
        Termination::TimedOut { .. } => {
            return ActionEnd::Failed(
                ErrorCategory::Timeout,
                format!(
                    "timed out after {}",
                    crate::config::duration::format_go_duration(timeout)
                ),
            );
        }
        // Only a command with a first-line rule detaches, and this
        // dialect gives none.
        Termination::Cancelled { .. }
        | Termination::CancelledBeforeStart
        | Termination::Detached => {
            return ActionEnd::Failed(ErrorCategory::Cancelled, "cancelled".to_owned());
        }
        Termination::Exited(Exit::Signal(s)) => {
            return ActionEnd::Failed(ErrorCategory::CommandError, format!("killed by signal {s}"));
        }
        Termination::Exited(Exit::Code(0)) => {}
        Termination::Exited(Exit::Code(c)) => {
            let tail = crate::text::detail(&run.stderr.lossy(), 200);
            return ActionEnd::Failed(
                ErrorCategory::CommandError,
                format!("exited with code {c}{tail}"),
            );
        }
    }
    for (name, c) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
        if c.truncated {
            return ActionEnd::Failed(
                ErrorCategory::OutputTooLarge,
                format!(
                    "wrote more than {} bytes to {name} (PEEN_MAX_HOOK_COMMAND_OUTPUT)",
                    limits.max_output
                ),
            );
        }
    }
    let text = run.stdout.lossy();
    if text.trim().is_empty() {
        return ActionEnd::Done(None);
    }
    // Output that is not JSON has no effect. JSON is read as Go reads it
    // (deep nesting, lone surrogates), so a deny is not lost to serde_json.
    let Ok(parsed) = output_json::parse(text.trim()) else {
        return ActionEnd::Done(None);
    };
    if !parsed.ignored.is_empty() {
        let hook = record.hook.clone();
        output_json::note_ignored(
            &parsed.ignored,
            || format!("peen: hook action {hook} on {pe}"),
            record,
            &mut result.warnings,
        );
    }
    match read_output(parsed.value, cx, limits) {
        Err(why) => ActionEnd::Failed(ErrorCategory::ParseError, why),
        Ok(o) => {
            // Events are published before the decision is applied.
            result.events.extend(o.events);
            if o.deny {
                ActionEnd::Deny(
                    o.reason
                        .filter(|r| !r.is_empty())
                        .unwrap_or_else(|| DEFAULT_DENY.to_owned()),
                )
            } else {
                ActionEnd::Done(o.message.filter(|m| !m.is_empty()))
            }
        }
    }
}

struct CommandOutput {
    deny: bool,
    reason: Option<String>,
    message: Option<String>,
    events: Vec<PublishedEvent>,
}

/// Reads a command's JSON output strictly.
fn read_output(
    value: Value,
    cx: &DispatchContext<'_>,
    limits: &super::Limits,
) -> Result<CommandOutput, String> {
    let Value::Object(obj) = value else {
        return Err("the output is JSON but not an object".to_owned());
    };
    if let Some(k) = obj
        .keys()
        .find(|k| !["decision", "reason", "message", "events"].contains(&k.as_str()))
    {
        return Err(format!(
            "unknown field {k:?} in the output (only decision, reason, message, events)"
        ));
    }
    let string = |k: &str| -> Result<Option<String>, String> {
        match obj.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(format!("{k:?} in the output must be a string")),
        }
    };
    let deny = match string("decision")?.as_deref() {
        None | Some("") | Some("allow") => false,
        Some("deny") => true,
        Some(other) => return Err(format!("decision {other:?} must be allow, deny or empty")),
    };
    let mut events = Vec::new();
    match obj.get("events") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for item in items {
                events.push(publish(&event_entry(item)?, cx, limits)?);
            }
        }
        Some(_) => return Err("\"events\" in the output must be a list".to_owned()),
    }
    Ok(CommandOutput {
        deny,
        reason: string("reason")?,
        message: string("message")?,
        events,
    })
}

/// One `events` entry: an emitEvent with `type` instead of `eventType`.
fn event_entry(item: &Value) -> Result<EventSpec, String> {
    let Value::Object(m) = item else {
        return Err("each entry of \"events\" must be an object".to_owned());
    };
    if let Some(k) = m
        .keys()
        .find(|k| !["type", "summary", "data", "delivery"].contains(&k.as_str()))
    {
        return Err(format!("unknown field {k:?} in an \"events\" entry"));
    }
    let event_type = m
        .get("type")
        .and_then(Value::as_str)
        .ok_or("an \"events\" entry needs a string \"type\"")?;
    let data = match m.get("data") {
        None | Some(Value::Null) => None,
        Some(v @ Value::Object(_)) => Some(v.clone()),
        Some(_) => return Err(format!("the data of {event_type} must be a JSON object")),
    };
    let delivery = match m.get("delivery") {
        None | Some(Value::Null) => None,
        Some(Value::String(d)) if d == "queue" || d == "wake" => Some(d.clone()),
        Some(_) => {
            return Err(format!(
                "the delivery of {event_type} must be queue or wake"
            ));
        }
    };
    Ok(EventSpec {
        event_type: event_type.to_owned(),
        summary: match m.get("summary") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(_) => return Err(format!("the summary of {event_type} must be a string")),
        },
        data,
        delivery,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::RunState;
    use crate::run::{Cancel, Runner};
    use crate::session::Session;

    /// Dispatches a turn start with a hook that records each run, cancelled
    /// (or not) before it starts, and returns the journal it leaves.
    async fn turn_start(cancelled: bool) -> (tempfile::TempDir, Vec<crate::journal::Entry>) {
        let root = tempfile::tempdir().unwrap();
        let ws = root.path().join("ws");
        std::fs::create_dir_all(ws.join(".agents")).unwrap();
        std::fs::write(
            ws.join(".agents/hooks.yaml"),
            "version: 1\nturnStart:\n  - actions: [{type: command, command: sh, args: [\"-c\", \"echo x >> runs\"]}]\n",
        )
        .unwrap();
        let peen = Peen::load(super::super::Options {
            workspace: Some(ws.clone()),
            ..Default::default()
        });
        let session = Session::open(&root.path().join("state"), "s1").unwrap();
        let (handle, cancel) = Cancel::pair();
        if cancelled {
            handle.cancel();
        }
        let runner = Runner::default();
        let cx = DispatchContext::bare(&runner, &session, &cancel);
        let event: Event = serde_json::from_value(serde_json::json!(
            {"event": "turn_start", "session_id": "s1", "turn_id": "t1", "cwd": ws, "model": "m"}
        ))
        .unwrap();
        dispatch(&peen, &event, &cx).await;
        let journal = Journal::new(&session).read().await.unwrap();
        (root, journal)
    }

    /// A dispatch cancelled before its command started ran nothing: it
    /// leaves no uncertain checkpoint behind, only no checkpoint at all.
    #[tokio::test]
    async fn a_checkpoint_whose_commands_never_started_is_forgotten() {
        let (root, journal) = turn_start(true).await;
        assert!(!root.path().join("ws/runs").exists(), "the hook never ran");
        assert_eq!(journal, []);
        let (root, journal) = turn_start(false).await;
        assert!(root.path().join("ws/runs").exists());
        assert_eq!(journal.len(), 1);
        assert_eq!(journal[0].state, RunState::Completed);
    }
}
