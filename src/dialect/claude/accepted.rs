//! The settings a session has, which change only when its `ConfigChange`
//! hooks let a change through.
//!
//! Claude Code reads its settings files when a session starts, and applies
//! a later edit of one only when no `ConfigChange` hook blocks it; a
//! rejected edit stays on disk, but the session goes on with the settings
//! it had (recorded: `r3_config_change_exit2`,
//! `r3_config_change_exit2_hook_added`: a hook the edit added never runs;
//! `r3_config_change_hook_added`: one a change let through does). latch
//! reads its configuration from disk at every event, so for a session
//! whose settings have a `ConfigChange` hook it keeps the settings files
//! (user, project and local `.claude/settings*.json`) as the session has
//! them, beside its state (`claude-settings.json`), and reads them from
//! there:
//!
//! - taken from disk at the first event that finds none, and again when
//!   the session starts afresh (`session_start` from `startup` or `resume`,
//!   where Claude Code reads its settings anew);
//! - moved on for one file when a `config_change` of it is let through:
//!   to the file's text when the event came ([`Arrived`]: a server reads
//!   it on the request's arrival);
//! - dropped when neither a configuration file nor `--claude-settings`
//!   JSON text mentions `ConfigChange` any more.
//!
//! The `config_change` event itself runs with the settings the session
//! has, as Claude Code runs its hooks with the settings in effect.
//!
//! `latch fire` and `latch serve` do this for every session on disk, with
//! the claude dialect loaded: [`Accepted::open`] (a server:
//! [`Accepted::open_arrived`]), then the load with
//! [`Accepted::replacements`] (see [`crate::config::files::load_with`]),
//! and after the dispatch [`Accepted::settle`].

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::config::files::Files;
use crate::event::{Event, EventKind};
use crate::outcome::{Decision, Outcome};
use crate::run::Cancel;
use crate::session::Session;

/// The settings files as the session has them.
const KEPT: &str = "claude-settings.json";

/// The most the kept files may take, as written.
const MAX_KEPT: usize = 4 << 20;

/// Settings files by path: their text, or `None` for one that does not
/// exist.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
struct Texts {
    files: BTreeMap<PathBuf, Option<String>>,
}

/// The settings a session has (see the module docs), for one event.
#[derive(Debug)]
pub struct Accepted<'a> {
    session: &'a Session,
    /// The settings files as the session has them, if it keeps them.
    kept: Option<Texts>,
    /// The session starts afresh: what it kept goes.
    afresh: bool,
    /// For a `config_change`: the file's key among the kept ones, and its
    /// text on disk when the event came, kept if the change is let
    /// through.
    change: Option<(PathBuf, Option<String>)>,
    warnings: Vec<String>,
    /// Why the kept settings could not be read, if they could not.
    unreadable: Option<String>,
}

/// A `config_change` event's settings file as it was when the event
/// arrived. A server reads it then, before the event waits for the
/// session's earlier ones: an edit made meanwhile is the next event's.
#[derive(Debug)]
pub struct Arrived {
    /// The file with its directory resolved (see [`resolved`]): the text
    /// stands for the kept file of the same place only.
    at: PathBuf,
    /// The text (`None`: no such file), or why it could not be read.
    text: std::io::Result<Option<String>>,
}

impl Arrived {
    /// The file of `event` as it is now, when `event` is a `config_change`
    /// of a file named as Claude Code's settings files are (its directory
    /// may be reached through a link of another name).
    pub fn read(event: &Event) -> Option<Arrived> {
        let path = changed_file(event).filter(|p| has_settings_name(p))?;
        Some(Arrived {
            at: resolved(&path)?,
            text: on_disk(&path),
        })
    }
}

impl<'a> Accepted<'a> {
    /// The settings `session` has, as `event` finds them, reading the
    /// file a `config_change` is about now.
    pub fn open(session: &'a Session, event: &Event) -> Accepted<'a> {
        Accepted::open_arrived(session, event, Arrived::read(event))
    }

    /// [`Accepted::open`] with the changed file as it was read on the
    /// event's arrival ([`Arrived::read`]).
    pub fn open_arrived(
        session: &'a Session,
        event: &Event,
        arrived: Option<Arrived>,
    ) -> Accepted<'a> {
        let afresh = starts_afresh(event);
        let mut warnings = Vec::new();
        let mut unreadable = None;
        let kept = if afresh {
            None
        } else {
            match session.read_file(KEPT) {
                Ok(Some(bytes)) => match serde_json::from_slice::<Texts>(&bytes) {
                    Ok(texts) => Some(texts),
                    Err(e) => {
                        warnings.push(format!("latch ignored the session's {KEPT}: {e}"));
                        None
                    }
                },
                Ok(None) => None,
                // Said only where it matters (see `settle`): an unusable
                // session says so anyway when a hook needs its state.
                Err(e) => {
                    unreadable = Some(format!("latch could not read the session's {KEPT}: {e}"));
                    None
                }
            }
        };
        let change = match (&kept, changed_file(event)) {
            (Some(kept), Some(changed)) => match matching(kept.files.keys(), &changed) {
                Some(key) => match arrived
                    .filter(|a| resolved(&key).is_some_and(|k| k == a.at))
                    .map_or_else(|| on_disk(&key), |a| a.text)
                {
                    Ok(now) => Some((key, now)),
                    Err(e) => {
                        warnings.push(format!(
                            "latch could not read {}, so the session keeps its settings: {e}",
                            key.display()
                        ));
                        None
                    }
                },
                // Not a file the session keeps: read from disk anyway.
                None if !is_settings_file(&changed) => None,
                None => {
                    warnings.push(format!(
                        "{} is not one of the session's settings files; latch keeps nothing of its change",
                        changed.display()
                    ));
                    None
                }
            },
            _ => None,
        };
        Accepted {
            session,
            kept,
            afresh,
            change,
            warnings,
            unreadable,
        }
    }

    /// The session whose settings these are.
    pub fn session(&self) -> &'a Session {
        self.session
    }

    /// The files to read instead of the disk: the settings files as the
    /// session has them.
    pub fn replacements(&self) -> Files {
        self.kept
            .iter()
            .flat_map(|k| &k.files)
            .map(|(path, text)| (path.clone(), text.clone().map(String::into_bytes)))
            .collect()
    }

    /// After `event` was dispatched, with configuration files that
    /// mention a ConfigChange hook or not (`loaded_watches`, from
    /// [`watches_config_change`] over the texts the load read) among the
    /// paths `looked` at (asked for only when needed):
    /// keeps the settings the session has, moves them on for a change let
    /// through, and leaves them for a change rejected. A dispatch that
    /// `cancel` cancelled changes nothing. Returns warnings for the
    /// outcome.
    pub async fn settle(
        self,
        event: &Event,
        outcome: &Outcome,
        loaded_watches: bool,
        looked: impl FnOnce() -> BTreeSet<PathBuf>,
        cancel: &Cancel,
    ) -> Vec<String> {
        let Accepted {
            session,
            kept,
            afresh,
            change,
            mut warnings,
            unreadable,
        } = self;
        if cancel.is_cancelled() {
            // A new start reads the settings anew, whatever its hooks did.
            if afresh {
                let _ = session.write_file(KEPT, None);
            }
            return warnings;
        }
        // The kept texts count too: an event whose load read other files
        // (another project) does not drop them.
        let watched = loaded_watches
            || watches_config_change(
                kept.iter()
                    .flat_map(|k| k.files.values().flatten())
                    .map(String::as_bytes),
            );
        if !watched {
            if kept.is_some() {
                warn(&mut warnings, session.write_file(KEPT, None));
            } else if afresh {
                // What an earlier start kept, if anything (a session that
                // cannot keep anything need not say so).
                let _ = session.write_file(KEPT, None);
            }
            return warnings;
        }
        warnings.extend(unreadable);
        // Settings files seen for the first time (the session's first
        // event, or a new project) count as they are.
        // Read from disk (a server's load may be older), and only those it
        // can read, or that do not exist: one it cannot read stays a disk
        // file, with the load's own error.
        let already = |p: &PathBuf| kept.as_ref().is_some_and(|k| k.files.contains_key(p));
        let seen: Vec<(PathBuf, Option<String>)> = looked()
            .into_iter()
            .filter(|p| is_settings_file(p) && !already(p))
            .filter_map(|path| on_disk(&path).ok().map(|text| (path, text)))
            .collect();
        let let_through = change.filter(|_| outcome.decision != Decision::Deny);
        let next = moved_on(kept.clone(), &seen, let_through.clone());
        if kept.as_ref() != Some(&next) {
            // Under the session's lock, from what is kept now: another
            // process of the session may have moved on another file.
            let merged = session
                .locked(cancel, || {
                    let now = if afresh {
                        Ok(None)
                    } else {
                        session.read_file(KEPT).map(|bytes| {
                            bytes.and_then(|b| serde_json::from_slice::<Texts>(&b).ok())
                        })
                    };
                    now.and_then(|now| {
                        let next = moved_on(now.clone(), &seen, let_through);
                        if now.as_ref() == Some(&next) {
                            Ok(())
                        } else {
                            write(session, &next)
                        }
                    })
                })
                .await;
            warn(&mut warnings, merged.and_then(|inner| inner));
        }
        if changed_file(event).is_some()
            && kept.is_none()
            && outcome.decision == Decision::Deny
            && session.dir().is_some()
        {
            warnings.push(
                "the change was rejected, but latch kept no earlier settings for the session (it keeps them from the session's first event while a ConfigChange hook is configured); the change stays".to_owned(),
            );
        }
        warnings
    }
}

/// `kept` (or nothing kept) with the settings files `seen` for the first
/// time added as they are, and a change let through applied.
fn moved_on(
    kept: Option<Texts>,
    seen: &[(PathBuf, Option<String>)],
    let_through: Option<(PathBuf, Option<String>)>,
) -> Texts {
    let mut next = kept.unwrap_or_default();
    for (path, text) in seen {
        next.files
            .entry(path.clone())
            .or_insert_with(|| text.clone());
    }
    if let Some((path, text)) = let_through {
        next.files.insert(path, text);
    }
    next
}

/// Whether any of these configuration files' texts names the
/// `ConfigChange` event. (Cheaper than loading: a file that does not name
/// it configures no hook for it.) It reads every byte, so a caller that
/// dispatches many events with one load asks once.
pub fn watches_config_change<'a>(texts: impl IntoIterator<Item = &'a [u8]>) -> bool {
    let mut texts = texts.into_iter().peekable();
    // No texts (a session that kept none, on every event): no searcher.
    if texts.peek().is_none() {
        return false;
    }
    let finder = memchr::memmem::Finder::new(b"ConfigChange");
    texts.any(|text| finder.find(text).is_some())
}

/// Whether `path` is a user, project or local settings file of Claude
/// Code's (`.claude/settings.json`, `.claude/settings.local.json`); not
/// managed settings, whose changes Claude Code applies anyway, nor plugin
/// hook files or `--settings`.
fn is_settings_file(path: &Path) -> bool {
    let in_claude = path
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|d| d == ".claude");
    in_claude && has_settings_name(path)
}

/// Whether `path` is named as a settings file of Claude Code's is, in
/// whatever directory.
fn has_settings_name(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str());
    matches!(name, Some("settings.json" | "settings.local.json"))
}

/// Adds a failed write to `warnings`.
fn warn(warnings: &mut Vec<String>, result: std::io::Result<()>) {
    if let Err(e) = result {
        warnings.push(format!("latch could not keep the session's settings: {e}"));
    }
}

/// Whether `event` starts the session in a new process, which reads its
/// settings anew: `session_start` from `startup` (the default) or
/// `resume`.
fn starts_afresh(event: &Event) -> bool {
    event.event == EventKind::SessionStart
        && matches!(event.source.as_deref(), None | Some("startup" | "resume"))
}

/// The file a `config_change` event is about, when a hook may reject its
/// change (not for managed policy, whose changes Claude Code applies
/// anyway). A relative path is taken from the event's `cwd`.
fn changed_file(event: &Event) -> Option<PathBuf> {
    if event.event != EventKind::ConfigChange || super::events::is_policy_change(event) {
        return None;
    }
    let path = event.file_path.as_ref()?;
    Some(match &event.cwd {
        Some(cwd) if path.is_relative() => cwd.join(path),
        _ => path.clone(),
    })
}

/// The key among `keys` that names the same file as `path`: the same
/// directory once its links and `..` are resolved, and the same name.
fn matching<'k>(keys: impl Iterator<Item = &'k PathBuf>, path: &Path) -> Option<PathBuf> {
    let wanted = resolved(path)?;
    keys.into_iter()
        .find(|k| resolved(k).is_some_and(|k| k == wanted))
        .cloned()
}

/// `path` with its directory resolved (the file itself may not exist);
/// for a directory that is gone, the path made absolute with its `.` and
/// `..` taken out.
fn resolved(path: &Path) -> Option<PathBuf> {
    match std::fs::canonicalize(path.parent()?) {
        Ok(dir) => Some(dir.join(path.file_name()?)),
        Err(_) => std::path::absolute(path)
            .ok()
            .map(|p| crate::config::normalize(&p)),
    }
}

/// A settings file's text on disk, read as the loader reads it
/// ([`super::discover::settings_text`]): `None` when it does not exist; an
/// error when it cannot be read.
fn on_disk(path: &Path) -> std::io::Result<Option<String>> {
    match crate::config::read_bounded(path, crate::config::MAX_CONFIG_FILE) {
        Ok(bytes) => Ok(Some(super::discover::settings_text(bytes).0)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Writes the kept settings, unless they are too large to keep.
fn write(session: &Session, texts: &Texts) -> std::io::Result<()> {
    let bytes = serde_json::to_vec(texts).map_err(std::io::Error::other)?;
    if bytes.len() > MAX_KEPT {
        // Nothing kept is better than a stale copy.
        session.write_file(KEPT, None)?;
        return Err(std::io::Error::other(format!(
            "the settings files take {} bytes, over the {} MiB latch keeps",
            bytes.len(),
            MAX_KEPT >> 20
        )));
    }
    session.write_file(KEPT, Some(&bytes))
}
