//! Duplicate keys in JSON configuration. JSON readers (Claude Code's
//! `JSON.parse`, Evener's) keep the last of two equal keys in an object and
//! drop the earlier one silently; latch loads the same way. A second
//! `"hooks"` key, or a second `"PreToolUse"`, then throws away hooks its
//! author meant to run, so lint warns at every key that a later one
//! replaces.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::config::json;
use crate::config::yaml::{Node, Value};
use crate::diag::{Diagnostic, Severity};

/// The warnings for duplicate keys in the JSON files among `files` (the
/// paths a dialect's load read; others are passed by), each file once.
pub fn duplicate_keys(files: &[PathBuf], dialect: &str) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for file in files {
        if file.extension().is_none_or(|e| e != "json") || !seen.insert(file) {
            continue;
        }
        // The loader has reported what cannot be read or parsed.
        let Ok(text) = crate::config::read_bounded_text(file, crate::config::MAX_CONFIG_FILE)
        else {
            continue;
        };
        if let Ok(root) = json::parse(&text) {
            walk(&root, file, dialect, &mut out);
        }
    }
    out
}

fn walk(node: &Node, file: &Path, dialect: &str, out: &mut Vec<Diagnostic>) {
    match &node.value {
        Value::Map(entries) => {
            let mut last: HashMap<&str, &Node> = HashMap::new();
            for (key, _) in entries.iter().rev() {
                if let Some(name) = key.as_str() {
                    last.entry(name).or_insert(key);
                }
            }
            for (key, value) in entries {
                if let Some(name) = key.as_str()
                    && let Some(winner) = last.get(name)
                    && winner.position != key.position
                {
                    out.push(super::finding(
                        Severity::Warning,
                        format!(
                            "duplicate key `{name}`: the one at line {}, column {} replaces this one, which is ignored (JSON keeps the last)",
                            winner.position.line, winner.position.column
                        ),
                        dialect,
                        file,
                        Some(key.position),
                        Some("merge the two, or remove one".to_owned()),
                    ));
                }
                walk(value, file, dialect, out);
            }
        }
        Value::Seq(items) => items.iter().for_each(|n| walk(n, file, dialect, out)),
        _ => {}
    }
}
