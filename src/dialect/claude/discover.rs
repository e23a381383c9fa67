//! Which files the claude dialect reads, in configuration order: user,
//! project, local, the `--claude-settings` file or JSON text, managed
//! settings (`managed-settings.json`, then `managed-settings.d/*.json` in
//! name order), then each plugin's hooks.
//!
//! Hook arrays from every source are concatenated in that order. Claude
//! Code runs every matching handler at once, so the order only decides
//! which copy of a duplicate runs, which `updatedInput` wins (latch: the
//! last in this order) and the order of records.

use std::path::{Path, PathBuf};

use crate::config::{normalize, read_bounded_text};
use crate::diag::Diagnostic;

use super::DIALECT;
use super::load::{LoadedFile, PluginInfo, Scope, load_text};

/// The largest configuration file latch reads.
const MAX_FILE: u64 = 8 << 20;

/// Where Claude Code's managed settings live on Linux.
pub const MANAGED_DIR: &str = "/etc/claude-code";

/// Where to look.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// The user's home (`~/.claude/settings.json`).
    pub home: Option<PathBuf>,
    /// The project (`.claude/settings.json`, `.claude/settings.local.json`).
    pub project: Option<PathBuf>,
    /// The managed settings directory; `None` for `/etc/claude-code`.
    pub managed_dir: Option<PathBuf>,
    /// Claude Code's `--settings`: a file, or JSON text starting with `{`.
    pub settings: Option<String>,
    /// Plugin directories, in order.
    pub plugin_dirs: Vec<PathBuf>,
}

impl Sources {
    /// The directories [`Sources::load`] lists rather than reads: the
    /// managed drop-in directory and each plugin directory.
    pub(crate) fn watched_dirs(&self) -> Vec<PathBuf> {
        let managed = self
            .managed_dir
            .clone()
            .unwrap_or_else(|| PathBuf::from(MANAGED_DIR));
        let mut out = vec![managed.join("managed-settings.d")];
        out.extend(self.plugin_dirs.iter().cloned());
        out
    }

    /// Reads and loads every file that exists, in configuration order.
    pub(crate) fn load(&self, diags: &mut Vec<Diagnostic>) -> Vec<LoadedFile> {
        let mut out = Vec::new();
        let file = |out: &mut Vec<LoadedFile>,
                    path: PathBuf,
                    scope: Scope,
                    required: bool,
                    diags: &mut Vec<Diagnostic>| {
            if let Some(f) = read_and_load(&path, scope, None, required, diags) {
                out.push(f);
            }
        };
        if let Some(home) = &self.home {
            file(
                &mut out,
                home.join(".claude/settings.json"),
                Scope::User,
                false,
                diags,
            );
        }
        if let Some(project) = &self.project {
            file(
                &mut out,
                project.join(".claude/settings.json"),
                Scope::Project,
                false,
                diags,
            );
            file(
                &mut out,
                project.join(".claude/settings.local.json"),
                Scope::Local,
                false,
                diags,
            );
        }
        match self.settings.as_deref().map(str::trim_start) {
            Some(text) if text.starts_with('{') => {
                let (f, d) = load_text(text, Path::new("--claude-settings"), Scope::Flag, None);
                diags.extend(d);
                out.push(f);
            }
            Some(path) => file(&mut out, PathBuf::from(path), Scope::Flag, true, diags),
            None => {}
        }
        let managed = self
            .managed_dir
            .clone()
            .unwrap_or_else(|| PathBuf::from(MANAGED_DIR));
        file(
            &mut out,
            managed.join("managed-settings.json"),
            Scope::Managed,
            false,
            diags,
        );
        let drop_in = managed.join("managed-settings.d");
        if let Ok(entries) = std::fs::read_dir(&drop_in) {
            let mut paths: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "json"))
                .collect();
            paths.sort();
            for p in paths {
                file(&mut out, p, Scope::Managed, false, diags);
            }
        }
        for dir in &self.plugin_dirs {
            out.extend(load_plugin(dir, self.home.as_deref(), diags));
        }
        out
    }
}

/// Reads one file and loads it; `None` if it does not exist (a diagnostic
/// when `required`) or cannot be read (always a diagnostic).
fn read_and_load(
    path: &Path,
    scope: Scope,
    plugin: Option<PluginInfo>,
    required: bool,
    diags: &mut Vec<Diagnostic>,
) -> Option<LoadedFile> {
    let present = crate::config::files::presence(path)
        .unwrap_or_else(|| std::fs::symlink_metadata(path).is_ok());
    if !required && !present {
        return None;
    }
    let read = if scope == Scope::Plugin {
        read_bounded_text(path, MAX_FILE)
    } else {
        read_settings_text(path, diags)
    };
    match read {
        Ok(text) => {
            let (f, d) = load_text(&text, path, scope, plugin);
            diags.extend(d);
            Some(f)
        }
        Err(e) => {
            diags.push(
                Diagnostic::error(format!("cannot read the file: {e}"))
                    .in_file(path)
                    .for_dialect(DIALECT),
            );
            None
        }
    }
}

/// Reads a settings file as Claude Code reads one (see [`settings_text`]);
/// bytes that are not UTF-8 get a warning that says where. A plugin's
/// hooks file is read strictly, as Claude Code's plain `JSON.parse` of it
/// is.
fn read_settings_text(path: &Path, diags: &mut Vec<Diagnostic>) -> std::io::Result<String> {
    let (text, bad) = settings_text(crate::config::read_bounded(path, MAX_FILE)?);
    if let Some(place) = bad {
        diags.push(
            Diagnostic::warning(format!(
                "the file is not valid UTF-8 at {place}; Claude Code reads each bad byte as U+FFFD, and so does latch"
            ))
            .in_file(path)
            .for_dialect(DIALECT),
        );
    }
    Ok(text)
}

/// A settings file's text as Claude Code reads it (its `safeParseJSON`):
/// bytes that are not UTF-8 become U+FFFD (the place of the first is
/// returned too), one leading byte order mark is dropped, and a blank file
/// is empty settings.
pub(crate) fn settings_text(bytes: Vec<u8>) -> (String, Option<String>) {
    let (text, bad) = match String::from_utf8(bytes) {
        Ok(text) => (text, None),
        Err(e) => (
            String::from_utf8_lossy(e.as_bytes()).into_owned(),
            Some(crate::config::utf8_place(&e)),
        ),
    };
    let text = text
        .strip_prefix('\u{FEFF}')
        .map(str::to_owned)
        .unwrap_or(text);
    if crate::text::js_trim(&text).is_empty() {
        ("{}".to_owned(), bad)
    } else {
        (text, bad)
    }
}

/// A plugin: its manifest's name (else the directory's), its
/// `hooks/hooks.json`, and the files or inline hooks its manifest's
/// `hooks` adds.
fn load_plugin(dir: &Path, home: Option<&Path>, diags: &mut Vec<Diagnostic>) -> Vec<LoadedFile> {
    let root = normalize(&std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf()));
    if !root.is_dir() {
        diags.push(
            Diagnostic::error("plugin directory does not exist or is not a directory")
                .in_file(&root)
                .for_dialect(DIALECT),
        );
        return Vec::new();
    }
    let manifest_path = root.join(".claude-plugin/plugin.json");
    let manifest_present = crate::config::files::presence(&manifest_path)
        .unwrap_or_else(|| std::fs::symlink_metadata(&manifest_path).is_ok());
    let manifest = if manifest_present {
        // A syntax error says where it is.
        match read_bounded_text(&manifest_path, MAX_FILE)
            .map_err(|e| (e.to_string(), None))
            .and_then(|t| crate::config::json::parse(&t).map_err(|e| (e.message, e.position)))
        {
            Ok(node) => Some(node),
            Err((e, position)) => {
                diags.push(
                    Diagnostic::error(format!("cannot read the plugin manifest: {e}"))
                        .in_file(&manifest_path)
                        .at(position)
                        .for_dialect(DIALECT),
                );
                None
            }
        }
    } else {
        None
    };
    let name = manifest
        .as_ref()
        .and_then(|m| m.get("name"))
        .and_then(|n| n.as_str())
        .map(str::to_owned)
        .unwrap_or_else(|| {
            root.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        });
    // Claude Code gives a `--plugin-dir` plugin the data directory
    // `~/.claude/plugins/data/<name>-inline` (recorded: `r2_plugin`).
    let data = home
        .map(|h| {
            h.join(".claude/plugins/data")
                .join(format!("{name}-inline"))
        })
        .unwrap_or_else(|| root.join(".data"));
    let info = PluginInfo {
        name,
        root: root.clone(),
        data,
    };
    let mut out = Vec::new();
    let default = root.join("hooks/hooks.json");
    if let Some(f) = read_and_load(&default, Scope::Plugin, Some(info.clone()), false, diags) {
        out.push(f);
    }
    let extra = manifest.as_ref().and_then(|m| m.get("hooks"));
    let mut extra_files: Vec<(PathBuf, Option<crate::diag::Position>)> = Vec::new();
    match extra.map(|n| (n, &n.value)) {
        None => {}
        Some((n, crate::config::yaml::Value::Str(s))) => {
            extra_files.push((root.join(s), Some(n.position)));
        }
        Some((_, crate::config::yaml::Value::Seq(items))) => {
            for i in items {
                match i.as_str() {
                    Some(s) => extra_files.push((root.join(s), Some(i.position))),
                    None => diags.push(
                        Diagnostic::error(format!(
                            "`hooks` entries must be paths, not {}",
                            i.json_kind()
                        ))
                        .in_file(&manifest_path)
                        .at(Some(i.position))
                        .for_dialect(DIALECT),
                    ),
                }
            }
        }
        Some((n, crate::config::yaml::Value::Map(_))) => {
            // Inline hooks: the manifest's `hooks` object is a hooks file.
            let text = serde_json::json!({ "hooks": n.to_json() }).to_string();
            let (mut f, d) = load_text(&text, &manifest_path, Scope::Plugin, Some(info.clone()));
            // Positions in the rebuilt text mean nothing; point at the key.
            diags.extend(d.into_iter().map(|d| d.at(Some(n.position))));
            for g in &mut f.groups {
                g.source.position = Some(n.position);
                for h in &mut g.handlers {
                    h.source.position = Some(n.position);
                    for (_, at) in &mut h.key_at {
                        *at = n.position;
                    }
                }
            }
            out.push(f);
        }
        Some((n, _)) => diags.push(
            Diagnostic::error(format!(
                "`hooks` must be a path, a list of paths or an object, not {}",
                n.json_kind()
            ))
            .in_file(&manifest_path)
            .at(Some(n.position))
            .for_dialect(DIALECT),
        ),
    }
    for (path, at) in extra_files {
        if normalize(&path) == default {
            diags.push(
                Diagnostic::error("Duplicate hooks file detected: the manifest's `hooks` names the default hooks/hooks.json, which is always loaded")
                    .in_file(&manifest_path)
                    .at(at)
                    .for_dialect(DIALECT),
            );
            continue;
        }
        if let Some(f) = read_and_load(&path, Scope::Plugin, Some(info.clone()), true, diags) {
            out.push(f);
        }
    }
    out
}
