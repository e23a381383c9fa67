//! `latch serve`: latch as a long-lived engine, speaking JSON-RPC 2.0 over
//! stdin and stdout, one message per line (see `docs/serve.md`).
//!
//! The reader loop answers `initialize`, `shutdown` and an `explain` whose
//! configuration is loaded itself, and starts a task for every other
//! request (each `fire`, each `trust/…`, an `explain` that must load
//! first). Events of one session run in the order
//! they arrived (each waits for the one before it); events of different
//! sessions run at once. Every response and notification goes through one
//! writer task, so lines never interleave. At the end of input every
//! dispatch is cancelled (its hooks' process groups killed) and waited
//! for before the process exits 0.

mod flow;
internal_mods!(rpc);
pub mod schema;
mod sessions;
mod stdio;
mod watch;

use std::collections::HashMap;
use std::io::Write as _;
use std::os::fd::BorrowedFd;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use clap::Args;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinSet;

use crate::dialect::claude::accepted::{Accepted, Arrived};
use crate::run::{Cancel, CancelHandle, Lend};
use crate::{Diagnostic, Engine, Event};

use self::rpc::{Incoming, Line, RequestId, code};
use super::config::ConfigArgs;
use super::exit;

/// Serve JSON-RPC 2.0 on stdin and stdout (one message per line): a
/// long-lived engine for a harness (see docs/serve.md).
#[derive(Debug, Args)]
pub struct ServeArgs {}

/// Room for the JSON-RPC envelope around an event of the largest size.
const ENVELOPE: u64 = 1024 * 1024;

/// How often the orphans that hooks left behind and that ended are
/// reaped (see [`crate::run::reap_orphans`]).
const REAP_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

/// How long the end of input, `exit` or a signal waits for the requests
/// still in flight, once cancelled, before it drops them: well past a
/// cancelled hook's grace period (1 s), so only a request stuck outside
/// latch's reach (a lock another process holds) is dropped.
const EXIT_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

use self::flow::Out;

/// Runs `latch serve` until `exit` or the end of input.
pub async fn run(_args: ServeArgs) -> u8 {
    let adopting = crate::run::become_subreaper().is_ok();
    super::raise_open_file_limit();
    let max_event = match super::event_input::max_event_bytes() {
        Ok(n) => n,
        Err(msg) => {
            eprintln!("latch: error: {msg}");
            return exit::INTERNAL;
        }
    };
    let max = usize::try_from(max_event.saturating_add(ENVELOPE)).unwrap_or(usize::MAX);
    let (out, lines) = flow::outbox();
    let room = out.room().clone();
    // Told when stdout breaks (the harness stopped reading it).
    let (broke, mut broken) = oneshot::channel::<()>();
    let writer = tokio::spawn(write_lines(lines, broke));
    let (input, input_fd) = stdio::input();
    let mut server = Server::new(out.clone(), max_event, input_fd);
    let mut tasks = JoinSet::new();
    // Read by the loop below, which waits for a message, a finished
    // dispatch and a signal at once (the reader is cancel-safe).
    let mut incoming = rpc::LineReader::new(BufReader::with_capacity(64 * 1024, input), max);
    // The background jobs of hooks that outlived them and ended since are
    // reaped now and then (on the blocking pool: it may read `/proc`), so
    // that a long session gathers no zombies.
    let reaper = tokio::spawn(async move {
        if !adopting {
            return;
        }
        loop {
            tokio::time::sleep(REAP_EVERY).await;
            // A panic there is latch's bug; the next round tries again.
            let _ = tokio::task::spawn_blocking(crate::run::reap_orphans).await;
        }
    });
    let mut signals = match Signals::new() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("latch: error: cannot watch for signals: {e}");
            return exit::INTERNAL;
        }
    };
    // The id of a `shutdown` waiting for the fires in flight.
    let mut shutdown: Option<RequestId> = None;
    loop {
        // Once per pass: the two branches below must not both be off.
        let full = room.full();
        let line = tokio::select! {
            // A harness that does not read its answers, or that sends
            // events faster than they run, is read no further meanwhile.
            () = room.freed(), if full => continue,
            line = incoming.next(), if !full => match line {
                Ok(Some(line)) => {
                    server.lending.buffered.store(incoming.holds_a_line(), Ordering::SeqCst);
                    line
                }
                Ok(None) => break,
                Err(e) => {
                    eprintln!("latch: error: reading stdin: {e}");
                    break;
                }
            },
            Some(_) = tasks.join_next(), if !tasks.is_empty() => {
                if tasks.is_empty() && let Some(id) = shutdown.take() {
                    let _ = out.send(rpc::result(&id, &Value::Null));
                }
                continue;
            }
            name = signals.next() => {
                eprintln!("latch: {name}: stopping every hook and exiting");
                break;
            }
            // Told, or the writer is gone: either way no answer goes out.
            _ = &mut broken => break,
        };
        let text = match line {
            Line::TooLong(n, head) => {
                let _ = out.send(rpc::error(
                    &rpc::id_in(&head),
                    code::INVALID_REQUEST,
                    &format!(
                        "a message of {n} bytes is over the limit of {max} bytes; it was not read"
                    ),
                ));
                continue;
            }
            Line::Text(t) if t.iter().all(u8::is_ascii_whitespace) => continue,
            Line::Text(t) => t,
        };
        match rpc::parse(&text) {
            Err(response) => {
                let _ = out.send(response);
            }
            Ok(Incoming::Notification { method, params }) => match method.as_str() {
                "exit" => break,
                "$/cancelRequest" => {
                    #[derive(serde::Deserialize)]
                    struct Params {
                        id: Box<RawValue>,
                    }
                    // An object only: a struct reads an array by position too.
                    let object = params.get().trim_start().starts_with('{');
                    // A notification gets no answer: a malformed one is
                    // said on stderr, as an unknown one is.
                    match serde_json::from_str::<Params>(params.get()) {
                        Ok(p)
                            if object
                                && matches!(
                                    p.id.get().trim_start().as_bytes().first(),
                                    Some(b'"' | b'-' | b'0'..=b'9')
                                ) =>
                        {
                            server.cancel(&rpc::key_of(p.id.get()));
                        }
                        _ => eprintln!(
                            "latch: warning: `$/cancelRequest` ignored: its params must be {{\"id\": <the request's id, a number or a string>}}, not {}",
                            crate::text::cap(params.get(), 200)
                        ),
                    }
                }
                other => eprintln!("latch: warning: unknown notification `{other}` ignored"),
            },
            Ok(Incoming::Request { id, method, params }) => {
                let response = match method.as_str() {
                    _ if server.shutting_down => Some(rpc::error(
                        &id,
                        code::SHUTTING_DOWN,
                        "the server is shutting down",
                    )),
                    "initialize" => Some(server.initialize(&id, params)),
                    "fire" => server.fire(id, params, &mut tasks),
                    "explain" => server.explain(id, params, &mut tasks),
                    "trust/list" => server.trust(&id, params, TrustAction::List, &mut tasks),
                    "trust/approve" => server.trust(&id, params, TrustAction::Approve, &mut tasks),
                    "trust/revoke" => server.trust(&id, params, TrustAction::Revoke, &mut tasks),
                    // In-flight fires finish first; the answer comes when
                    // the last one ends (messages are still read, so a
                    // `$/cancelRequest` or `exit` can stop them).
                    "shutdown" if server.setup.is_none() => Some(rpc::error(
                        &id,
                        code::NOT_INITIALIZED,
                        "send `initialize` first",
                    )),
                    "shutdown" if tasks.is_empty() => {
                        server.shutting_down = true;
                        Some(rpc::result(&id, &Value::Null))
                    }
                    "shutdown" => {
                        server.shutting_down = true;
                        shutdown = Some(id);
                        None
                    }
                    // Sent with an id by mistake: said so, and not acted on.
                    "exit" | "$/cancelRequest" => Some(rpc::error(
                        &id,
                        code::INVALID_REQUEST,
                        &format!("`{method}` is a notification: send it without an `id`"),
                    )),
                    other => Some(rpc::error(
                        &id,
                        code::METHOD_NOT_FOUND,
                        &format!("unknown method `{other}`"),
                    )),
                };
                if let Some(r) = response {
                    let _ = out.send(r);
                }
            }
        }
    }
    reaper.abort();
    // The harness is gone or said `exit`: stop every hook, then leave.
    server.cancel_all();
    // A cancelled fire ends within its hooks' grace period; a `trust/…`
    // request waits for the store's lock, which a stuck holder could keep
    // forever. Past the bound what is left is dropped, unanswered (a
    // dropped fire still kills its hooks).
    let drained = tokio::time::timeout(EXIT_WAIT, async {
        while tasks.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        eprintln!(
            "latch: warning: {} request(s) still running {} s after the end were dropped unanswered",
            tasks.len(),
            EXIT_WAIT.as_secs()
        );
        tasks.abort_all();
        while tasks.join_next().await.is_some() {}
    }
    // A `shutdown` that waited for them is answered after their answers.
    if let Some(id) = shutdown {
        let _ = out.send(rpc::result(&id, &Value::Null));
    }
    // What finished hooks left running in the background goes too.
    crate::run::kill_leftovers();
    if let Some(w) = server.watcher.take() {
        w.abort();
    }
    // Background hooks still hold senders; the writer stops at this mark
    // (and those hooks are killed with the runtime).
    let _ = out.send(String::new());
    // A harness that reads no answers does not keep the server from
    // exiting: its hooks are gone already.
    if tokio::time::timeout(EXIT_WAIT, writer).await.is_err() {
        let _ = writeln!(
            std::io::stderr(),
            "latch: warning: answers still unread {} s after the end were dropped",
            EXIT_WAIT.as_secs()
        );
    }
    exit::OK
}

/// Every signal `latch fire` catches (SIGTERM, SIGINT, SIGHUP, SIGQUIT,
/// SIGUSR1, the real-time ones, … minus those the server was started with
/// ignored): each ends the server as the end of input does, so that no
/// signal whose default would end it leaves its hooks running. A thread
/// waits for them and hands each to the main loop.
struct Signals {
    arrived: mpsc::UnboundedReceiver<i32>,
}

impl Signals {
    fn new() -> std::io::Result<Signals> {
        let mut signals = signal_hook::iterator::Signals::new(std::iter::empty::<i32>())?;
        for n in super::signals::wanted() {
            // The C library's own signals are refused: they stay as they are.
            let _ = signals.add_signal(n);
        }
        let (tx, arrived) = mpsc::unbounded_channel();
        std::thread::Builder::new()
            .name("latch-signals".into())
            .spawn(move || {
                for n in signals.forever() {
                    if tx.send(n).is_err() {
                        return;
                    }
                }
            })?;
        Ok(Signals { arrived })
    }

    /// The name of the next signal.
    async fn next(&mut self) -> String {
        match self.arrived.recv().await {
            Some(n) => super::signals::name(n, libc::SIGRTMIN()),
            // The thread cannot end while the receiver lives.
            None => std::future::pending().await,
        }
    }
}

/// Writes each line to stdout, flushed, until an empty line (the end
/// mark), until every sender is gone, or until stdout breaks (then it
/// tells `broke`).
async fn write_lines(mut lines: flow::Outbox, broke: oneshot::Sender<()>) {
    let mut stdout = stdio::output();
    while let Some(mut line) = lines.recv().await {
        if line.is_empty() {
            return;
        }
        let bytes = line.len();
        line.push('\n');
        let written = match stdout.write_all(line.as_bytes()).await {
            Ok(()) => stdout.flush().await,
            Err(e) => Err(e),
        };
        lines.written(bytes);
        if let Err(e) = written {
            // No answer can reach the harness any more: the server stops
            // as at the end of its input.
            // stderr may be gone with the harness too: no panic for that.
            let _ = writeln!(
                std::io::stderr(),
                "latch: error: cannot write to stdout ({e}): stopping every hook and exiting"
            );
            let _ = broke.send(());
            return;
        }
    }
}

/// What `initialize` set up.
struct Setup {
    config: ConfigArgs,
    /// The project's directory ([`ConfigArgs::project_dir`]): events in it
    /// load what events with no working directory load, and share it.
    project: Option<PathBuf>,
    state_root: Option<PathBuf>,
    /// Loaded engines by the event's working directory (the peen dialect
    /// reads its workspace from it), keyed by [`Setup::key`].
    engines: Mutex<HashMap<Option<PathBuf>, Loaded>>,
    /// The open sessions (see [`sessions`]).
    sessions: Mutex<sessions::OpenSessions>,
    /// Held by each opening of a session not in `sessions`, on tokio's
    /// blocking pool: new sessions open one at a time, in the order their
    /// events came (see [`session_for`]).
    opening: tokio::sync::Mutex<()>,
    /// The OpenTelemetry exporter, when the environment names an endpoint.
    telemetry: Option<Arc<crate::telemetry::Telemetry>>,
    /// The files whose last good text stands in for a broken edit on disk
    /// (see [`watch`]): every configuration loaded from now on reads them
    /// so too, until an edit fixes them.
    kept: Mutex<crate::config::files::Files>,
    /// Held by each [`watch`] reload for its whole run, and by each load
    /// of a configuration not cached yet: a load sees a reload whole,
    /// never half done. Both run on tokio's blocking pool (but the first
    /// load, in `initialize`), so the server's thread never waits for it.
    loading: Mutex<()>,
    /// Engines loaded with the settings a session keeps (see [`Accepted`]),
    /// by working directory and a hash of those settings.
    sessions_own: Mutex<HashMap<(Option<PathBuf>, u64), Loaded>>,
}

/// One loaded configuration: the engine, and the text of every
/// configuration file its load read (what a broken edit of one of them
/// falls back to).
#[derive(Clone)]
struct Loaded {
    engine: Arc<Engine>,
    files: Arc<FileTexts>,
    /// Whether `files` name a ConfigChange hook (see [`Accepted`]), found
    /// once per load rather than once per event.
    watches_config_change: bool,
}

/// Configuration files' texts, by path.
type FileTexts = std::collections::BTreeMap<PathBuf, Vec<u8>>;

/// The answer to a `trust/…` request about `definitions` (every hook for
/// `list`, the chosen ones otherwise), and whether the store changed;
/// blocking: reads, hashes, locks and writes the store.
fn trust_answer(
    id: &RequestId,
    root: &std::path::Path,
    definitions: &[crate::trust::Definition],
    action: TrustAction,
) -> (String, bool) {
    if action == TrustAction::List {
        let answer = match crate::trust::Store::load(root) {
            Ok(store) => rpc::result(id, &crate::trust::list(definitions, &store)),
            Err(e) => rpc::error(id, code::INTERNAL_ERROR, &e.to_string()),
        };
        return (answer, false);
    }
    let (key, changed) = if action == TrustAction::Approve {
        ("approved", crate::trust::approve(root, definitions))
    } else {
        ("revoked", crate::trust::revoke(root, definitions))
    };
    match changed {
        Ok(changed) => {
            let listed: Vec<crate::trust::Brief> = changed.iter().map(|d| (*d).into()).collect();
            (
                rpc::result(id, &json!({ key: listed })),
                !changed.is_empty(),
            )
        }
        Err(e) => (rpc::error(id, code::INTERNAL_ERROR, &e.to_string()), false),
    }
}

/// Which `trust/…` method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TrustAction {
    List,
    Approve,
    Revoke,
}

/// The params of `trust/approve` and `trust/revoke`.
#[derive(Debug, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct TrustParams {
    /// Hooks by label, or `FILE:LINE` of their declaration.
    pub hooks: Vec<String>,
    /// Every hook that needs approval (approve), or every listed one
    /// (revoke).
    pub all: bool,
}

/// A session's latest event: its number, and the signal that it ended.
type Tail = (u64, oneshot::Receiver<()>);

/// The server's state between messages.
struct Server {
    out: Out,
    setup: Option<Arc<Setup>>,
    shutting_down: bool,
    /// Cancel handles of the fires in flight, by request id.
    in_flight: Arc<Mutex<HashMap<String, CancelHandle>>>,
    /// Per session, the signal that its latest event finished.
    /// The receiver of each session's latest event's end, with that
    /// event's number; removed when that event ends and none came after.
    tails: Arc<Mutex<HashMap<String, Tail>>>,
    /// Numbers the fires, for `tails`.
    fired: u64,
    /// The configuration watcher, once initialized.
    watcher: Option<tokio::task::JoinHandle<()>>,
    /// The event size limit (`LATCH_MAX_EVENT_BYTES`, read at start).
    max_event: u64,
    /// When a fire may wait for its hooks on the server's thread.
    lending: Lending,
    /// The end of the latest `trust/…` request: the next one waits for it.
    trust_tail: Option<oneshot::Receiver<()>>,
}

/// A fire that is the server's only work waits for its hooks in `poll(2)`
/// on the server's thread, as `latch fire` does, instead of registering
/// each hook's pipes and pidfd with the reactor (measured: about 18 µs of
/// the server's time less per hook, `docs/serve.md`). It gives the thread
/// back to the reactor, with its hooks still running, as soon as stdin
/// has more to read (a request, a cancel, the end of input), a signal
/// arrives, or [`Lending::AT_MOST`] passes.
#[derive(Clone)]
struct Lending {
    /// stdin, when the reactor reads it (a pipe or a Unix stream socket):
    /// what takes the thread back. `None`: never lend.
    input: Option<BorrowedFd<'static>>,
    /// Whether a whole further message was read into the server's buffer
    /// already, where the wait on `input` would not see it arrive.
    buffered: Arc<AtomicBool>,
}

impl Lending {
    /// How long the thread is lent at most: what else runs on it (a
    /// reload's notice, an async hook's answer, a signal's handling) waits
    /// no longer than that.
    const AT_MOST: std::time::Duration = std::time::Duration::from_millis(50);

    /// The lending for a fire about to dispatch: only when no other fire
    /// is in flight and no message waits. Once taken back, it is not lent
    /// again to the dispatch's later hooks (see [`Lend::taken_back`]).
    fn now<'a>(
        &self,
        in_flight: &Mutex<HashMap<String, CancelHandle>>,
        taken_back: &'a AtomicBool,
    ) -> Option<Lend<'a>> {
        let alone = lock(in_flight).len() == 1 && !self.buffered.load(Ordering::SeqCst);
        self.input.filter(|_| alone).map(|fd| Lend {
            interrupt: Some(fd),
            taken_back: Some(taken_back),
            until: Some(std::time::Instant::now() + Self::AT_MOST),
        })
    }
}

impl Server {
    fn new(out: Out, max_event: u64, input: Option<BorrowedFd<'static>>) -> Server {
        Server {
            out,
            setup: None,
            shutting_down: false,
            in_flight: Arc::default(),
            tails: Arc::default(),
            fired: 0,
            watcher: None,
            max_event,
            lending: Lending {
                input,
                buffered: Arc::default(),
            },
            trust_tail: None,
        }
    }

    fn initialize(&mut self, id: &RequestId, params: &RawValue) -> String {
        if self.setup.is_some() {
            return rpc::error(id, code::INVALID_REQUEST, "already initialized");
        }
        let config: ConfigArgs = match params.get().trim_start().as_bytes().first() {
            Some(b'{') => match named(params) {
                Ok(c) => c,
                Err(e) => return rpc::error(id, code::INVALID_PARAMS, &e),
            },
            _ if params.get() == "null" => ConfigArgs::default(),
            _ => return rpc::error(id, code::INVALID_PARAMS, "params must be an object"),
        };
        // `latch fire` has no way to name no dialect; here an empty list
        // would silently load the default ones.
        if serde_json::from_str::<serde_json::Value>(params.get()).is_ok_and(|p| {
            p.get("dialects")
                .is_some_and(|d| d.as_array().is_some_and(Vec::is_empty))
        }) {
            return rpc::error(
                id,
                code::INVALID_PARAMS,
                "invalid params: `dialects` is empty; name at least one, or leave it out for the default (poolside and peen, plus evener with plugin_dirs)",
            );
        }
        // As `latch fire` refuses them on its command line.
        if let Err(why) = config.check_values() {
            return rpc::error(id, code::INVALID_PARAMS, &format!("invalid params: {why}"));
        }
        let state_root = config
            .state_dir
            .clone()
            .or_else(crate::Session::default_state_root);
        let telemetry = match crate::telemetry::Telemetry::from_env() {
            Ok(t) => t.map(Arc::new),
            Err(e) => {
                eprintln!("latch: warning: {e}; no spans are sent");
                None
            }
        };
        let setup = Arc::new(Setup {
            project: config.project_dir(),
            config,
            state_root,
            engines: Mutex::default(),
            sessions_own: Mutex::default(),
            sessions: Mutex::default(),
            opening: tokio::sync::Mutex::default(),
            telemetry,
            kept: Mutex::default(),
            loading: Mutex::default(),
        });
        // What the settings looked like before they were read: an edit
        // made while they load, or before the watch starts, is reloaded.
        let before = watch::fingerprint(&setup.config.watch_roots(None));
        // The project's configuration, the first one: loaded here, before
        // the answer (no reload can be in progress yet).
        let (loaded, diagnostics) = loaded_for(&setup, &self.out, None);
        let engine = loaded.engine;
        self.watcher = Some(tokio::spawn(watch::watch(
            setup.clone(),
            self.out.clone(),
            before,
        )));
        self.setup = Some(setup);
        let dialects: Vec<&str> = engine.dialects().map(|d| d.name()).collect();
        rpc::result(
            id,
            &json!({
                "server": {"name": "latch", "version": env!("CARGO_PKG_VERSION")},
                "dialects": dialects,
                "diagnostics": diagnostics,
            }),
        )
    }

    /// Starts a dispatch; `None` when the response comes from its task.
    fn fire(
        &mut self,
        id: RequestId,
        params: &RawValue,
        tasks: &mut JoinSet<()>,
    ) -> Option<String> {
        let (setup, event) = match self.setup_and_event(&id, params) {
            Ok(both) => both,
            Err(response) => return Some(response),
        };
        // Boxed, as the dispatch below: a task's future is moved whole as
        // it is spawned and finished, and these two are most of its 10 KB.
        let event = Box::new(event);
        let key = id.key();
        if lock(&self.in_flight).contains_key(&key) {
            return Some(rpc::error(
                &id,
                code::INVALID_REQUEST,
                "a fire with this id is still running; ids must be unique among requests in flight",
            ));
        }
        // The file a `config_change` is about, as it is now: not as a later
        // edit leaves it while the session's earlier events run.
        let arrived = Arrived::read(&event);
        let (handle, cancel) = Cancel::pair();
        lock(&self.in_flight).insert(key.clone(), handle);
        // Events of one session run in the order they arrived.
        self.fired += 1;
        let number = self.fired;
        let (done, finished) = oneshot::channel();
        let before = event.session_id.clone().and_then(|s| {
            lock(&self.tails)
                .insert(s, (number, finished))
                .map(|(_, r)| r)
        });
        let (out, in_flight, tails, lending) = (
            self.out.clone(),
            self.in_flight.clone(),
            self.tails.clone(),
            self.lending.clone(),
        );
        // Counted until answered (see `flow`).
        let held = self.out.room().hold(params.get().len());
        tasks.spawn(async move {
            // Moved in here; dropped once answered.
            let held = held;
            let taken_back = AtomicBool::new(false);
            let loaded = loaded_off_thread(&setup, &out, event.cwd.clone(), &id).await;
            // Wait for the session's previous event; a cancel while waiting
            // answers at once (nothing runs), but the next event of the
            // session still waits for the previous one.
            let mut waiting = before;
            if let Some(before) = waiting.as_mut() {
                tokio::select! {
                    _ = before => waiting = None,
                    _ = cancel.cancelled() => {}
                }
            }
            // Its turn (see `flow`); a cancel meanwhile answers at once,
            // without one.
            let turn = tokio::select! {
                biased;
                () = cancel.cancelled() => None,
                turn = out.room().turn() => turn,
            };
            let response = match (loaded, session_for(&setup, &event).await) {
                (Err(response), _) => response,
                (_, Err(msg)) => rpc::error(&id, code::INTERNAL_ERROR, &msg),
                (Ok(loaded), Ok(session)) => {
                    let lend = lending.now(&in_flight, &taken_back);
                    let accepted = Accepted::open_arrived(&session, &event, arrived);
                    Box::pin(dispatch(
                        &id, &setup, &out, &event, accepted, loaded, &cancel, lend,
                    ))
                    .await
                }
            };
            // Its hooks are done: the turn goes to the next fire now, not
            // once this one's predecessor in its session ends.
            drop(turn);
            lock(&in_flight).remove(&key);
            let _ = out.send(response);
            drop(held);
            if let Some(before) = waiting {
                let _ = before.await;
            }
            // The last event of its session so far: nothing waits for it.
            if let Some(session) = &event.session_id {
                let mut tails = lock(&tails);
                if tails.get(session).is_some_and(|(n, _)| *n == number) {
                    tails.remove(session);
                }
            }
            let _ = done.send(());
        });
        None
    }

    /// Explains an event; `None` when the response comes from a task (its
    /// working directory's configuration was not loaded yet).
    fn explain(
        &mut self,
        id: RequestId,
        params: &RawValue,
        tasks: &mut JoinSet<()>,
    ) -> Option<String> {
        let (setup, event) = match self.setup_and_event(&id, params) {
            Ok(both) => both,
            Err(response) => return Some(response),
        };
        let explained = |engine: &Engine, id: &RequestId, event: &Event| {
            let all =
                super::explain::explain_all(engine, event, |m| eprintln!("latch: error: {m}"));
            rpc::result(id, &all)
        };
        if let Some(loaded) = cached(&setup, &event.cwd) {
            return Some(explained(&loaded.engine, &id, &event));
        }
        let out = self.out.clone();
        tasks.spawn(async move {
            let response = match loaded_off_thread(&setup, &out, event.cwd.clone(), &id).await {
                Ok(loaded) => explained(&loaded.engine, &id, &event),
                Err(response) => response,
            };
            let _ = out.send(response);
        });
        None
    }

    /// `trust/list`, `trust/approve`, `trust/revoke`: `latch trust` for the
    /// project's configuration, against the server's state directory. The
    /// store's lock, its fsync and the scripts' hashes are waited for on a
    /// blocking thread, so other sessions' events go on meanwhile; the
    /// answer is sent when it is ready (`None` here; `shutdown` and the end
    /// of input wait for it, as for a fire).
    fn trust(
        &mut self,
        id: &RequestId,
        params: &RawValue,
        action: TrustAction,
        tasks: &mut JoinSet<()>,
    ) -> Option<String> {
        let setup = match self.ready(id) {
            Ok(s) => s,
            Err(response) => return Some(response),
        };
        // `trust/list` reads no params, as `shutdown` and `exit` do.
        let params: TrustParams = match params.get().trim() {
            _ if action == TrustAction::List => TrustParams::default(),
            "null" => TrustParams::default(),
            text if text.starts_with('{') => match named(params) {
                Ok(p) => p,
                Err(e) => return Some(rpc::error(id, code::INVALID_PARAMS, &e)),
            },
            _ => {
                return Some(rpc::error(
                    id,
                    code::INVALID_PARAMS,
                    "params must be an object",
                ));
            }
        };
        let Some(root) = setup.state_root.clone() else {
            return Some(rpc::error(
                id,
                code::INTERNAL_ERROR,
                SERVED_NO_STATE_DIRECTORY,
            ));
        };
        let (id, out) = (id.clone(), self.out.clone());
        // Trust requests run one after another, in the order they came: an
        // approve then a revoke must leave the hooks revoked.
        let (done, finished) = oneshot::channel::<()>();
        let before = self.trust_tail.replace(finished);
        tasks.spawn(async move {
            // Sent when this task ends, however it ends.
            let _done = done;
            if let Some(before) = before {
                let _ = before.await;
            }
            // The project's configuration: cached since `initialize`, unless
            // the cache of 64 directories started again.
            let definitions = match loaded_off_thread(&setup, &out, None, &id).await {
                Ok(loaded) => loaded.engine.definitions(),
                Err(response) => {
                    let _ = out.send(response);
                    return;
                }
            };
            // Approve and revoke work on the hooks named, checked here.
            let definitions = if action == TrustAction::List {
                definitions
            } else {
                match crate::trust::select(&definitions, &params.hooks, params.all) {
                    Ok(chosen) => chosen.into_iter().cloned().collect(),
                    Err(why) => {
                        let _ = out.send(rpc::error(&id, code::INVALID_PARAMS, &why));
                        return;
                    }
                }
            };
            let (asked, reloading, notices) = (id.clone(), setup.clone(), out.clone());
            let answer = watch::off_thread_caught(move || {
                let (answer, changed) = trust_answer(&asked, &root, &definitions, action);
                // Under a trust policy, every configuration is loaded again
                // with the new approvals before the answer, so the next
                // `fire` sees them, as the next `latch fire` would (the
                // watcher's reload would come too late).
                if changed
                    && reloading.config.uses_trust()
                    && let Err(why) = crate::panic::catch(|| watch::reload(&reloading, &notices))
                {
                    // The store is written: the answer stands, and the
                    // watcher's reload follows.
                    eprintln!(
                        "latch: error: reloading the configuration after a trust change failed ({why}); the configuration loaded before stays until the next reload"
                    );
                }
                answer
            })
            .await
            .unwrap_or_else(|why| rpc::error(&id, code::INTERNAL_ERROR, &why));
            let _ = out.send(answer);
        });
        None
    }

    /// The setup and the event of a `fire` or an `explain`, or the error
    /// response.
    fn setup_and_event(
        &self,
        id: &RequestId,
        params: &RawValue,
    ) -> Result<(Arc<Setup>, Event), String> {
        let setup = self.ready(id)?;
        let event = event_of(params, self.max_event)
            .map_err(|why| rpc::error(id, code::INVALID_PARAMS, &why))?;
        Ok((setup, event))
    }

    /// The setup, or the error response when the server cannot take
    /// requests.
    fn ready(&self, id: &RequestId) -> Result<Arc<Setup>, String> {
        if self.shutting_down {
            return Err(rpc::error(
                id,
                code::SHUTTING_DOWN,
                "the server is shutting down",
            ));
        }
        self.setup
            .clone()
            .ok_or_else(|| rpc::error(id, code::NOT_INITIALIZED, "send `initialize` first"))
    }

    /// Cancels the request in flight whose id has this key
    /// ([`RequestId::key`]).
    fn cancel(&self, id: &str) {
        if let Some(handle) = lock(&self.in_flight).get(id) {
            handle.cancel();
        }
    }

    fn cancel_all(&self) {
        for handle in lock(&self.in_flight).values() {
            handle.cancel();
        }
    }
}

/// The most configurations kept loaded (one per working directory).
const MAX_ENGINES: usize = 64;

/// `params` read into `T`, or the error that names the key that is wrong
/// (`home: the path is empty: …`).
fn named<T: serde::de::DeserializeOwned>(params: &RawValue) -> Result<T, String> {
    let mut reader = serde_json::Deserializer::from_str(params.get());
    serde_path_to_error::deserialize(&mut reader).map_err(|e| {
        let (path, why) = (e.path().to_string(), e.inner().to_string());
        // An unknown key is named by the message already.
        let named_already = e.path().iter().count() == 1 && why.starts_with("unknown field");
        if path == "." || named_already {
            format!("invalid params: {why}")
        } else {
            format!("invalid params: `{path}`: {why}")
        }
    })
}

/// The answer to a request that needs a state directory when the server
/// has none: no `state_dir` and none of the variables
/// [`crate::Session::default_state_root`] reads.
const SERVED_NO_STATE_DIRECTORY: &str = "no state directory: set `state_dir` in `initialize`, or $LATCH_STATE_DIR, $XDG_STATE_HOME or $HOME in the server's environment";

/// The session of `event`, opened once per session id (in memory when it
/// has none). A session not open yet is opened on tokio's blocking pool,
/// one at a time: making its directory waits for the file system (about
/// 0.2 ms on ext4), and a burst of new sessions would otherwise hold the
/// server's thread for all of them, ahead of the events of sessions
/// already open.
async fn session_for(setup: &Arc<Setup>, event: &Event) -> Result<Arc<crate::Session>, String> {
    let Some(id) = &event.session_id else {
        return Ok(Arc::new(crate::Session::in_memory(None)));
    };
    let Some(root) = setup.state_root.clone() else {
        return Err(SERVED_NO_STATE_DIRECTORY.to_owned());
    };
    if let Some(s) = lock(&setup.sessions).get(id) {
        return Ok(s);
    }
    let _one = setup.opening.lock().await;
    // Opened meanwhile: by an earlier event of the session, which a
    // cancelled event does not wait for.
    if let Some(s) = lock(&setup.sessions).get(id) {
        return Ok(s);
    }
    let opened = id.clone();
    // One that cannot be used still opens: each dialect then makes its
    // safe choice, with a warning (as `latch fire` does).
    let session =
        watch::off_thread_caught(move || crate::Session::open_or_unusable(&root, &opened))
            .await
            .map_err(|why| format!("opening the session's state directory failed: {why}"))?;
    let session = Arc::new(session);
    lock(&setup.sessions).insert(id.clone(), session.clone());
    Ok(session)
}

/// The event in `params`, valid, or why not (naming the field). An event
/// over the event size limit is refused, as `latch fire` refuses it.
fn event_of(params: &RawValue, max: u64) -> Result<Event, String> {
    if !params.get().starts_with('{') {
        return Err("params must be an event: a JSON object".to_owned());
    }
    let len = params.get().len() as u64;
    if len > max {
        return Err(format!(
            "the event is {len} bytes, over the limit of {max} bytes (LATCH_MAX_EVENT_BYTES)"
        ));
    }
    let event = super::fire::parse_event(params.get().as_bytes(), "params")?;
    event
        .validate()
        .map_err(|e| format!("invalid event: {e}"))?;
    Ok(event)
}

impl Setup {
    /// The key of the configuration for events in `cwd`: the project's
    /// directory loads what no working directory loads (only a peen
    /// workspace depends on it, and it falls back to the project), so the
    /// two share one configuration, one reload and one notice. Paths are
    /// compared by their components (`/p/`, `/p/.` and `/p` are one key,
    /// as they are one directory); a path through a symbolic link is
    /// another key (resolving links would cost every event a lookup).
    fn key(&self, cwd: Option<PathBuf>) -> Option<PathBuf> {
        cwd.filter(|d| self.project.as_ref().is_none_or(|p| p != d))
    }
}

/// The configuration loaded for events in `cwd`, if it is cached.
fn cached(setup: &Setup, cwd: &Option<PathBuf>) -> Option<Loaded> {
    lock(&setup.engines).get(&setup.key(cwd.clone())).cloned()
}

/// [`loaded_for`] from a task, without holding up the server's thread: a
/// configuration not cached yet is loaded on tokio's blocking pool, where
/// it may wait for a reload in progress ([`Setup::loading`]). An error is
/// the response to the request that needed it: the load failed (a bug of
/// latch's).
async fn loaded_off_thread(
    setup: &Arc<Setup>,
    out: &Out,
    cwd: Option<PathBuf>,
    id: &RequestId,
) -> Result<Loaded, String> {
    if let Some(loaded) = cached(setup, &cwd) {
        return Ok(loaded);
    }
    let (setup, out) = (setup.clone(), out.clone());
    watch::off_thread_caught(move || loaded_for(&setup, &out, cwd).0)
        .await
        .map_err(|why| load_failed(id, &why))
}

/// The response to a request whose configuration could not be loaded.
fn load_failed(id: &RequestId, why: &str) -> String {
    rpc::error(
        id,
        code::INTERNAL_ERROR,
        &format!("loading the configuration failed: {why}"),
    )
}

/// The configuration for events in `cwd`, loaded the first time it is
/// needed, with the load's diagnostics (sent as `latch/diagnostics` when
/// it is not the first configuration) and the texts of the files it was
/// loaded from. Waits for a reload in progress when it must load.
fn loaded_for(setup: &Setup, out: &Out, cwd: Option<PathBuf>) -> (Loaded, Vec<Diagnostic>) {
    let key = setup.key(cwd);
    if let Some(loaded) = cached(setup, &key) {
        return (loaded, Vec::new());
    }
    let _loading = lock(&setup.loading);
    // Loaded meanwhile, by a reload this load waited for.
    if let Some(loaded) = cached(setup, &key) {
        return (loaded, Vec::new());
    }
    let replace = lock(&setup.kept).clone();
    let (loaded, diags) = load(setup, out, key.as_deref(), replace.clone());
    let kept: Vec<&PathBuf> = replace
        .keys()
        .filter(|f| loaded.files.contains_key(*f))
        .collect();
    let reason = (!kept.is_empty()).then(|| watch::kept_reason(kept.iter().copied()));
    let answer = loaded.clone();
    let first = {
        let mut engines = lock(&setup.engines);
        let first = engines.is_empty();
        // A harness that moves through many directories does not grow the
        // cache without end: past the bound it starts again.
        if engines.len() >= MAX_ENGINES {
            engines.clear();
        }
        engines.insert(key.clone(), loaded);
        first
    };
    if !first && (!diags.is_empty() || !kept.is_empty()) {
        let _ = out.send(rpc::notification(
            "latch/diagnostics",
            &json!({"cwd": key, "first_load": true, "reloaded": true, "reason": reason, "kept": kept, "diagnostics": diags}),
        ));
    }
    (answer, diags)
}

/// Loads the configuration for events in `cwd`, with every diagnostic of
/// the load; the files of `replace` are read as given instead of from disk
/// (see [`crate::config::files`]).
fn load(
    setup: &Setup,
    out: &Out,
    cwd: Option<&std::path::Path>,
    replace: crate::config::files::Files,
) -> (Loaded, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let mut event = Event::new(crate::EventKind::SessionStart);
    event.cwd = cwd.map(std::path::Path::to_path_buf);
    let (engine, files) = crate::config::files::load_with(replace, || {
        setup.config.clone().engine(&event, &mut diags)
    });
    // One thread serves every session: a burst of hooks, `async` ones
    // too, starts off it.
    let runner = crate::run::Runner {
        spawn_off_thread: true,
        ..crate::run::Runner::default()
    };
    let mut engine = engine.with_runner(runner);
    // Async hooks run on this server's runtime; their answers are kept in
    // the session's state and announced as they arrive.
    if let Some(root) = &setup.state_root {
        let notify = out.clone();
        engine = engine.with_background(
            crate::background::Tasks::new(root)
                .with_runner(runner)
                .with_listener(move |answer| {
                    let _ = notify.send(rpc::notification("latch/asyncResult", answer));
                }),
        );
    }
    if let Some(t) = &setup.telemetry {
        engine = engine.with_telemetry(t.clone());
    }
    diags.extend(engine.diagnostics().cloned());
    let loaded = Loaded {
        engine: Arc::new(engine),
        watches_config_change: crate::dialect::claude::accepted::watches_config_change(
            files
                .values()
                .map(Vec::as_slice)
                .chain(setup.config.inline_claude_settings().map(str::as_bytes)),
        ),
        files: Arc::new(files),
    };
    (loaded, diags)
}
/// Dispatches `event` of the session `accepted` is of with `loaded`, or
/// with the settings the session kept when it rejected a change (claude
/// dialect; see [`Accepted`]), and answers request `id` with the outcome.
#[allow(clippy::too_many_arguments)] // one call site; a struct would only rename them
async fn dispatch(
    id: &RequestId,
    setup: &Arc<Setup>,
    out: &Out,
    event: &Event,
    accepted: Accepted<'_>,
    loaded: Loaded,
    cancel: &Cancel,
    lend: Option<Lend<'_>>,
) -> String {
    let session = accepted.session();
    let loaded = match with_accepted(setup, out, event, &accepted, loaded).await {
        Ok(loaded) => loaded,
        Err(why) => return load_failed(id, &why),
    };
    let mut outcome = match loaded
        .engine
        .dispatch_lending(event, session, cancel, lend)
        .await
    {
        Ok(outcome) => outcome,
        Err(e) => return rpc::error(id, code::INVALID_PARAMS, &format!("invalid event: {e}")),
    };
    if loaded
        .engine
        .dialects()
        .any(|d| d.name() == crate::dialect::claude::DIALECT)
    {
        let looked = || {
            loaded
                .engine
                .dialects()
                .flat_map(|d| d.config_paths())
                .collect()
        };
        let settled = accepted
            .settle(
                event,
                &outcome,
                loaded.watches_config_change,
                looked,
                cancel,
            )
            .await;
        outcome.warnings.extend(settled);
    }
    // Every cancelled answer says so with the same words first.
    if cancel.is_cancelled() {
        outcome
            .warnings
            .push(cancelled_warning(&outcome.runs).to_owned());
    }
    rpc::result(id, &outcome)
}

/// The warning of a cancelled dispatch that ran `runs`: whether the cancel
/// stopped a hook while it ran (its run says `cancelled`, with how it
/// died), or only kept further hooks from starting.
fn cancelled_warning(runs: &[crate::outcome::HookRun]) -> &'static str {
    let killed = runs.iter().any(|r| {
        r.error == Some(crate::outcome::ErrorCategory::Cancelled)
            && (r.signal.is_some() || r.exit_code.is_some())
    });
    if runs.is_empty() {
        "dispatch cancelled before any hook ran"
    } else if killed {
        "dispatch cancelled: latch killed the running hook and its descendants and started no further hook"
    } else {
        "dispatch cancelled: no hook was running; latch started no further hook"
    }
}

/// The configuration for a session that keeps its settings (see
/// [`Accepted`]): the cached one `loaded` when it was read from the same
/// texts (the settings did not change since), else loaded afresh with
/// them, beside the files a broken edit kept (on tokio's blocking pool,
/// as [`loaded_off_thread`] loads; an error is the panic of a failed
/// load).
async fn with_accepted(
    setup: &Arc<Setup>,
    out: &Out,
    event: &Event,
    accepted: &Accepted<'_>,
    loaded: Loaded,
) -> Result<Loaded, String> {
    let replace = accepted.replacements();
    let same = replace
        .iter()
        .all(|(path, text)| loaded.files.get(path).map(Vec::as_slice) == text.as_deref());
    if same {
        return Ok(loaded);
    }
    let key = {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        replace.hash(&mut hasher);
        (setup.key(event.cwd.clone()), hasher.finish())
    };
    if let Some(loaded) = lock(&setup.sessions_own).get(&key) {
        return Ok(loaded.clone());
    }
    let (setup, out) = (setup.clone(), out.clone());
    watch::off_thread_caught(move || {
        let _loading = lock(&setup.loading);
        let mut files = lock(&setup.kept).clone();
        files.extend(replace);
        let (loaded, _) = load(&setup, &out, key.0.as_deref(), files);
        let mut own = lock(&setup.sessions_own);
        // A few at most: sessions that rejected a change and wait for the
        // next one.
        if own.len() >= MAX_ENGINES {
            own.clear();
        }
        own.insert(key, loaded.clone());
        loaded
    })
    .await
}

/// Locks a mutex, even one a panicked task left poisoned (the maps stay
/// consistent: every update is one insert or remove).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::cancelled_warning;
    use crate::outcome::{ErrorCategory, HookRun};

    fn run(error: Option<ErrorCategory>, signal: Option<i32>, exit_code: Option<i32>) -> HookRun {
        let mut run = HookRun::new("h", "claude", "PreToolUse", None);
        (run.error, run.signal, run.exit_code) = (error, signal, exit_code);
        run
    }

    /// A cancelled answer says a hook was killed only when one was.
    #[test]
    fn a_cancelled_answer_says_whether_a_hook_was_killed() {
        let cancelled = Some(ErrorCategory::Cancelled);
        assert_eq!(
            cancelled_warning(&[]),
            "dispatch cancelled before any hook ran"
        );
        let killed = [run(None, None, Some(0)), run(cancelled, Some(15), None)];
        assert!(cancelled_warning(&killed).contains("killed the running hook"));
        // Finished before the cancel, or cancelled before it started.
        let none_running = [run(None, None, Some(0)), run(cancelled, None, None)];
        assert_eq!(
            cancelled_warning(&none_running),
            "dispatch cancelled: no hook was running; latch started no further hook"
        );
    }
}
