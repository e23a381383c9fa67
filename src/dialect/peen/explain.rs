//! Why each peen action would or would not run for an event.

use crate::diag::SourceRef;
use crate::event::{Event, EventKind};
use crate::explain::{Explanation, excerpt, run_order_first, short_command};

use super::events::PeenEvent;
use super::load::{Action, ActionKind};
use super::matching::Subject;
use super::payload::{affected_paths, event_input};
use super::{DIALECT, MAX_GROUPS, Peen};

/// Explains every action of every valid file, and every skipped file.
pub fn explain(peen: &Peen, event: &Event) -> Vec<Explanation> {
    let summarize = peen.options().limits.summarize;
    let fired = PeenEvent::fired_by(event, summarize);
    let cwd = peen.cwd_for(event);
    let paths = if event.event.is_tool_event() {
        affected_paths(event, &cwd)
    } else {
        Vec::new()
    };
    // Compaction and session-start events get their own reasons from
    // `not_fired_for`; this is the reason for every other event.
    let not_fired = if fired.is_empty() {
        format!("a `{}` event fires no peen event", event.event)
    } else {
        let names: Vec<String> = fired.iter().map(PeenEvent::name).collect();
        format!("this event fires {}", names.join(", "))
    };
    let over_limit = peen.group_count() > MAX_GROUPS;
    let mut out = Vec::new();
    // Fired events in run order (event, then layer, then file order), then
    // the groups of every other event in file order.
    let mut groups: Vec<(&PeenEvent, &super::load::Group)> = Vec::new();
    for pe in &fired {
        groups.extend(peen.groups_for(pe).map(|(_, g)| (pe, g)));
    }
    for file in peen.files() {
        groups.extend(
            file.groups
                .iter()
                .filter(|g| !fired.contains(&g.event))
                .map(|g| (&g.event, g)),
        );
    }
    for (pe, group) in groups {
        let input = event_input(pe, event, &cwd);
        let subject = Subject {
            tool: event.tool_name().filter(|_| pe.is_tool()),
            cwd: &cwd,
            paths: &paths,
            input: &input,
        };
        let group_verdict = if over_limit {
            Err(format!(
                "more than {MAX_GROUPS} groups across all layers: every turn fails"
            ))
        } else if !fired.contains(pe) {
            Err(format!(
                "declared for {pe}; {}",
                not_fired_for(pe, event, summarize, &not_fired)
            ))
        } else {
            group.matcher.as_ref().map_or(Ok(()), |m| {
                m.explain(&subject).map_err(|why| format!("match: {why}"))
            })
        };
        for (i, action) in group.actions.iter().enumerate() {
            let verdict = group_verdict.clone().and_then(|()| {
                action.when.as_ref().map_or(Ok(()), |m| {
                    m.explain(&subject).map_err(|why| format!("when: {why}"))
                })
            });
            let (runs, reason) = match verdict {
                Ok(()) => (true, format!("runs its {} action", action.kind.type_name())),
                Err(why) => (false, why),
            };
            out.push(
                Explanation::new(
                    DIALECT,
                    pe.name(),
                    format!("{}/{}", group.name, action.name),
                    Some(action.source.clone()),
                    runs,
                    reason,
                )
                .with_summary(unnamed_summary(action, i + 1)),
            );
        }
    }
    for (path, why) in peen.skipped() {
        out.push(Explanation::new(
            DIALECT,
            "",
            "(whole file)",
            Some(SourceRef {
                file: path.clone(),
                position: None,
            }),
            false,
            format!("the file is skipped as invalid: {why}"),
        ));
    }
    run_order_first(out)
}

/// What an unnamed action (labelled `TYPE-N`, its position) does,
/// shortened: its command and arguments, its message or reason, or the type
/// of the event it publishes. `None` for a named action.
fn unnamed_summary(action: &Action, position: usize) -> Option<String> {
    if action.name != format!("{}-{position}", action.kind.type_name()) {
        return None;
    }
    Some(match &action.kind {
        ActionKind::Command(spec) => {
            let mut words = vec![spec.command.clone()];
            words.extend(spec.args.iter().cloned());
            short_command(&words.join(" "))
        }
        ActionKind::Inject(message) => excerpt(message),
        ActionKind::Deny(reason) => excerpt(reason),
        ActionKind::EmitEvent(spec) => spec.event_type.clone(),
    })
}

/// Why a group's own event does not fire for `event`.
fn not_fired_for(pe: &PeenEvent, event: &Event, summarize: bool, general: &str) -> String {
    match pe {
        PeenEvent::Lifecycle("preCompact" | "postCompact")
            if !summarize
                && matches!(
                    event.event,
                    EventKind::CompactBefore | EventKind::CompactAfter
                ) =>
        {
            "compaction events fire only with PEEN_COMPACTION_MODE=summarize".to_owned()
        }
        PeenEvent::Lifecycle("preCompact" | "postCompact")
            if let Some((estimated, budget)) = super::events::under_budget(event) =>
        {
            format!(
                "the round is under budget ({estimated} estimated tokens, budget {budget}): neither compaction hook runs"
            )
        }
        PeenEvent::Lifecycle("sessionStart") if event.event == EventKind::SessionStart => {
            "sessionStart runs only on a session's first turn (source `startup`)".to_owned()
        }
        _ if matches!(
            event.event,
            EventKind::CompactBefore | EventKind::CompactAfter | EventKind::SessionStart
        ) =>
        {
            format!("a `{}` event fires no other peen event", event.event)
        }
        _ => general.to_owned(),
    }
}
