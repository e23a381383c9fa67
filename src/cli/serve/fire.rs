//! `fire` and `explain`: a fire's task (its place in its session's order,
//! its turn, its configuration and session), its dispatch, and the thread
//! a lone fire may borrow while its hooks run.

use std::collections::HashMap;
use std::os::fd::BorrowedFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::value::RawValue;
use tokio::sync::oneshot;
use tokio::task::JoinSet;

use crate::dialect::claude::accepted::{Accepted, Arrived};
use crate::run::{Cancel, CancelHandle, Lend};
use crate::{Engine, Event};

use super::flow::Out;
use super::rpc::{self, RequestId, code};
use super::sessions::session_for;
use super::setup::{Loaded, Setup, cached, load_failed, loaded_off_thread, with_accepted};
use super::{Server, lock};

/// A fire that is the server's only work waits for its hooks in `poll(2)`
/// on the server's thread, as `latch fire` does, instead of registering
/// each hook's pipes and pidfd with the reactor (measured: about 18 µs of
/// the server's time less per hook, `docs/serve.md`). It gives the thread
/// back to the reactor, with its hooks still running, as soon as stdin
/// has more to read (a request, a cancel, the end of input), a signal
/// arrives, or [`Lending::AT_MOST`] passes.
#[derive(Clone)]
pub(super) struct Lending {
    /// stdin, when the reactor reads it (a pipe or a Unix stream socket):
    /// what takes the thread back. `None`: never lend.
    pub(super) input: Option<BorrowedFd<'static>>,
    /// Whether a whole further message was read into the server's buffer
    /// already, where the wait on `input` would not see it arrive.
    pub(super) buffered: Arc<AtomicBool>,
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
    /// Starts a dispatch; `None` when the response comes from its task.
    pub(super) fn fire(
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
    pub(super) fn explain(
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
                crate::cli::explain::explain_all(engine, event, |m| eprintln!("latch: error: {m}"));
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
    let event = crate::cli::fire::parse_event(params.get().as_bytes(), "params")?;
    event
        .validate()
        .map_err(|e| format!("invalid event: {e}"))?;
    Ok(event)
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
        let looked = || loaded.looked();
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
