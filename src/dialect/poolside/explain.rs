//! Why each poolside hook would or would not run for an event.

use crate::event::Event;
use crate::explain::{Explanation, run_order_first, short_command};

use super::events::PoolEvent;
use super::load::Matcher;
use super::{DIALECT, Poolside};

/// Explains every hook of every event.
pub fn explain(cfg: &Poolside, event: &Event) -> Vec<Explanation> {
    let fired = PoolEvent::from_kind(event.event);
    let mut out = Vec::new();
    for pe in PoolEvent::ALL {
        for hook in cfg.hooks(pe) {
            let (runs, reason) = if Some(pe) != fired {
                let now = fired.map_or_else(
                    || format!("a `{}` event fires no poolside event", event.event),
                    |f| format!("this event fires {f}"),
                );
                (false, format!("declared for {pe}; {now}"))
            } else {
                match &hook.matcher {
                    Matcher::Invalid { .. } => (false, hook.disabled().unwrap_or_default()),
                    Matcher::Valid(_) if !pe.uses_matcher() => {
                        (true, format!("the matcher is ignored on {pe}"))
                    }
                    Matcher::Valid(m) => {
                        let tool = event.tool_name().unwrap_or("");
                        if m.matches(tool) {
                            (
                                true,
                                format!("matcher {} matches tool `{tool}`", m.describe()),
                            )
                        } else {
                            (
                                false,
                                format!("matcher {} does not match tool `{tool}`", m.describe()),
                            )
                        }
                    }
                }
            };
            // An unnamed hook is labelled by its command's file name, which
            // two hooks running `python3 a.py` and `python3 b.py` share.
            let summary = hook.name.is_none().then(|| short_command(&hook.command));
            out.push(
                Explanation::new(
                    DIALECT,
                    pe.as_str(),
                    &hook.label,
                    Some(hook.source.clone()),
                    runs,
                    reason,
                )
                .with_summary(summary),
            );
        }
    }
    run_order_first(out)
}
