//! Per-session state that outlives one dispatch.
//!
//! A harness that shells out runs one `latch fire` per event, so anything a
//! dialect keeps per session (the Stop continuation counter, private
//! directories, …) lives on disk under a state directory:
//!
//! ```text
//! <state root>/                 0700
//!   sessions/<session id>/      0700, the id percent-encoded
//!     lock                      flock'd around every read-modify-write
//!     state.json                the [`SessionState`] values
//! ```
//!
//! Two `latch fire` processes of one session may overlap; every update holds
//! an exclusive lock on `lock`, reads `state.json`, changes it, writes it to
//! a temporary file and renames it into place.

use std::collections::BTreeMap;
use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The values a session keeps. Keys are namespaced by their owner, such as
/// `poolside.stop_continuations`, so dialects never collide.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SessionState {
    /// The values, by key.
    #[serde(default)]
    pub values: BTreeMap<String, Value>,
}

impl SessionState {
    /// A counter value (0 when unset).
    pub fn counter(&self, key: &str) -> u64 {
        self.values.get(key).and_then(Value::as_u64).unwrap_or(0)
    }

    /// Sets a counter.
    pub fn set_counter(&mut self, key: &str, value: u64) {
        self.values.insert(key.to_owned(), Value::from(value));
    }
}

/// One session's state: on disk under a state directory, or in memory.
#[derive(Debug)]
pub struct Session {
    id: Option<String>,
    dir: Option<PathBuf>,
    memory: Mutex<SessionState>,
}

impl Session {
    /// A session whose state lives only as long as this value (for a harness
    /// that embeds latch and keeps one `Session` per conversation).
    pub fn in_memory(id: Option<String>) -> Session {
        Session {
            id,
            dir: None,
            memory: Mutex::new(SessionState::default()),
        }
    }

    /// Opens (creating it if needed) the on-disk state of session `id` under
    /// `state_root`. Every directory latch creates is private (0700).
    pub fn open(state_root: &Path, id: &str) -> io::Result<Session> {
        let dir = state_root.join("sessions").join(encode_id(id));
        // The root may be a directory the user chose (even $HOME): create
        // it private if it is missing, but never change an existing one.
        if !state_root.is_dir() {
            make_private_dir(state_root)?;
        }
        make_private_dir(&state_root.join("sessions"))?;
        make_private_dir(&dir)?;
        Ok(Session {
            id: Some(id.to_owned()),
            dir: Some(dir),
            memory: Mutex::new(SessionState::default()),
        })
    }

    /// The default state root: `$LATCH_STATE_DIR`, else
    /// `$XDG_STATE_HOME/latch`, else `$HOME/.local/state/latch`.
    pub fn default_state_root() -> Option<PathBuf> {
        use crate::config::env_path;
        env_path("LATCH_STATE_DIR")
            .or_else(|| env_path("XDG_STATE_HOME").map(|p| p.join("latch")))
            .or_else(|| env_path("HOME").map(|p| p.join(".local/state/latch")))
    }

    /// The session id, if the session has one.
    pub fn id(&self) -> Option<&str> {
        self.id.as_deref()
    }

    /// The session's private directory on disk, if it has one.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// A private (0700) directory for `name` inside the session directory,
    /// created on first use. `None` for an in-memory session.
    pub fn private_dir(&self, name: &str) -> io::Result<Option<PathBuf>> {
        let Some(dir) = &self.dir else {
            return Ok(None);
        };
        let sub = dir.join(encode_id(name));
        make_private_dir(&sub)?;
        Ok(Some(sub))
    }

    /// Reads the state, lets `f` change it, and stores it, atomically with
    /// respect to other processes updating the same session.
    pub fn update<T>(&self, f: impl FnOnce(&mut SessionState) -> T) -> io::Result<T> {
        self.try_update(|s| Ok(f(s)))
    }

    /// Like [`Session::update`], but `f` may refuse: on `Err` nothing is
    /// written and the error is returned.
    pub fn try_update<T>(
        &self,
        f: impl FnOnce(&mut SessionState) -> io::Result<T>,
    ) -> io::Result<T> {
        let Some(dir) = &self.dir else {
            let mut state = self
                .memory
                .lock()
                .map_err(|_| io::Error::other("session state lock poisoned"))?;
            return f(&mut state);
        };
        let lock = lock_file(dir)?;
        lock.lock()?;
        let path = dir.join("state.json");
        let mut state = read_state(&path)?;
        let out = f(&mut state)?;
        let tmp = dir.join(format!("state.json.{}.tmp", std::process::id()));
        {
            let mut file = File::create(&tmp)?;
            file.write_all(&serde_json::to_vec_pretty(&state).map_err(io::Error::other)?)?;
            file.sync_all()?;
        }
        fs::rename(&tmp, &path)?;
        // The rename is durable only once the directory entry is on disk.
        File::open(dir)?.sync_all()?;
        drop(lock);
        Ok(out)
    }

    /// A snapshot of the state, read under a shared lock (nothing is written).
    pub fn snapshot(&self) -> io::Result<SessionState> {
        let Some(dir) = &self.dir else {
            return self
                .memory
                .lock()
                .map(|s| s.clone())
                .map_err(|_| io::Error::other("session state lock poisoned"));
        };
        let lock = lock_file(dir)?;
        lock.lock_shared()?;
        read_state(&dir.join("state.json"))
    }
}

/// The session's lock file, created on first use.
fn lock_file(dir: &Path) -> io::Result<File> {
    OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join("lock"))
}

/// The stored state; a missing file is the empty state, a corrupt one an
/// error naming the file.
fn read_state(path: &Path) -> io::Result<SessionState> {
    match fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{} is corrupt: {e}", path.display()),
            )
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(SessionState::default()),
        Err(e) => Err(e),
    }
}

/// Creates `dir` with mode 0700, or tightens an existing one to 0700.
fn make_private_dir(dir: &Path) -> io::Result<()> {
    match DirBuilder::new().mode(0o700).recursive(true).create(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    let meta = fs::metadata(dir)?;
    if !meta.is_dir() {
        return Err(io::Error::other(format!(
            "{} exists and is not a directory",
            dir.display()
        )));
    }
    if meta.permissions().mode() & 0o077 != 0 {
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// Percent-encodes every byte outside `[A-Za-z0-9_-]`, so any session id
/// maps to one safe file name (no `/`, no `..`). A long id keeps a
/// readable prefix and gets a hash of the whole id, so the name stays far
/// below the file-name limit and distinct ids stay distinct.
fn encode_id(id: &str) -> String {
    if id.is_empty() {
        return "%".to_owned();
    }
    let mut out = String::with_capacity(id.len());
    for b in id.bytes() {
        if b.is_ascii_alphanumeric() || b == b'_' || b == b'-' {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    const MAX: usize = 120;
    if out.len() > MAX {
        out.truncate(64);
        out.push_str(&format!("~{:016x}", fnv1a(id.as_bytes())));
    }
    out
}

/// FNV-1a, 64 bits: small, and stable across Rust releases (unlike
/// `DefaultHasher`), which matters for names stored on disk.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_cannot_escape_the_sessions_directory() {
        assert_eq!(encode_id(".."), "%2E%2E");
        assert_eq!(encode_id("a/b"), "a%2Fb");
        assert_eq!(encode_id("abc-1_2"), "abc-1_2");
        let long = ".".repeat(100);
        let enc = encode_id(&long);
        assert!(enc.len() <= 81, "{enc}");
        assert_ne!(enc, encode_id(&".".repeat(101)));
    }

    #[test]
    fn an_existing_root_keeps_its_permissions() {
        let root = tempfile::tempdir().expect("tempdir");
        fs::set_permissions(root.path(), fs::Permissions::from_mode(0o755)).expect("chmod");
        Session::open(root.path(), "s").expect("open");
        let mode = fs::metadata(root.path())
            .expect("meta")
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o755);
        let sessions = fs::metadata(root.path().join("sessions"))
            .expect("meta")
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(sessions, 0o700);
    }

    #[test]
    fn state_persists_and_directories_are_private() {
        let root = tempfile::tempdir().expect("tempdir");
        let s = Session::open(root.path(), "s/1").expect("open");
        s.update(|st| st.set_counter("x", 3)).expect("update");
        let again = Session::open(root.path(), "s/1").expect("reopen");
        assert_eq!(again.snapshot().expect("snapshot").counter("x"), 3);
        for d in [
            root.path().join("sessions"),
            again.dir().expect("dir").to_path_buf(),
        ] {
            let mode = fs::metadata(&d).expect("meta").permissions().mode() & 0o777;
            assert_eq!(mode, 0o700, "{}", d.display());
        }
    }
}
