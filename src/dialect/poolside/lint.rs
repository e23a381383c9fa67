//! Lint rules for poolside settings: mistakes that load fine but do not do
//! what their author meant.

use std::collections::HashMap;
use std::path::Path;

use crate::diag::{Diagnostic, Position, Severity};
use crate::lint::{
    check_program, finding, millis_timeout, missing_scripts, shell_program, unset_variables,
};
use crate::matcher::NameMatcher;

use super::events::PoolEvent;
use super::load::{Hook, Matcher};
use super::{DIALECT, Poolside};

/// The documented `tool_input` keys of the most commonly guarded tools.
const TOOL_KEYS: [(&str, &[&str]); 7] = [
    ("shell", &["cmd", "cwd", "env", "mode", "shell_id"]),
    ("read", &["path", "start_line", "end_line"]),
    ("edit", &["path", "old_string", "new_string", "replace_all"]),
    ("write", &["path", "contents"]),
    ("remove", &["path"]),
    ("web_fetch", &["url"]),
    ("web_search", &["query"]),
];

impl Poolside {
    /// Lint findings for the loaded settings.
    pub fn lint(&self) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        for pe in PoolEvent::ALL {
            // Each hook's first copy, by value: linear in the hooks.
            let mut firsts: HashMap<(String, String), &Hook> = HashMap::new();
            for hook in self.hooks(pe) {
                lint_hook(self, pe, hook, &mut out);
                let first = *firsts.entry(identity(hook)).or_insert(hook);
                if !std::ptr::eq(first, hook) {
                    out.push(
                        at(
                            hook,
                            Severity::Warning,
                            format!(
                                "this hook duplicates the one at {}; it runs twice",
                                first.source
                            ),
                        )
                        .for_event(pe.as_str()),
                    );
                }
            }
        }
        if self.max_continuations().is_none() {
            for hook in self.hooks(PoolEvent::Stop) {
                out.push(
                    at(
                        hook,
                        Severity::Warning,
                        "a Stop hook can make the agent continue, and no level sets `stop_hook_max_continuations`: continuations are unlimited".to_owned(),
                    )
                    .for_event("Stop")
                    .with_hint("add `stop_hook_max_continuations: 3` (or another cap) under `hooks:`"),
                );
            }
        }
        out
    }
}

/// What makes two hooks the same: their command and matcher.
fn identity(h: &Hook) -> (String, String) {
    let matcher = match &h.matcher {
        Matcher::Valid(m) => m.describe(),
        Matcher::Invalid { pattern, .. } => pattern.clone(),
    };
    (h.command.trim().to_owned(), matcher)
}

fn at(hook: &Hook, severity: Severity, message: String) -> Diagnostic {
    finding(
        severity,
        message,
        DIALECT,
        &hook.source.file,
        hook.source.position,
        None,
    )
    .for_hook(hook.label.clone())
}

fn lint_hook(cfg: &Poolside, pe: PoolEvent, hook: &Hook, out: &mut Vec<Diagnostic>) {
    let ev = pe.as_str();
    if let Matcher::Valid(m) = &hook.matcher {
        if pe.uses_matcher() {
            for name in m.exact_names() {
                if let Some(pool) =
                    crate::dialect::tools::translate(name, crate::dialect::tools::Side::Poolside)
                {
                    out.push(
                        at(
                            hook,
                            Severity::Warning,
                            format!(
                                "matcher `{name}` is not a poolside tool name; it never matches"
                            ),
                        )
                        .for_event(ev)
                        .at(hook.matcher_at.or(hook.source.position))
                        .with_hint(format!("poolside calls this tool `{pool}`")),
                    );
                }
            }
            if let NameMatcher::Regex { pattern, .. } = m
                && let Some(prefix) = pattern.strip_suffix(".*")
                && TOOL_KEYS.iter().any(|(t, _)| *t == prefix)
            {
                out.push(
                    at(hook, Severity::Warning, format!("regex `{pattern}` matches every tool whose name starts with `{prefix}`, not only `{prefix}`"))
                        .for_event(ev)
                        .at(hook.matcher_at.or(hook.source.position))
                        .with_hint(format!("for exactly that tool, write `{prefix}`")),
                );
            }
        } else if !matches!(m, NameMatcher::Any) {
            out.push(
                at(
                    hook,
                    Severity::Info,
                    format!("the matcher is ignored on {ev}; this hook runs on every {ev}"),
                )
                .for_event(ev)
                .at(hook.matcher_at.or(hook.source.position))
                .with_hint("write `matcher: \"*\"`"),
            );
        }
    }
    if let Some(msg) = millis_timeout(hook.timeout.as_secs_f64()) {
        out.push(
            at(hook, Severity::Warning, msg)
                .for_event(ev)
                .at(hook.timeout_at.or(hook.source.position)),
        );
    }
    if let Some(msg) = crate::lint::nul_in_command(std::iter::once(hook.command.as_str())) {
        out.push(
            at(hook, Severity::Warning, msg)
                .for_event(ev)
                .at(hook.command_at.or(hook.source.position)),
        );
    }
    // Poolside adds no variables to a hook's environment.
    for (sev, msg) in unset_variables(&hook.command, "poolside", &[], &[]) {
        out.push(
            at(hook, sev, msg)
                .for_event(ev)
                .at(hook.command_at.or(hook.source.position))
                .with_hint("the hook's input is JSON on stdin (for example `jq -r '.tool_input'`); poolside adds no variables"),
        );
    }
    if let Some(program) = shell_program(&hook.command) {
        for (sev, msg, hint) in check_program(
            &program,
            cfg.workdir(),
            "poolside runs hooks in the agent's working directory, else the project",
        ) {
            let mut d = at(hook, sev, msg)
                .for_event(ev)
                .at(hook.command_at.or(hook.source.position));
            d.hint = hint;
            out.push(d);
        }
        for (written, path, problem) in missing_scripts(&hook.command, &[], cfg.workdir()) {
            out.push(
                at(
                    hook,
                    Severity::Warning,
                    format!("the script `{written}` {problem} ({})", path.display()),
                )
                .for_event(ev)
                .at(hook.command_at.or(hook.source.position))
                .with_hint("poolside runs hooks in the agent's working directory, else the project: use an absolute path"),
            );
        }
        if let (Some(dir), Matcher::Valid(m)) = (cfg.workdir(), &hook.matcher) {
            let script = if Path::new(&program).is_absolute() {
                program.clone().into()
            } else {
                dir.join(&program)
            };
            lint_script_fields(&script, m, hook, ev, out);
        }
    }
}

/// A script that reads `.tool_input.KEY` for a tool that has no such key
/// silently does nothing. Checked when the matcher names tools whose keys
/// poolside documents.
fn lint_script_fields(
    script: &Path,
    m: &NameMatcher,
    hook: &Hook,
    ev: &str,
    out: &mut Vec<Diagnostic>,
) {
    let tools: Vec<&(&str, &[&str])> = m
        .exact_names()
        .iter()
        .filter_map(|n| TOOL_KEYS.iter().find(|(t, _)| t == n))
        .collect();
    if tools.is_empty() {
        return;
    }
    // Bounded and never blocking: the "script" may be a FIFO or a device.
    let Ok(text) = crate::config::read_bounded_text(script, crate::lint::MAX_SCRIPT_FILE) else {
        return;
    };
    for (lineno, line) in text.lines().enumerate() {
        let mut rest = line;
        let mut offset = 0;
        while let Some(at_) = rest.find(".tool_input.") {
            let start = at_ + ".tool_input.".len();
            let key: String = rest[start..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !key.is_empty() && tools.iter().all(|(_, keys)| !keys.contains(&key.as_str())) {
                let names: Vec<&str> = tools.iter().map(|(t, _)| *t).collect();
                let keys: Vec<String> = tools
                    .iter()
                    .map(|(t, k)| format!("{t}: {}", k.join(", ")))
                    .collect();
                let col = line[..offset + start].chars().count() as u32 + 1;
                out.push(
                    finding(
                        Severity::Warning,
                        format!("the script reads `.tool_input.{key}`, which `{}` does not have; the hook silently does nothing", names.join("|")),
                        DIALECT,
                        script,
                        Some(Position { line: lineno as u32 + 1, column: col }),
                        Some(format!("the keys are {}", keys.join("; "))),
                    )
                    .for_hook(hook.label.clone())
                    .for_event(ev),
                );
            }
            offset += start;
            rest = &rest[start..];
        }
    }
}
