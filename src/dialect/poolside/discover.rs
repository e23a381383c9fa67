//! Where poolside settings live, and in which order the levels combine.

use std::io;
use std::path::{Path, PathBuf};

use crate::diag::Diagnostic;

use super::DIALECT;
use super::load::Level;

/// A project's settings files, relative to the project: the project level,
/// then the local level.
pub const PROJECT_FILES: [&str; 2] = [".poolside/settings.yaml", ".poolside/settings.local.yaml"];

/// The user level's settings file under a home directory.
pub fn user_settings(home: &Path) -> PathBuf {
    home.join(".config/poolside/settings.yaml")
}

/// Where to look for settings. Every field is optional; a missing file at
/// a level is simply an empty level.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// The user's home directory: `<home>/.config/poolside/settings.yaml`.
    pub home: Option<PathBuf>,
    /// The project directory: `<project>/.poolside/settings.yaml` and
    /// `<project>/.poolside/settings.local.yaml`.
    pub project: Option<PathBuf>,
    /// An explicit settings file, the most specific level. Unlike the other
    /// levels, a missing file here is an error.
    pub settings: Option<PathBuf>,
}

/// One settings file that exists, with its text.
#[derive(Debug, Clone)]
pub struct Found {
    /// Its level.
    pub level: Level,
    /// Its path.
    pub path: PathBuf,
    /// Its contents.
    pub text: String,
}

impl Sources {
    /// The candidate paths, least specific first.
    pub(crate) fn candidates(&self) -> Vec<(Level, PathBuf)> {
        let mut out = Vec::new();
        if let Some(home) = &self.home {
            out.push((Level::User, user_settings(home)));
        }
        if let Some(project) = &self.project {
            let [shared, local] = PROJECT_FILES;
            out.push((Level::Project, project.join(shared)));
            out.push((Level::Local, project.join(local)));
        }
        if let Some(flag) = &self.settings {
            out.push((Level::Flag, flag.clone()));
        }
        out
    }

    /// Reads every settings file that exists, least specific first. A file
    /// that exists but cannot be read (or is not UTF-8) is a diagnostic.
    pub(crate) fn files(&self, diags: &mut Vec<Diagnostic>) -> Vec<Found> {
        let mut out = Vec::new();
        for (level, path) in self.candidates() {
            match crate::config::read_bounded(&path, crate::config::MAX_CONFIG_FILE) {
                Ok(bytes) => match String::from_utf8(bytes) {
                    Ok(text) => out.push(Found { level, path, text }),
                    Err(e) => diags.push(
                        Diagnostic::error(format!(
                            "settings file is not valid UTF-8 at {}; the file is skipped",
                            crate::config::utf8_place(&e)
                        ))
                        .in_file(&path)
                        .for_dialect(DIALECT),
                    ),
                },
                Err(e) if e.kind() == io::ErrorKind::NotFound && level != Level::Flag => {}
                Err(e) => diags.push(
                    Diagnostic::error(format!("cannot read settings file: {e}"))
                        .in_file(&path)
                        .for_dialect(DIALECT),
                ),
            }
        }
        out
    }
}
