//! A scenario's `config` mapping: the configuration directory (`path`, or
//! inline `files` written into a temp directory), and for the claude and
//! evener dialects the extra plugin directories (`plugin_dirs`) and the
//! harness's tool vocabulary (`tool_vocabulary`), named as `latch fire`'s
//! flags and `latch serve`'s `initialize` parameters name them. Paths are
//! relative to the scenario file.

use std::path::{Path, PathBuf};

use crate::config::yaml;
use crate::diag::Diagnostic;
use crate::vocabulary::Vocabulary;

use super::location;

/// The keys a `config` mapping may have.
const KEYS: [&str; 4] = ["path", "files", "plugin_dirs", "tool_vocabulary"];
/// The dialects that read `plugin_dirs` and `tool_vocabulary`.
const PLUGIN_DIALECTS: [&str; 2] = ["claude", "evener"];

/// A scenario's configuration, as read from its `config` mapping.
#[derive(Debug)]
pub struct Config {
    /// The configuration directory (a copy, when inline files are given).
    pub dir: PathBuf,
    /// More plugin directories, in order: a claude scenario's plugins, or
    /// an evener scenario's plugins after its own directory.
    pub plugin_dirs: Vec<PathBuf>,
    /// The harness's tool vocabulary, when given.
    pub vocabulary: Option<Vocabulary>,
    /// What is wrong with the vocabulary file (its errors keep the
    /// scenario from running).
    pub vocabulary_diagnostics: Vec<Diagnostic>,
    /// Keeps the inline configuration's temp directory alive.
    _temp: Option<tempfile::TempDir>,
}

impl Config {
    /// Reads `config` of the scenario `file` for `dialect`; an error names
    /// the `file:line:column` it is at.
    pub fn read(file: &Path, dialect: &str, config: Option<&yaml::Node>) -> Result<Config, String> {
        let at = |node: &yaml::Node| location(file, node);
        let at_key =
            |node: Option<&yaml::Node>| node.map_or_else(|| file.display().to_string(), &at);
        let base = file.parent().unwrap_or(Path::new("."));
        let resolve = |p: &str| {
            crate::config::normalize(
                &std::path::absolute(base.join(p)).unwrap_or_else(|_| base.join(p)),
            )
        };
        for (key, _) in config.and_then(yaml::Node::as_map).unwrap_or_default() {
            let name = key.as_str().unwrap_or_default();
            if !KEYS.contains(&name) {
                return Err(format!(
                    "{}: config.{}: not a config key ({})",
                    at(key),
                    key.scalar_text(),
                    KEYS.join(", ")
                ));
            }
            if ["plugin_dirs", "tool_vocabulary"].contains(&name)
                && !PLUGIN_DIALECTS.contains(&dialect)
            {
                return Err(format!(
                    "{}: config.{name}: only the claude and evener dialects read it",
                    at(key)
                ));
            }
        }
        let path = config.and_then(|c| c.get("path"));
        let files = config
            .and_then(|c| c.get("files"))
            .and_then(yaml::Node::as_map);
        let (dir, temp) = if let Some(p) = path.and_then(yaml::Node::as_str) {
            let dir = resolve(p);
            if !dir.is_dir() {
                return Err(format!(
                    "{}: config.path {} is not a directory",
                    at_key(path),
                    dir.display()
                ));
            }
            (dir, None)
        } else if let Some(files) = files {
            let temp =
                tempfile::tempdir().map_err(|e| format!("cannot make a temp directory: {e}"))?;
            for (rel, content) in files {
                let rel = rel.scalar_text();
                let text = content
                    .as_str()
                    .ok_or_else(|| format!("{}: config.files.{rel} must be text", at(content)))?;
                write_file(temp.path(), &rel, text)?;
            }
            (temp.path().to_path_buf(), Some(temp))
        } else {
            return Err(format!(
                "{}: `config` needs `path` or `files`",
                at_key(config)
            ));
        };
        let mut plugin_dirs = Vec::new();
        if let Some(list) = config.and_then(|c| c.get("plugin_dirs")) {
            let items = list
                .as_seq()
                .ok_or_else(|| format!("{}: config.plugin_dirs must be a list", at(list)))?;
            for item in items {
                let p = item.as_str().ok_or_else(|| {
                    format!(
                        "{}: config.plugin_dirs: each entry must be a path",
                        at(item)
                    )
                })?;
                let dir = resolve(p);
                if !dir.is_dir() {
                    return Err(format!(
                        "{}: config.plugin_dirs: {} is not a directory",
                        at(item),
                        dir.display()
                    ));
                }
                plugin_dirs.push(dir);
            }
        }
        let (vocabulary, vocabulary_diagnostics) = match config
            .and_then(|c| c.get("tool_vocabulary"))
        {
            None => (None, Vec::new()),
            Some(node) => {
                let p = node.as_str().ok_or_else(|| {
                    format!("{}: config.tool_vocabulary must be a path", at(node))
                })?;
                let vocab_file = resolve(p);
                let text =
                    crate::config::read_bounded_text(&vocab_file, crate::config::MAX_CONFIG_FILE)
                        .map_err(|e| {
                        format!(
                            "{}: config.tool_vocabulary {}: {e}",
                            at(node),
                            vocab_file.display()
                        )
                    })?;
                let (v, d) = Vocabulary::from_text(&text, &vocab_file);
                (Some(v), d)
            }
        };
        Ok(Config {
            dir,
            plugin_dirs,
            vocabulary,
            vocabulary_diagnostics,
            _temp: temp,
        })
    }
}

fn write_file(root: &Path, rel: &str, text: &str) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let path = root.join(rel);
    if !crate::config::normalize(&path).starts_with(root) {
        return Err(format!(
            "config.files: {rel} leaves the scenario's directory"
        ));
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    if text.starts_with("#!") {
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}
