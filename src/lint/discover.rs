//! Which hook configurations `latch lint` checks: the files and
//! directories under its paths, each classified as a configuration of one
//! dialect.
//!
//! A plugin directory is the one ambiguous layout: evener and Claude Code
//! both read `.claude-plugin/plugin.json` and `hooks/hooks.json`. Without
//! `--dialect` it is an evener plugin, as it always was; with `--dialect
//! claude` it is a Claude Code plugin (and an evener plugin too when
//! evener is also named).

use std::path::{Path, PathBuf};

use crate::diag::Diagnostic;
use crate::dialect::evener;
use crate::dialect::peen;
use crate::dialect::poolside;

/// One hook configuration found on disk.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Target {
    /// A poolside project (`<dir>/.poolside/settings*.yaml`).
    PoolsideProject(PathBuf),
    /// One poolside settings file given directly.
    PoolsideFile(PathBuf),
    /// A directory with a peen `.agents/hooks.yaml`.
    PeenLayer(PathBuf),
    /// An evener plugin directory.
    EvenerPlugin(PathBuf),
    /// A project with Claude Code settings (`.claude/settings.json` or
    /// `.claude/settings.local.json`), checked by the claude dialect.
    ClaudeProject(PathBuf),
    /// A plugin directory read as a Claude Code plugin (`--dialect claude`).
    ClaudePlugin(PathBuf),
    /// One Claude Code settings file given directly, read as
    /// `--claude-settings` reads it.
    ClaudeSettings(PathBuf),
    /// A Claude Code managed settings directory (`managed-settings.json`
    /// and `managed-settings.d/*.json`).
    ClaudeManaged(PathBuf),
}

impl Target {
    /// The dialect that checks this configuration.
    pub fn dialect(&self) -> &'static str {
        match self {
            Target::PoolsideProject(_) | Target::PoolsideFile(_) => poolside::DIALECT,
            Target::PeenLayer(_) => peen::DIALECT,
            Target::EvenerPlugin(_) => evener::DIALECT,
            Target::ClaudeProject(_)
            | Target::ClaudePlugin(_)
            | Target::ClaudeSettings(_)
            | Target::ClaudeManaged(_) => crate::dialect::claude::DIALECT,
        }
    }
}

/// The dialects lint reads configuration with: every one by default, or
/// only those named with `latch lint --dialect`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dialects {
    /// poolside projects and settings files.
    pub poolside: bool,
    /// peen layers.
    pub peen: bool,
    /// Plugin directories, as evener plugins.
    pub evener: bool,
    /// Claude Code projects, settings files and managed settings.
    pub claude: bool,
    /// Plugin directories, as Claude Code plugins: only when claude is
    /// named, since evener reads the same layout.
    pub claude_plugins: bool,
}

impl Default for Dialects {
    /// Every dialect, a plugin directory being an evener plugin.
    fn default() -> Self {
        Dialects {
            poolside: true,
            peen: true,
            evener: true,
            claude: true,
            claude_plugins: false,
        }
    }
}

impl Dialects {
    /// Only the dialects named (`poolside`, `peen`, `evener`, `claude`); a
    /// plugin directory is read by each of evener and claude named. No
    /// name at all: [`Dialects::default`].
    pub fn named<'a>(names: impl IntoIterator<Item = &'a str>) -> Self {
        let names: Vec<&str> = names.into_iter().collect();
        if names.is_empty() {
            return Dialects::default();
        }
        let has = |n: &str| names.contains(&n);
        Dialects {
            poolside: has(poolside::DIALECT),
            peen: has(peen::DIALECT),
            evener: has(evener::DIALECT),
            claude: has(crate::dialect::claude::DIALECT),
            claude_plugins: has(crate::dialect::claude::DIALECT),
        }
    }

    /// Whether only some dialects were named.
    fn is_named(self) -> bool {
        self != Dialects::default()
    }

    /// The names of the dialects read, for messages.
    fn names(self) -> Vec<&'static str> {
        [
            (self.poolside, poolside::DIALECT),
            (self.peen, peen::DIALECT),
            (self.evener, evener::DIALECT),
            (self.claude, crate::dialect::claude::DIALECT),
        ]
        .into_iter()
        .filter_map(|(on, name)| on.then_some(name))
        .collect()
    }
}

/// The files that make a directory a Claude Code project.
const CLAUDE_FILES: [&str; 2] = [".claude/settings.json", ".claude/settings.local.json"];
/// The files of a plugin Claude Code reads (evener also reads
/// `.codex-plugin/plugin.json`).
const CLAUDE_PLUGIN_FILES: [&str; 2] = [".claude-plugin/plugin.json", "hooks/hooks.json"];
/// The main managed settings file, and the drop-in directory.
const MANAGED_FILE: &str = "managed-settings.json";
const MANAGED_DROP_IN: &str = "managed-settings.d";

/// Directories never searched.
const SKIP_DIRS: [&str; 4] = [".git", "target", "node_modules", ".cache"];
/// How deep the search goes below each path.
const MAX_DEPTH: usize = 8;

/// Finds every configuration of `dialects` under `paths` (directories
/// are searched, files are classified by name), in a stable order, each
/// once; and an error for each path that holds none (it does not exist,
/// or is a file latch does not know).
pub fn discover_reporting(paths: &[PathBuf], dialects: Dialects) -> (Vec<Target>, Vec<Diagnostic>) {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for p in paths {
        let before = out.len();
        // A configuration file's name counts whatever the file is (a FIFO,
        // a directory, a symlink loop): its loader reports what is wrong
        // with it, instead of lint passing it by.
        match classify_file(p, dialects).filter(|_| present(p)) {
            Some(targets) => out.extend(targets),
            None if p.is_dir() => walk(p, 0, dialects, &mut out),
            None => {}
        }
        if out.len() == before {
            let what = if !p.exists() {
                "no such file or directory".to_owned()
            } else if dialects.is_named() {
                format!(
                    "no {} hook configuration here",
                    dialects.names().join(" or ")
                )
            } else {
                "no hook configuration here".to_owned()
            };
            problems.push(Diagnostic::error(what).in_file(p));
        }
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|t| seen.insert(t.clone()));
    (out, problems)
}

/// The configurations a file given by path is, by its name: `None` when
/// the name is no configuration's (then a directory is searched), and an
/// empty list when it is the configuration of a dialect not read.
fn classify_file(p: &Path, d: Dialects) -> Option<Vec<Target>> {
    // The directory a configuration file at `rel` below it belongs to.
    let owner = |rel: &str| {
        let depth = Path::new(rel).components().count();
        p.ends_with(rel)
            .then(|| p.ancestors().nth(depth).map(Path::to_path_buf))
            .flatten()
    };
    let only = |on: bool, t: Target| Some(if on { vec![t] } else { Vec::new() });
    if let Some(dir) = owner(peen::HOOKS_FILE) {
        return only(d.peen, Target::PeenLayer(dir));
    }
    let evener_files = evener::discover::MANIFESTS
        .iter()
        .chain([&evener::discover::DEFAULT_HOOKS_FILE]);
    if let Some(dir) = evener_files.filter_map(|f| owner(f)).next() {
        let claude_reads = CLAUDE_PLUGIN_FILES.iter().any(|f| owner(f).is_some());
        return Some(plugin_targets(
            &dir,
            d.evener,
            d.claude_plugins && claude_reads,
        ));
    }
    if let Some(dir) = poolside::discover::PROJECT_FILES
        .iter()
        .find_map(|f| owner(f))
    {
        return only(d.poolside, Target::PoolsideProject(dir));
    }
    if let Some(dir) = CLAUDE_FILES.iter().find_map(|f| owner(f)) {
        return only(d.claude, Target::ClaudeProject(dir));
    }
    let name = p.file_name()?.to_string_lossy();
    let parent = p.parent();
    if name == MANAGED_FILE {
        return only(d.claude, Target::ClaudeManaged(parent?.to_path_buf()));
    }
    if parent.is_some_and(|dir| dir.ends_with(MANAGED_DROP_IN)) && name.ends_with(".json") {
        let dir = parent.and_then(Path::parent)?.to_path_buf();
        return only(d.claude, Target::ClaudeManaged(dir));
    }
    // Another settings file (for `--settings`); any other YAML file is not
    // taken for hook configuration.
    if d.poolside
        && name.starts_with("settings")
        && (name.ends_with(".yaml") || name.ends_with(".yml"))
    {
        return Some(vec![Target::PoolsideFile(p.to_path_buf())]);
    }
    // A JSON file no other dialect reads is a Claude Code settings file
    // (`--claude-settings`); with `--dialect claude`, any other file is. A
    // directory of such a name is searched instead.
    (d.claude && (name.ends_with(".json") || d.is_named()) && !p.is_dir())
        .then(|| vec![Target::ClaudeSettings(p.to_path_buf())])
}

/// A plugin directory as each dialect asked for reads it.
fn plugin_targets(dir: &Path, evener: bool, claude: bool) -> Vec<Target> {
    let mut out = Vec::new();
    if evener {
        out.push(Target::EvenerPlugin(dir.to_path_buf()));
    }
    if claude {
        out.push(Target::ClaudePlugin(dir.to_path_buf()));
    }
    out
}

/// Whether something is at `path`, whatever it is, without following a
/// last symlink (a dangling link or a loop is there too).
fn present(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

fn walk(dir: &Path, depth: usize, d: Dialects, out: &mut Vec<Target>) {
    if depth > MAX_DEPTH {
        return;
    }
    // Anything at a configuration file's name counts (see
    // `discover_reporting`), not only a regular file.
    let has = |rel: &str| present(&dir.join(rel));
    if d.poolside && poolside::discover::PROJECT_FILES.iter().any(|f| has(f)) {
        out.push(Target::PoolsideProject(dir.to_path_buf()));
    }
    if d.peen && has(peen::HOOKS_FILE) {
        out.push(Target::PeenLayer(dir.to_path_buf()));
    }
    let evener_plugin = evener::discover::MANIFESTS.iter().any(|m| has(m))
        || has(evener::discover::DEFAULT_HOOKS_FILE);
    let claude_plugin = CLAUDE_PLUGIN_FILES.iter().any(|f| has(f));
    out.extend(plugin_targets(
        dir,
        d.evener && evener_plugin,
        d.claude_plugins && claude_plugin,
    ));
    if d.claude && CLAUDE_FILES.iter().any(|f| has(f)) {
        out.push(Target::ClaudeProject(dir.to_path_buf()));
    }
    if d.claude && (has(MANAGED_FILE) || has(MANAGED_DROP_IN)) {
        out.push(Target::ClaudeManaged(dir.to_path_buf()));
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter(|e| !SKIP_DIRS.contains(&e.file_name().to_string_lossy().as_ref()))
        .map(|e| e.path())
        .collect();
    dirs.sort();
    for sub in dirs {
        walk(&sub, depth + 1, d, out);
    }
}
