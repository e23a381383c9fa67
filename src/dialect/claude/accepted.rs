//! A rejected configuration change keeps the settings the session had.
//!
//! Claude Code applies an edit of its settings files only when no
//! `ConfigChange` hook blocks it; otherwise it goes on with the settings it
//! had, though the file on disk keeps the edit (recorded:
//! `r3_config_change_exit2`, `r3_config_change_exit2_hook_added`: a hook
//! the edit added never runs). latch reads its configuration from disk, so
//! for a session it keeps, beside its state, what it needs to do the same:
//!
//! - the files as the session last accepted them (`claude-config-accepted.json`):
//!   taken at each `session_start`, at the first event that finds none, and
//!   when a `config_change` is let through, and only while a configuration
//!   file mentions `ConfigChange` (no hook can reject a change otherwise);
//! - the files whose change was rejected (`claude-config-pinned.json`),
//!   with the text the session goes on reading for each (`null`: the file
//!   did not exist). Every event of the session reads them so instead of
//!   from disk, until a `config_change` of the file is let through, or the
//!   session starts afresh (`session_start` from `startup` or `resume`,
//!   where Claude Code reads its settings anew).
//!
//! The `config_change` event itself runs with the file as last accepted:
//! its hooks are those of the settings in effect, not of the edit.
//!
//! `latch fire` and `latch serve` do this for every session on disk, with
//! the claude dialect loaded: [`Accepted::open`], then the load with
//! [`Accepted::replacements`] (see [`crate::config::files::load_with`]),
//! and after the dispatch [`Accepted::settle`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::config::files::Files;
use crate::event::{Event, EventKind};
use crate::outcome::{Decision, Outcome};
use crate::session::Session;

/// The files as the session last accepted them.
const ACCEPTED: &str = "claude-config-accepted.json";

/// The files whose change the session rejected.
const PINNED: &str = "claude-config-pinned.json";

/// The most text the accepted files may hold together: past it, none is
/// kept (a change of them then cannot be undone, with a warning).
const MAX_KEPT: usize = 4 << 20;

/// Configuration files by path: their text, or `None` for a file that did
/// not exist.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Texts {
    files: BTreeMap<PathBuf, Option<String>>,
}

/// What one session accepted and rejected of its configuration (see the
/// module docs).
#[derive(Debug)]
pub struct Accepted<'a> {
    session: &'a Session,
    pinned: Texts,
    /// The pins on disk are to go (the session starts afresh).
    dropped: bool,
}

impl<'a> Accepted<'a> {
    /// What `session` rejected so far, as `event` finds it (a fresh start
    /// drops it), with a warning if it could not be read.
    pub fn open(session: &'a Session, event: &Event) -> (Accepted<'a>, Option<String>) {
        let afresh = starts_afresh(event);
        let (pinned, warning) = if afresh {
            (None, None)
        } else {
            load(session, PINNED)
        };
        let accepted = Accepted {
            session,
            dropped: afresh,
            pinned: pinned.unwrap_or_default(),
        };
        (accepted, warning)
    }

    /// The files to read instead of the disk for `event`: the pinned ones,
    /// and for a `config_change`, its file as last accepted.
    pub fn replacements(&self, event: &Event) -> Files {
        let mut files: Files = self
            .pinned
            .files
            .iter()
            .map(|(path, text)| (path.clone(), text.clone().map(String::into_bytes)))
            .collect();
        if let Some(changed) = changed_file(event)
            && let (Some(accepted), _) = load(self.session, ACCEPTED)
        {
            let (path, text) = last_accepted(&accepted, &changed);
            files.insert(path, text.map(String::into_bytes));
        }
        files
    }

    /// After `event` was dispatched with the configuration files `loaded`
    /// (path → text, as the load read them): keeps what the session
    /// accepted, pins a file whose change was rejected, and lets go of a
    /// file whose change was let through. Returns warnings for the outcome.
    pub fn settle(
        mut self,
        event: &Event,
        outcome: &Outcome,
        loaded: &BTreeMap<PathBuf, Vec<u8>>,
    ) -> Vec<String> {
        let mut warnings = Vec::new();
        if self.dropped {
            warn(&mut warnings, self.session.write_file(PINNED, None));
        }
        let watched = !self.pinned.files.is_empty()
            || loaded
                .values()
                .any(|text| text.windows(12).any(|w| w == b"ConfigChange"));
        if let Some(changed) = changed_file(event) {
            let (accepted, warning) = load(self.session, ACCEPTED);
            warnings.extend(warning);
            if outcome.decision == Decision::Deny {
                let Some(accepted) = accepted else {
                    warnings.push(format!(
                        "the change of {} was rejected, but latch kept no earlier version of it (it keeps one from the session's start while a ConfigChange hook is configured); the change stays",
                        changed.display()
                    ));
                    return warnings;
                };
                let (path, text) = last_accepted(&accepted, &changed);
                self.pinned.files.insert(path, text);
                warn(&mut warnings, write(self.session, PINNED, &self.pinned));
            } else {
                let path = matching(self.pinned.files.keys(), &changed)
                    .or_else(|| accepted.as_ref().and_then(|a| matching(a.files.keys(), &changed)))
                    .unwrap_or(changed);
                if self.pinned.files.remove(&path).is_some() {
                    let pins = (!self.pinned.files.is_empty()).then_some(&self.pinned);
                    let written = match pins {
                        Some(pins) => write(self.session, PINNED, pins),
                        None => self.session.write_file(PINNED, None),
                    };
                    warn(&mut warnings, written);
                }
                if watched && let Some(mut accepted) = accepted {
                    // From now on, the file as it is on disk.
                    let now = crate::config::read_bounded_text(&path, crate::config::MAX_CONFIG_FILE)
                        .ok();
                    accepted.files.insert(path, now);
                    warn(&mut warnings, write(self.session, ACCEPTED, &accepted));
                }
            }
            return warnings;
        }
        if !watched {
            return warnings;
        }
        let start = event.event == EventKind::SessionStart;
        if start || load(self.session, ACCEPTED).0.is_none() {
            let files = loaded
                .iter()
                .filter_map(|(path, text)| {
                    let text = std::str::from_utf8(text).ok()?;
                    Some((path.clone(), Some(text.to_owned())))
                })
                .collect();
            warn(&mut warnings, write(self.session, ACCEPTED, &Texts { files }));
        }
        warnings
    }
}

/// Adds a failed write to `warnings`.
fn warn(warnings: &mut Vec<String>, result: std::io::Result<()>) {
    if let Err(e) = result {
        warnings.push(format!(
            "latch could not keep the session's configuration: {e}"
        ));
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
    if event.event != EventKind::ConfigChange || event.source.as_deref() == Some("policy_settings")
    {
        return None;
    }
    let path = event.file_path.as_ref()?;
    Some(match &event.cwd {
        Some(cwd) if path.is_relative() => cwd.join(path),
        _ => path.clone(),
    })
}

/// The key among `keys` that names the same file as `path`.
fn matching<'k>(keys: impl Iterator<Item = &'k PathBuf>, path: &Path) -> Option<PathBuf> {
    let wanted = std::path::absolute(path).ok()?;
    keys.into_iter()
        .find(|k| std::path::absolute(k).is_ok_and(|k| k == wanted))
        .cloned()
}

/// The file `path` as `accepted` holds it, under the key the load reads it
/// by: its text, or `None` if it was not among them (it did not exist).
fn last_accepted(accepted: &Texts, path: &Path) -> (PathBuf, Option<String>) {
    match matching(accepted.files.keys(), path) {
        Some(key) => {
            let text = accepted.files.get(&key).cloned().flatten();
            (key, text)
        }
        None => (path.to_path_buf(), None),
    }
}

/// Reads one of the session's files: `None` if there is none (or the
/// session is in memory), with a warning if it could not be read.
fn load(session: &Session, name: &str) -> (Option<Texts>, Option<String>) {
    match session.read_file(name) {
        Ok(Some(bytes)) => match serde_json::from_slice(&bytes) {
            Ok(texts) => (Some(texts), None),
            Err(e) => (
                None,
                Some(format!("latch ignored the session's {name}: {e}")),
            ),
        },
        Ok(None) => (None, None),
        Err(e) => (None, Some(format!("latch could not read the session's {name}: {e}"))),
    }
}

/// Writes one of the session's files; texts past [`MAX_KEPT`] are not
/// kept.
fn write(session: &Session, name: &str, texts: &Texts) -> std::io::Result<()> {
    let size: usize = texts.files.values().flatten().map(String::len).sum();
    if size > MAX_KEPT {
        return Err(std::io::Error::other(format!(
            "the configuration files hold {size} bytes, over the {} MiB latch keeps",
            MAX_KEPT >> 20
        )));
    }
    let bytes = serde_json::to_vec(texts).map_err(std::io::Error::other)?;
    session.write_file(name, Some(&bytes))
}
