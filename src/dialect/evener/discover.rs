//! Finding an Evener plugin's hooks: for each plugin directory, the first
//! of (1) the manifest's `hooks` string, a path to a hooks file; (2) the
//! manifest's inline `hooks` object; (3) `<plugin>/hooks/hooks.json`. The
//! manifest is `.claude-plugin/plugin.json`, else `.codex-plugin/plugin.json`.

use std::path::{Path, PathBuf};

use crate::config::json;
use crate::config::yaml::{Node, Value};
use crate::diag::Diagnostic;

use super::DIALECT;
use super::load::{Group, expand_root, load_config};

/// Manifest locations, in the order Evener tries them.
pub const MANIFESTS: [&str; 2] = [".claude-plugin/plugin.json", ".codex-plugin/plugin.json"];
/// The default hooks file, relative to the plugin directory.
pub const DEFAULT_HOOKS_FILE: &str = "hooks/hooks.json";

/// One loaded plugin.
#[derive(Debug, Clone)]
pub struct Plugin {
    /// The plugin's name (from the manifest, else the directory's name).
    pub name: String,
    /// The plugin directory, absolute.
    pub root: PathBuf,
    /// The manifest, if there is one.
    pub manifest: Option<PathBuf>,
    /// Where the hooks came from (a hooks file, or the manifest for inline hooks).
    pub hooks_source: Option<PathBuf>,
    /// The matcher groups, in file order.
    pub groups: Vec<Group>,
}

/// Loads one plugin directory. Never fails: problems are diagnostics.
pub fn load_plugin(dir: &Path, diags: &mut Vec<Diagnostic>) -> Plugin {
    let root =
        crate::config::normalize(&std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf()));
    let fallback_name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| root.to_string_lossy().into_owned());
    let mut plugin = Plugin {
        name: fallback_name,
        root: root.clone(),
        manifest: None,
        hooks_source: None,
        groups: Vec::new(),
    };
    if !root.is_dir() {
        diags.push(
            Diagnostic::error("plugin directory does not exist or is not a directory")
                .in_file(&root)
                .for_dialect(DIALECT),
        );
        return plugin;
    }
    let manifest = MANIFESTS
        .iter()
        .map(|m| root.join(m))
        // Anything at the path is read, so a FIFO or a directory there is
        // reported, not passed over.
        .find(|p| exists(p))
        .and_then(|path| read_json(&path, diags).map(|node| (path, node)));
    let mut inline: Option<(PathBuf, Node)> = None;
    let mut pointed: Option<PathBuf> = None;
    if let Some((path, node)) = &manifest {
        plugin.manifest = Some(path.clone());
        match node.get("name").map(|n| (n, n.as_str())) {
            Some((_, Some(name))) if !name.trim().is_empty() => {
                plugin.name = name.trim().to_owned()
            }
            Some((n, _)) => diags.push(
                Diagnostic::warning(format!(
                    "manifest \"name\" must be a non-empty string; the plugin is called \"{}\"",
                    plugin.name
                ))
                .in_file(path)
                .at(Some(n.position))
                .for_dialect(DIALECT),
            ),
            None => diags.push(
                Diagnostic::warning(format!(
                    "manifest has no \"name\"; the plugin is called \"{}\"",
                    plugin.name
                ))
                .in_file(path)
                .at(Some(node.position))
                .for_dialect(DIALECT),
            ),
        }
        match node.get("hooks").map(|h| (h, &h.value)) {
            Some((_, Value::Str(rel))) => {
                let target = root.join(expand_root(rel, &root));
                if exists(&target) {
                    pointed = Some(target);
                } else {
                    diags.push(
                        Diagnostic::error(format!(
                            "manifest \"hooks\" points to {}, which does not exist; falling back to {DEFAULT_HOOKS_FILE}",
                            target.display()
                        ))
                        .in_file(path)
                        .at(node.get("hooks").map(|h| h.position))
                        .for_dialect(DIALECT)
                        .for_hook(plugin.name.clone()),
                    );
                }
            }
            Some((h, Value::Map(_))) => inline = Some((path.clone(), h.clone())),
            Some((_, Value::Null)) | None => {}
            Some((h, _)) => diags.push(
                Diagnostic::error(format!(
                    "manifest \"hooks\" must be a path string or an object, found {}",
                    h.json_kind()
                ))
                .in_file(path)
                .at(Some(h.position))
                .for_dialect(DIALECT),
            ),
        }
    }
    let (file, node) = if let Some(file) = pointed {
        match read_json(&file, diags) {
            Some(node) => (file, node),
            None => return plugin,
        }
    } else if let Some((file, node)) = inline {
        (file, node)
    } else {
        let file = root.join(DEFAULT_HOOKS_FILE);
        if !exists(&file) {
            diags.push(
                Diagnostic::new(crate::diag::Severity::Info, "plugin declares no hooks")
                    .in_file(&root)
                    .for_dialect(DIALECT)
                    .for_hook(plugin.name.clone()),
            );
            return plugin;
        }
        match read_json(&file, diags) {
            Some(node) => (file, node),
            None => return plugin,
        }
    };
    let (groups, more) = load_config(&node, &file, &plugin.name, &root);
    diags.extend(more);
    plugin.groups = groups;
    plugin.hooks_source = Some(file);
    plugin
}

/// Whether a file is there, as the load in progress sees it (see
/// [`crate::config::files`]). Anything at the name counts, a dangling
/// symlink or a loop too, so that reading it reports what is wrong.
fn exists(path: &Path) -> bool {
    crate::config::files::presence(path).unwrap_or_else(|| std::fs::symlink_metadata(path).is_ok())
}

fn read_json(path: &Path, diags: &mut Vec<Diagnostic>) -> Option<Node> {
    let text = match crate::config::read_bounded_text(path, crate::config::MAX_CONFIG_FILE) {
        Ok(t) => t,
        Err(e) => {
            diags.push(
                Diagnostic::error(format!("cannot read: {e}"))
                    .in_file(path)
                    .for_dialect(DIALECT),
            );
            return None;
        }
    };
    match json::parse(&text) {
        Ok(node) => Some(node),
        Err(e) => {
            diags.push(
                Diagnostic::error(format!("invalid JSON: {}; the file is skipped", e.message))
                    .in_file(path)
                    .at(e.position)
                    .for_dialect(DIALECT),
            );
            None
        }
    }
}
