//! `latch lint`'s claude rules: what loads but does not do what its author
//! meant, by Claude Code's rules.

use crate::diag::{Diagnostic, Severity};

use crate::matcher::ClaudeMatcher;

use super::events::ClaudeEvent;
use super::load::{HandlerKind, Scope};
use super::{Claude, DIALECT};

impl Claude {
    /// The lint findings for the loaded files.
    pub fn lint(&self) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        for file in self.files() {
            for &(key, at) in &file.unapplied {
                let (severity, message) = unapplied(key);
                out.push(
                    Diagnostic::new(severity, message)
                        .in_file(&file.path)
                        .at(Some(at))
                        .for_dialect(DIALECT),
                );
            }
            for group in &file.groups {
                for h in &group.handlers {
                    let at = h.source.position;
                    let d = |sev: Severity, msg: String| {
                        Diagnostic::new(sev, msg)
                            .in_file(&file.path)
                            .at(at)
                            .for_dialect(DIALECT)
                            .for_event(group.event_name.clone())
                    };
                    if let (Some(rule), Some(e)) =
                        (h.condition.as_ref().map(|c| &c.text), group.event)
                        && !e.is_tool()
                    {
                        out.push(d(
                            Severity::Warning,
                            format!("`if: {rule}` on {e}: Claude Code never runs a handler with `if` on an event without a tool, so this handler never runs"),
                        ));
                    }
                    if let HandlerKind::Command {
                        command,
                        args,
                        shell,
                    } = &h.kind
                    {
                        let text = std::iter::once(command).chain(args.iter().flatten());
                        if file.scope != Scope::Plugin
                            && text.clone().any(|t| {
                                t.contains("${CLAUDE_PLUGIN_ROOT}")
                                    || t.contains("${CLAUDE_PLUGIN_DATA}")
                            })
                        {
                            out.push(d(
                                Severity::Warning,
                                "the command uses ${CLAUDE_PLUGIN_ROOT} or ${CLAUDE_PLUGIN_DATA} in a settings file; Claude Code refuses to run it (only plugin hooks have these)".to_owned(),
                            ));
                        }
                        if let Some(msg) =
                            crate::lint::nul_in_command(text.clone().map(String::as_str))
                        {
                            out.push(d(Severity::Warning, msg));
                        }
                        if shell.as_deref() == Some("bash") {
                            out.push(d(
                                Severity::Info,
                                "`shell: \"bash\"` still runs the command with /bin/sh in Claude Code; write POSIX shell or call bash explicitly".to_owned(),
                            ));
                        }
                        if args.is_some() && command.contains(' ') && !command.contains('$') {
                            out.push(d(
                                Severity::Warning,
                                format!("exec form (`args`) runs `{command}` as one program name, spaces included; put the arguments in `args`"),
                            ));
                        }
                    }
                    if h.run_async && group.event == Some(ClaudeEvent::PreToolUse) {
                        out.push(d(
                            Severity::Warning,
                            "an `async` PreToolUse handler cannot block or rewrite: Claude Code ignores the decisions of async hooks".to_owned(),
                        ));
                    }
                }
                if let (Some(e), super::load::Matcher::Valid(ClaudeMatcher::Names(names))) =
                    (group.event, &group.matcher)
                    && e.is_tool()
                {
                    for (name, claude) in names.iter().filter_map(|n| harness_name(n)) {
                        out.push(at_group(
                            file,
                            group,
                            e,
                            format!(
                                "`{name}` is a harness's name for a tool that hooks see as `{claude}` (tool vocabulary), so this matcher never fires for it: write `{claude}`"
                            ),
                        ));
                    }
                }
                if let (Some(m), Some(e)) = (&group.matcher_text, group.event)
                    && e.target_kind().is_none()
                    && !matches!(m.trim(), "" | "*")
                {
                    out.push(
                        Diagnostic::new(
                            Severity::Info,
                            format!("{e} has no matcher target; Claude Code ignores the matcher `{m}` and runs the group on every {e}"),
                        )
                        .in_file(&file.path)
                        .at(group.source.position)
                        .for_dialect(DIALECT)
                        .for_event(e.as_str()),
                    );
                }
            }
        }
        out
    }

    /// Matchers that name a Claude Code tool no tool of the harness maps
    /// to (by `vocabulary`): they never fire for it.
    pub fn lint_tools(&self, vocabulary: &crate::vocabulary::Vocabulary) -> Vec<Diagnostic> {
        let known: std::collections::HashSet<&str> = vocabulary.claude_names().collect();
        let mut out = Vec::new();
        for file in self.files() {
            for group in &file.groups {
                let (Some(e), super::load::Matcher::Valid(m)) = (group.event, &group.matcher)
                else {
                    continue;
                };
                if !e.is_tool() {
                    continue;
                }
                let names: &[String] = match m {
                    crate::matcher::ClaudeMatcher::Names(ns) => ns,
                    _ => &[],
                };
                for name in names {
                    // Said by `lint` already; an MCP name may come from the
                    // table's pattern.
                    let said = harness_name(name).is_some();
                    let by_pattern = vocabulary.maps_mcp() && name.starts_with("mcp__");
                    if !known.contains(name.as_str()) && !said && !by_pattern {
                        out.push(at_group(
                            file,
                            group,
                            e,
                            format!(
                                "no tool of the harness maps to `{name}` (tool vocabulary), so this matcher never fires for it"
                            ),
                        ));
                    }
                }
            }
        }
        out
    }
}

/// What `latch lint` says of a settings key latch does not apply.
fn unapplied(key: &str) -> (Severity, String) {
    match key {
        "enabledPlugins" => (
            Severity::Info,
            "`enabledPlugins`: latch loads the plugins given with `--plugin-dir` (`plugin_dirs`), not the ones installed for Claude Code; pass each enabled plugin's directory".to_owned(),
        ),
        "strictPluginOnlyCustomization" => (
            Severity::Warning,
            "`strictPluginOnlyCustomization`: latch does not apply it, so hooks from settings files still run; load only the sources you want (`--dialect`, `--claude-settings`, `--plugin-dir`)".to_owned(),
        ),
        _ => (
            Severity::Warning,
            format!("`{key}`: latch does not apply it, so `http` handlers are not restricted by it"),
        ),
    }
}

/// A matcher's name that the built-in vocabulary maps to another Claude
/// Code name (`shell` → `Bash`), with that name: the hooks of a harness
/// using latch's names never see it.
fn harness_name(name: &str) -> Option<(&str, String)> {
    static BUILTIN: std::sync::OnceLock<crate::vocabulary::Vocabulary> = std::sync::OnceLock::new();
    let builtin = BUILTIN.get_or_init(crate::vocabulary::Vocabulary::builtin);
    let claude = builtin.get(name)?.claude.as_str();
    (claude != name).then(|| (name, claude.to_owned()))
}

/// A warning at a matcher group of `file`, for its event `e`.
fn at_group(
    file: &super::load::LoadedFile,
    group: &super::load::Group,
    e: ClaudeEvent,
    message: String,
) -> Diagnostic {
    Diagnostic::warning(message)
        .in_file(&file.path)
        .at(group.source.position)
        .for_dialect(DIALECT)
        .for_event(e.as_str())
}
