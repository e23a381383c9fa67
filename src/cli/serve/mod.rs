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
//!
//! Here: the loop, the server's state between messages, signals and the
//! writer task. Beside it: `rpc` (framing, messages, error codes), `setup`
//! (`initialize` and the configurations it loads), `fire` (a fire's task
//! and dispatch, `explain`, the lent thread), `sessions` (the open
//! sessions), `trust` (the `trust/…` methods), `flow` (flow control),
//! `watch` (reloads), `stdio` and `schema` (the messages' JSON Schemas).

mod fire;
mod flow;
internal_mods!(rpc);
pub mod schema;
mod sessions;
mod setup;
mod stdio;
mod trust;
mod watch;

use std::collections::HashMap;
use std::io::Write as _;
use std::os::fd::BorrowedFd;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use clap::Args;
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinSet;

use crate::run::CancelHandle;

use self::fire::Lending;
use self::rpc::{Incoming, Line, RequestId, code};
use self::setup::Setup;
use self::trust::TrustAction;
pub use self::trust::TrustParams;
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
                    #[serde(deny_unknown_fields)]
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
                // A request sent without its id: it could get no answer.
                other if schema::REQUESTS.iter().any(|(method, ..)| *method == other) => {
                    eprintln!(
                        "latch: warning: `{other}` sent without an `id` ignored: a request needs an `id` for its answer"
                    );
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

/// Locks a mutex, even one a panicked task left poisoned (the maps stay
/// consistent: every update is one insert or remove).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
