//! Why each evener handler would or would not run for an event.

use crate::event::Event;
use crate::explain::{Explanation, IgnoredKey, excerpt, run_order_first, short_command};
use crate::run::Program;

use super::events::{EvEvent, EventName};
use super::load::{Group, Handler, HandlerKind, Matcher, RESERVED_FIELDS};
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
                out.push(
                    Explanation::new(
                        DIALECT,
                        declared.clone(),
                        &plugin.name,
                        Some(handler.source.clone()),
                        runs,
                        reason,
                    )
                    .with_summary(Some(summary(handler)))
                    .with_ignored(ignored(group, handler)),
                );
            }
        }
    }
    run_order_first(out)
}

/// What a handler runs, shortened: its command (exec form: the program and
/// its arguments), `prompt: ` and an excerpt of its prompt, or its type.
pub(crate) fn summary(handler: &Handler) -> String {
    match &handler.kind {
        HandlerKind::Command(Ok(Program::Shell { script, .. })) => short_command(script),
        HandlerKind::Command(Ok(Program::Exec { program, args })) => {
            let mut words = vec![program.to_string_lossy().into_owned()];
            words.extend(args.iter().cloned());
            short_command(&words.join(" "))
        }
        // An unusable shell: the command is still what identifies it.
        HandlerKind::Command(Err(_)) => {
            short_command(handler.command_text.as_deref().unwrap_or(""))
        }
        HandlerKind::Prompt { prompt, .. } => format!("prompt: {}", excerpt(prompt)),
        HandlerKind::Unsupported(t) => format!("{t} handler"),
    }
}

/// The group's and the handler's keys that latch does not act on, in file
/// order; none for a handler that is skipped whole.
fn ignored(group: &Group, handler: &Handler) -> Vec<IgnoredKey> {
    if matches!(handler.kind, HandlerKind::Unsupported(_)) {
        return Vec::new();
    }
    let mut keys: Vec<(crate::diag::Position, IgnoredKey)> = group
        .ignored_keys
        .iter()
        .map(|(k, at)| {
            (
                *at,
                IgnoredKey {
                    key: k.clone(),
                    why: "group key: not read".to_owned(),
                },
            )
        })
        .collect();
    keys.extend(handler.extra_at.iter().map(|(k, at)| {
        let why = if RESERVED_FIELDS.contains(&k.as_str()) {
            "reserved: parsed, no effect yet"
        } else {
            "unknown: kept, no effect"
        };
        (
            *at,
            IgnoredKey {
                key: k.clone(),
                why: why.to_owned(),
            },
        )
    }));
    keys.sort_by_key(|(at, _)| *at);
    keys.into_iter().map(|(_, k)| k).collect()
}
