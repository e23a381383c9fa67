//! Which latch process runs a journaled checkpoint, and whether it still
//! does.
//!
//! An entry records the process that started it: its pid, its start time
//! (so a reused pid is not mistaken for it) and the boot it ran in. A run
//! of another process is running while that process lives; a run of this
//! process is running while this process has it registered (a dispatch
//! that was cancelled gives it up, so a resumed turn in the same process
//! finds it uncertain, as after a crash).

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use serde::{Deserialize, Serialize};

/// The latch process that started a journaled run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Owner {
    /// Its process id.
    pub pid: u32,
    /// Its start time, in clock ticks after boot (`/proc/PID/stat`), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<u64>,
    /// The boot it ran in (`/proc/sys/kernel/random/boot_id`), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boot: Option<String>,
}

/// The checkpoints this process is running: (session directory, key).
static RUNNING: Mutex<BTreeSet<(PathBuf, String)>> = Mutex::new(BTreeSet::new());

fn slot(dir: Option<&Path>, key: &str) -> (PathBuf, String) {
    (
        dir.map(Path::to_path_buf).unwrap_or_default(),
        key.to_owned(),
    )
}

/// Records that this process runs `key` of the session in `dir`.
pub fn register(dir: Option<&Path>, key: &str) {
    if let Ok(mut set) = RUNNING.lock() {
        set.insert(slot(dir, key));
    }
}

/// Records that this process no longer runs `key` of the session in `dir`.
pub fn unregister(dir: Option<&Path>, key: &str) {
    if let Ok(mut set) = RUNNING.lock() {
        set.remove(&slot(dir, key));
    }
}

fn boot_id() -> Option<String> {
    static BOOT: OnceLock<Option<String>> = OnceLock::new();
    BOOT.get_or_init(|| {
        fs::read_to_string("/proc/sys/kernel/random/boot_id")
            .ok()
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
    })
    .clone()
}

/// A process's state letter and start time, from `/proc/PID/stat`; `None`
/// when there is no such process (or no `/proc`).
fn stat(pid: &str) -> Option<(char, Option<u64>)> {
    let text = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses: fields resume
    // after the last `)`. Field 3 is the state, field 22 the start time.
    let rest = text.rsplit_once(')')?.1;
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let start = fields.nth(18).and_then(|f| f.parse().ok());
    Some((state, start))
}

impl Owner {
    /// This process.
    pub fn this_process() -> Owner {
        static START: OnceLock<Option<u64>> = OnceLock::new();
        Owner {
            pid: std::process::id(),
            start: *START.get_or_init(|| stat("self").and_then(|(_, s)| s)),
            boot: boot_id(),
        }
    }

    /// Whether the run of `key` of the session in `dir` that this owner
    /// started is still going.
    pub fn running(&self, dir: Option<&Path>, key: &str) -> bool {
        let me = Owner::this_process();
        if self.boot.is_some() && me.boot.is_some() && self.boot != me.boot {
            return false;
        }
        if *self == me {
            return RUNNING
                .lock()
                .map(|set| set.contains(&slot(dir, key)))
                .unwrap_or(false);
        }
        if self.pid == me.pid {
            // Our pid, but another start: an earlier process, long gone.
            return false;
        }
        if fs::metadata("/proc/self/stat").is_err() {
            // No /proc: only whether the pid exists can be told.
            return crate::session::pid_alive(self.pid);
        }
        match stat(&self.pid.to_string()) {
            None => false,
            Some(('Z' | 'X' | 'x', _)) => false,
            Some((_, start)) => self.start.is_none() || start == self.start,
        }
    }
}
