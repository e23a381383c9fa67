//! Lint rules for evener plugins.

use std::collections::HashMap;

use crate::diag::{Diagnostic, Severity};
use crate::lint::{check_program, finding, millis_timeout, shell_program};
use crate::matcher::NameMatcher;
use crate::run::Program;

use super::events::{EvEvent, EventName};
use super::load::{Group, Handler, HandlerKind, Matcher};
use super::{DIALECT, Evener, Plugin};

impl Evener {
    /// Lint findings for the loaded plugins.
    pub fn lint(&self) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        for plugin in self.plugins() {
            // Each group's first copy, by value: linear in the groups.
            let mut firsts: HashMap<String, &Group> = HashMap::new();
            for group in &plugin.groups {
                self.lint_group(plugin, group, &mut out);
                let first = *firsts.entry(identity(group)).or_insert(group);
                if !std::ptr::eq(first, group) {
                    out.push(at(
                        plugin,
                        group,
                        Severity::Warning,
                        format!(
                            "this group duplicates the one at {}; its hooks run twice",
                            first.source
                        ),
                    ));
                }
            }
        }
        out
    }

    fn lint_group(&self, plugin: &Plugin, group: &Group, out: &mut Vec<Diagnostic>) {
        let EventName::Fired(ev) = group.event else {
            return;
        };
        let names = &self.options().tool_names;
        if let Matcher::Valid(m) = &group.matcher
            && matches!(ev, EvEvent::PreToolUse | EvEvent::PostToolUse)
        {
            for name in m.exact_names() {
                let claude = names.claude_name(name);
                if claude != name {
                    out.push(
                        at(plugin, group, Severity::Warning, format!("matcher `{name}` is evener's own name; hooks see `{claude}`, so it never matches"))
                            .at(group.matcher_at.or(group.source.position))
                            .with_hint(format!("write `{claude}`")),
                    );
                }
            }
            if let NameMatcher::Regex { pattern, .. } = m
                && let Some(prefix) = pattern.strip_suffix(".*")
                && names.canonical_names().any(|(_, c)| c == prefix)
            {
                out.push(
                    at(plugin, group, Severity::Warning, format!("regex `{pattern}` matches every tool whose name contains `{prefix}` (such as `{prefix}Output`), not only `{prefix}`"))
                        .with_hint(format!("for exactly that tool, write `{prefix}`")),
                );
            }
        }
        if let Matcher::Valid(m) = &group.matcher
            && !matches!(ev, EvEvent::PreToolUse | EvEvent::PostToolUse)
        {
            let targets: &[&str] = if ev == EvEvent::SessionStart {
                &["startup", "resume", "clear", "compact"]
            } else {
                &[""]
            };
            if !targets.iter().any(|t| m.matches(t)) {
                let what = if ev == EvEvent::SessionStart {
                    "its targets are startup, resume, clear and compact".to_owned()
                } else {
                    format!("evener tests {ev} matchers against an empty target today")
                };
                out.push(
                    at(
                        plugin,
                        group,
                        Severity::Warning,
                        format!("matcher {} never matches on {ev}: {what}", m.describe()),
                    )
                    .with_hint("use \"*\" or omit the matcher"),
                );
            }
        }
        for handler in &group.handlers {
            self.lint_handler(plugin, ev, handler, out);
        }
    }

    fn lint_handler(&self, plugin: &Plugin, ev: EvEvent, h: &Handler, out: &mut Vec<Diagnostic>) {
        let here = |sev: Severity, msg: String| {
            finding(sev, msg, DIALECT, &h.source.file, h.source.position, None)
                .for_hook(format!("{}#{}", plugin.name, h.index))
                .for_event(ev.as_str())
        };
        if let Some(msg) = millis_timeout(h.timeout.as_secs_f64()) {
            out.push(here(Severity::Warning, msg));
        }
        if matches!(ev, EvEvent::Stop | EvEvent::SubagentStop) {
            out.push(
                here(Severity::Warning, format!("evener has no continuation cap: a {ev} hook that always blocks keeps the agent working forever"))
                    .with_hint("make the hook block at most once (a marker file), or only on a condition that the continuation fixes"),
            );
        }
        let program = match &h.kind {
            HandlerKind::Command(Ok(Program::Exec { program, .. })) => {
                Some(program.to_string_lossy().into_owned())
            }
            HandlerKind::Command(Ok(Program::Shell { script, .. })) => {
                shell_program(&super::load::expand_root(script, &plugin.root))
            }
            _ => None,
        };
        if let Some(p) = program {
            let base = self.options().project.as_deref();
            for (sev, msg, hint) in check_program(
                &p,
                base,
                "evener runs hooks in the project directory, not the plugin's",
            ) {
                let relative = msg.contains("is relative");
                let mut d = here(sev, msg).at(h.command_at.or(h.source.position));
                d.hint = if relative {
                    Some("start the path with ${CLAUDE_PLUGIN_ROOT}/".to_owned())
                } else {
                    hint
                };
                out.push(d);
            }
        }
    }
}

/// What makes two groups the same: their event, matcher and handlers.
fn identity(g: &Group) -> String {
    let kinds: Vec<&HandlerKind> = g.handlers.iter().map(|h| &h.kind).collect();
    format!("{:?}\0{}\0{kinds:?}", g.event, g.matcher_text)
}

fn at(plugin: &Plugin, group: &Group, sev: Severity, msg: String) -> Diagnostic {
    finding(
        sev,
        msg,
        DIALECT,
        &group.source.file,
        group.source.position,
        None,
    )
    .for_hook(plugin.name.clone())
    .for_event(group.event.as_str())
}
