//! Lint rules for peen hooks files.

use std::collections::HashMap;

use crate::diag::{Diagnostic, Severity};
use crate::lint::{check_program, finding, missing_scripts};

use super::events::FILE_TOOLS;
use super::load::{ActionKind, Group};
use super::{DIALECT, Peen};

/// The tools peen presents that have no events of their own.
const OTHER_TOOLS: [&str; 14] = [
    "runCommand",
    "changeDirectory",
    "startJob",
    "waitJob",
    "readJob",
    "stopJob",
    "listJobs",
    "useSkill",
    "launchAgent",
    "sendMessage",
    "waitMessages",
    "stopAgent",
    "ask",
    "emitEvent",
];

fn camel(snake: &str) -> String {
    let mut out = String::new();
    let mut up = false;
    for c in snake.chars() {
        if c == '_' {
            up = true;
        } else if up {
            out.extend(c.to_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

impl Peen {
    /// Lint findings for the loaded files.
    pub fn lint(&self) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        let known = |t: &str| FILE_TOOLS.contains(&t) || OTHER_TOOLS.contains(&t);
        // Each (event, name)'s first group: linear in the groups.
        let mut seen: HashMap<(String, &str), &Group> = HashMap::new();
        for file in self.files() {
            for group in &file.groups {
                let at = |sev: Severity, msg: String| {
                    finding(
                        sev,
                        msg,
                        DIALECT,
                        &group.source.file,
                        group.source.position,
                        None,
                    )
                    .for_hook(group.name.clone())
                    .for_event(group.event.name())
                };
                let tools = group
                    .matcher
                    .iter()
                    .chain(group.actions.iter().filter_map(|a| a.when.as_ref()))
                    .filter_map(|m| m.tool.as_deref().map(|t| (t, m.tool_at)));
                for (tool, tool_at) in tools {
                    let at = |sev: Severity, msg: String| {
                        at(sev, msg).at(tool_at.or(group.source.position))
                    };
                    if known(tool) {
                        continue;
                    }
                    let c = camel(tool);
                    out.push(if known(&c) {
                        at(Severity::Warning, format!("`tool: {tool}` is not a peen tool name; it never matches"))
                            .with_hint(format!("peen names it `{c}`"))
                    } else {
                        at(Severity::Warning, format!("`tool: {tool}` is not a tool peen presents; peen does not check it, and it may never match"))
                    });
                }
                if !group.event.is_tool() {
                    for m in group
                        .matcher
                        .iter()
                        .chain(group.actions.iter().filter_map(|a| a.when.as_ref()))
                    {
                        if let Some(tool) = &m.tool {
                            out.push(at(
                                Severity::Warning,
                                format!("`tool: {tool}` never matches on {}: lifecycle events have no tool", group.event),
                            ));
                        }
                        if m.root.is_some() || m.path.is_some() || m.extensions.is_some() {
                            out.push(at(
                                Severity::Warning,
                                format!("`root`, `path` and `extensions` never match on {}: lifecycle events have no paths", group.event),
                            ));
                        }
                    }
                }
                let first = *seen
                    .entry((group.event.name(), group.name.as_str()))
                    .or_insert(group);
                if !std::ptr::eq(first, group) {
                    out.push(at(
                        Severity::Warning,
                        format!("a group named `{}` is already declared for {} at {}; layers add, so both run", group.name, group.event, first.source),
                    ));
                }
                for action in &group.actions {
                    if let ActionKind::Command(spec) = &action.kind
                        && let Some(msg) = spec
                            .timeout
                            .and_then(|t| crate::lint::tiny_timeout(t.as_secs_f64()))
                    {
                        out.push(
                            finding(
                                Severity::Warning,
                                msg,
                                DIALECT,
                                &action.source.file,
                                action.source.position,
                                None,
                            )
                            .for_hook(format!("{}/{}", group.name, action.name))
                            .for_event(group.event.name()),
                        );
                    }
                    if let ActionKind::Command(spec) = &action.kind {
                        // A finding at the command, naming the action.
                        let at_command = |sev: Severity, msg: String, hint: Option<String>| {
                            finding(
                                sev,
                                msg,
                                DIALECT,
                                &action.source.file,
                                spec.command_at.or(action.source.position),
                                hint,
                            )
                            .for_hook(format!("{}/{}", group.name, action.name))
                            .for_event(group.event.name())
                        };
                        let texts = std::iter::once(&spec.command).chain(&spec.args);
                        if let Some(msg) = crate::lint::nul_in_command(texts.map(String::as_str)) {
                            out.push(at_command(Severity::Warning, msg, None));
                        }
                        // The command runs in the workspace, or `workingDir` in it.
                        let base = self.options().workspace.as_ref().map(|w| {
                            spec.working_dir
                                .as_ref()
                                .map_or_else(|| w.clone(), |d| w.join(d))
                        });
                        let base = base.as_deref();
                        // `python3 check.py` in exec form: the script too.
                        let line = std::iter::once(&spec.command)
                            .chain(&spec.args)
                            .map(|w| format!("'{}'", w.replace('\'', "")))
                            .collect::<Vec<_>>()
                            .join(" ");
                        for (written, path, problem) in missing_scripts(&line, &[], base) {
                            out.push(at_command(
                                Severity::Warning,
                                format!("the script `{written}` {problem} ({})", path.display()),
                                Some("peen runs commands in the agent's current directory, or `workingDir`: use an absolute path".to_owned()),
                            ));
                        }
                        for (sev, msg, hint) in check_program(
                            &spec.command,
                            base,
                            "peen runs commands in the agent's current directory",
                        ) {
                            let mut d = at_command(sev, msg, hint);
                            if d.hint.is_none()
                                && !spec.command.starts_with('/')
                                && spec.command.contains('/')
                            {
                                d.hint =
                                    Some("use an absolute path, or set `workingDir`".to_owned());
                            }
                            out.push(d);
                        }
                    }
                }
            }
        }
        out
    }
}
