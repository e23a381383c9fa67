//! The restart journal: a durable, per-session record of hook runs at the
//! checkpoints a harness may have to resume after a crash.
//!
//! A run is recorded as `started` (with the latch process that runs it)
//! before it begins and `completed`, `denied` or `failed` when it ends, with
//! its result. When the same checkpoint is dispatched again (the harness
//! restarted and resumes the turn):
//! - a finished run is **reused**: its stored result is returned and no
//!   hook runs again;
//! - a run still `started` by a latch process that is still alive is
//!   **running**: the dispatch waits for it (bounded,
//!   cancellable) and then reuses its result;
//! - a run still `started` whose process is gone was interrupted (latch or
//!   the machine died while the hook ran; the hook may have changed files
//!   or started processes): it is **uncertain** and blocks the turn until
//!   someone inspects it with [`Journal::read`] and settles it with
//!   [`Journal::resolve`];
//! - a `failed` run (latch itself failed) is never run again while it is
//!   journaled (finished entries of turns older than the last
//!   [`KEEP_TURNS`] are pruned).
//!
//! The journal lives in the session's `state.json` under the key
//! `journal`, written atomically under the session lock. It is pruned so
//! that its size, and the cost of each update, stays flat: every `started`
//! entry is kept, and the finished entries of the [`KEEP_TURNS`] most
//! recent turns (a key's turn is its part before the first `/`).
//!
//! # Example
//!
//! ```
//! use latch::Session;
//! use latch::journal::Journal;
//!
//! // A harness that resumes after a crash reads the session's journal and
//! // settles the runs left uncertain with `Journal::resolve`.
//! let state = tempfile::tempdir()?;
//! let session = Session::open(state.path(), "session-1")?;
//! let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
//! let entries = runtime.block_on(Journal::new(&session).read())?;
//! assert!(entries.is_empty(), "nothing ran yet");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod owner;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::run::Cancel;
use crate::session::Session;

pub use owner::Owner;

const KEY: &str = "journal";

/// How many turns keep their finished entries; older ones are pruned.
pub const KEEP_TURNS: usize = 8;

/// How long [`Journal::begin_or_wait`] waits at most for another latch
/// process that is running the same checkpoint.
pub(crate) const RUNNING_WAIT: Duration = Duration::from_secs(60);

/// Where a journaled run stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunState {
    /// It began and has not ended (running, or uncertain after a restart).
    Started,
    /// It ended and its result applies.
    Completed,
    /// It ended with a deny.
    Denied,
    /// latch itself failed while running it; it is not run again.
    Failed,
}

/// One journaled run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// The checkpoint: `<turn>/<hook event>`.
    pub key: String,
    /// The dialect that ran it.
    pub dialect: String,
    /// The hook event.
    pub event: String,
    /// Where it stands.
    pub state: RunState,
    /// The stored result, for reuse (dialect-defined JSON).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// Why it failed or was denied, for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Seconds since the Unix epoch of the last change.
    pub updated: u64,
    /// The latch process that started the run (absent in older journals).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<Owner>,
    /// The order in which entries were created, for pruning (0 in older
    /// journals).
    #[serde(default)]
    pub seq: u64,
}

/// How an uncertain run is settled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Resolution {
    /// Treat it as completed with no effect: the turn goes on.
    Completed,
    /// Treat it as failed: the turn fails with this reason.
    Failed(String),
    /// Forget it: the next dispatch runs the hooks again.
    Retry,
}

/// What [`Journal::begin`] found for a checkpoint.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Begin {
    /// Nothing recorded: the run may start (it is now recorded as started).
    Fresh,
    /// A finished run: reuse it.
    Finished(Entry),
    /// An interrupted run: inspect and resolve it first.
    Uncertain(Entry),
    /// A run another live latch process (or another dispatch of this one)
    /// has started and not finished yet.
    Running(Entry),
}

/// The journal of one session.
pub struct Journal<'a> {
    session: &'a Session,
    cancel: Cancel,
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The journal's entries. A journal that does not parse is an error, never
/// an empty journal: forgetting a `started` entry would run an interrupted
/// hook again.
fn entries(values: &BTreeMap<String, Value>) -> io::Result<BTreeMap<String, Entry>> {
    match values.get(KEY) {
        None => Ok(BTreeMap::new()),
        Some(v) => serde_json::from_value(v.clone()).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("the restart journal is corrupt: {e}"),
            )
        }),
    }
}

fn store(values: &mut BTreeMap<String, Value>, map: &BTreeMap<String, Entry>) -> io::Result<()> {
    values.insert(
        KEY.to_owned(),
        serde_json::to_value(map).map_err(io::Error::other)?,
    );
    Ok(())
}

/// The turn a key belongs to: its part before the first `/`.
fn turn_of(key: &str) -> &str {
    key.split('/').next().unwrap_or(key)
}

/// Drops the finished entries of every turn but the [`KEEP_TURNS`] most
/// recent ones (by their newest entry); `started` entries always stay.
fn prune(map: &mut BTreeMap<String, Entry>) {
    let mut newest: HashMap<&str, u64> = HashMap::new();
    for e in map.values() {
        let n = newest.entry(turn_of(&e.key)).or_insert(0);
        *n = (*n).max(e.seq);
    }
    if newest.len() <= KEEP_TURNS {
        return;
    }
    let mut turns: Vec<(u64, &str)> = newest.into_iter().map(|(t, n)| (n, t)).collect();
    turns.sort_unstable_by(|a, b| b.cmp(a));
    let keep: HashSet<String> = turns
        .into_iter()
        .take(KEEP_TURNS)
        .map(|(_, t)| t.to_owned())
        .collect();
    map.retain(|_, e| e.state == RunState::Started || keep.contains(turn_of(&e.key)));
}

impl<'a> Journal<'a> {
    /// The journal of `session`; its lock waits are bounded but not
    /// cancellable (see [`Journal::cancel_on`]).
    pub fn new(session: &'a Session) -> Self {
        Journal {
            session,
            cancel: Cancel::never(),
        }
    }

    /// Makes every lock wait (and the wait for a running checkpoint) end when
    /// `cancel` fires.
    pub fn cancel_on(mut self, cancel: &Cancel) -> Self {
        self.cancel = cancel.clone();
        self
    }

    /// Every entry, by key.
    pub async fn read(&self) -> io::Result<Vec<Entry>> {
        let state = self.session.snapshot(&self.cancel).await?;
        Ok(entries(&state.values)?.into_values().collect())
    }

    /// Looks the checkpoint up and, if it is fresh, records it as started
    /// by this process (pruning old turns' finished entries).
    pub(crate) async fn begin(&self, key: &str, dialect: &str, event: &str) -> io::Result<Begin> {
        let dir = self.session.dir().map(|d| d.to_path_buf());
        let found = self
            .session
            .try_update(&self.cancel, |s| {
                let mut map = entries(&s.values)?;
                let found = match map.get(key) {
                    Some(e) if e.state == RunState::Started => {
                        if e.owner
                            .as_ref()
                            .is_some_and(|o| o.running(dir.as_deref(), key))
                        {
                            Begin::Running(e.clone())
                        } else {
                            Begin::Uncertain(e.clone())
                        }
                    }
                    Some(e) => Begin::Finished(e.clone()),
                    None => {
                        let seq = map.values().map(|e| e.seq).max().unwrap_or(0) + 1;
                        map.insert(
                            key.to_owned(),
                            Entry {
                                key: key.to_owned(),
                                dialect: dialect.to_owned(),
                                event: event.to_owned(),
                                state: RunState::Started,
                                result: None,
                                reason: None,
                                updated: now(),
                                owner: Some(Owner::this_process()),
                                seq,
                            },
                        );
                        prune(&mut map);
                        store(&mut s.values, &map)?;
                        Begin::Fresh
                    }
                };
                Ok(found)
            })
            .await?;
        if found == Begin::Fresh {
            owner::register(dir.as_deref(), key);
        }
        Ok(found)
    }

    /// Like [`Journal::begin`], but a run that another live latch process
    /// is running is waited for, up to `wait` (and not once the journal's
    /// cancel fires: an `Interrupted` error), so that its result is reused;
    /// `Running` comes back only when the wait ran out.
    pub(crate) async fn begin_or_wait(
        &self,
        key: &str,
        dialect: &str,
        event: &str,
        wait: Duration,
    ) -> io::Result<Begin> {
        let start = Instant::now();
        let mut pause = Duration::from_millis(20);
        loop {
            let found = self.begin(key, dialect, event).await?;
            if !matches!(found, Begin::Running(_)) || start.elapsed() >= wait {
                return Ok(found);
            }
            tokio::select! {
                () = tokio::time::sleep(pause) => {}
                () = self.cancel.cancelled() => {
                    return Err(io::Error::new(
                        io::ErrorKind::Interrupted,
                        format!("cancelled while waiting for another latch process to finish {key}"),
                    ));
                }
            }
            pause = (pause * 2).min(Duration::from_millis(250));
        }
    }

    /// Records how a started run ended.
    pub(crate) async fn finish(
        &self,
        key: &str,
        state: RunState,
        result: Option<Value>,
        reason: Option<String>,
    ) -> io::Result<()> {
        let recorded = self
            .session
            .try_update(&self.cancel, |s| {
                let mut map = entries(&s.values)?;
                if let Some(e) = map.get_mut(key) {
                    e.state = state;
                    e.result = result;
                    e.reason = reason;
                    e.updated = now();
                }
                store(&mut s.values, &map)
            })
            .await;
        // Recorded or not, this process no longer runs it (unrecorded, it
        // stays `started` and is uncertain).
        owner::unregister(self.session.dir(), key);
        recorded
    }

    /// Gives up a run this process started without recording how it ended
    /// (it was interrupted): the entry stays `started`, and from now on it
    /// is uncertain rather than running, in this process too.
    pub(crate) fn abandon(&self, key: &str) {
        owner::unregister(self.session.dir(), key);
    }

    /// Forgets a run this process began but whose hooks never started (the
    /// dispatch was cancelled first): nothing ran, so nothing is uncertain,
    /// and the next dispatch begins it afresh. If the journal cannot be
    /// written, the entry is given up as by [`Journal::abandon`] instead.
    pub(crate) async fn discard(&self, key: &str) {
        let me = Owner::this_process();
        let _ =
            self.session
                .try_update(&self.cancel, |s| {
                    let mut map = entries(&s.values)?;
                    // Only this process's own claim: if the entry changed hands
                    // meanwhile (resolved and begun again), it is not ours.
                    if map.get(key).is_some_and(|e| {
                        e.state == RunState::Started && e.owner.as_ref() == Some(&me)
                    }) {
                        map.remove(key);
                    }
                    store(&mut s.values, &map)
                })
                .await;
        owner::unregister(self.session.dir(), key);
    }

    /// Settles an entry (normally an uncertain one). Returns whether the key existed.
    pub async fn resolve(&self, key: &str, resolution: Resolution) -> io::Result<bool> {
        self.session
            .try_update(&self.cancel, |s| {
                let mut map = entries(&s.values)?;
                let (state, reason) = match resolution {
                    Resolution::Retry => {
                        let existed = map.remove(key).is_some();
                        store(&mut s.values, &map)?;
                        return Ok(existed);
                    }
                    Resolution::Completed => {
                        (RunState::Completed, "resolved as completed".to_owned())
                    }
                    Resolution::Failed(r) => (RunState::Failed, r),
                };
                let existed = match map.get_mut(key) {
                    Some(e) => {
                        (e.state, e.reason, e.result) = (state, Some(reason), None);
                        e.updated = now();
                        true
                    }
                    None => false,
                };
                store(&mut s.values, &map)?;
                Ok(existed)
            })
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn begin_finish_reuse_and_resolve() {
        let root = tempfile::tempdir().unwrap();
        let s = Session::open(root.path(), "s").unwrap();
        let j = Journal::new(&s);
        assert_eq!(
            j.begin("t1/turnStart", "peen", "turnStart").await.unwrap(),
            Begin::Fresh
        );
        // A second look while this process runs it is running ...
        assert!(matches!(
            j.begin("t1/turnStart", "peen", "turnStart").await.unwrap(),
            Begin::Running(_)
        ));
        // ... and once the run is given up, uncertain.
        j.abandon("t1/turnStart");
        assert!(matches!(
            j.begin("t1/turnStart", "peen", "turnStart").await.unwrap(),
            Begin::Uncertain(_)
        ));
        j.finish(
            "t1/turnStart",
            RunState::Completed,
            Some(serde_json::json!({"x": 1})),
            None,
        )
        .await
        .unwrap();
        let again = Session::open(root.path(), "s").unwrap();
        match Journal::new(&again)
            .begin("t1/turnStart", "peen", "turnStart")
            .await
            .unwrap()
        {
            Begin::Finished(e) => assert_eq!(e.result, Some(serde_json::json!({"x": 1}))),
            other => panic!("{other:?}"),
        }
        assert!(j.resolve("t1/turnStart", Resolution::Retry).await.unwrap());
        assert_eq!(
            j.begin("t1/turnStart", "peen", "turnStart").await.unwrap(),
            Begin::Fresh
        );
        assert!(!j.resolve("nope", Resolution::Completed).await.unwrap());
    }

    #[tokio::test]
    async fn a_discarded_run_begins_afresh_and_a_finished_one_is_kept() {
        let root = tempfile::tempdir().unwrap();
        let s = Session::open(root.path(), "s").unwrap();
        let j = Journal::new(&s);
        assert_eq!(
            j.begin("t1/turnStart", "peen", "turnStart").await.unwrap(),
            Begin::Fresh
        );
        j.discard("t1/turnStart").await;
        assert_eq!(j.read().await.unwrap(), []);
        assert_eq!(
            j.begin("t1/turnStart", "peen", "turnStart").await.unwrap(),
            Begin::Fresh
        );
        // Another process's claim, or a finished run, is not this one's to drop.
        j.finish("t1/turnStart", RunState::Completed, None, None)
            .await
            .unwrap();
        j.discard("t1/turnStart").await;
        assert_eq!(j.read().await.unwrap()[0].state, RunState::Completed);
        s.update(&Cancel::never(), |st| {
            st.values.insert(
                KEY.to_owned(),
                serde_json::json!({"t2/turnStart": {"key": "t2/turnStart", "dialect": "peen",
                    "event": "turnStart", "state": "started", "updated": 1, "seq": 1,
                    "owner": {"pid": 1, "start": 1}}}),
            );
        })
        .await
        .unwrap();
        j.discard("t2/turnStart").await;
        assert_eq!(j.read().await.unwrap()[0].key, "t2/turnStart");
    }

    #[tokio::test]
    async fn a_corrupt_journal_is_an_error_and_is_left_alone() {
        let never = Cancel::never();
        let root = tempfile::tempdir().unwrap();
        let s = Session::open(root.path(), "s").unwrap();
        s.update(&never, |st| {
            st.values.insert(
                KEY.to_owned(),
                serde_json::json!({"t/turnStart": {"state": "bogus"}}),
            );
        })
        .await
        .unwrap();
        let j = Journal::new(&s);
        let err = j
            .begin("t/turnStart", "peen", "turnStart")
            .await
            .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert!(j.read().await.is_err());
        let kept = s.snapshot(&never).await.unwrap();
        assert_eq!(
            kept.values[KEY],
            serde_json::json!({"t/turnStart": {"state": "bogus"}})
        );
    }

    #[tokio::test]
    async fn finished_turns_are_pruned_and_started_entries_kept() {
        let root = tempfile::tempdir().unwrap();
        let s = Session::open(root.path(), "s").unwrap();
        let j = Journal::new(&s);
        j.begin("t0/turnStart", "peen", "turnStart").await.unwrap();
        j.abandon("t0/turnStart");
        for t in 1..=20 {
            for ev in ["preUserMessage", "turnStart"] {
                let key = format!("t{t}/{ev}");
                assert_eq!(j.begin(&key, "peen", ev).await.unwrap(), Begin::Fresh);
                j.finish(&key, RunState::Completed, None, None)
                    .await
                    .unwrap();
            }
        }
        let keys: Vec<String> = j.read().await.unwrap().into_iter().map(|e| e.key).collect();
        assert_eq!(keys.len(), 1 + 2 * KEEP_TURNS, "{keys:?}");
        assert!(keys.contains(&"t0/turnStart".to_owned()));
        assert!(keys.contains(&"t20/turnStart".to_owned()));
        assert!(!keys.contains(&"t1/turnStart".to_owned()));
    }

    #[tokio::test]
    async fn a_run_of_a_dead_process_is_uncertain() {
        let never = Cancel::never();
        let root = tempfile::tempdir().unwrap();
        let s = Session::open(root.path(), "s").unwrap();
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        s.update(&never, |st| {
            st.values.insert(
                KEY.to_owned(),
                serde_json::json!({"t/turnStart": {
                    "key": "t/turnStart", "dialect": "peen", "event": "turnStart",
                    "state": "started", "updated": 0, "owner": {"pid": pid}
                }}),
            );
        })
        .await
        .unwrap();
        let found = Journal::new(&s)
            .begin_or_wait("t/turnStart", "peen", "turnStart", RUNNING_WAIT)
            .await
            .unwrap();
        assert!(matches!(found, Begin::Uncertain(_)), "{found:?}");
    }
}
