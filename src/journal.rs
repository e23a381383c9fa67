//! The restart journal: a durable, per-session record of hook runs at the
//! checkpoints a harness may have to resume after a crash.
//!
//! A run is recorded as `started` before it begins and `completed`,
//! `denied` or `failed` when it ends, with its result. When the same
//! checkpoint is dispatched again (the harness restarted and resumes the
//! turn):
//! - a finished run is **reused**: its stored result is returned and no
//!   hook runs again;
//! - a run still `started` was interrupted (latch or the machine died while
//!   the hook ran; the hook may have changed files or started processes):
//!   it is **uncertain** and blocks the turn until someone inspects it with
//!   [`Journal::read`] and settles it with [`Journal::resolve`];
//! - a `failed` run (latch itself failed) is never run again.
//!
//! The journal lives in the session's `state.json` under the key
//! `journal`, written atomically under the session lock.

use std::collections::BTreeMap;
use std::io;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::session::Session;

const KEY: &str = "journal";

/// Where a journaled run stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunState {
    /// It began and has not ended (uncertain after a restart).
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
pub enum Begin {
    /// Nothing recorded: the run may start (it is now recorded as started).
    Fresh,
    /// A finished run: reuse it.
    Finished(Entry),
    /// An interrupted run: inspect and resolve it first.
    Uncertain(Entry),
}

/// The journal of one session.
pub struct Journal<'a> {
    session: &'a Session,
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

impl<'a> Journal<'a> {
    /// The journal of `session`.
    pub fn new(session: &'a Session) -> Self {
        Journal { session }
    }

    /// Every entry, by key.
    pub fn read(&self) -> io::Result<Vec<Entry>> {
        Ok(entries(&self.session.snapshot()?.values)?
            .into_values()
            .collect())
    }

    /// Looks the checkpoint up and, if it is fresh, records it as started.
    pub fn begin(&self, key: &str, dialect: &str, event: &str) -> io::Result<Begin> {
        self.session.try_update(|s| {
            let mut map = entries(&s.values)?;
            let found = match map.get(key) {
                Some(e) if e.state == RunState::Started => Begin::Uncertain(e.clone()),
                Some(e) => Begin::Finished(e.clone()),
                None => {
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
                        },
                    );
                    Begin::Fresh
                }
            };
            store(&mut s.values, &map)?;
            Ok(found)
        })
    }

    /// Records how a started run ended.
    pub fn finish(
        &self,
        key: &str,
        state: RunState,
        result: Option<Value>,
        reason: Option<String>,
    ) -> io::Result<()> {
        self.session.try_update(|s| {
            let mut map = entries(&s.values)?;
            if let Some(e) = map.get_mut(key) {
                e.state = state;
                e.result = result;
                e.reason = reason;
                e.updated = now();
            }
            store(&mut s.values, &map)
        })
    }

    /// Settles an entry (normally an uncertain one). Returns whether the key existed.
    pub fn resolve(&self, key: &str, resolution: Resolution) -> io::Result<bool> {
        self.session.try_update(|s| {
            let mut map = entries(&s.values)?;
            let (state, reason) = match resolution {
                Resolution::Retry => {
                    let existed = map.remove(key).is_some();
                    store(&mut s.values, &map)?;
                    return Ok(existed);
                }
                Resolution::Completed => (RunState::Completed, "resolved as completed".to_owned()),
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn begin_finish_reuse_and_resolve() {
        let root = tempfile::tempdir().unwrap();
        let s = Session::open(root.path(), "s").unwrap();
        let j = Journal::new(&s);
        assert_eq!(
            j.begin("t1/turnStart", "peen", "turnStart").unwrap(),
            Begin::Fresh
        );
        // A second look while it runs (or after a crash) is uncertain.
        assert!(matches!(
            j.begin("t1/turnStart", "peen", "turnStart").unwrap(),
            Begin::Uncertain(_)
        ));
        j.finish(
            "t1/turnStart",
            RunState::Completed,
            Some(serde_json::json!({"x": 1})),
            None,
        )
        .unwrap();
        let again = Session::open(root.path(), "s").unwrap();
        match Journal::new(&again)
            .begin("t1/turnStart", "peen", "turnStart")
            .unwrap()
        {
            Begin::Finished(e) => assert_eq!(e.result, Some(serde_json::json!({"x": 1}))),
            other => panic!("{other:?}"),
        }
        assert!(j.resolve("t1/turnStart", Resolution::Retry).unwrap());
        assert_eq!(
            j.begin("t1/turnStart", "peen", "turnStart").unwrap(),
            Begin::Fresh
        );
        assert!(!j.resolve("nope", Resolution::Completed).unwrap());
    }

    #[test]
    fn a_corrupt_journal_is_an_error_and_is_left_alone() {
        let root = tempfile::tempdir().unwrap();
        let s = Session::open(root.path(), "s").unwrap();
        s.update(|st| {
            st.values.insert(
                KEY.to_owned(),
                serde_json::json!({"t/turnStart": {"state": "bogus"}}),
            );
        })
        .unwrap();
        let j = Journal::new(&s);
        let err = j.begin("t/turnStart", "peen", "turnStart").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert!(j.read().is_err());
        let kept = s.snapshot().unwrap();
        assert_eq!(
            kept.values[KEY],
            serde_json::json!({"t/turnStart": {"state": "bogus"}})
        );
    }
}
