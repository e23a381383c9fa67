//! Why each claude handler would or would not run for an event.

use crate::event::Event;
use crate::explain::{Explanation, run_order_first};

use super::events::ClaudeEvent;
use super::load::{Condition, Matcher};
use super::text::label_of;
use super::{Claude, DIALECT};
use crate::permission_rule::ToolInput;

/// Explains every handler of every loaded file.
pub fn explain(cfg: &Claude, event: &Event) -> Vec<Explanation> {
    let fired = ClaudeEvent::from_kind(event.event);
    let tool = cfg
        .options()
        .vocabulary
        .claude_name(event.tool_name().unwrap_or(""))
        .into_owned();
    let workdir = cfg.run_dir(event);
    let project = cfg
        .options()
        .project
        .clone()
        .unwrap_or_else(|| workdir.clone());
    // The input an `if` rule reads, as `latch fire` reshapes it.
    let claude_input = super::combine::claude_tool_input(cfg.options(), event, &workdir);
    let mut call: Option<ToolInput> = None;
    // The running handlers' places in `out`, each with its plugin's root.
    let mut running: Vec<usize> = Vec::new();
    let mut handlers: Vec<(Option<&std::path::Path>, &super::load::Handler)> = Vec::new();
    let mut out = Vec::new();
    for file in cfg.files() {
        for group in &file.groups {
            let verdict: Result<String, String> = match (group.event, fired) {
                (None, _) => Err(format!("latch does not fire `{}`", group.event_name)),
                (Some(e), f) if Some(e) != f => Err(match f {
                    Some(f) => format!("declared for {e}; this event fires {f}"),
                    None => format!(
                        "declared for {e}; a `{}` event fires no claude event",
                        event.event
                    ),
                }),
                (Some(e), _) => match (&group.matcher, e.target(event, &tool)) {
                    (Matcher::Invalid(why), _) => Err(format!("invalid matcher: {why}")),
                    (Matcher::Valid(_), None) if e.has_matchers() => Ok(format!(
                        "the event gives no value for {e}'s matchers, so every group runs"
                    )),
                    (Matcher::Valid(_), None) => Ok(format!("{e} ignores matchers")),
                    (Matcher::Valid(m), Some(target)) => {
                        let raw = event.tool_name().unwrap_or("");
                        let what = if e.is_tool() && raw != target {
                            format!("`{target}` (the Claude Code name of `{raw}`)")
                        } else {
                            format!("`{target}`")
                        };
                        match m.explain_match(target, e.is_tool()) {
                            (true, true) => Ok(format!(
                                "matcher {} gave up on {what} (too much backtracking) and counts as matching",
                                m.describe()
                            )),
                            (true, false) => Ok(format!("matcher {} matches {what}", m.describe())),
                            (false, _) => {
                                Err(format!("matcher {} does not match {what}", m.describe()))
                            }
                        }
                    }
                },
            };
            for h in &group.handlers {
                let (runs, reason) = match (&verdict, &h.condition) {
                    (Err(r), _) => (false, r.clone()),
                    (Ok(r), None) => (true, r.clone()),
                    (Ok(_), Some(c))
                        if !crate::permission_rule::evaluates_on(&group.event_name) =>
                    {
                        (
                            false,
                            crate::permission_rule::non_tool_event_message(
                                &c.text,
                                &group.event_name,
                            ),
                        )
                    }
                    (Ok(r), Some(Condition { rule: None, .. })) => (true, r.clone()),
                    (
                        Ok(r),
                        Some(Condition {
                            text,
                            rule: Some(rule),
                        }),
                    ) => {
                        let call = call.get_or_insert_with(|| {
                            super::combine::rule_input(
                                &tool,
                                claude_input.as_ref(),
                                event,
                                &project,
                            )
                        });
                        let v = rule.matches_input(call);
                        (v.runs(), format!("{r}; `if: {text}` {v}"))
                    }
                };
                // As `latch fire` selects: of copies, the last one runs.
                if runs {
                    running.push(out.len());
                    handlers.push((file.plugin.as_ref().map(|p| p.root.as_path()), h));
                }
                let explained = Explanation::new(
                    DIALECT,
                    group.event_name.clone(),
                    label_of(&h.kind.shown()),
                    Some(h.source.clone()),
                    runs,
                    format!("[{}] {reason}", file.scope.label()),
                );
                out.push(match group.event {
                    Some(e) => explained.with_timeout(super::combine::handler_timeout(e, h)),
                    None => explained,
                });
            }
        }
    }
    let superseded = super::load::superseded(&handlers);
    for (&at, _) in running.iter().zip(superseded).filter(|(_, copy)| *copy) {
        let e = &mut out[at];
        e.runs = false;
        e.reason = format!("{}; {}", e.reason, super::load::COPY_SKIPPED);
    }
    run_order_first(out)
}
