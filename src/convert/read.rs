//! Reading each dialect's loaded configuration into neutral rules.

use crate::diag::Diagnostic;
use crate::dialect::evener::{self, EvEvent, Evener, EventName, HandlerKind};
use crate::dialect::peen::events::PeenEvent;
use crate::dialect::peen::{ActionKind, Peen};
use crate::dialect::poolside::{PoolEvent, Poolside};
use crate::matcher::NameMatcher;
use crate::run::Program;

use super::env::{EVENER_SETS, EnvRead, expand_bare_root, file_reads};
use super::shell::scan;
use super::{
    Handler, Rule, START_KINDS, Side, Tools, foreign_name, report, starts_where, to_neutral,
};

/// The starts a rule of a dialect without `SessionStart` matchers runs on:
/// `session_starts` for a `SessionStart` rule, every one for the others.
fn starts_of(kind: crate::event::EventKind, session_starts: &[&'static str]) -> Vec<&'static str> {
    if kind == crate::event::EventKind::SessionStart {
        session_starts.to_vec()
    } else {
        START_KINDS.to_vec()
    }
}

/// The variables a shell script reads, as read from its own text.
fn script_reads(script: &str) -> Vec<EnvRead> {
    scan(script)
        .reads
        .into_iter()
        .map(|name| EnvRead { name, via: None })
        .collect()
}

/// The tools a matcher selects, or `None` when it can never match in its
/// own dialect (then converting it must not make it match).
fn tools_of(
    side: Side,
    m: &NameMatcher,
    source: &crate::diag::SourceRef,
    notes: &mut Vec<Diagnostic>,
) -> Option<Tools> {
    let names = |ns: &[&String], notes: &mut Vec<Diagnostic>| -> Option<Tools> {
        let mut kept = Vec::new();
        for n in ns {
            if foreign_name(side, n) {
                notes.push(report(
                    source,
                    format!("matcher name `{n}` is not this dialect's name for the tool: it never matched here, so it is dropped rather than made to match"),
                ));
            } else {
                kept.push(to_neutral(side, n));
            }
        }
        (!kept.is_empty()).then_some(Tools::Names(kept))
    };
    Some(match m {
        NameMatcher::Any => Tools::Any,
        NameMatcher::Exact(n) => return names(&[n], notes),
        NameMatcher::List(ns) => return names(&ns.iter().collect::<Vec<_>>(), notes),
        NameMatcher::Regex { pattern, mode, .. } => Tools::Regex(match mode {
            crate::matcher::RegexMode::WholeName => pattern.clone(),
            // A search-anywhere regex, as a whole-name one.
            crate::matcher::RegexMode::Search => format!(".*(?:{pattern}).*"),
        }),
    })
}

/// Poolside hooks as rules.
pub fn from_poolside(cfg: &Poolside) -> (Vec<Rule>, Vec<Diagnostic>) {
    let mut rules = Vec::new();
    let mut notes = Vec::new();
    if let (Some(max), Some(first)) = (cfg.max_continuations(), cfg.hooks(PoolEvent::Stop).first())
    {
        notes.push(report(
            &first.source,
            format!("stop_hook_max_continuations ({max}) has no equivalent in the target; dropped"),
        ));
    }
    for pe in PoolEvent::ALL {
        let kind = pe.kind();
        for hook in cfg.hooks(pe) {
            let tools = match &hook.matcher {
                crate::dialect::poolside::Matcher::Valid(m) if pe.uses_matcher() => {
                    match tools_of(Side::Poolside, m, &hook.source, &mut notes) {
                        Some(t) => t,
                        None => continue,
                    }
                }
                crate::dialect::poolside::Matcher::Valid(_) => Tools::Any,
                crate::dialect::poolside::Matcher::Invalid { pattern, .. } => {
                    notes.push(report(
                        &hook.source,
                        format!(
                            "hook {} has an invalid matcher `{pattern}` (disabled); not converted",
                            hook.label
                        ),
                    ));
                    continue;
                }
            };
            rules.push(Rule {
                kind,
                tools,
                // poolside starts a session's hooks on startup and resume.
                starts: starts_of(kind, &["startup", "resume"]),
                handler: Handler::Shell(hook.command.clone()),
                timeout: Some(hook.timeout),
                name: hook.name.clone(),
                source: hook.source.clone(),
                command_at: hook.command_at,
                reads: script_reads(&hook.command),
                origin: Side::Poolside,
            });
        }
    }
    (rules, notes)
}

/// Evener handlers as rules.
pub fn from_evener(ev: &Evener) -> (Vec<Rule>, Vec<Diagnostic>) {
    let mut rules = Vec::new();
    let mut notes = Vec::new();
    for plugin in ev.plugins() {
        for group in &plugin.groups {
            let e = match &group.event {
                EventName::Fired(e) => *e,
                other => {
                    notes.push(report(
                        &group.source,
                        format!(
                            "{} is not an event evener fires; its hooks are not converted",
                            other.as_str()
                        ),
                    ));
                    continue;
                }
            };
            let kind = e.kind();
            let mut starts = START_KINDS.to_vec();
            let tools = match &group.matcher {
                evener::Matcher::Valid(m)
                    if matches!(e, EvEvent::PreToolUse | EvEvent::PostToolUse) =>
                {
                    match tools_of(Side::Evener, m, &group.source, &mut notes) {
                        Some(t) => t,
                        None => continue,
                    }
                }
                evener::Matcher::Valid(NameMatcher::Any) => Tools::Any,
                // Tested against the start kind, as in Claude Code.
                evener::Matcher::Valid(m) if e == EvEvent::SessionStart => {
                    starts = starts_where(|k| m.matches(k));
                    Tools::Any
                }
                evener::Matcher::Valid(m) => {
                    notes.push(report(
                        &group.source,
                        format!("matcher {} on {e} (a start kind or an unwired target) has no equivalent; the hooks are converted without it", m.describe()),
                    ));
                    Tools::Any
                }
                evener::Matcher::Invalid(_) => {
                    notes.push(report(
                        &group.source,
                        format!(
                            "invalid matcher `{}` (skipped by evener); not converted",
                            group.matcher_text
                        ),
                    ));
                    continue;
                }
            };
            for (key, at) in &group.ignored_keys {
                notes.push(
                    Diagnostic::new(
                        crate::diag::Severity::Info,
                        format!("group key `{key}` is dropped (evener does not read it either)"),
                    )
                    .in_file(&group.source.file)
                    .at(Some(*at)),
                );
            }
            for h in &group.handlers {
                let (handler, reads) = match &h.kind {
                    HandlerKind::Command(Ok(Program::Shell { script, .. })) => {
                        // The targets set no plugin variables: expand them here.
                        let script = expand_bare_root(
                            &evener::load::expand_root(script, &plugin.root),
                            &plugin.root,
                        );
                        let mut reads = script_reads(&script);
                        reads.extend(file_reads(
                            script.split_whitespace(),
                            &plugin.root,
                            &EVENER_SETS,
                        ));
                        (Handler::Shell(script), reads)
                    }
                    HandlerKind::Command(Ok(Program::Exec { program, args })) => {
                        let program = program.to_string_lossy().into_owned();
                        let words = std::iter::once(program.as_str())
                            .chain(args.iter().map(String::as_str));
                        let reads = file_reads(words, &plugin.root, &EVENER_SETS);
                        (Handler::Exec(program, args.clone()), reads)
                    }
                    HandlerKind::Command(Err(why)) => {
                        notes.push(report(
                            &h.source,
                            format!("this handler cannot run ({why}); not converted"),
                        ));
                        continue;
                    }
                    HandlerKind::Prompt { .. } => {
                        notes.push(report(
                            &h.source,
                            "a prompt handler (a model call) has no equivalent; dropped".to_owned(),
                        ));
                        continue;
                    }
                    HandlerKind::Unsupported(t) => {
                        notes.push(report(
                            &h.source,
                            format!("handler type `{t}` does not run in evener; dropped"),
                        ));
                        continue;
                    }
                };
                for (key, at) in &h.extra_at {
                    let what = if evener::load::RESERVED_FIELDS.contains(&key.as_str()) {
                        "evener parses it but does not act on it; in Claude Code it has an effect the converted hook loses"
                    } else {
                        "an unknown field, without effect in evener"
                    };
                    notes.push(report(
                        &crate::diag::SourceRef {
                            file: h.source.file.clone(),
                            position: Some(*at),
                        },
                        format!("`{key}` is dropped: the target has no such key ({what})"),
                    ));
                }
                rules.push(Rule {
                    kind,
                    tools: tools.clone(),
                    starts: starts.clone(),
                    handler,
                    timeout: Some(h.timeout),
                    name: None,
                    source: h.source.clone(),
                    command_at: h.command_at,
                    reads,
                    origin: Side::Evener,
                });
            }
        }
    }
    (rules, notes)
}

/// Peen actions as rules. Only what survives converts: `tool` matching,
/// `deny` and `command` actions; other match fields, `inject` and
/// `emitEvent` are reported and dropped (a filter dropped silently would
/// widen a hook; the whole action is dropped instead).
pub fn from_peen(peen: &Peen) -> (Vec<Rule>, Vec<Diagnostic>) {
    let mut rules = Vec::new();
    let mut notes = Vec::new();
    for file in peen.files() {
        for group in &file.groups {
            // Every peen event has one (a unit test of `kind` checks).
            let Some(kind) = group.event.kind() else {
                continue;
            };
            let own_tool = match &group.event {
                PeenEvent::FileTool(_, t) => Some((*t).to_owned()),
                _ => None,
            };
            for action in &group.actions {
                let mut tool = own_tool.clone();
                let mut ok = true;
                for m in group.matcher.iter().chain(action.when.iter()) {
                    if m.root.is_some()
                        || m.path.is_some()
                        || m.extensions.is_some()
                        || !m.input.is_empty()
                    {
                        notes.push(report(
                            &action.source,
                            format!("{}/{}: root, path, extensions and input checks have no equivalent; the action is dropped", group.name, action.name),
                        ));
                        ok = false;
                    }
                    if let Some(t) = &m.tool {
                        if tool.as_ref().is_some_and(|own| own != t) {
                            notes.push(report(
                                &action.source,
                                format!("{}/{}: `tool: {t}` conflicts with the group's tool; the action never runs, so it is not converted", group.name, action.name),
                            ));
                            ok = false;
                        }
                        tool = Some(t.clone());
                    }
                }
                if !ok {
                    continue;
                }
                let handler = match &action.kind {
                    ActionKind::Deny(reason) if reason.contains('\0') => {
                        // No command line can hold a NUL: the deny would
                        // fail to start, and fail open, in a script dialect.
                        notes.push(report(
                            &action.source,
                            format!("{}/{}: the reason's NUL characters are left out: no command can hold them", group.name, action.name),
                        ));
                        Handler::Deny(reason.replace('\0', ""))
                    }
                    ActionKind::Deny(reason) => Handler::Deny(reason.clone()),
                    ActionKind::Command(spec) => {
                        let fails_closed = action.on_failure.map_or_else(
                            || group.event.fails_closed(),
                            |f| f == crate::dialect::peen::OnFailure::Deny,
                        );
                        if fails_closed {
                            notes.push(report(
                                &action.source,
                                format!("{}/{}: in peen a failed command denies here; converted hooks fail open (a failure never blocks)", group.name, action.name),
                            ));
                        }
                        for (var, _) in &spec.environment {
                            notes.push(report(
                                &action.source,
                                format!(
                                    "{}/{}: `environment` entry {var} is dropped: the target cannot set a variable for one hook, so the command does not get ${var}",
                                    group.name, action.name
                                ),
                            ));
                        }
                        if let Some(dir) = &spec.working_dir {
                            notes.push(report(
                                &action.source,
                                format!(
                                    "{}/{}: `workingDir: {dir}` is dropped: the command runs in the target's working directory",
                                    group.name, action.name
                                ),
                            ));
                        }
                        Handler::Exec(spec.command.clone(), spec.args.clone())
                    }
                    ActionKind::Inject(_) | ActionKind::EmitEvent(_) => {
                        notes.push(report(
                            &action.source,
                            format!(
                                "{}/{}: `{}` has no equivalent; dropped",
                                group.name,
                                action.name,
                                action.kind.type_name()
                            ),
                        ));
                        continue;
                    }
                };
                let timeout = match &action.kind {
                    ActionKind::Command(spec) => spec.timeout,
                    _ => None,
                };
                rules.push(Rule {
                    kind,
                    tools: tool.map_or(Tools::Any, |t| {
                        Tools::Names(vec![to_neutral(Side::Peen, &t)])
                    }),
                    // peen's sessionStart: a session's first turn only.
                    starts: starts_of(kind, &["startup"]),
                    handler,
                    timeout,
                    name: Some(group.name.clone()),
                    source: action.source.clone(),
                    command_at: match &action.kind {
                        ActionKind::Command(spec) => spec.command_at,
                        _ => None,
                    },
                    // peen runs no shell: its arguments read no variables.
                    reads: Vec::new(),
                    origin: Side::Peen,
                });
            }
        }
    }
    (rules, notes)
}

/// Claude Code handlers as rules. `command` handlers convert; `if`
/// (a filter: dropping it would widen the hook, so the handler is
/// dropped), `shell: powershell` (the targets would run the text with a
/// POSIX shell: dropped), `async`, `asyncRewake`, `statusMessage`, `once`,
/// and the other handler types are reported.
pub fn from_claude(cfg: &crate::dialect::claude::Claude) -> (Vec<Rule>, Vec<Diagnostic>) {
    use crate::dialect::claude::ClaudeEvent;
    use crate::dialect::claude::combine::COMMAND_TIMEOUT;
    use crate::dialect::claude::load::{HandlerKind as Kind, Matcher};
    use crate::matcher::ClaudeMatcher;
    let mut rules = Vec::new();
    let mut notes = Vec::new();
    for file in cfg.files() {
        for group in &file.groups {
            let Some(e) = group.event else {
                notes.push(report(
                    &group.source,
                    format!(
                        "latch does not fire `{}`; its hooks are not converted",
                        group.event_name
                    ),
                ));
                continue;
            };
            let mut starts = START_KINDS.to_vec();
            let tools = match &group.matcher {
                Matcher::Valid(ClaudeMatcher::Any) => Tools::Any,
                Matcher::Valid(m) if e == ClaudeEvent::SessionStart => {
                    starts = starts_where(|k| m.is_match(k));
                    Tools::Any
                }
                Matcher::Valid(m) if e.is_tool() => match m {
                    ClaudeMatcher::Regex(r) => {
                        notes.push(report(
                            &group.source,
                            format!("JavaScript regex `{}` is kept as written (searched anywhere); the target reads it with its own regex syntax", r.as_str()),
                        ));
                        Tools::Regex(format!(".*(?:{}).*", r.as_str()))
                    }
                    ClaudeMatcher::Names(ns) => {
                        let as_names = match ns.as_slice() {
                            [one] => NameMatcher::Exact(one.clone()),
                            many => NameMatcher::List(many.to_vec()),
                        };
                        match tools_of(Side::Claude, &as_names, &group.source, &mut notes) {
                            Some(t) => t,
                            None => continue,
                        }
                    }
                    ClaudeMatcher::Any => Tools::Any,
                },
                Matcher::Valid(m) if e.target_kind().is_none() => {
                    notes.push(report(
                        &group.source,
                        format!(
                            "matcher {} on {e} is ignored by Claude Code too; dropped",
                            m.describe()
                        ),
                    ));
                    Tools::Any
                }
                Matcher::Valid(m) => {
                    notes.push(report(
                        &group.source,
                        format!("matcher {} on {e} (tested against {}) has no equivalent; the group is not converted", m.describe(), e.target_kind().unwrap_or("target")),
                    ));
                    continue;
                }
                Matcher::Invalid(_) => {
                    notes.push(report(
                        &group.source,
                        "an invalid matcher; not converted".to_owned(),
                    ));
                    continue;
                }
            };
            for h in &group.handlers {
                if let Some(c) = &h.condition {
                    notes.push(report(
                        &h.source,
                        format!("`if: {}` has no equivalent and dropping it would widen the hook; the handler is not converted", c.text),
                    ));
                    continue;
                }
                let handler = match &h.kind {
                    Kind::Command {
                        command,
                        args: Some(args),
                        ..
                    } => Handler::Exec(command.clone(), args.clone()),
                    Kind::Command {
                        shell: Some(shell), ..
                    } if shell == "powershell" => {
                        notes.push(report(
                            &key_source(h, "shell"),
                            "`shell: powershell` has no equivalent: converted hooks run their text with /bin/sh (or bash), not PowerShell; the handler is not converted".to_owned(),
                        ));
                        continue;
                    }
                    Kind::Command { command, .. } => Handler::Shell(command.clone()),
                    other => {
                        notes.push(report(
                            &h.source,
                            format!(
                                "a `{}` handler has no equivalent; dropped",
                                other.type_name()
                            ),
                        ));
                        continue;
                    }
                };
                notes.extend(claude_dropped_keys(h));
                let reads = match &handler {
                    Handler::Shell(s) => script_reads(s),
                    _ => Vec::new(),
                };
                rules.push(Rule {
                    kind: e.kind(),
                    tools: tools.clone(),
                    starts: starts.clone(),
                    handler,
                    // Claude Code's default is 600 s; the targets' differ.
                    timeout: Some(h.timeout.unwrap_or(COMMAND_TIMEOUT)),
                    name: None,
                    source: h.source.clone(),
                    command_at: h.source.position,
                    reads,
                    origin: Side::Claude,
                });
            }
        }
    }
    (rules, notes)
}

/// Where `key` is written in a claude handler (the handler itself when it
/// is not found).
fn key_source(h: &crate::dialect::claude::load::Handler, key: &str) -> crate::diag::SourceRef {
    crate::diag::SourceRef {
        file: h.source.file.clone(),
        position: h.key_position(key).or(h.source.position),
    }
}

/// The report entries of a converted claude `command` handler's keys that
/// the targets have no equivalent for, each at its key: `async` and
/// `asyncRewake` change what the hook does (warnings), `statusMessage` and
/// `once` do not under latch (notes).
fn claude_dropped_keys(h: &crate::dialect::claude::load::Handler) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if h.run_async {
        out.push(report(
            &key_source(h, "async"),
            "`async` is dropped: the converted hook holds the event, and its decisions count"
                .to_owned(),
        ));
    }
    if h.async_rewake {
        out.push(report(
            &key_source(h, "asyncRewake"),
            "`asyncRewake` is dropped: in an interactive Claude Code session the hook runs in the background and its exit 2 wakes the model; the converted hook holds the event, and its decisions count".to_owned(),
        ));
    }
    for (key, why) in [
        (
            "statusMessage",
            "the text Claude Code shows while the hook runs; the targets show none",
        ),
        (
            "once",
            "latch ignores it, as Claude Code does in settings files",
        ),
    ] {
        if h.key_position(key).is_some() {
            let at = key_source(h, key);
            out.push(
                Diagnostic::new(
                    crate::diag::Severity::Info,
                    format!("`{key}` is dropped ({why})"),
                )
                .in_file(&at.file)
                .at(at.position),
            );
        }
    }
    out
}
