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
//! Two `latch fire` processes of one session may overlap. Every update holds an exclusive lock on `lock`, reads `state.json`,
//! changes it and, if anything changed, writes a temporary file and renames
//! it into place. Nothing below the state root is followed through a
//! symbolic link, files are used only if they are regular files, lock waits
//! are bounded by [`LOCK_WAIT`] and cancellable, and the blocking file work
//! (reads, writes, fsyncs) runs on tokio's blocking pool, never on the
//! runtime's own thread. See `files.rs` and `lock.rs`.
//!
//! # Example
//!
//! ```
//! use std::os::unix::fs::PermissionsExt;
//!
//! use latch::Session;
//!
//! // What `latch fire --state-dir` does for each event of a session.
//! let root = tempfile::tempdir()?;
//! let session = Session::open(root.path(), "session/1")?;
//! assert_eq!(session.id(), Some("session/1"));
//! let dir = session.dir().expect("on disk");
//! assert!(dir.ends_with("sessions/session%2F1"));
//! assert_eq!(std::fs::metadata(dir)?.permissions().mode() & 0o777, 0o700);
//! // A harness that keeps one process per conversation can stay in memory.
//! assert!(Session::in_memory(None).dir().is_none());
//! # Ok::<(), std::io::Error>(())
//! ```

pub(crate) mod files;
mod lock;

use std::collections::BTreeMap;
use std::fs::File;
use std::io;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::run::Cancel;

pub use files::MAX_STATE_BYTES;
pub(crate) use files::pid_alive;
pub use lock::LOCK_WAIT;

/// The values a session keeps. Keys are namespaced by their owner, such as
/// `poolside.stop_continuations`, so dialects never collide.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SessionState {
    /// The values, by key.
    #[serde(default)]
    pub values: BTreeMap<String, Value>,
}

impl SessionState {
    /// A counter value: 0 when unset; a value that is not a whole number
    /// (such as the string `"7"`) is an `InvalidData` error, so a caller
    /// fails closed as it would on a corrupt file.
    pub fn counter(&self, key: &str) -> io::Result<u64> {
        match self.values.get(key) {
            None => Ok(0),
            Some(v) => v.as_u64().ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("`{key}` is {v}, not a whole number"),
                )
            }),
        }
    }

    /// Sets a counter. Zero is kept as no value, which reads as zero too:
    /// resetting a counter that was never raised changes nothing, so a
    /// session's first events write no state (a write waits for the
    /// disk twice).
    pub fn set_counter(&mut self, key: &str, value: u64) {
        if value == 0 {
            self.values.remove(key);
        } else {
            self.values.insert(key.to_owned(), Value::from(value));
        }
    }
}

/// Where a session's state lives.
#[derive(Debug)]
enum Store {
    /// In this value only.
    Memory(Mutex<SessionState>),
    /// In the session directory `path`, opened as `dir`.
    Disk { path: PathBuf, dir: Arc<OwnedFd> },
    /// On disk, but the session directory `path` could not be opened:
    /// every state operation fails with `why`.
    Unusable {
        path: PathBuf,
        kind: io::ErrorKind,
        why: String,
    },
}

/// One session's state: on disk under a state directory, or in memory.
#[derive(Debug)]
pub struct Session {
    id: Option<String>,
    store: Store,
    /// The audit log, kept open between dispatches of a long-lived session
    /// (`latch serve`).
    audit_log: Mutex<Option<AuditLog>>,
}

/// A session's audit log, open for appending, with its identity as it
/// was when opened.
#[derive(Debug)]
struct AuditLog {
    file: File,
    /// `(st_dev, st_ino)` of the file.
    identity: (u64, u64),
    /// Its size when opened.
    size: u64,
}

impl AuditLog {
    fn open(file: File, path: &Path) -> io::Result<AuditLog> {
        let st = rustix::fs::fstat(&file)
            .map_err(|e| files::at_path(path, "inspect", io::Error::from(e)))?;
        Ok(AuditLog {
            file,
            identity: (st.st_dev, st.st_ino),
            size: u64::try_from(st.st_size).unwrap_or(0),
        })
    }
}

impl Session {
    /// A session whose state lives only as long as this value (for a harness
    /// that embeds latch and keeps one `Session` per conversation).
    pub fn in_memory(id: Option<String>) -> Session {
        Session {
            id,
            store: Store::Memory(Mutex::new(SessionState::default())),
            audit_log: Mutex::new(None),
        }
    }

    /// Opens (creating it if needed) the on-disk state of session `id` under
    /// `state_root`. Every directory latch creates is private (0700). The
    /// root may be a symbolic link (it is the user's choice); below it,
    /// `sessions/` and the session's directory must be real directories
    /// owned by the effective user, else the error names the path.
    pub fn open(state_root: &Path, id: &str) -> io::Result<Session> {
        let root = files::create_root(state_root)?;
        let sessions_path = state_root.join("sessions");
        let sessions = files::private_subdir(&root, "sessions", &sessions_path)?;
        let name = encode_id(id);
        let path = sessions_path.join(&name);
        let dir = files::private_subdir(&sessions, &name, &path)?;
        Ok(Session {
            id: Some(id.to_owned()),
            store: Store::Disk {
                path,
                dir: Arc::new(dir),
            },
            audit_log: Mutex::new(None),
        })
    }

    /// Like [`Session::open`], but a state directory that cannot be opened
    /// (a symbolic link, a file that is not a directory, no permission)
    /// gives a session whose every state operation fails with that error,
    /// so each dialect makes its safe choice instead of nothing running.
    pub fn open_or_unusable(state_root: &Path, id: &str) -> Session {
        Session::open(state_root, id).unwrap_or_else(|e| Session {
            id: Some(id.to_owned()),
            store: Store::Unusable {
                path: state_root.join("sessions").join(encode_id(id)),
                kind: e.kind(),
                why: e.to_string(),
            },
            audit_log: Mutex::new(None),
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

    /// The session's directory on disk, if it has one (also when it turned
    /// out unusable: its state operations then fail).
    pub fn dir(&self) -> Option<&Path> {
        match &self.store {
            Store::Memory(_) => None,
            Store::Disk { path, .. } | Store::Unusable { path, .. } => Some(path),
        }
    }

    /// Appends `lines` to the session's audit log (see [`crate::audit`]),
    /// rotating it once it is over 4 MiB. One
    /// `write` per call, to a file opened `O_APPEND`, so the lines of
    /// overlapping processes do not interleave. A session in memory keeps
    /// no log.
    pub(crate) fn append_audit(&self, lines: &[u8]) -> io::Result<()> {
        use crate::audit::{LOG_FILE, MAX_LOG_BYTES, PREVIOUS_LOG_FILE};
        use rustix::fs::OFlags;
        let (path, dir) = match &self.store {
            Store::Memory(_) => return Ok(()),
            Store::Unusable { kind, why, .. } => return Err(Session::unusable(*kind, why)),
            Store::Disk { path, dir } => (path, dir),
        };
        if lines.is_empty() {
            return Ok(());
        }
        let log_path = path.join(LOG_FILE);
        let flags = OFlags::WRONLY | OFlags::APPEND | OFlags::CREATE;
        let open = || files::open_regular(dir.as_ref(), LOG_FILE, &log_path, flags);
        let mut cached = self
            .audit_log
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // The open file is still the log only if no one rotated or removed
        // it since (another process of the same session may have). One
        // `stat` of the name answers that and gives the size: the open
        // file's identity was noted when it was opened.
        let current = rustix::fs::statat(
            dir.as_ref(),
            LOG_FILE,
            rustix::fs::AtFlags::SYMLINK_NOFOLLOW,
        )
        .ok();
        let identity = |st: &rustix::fs::Stat| (st.st_dev, st.st_ino);
        let size = match (&current, cached.as_ref()) {
            (Some(st), Some(log)) if log.identity == identity(st) => {
                u64::try_from(st.st_size).unwrap_or(0)
            }
            _ => {
                let log = AuditLog::open(open()?, &log_path)?;
                let size = log.size;
                *cached = Some(log);
                size
            }
        };
        let Some(log) = cached.as_mut() else {
            return Ok(());
        };
        if size > 0 && size + lines.len() as u64 > MAX_LOG_BYTES {
            rustix::fs::renameat(dir.as_ref(), LOG_FILE, dir.as_ref(), PREVIOUS_LOG_FILE)
                .map_err(|e| files::at_path(&log_path, "rotate", e))?;
            *log = AuditLog::open(open()?, &log_path)?;
        }
        let file = &mut log.file;
        std::io::Write::write_all(file, lines).map_err(|e| files::at_path(&log_path, "write", e))
    }

    /// The audit log of session `id` under `state_root`, oldest line
    /// first (the rotated file, then the current one); `None` when the
    /// session has none. Nothing is created.
    pub fn read_audit(state_root: &Path, id: &str) -> io::Result<Option<Vec<u8>>> {
        use crate::audit::{LOG_FILE, PREVIOUS_LOG_FILE};
        use rustix::fs::OFlags;
        let sessions_path = state_root.join("sessions");
        let path = sessions_path.join(encode_id(id));
        if std::fs::symlink_metadata(&path).is_err() {
            return Ok(None);
        }
        let root = files::open_root(state_root)?;
        let sessions = files::private_subdir(&root, "sessions", &sessions_path)?;
        let dir = files::private_subdir(&sessions, &encode_id(id), &path)?;
        let mut out = Vec::new();
        let mut found = false;
        for name in [PREVIOUS_LOG_FILE, LOG_FILE] {
            match files::open_regular(&dir, name, &path.join(name), OFlags::RDONLY) {
                Ok(mut f) => {
                    found = true;
                    std::io::Read::read_to_end(&mut f, &mut out)
                        .map_err(|e| files::at_path(&path.join(name), "read", e))?;
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        Ok(found.then_some(out))
    }

    /// The ids of the sessions under `state_root` that have an audit log,
    /// with the log's last modification.
    pub fn audited(state_root: &Path) -> io::Result<Vec<(String, std::time::SystemTime)>> {
        let sessions = state_root.join("sessions");
        let listing = match std::fs::read_dir(&sessions) {
            Ok(l) => l,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(files::at_path(&sessions, "list", e)),
        };
        let mut out = Vec::new();
        for entry in listing.flatten() {
            let log = entry.path().join(crate::audit::LOG_FILE);
            let Ok(meta) = std::fs::symlink_metadata(&log) else {
                continue;
            };
            // The id as the log's first record says it: a directory name
            // may be a hash of a long id.
            if meta.is_file()
                && let Some(id) = first_session(&log)
            {
                out.push((id, meta.modified().unwrap_or(std::time::UNIX_EPOCH)));
            }
        }
        out.sort_by_key(|entry| entry.1);
        Ok(out)
    }

    /// The error of an unusable session.
    fn unusable(kind: io::ErrorKind, why: &str) -> io::Error {
        io::Error::new(kind, format!("the session state is unusable: {why}"))
    }

    /// A private (0700) directory for `name` inside the session directory,
    /// created on first use (never through a symbolic link). `None` for an
    /// in-memory session.
    pub(crate) fn private_dir(&self, name: &str) -> io::Result<Option<PathBuf>> {
        match &self.store {
            Store::Memory(_) => Ok(None),
            Store::Unusable { kind, why, .. } => Err(Session::unusable(*kind, why)),
            Store::Disk { path, dir } => {
                let name = encode_id(name);
                let sub = path.join(&name);
                files::private_subdir(dir.as_ref(), &name, &sub)?;
                // Handed to hooks, which run elsewhere: a relative state
                // directory must not make it relative.
                Ok(Some(std::path::absolute(&sub).unwrap_or(sub)))
            }
        }
    }

    /// The bytes of the session's own file `name` (a plain name of
    /// latch's, next to `state.json`; at most 8 MiB), `None` when it does
    /// not exist or the session is in memory.
    pub(crate) fn read_file(&self, name: &str) -> io::Result<Option<Vec<u8>>> {
        match &self.store {
            Store::Memory(_) => Ok(None),
            Store::Unusable { kind, why, .. } => Err(Session::unusable(*kind, why)),
            Store::Disk { path, dir } => files::read_file_bytes(dir.as_ref(), path, name),
        }
    }

    /// Replaces the session's own file `name` with `bytes`, durably, or
    /// removes it (`None`). Nothing for a session in memory. Without the
    /// session's lock: a file that one writer replaces whole.
    pub(crate) fn write_file(&self, name: &str, bytes: Option<&[u8]>) -> io::Result<()> {
        match &self.store {
            Store::Memory(_) => Ok(()),
            Store::Unusable { kind, why, .. } => Err(Session::unusable(*kind, why)),
            Store::Disk { path, dir } => match bytes {
                Some(bytes) => files::write_file_bytes(dir.as_ref(), path, name, bytes),
                None => {
                    match rustix::fs::unlinkat(dir.as_ref(), name, rustix::fs::AtFlags::empty()) {
                        Ok(()) | Err(rustix::io::Errno::NOENT) => Ok(()),
                        Err(e) => Err(files::at_path(&path.join(name), "remove", e)),
                    }
                }
            },
        }
    }

    /// Raises (`true`) or lowers the session's flag `name`: on disk an
    /// empty file beside `state.json` (its name encoded as a session id
    /// is), in memory a value of the state. Lowering one costs one
    /// system call, so an event that usually has nothing to lower pays
    /// little. Without the session's lock.
    pub(crate) fn set_flag(&self, name: &str, up: bool) -> io::Result<()> {
        match &self.store {
            Store::Memory(state) => {
                let mut state = state
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                let key = format!("flag.{name}");
                if up {
                    state.values.insert(key, Value::Bool(true));
                } else {
                    state.values.remove(&key);
                }
                Ok(())
            }
            _ => self.write_file(&encode_id(name), up.then_some(&b""[..])),
        }
    }

    /// Whether the session's flag `name` is up (see [`Session::set_flag`]).
    pub(crate) fn flag(&self, name: &str) -> io::Result<bool> {
        match &self.store {
            Store::Memory(state) => Ok(state
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .values
                .contains_key(&format!("flag.{name}"))),
            Store::Unusable { kind, why, .. } => Err(Session::unusable(*kind, why)),
            Store::Disk { path, dir } => {
                let name = encode_id(name);
                let nofollow = rustix::fs::AtFlags::SYMLINK_NOFOLLOW;
                match rustix::fs::statat(dir.as_ref(), name.as_str(), nofollow) {
                    Ok(_) => Ok(true),
                    Err(rustix::io::Errno::NOENT) => Ok(false),
                    Err(e) => Err(files::at_path(&path.join(&name), "inspect", e)),
                }
            }
        }
    }

    /// Runs `f` under the session's exclusive lock (the one state updates
    /// take), without reading or writing the state: for the session's own
    /// files ([`Session::write_file`]). The wait is as for
    /// [`Session::update`]; a session in memory runs `f` at once.
    pub(crate) async fn locked<T>(&self, cancel: &Cancel, f: impl FnOnce() -> T) -> io::Result<T> {
        match &self.store {
            Store::Memory(_) => Ok(f()),
            Store::Unusable { kind, why, .. } => Err(Session::unusable(*kind, why)),
            Store::Disk { path, dir } => {
                let held = lock::acquire(dir.as_ref(), path, true, cancel).await?;
                let out = f();
                drop(held);
                Ok(out)
            }
        }
    }

    /// Reads the state, lets `f` change it, and stores it, atomically with
    /// respect to other processes updating the same session. The lock wait
    /// is bounded by [`LOCK_WAIT`] (then a `TimedOut` error) and ends at
    /// once when `cancel` fires (an `Interrupted` error).
    pub async fn update<T>(
        &self,
        cancel: &Cancel,
        f: impl FnOnce(&mut SessionState) -> T,
    ) -> io::Result<T> {
        self.try_update(cancel, |s| Ok(f(s))).await
    }

    /// Like [`Session::update`], but `f` may refuse: on `Err` nothing is
    /// written and the error is returned (an `InvalidData` one prefixed with
    /// the state file). When `f` changes nothing, nothing is written.
    pub async fn try_update<T>(
        &self,
        cancel: &Cancel,
        f: impl FnOnce(&mut SessionState) -> io::Result<T>,
    ) -> io::Result<T> {
        let (path, dir) = match &self.store {
            Store::Memory(m) => {
                let mut state = m
                    .lock()
                    .map_err(|_| io::Error::other("session state lock poisoned"))?;
                return f(&mut state);
            }
            Store::Unusable { kind, why, .. } => return Err(Session::unusable(*kind, why)),
            Store::Disk { path, dir } => (path, dir),
        };
        let held = lock::acquire(dir.as_ref(), path, true, cancel).await?;
        let before = {
            let (dir, path) = (Arc::clone(dir), path.clone());
            blocking(move || read_state(&dir, &path)).await?
        };
        let mut state = before.clone();
        let out = f(&mut state).map_err(|e| in_state_file(path, e))?;
        if state != before {
            let bytes = serde_json::to_vec_pretty(&state).map_err(io::Error::other)?;
            // A state latch could not read back would fail every later
            // event of the session: refuse to write it.
            if bytes.len() as u64 > MAX_STATE_BYTES {
                return Err(io::Error::new(
                    io::ErrorKind::FileTooLarge,
                    format!(
                        "{}: the session state would grow to {} bytes, past the {} MiB latch reads; it is left as it was",
                        path.display(),
                        bytes.len(),
                        MAX_STATE_BYTES >> 20
                    ),
                ));
            }
            let (dir, path) = (Arc::clone(dir), path.clone());
            // The lock moves along, so it is held until the rename is
            // durable even if this future is dropped meanwhile.
            blocking(move || {
                let written = files::write_state_bytes(dir.as_ref(), &path, &bytes);
                drop(held);
                written
            })
            .await?;
        }
        Ok(out)
    }

    /// A snapshot of the state, read under a shared lock (nothing is
    /// written); the wait is bounded and cancellable as for
    /// [`Session::update`].
    pub async fn snapshot(&self, cancel: &Cancel) -> io::Result<SessionState> {
        let (path, dir) = match &self.store {
            Store::Memory(m) => {
                return m
                    .lock()
                    .map(|s| s.clone())
                    .map_err(|_| io::Error::other("session state lock poisoned"));
            }
            Store::Unusable { kind, why, .. } => return Err(Session::unusable(*kind, why)),
            Store::Disk { path, dir } => (path, dir),
        };
        let held = lock::acquire(dir.as_ref(), path, false, cancel).await?;
        let (dir, path) = (Arc::clone(dir), path.clone());
        blocking(move || {
            let state = read_state(&dir, &path);
            drop(held);
            state
        })
        .await
    }
}

/// Runs blocking file work on tokio's blocking pool (inline outside a
/// runtime).
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> io::Result<T> + Send + 'static,
) -> io::Result<T> {
    if tokio::runtime::Handle::try_current().is_err() {
        return f();
    }
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| io::Error::other(format!("session state work failed: {e}")))?
}

/// Names the state file in a data error of a session update.
fn in_state_file(dir: &Path, e: io::Error) -> io::Error {
    if e.kind() == io::ErrorKind::InvalidData {
        io::Error::new(
            e.kind(),
            format!("{}: {e}", dir.join(files::STATE_FILE).display()),
        )
    } else {
        e
    }
}

/// The stored state; a missing file is the empty state; a corrupt, oversized
/// or non-regular one an error naming the file.
fn read_state(dir: &OwnedFd, path: &Path) -> io::Result<SessionState> {
    let Some(bytes) = files::read_state_bytes(dir, path)? else {
        return Ok(SessionState::default());
    };
    serde_json::from_slice(&bytes).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} is corrupt: {e}", path.join(files::STATE_FILE).display()),
        )
    })
}

/// Percent-encodes every byte outside `[A-Za-z0-9_-]`, so any session id
/// maps to one safe file name (no `/`, no `..`). A long id keeps a
/// readable prefix and gets a hash of the whole id, so the name stays far
/// below the file-name limit and distinct ids stay distinct.
pub(crate) fn encode_id(id: &str) -> String {
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

/// The `session` of the first record of the audit log at `log` (read
/// bounded, without following a link).
fn first_session(log: &Path) -> Option<String> {
    use std::io::{BufRead, Read};
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags((rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK).bits() as i32)
        .open(log)
        .ok()?;
    let mut line = String::new();
    std::io::BufReader::new(file.take(64 * 1024))
        .read_line(&mut line)
        .ok()?;
    let record: serde_json::Value = serde_json::from_str(&line).ok()?;
    record.get("session")?.as_str().map(str::to_owned)
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
    use std::fs;
    use std::os::unix::fs::{MetadataExt, PermissionsExt};

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

    #[tokio::test]
    async fn state_persists_and_directories_are_private() {
        let never = Cancel::never();
        let root = tempfile::tempdir().expect("tempdir");
        let s = Session::open(root.path(), "s/1").expect("open");
        s.update(&never, |st| st.set_counter("x", 3))
            .await
            .expect("update");
        let again = Session::open(root.path(), "s/1").expect("reopen");
        let snap = again.snapshot(&never).await.expect("snapshot");
        assert_eq!(snap.counter("x").expect("counter"), 3);
        for d in [
            root.path().join("sessions"),
            again.dir().expect("dir").to_path_buf(),
        ] {
            let mode = fs::metadata(&d).expect("meta").permissions().mode() & 0o777;
            assert_eq!(mode, 0o700, "{}", d.display());
        }
    }

    #[tokio::test]
    async fn an_update_that_changes_nothing_writes_nothing() {
        let never = Cancel::never();
        let root = tempfile::tempdir().expect("tempdir");
        let s = Session::open(root.path(), "s").expect("open");
        s.update(&never, |st| st.set_counter("x", 1))
            .await
            .expect("update");
        let file = s.dir().expect("dir").join("state.json");
        let before = fs::metadata(&file).expect("meta").ino();
        s.update(&never, |st| st.set_counter("x", 1))
            .await
            .expect("update");
        assert_eq!(fs::metadata(&file).expect("meta").ino(), before);
    }

    /// A state larger than latch reads back is never written: the update
    /// fails and the session keeps working.
    #[tokio::test]
    async fn an_update_past_the_size_latch_reads_is_refused() {
        let never = Cancel::never();
        let root = tempfile::tempdir().expect("tempdir");
        let s = Session::open(root.path(), "s").expect("open");
        s.update(&never, |st| st.set_counter("x", 1))
            .await
            .expect("update");
        let huge = "x".repeat(usize::try_from(MAX_STATE_BYTES).expect("fits") + 1);
        let refused = s
            .update(&never, |st| {
                st.values
                    .insert("big".into(), serde_json::Value::String(huge));
            })
            .await
            .expect_err("too large");
        assert_eq!(refused.kind(), io::ErrorKind::FileTooLarge);
        let snap = s.snapshot(&never).await.expect("still readable");
        assert_eq!(snap.counter("x").expect("counter"), 1);
        assert!(!snap.values.contains_key("big"));
    }

    #[test]
    fn a_mistyped_counter_is_an_error() {
        let mut st = SessionState::default();
        st.values.insert("c".into(), Value::from("7"));
        assert_eq!(
            st.counter("c").expect_err("string").kind(),
            io::ErrorKind::InvalidData
        );
        st.values.insert("c".into(), Value::from(-1));
        assert!(st.counter("c").is_err());
        assert_eq!(st.counter("missing").expect("unset"), 0);
    }
}
