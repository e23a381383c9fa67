//! What a load read, and what it should read instead.
//!
//! A long-lived embedder (`latch serve`) that reloads configuration after
//! an edit wants two things the loaders do not know about: the text of
//! every configuration file the last good load read, and a way to load
//! again with one broken file replaced by its last good text, so that a
//! broken edit costs that file's change and not every other file's.
//! [`load_with`] gives both, for any dialect, because every configuration
//! file is read through [`super::read_bounded`].
//!
//! The scope is per thread: loading is synchronous, and a load started on
//! one thread reads on that thread only. Outside [`load_with`] nothing is
//! recorded or replaced.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::{Path, PathBuf};

/// Configuration files by path: their text, or `None` for a file that did
/// not exist.
pub type Files = BTreeMap<PathBuf, Option<Vec<u8>>>;

struct Scope {
    replace: Files,
    read: BTreeMap<PathBuf, Vec<u8>>,
}

thread_local! {
    static SCOPE: RefCell<Option<Scope>> = const { RefCell::new(None) };
    /// The open [`looking`] collectors, innermost last.
    static LOOKED: RefCell<Vec<BTreeSet<PathBuf>>> = const { RefCell::new(Vec::new()) };
}

/// Runs `load` and returns, with its result, every configuration path it
/// looked at: each one read through [`super::read_bounded`], found or not,
/// and each one whose [`presence`] it asked. That is what a loaded dialect
/// reports as its `config_paths`. Collectors nest: an outer one also gets
/// what an inner one saw, even when `load` panics.
pub fn looking<R>(load: impl FnOnce() -> R) -> (R, BTreeSet<PathBuf>) {
    /// Closes the collector if `load` unwinds.
    struct Close {
        closed: bool,
    }
    impl Drop for Close {
        fn drop(&mut self) {
            if !self.closed {
                close();
            }
        }
    }
    /// Pops the innermost collector, hands what it saw to the outer one
    /// and returns it.
    fn close() -> BTreeSet<PathBuf> {
        LOOKED.with(|l| {
            let mut open = l.borrow_mut();
            let mine = open.pop().unwrap_or_default();
            if let Some(outer) = open.last_mut() {
                outer.extend(mine.iter().cloned());
            }
            mine
        })
    }
    LOOKED.with(|l| l.borrow_mut().push(BTreeSet::new()));
    let mut guard = Close { closed: false };
    let result = load();
    guard.closed = true;
    (result, close())
}

/// Notes that a load looked at `path`, for the open [`looking`] collector.
pub(super) fn looked_at(path: &Path) {
    LOOKED.with(|l| {
        if let Some(top) = l.borrow_mut().last_mut()
            && !top.contains(path)
        {
            top.insert(path.to_path_buf());
        }
    });
}

/// Runs `load` with the files of `replace` read as given instead of from
/// disk (`None`: as if missing), and returns its result with the text of
/// every file it read (replaced ones included). Scopes do not nest: an
/// inner call sees only its own.
pub fn load_with<R>(replace: Files, load: impl FnOnce() -> R) -> (R, BTreeMap<PathBuf, Vec<u8>>) {
    /// Puts the outer scope back, even if `load` panics.
    struct Restore(Option<Scope>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let outer = self.0.take();
            SCOPE.with(|s| *s.borrow_mut() = outer);
        }
    }
    let scope = Scope {
        replace,
        read: BTreeMap::new(),
    };
    let restore = Restore(SCOPE.with(|s| s.borrow_mut().replace(scope)));
    let result = load();
    let read = SCOPE
        .with(|s| s.borrow_mut().take())
        .map(|scope| scope.read)
        .unwrap_or_default();
    drop(restore);
    (result, read)
}

/// The replacement for `path` in the current scope, if any.
pub(super) fn replaced(path: &Path) -> Option<io::Result<Vec<u8>>> {
    SCOPE.with(|s| {
        let mut scope = s.borrow_mut();
        let scope = scope.as_mut()?;
        let text = scope.replace.get(path)?.clone();
        Some(match text {
            Some(bytes) => {
                scope.read.insert(path.to_path_buf(), bytes.clone());
                Ok(bytes)
            }
            None => Err(io::Error::from(io::ErrorKind::NotFound)),
        })
    })
}

/// Whether the current scope decides that `path` exists: `Some(false)`
/// for a file replaced as missing, `Some(true)` for one replaced by a
/// text, `None` otherwise (ask the disk). Loaders that look before they
/// read ask this first.
pub fn presence(path: &Path) -> Option<bool> {
    looked_at(path);
    SCOPE.with(|s| {
        let scope = s.borrow();
        scope.as_ref()?.replace.get(path).map(Option::is_some)
    })
}

/// Notes that `path` was read, in the current scope.
pub(super) fn record(path: &Path, bytes: &[u8]) {
    SCOPE.with(|s| {
        if let Some(scope) = s.borrow_mut().as_mut() {
            scope.read.insert(path.to_path_buf(), bytes.to_vec());
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_recorded_and_replaced_only_inside_the_scope() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        let b = dir.path().join("b");
        std::fs::write(&a, "disk a").unwrap();
        std::fs::write(&b, "disk b").unwrap();
        let replace = Files::from([
            (a.clone(), Some(b"kept a".to_vec())),
            (dir.path().join("gone"), None),
        ]);
        let ((ra, rb, gone), read) = load_with(replace, || {
            (
                super::super::read_bounded(&a, 100).unwrap(),
                super::super::read_bounded(&b, 100).unwrap(),
                super::super::read_bounded(&dir.path().join("gone"), 100).unwrap_err(),
            )
        });
        assert_eq!(ra, b"kept a");
        assert_eq!(rb, b"disk b");
        assert_eq!(gone.kind(), io::ErrorKind::NotFound);
        assert_eq!(read.len(), 2);
        assert_eq!(read[&a], b"kept a");
        assert_eq!(read[&b], b"disk b");
        // Outside the scope: the disk, and nothing recorded.
        assert_eq!(super::super::read_bounded(&a, 100).unwrap(), b"disk a");
    }

    #[test]
    fn looking_collects_what_a_load_tried_nested_and_through_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let here = dir.path().join("here");
        let missing = dir.path().join("missing");
        let inner_only = dir.path().join("inner");
        std::fs::write(&here, "x").unwrap();
        let ((), outer) = looking(|| {
            let _ = super::super::read_bounded(&here, 10);
            let _ = super::super::read_bounded(&missing, 10);
            let ((), inner) = looking(|| {
                let _ = presence(&inner_only);
            });
            assert_eq!(inner, BTreeSet::from([inner_only.clone()]));
            // A load that panics still hands what it looked at outward.
            let caught = std::panic::catch_unwind(|| {
                looking(|| {
                    let _ = super::super::read_bounded(&dir.path().join("boom"), 10);
                    panic!("a bug in a loader")
                })
            });
            assert!(caught.is_err());
        });
        assert_eq!(
            outer,
            BTreeSet::from([
                here.clone(),
                missing.clone(),
                inner_only.clone(),
                dir.path().join("boom"),
            ])
        );
        // Outside any collector nothing is kept.
        let ((), after) = looking(|| {});
        assert!(after.is_empty());
    }
}
