//! What `initialize` sets up, and the configurations it loads: one per
//! working directory, cached, loaded off the server's thread, reloaded by
//! the watcher (see [`super::watch`]), and the ones a session that kept
//! its settings runs with.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::json;
use serde_json::value::RawValue;

use crate::cli::config::ConfigArgs;
use crate::config::files::Files;
use crate::dialect::claude::accepted::Accepted;
use crate::dialect::lost_hooks;
use crate::{Diagnostic, Engine, Event};

use super::flow::Out;
use super::rpc::{self, RequestId, code};
use super::{Server, lock, named, sessions, watch};

/// What `initialize` set up.
pub(super) struct Setup {
    pub(super) config: ConfigArgs,
    /// The project's directory ([`ConfigArgs::project_dir`]): events in it
    /// load what events with no working directory load, and share it.
    pub(super) project: Option<PathBuf>,
    pub(super) state_root: Option<PathBuf>,
    /// Loaded engines by the event's working directory (the peen dialect
    /// reads its workspace from it), keyed by [`Setup::key`].
    pub(super) engines: Mutex<HashMap<Option<PathBuf>, Loaded>>,
    /// The open sessions (see [`sessions`]).
    pub(super) sessions: Mutex<sessions::OpenSessions>,
    /// Held by each opening of a session not in `sessions`, on tokio's
    /// blocking pool: new sessions open one at a time, in the order their
    /// events came (see [`sessions::session_for`]).
    pub(super) opening: tokio::sync::Mutex<()>,
    /// The OpenTelemetry exporter, when the environment names an endpoint.
    pub(super) telemetry: Option<Arc<crate::telemetry::Telemetry>>,
    /// The files whose last good text stands in for a broken edit on disk
    /// (see [`watch`]): every configuration loaded from now on reads them
    /// so too, until an edit fixes them.
    pub(super) kept: Mutex<Files>,
    /// Held by each [`watch`] reload for its whole run, and by each load
    /// of a configuration not cached yet: a load sees a reload whole,
    /// never half done. Both run on tokio's blocking pool (but the first
    /// load, in `initialize`), so the server's thread never waits for it.
    pub(super) loading: Mutex<()>,
    /// The configurations loaded since the watcher last looked, each with
    /// what its settings directories looked like before its load read
    /// them (see [`watch`]): an edit made meanwhile is reloaded. Changed
    /// under the `engines` lock, so it names only cached configurations.
    pub(super) fresh: Mutex<HashMap<Option<PathBuf>, watch::Fingerprint>>,
    /// Engines loaded with the settings a session keeps (see [`Accepted`]),
    /// by working directory and a hash of those settings.
    pub(super) sessions_own: Mutex<HashMap<(Option<PathBuf>, u64), Loaded>>,
}

/// One loaded configuration: the engine, and the text of every
/// configuration file its load read (what a broken edit of one of them
/// falls back to).
#[derive(Clone)]
pub(super) struct Loaded {
    pub(super) engine: Arc<Engine>,
    pub(super) files: Arc<FileTexts>,
    /// Whether `files` name a ConfigChange hook (see [`Accepted`]), found
    /// once per load rather than once per event.
    pub(super) watches_config_change: bool,
    /// The working directory it was loaded for, when that was not a
    /// directory then (peen took the project as its workspace): looked at
    /// by the watcher, so that its creation loads the configuration again.
    pub(super) missing_cwd: Option<PathBuf>,
    /// What the disk showed the load of this configuration (not the last
    /// good texts of files it kept): a reload that sees the same changed
    /// nothing, and is not announced. `None` when that is not known (see
    /// [`Loaded::seeing_as`]).
    pub(super) seen: Option<Arc<Seen>>,
    /// The files it read, or looked for and did not find, that a load
    /// from disk did not look at: files only the last good text of a kept
    /// file names (a plugin manifest's hooks file), which `seen` cannot
    /// hold. With their texts as read (`None`: missing).
    pub(super) only_kept_read: Arc<Files>,
}

impl Loaded {
    /// Whether `fresh`, loaded from disk now, finds the disk as this
    /// configuration's load saw it (never when either is not known), and
    /// the files only this one read are as it read them.
    pub(super) fn unchanged_by(&self, fresh: &Loaded) -> bool {
        let same = matches!((&self.seen, &fresh.seen), (Some(a), Some(b)) if a == b);
        let still = |(path, text): (&PathBuf, &Option<Vec<u8>>)| match text {
            // Bounded by the text it had: a longer file changed.
            Some(text) => {
                crate::config::read_bounded(path, text.len() as u64).is_ok_and(|now| now == *text)
            }
            // As a load looks for a file.
            None => std::fs::symlink_metadata(path).is_err(),
        };
        same && self.only_kept_read.iter().all(still)
    }

    /// This configuration, loaded with the files of `replaced` read as
    /// given, with what the disk showed `disk` (the same configuration
    /// loaded from disk just before) as its own, if the two loads read the
    /// same of every other file; the files only this one read or looked
    /// for become [`Loaded::only_kept_read`]. If a file changed between
    /// the two loads, this configuration holds the newer text and `disk`
    /// the older: what it was loaded from is not known, and the next
    /// reload is news even if the disk is back to what `disk` saw.
    pub(super) fn seeing_as(self, disk: &Loaded, replaced: &Files) -> Loaded {
        let agreed = match (&self.seen, &disk.seen) {
            (Some(mine), Some(theirs)) => mine.agrees_but_for(theirs, replaced),
            _ => None,
        };
        let (seen, only_kept_read) = match agreed {
            Some(mut only_mine) => {
                let disk_looked = disk.looked();
                for path in self.looked() {
                    if !disk_looked.contains(&path) && !replaced.contains_key(&path) {
                        only_mine.entry(path).or_insert(None);
                    }
                }
                (disk.seen.clone(), only_mine)
            }
            None => (None, Files::new()),
        };
        Loaded {
            seen,
            only_kept_read: Arc::new(only_kept_read),
            ..self
        }
    }

    /// Every configuration path its load looked at (its dialects'
    /// `config_paths`).
    pub(super) fn looked(&self) -> BTreeSet<PathBuf> {
        self.engine
            .dialects()
            .flat_map(|d| d.config_paths())
            .collect()
    }
}

/// Everything a load depends on, as the disk gave it: every input of a
/// load but the server's own settings. Two loads that saw the same load
/// the same hooks, so a change on disk that leaves it as it was (a log
/// written in a watched directory, a hook's script edited) is no news.
#[derive(PartialEq)]
pub(super) struct Seen {
    /// The text of each configuration file read (a file looked for and
    /// missing is absent).
    files: Arc<FileTexts>,
    /// The load's diagnostics.
    diagnostics: Vec<Diagnostic>,
    /// [`Loaded::missing_cwd`].
    missing_cwd: Option<PathBuf>,
    /// The trust approvals, when a trust policy is on.
    approvals: Option<Result<crate::trust::Store, String>>,
}

impl Seen {
    /// Whether two loads read the same of every file but those of
    /// `replaced`, apart from files only `self` read: if so, those files,
    /// with their texts. A file only `other` read (gone before `self`
    /// looked) is a disagreement.
    fn agrees_but_for(&self, other: &Seen, replaced: &Files) -> Option<Files> {
        let mut only_mine = Files::new();
        for (file, text) in self.files.iter() {
            if replaced.contains_key(file) {
                continue;
            }
            match other.files.get(file) {
                Some(theirs) if theirs != text => return None,
                Some(_) => {}
                None => {
                    only_mine.insert(file.clone(), Some(text.clone()));
                }
            }
        }
        let only_theirs = other
            .files
            .keys()
            .any(|file| !replaced.contains_key(file) && !self.files.contains_key(file));
        (!only_theirs && self.missing_cwd == other.missing_cwd && self.approvals == other.approvals)
            .then_some(only_mine)
    }
}

/// Configuration files' texts, by path.
type FileTexts = std::collections::BTreeMap<PathBuf, Vec<u8>>;

impl Server {
    /// Answers `initialize`: reads the configuration `latch fire` takes as
    /// flags, loads the project's, and starts the watcher.
    pub(super) fn initialize(&mut self, id: &RequestId, params: &RawValue) -> String {
        if self.setup.is_some() {
            return rpc::error(id, code::INVALID_REQUEST, "already initialized");
        }
        let mut config: ConfigArgs = match params.get().trim_start().as_bytes().first() {
            Some(b'{') => match named(params) {
                Ok(c) => c,
                Err(e) => return rpc::error(id, code::INVALID_PARAMS, &e),
            },
            _ if params.get() == "null" => ConfigArgs::default(),
            _ => return rpc::error(id, code::INVALID_PARAMS, "params must be an object"),
        };
        config.named_as_keys = true;
        // `latch fire` has no way to name no dialect; here an empty list
        // would silently load the default ones.
        if serde_json::from_str::<serde_json::Value>(params.get()).is_ok_and(|p| {
            p.get("dialects")
                .is_some_and(|d| d.as_array().is_some_and(Vec::is_empty))
        }) {
            return rpc::error(
                id,
                code::INVALID_PARAMS,
                "invalid params: `dialects` is empty; name at least one, or leave it out for the default (poolside and peen, plus evener with plugin_dirs)",
            );
        }
        // As `latch fire` refuses them on its command line.
        if let Err(why) = config.check_values() {
            return rpc::error(id, code::INVALID_PARAMS, &format!("invalid params: {why}"));
        }
        let state_root = config
            .state_dir
            .clone()
            .or_else(crate::Session::default_state_root);
        let telemetry = match crate::telemetry::Telemetry::from_env() {
            Ok(t) => t.map(Arc::new),
            Err(e) => {
                eprintln!("latch: warning: {e}; no spans are sent");
                None
            }
        };
        let setup = Arc::new(Setup {
            project: config.project_dir(),
            config,
            state_root,
            engines: Mutex::default(),
            sessions_own: Mutex::default(),
            sessions: Mutex::default(),
            opening: tokio::sync::Mutex::default(),
            telemetry,
            kept: Mutex::default(),
            loading: Mutex::default(),
            fresh: Mutex::default(),
        });
        // What the settings looked like before they were read: an edit
        // made while they load, or before the watch starts, is reloaded.
        let before = watch::fingerprint(&setup.config.watch_roots(None));
        // The project's configuration, the first one: loaded here, before
        // the answer (no reload can be in progress yet).
        let (loaded, diagnostics) = loaded_for(&setup, &self.out, None);
        let engine = loaded.engine;
        self.watcher = Some(tokio::spawn(watch::watch(
            setup.clone(),
            self.out.clone(),
            before,
        )));
        self.setup = Some(setup);
        let dialects: Vec<&str> = engine.dialects().map(|d| d.name()).collect();
        rpc::result(
            id,
            &json!({
                "server": {"name": "latch", "version": env!("CARGO_PKG_VERSION")},
                "dialects": dialects,
                "diagnostics": diagnostics,
            }),
        )
    }
}

/// The most configurations kept loaded (one per working directory).
const MAX_ENGINES: usize = 64;

impl Setup {
    /// The key of the configuration for events in `cwd`: the project's
    /// directory loads what no working directory loads (only a peen
    /// workspace depends on it, and it falls back to the project), so the
    /// two share one configuration, one reload and one notice. Paths are
    /// compared by their components (`/p/`, `/p/.` and `/p` are one key,
    /// as they are one directory); a path through a symbolic link is
    /// another key (resolving links would cost every event a lookup).
    fn key(&self, cwd: Option<PathBuf>) -> Option<PathBuf> {
        cwd.filter(|d| self.project.as_ref().is_none_or(|p| p != d))
    }
}

/// The configuration loaded for events in `cwd`, if it is cached.
pub(super) fn cached(setup: &Setup, cwd: &Option<PathBuf>) -> Option<Loaded> {
    lock(&setup.engines).get(&setup.key(cwd.clone())).cloned()
}

/// [`loaded_for`] from a task, without holding up the server's thread: a
/// configuration not cached yet is loaded on tokio's blocking pool, where
/// it may wait for a reload in progress ([`Setup::loading`]). An error is
/// the response to the request that needed it: the load failed (a bug of
/// latch's).
pub(super) async fn loaded_off_thread(
    setup: &Arc<Setup>,
    out: &Out,
    cwd: Option<PathBuf>,
    id: &RequestId,
) -> Result<Loaded, String> {
    if let Some(loaded) = cached(setup, &cwd) {
        return Ok(loaded);
    }
    let (setup, out) = (setup.clone(), out.clone());
    watch::off_thread_caught(move || loaded_for(&setup, &out, cwd).0)
        .await
        .map_err(|why| load_failed(id, &why))
}

/// The response to a request whose configuration could not be loaded.
pub(super) fn load_failed(id: &RequestId, why: &str) -> String {
    rpc::error(
        id,
        code::INTERNAL_ERROR,
        &format!("loading the configuration failed: {why}"),
    )
}

/// The configuration for events in `cwd`, loaded the first time it is
/// needed, with the load's diagnostics (sent as `latch/diagnostics` when
/// it is not the first configuration) and the texts of the files it was
/// loaded from. Waits for a reload in progress when it must load.
fn loaded_for(setup: &Setup, out: &Out, cwd: Option<PathBuf>) -> (Loaded, Vec<Diagnostic>) {
    let key = setup.key(cwd);
    if let Some(loaded) = cached(setup, &key) {
        return (loaded, Vec::new());
    }
    let _loading = lock(&setup.loading);
    // Loaded meanwhile, by a reload this load waited for.
    if let Some(loaded) = cached(setup, &key) {
        return (loaded, Vec::new());
    }
    let before = watch::fingerprint(&setup.config.watch_roots(key.as_deref()));
    let (loaded, diags, kept, reason) = load_keeping(setup, out, key.as_deref());
    let answer = loaded.clone();
    let first = {
        let mut engines = lock(&setup.engines);
        let first = engines.is_empty();
        // A harness that moves through many directories does not grow the
        // cache without end: past the bound it starts again.
        let mut fresh = lock(&setup.fresh);
        if engines.len() >= MAX_ENGINES {
            engines.clear();
            fresh.clear();
            // Their files are watched no more either.
            lock(&setup.sessions_own).clear();
        }
        engines.insert(key.clone(), loaded);
        fresh.insert(key.clone(), before);
        first
    };
    if !first && (!diags.is_empty() || !kept.is_empty()) {
        let _ = out.send(rpc::notification(
            "latch/diagnostics",
            &json!({"cwd": key, "first_load": true, "reloaded": true, "reason": reason, "kept": kept, "diagnostics": diags}),
        ));
    }
    (answer, diags)
}

/// Loads the configuration for events in `cwd` from disk, but for the
/// files kept at their last good text ([`Setup::kept`]) that are still
/// broken there: those read as kept. Returns it, the diagnostics of the
/// files on disk (what the user has to fix), and the files read as kept
/// with the `reason` that says so (see [`watch::kept_reason`]).
///
/// A kept file that this load looks for and finds without an error, or
/// does not find, was fixed or removed while no loaded configuration read
/// it (its directory left the cache, so no reload saw it): it is kept no
/// more.
fn load_keeping(
    setup: &Setup,
    out: &Out,
    cwd: Option<&Path>,
) -> (Loaded, Vec<Diagnostic>, Vec<PathBuf>, Option<String>) {
    let (disk, diags) = load(setup, out, cwd, Files::new());
    let broken: BTreeSet<&PathBuf> = diags
        .iter()
        .filter(|d| lost_hooks(d))
        .filter_map(|d| d.file.as_ref())
        .collect();
    let looked = disk.looked();
    let replace: Files = {
        let mut kept = lock(&setup.kept);
        kept.retain(|file, _| broken.contains(file) || !looked.contains(file));
        kept.iter()
            .filter(|(file, _)| broken.contains(file))
            .map(|(file, text)| (file.clone(), text.clone()))
            .collect()
    };
    if replace.is_empty() {
        return (disk, diags, Vec::new(), None);
    }
    let (patched, patched_diags) = load(setup, out, cwd, replace.clone());
    let loaded = patched.seeing_as(&disk, &replace);
    let reason = watch::kept_reason(replace.keys(), &patched_diags);
    (loaded, diags, replace.into_keys().collect(), Some(reason))
}

/// Loads the configuration for events in `cwd`, with every diagnostic of
/// the load; the files of `replace` are read as given instead of from disk
/// (see [`crate::config::files`]).
pub(super) fn load(
    setup: &Setup,
    out: &Out,
    cwd: Option<&Path>,
    replace: Files,
) -> (Loaded, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let mut event = Event::new(crate::EventKind::SessionStart);
    event.cwd = cwd.map(Path::to_path_buf);
    // Looked at before the load: a directory made during it is then
    // reloaded once, never missed.
    let missing_cwd = cwd.filter(|d| !d.is_dir()).map(Path::to_path_buf);
    let (engine, files) = crate::config::files::load_with(replace, || {
        setup.config.clone().engine(&event, &mut diags)
    });
    // One thread serves every session: a burst of hooks, `async` ones
    // too, starts off it.
    let runner = crate::run::Runner {
        spawn_off_thread: true,
        ..crate::run::Runner::default()
    };
    let mut engine = engine.with_runner(runner);
    // Async hooks run on this server's runtime; their answers are kept in
    // the session's state and announced as they arrive.
    if let Some(root) = &setup.state_root {
        let notify = out.clone();
        engine = engine.with_background(
            crate::background::Tasks::new(root)
                .with_runner(runner)
                .with_listener(move |answer| {
                    for warning in &answer.warnings {
                        eprintln!("latch: warning: {}: {warning}", answer.hook);
                    }
                    let _ = notify.send(rpc::notification("latch/asyncResult", answer));
                }),
        );
    }
    if let Some(t) = &setup.telemetry {
        engine = engine.with_telemetry(t.clone());
    }
    diags.extend(engine.diagnostics().cloned());
    let files = Arc::new(files);
    let seen = Some(Arc::new(Seen {
        files: files.clone(),
        diagnostics: diags.clone(),
        missing_cwd: missing_cwd.clone(),
        approvals: engine
            .trust_gate()
            .map(|gate| gate.store().cloned().map_err(ToOwned::to_owned)),
    }));
    let loaded = Loaded {
        engine: Arc::new(engine),
        watches_config_change: crate::dialect::claude::accepted::watches_config_change(
            files
                .values()
                .map(Vec::as_slice)
                .chain(setup.config.inline_claude_settings().map(str::as_bytes)),
        ),
        files,
        missing_cwd,
        seen,
        only_kept_read: Arc::default(),
    };
    (loaded, diags)
}

/// The configuration for a session that keeps its settings (see
/// [`Accepted`]): the cached one `loaded` when it was read from the same
/// texts (the settings did not change since), else loaded afresh with
/// them, beside the files a broken edit kept (on tokio's blocking pool,
/// as [`loaded_off_thread`] loads; an error is the panic of a failed
/// load).
pub(super) async fn with_accepted(
    setup: &Arc<Setup>,
    out: &Out,
    event: &Event,
    accepted: &Accepted<'_>,
    loaded: Loaded,
) -> Result<Loaded, String> {
    let replace = accepted.replacements();
    let same = replace
        .iter()
        .all(|(path, text)| loaded.files.get(path).map(Vec::as_slice) == text.as_deref());
    if same {
        return Ok(loaded);
    }
    let key = {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        replace.hash(&mut hasher);
        (setup.key(event.cwd.clone()), hasher.finish())
    };
    if let Some(loaded) = lock(&setup.sessions_own).get(&key) {
        return Ok(loaded.clone());
    }
    let (setup, out) = (setup.clone(), out.clone());
    watch::off_thread_caught(move || {
        let _loading = lock(&setup.loading);
        let mut files = lock(&setup.kept).clone();
        files.extend(replace);
        let (loaded, _) = load(&setup, &out, key.0.as_deref(), files);
        let mut own = lock(&setup.sessions_own);
        // A few at most: sessions that rejected a change and wait for the
        // next one.
        if own.len() >= MAX_ENGINES {
            own.clear();
        }
        own.insert(key, loaded.clone());
        loaded
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A configuration loaded from `files` (path, text).
    fn loaded(files: &[(&Path, &str)]) -> Loaded {
        let files: Arc<FileTexts> = Arc::new(
            files
                .iter()
                .map(|(path, text)| (path.to_path_buf(), text.as_bytes().to_vec()))
                .collect(),
        );
        Loaded {
            engine: Arc::new(Engine::new()),
            files: files.clone(),
            watches_config_change: false,
            missing_cwd: None,
            seen: Some(Arc::new(Seen {
                files,
                diagnostics: Vec::new(),
                missing_cwd: None,
                approvals: None,
            })),
            only_kept_read: Arc::default(),
        }
    }

    #[test]
    fn a_patched_load_takes_what_the_disk_showed_only_if_the_files_both_read_agree() {
        let d = tempfile::tempdir().unwrap();
        let (a, b, c) = (d.path().join("a"), d.path().join("b"), d.path().join("c"));
        let disk = loaded(&[(&a, "broken"), (&b, "B1")]);
        let replaced = Files::from([(a.clone(), Some(b"good".to_vec()))]);
        // Read as kept, and the other file as the disk load read it: it
        // was loaded from what the disk showed.
        let patched = loaded(&[(&a, "good"), (&b, "B1")]).seeing_as(&disk, &replaced);
        assert!(patched.unchanged_by(&disk));
        // The other file changed between the two loads: not known, so even
        // a disk back at B1 is news next time.
        let torn = loaded(&[(&a, "good"), (&b, "B2")]).seeing_as(&disk, &replaced);
        assert!(torn.seen.is_none());
        assert!(!torn.unchanged_by(&disk));
        assert!(!torn.unchanged_by(&torn.clone()));
        // A file the load from disk read and the other did not find: gone
        // between the two, so not known either.
        let gone = loaded(&[(&a, "good")]).seeing_as(&disk, &replaced);
        assert!(gone.seen.is_none());
        // A file only the kept text names is read again from disk: no
        // news while it is as the load read it.
        std::fs::write(&c, "C1").unwrap();
        let more = loaded(&[(&a, "good"), (&b, "B1"), (&c, "C1")]).seeing_as(&disk, &replaced);
        assert!(more.seen.is_some());
        assert!(more.unchanged_by(&disk));
        std::fs::write(&c, "C2").unwrap();
        assert!(!more.unchanged_by(&disk), "edited");
        std::fs::write(&c, "C1 and more").unwrap();
        assert!(!more.unchanged_by(&disk), "grown");
        std::fs::remove_file(&c).unwrap();
        assert!(!more.unchanged_by(&disk), "removed");
    }
}
