//! The environment each dialect gives a hook, and the variables a converted
//! hook reads that its new dialect does not give it.
//!
//! From the dialects' documentation (`docs/dialects/*.md`):
//! - poolside: latch's own environment, unchanged; it sets nothing.
//! - evener: latch's environment minus `CLAUDE_PLUGIN_DATA`,
//!   `CLAUDE_CODE_REMOTE`, `CLAUDE_ENV_FILE` and the prompt handler's keys,
//!   plus `CLAUDE_PLUGIN_ROOT`, `PLUGIN_ROOT`, `CLAUDE_PROJECT_DIR` and
//!   `CLAUDE_EFFORT`.
//! - peen: only `PATH` and the action's `environment` entries.
//! - claude: latch's environment plus `CLAUDE_PROJECT_DIR`, `CLAUDECODE`,
//!   `CLAUDE_CODE_SESSION_ID`, and for plugin hooks `CLAUDE_PLUGIN_ROOT`
//!   and `CLAUDE_PLUGIN_DATA` (`CLAUDE_ENV_FILE` on `SessionStart`).

use std::path::{Path, PathBuf};

use crate::diag::{Diagnostic, SourceRef};

use super::{Rule, Side, report};

/// Variables evener sets for every command.
pub use crate::dialect::evener::combine::SET_VARS as EVENER_SETS;

/// Variables evener removes from the environment it passes on (and sets
/// itself, where it sets them).
pub use crate::dialect::evener::combine::UNSET_VARS as EVENER_REMOVES;

/// The largest script file latch looks into for variable names.
const MAX_SCANNED_FILE: u64 = 1024 * 1024;

/// A variable a hook reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvRead {
    /// The variable's name.
    pub name: String,
    /// `None`: the hook's own script reads it; else the file it runs that
    /// reads it, and the line (1-based).
    pub via: Option<(PathBuf, usize)>,
}

fn sets(side: Side, var: &str) -> bool {
    match side {
        Side::Poolside => false,
        Side::Evener => EVENER_SETS.contains(&var),
        Side::Peen => var == "PATH",
        Side::Claude => CLAUDE_SETS.contains(&var),
    }
}

/// Variables the claude dialect sets for a hook (plugin hooks also get the
/// plugin's two).
pub const CLAUDE_SETS: [&str; 6] = [
    "CLAUDE_PROJECT_DIR",
    "CLAUDECODE",
    "CLAUDE_CODE_SESSION_ID",
    "CLAUDE_PLUGIN_ROOT",
    "CLAUDE_PLUGIN_DATA",
    "CLAUDE_ENV_FILE",
];

fn passes_on(side: Side, var: &str) -> bool {
    match side {
        Side::Poolside => true,
        Side::Evener => !EVENER_REMOVES.contains(&var),
        Side::Peen => false,
        Side::Claude => true,
    }
}

/// Why a hook converted from `from` to `to` does not get `var`, or `None`
/// when it does (or did not get it in `from` either).
pub fn lost(from: Side, to: Side, var: &str) -> Option<String> {
    let had = sets(from, var) || passes_on(from, var);
    // A variable `from` sets itself is in no caller's environment.
    let has = sets(to, var) || (passes_on(to, var) && !sets(from, var));
    if !had || has {
        return None;
    }
    Some(if to == Side::Peen {
        "peen gives a command only PATH and its `environment` entries".to_owned()
    } else if sets(from, var) {
        format!("{} sets it and {} does not", name(from), name(to))
    } else {
        format!("{} removes it from a hook's environment", name(to))
    })
}

/// The dialect's name.
pub fn name(side: Side) -> &'static str {
    match side {
        Side::Poolside => "poolside",
        Side::Evener => "evener",
        Side::Peen => "peen",
        Side::Claude => "claude",
    }
}

/// A report entry for every variable `rule` reads that `to` does not set.
pub fn notes(rule: &Rule, to: Side, notes: &mut Vec<Diagnostic>) {
    let at = SourceRef {
        file: rule.source.file.clone(),
        position: rule.command_at.or(rule.source.position),
    };
    for read in &rule.reads {
        let Some(why) = lost(rule.origin, to, &read.name) else {
            continue;
        };
        let who = match &read.via {
            None => "the command".to_owned(),
            Some((file, line)) => format!("`{}` (line {line}), which it runs,", file.display()),
        };
        notes.push(report(
            &at,
            format!(
                "{who} reads ${}, which the converted hook does not get: {why}",
                read.name
            ),
        ));
    }
}

/// The variables `names` that the files a command runs from inside `root`
/// mention, with the line of the first mention. `words` are the command's
/// words (its program and arguments, or its script split at spaces).
pub fn file_reads<'a>(
    words: impl Iterator<Item = &'a str>,
    root: &Path,
    names: &[&str],
) -> Vec<EnvRead> {
    let mut out = Vec::new();
    let mut seen: std::collections::HashSet<PathBuf> = std::collections::HashSet::new();
    for w in words {
        let w = w.trim_matches(|c| c == '"' || c == '\'');
        let path = Path::new(w);
        if !path.is_absolute() || !path.starts_with(root) || !seen.insert(path.to_path_buf()) {
            continue;
        }
        // Only a regular file, and only so much of it: never a FIFO or a device.
        let Ok(text) = crate::config::read_bounded_text(path, MAX_SCANNED_FILE) else {
            continue;
        };
        for n in names {
            if let Some(line) = mention(&text, n) {
                out.push(EnvRead {
                    name: (*n).to_owned(),
                    via: Some((path.to_path_buf(), line)),
                });
            }
        }
    }
    out
}

/// The 1-based line of the first whole-word mention of `name` in `text`.
fn mention(text: &str, name: &str) -> Option<usize> {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    text.lines().enumerate().find_map(|(i, line)| {
        line.match_indices(name)
            .any(|(at, m)| {
                !word(line[..at].chars().next_back()) && !word(line[at + m.len()..].chars().next())
            })
            .then_some(i + 1)
    })
}

/// `$CLAUDE_PLUGIN_ROOT` and `$PLUGIN_ROOT` (not followed by a name
/// character) replaced by the plugin directory, as the braced forms are.
pub fn expand_bare_root(script: &str, root: &Path) -> String {
    let root = root.to_string_lossy();
    ["$CLAUDE_PLUGIN_ROOT", "$PLUGIN_ROOT"]
        .iter()
        .fold(script.to_owned(), |text, var| {
            crate::text::expand_bare(&text, var, &root)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_each_conversion_loses() {
        use Side::*;
        assert!(lost(Evener, Poolside, "CLAUDE_PLUGIN_ROOT").is_some());
        assert!(lost(Evener, Poolside, "HOME").is_none());
        assert!(lost(Evener, Evener, "CLAUDE_PLUGIN_ROOT").is_none());
        assert!(lost(Poolside, Evener, "CLAUDE_ENV_FILE").is_some());
        assert!(lost(Poolside, Evener, "CLAUDE_PROJECT_DIR").is_none());
        assert!(lost(Poolside, Peen, "HOME").is_some());
        assert!(lost(Poolside, Peen, "PATH").is_none());
        assert!(lost(Peen, Poolside, "HOME").is_none());
    }

    #[test]
    fn bare_root_variables_expand_only_as_whole_names() {
        assert_eq!(
            expand_bare_root(
                "$CLAUDE_PLUGIN_ROOT/a $PLUGIN_ROOTX $PLUGIN_ROOT",
                Path::new("/p")
            ),
            "/p/a $PLUGIN_ROOTX /p"
        );
    }

    #[test]
    fn mentions_are_whole_words() {
        assert_eq!(
            mention("a\nX_PLUGIN_ROOT\nos.environ['PLUGIN_ROOT']", "PLUGIN_ROOT"),
            Some(3)
        );
        assert_eq!(mention("CLAUDE_PLUGIN_ROOTS", "CLAUDE_PLUGIN_ROOT"), None);
    }
}
