//! Watching the configuration of `latch serve` and reloading it.
//!
//! Polling, not inotify: the files are few and small, polling works the
//! same on every file system (network mounts included) and needs no
//! dependency, and a reload every few hundred milliseconds at most is all a
//! harness needs. Each round takes a fingerprint of the watched paths
//! (every file's path, size, modification time and inode, found without
//! following symbolic links, at most [`MAX_ENTRIES`] entries and
//! [`MAX_DEPTH`] levels); a change that stays for [`SETTLE`] is reloaded,
//! in the configurations that watch a changed path.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use crate::Diagnostic;
use crate::config::files::Files;
use crate::dialect::lost_hooks;
use serde_json::json;

use super::setup::{Loaded, Setup, load};
use super::{Out, lock, rpc};

/// How often the watched paths are looked at.
pub const POLL: Duration = Duration::from_millis(250);

/// How long a change must stay before it is reloaded (an editor writes a
/// file in several steps).
pub const SETTLE: Duration = Duration::from_millis(200);

/// The longest a change is waited for to settle: one that goes on longer
/// (a log written every 100 ms) is reloaded as it stands.
pub const MAX_SETTLE: Duration = Duration::from_secs(2);

/// The most entries one fingerprint looks at below one watched path.
const MAX_ENTRIES: usize = 4096;

/// The most entries one fingerprint looks at in all: each round's cost
/// stays bounded however many paths are watched.
const MAX_TOTAL: usize = 4 * MAX_ENTRIES;

/// How deep below a watched directory it looks.
const MAX_DEPTH: usize = 6;

/// One file's facts: its length, modification time, inode and change
/// time. The change time is the kernel's (no one can set it), so an edit
/// that keeps the length and puts the modification time back (`cp -p`,
/// `tar x`, `touch -r`) still counts.
type Entry = (PathBuf, u64, Option<SystemTime>, u64, (i64, i64));

/// What the watched paths look like.
#[derive(Debug, PartialEq, Eq)]
pub struct Fingerprint(Vec<Entry>);

impl Fingerprint {
    /// The paths found in one fingerprint and not the other, or with
    /// other facts: what an edit between the two changed.
    fn changed_since(&self, before: &Fingerprint) -> BTreeSet<PathBuf> {
        let now: BTreeSet<&Entry> = self.0.iter().collect();
        let then: BTreeSet<&Entry> = before.0.iter().collect();
        now.symmetric_difference(&then)
            .map(|(path, ..)| path.clone())
            .collect()
    }
}

/// Takes the fingerprint of `roots`.
pub fn fingerprint(roots: &[PathBuf]) -> Fingerprint {
    let mut entries = Vec::new();
    for root in roots {
        walk(root, &mut entries);
    }
    entries.sort();
    Fingerprint(entries)
}

/// Adds the entries of one watched path, at most [`MAX_ENTRIES`] of them
/// (and [`MAX_TOTAL`] in all): each path has its own budget, so that a
/// large directory (a plugin's `node_modules`) cannot hide the others'
/// changes.
fn walk(root: &Path, entries: &mut Vec<Entry>) {
    let budget = (entries.len() + MAX_ENTRIES).min(MAX_TOTAL);
    let mut stack: Vec<(PathBuf, usize)> = vec![(root.to_path_buf(), 0)];
    while let Some((path, depth)) = stack.pop() {
        if entries.len() >= budget {
            break;
        }
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        entries.push(entry(&path, &meta));
        // A linked file (a dotfile manager's `settings.json`) changes at
        // its target: that is watched too, without following a linked
        // directory down.
        if meta.file_type().is_symlink()
            && let Ok(target) = std::fs::metadata(&path)
        {
            entries.push(entry(&path, &target));
        }
        if meta.is_dir()
            && depth < MAX_DEPTH
            && let Ok(dir) = std::fs::read_dir(&path)
        {
            for e in dir.flatten().take(MAX_ENTRIES) {
                stack.push((e.path(), depth + 1));
            }
        }
    }
}

/// The facts of `path`, whose metadata is `meta` (see [`Entry`]).
fn entry(path: &Path, meta: &std::fs::Metadata) -> Entry {
    use std::os::unix::fs::MetadataExt;
    (
        path.to_path_buf(),
        meta.len(),
        meta.modified().ok(),
        meta.ino(),
        (meta.ctime(), meta.ctime_nsec()),
    )
}

/// Watches `setup`'s configuration until the task is dropped: after each
/// settled change every loaded configuration that watches a changed path
/// is loaded again, and the harness gets `latch/diagnostics` for each. A
/// configuration whose reload has an error the loaded one does not have
/// is kept, and the notification says why. `before` is the fingerprint
/// of the settings directories taken before the first load: if they
/// changed since, they are reloaded at once, so an edit made while the
/// server started is not missed.
pub fn watch(setup: Arc<Setup>, out: Out, before: Fingerprint) -> impl Future<Output = ()> {
    // The baseline is taken now, before `initialize` answers: an edit the
    // harness makes once it has the answer is a change.
    let mut watched = roots(&setup);
    let mut last = fingerprint(&watched);
    // The working directories made since their load, already reloaded.
    let mut told = BTreeSet::new();
    // Changed while the first load read them: reload without waiting.
    let mut pending = fingerprint(&setup.config.watch_roots(None)) != before;
    // From then on, each look at the disk runs on tokio's blocking pool,
    // off the server's one thread: walking a plugin's `node_modules` or
    // loading every configuration again must not hold up the sessions'
    // events.
    async move {
        loop {
            if !pending {
                tokio::time::sleep(POLL).await;
            }
            // What changed since the last look: among the paths watched
            // then, and among those of each configuration loaded since,
            // against what they looked like before its load read them (an
            // edit made while it loaded, or before this look, is news).
            let (s, old, seen, mut was_told) =
                (setup.clone(), watched, last, std::mem::take(&mut told));
            let (now_watched, mut paths, baseline, now_told) = off_thread(move || {
                // Taken together (a load adds its configuration and its
                // fingerprint under the `engines` lock): a configuration
                // is watched from the round that compares its fingerprint.
                let (now_watched, fresh) = roots_and_fresh(&s);
                // A configuration loaded for a new directory widens the
                // watch: a new baseline, taken before the comparisons
                // below, so an edit is seen either by them or against it.
                let widened = (now_watched != old).then(|| fingerprint(&now_watched));
                let now_old = fingerprint(&old);
                let mut paths = now_old.changed_since(&seen);
                for (cwd, before) in fresh {
                    let now = fingerprint(&s.config.watch_roots(cwd.as_deref()));
                    paths.extend(now.changed_since(&before));
                }
                paths.extend(made_since(&s, &mut was_told));
                (now_watched, paths, widened.unwrap_or(now_old), was_told)
            })
            .await;
            told = now_told;
            watched = now_watched;
            last = baseline;
            let whole = std::mem::take(&mut pending);
            if paths.is_empty() && !whole {
                continue;
            }
            // Let the edit finish, but not for ever: a directory that
            // never stops changing (a log a plugin writes into) is
            // reloaded every `MAX_SETTLE` or so, and only a configuration
            // whose files changed is announced.
            let started = tokio::time::Instant::now();
            let mut settled = fingerprint_off_thread(&watched).await;
            while started.elapsed() < MAX_SETTLE {
                tokio::time::sleep(SETTLE).await;
                let again = fingerprint_off_thread(&watched).await;
                if again == settled {
                    break;
                }
                settled = again;
            }
            paths.extend(settled.changed_since(&last));
            last = settled;
            let paths = (!whole).then_some(paths);
            let (s, o) = (setup.clone(), out.clone());
            if let Err(why) = off_thread_caught(move || reload(&s, &o, paths.as_ref())).await {
                eprintln!(
                    "latch: error: reloading the configuration failed ({why}); the configuration loaded before stays"
                );
            }
        }
    }
}

/// [`fingerprint`] of `roots`, on tokio's blocking pool.
async fn fingerprint_off_thread(roots: &[PathBuf]) -> Fingerprint {
    let roots = roots.to_vec();
    off_thread(move || fingerprint(&roots)).await
}

/// Runs `f` on tokio's blocking pool and waits for it (a panic in `f`
/// goes on here, as if `f` had run here).
async fn off_thread<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    match tokio::task::spawn_blocking(f).await {
        Ok(r) => r,
        Err(e) => std::panic::resume_unwind(e.into_panic()),
    }
}

/// Runs `f` on tokio's blocking pool and waits for it; a panic in `f` (a
/// bug of latch's) is its message, for the caller to report: a load that
/// failed answers its request with an error, a reload that failed keeps
/// the configuration loaded before.
pub async fn off_thread_caught<R: Send + 'static>(
    f: impl FnOnce() -> R + Send + 'static,
) -> Result<R, String> {
    match tokio::task::spawn_blocking(f).await {
        Ok(r) => Ok(r),
        Err(e) if e.is_panic() => Err(crate::panic::message(&*e.into_panic())),
        Err(e) => Err(e.to_string()),
    }
}

/// [`roots`], and the configurations loaded since the last call with the
/// fingerprints taken before their loads ([`Setup::fresh`]), both at one
/// moment.
fn roots_and_fresh(setup: &Arc<Setup>) -> (Vec<PathBuf>, Vec<(Option<PathBuf>, Fingerprint)>) {
    let (roots, fresh) = {
        let engines = lock(&setup.engines);
        let fresh = std::mem::take(&mut *lock(&setup.fresh));
        (roots_among(setup, &engines), fresh)
    };
    // Sorted once the lock is free: the sort looks at the disk.
    (in_order(roots), fresh.into_iter().collect())
}

/// The paths to watch: the settings directories of every loaded
/// configuration, then whatever each loaded dialect read or looked for
/// outside them (a hooks file a plugin manifest names).
fn roots(setup: &Arc<Setup>) -> Vec<PathBuf> {
    let roots = roots_among(setup, &lock(&setup.engines));
    in_order(roots)
}

/// [`roots`] of the configurations `engines`, in no order.
fn roots_among(setup: &Setup, engines: &HashMap<Option<PathBuf>, Loaded>) -> Vec<PathBuf> {
    engines
        .iter()
        .flat_map(|(cwd, loaded)| roots_of(setup, cwd.as_deref(), loaded))
        .collect()
}

/// `roots` without repeats, in the order they are walked.
fn in_order(mut roots: Vec<PathBuf>) -> Vec<PathBuf> {
    roots.sort();
    roots.dedup();
    // The settings directories first, whole directories such as plugins
    // after: if the total budget runs out, it runs out there. (Cached: the
    // key stats the root, once each rather than at every comparison.)
    roots.sort_by_cached_key(|r| {
        let settings_dir = r
            .file_name()
            .is_some_and(|n| [".claude", ".poolside", ".agents"].iter().any(|d| n == *d));
        !settings_dir && r.is_dir()
    });
    roots
}

/// The paths whose changes can change the configuration loaded for
/// `cwd`: its settings directories, then whatever its dialects read or
/// looked for outside them (a hooks file a plugin manifest names).
fn roots_of(setup: &Setup, cwd: Option<&Path>, loaded: &Loaded) -> Vec<PathBuf> {
    let mut roots = setup.config.watch_roots(cwd);
    roots.extend(loaded.looked());
    roots
}

/// The working directories that were not directories when their
/// configuration loaded (peen took the project as the workspace) and are
/// now, each once (`told`): looked at, not walked, as a new directory
/// may be a busy checkout.
fn made_since(setup: &Setup, told: &mut BTreeSet<PathBuf>) -> BTreeSet<PathBuf> {
    let missing: BTreeSet<PathBuf> = lock(&setup.engines)
        .values()
        .filter_map(|loaded| loaded.missing_cwd.clone())
        .collect();
    // Told of once, until no configuration waits for it any more: one
    // loaded while it was gone again is told of its creation again.
    told.retain(|cwd| missing.contains(cwd));
    missing
        .into_iter()
        .filter(|cwd| cwd.is_dir() && told.insert(cwd.clone()))
        .collect()
}

/// Loads again every configuration that watches a path in `changed`
/// (all of them when it is `None`) and tells the harness. A file whose
/// new text has errors the loaded configuration did not have keeps the
/// text it had at the last load (or stays missing, if it was), and the
/// other files' changes apply; if that still leaves new errors (or an
/// error names no file), the configuration loaded before stays, whole.
pub fn reload(setup: &Setup, out: &Out, changed: Option<&BTreeSet<PathBuf>>) {
    let _whole = lock(&setup.loading);
    let keys: Vec<Option<PathBuf>> = lock(&setup.engines).keys().cloned().collect();
    // The files kept at their last good text after this round, for the
    // configurations loaded later.
    let mut still_kept = Files::new();
    // The files the configurations reloaded this round read, and those the
    // others (left as they are, or kept whole) read.
    let (mut reloaded_reads, mut unchanged_reads) = (BTreeSet::new(), BTreeSet::new());
    // Applied together at the end, and only then announced: an event that
    // follows a notice sees every configuration reloaded, not some.
    let mut updates = Vec::new();
    let mut notices = Vec::new();
    for cwd in keys {
        let Some(old) = lock(&setup.engines).get(&cwd).cloned() else {
            continue;
        };
        // A configuration none of whose paths changed stays as it is,
        // without a notice: an edit in one directory is news to the
        // configurations that read it only.
        if let Some(changed) = changed {
            let roots = roots_of(setup, cwd.as_deref(), &old);
            if !changed.iter().any(|path| {
                roots.iter().any(|root| path.starts_with(root))
                    || old.missing_cwd.as_ref() == Some(path)
            }) {
                unchanged_reads.extend(old.files.keys().cloned());
                continue;
            }
        }
        // What cost hooks (an error, or a file peen skipped with only a
        // warning: its guards would be gone all the same).
        let before: Vec<Diagnostic> = old
            .engine
            .diagnostics()
            .filter(|d| lost_hooks(d))
            .cloned()
            .collect();
        let new_errors = |diagnostics: &[Diagnostic]| -> Vec<Diagnostic> {
            diagnostics
                .iter()
                .filter(|d| lost_hooks(d) && !before.contains(d))
                .cloned()
                .collect()
        };
        let (fresh, mut diagnostics) = load(setup, out, cwd.as_deref(), Files::new());
        // Nothing it reads changed (a log written in a watched directory,
        // a hook's script edited, an edit undone): it stays as it is,
        // without a notice. An explicit reload (`changed` is `None`) is
        // always announced.
        if changed.is_some() && old.unchanged_by(&fresh) {
            unchanged_reads.extend(old.files.keys().cloned());
            continue;
        }
        let broken = new_errors(&diagnostics);
        let mut kept: BTreeSet<PathBuf> = BTreeSet::new();
        // Why `kept` is kept (see [`kept_reason`]), set with it.
        let mut kept_why = None;
        let mut refusal = Refusal {
            seen: fresh.seen.clone(),
            ..Refusal::default()
        };
        let applied = if broken.is_empty() {
            Some(fresh)
        } else {
            // The files with new errors, each back at its last good text.
            let files: Option<BTreeSet<PathBuf>> = broken.iter().map(|d| d.file.clone()).collect();
            files.and_then(|files| {
                let replace: Files = files
                    .iter()
                    .map(|f| (f.clone(), old.files.get(f).cloned()))
                    .collect();
                let (patched, patched_diagnostics) =
                    load(setup, out, cwd.as_deref(), replace.clone());
                // What the disk showed, for the next round to compare.
                let patched = patched.seeing_as(&fresh, &replace);
                kept_why = Some(kept_reason(&files, &patched_diagnostics));
                kept = files;
                let errors = new_errors(&patched_diagnostics);
                if !errors.is_empty() {
                    refusal = Refusal {
                        seen: patched.seen.clone(),
                        only_kept_read: patched.only_kept_read.clone(),
                        errors,
                    };
                    return None;
                }
                // A file kept as missing is read from disk by later loads,
                // so its errors show there instead of a silent absence.
                still_kept.extend(replace.into_iter().filter(|(_, text)| text.is_some()));
                Some(patched)
            })
        };
        let (reloaded, reason) = match applied {
            Some(loaded) => {
                reloaded_reads.extend(old.files.keys().cloned());
                updates.push((cwd.clone(), loaded));
                (true, kept_why)
            }
            None => {
                // Kept whole: it holds the texts it was loaded from still,
                // and the next round compares against the disk as it is
                // now (this notice is not sent again).
                unchanged_reads.extend(old.files.keys().cloned());
                updates.push((
                    cwd.clone(),
                    Loaded {
                        seen: refusal.seen,
                        only_kept_read: refusal.only_kept_read,
                        ..old
                    },
                ));
                kept.clear();
                // The files with errors: on disk, and those only the
                // kept texts name (said in the diagnostics too, as the
                // load from disk did not read them).
                let mut files: Vec<PathBuf> = Vec::new();
                for file in broken
                    .iter()
                    .chain(&refusal.errors)
                    .filter_map(|d| d.file.clone())
                {
                    if !files.contains(&file) {
                        files.push(file);
                    }
                }
                for error in refusal.errors {
                    if !diagnostics.contains(&error) {
                        diagnostics.push(error);
                    }
                }
                let reason = if files.is_empty() {
                    "the configuration loaded before is kept: the new one has errors".to_owned()
                } else {
                    format!(
                        "the configuration loaded before is kept: the new one has errors in {}",
                        joined(files)
                    )
                };
                (false, Some(reason))
            }
        };
        notices.push(rpc::notification(
            "latch/diagnostics",
            &json!({"cwd": cwd, "first_load": false, "reloaded": reloaded, "reason": reason, "kept": kept, "diagnostics": diagnostics}),
        ));
    }
    // A kept file that only configurations left as they are read stays
    // kept, as they hold its last good text (the reloaded ones decided
    // anew above); one no loaded configuration reads any more is dropped.
    let carried: Files = lock(&setup.kept)
        .iter()
        .filter(|(file, _)| unchanged_reads.contains(*file) && !reloaded_reads.contains(*file))
        .map(|(file, text)| (file.clone(), text.clone()))
        .collect();
    still_kept.extend(carried);
    // Loaded from files that may have changed too: loaded anew when next
    // needed. Even after a quiet round: a session's own was loaded when
    // its event came, maybe from a text changed since and changed back
    // (an undo, a `git stash pop`) before this round looked.
    lock(&setup.sessions_own).clear();
    lock(&setup.engines).extend(updates);
    *lock(&setup.kept) = still_kept;
    for notice in notices {
        let _ = out.send(notice);
    }
}

/// What a reload that keeps the configuration loaded before whole leaves
/// for the next round: what that compares with (the disk as it is now,
/// and what only the refused load with kept texts read), and the errors
/// of that load that the disk's diagnostics do not show.
#[derive(Default)]
struct Refusal {
    seen: Option<Arc<super::setup::Seen>>,
    only_kept_read: Arc<Files>,
    errors: Vec<Diagnostic>,
}

/// The `reason` of a `latch/diagnostics` for configuration files kept at
/// their last good version. `diagnostics` are those of the load with the
/// kept texts: a file that was broken from the start has no good version,
/// and its kept text, with errors of its own, is named as such.
pub fn kept_reason<'a>(
    kept: impl IntoIterator<Item = &'a PathBuf>,
    diagnostics: &[Diagnostic],
) -> String {
    let (flawed, good): (Vec<&PathBuf>, Vec<&PathBuf>) = kept.into_iter().partition(|file| {
        diagnostics
            .iter()
            .any(|d| lost_hooks(d) && d.file.as_ref() == Some(*file))
    });
    let mut parts = Vec::new();
    if !good.is_empty() {
        parts.push(format!("the last good version of {} is kept", joined(good)));
    }
    if !flawed.is_empty() {
        parts.push(format!(
            "the version of {} loaded before, which has errors too, is kept",
            joined(flawed)
        ));
    }
    format!("{}: the new one has errors", parts.join("; "))
}

/// Paths for a message: `a, b`.
fn joined<P: AsRef<Path>>(paths: impl IntoIterator<Item = P>) -> String {
    paths
        .into_iter()
        .map(|p| p.as_ref().display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fingerprint_sees_edits_new_files_and_nothing_else() {
        let d = tempfile::tempdir().unwrap();
        let file = d.path().join("settings.json");
        std::fs::write(&file, "{}").unwrap();
        let roots = vec![d.path().to_path_buf(), d.path().join("missing")];
        let a = fingerprint(&roots);
        assert_eq!(a, fingerprint(&roots));
        std::fs::write(&file, "{\"hooks\": {}}").unwrap();
        let b = fingerprint(&roots);
        assert_ne!(a, b);
        std::fs::write(d.path().join("missing"), "").unwrap();
        assert_ne!(b, fingerprint(&roots));
    }
}
