//! `latch trust`: list the hooks latch would load with their trust state,
//! approve them, revoke approvals.

use crate::text::visible;
use std::io::{self, Write};
use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

use crate::trust::{Definition, Store, TrustState};
use crate::{Event, EventKind, Session};

use super::config::ConfigArgs;
use super::exit;
use super::stdout::Stdout;

/// List the hooks a project would run with their trust state; approve
/// them or revoke approvals (see docs/trust.md).
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct TrustArgs {
    #[command(subcommand)]
    action: Option<Action>,
    #[command(flatten)]
    common: Common,
}

/// What every `latch trust` command takes.
#[derive(Debug, Args, Clone)]
struct Common {
    #[command(flatten)]
    config: ConfigArgs,
    /// Where the trust store lives (`<DIR>/trust/`). Default:
    /// $LATCH_STATE_DIR, else $XDG_STATE_HOME/latch, else
    /// ~/.local/state/latch.
    #[arg(long, value_name = "DIR", value_parser = super::config::path_flag)]
    state_dir: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

#[derive(Debug, Subcommand)]
enum Action {
    /// List every hook latch would load, with its trust state and what
    /// changed since it was approved (the default).
    List(Common),
    /// Approve hooks as they are now: every one that needs approval with
    /// `--all`, else those named (by label, or by `FILE:LINE`).
    Approve(Select),
    /// Withdraw approvals: of every hook listed with `--all`, else of
    /// those named.
    Revoke(Select),
}

#[derive(Debug, Args)]
struct Select {
    #[command(flatten)]
    common: Common,
    /// Every hook that needs approval.
    #[arg(long, conflicts_with = "hooks")]
    all: bool,
    /// Hooks by label (as `latch trust` lists them) or by `FILE:LINE`.
    #[arg(value_name = "HOOK", required_unless_present = "all")]
    hooks: Vec<String>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
}

/// Runs `latch trust` and returns its exit code.
pub fn run(args: TrustArgs) -> u8 {
    let (common, action) = match args.action {
        None => (args.common, None),
        Some(Action::List(common)) => (common, None),
        Some(Action::Approve(select)) => (select.common.clone(), Some((select, true))),
        Some(Action::Revoke(select)) => (select.common.clone(), Some((select, false))),
    };
    let Some(state_root) = common
        .state_dir
        .clone()
        .or_else(Session::default_state_root)
    else {
        eprintln!("latch: error: {}", super::config::NO_STATE_DIRECTORY);
        return exit::INTERNAL;
    };
    let definitions = load(&common.config);
    match action {
        None => list(&definitions, &state_root, common.format),
        Some((select, approve)) => {
            change(&definitions, &state_root, &select, common.format, approve)
        }
    }
}

/// Every hook the configuration loads (its load problems on stderr).
fn load(config: &ConfigArgs) -> Vec<Definition> {
    for flag in config.run_only_flags(false) {
        eprintln!("latch: warning: {flag} has no effect: latch trust runs no hook");
    }
    let mut diags = Vec::new();
    let mut event = Event::new(EventKind::SessionStart);
    event.cwd = None;
    let engine = config.clone().engine(&event, &mut diags);
    let mut stderr = io::stderr().lock();
    for d in diags.iter().chain(engine.diagnostics()) {
        let _ = writeln!(stderr, "{d}");
    }
    engine.definitions()
}

fn list(definitions: &[Definition], state_root: &std::path::Path, format: Format) -> u8 {
    let store = match Store::load(state_root) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("latch: error: {e}");
            return exit::INTERNAL;
        }
    };
    let mut out = Stdout::lock();
    match format {
        Format::Json => {
            let listed = crate::trust::list(definitions, &store);
            let text = serde_json::to_string_pretty(&listed).unwrap_or_else(|_| "[]".into());
            let _ = writeln!(out, "{text}");
        }
        Format::Text => {
            if definitions.is_empty() {
                let _ = writeln!(out, "no hooks");
            }
            for d in definitions {
                let state = d.state(&store);
                // Everything here comes from the file under review:
                // control characters are shown, never obeyed.
                let shown = |s: &dyn std::fmt::Display| visible(&s.to_string()).into_owned();
                let _ = writeln!(
                    out,
                    "{:<12} {} {} `{}` {}",
                    state_word(&state),
                    d.dialect,
                    shown(&d.event),
                    shown(&d.hook),
                    shown(&d.source)
                );
                let _ = writeln!(out, "    runs: {}", shown(&d.runs));
                for s in &d.scripts {
                    let _ = writeln!(out, "    script: {}", shown(&s.display()));
                }
                if let TrustState::Changed(changes) = &state {
                    for c in changes {
                        let _ = writeln!(out, "    changed: {}", shown(c));
                    }
                }
            }
        }
    }
    out.finish(exit::OK)
}

fn state_word(state: &TrustState) -> &'static str {
    match state {
        TrustState::NotRequired => "not needed",
        TrustState::Approved => "approved",
        TrustState::New => "not approved",
        TrustState::Changed(_) => "changed",
    }
}

fn change(
    definitions: &[Definition],
    state_root: &std::path::Path,
    select: &Select,
    format: Format,
    approve: bool,
) -> u8 {
    let chosen = match crate::trust::select(definitions, &select.hooks, select.all) {
        Ok(chosen) => chosen,
        Err(why) => {
            eprintln!("latch: error: {why} (see `latch trust`)");
            return exit::USAGE;
        }
    };
    let updated = if approve {
        crate::trust::approve(state_root, chosen)
    } else {
        crate::trust::revoke(state_root, chosen)
    };
    let changed = match updated {
        Ok(c) => c,
        Err(e) => {
            eprintln!("latch: error: {e}");
            return exit::INTERNAL;
        }
    };
    let verb = if approve { "approved" } else { "revoked" };
    let mut out = Stdout::lock();
    match format {
        Format::Json => {
            let listed: Vec<crate::trust::Brief> = changed.iter().map(|d| (*d).into()).collect();
            let _ = writeln!(out, "{}", serde_json::json!({ verb: listed }));
        }
        Format::Text => {
            for d in &changed {
                let _ = writeln!(
                    out,
                    "{verb} {} {} `{}` {}",
                    d.dialect, d.event, d.hook, d.source
                );
            }
            if changed.is_empty() {
                let _ = writeln!(out, "nothing {verb}");
            }
        }
    }
    out.finish(exit::OK)
}
