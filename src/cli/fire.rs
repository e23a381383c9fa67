//! `latch fire`: one event in, one outcome out.

use std::io::{self, Read, Write};
use std::path::PathBuf;

use clap::Args;

use latch::outcome::RunStatus;
use latch::run::Cancel;
use latch::{Engine, Event, Session};

use super::config::ConfigArgs;
use super::exit;

/// Flags of `latch fire`.
#[derive(Debug, Args)]
pub struct FireArgs {
    /// Read the event JSON from this file instead of stdin.
    #[arg(long, value_name = "FILE")]
    event: Option<PathBuf>,
    #[command(flatten)]
    config: ConfigArgs,
    /// Where per-session state lives. Default: $LATCH_STATE_DIR, else
    /// $XDG_STATE_HOME/latch, else ~/.local/state/latch (empty variables
    /// count as unset).
    #[arg(long, value_name = "DIR")]
    state_dir: Option<PathBuf>,
    /// Print the outcome as indented JSON.
    #[arg(long)]
    pretty: bool,
}

/// Runs `latch fire` and returns its exit code.
pub async fn run(args: FireArgs) -> u8 {
    let event = match read_valid_event(args.event.as_ref()) {
        Ok(e) => e,
        Err(code) => return code,
    };
    let mut diags = Vec::new();
    let engine = args.config.engine(&event, &mut diags);
    for d in &diags {
        eprintln!("{d}");
    }
    let mut stderr = io::stderr().lock();
    for d in engine.diagnostics() {
        let _ = writeln!(stderr, "{d}");
    }
    let session = match open_session(&event, args.state_dir) {
        Ok(s) => s,
        Err(msg) => {
            eprintln!("latch: error: {msg}");
            return exit::INTERNAL;
        }
    };
    let outcome = match dispatch_until_signalled(&engine, &event, &session).await {
        Ok(o) => o,
        Err(e) => {
            eprintln!("latch: error: invalid event: {e}");
            return exit::BAD_EVENT;
        }
    };
    for run in outcome
        .runs
        .iter()
        .filter(|r| r.status == RunStatus::Failed)
    {
        let place = run
            .source
            .as_ref()
            .map(|s| format!(", declared at {s}"))
            .unwrap_or_default();
        let _ = writeln!(
            stderr,
            "latch: warning: hook {} ({}{place}) failed: {}",
            run.hook,
            run.event,
            run.message.as_deref().unwrap_or("unknown error")
        );
    }
    for w in &outcome.warnings {
        let _ = writeln!(stderr, "latch: warning: {w}");
    }
    let json = if args.pretty {
        serde_json::to_string_pretty(&outcome)
    } else {
        serde_json::to_string(&outcome)
    };
    let mut stdout = io::stdout().lock();
    match json {
        Ok(text) if writeln!(stdout, "{text}").is_ok() => exit::OK,
        _ => exit::INTERNAL,
    }
}

/// Reads and validates one event; on failure prints why and returns the
/// exit code.
pub fn read_valid_event(path: Option<&PathBuf>) -> Result<Event, u8> {
    let event = read_event(path).map_err(|msg| {
        eprintln!("latch: error: {msg}");
        exit::BAD_EVENT
    })?;
    event.validate().map_err(|e| {
        eprintln!("latch: error: invalid event: {e}");
        exit::BAD_EVENT
    })?;
    Ok(event)
}

/// Reads one event from a file, or stdin when `path` is `None`.
fn read_event(path: Option<&PathBuf>) -> Result<Event, String> {
    let (bytes, from) = match path {
        Some(p) => (
            std::fs::read(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?,
            p.display().to_string(),
        ),
        None => {
            let mut buf = Vec::new();
            io::stdin()
                .read_to_end(&mut buf)
                .map_err(|e| format!("cannot read the event from stdin: {e}"))?;
            (buf, "stdin".to_owned())
        }
    };
    serde_json::from_slice(&bytes).map_err(|e| format!("{from} is not a valid event: {e}"))
}

fn open_session(event: &Event, state_dir: Option<PathBuf>) -> Result<Session, String> {
    let Some(id) = &event.session_id else {
        return Ok(Session::in_memory(None));
    };
    let Some(root) = state_dir.or_else(Session::default_state_root) else {
        return Err("no state directory: set --state-dir, LATCH_STATE_DIR or HOME".into());
    };
    // A state directory that cannot be opened (a symbolic link, not a
    // directory, no permission) does not stop the dispatch: every dialect
    // makes its safe choice when it needs the state, with a warning.
    Ok(Session::open_or_unusable(&root, id))
}

/// Dispatches; SIGTERM or SIGINT cancels the dispatch, which kills the
/// running hook's process group, marks it `cancelled`, runs no more hooks,
/// and still prints the outcome of what ran.
async fn dispatch_until_signalled(
    engine: &Engine,
    event: &Event,
    session: &Session,
) -> Result<latch::Outcome, latch::EventError> {
    use tokio::signal::unix::{SignalKind, signal};
    let (handle, cancel) = Cancel::pair();
    let dispatch = engine.dispatch_cancellable(event, session, &cancel);
    tokio::pin!(dispatch);
    let (Ok(mut term), Ok(mut int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        // Without signal handlers latch still works; the default action
        // (exit) applies, and the hook's group dies with the kill guard only
        // if the process unwinds. Dispatch normally.
        return dispatch.await;
    };
    loop {
        tokio::select! {
            outcome = &mut dispatch => return outcome,
            _ = term.recv() => handle.cancel(),
            _ = int.recv() => handle.cancel(),
        }
    }
}
