//! The script files a hook's command names, and their content hashes.
//!
//! Approving a hook approves the code it runs, and for most project hooks
//! that code is a script in the repository (`.claude/hooks/guard.py`,
//! `./scripts/check.sh`), not the command line. So a hook's identity
//! includes a hash of every such file: the program of each simple command
//! when it is a path, and the script an interpreter is given (`python3
//! x.py`, `node "$CLAUDE_PROJECT_DIR"/h.js`), found by lint's shell reader
//! ([`crate::lint::shell`]). Only files inside the project count (the
//! user's own `~/bin/tool` is theirs), whether or not they exist yet (a
//! missing one hashes as missing, so creating it later changes the
//! hook); other words (data files, globs, anything behind a variable the
//! dialect does not set) are not followed. A symbolic link is hashed
//! through: its target's content is what runs. Relative paths resolve
//! against the directory the hook runs in, as the dialect chooses it for
//! the event.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::lint::shell;

/// The largest script hashed; a larger one pins as "too large", which no
/// approval covers ([`is_pinned`]).
const MAX_SCRIPT: u64 = 16 * 1024 * 1024;

/// Whether `pin` holds what the script is: its SHA-256, or that it is
/// missing (creating it changes the pin). Anything else (too large,
/// unreadable, not a regular file) says only why it could not be hashed,
/// and the script may hold anything when it runs.
pub fn is_pinned(pin: &str) -> bool {
    pin == "missing" || (pin.len() == 64 && pin.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// How a dialect resolves the paths in a command.
#[derive(Debug, Clone, Default)]
pub struct Resolution {
    /// The directory a relative path resolves against (the hook's working
    /// directory).
    pub base: Option<PathBuf>,
    /// Variables the dialect sets to known directories
    /// (`CLAUDE_PROJECT_DIR`, `CLAUDE_PLUGIN_ROOT`, …).
    pub vars: Vec<(String, PathBuf)>,
    /// Only files under this directory are scripts of the project.
    pub project: Option<PathBuf>,
}

/// The script files `command` (a shell command line) names inside the
/// project, resolved, each once, in order.
pub fn in_command(command: &str, how: &Resolution) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for c in shell::simple_commands(command) {
        let mut named: Vec<&str> = shell::interpreter_scripts(&c.words);
        if let Some(program) = c.words.first() {
            named.insert(0, program);
        }
        for word in named {
            if let Some(p) = resolve(word, c.after_cd, how)
                && !out.contains(&p)
            {
                out.push(p);
            }
        }
    }
    out
}

/// The script files an exec-form hook names: its program and, when the
/// program is an interpreter, its script.
pub fn in_exec(program: &str, args: &[String], how: &Resolution) -> Vec<PathBuf> {
    let words: Vec<String> = std::iter::once(program.to_owned())
        .chain(args.iter().cloned())
        .collect();
    let mut out = Vec::new();
    let mut named: Vec<&str> = shell::interpreter_scripts(&words);
    named.insert(0, program);
    for word in named {
        if let Some(p) = resolve(word, false, how)
            && !out.contains(&p)
        {
            out.push(p);
        }
    }
    out
}

/// A word as a file inside the project, if it is one.
fn resolve(word: &str, after_cd: bool, how: &Resolution) -> Option<PathBuf> {
    // A bare name is looked up on PATH: not a project file.
    if !word.contains('/') && !shell_script_name(word) {
        return None;
    }
    let vars: Vec<(&str, &Path)> = how
        .vars
        .iter()
        .map(|(n, p)| (n.as_str(), p.as_path()))
        .collect();
    let path = shell::expand(word, &vars)?;
    let path = if path.is_absolute() {
        path
    } else if after_cd {
        return None;
    } else {
        how.base.as_ref()?.join(path)
    };
    let path = crate::config::normalize(&path);
    let project = how.project.as_ref()?;
    // A script that does not exist yet counts too (it hashes as missing):
    // one created after the approval must not run as approved.
    (path.starts_with(project) && !path.is_dir()).then_some(path)
}

/// `x.py`, `hook.sh`: a file name an interpreter is given without a `/`.
fn shell_script_name(word: &str) -> bool {
    Path::new(word)
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| ["py", "js", "mjs", "cjs", "ts", "sh", "bash", "rb", "pl"].contains(&e))
}

/// The SHA-256 (hex) of each file, read through links and bounded; a file
/// that cannot be read hashes as the reason, so its approval no longer
/// matches.
pub fn hashes(scripts: &[PathBuf]) -> BTreeMap<PathBuf, String> {
    scripts.iter().map(|p| (p.clone(), hash(p))).collect()
}

/// Hashes already computed, by path, with the file's identity then
/// (device, inode, size, and the change time, which a writer cannot set
/// back as it can the modification time): a hook's scripts are hashed
/// once per process while they do not change, not at every event.
type HashCache = std::sync::Mutex<BTreeMap<PathBuf, ((u64, u64, u64, i128), String)>>;

fn hash(path: &Path) -> String {
    static CACHE: HashCache = std::sync::Mutex::new(BTreeMap::new());
    let identity = std::fs::metadata(path).ok().map(|m| {
        use std::os::unix::fs::MetadataExt;
        let ctime = i128::from(m.ctime()) * 1_000_000_000 + i128::from(m.ctime_nsec());
        (m.dev(), m.ino(), m.size(), ctime)
    });
    let mut cache = CACHE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let (Some(id), Some((cached_id, digest))) = (identity, cache.get(path))
        && *cached_id == id
    {
        return digest.clone();
    }
    let digest = hash_now(path);
    if let Some(id) = identity {
        cache.insert(path.to_path_buf(), (id, digest.clone()));
    }
    digest
}

fn hash_now(path: &Path) -> String {
    let read = || -> std::io::Result<String> {
        let meta = std::fs::metadata(path)?;
        if !meta.is_file() {
            return Ok("not a regular file".to_owned());
        }
        if meta.len() > MAX_SCRIPT {
            return Ok(format!("too large ({} bytes)", meta.len()));
        }
        let mut bytes = Vec::new();
        std::fs::File::open(path)?
            .take(MAX_SCRIPT)
            .read_to_end(&mut bytes)?;
        let digest = Sha256::digest(&bytes);
        Ok(digest.iter().map(|b| format!("{b:02x}")).collect())
    };
    read().unwrap_or_else(|e| match e.kind() {
        std::io::ErrorKind::NotFound => "missing".to_owned(),
        _ => format!("unreadable: {e}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_and_interpreter_scripts_inside_the_project_are_found() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for f in ["hooks/guard.sh", "hooks/check.py", "data.txt"] {
            let p = root.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, f).unwrap();
        }
        let how = Resolution {
            base: Some(root.to_path_buf()),
            vars: vec![("CLAUDE_PROJECT_DIR".into(), root.to_path_buf())],
            project: Some(root.to_path_buf()),
        };
        let found = in_command(
            "./hooks/guard.sh && python3 \"$CLAUDE_PROJECT_DIR\"/hooks/check.py data.txt; cat data.txt; /bin/true",
            &how,
        );
        assert_eq!(
            found,
            [root.join("hooks/guard.sh"), root.join("hooks/check.py")]
        );
        assert!(in_command("cd hooks && ./guard.sh", &how).is_empty());
        let h = hashes(&found);
        assert_eq!(h.len(), 2);
        assert_eq!(h[&root.join("hooks/guard.sh")].len(), 64);
    }
}
