//! File rules (`Edit(src/**)`, `Write(*.ts)`, `Read(//etc/hosts)`), read
//! the way `.gitignore` lines are, relative to a root:
//!
//! | rule | root | pattern |
//! |---|---|---|
//! | `//abs/path` | `/` | `abs/path` |
//! | `~/path` | the home directory | `path` |
//! | `/path` | the project directory | `path` |
//! | `path` with no `/` but at the end (`*.ts`, `build/`) | the project directory | at any depth |
//! | `dir/path` (`src/**`, `**/*.ts`) | the project directory | anchored at the root |
//! | `./path` | as `path` (Claude Code's docs: "`path` or `./path`") | |
//!
//! `*` and `?` stop at `/`, `**` crosses directories, a trailing `/` matches
//! only directories, and a rule that matches a directory covers everything
//! inside it. A file outside the root never matches. Globs go through
//! latch's pattern limits.

use std::path::{Component, Path, PathBuf};

use crate::matcher::pattern::{PathGlob, PatternBudget, PatternError, check_glob};

/// What a file rule's pattern is relative to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Root {
    /// `//path`: the filesystem root.
    Filesystem,
    /// `~/path`: the home directory.
    Home,
    /// Everything else: the project directory.
    Project,
}

/// A compiled file rule.
#[derive(Debug, Clone)]
pub struct PathRule {
    root: Root,
    glob: Option<PathGlob>,
    dir_only: bool,
}

impl PathRule {
    /// Reads `pattern` as a `.gitignore`-style line.
    pub fn new(pattern: &str, budget: &mut PatternBudget) -> Result<PathRule, PatternError> {
        // `./` only where it leaves a relative rule: `.//x` is not `//x`.
        let mut pattern = pattern;
        while let Some(rest) = pattern.strip_prefix("./")
            && !rest.starts_with('/')
            && !rest.starts_with("~/")
        {
            pattern = rest;
        }
        let (root, rest, anchored) = if let Some(rest) = pattern.strip_prefix("//") {
            (Root::Filesystem, rest.trim_start_matches('/'), true)
        } else if let Some(rest) = pattern.strip_prefix("~/") {
            (Root::Home, rest.trim_start_matches('/'), true)
        } else if let Some(rest) = pattern.strip_prefix('/') {
            (Root::Project, rest.trim_start_matches('/'), true)
        } else {
            let body = pattern.strip_suffix('/').unwrap_or(pattern);
            (Root::Project, pattern, body.contains('/'))
        };
        let dir_only = rest.ends_with('/');
        let body = rest.trim_end_matches('/');
        if body.is_empty() {
            return Ok(PathRule {
                root,
                glob: None,
                dir_only,
            });
        }
        // `.gitignore` has no alternates: braces are literal; a line that
        // starts with `!` (a negation) or `#` (a comment) matches nothing.
        if body.starts_with(['!', '#']) {
            return Ok(PathRule {
                root,
                glob: None,
                dir_only,
            });
        }
        let body = escape_braces(body);
        let glob = if anchored { body } else { format!("**/{body}") };
        Ok(PathRule {
            root,
            glob: Some(check_glob(&glob, budget)?),
            dir_only,
        })
    }

    /// Whether `path` (absolute and normalised) matches.
    pub fn matches(&self, path: &Path, project: &Path, home: Option<&Path>) -> bool {
        let Some(glob) = &self.glob else {
            return false;
        };
        let root = match self.root {
            Root::Filesystem => Path::new("/"),
            Root::Home => match home {
                Some(h) => h,
                None => return false,
            },
            Root::Project => project,
        };
        let root = normalize(root);
        let Ok(rel) = path.strip_prefix(&root) else {
            return false;
        };
        if rel.as_os_str().is_empty() {
            return false;
        }
        if !self.dir_only && glob.is_match(rel) {
            return true;
        }
        // A matching directory covers everything inside it.
        rel.ancestors()
            .skip(1)
            .filter(|a| !a.as_os_str().is_empty())
            .any(|a| glob.is_match(a))
    }
}

/// `{` and `}` made literal for `globset` (which reads them as
/// alternates); an already escaped one stays as it is.
fn escape_braces(glob: &str) -> String {
    let mut out = String::with_capacity(glob.len());
    let mut chars = glob.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                out.push(c);
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            }
            '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// A tool's path argument as Claude Code reads it: `~` is the home
/// directory, a relative path is relative to the project directory; `.`
/// and `..` are resolved without touching the filesystem.
pub fn resolve(raw: &str, project: &Path, home: Option<&Path>) -> PathBuf {
    let joined = if raw == "~" {
        home.map_or_else(|| PathBuf::from(raw), Path::to_path_buf)
    } else if let (Some(rest), Some(h)) = (raw.strip_prefix("~/"), home) {
        h.join(rest)
    } else {
        project.join(raw)
    };
    normalize(&joined)
}

/// `.` and `..` resolved lexically (`..` at the root stays at the root).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pattern: &str, path: &str) -> bool {
        let rule = PathRule::new(pattern, &mut PatternBudget::per_file()).expect("valid");
        let p = resolve(path, Path::new("/ws"), Some(Path::new("/home/u")));
        rule.matches(&p, Path::new("/ws"), Some(Path::new("/home/u")))
    }

    #[test]
    fn gitignore_like() {
        assert!(m("*.ts", "/ws/src/new.ts"));
        assert!(m("*.ts", "/ws/top.ts"));
        assert!(!m("*.ts", "/ws/c.py"));
        assert!(m("src/**", "/ws/src/a.ts"));
        assert!(!m("src/**", "/ws/lib/src/a.ts"));
        assert!(m("**/*.ts", "/ws/src/a.ts"));
        assert!(m("**/*.ts", "/ws/a.ts"));
        assert!(m("src", "/ws/src/a.ts"), "a directory covers its files");
        assert!(m("src/", "/ws/a/src/b.ts"));
        assert!(!m("a.ts/", "/ws/a.ts"), "a trailing / is directories only");
        assert!(m("/top.ts", "/ws/top.ts"));
        assert!(!m("/top.ts", "/ws/src/top.ts"));
        assert!(m("src/*.ts", "src/a.ts"), "relative input paths");
        assert!(!m("src/*.ts", "/ws/src/x/a.ts"));
        assert!(!m("*.ts", "/elsewhere/a.ts"), "outside the project");
    }

    #[test]
    fn a_leading_dot_slash_is_the_same_rule_without_it() {
        assert!(m("./.env", "/ws/.env"));
        assert!(m("./src/**", "/ws/src/a.ts"));
        assert!(!m("./src/**", "/ws/lib/src/a.ts"));
        assert!(m("./*.ts", "/ws/a.ts"));
        assert!(m("./src/new.ts", "src/new.ts"));
        assert!(m("././src/new.ts", "/ws/src/new.ts"));
        assert!(!m("./src/**", "/elsewhere/src/a.ts"));
        // What follows stays relative to the project.
        assert!(!m(".//etc/**", "/etc/hosts"));
        assert!(!m("./~/.ssh/**", "/home/u/.ssh/id"));
    }

    #[test]
    fn absolute_and_home() {
        assert!(m("//ws/top.ts", "/ws/top.ts"));
        assert!(m("///ws/top.ts", "/ws/top.ts"));
        assert!(m("//etc/**", "/etc/hosts"));
        assert!(m("~/.ssh/**", "~/.ssh/id"));
        assert!(m("~/.ssh/**", "/home/u/.ssh/id"));
        assert!(!m("~/.ssh/**", "/ws/.ssh/id"));
        assert!(m("*.ts", "/ws/src/../a.ts"));
        assert!(!m("//", "/ws/a"));
    }

    #[test]
    fn gitignore_has_no_alternates_negations_or_comments() {
        assert!(!m("*.{ts,js}", "/ws/a.ts"));
        assert!(m("*.{ts,js}", "/ws/a.{ts,js}"));
        assert!(!m("!*.ts", "/ws/a.ts"));
        assert!(!m("#*.ts", "/ws/a.ts"));
        assert!(m("a**b", "/ws/axyb"), "** inside a name is a star");
        assert!(!m("a**b", "/ws/ax/yb"));
        assert!(m("[ab].ts", "/ws/b.ts"));
        assert!(m("[!a].ts", "/ws/b.ts"));
    }
}
