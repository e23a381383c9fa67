//! `latch fire`: one event in, one outcome out.

use std::io::{self, Read, Write};
use std::path::PathBuf;

use clap::Args;

use latch::dialect::evener::{self, Evener, PromptConfig, ToolNames};
use latch::dialect::peen::{self, Peen};
use latch::dialect::poolside::{Poolside, Sources};
use latch::outcome::RunStatus;
use latch::run::Cancel;
use latch::{Engine, Event, Session};

use super::exit;

/// Flags of `latch fire`.
#[derive(Debug, Args)]
pub struct FireArgs {
    /// Read the event JSON from this file instead of stdin.
    #[arg(long, value_name = "FILE")]
    event: Option<PathBuf>,
    /// The project directory (project-level settings). Default: the current directory.
    #[arg(long, value_name = "DIR")]
    project: Option<PathBuf>,
    /// The user's home directory (user-level settings). Default: $HOME.
    #[arg(long, value_name = "DIR")]
    home: Option<PathBuf>,
    /// An explicit poolside settings file, the most specific level.
    #[arg(long, value_name = "FILE")]
    settings: Option<PathBuf>,
    /// Where per-session state lives. Default: $LATCH_STATE_DIR, else
    /// $XDG_STATE_HOME/latch, else ~/.local/state/latch (empty variables
    /// count as unset).
    #[arg(long, value_name = "DIR")]
    state_dir: Option<PathBuf>,
    /// An evener plugin directory (repeatable, in run order).
    #[arg(long = "plugin-dir", value_name = "DIR")]
    plugin_dirs: Vec<PathBuf>,
    /// The OpenAI-compatible base URL for evener prompt handlers.
    /// Default: $LATCH_PROMPT_BASE_URL, else $OPENAI_BASE_URL. The API key
    /// is read from $LATCH_PROMPT_API_KEY, else $OPENAI_API_KEY.
    #[arg(long, value_name = "URL")]
    prompt_base_url: Option<String>,
    /// The model for evener prompt handlers that name none.
    /// Default: $LATCH_PROMPT_MODEL.
    #[arg(long, value_name = "MODEL")]
    prompt_model: Option<String>,
    /// Peen's configuration directory (the trusted layer).
    /// Default: $PEEN_CONFIG_DIR.
    #[arg(long, value_name = "DIR")]
    peen_config_dir: Option<PathBuf>,
    /// Print the outcome as indented JSON.
    #[arg(long)]
    pretty: bool,
}

/// Runs `latch fire` and returns its exit code.
pub async fn run(args: FireArgs) -> u8 {
    let event = match read_event(args.event.as_ref()) {
        Ok(e) => e,
        Err(msg) => {
            eprintln!("latch: error: {msg}");
            return exit::BAD_EVENT;
        }
    };
    if let Err(e) = event.validate() {
        eprintln!("latch: error: invalid event: {e}");
        return exit::BAD_EVENT;
    }
    let project = args
        .project
        .map(|p| std::path::absolute(&p).unwrap_or(p))
        .or_else(|| std::env::current_dir().ok());
    let home = args.home.or_else(|| {
        std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
    });
    let pool = Poolside::load(&Sources {
        home,
        project: project.clone(),
        settings: args.settings,
    });
    let mut engine = Engine::new().with_dialect(pool);
    // Peen reads its layers on every fire: the workspace is the agent's
    // current directory, so a directory change takes effect on the next event.
    let mut peen_diags = Vec::new();
    let limits = peen::Limits::from_env(&mut peen_diags);
    for d in &peen_diags {
        eprintln!("{d}");
    }
    engine = engine.with_dialect(Peen::load(peen::Options {
        config_dir: args.peen_config_dir.or_else(|| {
            std::env::var_os("PEEN_CONFIG_DIR")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        }),
        workspace: event
            .cwd
            .clone()
            .filter(|c| c.is_dir())
            .or_else(|| project.clone()),
        limits,
    }));
    if !args.plugin_dirs.is_empty() {
        let mut prompt = PromptConfig::from_env();
        prompt.base_url = args.prompt_base_url.or(prompt.base_url);
        prompt.model = args.prompt_model.or(prompt.model);
        engine = engine.with_dialect(Evener::load(evener::Options {
            plugin_dirs: args.plugin_dirs,
            project,
            tool_names: ToolNames::default(),
            prompt,
        }));
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
    Session::open(&root, id).map_err(|e| {
        format!(
            "cannot open the session state under {}: {e}",
            root.display()
        )
    })
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
