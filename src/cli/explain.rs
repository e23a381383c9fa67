//! `latch explain`: for one event, every configured hook of every loaded
//! dialect, whether it would run and why. Runs nothing.

use crate::text::visible;
use std::io::{self, Write};
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use crate::explain::Explanation;
use crate::trust::Admission;

use super::config::ConfigArgs;
use super::exit;
use super::fire::read_valid_event;

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Lines for people.
    Text,
    /// A JSON array for tools.
    Json,
}

/// For one event, list every configured hook, whether it would run,
/// and why. Runs nothing.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The event JSON file (default: stdin).
    #[arg(value_name = "EVENT-JSON")]
    event: Option<PathBuf>,
    #[command(flatten)]
    config: ConfigArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

/// Runs `latch explain` and returns its exit code.
pub fn run(args: ExplainArgs) -> u8 {
    let event = match read_valid_event(args.event.as_ref()) {
        Ok(e) => e,
        Err(code) => return code,
    };
    for flag in args.config.run_only_flags(true) {
        eprintln!("latch: warning: {flag} has no effect: latch explain runs no hook");
    }
    let mut diags = Vec::new();
    let engine = args.config.engine(&event, &mut diags);
    let mut stderr = io::stderr().lock();
    for d in diags.iter().chain(engine.diagnostics()) {
        let _ = writeln!(stderr, "{d}");
    }
    let all = explain_all(&engine, &event, |m| {
        let _ = writeln!(stderr, "latch: error: {m}");
    });
    let mut stdout = io::stdout().lock();
    let written = match args.format {
        Format::Json => serde_json::to_string_pretty(&all)
            .map_err(io::Error::other)
            .and_then(|j| writeln!(stdout, "{j}")),
        Format::Text => text(&mut stdout, &event, &all),
    };
    if let Err(e) = written {
        return super::stdout::failed(&e);
    }
    exit::OK
}

/// Every dialect's explanation of `event`, with the engine's trust
/// policies applied. A panic in one dialect's explanation (a latch bug) is
/// reported through `error` and the other dialects are still explained.
pub fn explain_all(
    engine: &crate::Engine,
    event: &crate::Event,
    error: impl FnMut(String),
) -> Vec<Explanation> {
    let mut all = explain_dialects(engine, event, error);
    apply_trust(engine, event, &mut all);
    all
}

/// Under a trust policy, a hook that needs approval and has none would
/// not run (`require`) or would run with a warning (`warn`), as `latch
/// fire` decides.
fn apply_trust(engine: &crate::Engine, event: &crate::Event, all: &mut [Explanation]) {
    let Some(gate) = engine.trust_gate() else {
        return;
    };
    let definitions = engine.definitions_for(event);
    for e in all.iter_mut().filter(|e| e.runs && gate.checks(&e.dialect)) {
        let Some(def) = definitions.iter().find(|d| {
            d.dialect == e.dialect
                && d.event == e.event
                && d.hook == e.hook
                && e.source.as_ref() == Some(&d.source)
        }) else {
            continue;
        };
        match gate.foresee(def) {
            Admission::Run => {}
            Admission::Warn(warning) => e.reason = format!("{}; {warning}", e.reason),
            Admission::Refuse(why) => {
                e.runs = false;
                e.reason = format!("{}; {why}", e.reason);
            }
        }
    }
}

fn explain_dialects(
    engine: &crate::Engine,
    event: &crate::Event,
    mut error: impl FnMut(String),
) -> Vec<Explanation> {
    engine
        .dialects()
        .flat_map(|d| {
            crate::panic::catch(|| d.explain(event)).unwrap_or_else(|m| {
                error(format!(
                    "{}: latch failed internally while explaining its hooks ({m})",
                    d.name()
                ));
                Vec::new()
            })
        })
        .collect()
}

fn text(out: &mut impl Write, event: &crate::Event, all: &[Explanation]) -> io::Result<()> {
    let tool = event
        .tool_name()
        .map(|t| format!(" (tool `{t}`)"))
        .unwrap_or_default();
    let running = all.iter().filter(|e| e.runs).count();
    writeln!(
        out,
        "{}{tool}: {running} of {} configured hooks would run",
        event.event,
        all.len()
    )?;
    for e in all {
        let mark = if e.runs { "run " } else { "skip" };
        let place = e
            .source
            .as_ref()
            .map(|s| format!("  {s}"))
            .unwrap_or_default();
        let event = if e.event.is_empty() { "-" } else { &e.event };
        let summary = e
            .summary
            .as_ref()
            .map(|s| format!(" `{s}`"))
            .unwrap_or_default();
        // Labels, commands and reasons come from configuration files:
        // their control characters are shown, never obeyed.
        writeln!(
            out,
            "  {mark} {} {} {}{}{}",
            e.dialect,
            visible(event),
            visible(&e.hook),
            visible(&summary),
            visible(&place)
        )?;
        writeln!(out, "       {}", visible(&e.reason))?;
        if !e.ignored.is_empty() {
            // Keys that share a reason are listed together, in order.
            let mut parts: Vec<(&str, Vec<String>)> = Vec::new();
            for k in &e.ignored {
                match parts.iter_mut().find(|(why, _)| *why == k.why) {
                    Some((_, keys)) => keys.push(format!("`{}`", k.key)),
                    None => parts.push((&k.why, vec![format!("`{}`", k.key)])),
                }
            }
            let parts: Vec<String> = parts
                .iter()
                .map(|(why, keys)| format!("{} ({why})", keys.join(", ")))
                .collect();
            writeln!(out, "       ignored: {}", visible(&parts.join("; ")))?;
        }
    }
    Ok(())
}
