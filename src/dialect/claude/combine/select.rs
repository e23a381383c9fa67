//! Choosing the handlers that run for one event: matchers, `if`
//! conditions, copies of one handler, `disableAllHooks` and the other
//! reasons a handler is recorded as skipped.

use std::path::Path;

use serde_json::Value;

use crate::event::Event;
use crate::outcome::{ErrorCategory, HookRun, Outcome, RunStatus};
use crate::permission_rule::ToolInput;

use super::super::events::ClaudeEvent;
use super::super::load::{Condition, Group, Handler, HandlerKind, LoadedFile, Matcher};
use super::super::text;
use super::super::{Claude, DIALECT};
use super::rule_input;

/// One handler selected for this event.
pub(super) struct Selected<'a> {
    pub(super) file: &'a LoadedFile,
    pub(super) handler: &'a Handler,
    pub(super) record: HookRun,
    /// One of the user's own hooks, under
    /// `CLAUDE_CODE_RESTRICT_PERSONAL_CONFIG`.
    pub(super) personal: Option<super::super::personal::Personal>,
}

/// The handlers that run for this event, in configuration order, with a
/// record each; handlers that do not run are recorded in `out` already.
#[allow(clippy::too_many_arguments)]
pub(super) fn select<'a>(
    cfg: &'a Claude,
    groups: Vec<(&'a LoadedFile, &'a Group)>,
    ce: ClaudeEvent,
    event: &'a Event,
    tool: &'a str,
    claude_input: Option<&Value>,
    project: &Path,
    workdir: &Path,
    trust: Option<&crate::trust::Gate>,
    out: &mut Outcome,
) -> Vec<Selected<'a>> {
    let mut chosen: Vec<Selected<'a>> = Vec::new();
    // The handlers that match and pass their `if`, before copies are
    // told apart.
    let mut candidates = Vec::new();
    // The tool call, prepared once for every `if` (a Bash command is
    // parsed here), and only if some handler has one.
    let mut call: Option<ToolInput> = None;
    for (file, group) in groups {
        for handler in &group.handlers {
            let shown = handler.kind.shown();
            let mut record = HookRun::new(
                &text::label_of(&shown),
                DIALECT,
                ce.as_str(),
                Some(handler.source.clone()),
            );
            if let Some(why) = skip_reason(ce, group, handler) {
                record.status = RunStatus::Skipped;
                record.message = Some(why.1);
                record.error = why.0;
                out.runs.push(record);
                continue;
            }
            if let Some(Condition {
                text,
                rule: Some(rule),
            }) = &handler.condition
            {
                let call =
                    call.get_or_insert_with(|| rule_input(tool, claude_input, event, project));
                let verdict = rule.matches_input(call);
                if !verdict.runs() {
                    record.status = RunStatus::Skipped;
                    record.message = Some(format!(
                        "{} ({verdict})",
                        crate::permission_rule::skip_message(text)
                    ));
                    out.runs.push(record);
                    continue;
                }
            }
            candidates.push((file, group, handler, record));
        }
    }
    // A copy the trust policy holds back does not stand in for one it
    // lets run: copies are told apart among the handlers that may run, so
    // a project's unapproved copy of the user's guard cannot displace it.
    let held: Vec<bool> = candidates
        .iter()
        .map(|(file, group, handler, _)| {
            trust.filter(|g| g.checks(DIALECT)).is_some_and(|g| {
                let d = super::super::trust::definition(cfg, file, group, handler, Some(workdir));
                matches!(g.admit(&d), crate::trust::Admission::Refuse(_))
            })
        })
        .collect();
    // Claude Code runs copies of a handler once per event: the last one.
    let may_run: Vec<(Option<&Path>, &Handler)> = candidates
        .iter()
        .zip(&held)
        .filter(|(_, held)| !**held)
        .map(|((file, _, handler, _), _)| {
            (file.plugin.as_ref().map(|p| p.root.as_path()), *handler)
        })
        .collect();
    let mut superseded = super::super::load::superseded(&may_run).into_iter();
    for (i, (file, group, handler, mut record)) in candidates.into_iter().enumerate() {
        if !held[i] && superseded.next().unwrap_or(false) {
            record.status = RunStatus::Skipped;
            record.message = Some(super::super::load::COPY_SKIPPED.to_owned());
            out.runs.push(record);
            continue;
        }
        let definition =
            || super::super::trust::definition(cfg, file, group, handler, Some(workdir));
        if crate::trust::check(trust, DIALECT, definition, &mut out.warnings, &mut record) {
            out.runs.push(record);
            continue;
        }
        let personal = cfg.personal(file, handler, &group.event_name);
        chosen.push(Selected {
            file,
            handler,
            record,
            personal,
        });
    }
    chosen
}

/// `SessionEnd` handlers share one budget (Claude Code's docs): 1.5 s,
/// raised to the largest `timeout` of a settings-file handler, at most
/// 60 s; `CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS` sets it instead.
pub(super) fn session_end_budget(selected: &[Selected<'_>]) -> std::time::Duration {
    use std::time::Duration;
    if let Some(ms) = std::env::var("CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
    {
        return Duration::from_millis(ms);
    }
    let largest = selected
        .iter()
        .filter(|s| s.file.plugin.is_none())
        .filter_map(|s| s.handler.timeout)
        .max()
        .unwrap_or_default();
    largest.clamp(Duration::from_millis(1500), Duration::from_secs(60))
}

/// Why a selected handler does not run, if it does not.
pub(super) fn skip_reason(
    ce: ClaudeEvent,
    group: &Group,
    handler: &Handler,
) -> Option<(Option<ErrorCategory>, String)> {
    if let Matcher::Invalid(why) = &group.matcher {
        return Some((
            Some(ErrorCategory::InvalidMatcher),
            format!("invalid matcher: {why}"),
        ));
    }
    if let Some(c) = &handler.condition
        && !crate::permission_rule::evaluates_on(ce.as_str())
    {
        return Some((
            None,
            crate::permission_rule::non_tool_event_message(&c.text, ce.as_str()),
        ));
    }
    if handler.run_async && !matches!(handler.kind, HandlerKind::Command { .. }) {
        return Some((
            Some(ErrorCategory::UnsupportedHandler),
            format!(
                "latch runs only `command` handlers in the background, not `{}`",
                handler.kind.type_name()
            ),
        ));
    }
    match &handler.kind {
        HandlerKind::Command { .. } => None,
        // Recorded (`r2_http_errors`, `r4_setup_http`): SessionStart and
        // Setup skip http handlers.
        HandlerKind::Http { .. }
            if matches!(ce, ClaudeEvent::SessionStart | ClaudeEvent::Setup) =>
        {
            Some((
                Some(ErrorCategory::UnsupportedHandler),
                format!("{ce} does not run http handlers"),
            ))
        }
        HandlerKind::Http { .. } => None,
        HandlerKind::Prompt { .. } | HandlerKind::Agent { .. }
            if super::super::prompt::runs_on(ce) =>
        {
            None
        }
        // They refuse the command (see `work`).
        HandlerKind::Prompt { .. } | HandlerKind::Agent { .. }
            if ce == ClaudeEvent::PreSkillShellCommand =>
        {
            None
        }
        HandlerKind::Prompt { .. } | HandlerKind::Agent { .. } => Some((
            Some(ErrorCategory::UnsupportedHandler),
            format!(
                "Claude Code does not run {} handlers on {ce}",
                handler.kind.type_name()
            ),
        )),
        HandlerKind::McpTool { .. } => None,
    }
}
