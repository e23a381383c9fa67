//! The trust store: the user's approvals, in `<state root>/trust/state.json`.
//!
//! The directory is private (0700) and reached without following links,
//! the file is replaced atomically (a temporary file, fsynced, renamed)
//! under an exclusive `flock`, exactly like session state (see
//! [`crate::session`]). A reader needs no lock: a rename is atomic.

use std::collections::BTreeMap;
use std::io;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use rustix::fs::{FlockOperation, OFlags};
use serde::{Deserialize, Serialize};

use super::Runs;
use crate::session::files;

/// One approved hook definition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Approval {
    /// The dialect that loads it.
    pub dialect: String,
    /// Its event, in the dialect's spelling.
    pub event: String,
    /// Its label when it was approved (for messages; not compared).
    pub hook: String,
    /// Its matcher as written, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matcher: Option<String>,
    /// What it runs.
    pub runs: Runs,
    /// SHA-256 (hex) of each script file its command names inside the
    /// project, by path.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub scripts: BTreeMap<PathBuf, String>,
    /// Its other settings that change what runs, by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub settings: BTreeMap<String, String>,
    /// When it was approved, in seconds since 1970.
    #[serde(default)]
    pub approved_at: u64,
}

impl Approval {
    /// Whether `other` approves the same definition (the label and the time
    /// do not count).
    pub fn same_definition(&self, other: &Approval) -> bool {
        self.dialect == other.dialect
            && self.event == other.event
            && self.matcher == other.matcher
            && self.runs == other.runs
            && self.scripts == other.scripts
            && self.settings == other.settings
    }
}

/// Every approval, by the configuration file that declares the hook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Store {
    /// The format's version.
    #[serde(default = "version")]
    pub version: u32,
    /// Approvals by source file (absolute path).
    #[serde(default)]
    pub files: BTreeMap<PathBuf, Vec<Approval>>,
}

fn version() -> u32 {
    1
}

impl Default for Store {
    fn default() -> Store {
        Store {
            version: version(),
            files: BTreeMap::new(),
        }
    }
}

/// The directory below the state root.
const DIR: &str = "trust";

impl Store {
    /// The approvals of `file`.
    pub fn approvals(&self, file: &Path) -> &[Approval] {
        self.files.get(file).map_or(&[], Vec::as_slice)
    }

    /// Reads the store under `state_root`: empty if there is none yet; an
    /// error if it cannot be read or is not a store (a corrupt file is
    /// never taken for an empty one).
    pub fn load(state_root: &Path) -> io::Result<Store> {
        let path = state_root.join(DIR);
        if !path.exists() && std::fs::symlink_metadata(&path).is_err() {
            return Ok(Store::default());
        }
        let root = files::open_root(state_root)?;
        let dir = files::private_subdir(&root, DIR, &path)?;
        Store::read(&dir, &path)
    }

    fn read(dir: &OwnedFd, path: &Path) -> io::Result<Store> {
        let Some(bytes) = files::read_state_bytes(dir, path)? else {
            return Ok(Store::default());
        };
        let file = path.join(files::STATE_FILE);
        let store: Store = serde_json::from_slice(&bytes).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{} is not a latch trust store: {e}; move it away to start over",
                    file.display()
                ),
            )
        })?;
        if store.version != 1 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{} has version {}, which this latch does not read",
                    file.display(),
                    store.version
                ),
            ));
        }
        Ok(store)
    }

    /// Changes the store under `state_root` with `f`, holding its lock
    /// from the read to the durable replace (blocking). Creates the state
    /// root and the store's directory (0700) if needed. A change that
    /// leaves the store as it was writes nothing.
    pub fn update<T>(state_root: &Path, f: impl FnOnce(&mut Store) -> T) -> io::Result<T> {
        let root = files::create_root(state_root)?;
        let path = state_root.join(DIR);
        let dir = files::private_subdir(&root, DIR, &path)?;
        let lock_path = path.join("lock");
        let lock = files::open_regular(&dir, "lock", &lock_path, OFlags::RDWR | OFlags::CREATE)?;
        loop {
            match rustix::fs::flock(&lock, FlockOperation::LockExclusive) {
                Ok(()) => break,
                Err(rustix::io::Errno::INTR) => continue,
                Err(e) => return Err(files::at_path(&lock_path, "lock", e)),
            }
        }
        let mut store = Store::read(&dir, &path)?;
        let before = store.clone();
        let out = f(&mut store);
        store.files.retain(|_, approvals| !approvals.is_empty());
        // A change that changed nothing (revoking what had no approval)
        // leaves the file alone: a watcher (`latch serve`) would take a
        // rewrite for an edit and reload for nothing.
        if store == before {
            return Ok(out);
        }
        let mut bytes = serde_json::to_vec_pretty(&store).map_err(io::Error::other)?;
        bytes.push(b'\n');
        files::write_state_bytes(&dir, &path, &bytes)?;
        drop(lock);
        Ok(out)
    }
}
