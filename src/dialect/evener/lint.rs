//! Lint rules for evener plugins.

use std::collections::{HashMap, HashSet};

use crate::diag::{Diagnostic, Severity};
use crate::lint::{
    check_program, finding, millis_timeout, missing_scripts, shell_program, unset_variables,
};
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
            lint_manifest(plugin, &mut out);
            // Each group's first copy, by value: linear in the groups.
            let mut firsts: HashMap<String, &Group> = HashMap::new();
            // A program missing from PATH is reported once per plugin.
            let mut missing: HashSet<String> = HashSet::new();
            for group in &plugin.groups {
                self.lint_group(plugin, group, &mut missing, &mut out);
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

    fn lint_group(
        &self,
        plugin: &Plugin,
        group: &Group,
        missing: &mut HashSet<String>,
        out: &mut Vec<Diagnostic>,
    ) {
        lint_matcher_text(plugin, group, out);
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
            self.lint_handler(plugin, ev, handler, missing, out);
        }
    }

    fn lint_handler(
        &self,
        plugin: &Plugin,
        ev: EvEvent,
        h: &Handler,
        missing: &mut HashSet<String>,
        out: &mut Vec<Diagnostic>,
    ) {
        let here = |sev: Severity, msg: String| {
            finding(sev, msg, DIALECT, &h.source.file, h.source.position, None)
                // The label `latch explain` gives: the plugin and what it runs.
                .for_hook(format!("{} `{}`", plugin.name, super::explain::summary(h)))
                .for_event(ev.as_str())
        };
        let command_at = h.command_at.or(h.source.position);
        if let Some(msg) = millis_timeout(h.timeout.as_secs_f64()) {
            out.push(here(Severity::Warning, msg));
        }
        if matches!(ev, EvEvent::Stop | EvEvent::SubagentStop) {
            // Advice, not a mistake: most Stop hooks never block.
            out.push(
                here(Severity::Info, format!("evener has no continuation cap: a {ev} hook that always blocks keeps the agent working forever"))
                    .with_hint("make the hook block at most once (a marker file, or `stop_hook_active` in its input)"),
            );
        }
        if let HandlerKind::Command(Ok(program)) = &h.kind {
            let texts: Vec<std::borrow::Cow<'_, str>> = match program {
                Program::Shell { script, .. } => vec![script.into()],
                Program::Exec { program, args } => std::iter::once(program.to_string_lossy())
                    .chain(args.iter().map(Into::into))
                    .collect(),
            };
            if let Some(msg) = crate::lint::nul_in_command(texts.iter().map(|t| t.as_ref())) {
                out.push(here(Severity::Warning, msg).at(command_at));
            }
        }
        let project = self.options().project.as_deref();
        let mut vars = vec![
            ("CLAUDE_PLUGIN_ROOT", plugin.root.as_path()),
            ("PLUGIN_ROOT", plugin.root.as_path()),
        ];
        vars.extend(project.map(|p| ("CLAUDE_PROJECT_DIR", p)));
        let (program, scripts) = match &h.kind {
            HandlerKind::Command(Ok(Program::Exec { program, args })) => {
                let mut words = vec![program.to_string_lossy().into_owned()];
                words.extend(args.iter().cloned());
                let line = words
                    .iter()
                    .map(|w| format!("'{}'", w.replace('\'', "")))
                    .collect::<Vec<_>>()
                    .join(" ");
                (
                    Some(words[0].clone()),
                    missing_scripts(&line, &vars, project),
                )
            }
            HandlerKind::Command(Ok(Program::Shell { script, .. })) => {
                for (sev, msg) in unset_variables(script, "evener", &EVENER_SETS, &CLAUDE_ONLY) {
                    let d = here(sev, msg).at(command_at);
                    out.push(if sev == Severity::Warning {
                        d.with_hint(format!(
                            "the hook's input is JSON on stdin (for example `jq -r '.tool_input'`); evener sets {}",
                            EVENER_SETS.map(|v| format!("${v}")).join(", ")
                        ))
                    } else {
                        d
                    });
                }
                let expanded = super::load::expand_root(script, &plugin.root);
                (
                    shell_program(&expanded),
                    missing_scripts(script, &vars, project),
                )
            }
            _ => (None, Vec::new()),
        };
        if let Some(p) = program {
            for (sev, msg, hint) in check_program(
                &p,
                project,
                "evener runs hooks in the project directory, not the plugin's",
            ) {
                if msg.contains("is not on PATH") && !missing.insert(p.clone()) {
                    continue;
                }
                // Evener runs every hook in the project directory, so a
                // relative path is not a mistake there; whether it exists is
                // checked below it.
                let relative = msg.contains("is relative");
                let (sev, msg) = if relative {
                    (
                        Severity::Info,
                        format!(
                            "the command path `{p}` is relative: evener resolves it in the project directory; Claude Code in the session's current directory, which a `cd` changes"
                        ),
                    )
                } else {
                    (sev, msg)
                };
                let mut d = here(sev, msg).at(command_at);
                d.hint = if relative {
                    Some("for a file in the plugin, start the path with ${CLAUDE_PLUGIN_ROOT}/; for one in the project, with \"$CLAUDE_PROJECT_DIR\"/".to_owned())
                } else {
                    hint
                };
                out.push(d);
            }
        }
        for (written, path, problem) in scripts {
            let hint = if !written.starts_with(['/', '$']) {
                "evener runs hooks in the project directory: for a file in the plugin, start the path with ${CLAUDE_PLUGIN_ROOT}/"
            } else {
                "check the path for a typo"
            };
            out.push(
                here(
                    Severity::Warning,
                    format!("the script `{written}` {problem} ({})", path.display()),
                )
                .at(command_at)
                .with_hint(hint),
            );
        }
    }
}

use super::combine::SET_VARS as EVENER_SETS;

/// Variables Claude Code sets for hooks that evener does not.
const CLAUDE_ONLY: [&str; 7] = [
    "CLAUDE_PLUGIN_DATA",
    "CLAUDE_ENV_FILE",
    "CLAUDE_CODE_REMOTE",
    "CLAUDECODE",
    "CLAUDE_CODE_SESSION_ID",
    "CLAUDE_PID",
    "CLAUDE_CODE_CHILD_SESSION",
];

/// A matcher written as an expression (`tool == "Bash" && …`) never
/// matches a tool name; one with an empty alternative (`Edit||Write`)
/// matches every tool where it is read as a regex.
fn lint_matcher_text(plugin: &Plugin, group: &Group, out: &mut Vec<Diagnostic>) {
    let m = group.matcher_text.as_str();
    let at_matcher = |d: Diagnostic| d.at(group.matcher_at.or(group.source.position));
    let expression = ["==", "!=", "&&", " matches ", "tool_input", "tool_name"]
        .iter()
        .any(|op| m.contains(op));
    if expression {
        out.push(at_matcher(
            at(plugin, group, Severity::Warning, format!("matcher `{m}` is written as an expression; a matcher is a pattern of tool names, so this one never matches"))
                .with_hint("name the tools (`Edit|Write`) and test the input inside the hook"),
        ));
        return;
    }
    let unescaped = m.replace("\\|", "");
    let alternatives: Vec<&str> = unescaped.split('|').collect();
    if alternatives.len() > 1 && alternatives.iter().any(|a| a.trim().is_empty()) {
        out.push(at_matcher(
            at(plugin, group, Severity::Warning, format!("matcher `{m}` has an empty alternative: read as a regex (Claude Code, evener) it matches every tool; latch skips the empty part"))
                .with_hint("remove the extra `|`"),
        ));
    }
}

/// A manifest whose `hooks` names the default `hooks/hooks.json`: that file
/// is loaded anyway, and Claude Code rejects the plugin ("Duplicate hooks
/// file detected").
fn lint_manifest(plugin: &Plugin, out: &mut Vec<Diagnostic>) {
    let Some(manifest) = &plugin.manifest else {
        return;
    };
    let Ok(text) = crate::config::read_bounded_text(manifest, crate::config::MAX_CONFIG_FILE)
    else {
        return;
    };
    let Ok(node) = crate::config::json::parse(&text) else {
        return;
    };
    let Some(hooks) = node.get("hooks") else {
        return;
    };
    let Some(rel) = hooks.as_str() else {
        return;
    };
    let named = crate::config::normalize(
        &plugin
            .root
            .join(super::load::expand_root(rel, &plugin.root)),
    );
    if named == plugin.root.join(super::discover::DEFAULT_HOOKS_FILE) {
        out.push(
            finding(
                Severity::Warning,
                format!("the manifest's \"hooks\" names the default `{rel}`, which is loaded without it; Claude Code rejects the plugin (\"Duplicate hooks file detected\")"),
                DIALECT,
                manifest,
                Some(hooks.position),
                Some(format!("remove \"hooks\" from the manifest; `{}` is always loaded. \"hooks\" is for additional files", super::discover::DEFAULT_HOOKS_FILE)),
            )
            .for_hook(plugin.name.clone()),
        );
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
