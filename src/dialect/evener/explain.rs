//! Why each evener handler would or would not run for an event.

use crate::event::Event;
use crate::explain::{Explanation, run_order_first};

use super::events::{EvEvent, EventName};
use super::load::{HandlerKind, Matcher};
use super::{DIALECT, Evener};

/// Explains every handler of every plugin.
pub fn explain(ev: &Evener, event: &Event) -> Vec<Explanation> {
    let fired = EvEvent::from_kind(event.event);
    let names = &ev.options().tool_names;
    let mut out = Vec::new();
    for plugin in ev.plugins() {
        for group in &plugin.groups {
            let declared = group.event.as_str().to_owned();
            let group_verdict: Result<String, String> = match (&group.event, fired) {
                (EventName::Reserved(n), _) => Err(format!(
                    "declared for the reserved event {n}, which evener never fires"
                )),
                (EventName::Unknown(n), _) => Err(format!(
                    "`{n}` is not an event (likely a typo); it never fires"
                )),
                (EventName::Fired(e), f) if Some(*e) != f => Err(match f {
                    Some(f) => format!("declared for {e}; this event fires {f}"),
                    None => format!(
                        "declared for {e}; a `{}` event fires no evener event",
                        event.event
                    ),
                }),
                (EventName::Fired(EvEvent::Stop), _) if event.pending_questions => {
                    Err("Stop is not consulted: the round ended with pending questions".to_owned())
                }
                (EventName::Fired(e), _) => match &group.matcher {
                    Matcher::Invalid(err) => Err(format!(
                        "invalid matcher regex `{}`: {err}; the group is skipped",
                        crate::matcher::pattern::shown(&group.matcher_text)
                    )),
                    Matcher::Valid(m) => {
                        let target = e.target(event, names);
                        let what = match e {
                            EvEvent::PreToolUse | EvEvent::PostToolUse => {
                                let raw = event.tool_name().unwrap_or("");
                                if raw == target {
                                    format!("tool `{target}`")
                                } else {
                                    format!("tool `{target}` (the Claude name of `{raw}`)")
                                }
                            }
                            EvEvent::SessionStart => format!("start kind `{target}`"),
                            _ => format!("the empty target ({e} has no matcher target yet)"),
                        };
                        if m.matches(target) {
                            Ok(format!("matcher {} matches {what}", m.describe()))
                        } else {
                            Err(format!("matcher {} does not match {what}", m.describe()))
                        }
                    }
                },
            };
            for handler in &group.handlers {
                let (runs, reason) = match (&group_verdict, &handler.kind) {
                    (Err(why), _) => (false, why.clone()),
                    (Ok(_), HandlerKind::Unsupported(t)) => (
                        false,
                        format!("handler type `{t}` is not run yet; the handler is skipped"),
                    ),
                    (Ok(why), HandlerKind::Command(Err(bad))) => {
                        (true, format!("{why}; it will fail: {bad}"))
                    }
                    (Ok(why), _) => (true, why.clone()),
                };
                out.push(Explanation::new(
                    DIALECT,
                    declared.clone(),
                    format!("{}#{}", plugin.name, handler.index),
                    Some(handler.source.clone()),
                    runs,
                    reason,
                ));
            }
        }
    }
    run_order_first(out)
}
