//! The server's open sessions: each holds its state directory open, so
//! a session's later events skip the dozen system calls of opening it.
//!
//! The cache is bounded. When it is full, the least recently used half of
//! the sessions no fire holds is closed: a harness that goes through many
//! sessions does not grow it without end, and the sessions it is using
//! stay open (reopening one waits for its turn among new sessions, which
//! open one at a time off the server's thread).

use std::collections::HashMap;
use std::sync::Arc;

use crate::{Event, Session};

use super::setup::Setup;
use super::{SERVED_NO_STATE_DIRECTORY, lock, watch};

/// The most sessions kept open before the least recently used idle ones
/// are closed. Sessions whose fires are running stay open past it (at
/// most [`super::flow::FIRES_AT_ONCE`] more).
pub const MAX_OPEN_SESSIONS: usize = 128;

/// Open sessions by session id, with when each was last used.
#[derive(Default)]
pub struct OpenSessions {
    open: HashMap<String, (Arc<Session>, u64)>,
    /// Counts uses: what "recently" compares.
    clock: u64,
}

impl OpenSessions {
    /// The open session `id`, marked used.
    pub fn get(&mut self, id: &str) -> Option<Arc<Session>> {
        self.clock += 1;
        let (session, used) = self.open.get_mut(id)?;
        *used = self.clock;
        Some(session.clone())
    }

    /// Keeps `session` open as `id`, first closing the least recently
    /// used half of the idle sessions when the cache is full.
    pub fn insert(&mut self, id: String, session: Arc<Session>) {
        if self.open.len() >= MAX_OPEN_SESSIONS {
            // Idle: held by nothing but this cache.
            let mut idle: Vec<(u64, String)> = self
                .open
                .iter()
                .filter(|(_, (s, _))| Arc::strong_count(s) == 1)
                .map(|(id, (_, used))| (*used, id.clone()))
                .collect();
            idle.sort_unstable();
            for (_, id) in idle.iter().take(MAX_OPEN_SESSIONS / 2) {
                self.open.remove(id);
            }
        }
        self.clock += 1;
        self.open.insert(id, (session, self.clock));
    }

    /// How many sessions are open.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.open.len()
    }
}

/// The session of `event`, opened once per session id (in memory when it
/// has none). A session not open yet is opened on tokio's blocking pool,
/// one at a time: making its directory waits for the file system (about
/// 0.2 ms on ext4), and a burst of new sessions would otherwise hold the
/// server's thread for all of them, ahead of the events of sessions
/// already open.
pub(super) async fn session_for(
    setup: &Arc<Setup>,
    event: &Event,
) -> Result<Arc<crate::Session>, String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn session(id: &str) -> Arc<Session> {
        Arc::new(Session::in_memory(Some(id.to_owned())))
    }

    #[test]
    fn a_full_cache_closes_the_least_recently_used_idle_half() {
        let mut open = OpenSessions::default();
        for i in 0..MAX_OPEN_SESSIONS {
            open.insert(format!("s{i}"), session(&format!("s{i}")));
        }
        // s0 is the oldest, but used since; s1 is held by a running fire.
        assert!(open.get("s0").is_some());
        let running = open.get("s1").expect("open");
        open.insert("new".to_owned(), session("new"));
        assert_eq!(open.len(), MAX_OPEN_SESSIONS / 2 + 1);
        assert!(open.get("s0").is_some(), "recently used stays");
        assert!(open.get("s1").is_some(), "held by a fire stays");
        assert!(open.get("new").is_some());
        for i in 2..=MAX_OPEN_SESSIONS / 2 + 1 {
            assert!(open.get(&format!("s{i}")).is_none(), "s{i} closed");
        }
        for i in MAX_OPEN_SESSIONS / 2 + 2..MAX_OPEN_SESSIONS {
            assert!(open.get(&format!("s{i}")).is_some(), "s{i} kept");
        }
        drop(running);
    }

    #[test]
    fn sessions_all_held_by_fires_stay_open_past_the_bound() {
        let mut open = OpenSessions::default();
        let held: Vec<Arc<Session>> = (0..MAX_OPEN_SESSIONS + 3)
            .map(|i| {
                let s = session(&format!("s{i}"));
                open.insert(format!("s{i}"), s.clone());
                s
            })
            .collect();
        assert_eq!(open.len(), held.len());
    }
}
