//! Writing neutral rules in each dialect's syntax.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

use serde_json::{Value, json};

use crate::config::duration::format_go_duration;
use crate::diag::Diagnostic;
use crate::dialect::evener::events::EvEvent;
use crate::dialect::poolside::PoolEvent;
use crate::event::EventKind;

use super::shell::scan;
use super::{Handler, Rule, START_KINDS, Side, Tools, env, from_neutral, report};

/// A report entry when an evener script (run by bash there) may not run the
/// same under `/bin/sh`: see [`scan`] for the check.
fn bash_note(rule: &Rule, target: &str, notes: &mut Vec<Diagnostic>) {
    let Handler::Shell(script) = &rule.handler else {
        return;
    };
    if rule.origin != Side::Evener {
        return;
    }
    if let Some(what) = scan(script).bash_only {
        notes.push(report(
            &rule.source,
            format!(
                "this script ran under bash in evener; {target} runs it with /bin/sh, and it uses {what}, which /bin/sh may not run the same way"
            ),
        ));
    }
}

/// A YAML double-quoted scalar. JSON string syntax is valid YAML, except
/// that YAML does not allow some characters raw (DEL, C1 controls,
/// U+FFFE/U+FFFF): those are written as `\uXXXX`.
fn q(s: &str) -> String {
    let json = serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned());
    json.chars()
        .map(|c| match c {
            '\u{7f}'..='\u{9f}' | '\u{fffe}' | '\u{ffff}' => format!("\\u{:04x}", c as u32),
            c => c.to_string(),
        })
        .collect()
}

/// Quotes one word for `sh`: `'…'`, with `'` written as `'\''`.
fn sh_word(w: &str) -> String {
    if !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-=:@%+,".contains(c))
    {
        return w.to_owned();
    }
    format!("'{}'", w.replace('\'', "'\\''"))
}

/// The shell script for a handler, for dialects whose hooks are scripts.
fn script(h: &Handler) -> String {
    match h {
        Handler::Shell(s) => s.clone(),
        Handler::Exec(p, args) => std::iter::once(p.as_str())
            .chain(args.iter().map(String::as_str))
            .map(sh_word)
            .collect::<Vec<_>>()
            .join(" "),
        Handler::Deny(reason) => format!("printf '%s\\n' {} >&2; exit 2", sh_word(reason)),
    }
}

fn tool_names(side: Side, rule: &Rule, notes: &mut Vec<Diagnostic>) -> Vec<String> {
    match &rule.tools {
        Tools::Names(ns) => ns
            .iter()
            .map(|n| {
                from_neutral(side, n).unwrap_or_else(|kept| {
                    notes.push(report(
                        &rule.source,
                        format!(
                            "tool `{kept}` has no known equivalent in the target; kept as written"
                        ),
                    ));
                    kept
                })
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Whether a deny on this point blocks the same thing in a script dialect
/// (exit 2): only before a tool runs and on a user prompt.
fn exit2_denies(kind: EventKind) -> bool {
    matches!(kind, EventKind::ToolBefore | EventKind::UserPrompt)
}

/// Rules as a poolside `settings.yaml`.
pub fn to_poolside(rules: &[Rule]) -> (String, Vec<Diagnostic>) {
    let mut notes = Vec::new();
    let mut events: BTreeMap<PoolEvent, (&str, Vec<String>)> = BTreeMap::new();
    let mut used: BTreeMap<(String, String), usize> = BTreeMap::new();
    for rule in rules {
        // Events sort by the dialect's own order (its enum's).
        let Some(order) = PoolEvent::from_kind(rule.kind) else {
            notes.push(report(
                &rule.source,
                format!("poolside has no event for `{}`; dropped", rule.kind),
            ));
            continue;
        };
        if rule.kind == EventKind::ToolFailure {
            notes.push(report(&rule.source, "poolside has no failure event: PostToolUse runs on every tool result, failed or not".to_owned()));
        }
        let event = order.as_str();
        if matches!(rule.handler, Handler::Deny(_)) && !exit2_denies(rule.kind) {
            notes.push(report(
                &rule.source,
                format!("a deny on {event} means something else in poolside (exit 2); dropped"),
            ));
            continue;
        }
        if rule.kind == EventKind::SessionStart
            && !narrowed_starts(
                rule,
                &["startup", "resume"],
                "poolside runs SessionStart hooks on every startup and resume",
                &mut notes,
            )
        {
            continue;
        }
        let matcher = match &rule.tools {
            Tools::Any => "*".to_owned(),
            Tools::Names(_) => tool_names(Side::Poolside, rule, &mut notes).join("|"),
            Tools::Regex(r) => {
                notes.push(report(
                    &rule.source,
                    format!(
                        "regex `{r}` is kept as written; tool names inside it are not translated"
                    ),
                ));
                r.clone()
            }
        };
        bash_note(rule, "poolside", &mut notes);
        env::notes(rule, Side::Poolside, &mut notes);
        let mut entry = String::new();
        if let Some(name) = &rule.name {
            // A repeated name would replace the earlier hook in poolside.
            let n = used.entry((event.to_owned(), name.clone())).or_insert(0);
            *n += 1;
            let name = if *n == 1 {
                name.clone()
            } else {
                format!("{name}-{n}")
            };
            let _ = write!(
                entry,
                "    - name: {}\n      matcher: {}\n",
                q(&name),
                q(&matcher)
            );
        } else {
            let _ = writeln!(entry, "    - matcher: {}", q(&matcher));
        }
        let _ = writeln!(entry, "      command: {}", q(&script(&rule.handler)));
        if let Some(t) = rule.timeout {
            let _ = writeln!(entry, "      timeout: {}", t.as_secs_f64());
        }
        events
            .entry(order)
            .or_insert((event, Vec::new()))
            .1
            .push(entry);
    }
    let mut out = String::from("# Converted by latch convert.\nhooks:\n");
    for (event, entries) in events.values() {
        let _ = writeln!(out, "  {event}:");
        for e in entries {
            out.push_str(e);
        }
    }
    (out, notes)
}

/// Rules as an evener `hooks/hooks.json`.
pub fn to_evener(rules: &[Rule]) -> (String, Vec<Diagnostic>) {
    let mut notes = Vec::new();
    let mut events: BTreeMap<EvEvent, (&str, Vec<Value>)> = BTreeMap::new();
    for rule in rules {
        let Some(order) = EvEvent::from_kind(rule.kind) else {
            notes.push(report(
                &rule.source,
                format!("evener has no event for `{}`; dropped", rule.kind),
            ));
            continue;
        };
        if rule.kind == EventKind::ToolFailure {
            notes.push(report(
                &rule.source,
                "evener fires no failure event: PostToolUse runs on every tool result".to_owned(),
            ));
        }
        let event = order.as_str();
        if matches!(rule.handler, Handler::Deny(_)) && rule.kind != EventKind::ToolBefore {
            notes.push(report(
                &rule.source,
                format!("a deny on {event} means something else in evener (exit 2); dropped"),
            ));
            continue;
        }
        if rule.name.is_some() {
            notes.push(report(
                &rule.source,
                "evener hooks have no names (runs are labelled by plugin); the name is dropped"
                    .to_owned(),
            ));
        }
        let matcher = match &rule.tools {
            Tools::Any if rule.kind == EventKind::SessionStart => {
                match start_matcher(rule, &mut notes) {
                    Some(m) => m.unwrap_or_else(|| "*".to_owned()),
                    None => continue,
                }
            }
            Tools::Any => "*".to_owned(),
            Tools::Names(_) => tool_names(Side::Evener, rule, &mut notes).join("|"),
            // evener regexes match anywhere in the name: anchor to keep the meaning.
            Tools::Regex(r) => {
                notes.push(report(
                    &rule.source,
                    format!(
                        "regex `{r}` is kept (anchored); tool names inside it are not translated"
                    ),
                ));
                format!("^(?:{r})$")
            }
        };
        env::notes(rule, Side::Evener, &mut notes);
        let mut handler = match &rule.handler {
            Handler::Exec(p, args) if !args.is_empty() => {
                json!({"type": "command", "command": p, "args": args})
            }
            h => json!({"type": "command", "command": script(h)}),
        };
        if let Some(t) = rule.timeout {
            handler["timeout"] = seconds(t);
        }
        events
            .entry(order)
            .or_insert((event, Vec::new()))
            .1
            .push(json!({"matcher": matcher, "hooks": [handler]}));
    }
    let mut hooks = serde_json::Map::new();
    for (event, groups) in events.into_values() {
        hooks.insert(event.to_owned(), Value::Array(groups));
    }
    let doc = json!({"description": "Converted by latch convert.", "hooks": hooks});
    (
        format!(
            "{}\n",
            serde_json::to_string_pretty(&doc).unwrap_or_default()
        ),
        notes,
    )
}

/// Seconds as JSON: an integer when whole.
fn seconds(d: Duration) -> Value {
    if d.subsec_nanos() == 0 {
        json!(d.as_secs())
    } else {
        json!(d.as_secs_f64())
    }
}

/// Rules as a peen `.agents/hooks.yaml`.
pub fn to_peen(rules: &[Rule]) -> (String, Vec<Diagnostic>) {
    let mut notes = Vec::new();
    let mut events: BTreeMap<usize, (&str, Vec<String>)> = BTreeMap::new();
    for rule in rules {
        let (order, event) = match rule.kind {
            EventKind::UserPrompt => (0, "preUserMessage"),
            EventKind::SessionStart => (1, "sessionStart"),
            EventKind::UserPromptReady => (2, "postUserMessage"),
            EventKind::TurnStart => (3, "turnStart"),
            EventKind::ToolBefore => (4, "preToolUse"),
            EventKind::ToolAfter => (5, "postToolUse"),
            EventKind::ToolFailure => (6, "toolUseFailure"),
            EventKind::Stop => (7, "turnStop"),
            EventKind::TurnCancelled => (8, "turnCancelled"),
            EventKind::CompactBefore => (9, "preCompact"),
            EventKind::CompactAfter => (10, "postCompact"),
            other => {
                notes.push(report(
                    &rule.source,
                    format!("peen has no event for `{other}`; dropped"),
                ));
                continue;
            }
        };
        let first_turn = "peen's sessionStart runs only on a session's first turn";
        if rule.kind == EventKind::SessionStart
            && !narrowed_starts(rule, &["startup"], first_turn, &mut notes)
        {
            continue;
        }

        let tools: Vec<Option<String>> = match &rule.tools {
            Tools::Any => vec![None],
            Tools::Names(_) => tool_names(Side::Peen, rule, &mut notes)
                .into_iter()
                .map(Some)
                .collect(),
            Tools::Regex(r) => {
                notes.push(report(&rule.source, format!("peen matches tools by exact name only: regex `{r}` cannot be expressed; dropped")));
                continue;
            }
        };
        bash_note(rule, "the peen action", &mut notes);
        env::notes(rule, Side::Peen, &mut notes);
        let action = match &rule.handler {
            Handler::Deny(reason) => format!("      - type: deny\n        reason: {}\n", q(reason)),
            h => {
                let (command, args): (String, Vec<String>) = match h {
                    Handler::Exec(p, a) => (p.clone(), a.clone()),
                    other => {
                        notes.push(report(
                            &rule.source,
                            "peen runs no shell: the script runs as /bin/sh -c; peen reads JSON decisions in its own format, and a non-zero exit (exit 2 included) is an action failure, which denies only on pre events".to_owned(),
                        ));
                        ("/bin/sh".to_owned(), vec!["-c".to_owned(), script(other)])
                    }
                };
                let mut a = format!("      - type: command\n        command: {}\n", q(&command));
                if !args.is_empty() {
                    let list: Vec<String> = args.iter().map(|x| q(x)).collect();
                    let _ = writeln!(a, "        args: [{}]", list.join(", "));
                }
                if let Some(t) = rule.timeout {
                    let _ = writeln!(
                        a,
                        "        timeout: {}",
                        // peen timeouts must be positive
                        format_go_duration(t.max(Duration::from_nanos(1)))
                    );
                }
                a
            }
        };
        for tool in tools {
            let mut g = String::new();
            match &rule.name {
                Some(n) => {
                    let _ = writeln!(g, "  - name: {}", q(n));
                }
                None => g.push_str("  -\n"),
            }
            if let Some(t) = tool {
                let _ = writeln!(g, "    match:\n      tool: {}", q(&t));
            }
            let _ = write!(g, "    actions:\n{action}");
            events.entry(order).or_insert((event, Vec::new())).1.push(g);
        }
    }
    let mut out = String::from("# Converted by latch convert.\nversion: 1\n");
    for (event, groups) in events.values() {
        let _ = writeln!(out, "{event}:");
        for g in groups {
            out.push_str(&g.replace("  -\n    ", "  - "));
        }
    }
    (out, notes)
}

/// Rules as a Claude Code `.claude/settings.json` (its `hooks` key).
pub fn to_claude(rules: &[Rule]) -> (String, Vec<Diagnostic>) {
    use crate::dialect::claude::ClaudeEvent;
    let mut notes = Vec::new();
    let mut events: BTreeMap<usize, (&str, Vec<Value>)> = BTreeMap::new();
    for rule in rules {
        let Some(ce) = ClaudeEvent::from_kind(rule.kind) else {
            notes.push(report(
                &rule.source,
                format!("claude has no event for `{}`; dropped", rule.kind),
            ));
            continue;
        };
        let order = ClaudeEvent::ALL.iter().position(|e| *e == ce).unwrap_or(0);
        if matches!(rule.handler, Handler::Deny(_)) && !exit2_denies(rule.kind) {
            notes.push(report(
                &rule.source,
                format!("a deny on {ce} means something else in Claude Code (exit 2); dropped"),
            ));
            continue;
        }
        if rule.name.is_some() {
            notes.push(report(
                &rule.source,
                "Claude Code hooks have no names; the name is dropped".to_owned(),
            ));
        }
        let matcher = match &rule.tools {
            Tools::Any if ce == ClaudeEvent::SessionStart => {
                match start_matcher(rule, &mut notes) {
                    Some(m) => m,
                    None => continue,
                }
            }
            Tools::Any => None,
            Tools::Names(_) => Some(tool_names(Side::Claude, rule, &mut notes).join("|")),
            // Claude Code searches regexes anywhere in the name: anchor.
            Tools::Regex(r) => {
                notes.push(report(
                    &rule.source,
                    format!(
                        "regex `{r}` is kept (anchored); tool names inside it are not translated"
                    ),
                ));
                Some(format!("^(?:{r})$"))
            }
        };
        env::notes(rule, Side::Claude, &mut notes);
        let mut handler = match &rule.handler {
            Handler::Exec(p, args) => json!({"type": "command", "command": p, "args": args}),
            h => json!({"type": "command", "command": script(h)}),
        };
        if let Some(t) = rule.timeout {
            handler["timeout"] = seconds(t);
        }
        let mut group = serde_json::Map::new();
        if let Some(m) = matcher {
            group.insert("matcher".into(), Value::from(m));
        }
        group.insert("hooks".into(), json!([handler]));
        let group = Value::Object(group);
        events
            .entry(order)
            .or_insert((ce.as_str(), Vec::new()))
            .1
            .push(group);
    }
    let mut hooks = serde_json::Map::new();
    for (event, groups) in events.into_values() {
        hooks.insert(event.to_owned(), Value::Array(groups));
    }
    (
        format!(
            "{}\n",
            serde_json::to_string_pretty(&json!({"hooks": hooks})).unwrap_or_default()
        ),
        notes,
    )
}

/// The matcher of a `SessionStart` rule in Claude Code's and evener's
/// terms: `Some(None)` for every start, `Some(Some(list))` for some,
/// `None` (with a note) when it runs on none and is not converted.
fn start_matcher(rule: &Rule, notes: &mut Vec<Diagnostic>) -> Option<Option<String>> {
    match rule.starts.as_slice() {
        [] => {
            notes.push(report(
                &rule.source,
                "its matcher accepts no way a session starts (startup, resume, clear, compact), so it never runs; not converted".to_owned(),
            ));
            None
        }
        all if all.len() == START_KINDS.len() => Some(None),
        some => Some(Some(some.join("|"))),
    }
}

/// Whether a `SessionStart` rule converts to a target that runs such
/// hooks on `target` starts only, which cannot filter them: not if it
/// would then run on a start its source never ran it on (that would widen
/// it); a start of its own that the target lacks is lost, with a note.
fn narrowed_starts(
    rule: &Rule,
    target: &[&str],
    target_runs: &str,
    notes: &mut Vec<Diagnostic>,
) -> bool {
    if rule.starts.is_empty() {
        // The matcher accepts no start: say that, not that it would widen.
        return start_matcher(rule, notes).is_some();
    }
    if target.iter().any(|t| !rule.starts.contains(t)) {
        notes.push(report(
            &rule.source,
            format!(
                "it runs only on {}, and {target_runs}: converting it would widen it; not converted",
                describe_starts(&rule.starts)
            ),
        ));
        return false;
    }
    let lost: Vec<&str> = rule
        .starts
        .iter()
        .copied()
        .filter(|s| !target.contains(s))
        .collect();
    if !lost.is_empty() {
        notes.push(report(
            &rule.source,
            format!(
                "{target_runs}: the hook no longer runs on {}",
                describe_starts(&lost)
            ),
        ));
    }
    true
}

/// `startup`, `startup and resume`, `startup, clear and compact`; `no start`.
fn describe_starts(starts: &[&str]) -> String {
    match starts {
        [] => "no start".to_owned(),
        [one] => format!("`{one}`"),
        [rest @ .., last] => format!(
            "{} and `{last}`",
            rest.iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}
