//! `latch fire`: one event in, one outcome out.

use crate::text::{visible, visible_lines};
use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;

use crate::outcome::RunStatus;
use crate::{Engine, Event, Session};

use super::config::ConfigArgs;
use super::event_input;
use super::exit;
use super::signals::FireSignals;

/// Fire one event: load the hook configuration, run the matching hooks,
/// print the outcome as JSON.
#[derive(Debug, Args)]
pub struct FireArgs {
    /// Read the event JSON from this file instead of stdin (a regular
    /// file; at most 16 MiB, or $LATCH_MAX_EVENT_BYTES bytes).
    #[arg(long, value_name = "FILE")]
    event: Option<PathBuf>,
    #[command(flatten)]
    config: ConfigArgs,
    /// Where per-session state lives. Default: $LATCH_STATE_DIR, else
    /// $XDG_STATE_HOME/latch, else ~/.local/state/latch (empty variables
    /// count as unset).
    #[arg(long, value_name = "DIR", value_parser = super::config::path_flag)]
    state_dir: Option<PathBuf>,
    /// Print the outcome as indented JSON.
    #[arg(long)]
    pretty: bool,
}

/// Runs `latch fire` and returns its exit code.
pub async fn run(args: FireArgs) -> u8 {
    let signals = FireSignals::install();
    // Without it (not Linux) the walk of /proc still finds most descendants.
    let _ = crate::run::become_subreaper();
    super::raise_open_file_limit();
    let event = match read_valid_event(args.event.as_ref()) {
        Ok(e) => e,
        Err(code) => return code,
    };
    let mut diags = Vec::new();
    let state_root = args.state_dir.clone().or_else(Session::default_state_root);
    let mut config = args.config;
    config.state_dir = state_root.clone();
    let session = open_session(&event, args.state_dir);
    // The settings the session kept when a ConfigChange hook rejected an
    // edit are read instead of the disk (claude dialect).
    let accepted = session
        .as_ref()
        .ok()
        .map(|s| crate::dialect::claude::accepted::Accepted::open(s, &event));
    let replace = accepted
        .as_ref()
        .map(crate::dialect::claude::accepted::Accepted::replacements)
        .unwrap_or_default();
    // Whether a ConfigChange hook is configured, from the texts the load
    // reads and `--claude-settings` JSON text, which is no file.
    let inline_settings = config.inline_claude_settings().map(str::to_owned);
    let (engine, loaded) =
        crate::config::files::load_with(replace, || config.engine(&event, &mut diags));
    // One dispatch, and nothing else on this thread: a hook that runs
    // alone may have the thread to itself (faster; see `docs/design.md`).
    let mut engine = engine
        .with_background(super::background::BackgroundProcess { state_root })
        .with_runner(crate::run::Runner {
            lend_thread: true,
            ..crate::run::Runner::default()
        });
    // Built only when an OTLP endpoint is set: otherwise nothing changes.
    let telemetry = match crate::telemetry::Telemetry::from_env() {
        Ok(t) => t.map(std::sync::Arc::new),
        Err(e) => {
            eprintln!("latch: warning: {e}; no spans are sent");
            None
        }
    };
    if let Some(t) = &telemetry {
        engine = engine.with_telemetry(t.clone());
    }
    for d in &diags {
        eprintln!("{d}");
    }
    let mut stderr = io::stderr().lock();
    for d in engine.diagnostics() {
        let _ = writeln!(stderr, "{d}");
    }
    let session = match &session {
        Ok(s) => s,
        Err(msg) => {
            eprintln!("latch: error: {msg}");
            return exit::INTERNAL;
        }
    };
    let mut outcome = match dispatch_until_signalled(&engine, &event, session, &signals).await {
        Ok(o) => o,
        Err(e) => {
            eprintln!("latch: error: invalid event: {e}");
            return exit::BAD_EVENT;
        }
    };
    if let Some(accepted) = accepted
        && engine
            .dialects()
            .any(|d| d.name() == crate::dialect::claude::DIALECT)
    {
        let looked = || engine.dialects().flat_map(|d| d.config_paths()).collect();
        // A dispatch a signal stopped settles nothing.
        let cancel = crate::run::Cancel::pair();
        if signals.received().is_some() {
            cancel.0.cancel();
        }
        let watches = crate::dialect::claude::accepted::watches_config_change(
            loaded
                .values()
                .map(Vec::as_slice)
                .chain(inline_settings.as_deref().map(str::as_bytes)),
        );
        let settled = accepted
            .settle(&event, &outcome, watches, looked, &cancel.1)
            .await;
        outcome.warnings.extend(settled);
    }
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
            "latch: warning: hook {} ({}{}) failed: {}",
            visible(&run.hook),
            run.event,
            visible(&place),
            visible_lines(run.message.as_deref().unwrap_or("unknown error"))
        );
    }
    for w in &outcome.warnings {
        let _ = writeln!(stderr, "latch: warning: {}", visible_lines(w));
    }
    let json = if args.pretty {
        serde_json::to_string_pretty(&outcome)
    } else {
        serde_json::to_string(&outcome)
    };
    let mut stdout = io::stdout().lock();
    let code = match json {
        Ok(text)
            if writeln!(stdout, "{text}")
                .and_then(|()| stdout.flush())
                .is_ok() =>
        {
            exit::OK
        }
        _ => exit::INTERNAL,
    };
    // The spans go out after the outcome is printed.
    if let Some(t) = telemetry {
        t.flush();
    }
    code
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

/// Reads one event from a file, or stdin when `path` is `None`: at most
/// the event size limit, and from a file only if it is a regular file
/// (see `event_input`).
fn read_event(path: Option<&PathBuf>) -> Result<Event, String> {
    let max = event_input::max_event_bytes()?;
    let (bytes, from) = match path {
        Some(p) => (event_input::read_file(p, max)?, p.display().to_string()),
        None => (event_input::read_stdin(max)?, "stdin".to_owned()),
    };
    // serde_json's recursion limit (128 levels) applies to the whole
    // event, the tool input and output (kept as text) included: a deeply
    // nested event is an error with its position in the event, never a
    // stack overflow.
    parse_event(&bytes, &from)
}

/// An event from its JSON text; `from` names where it came from in the
/// error.
pub fn parse_event(bytes: &[u8], from: &str) -> Result<Event, String> {
    let invalid = |e: serde_json::Error| format!("{from} is not a valid event: {e}");
    // serde_json's recursion limit (128 levels) applies to the whole event:
    // a pass that keeps nothing checks it with the position of the level
    // too many (serde_json captures the tool input and output as raw text
    // without counting levels, and `RawJson` counts only its own). Most
    // events are a few levels deep: a count of brackets skips that pass.
    if nesting_over(bytes, SURELY_SHALLOW)
        && let Err(e) = serde_json::from_slice::<crate::event::WellNested>(bytes)
    {
        return Err(invalid(e));
    }
    serde_json::from_slice(bytes).map_err(|_| {
        // A broken event the count let through: the same pass says where
        // it breaks, as it would have first.
        if let Err(e) = serde_json::from_slice::<crate::event::WellNested>(bytes) {
            return invalid(e);
        }
        // Read again to name the field (`tool.name`, `tool_calls[1].name`):
        // only a failed read pays for following the path.
        let mut reader = serde_json::Deserializer::from_slice(bytes);
        let Err(e) = serde_path_to_error::deserialize::<_, Event>(&mut reader) else {
            return format!("{from} is not a valid event");
        };
        // An unknown field at the top is named by its message already.
        let depth = e.path().iter().count();
        let top_unknown = depth == 1 && e.inner().to_string().starts_with("unknown field");
        if depth == 0 || top_unknown {
            invalid(e.into_inner())
        } else {
            format!("{from} is not a valid event: {}: {}", e.path(), e.inner())
        }
    })
}

/// The nesting below which an event surely passes serde_json's recursion
/// limit (128), with a margin for how serde_json counts.
const SURELY_SHALLOW: usize = 100;

/// Whether `bytes` hold brackets nested more than `limit` deep outside
/// strings. For JSON text this is its nesting; for anything else it may
/// say yes or no, and the parse decides. Written by hand: it is one pass
/// over the bytes that builds nothing, which no JSON crate offers (a
/// serde pass that ignores every value cost three times as much here).
fn nesting_over(bytes: &[u8], limit: usize) -> bool {
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        i += 1;
        match b {
            // Past the closing quote, one no backslash escapes, with
            // memchr's vectorized search: most of an event's bytes are in
            // its strings.
            b'"' => loop {
                let Some(tail) = bytes.get(i..) else {
                    return false;
                };
                match memchr::memchr2(b'"', b'\\', tail) {
                    Some(at) if tail[at] == b'\\' => i += at + 2,
                    Some(at) => {
                        i += at + 1;
                        break;
                    }
                    None => return false,
                }
            },
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// The session of `event`: on disk under `state_dir` (else the default
/// state root) when it has a `session_id`, else in memory.
pub fn open_session(event: &Event, state_dir: Option<PathBuf>) -> Result<Session, String> {
    let Some(id) = &event.session_id else {
        return Ok(Session::in_memory(None));
    };
    let Some(root) = state_dir.or_else(Session::default_state_root) else {
        return Err(super::config::NO_STATE_DIRECTORY.into());
    };
    // A state directory that cannot be opened (a symbolic link, not a
    // directory, no permission) does not stop the dispatch: every dialect
    // makes its safe choice when it needs the state, with a warning.
    Ok(Session::open_or_unusable(&root, id))
}

/// Dispatches; a signal (any of [`FireSignals`]) cancels the dispatch,
/// which kills the running hook and its descendants, marks it `cancelled`,
/// runs no more hooks, and still prints the outcome of what ran, with a
/// warning naming the signal. A signal that came before is handled by
/// [`FireSignals::begin_dispatch`]: latch exits without starting a hook.
async fn dispatch_until_signalled(
    engine: &Engine,
    event: &Event,
    session: &Session,
    signals: &FireSignals,
) -> Result<crate::Outcome, crate::EventError> {
    let cancel = signals.begin_dispatch().await;
    let dispatched = engine.dispatch_cancellable(event, session, &cancel).await;
    signals.end_dispatch();
    let mut outcome = dispatched?;
    if let Some(name) = signals.received() {
        outcome.warnings.push(format!(
            "dispatch cancelled by {name}: latch killed the running hook and its descendants and started no further hook"
        ));
    }
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// [`parse_event`] as it was before the nesting pass moved to the
    /// failure path: that pass first, then the event.
    fn parse_with_the_pass_first(bytes: &[u8], from: &str) -> Result<Event, String> {
        let invalid = |e: serde_json::Error| format!("{from} is not a valid event: {e}");
        serde_json::from_slice::<crate::event::WellNested>(bytes).map_err(invalid)?;
        parse_event(bytes, from)
    }

    /// A JSON value nested `depth` levels deep, arrays or objects.
    fn nested(depth: usize, objects: bool) -> String {
        let (open, close) = if objects {
            (r#"{"k":"#, "}")
        } else {
            ("[", "]")
        };
        format!("{}1{}", open.repeat(depth), close.repeat(depth))
    }

    /// Events around the nesting limit (128 levels), in the tool input, in
    /// a field latch does not know, in a known object, broken or whole.
    fn events() -> impl Strategy<Value = String> {
        let depth = 0usize..200;
        prop_oneof![
            (depth.clone(), any::<bool>()).prop_map(|(d, o)| format!(
                r#"{{"event":"tool_before","tool":{{"name":"x","input":{}}}}}"#,
                nested(d, o)
            )),
            (depth.clone(), any::<bool>())
                .prop_map(|(d, o)| format!(r#"{{"event":"stop","unknown":{}}}"#, nested(d, o))),
            (depth.clone(), any::<bool>()).prop_map(|(d, o)| format!(
                r#"{{"event":"tool_after","tool":{{"name":"x","input":{{}},"output":{}}}}}"#,
                nested(d, o)
            )),
            (depth, any::<bool>(), 0usize..40).prop_map(|(d, o, cut)| {
                let mut text = format!(r#"{{"event":"stop","error_details":{}}}"#, nested(d, o));
                text.truncate(text.len().saturating_sub(cut));
                text
            }),
            // Brackets in strings, escaped quotes before them, at a depth.
            (0usize..200, "[\\[{\\\\\"a]{0,300}").prop_map(|(d, text)| format!(
                r#"{{"event":"user_prompt","prompt":{},"tool":{{"name":"x","input":{}}}}}"#,
                serde_json::Value::from(text.clone()),
                nested(d, false).replace('1', &serde_json::Value::from(text).to_string())
            )),
            "[ -~]{0,40}",
        ]
    }

    #[test]
    fn brackets_are_counted_outside_strings_only() {
        assert!(!nesting_over(br#"{"a":"[[[[[[","b":"\"[[[[[["}"#, 2));
        assert!(nesting_over(br#"{"a":"\\",[[1]]}"#, 2));
        assert!(!nesting_over(br#"[[1]]"#, 2));
        assert!(nesting_over(br#"[[[1]]]"#, 2));
        // Closing brackets never make the depth go below zero.
        assert!(nesting_over(b"]]]][[[", 2));
    }

    proptest! {
        /// The nesting pass on the failure path only: the same event, or
        /// the same error text, as with the pass first.
        #[test]
        fn parsing_is_the_same_as_with_the_nesting_pass_first(text in events()) {
            let now = parse_event(text.as_bytes(), "stdin");
            let before = parse_with_the_pass_first(text.as_bytes(), "stdin");
            match (now, before) {
                (Ok(a), Ok(b)) => prop_assert_eq!(
                    serde_json::to_string(&a).ok(),
                    serde_json::to_string(&b).ok()
                ),
                (Err(a), Err(b)) => prop_assert_eq!(a, b),
                (a, b) => prop_assert!(false, "{:?} against {:?}", a.err(), b.err()),
            }
        }
    }
}
