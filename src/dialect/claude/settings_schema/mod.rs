//! Claude Code's check of a whole settings file (2.1.332): every setting,
//! not only `hooks`, has a type, and one value of the wrong type makes
//! Claude Code skip the file entirely, its hooks, `env` and
//! `disableAllHooks` included (recorded: `r13_settings_model_num`,
//! `_perm_allow_str`, `_env_array`, `_env_model_num`,
//! `_disable_model_num`).
//!
//! The types are data: `settings_types.json`, generated from Claude Code's
//! own schema objects by `recordings/claude/gen_settings_types.js` (which
//! checked the description against the schema on 5,406 inputs; 2.1.332
//! builds its schemas with a zod-like library of its own, carved out of its
//! binary by `recordings/claude-2.1.332/extract_settings_schema.js`). This
//! module reads that description the way the schema reads a file: absent is
//! fine only for an optional field, `null` is never a value (except for
//! `env`, whose values are turned into text), unknown keys are ignored,
//! a setting marked `catch` drops a bad value instead of failing, and a
//! string's length is counted in code points (2.1.332; zod counted UTF-16
//! units).
//! What the description cannot say is not checked: a few refinements of
//! marketplace entries and sandbox lookups (`refined`), and a URL is
//! checked for a scheme and, for web schemes, a host, not parsed whole.
//! `hooks` is checked here only where latch's own loader, which reports
//! each problem where it is, found nothing (the loader does not read
//! every key Claude Code checks, such as `rewakeMessage`).
//!
//! Before the check Claude Code 2.1.332 cleans the file ([`clean()`]), and a
//! PreToolUse, PermissionRequest or PreSkillShellCommand hook written outside `hooks` drops it
//! ([`guard_search`]).
//!
//! Written by hand: no crate reads zod schemas, and a JSON Schema
//! validator would read `null`, unions and `catch` differently.

use std::sync::OnceLock;

use serde_json::Value as Json;

use crate::config::yaml::{Node, Value};
use crate::diag::Position;

mod clean;
pub mod guard_search;
#[cfg(test)]
mod tests;
mod types;

pub use clean::clean;
use types::fits;

/// The description (`schema`) and the lists of the cleaning (`cleaning`),
/// parsed once.
fn doc() -> &'static Json {
    static DOC: OnceLock<Json> = OnceLock::new();
    DOC.get_or_init(|| {
        // The file is part of latch, tested below: it always parses.
        serde_json::from_str::<Json>(include_str!("../settings_types.json")).unwrap_or(Json::Null)
    })
}

fn schema() -> &'static Json {
    &doc()["schema"]
}

/// A list of names of the cleaning's data (`managedOnly`, `guardEvents`, …).
fn listed(list: &str, name: &str) -> bool {
    doc()["cleaning"][list]
        .as_array()
        .is_some_and(|names| names.iter().any(|n| n.as_str() == Some(name)))
}

/// Whether Claude Code removes `key` from a settings file when it is `null`
/// before its check (2.1.332, `Fr`: the settings that restrict, such as
/// `allowManagedHooksOnly`, `strictKnownMarketplaces`).
pub fn null_is_removed(key: &str) -> bool {
    listed("nullDropped", key)
}

/// Whether only managed settings may set `key` (2.1.332's `so` removes it
/// from any other settings file before anything else reads it).
pub fn managed_only(key: &str) -> bool {
    listed("managedOnly", key)
}

/// A setting Claude Code rejects: which, where, and why in latch's words.
#[derive(Debug, PartialEq)]
pub struct Rejected {
    /// The top-level setting.
    pub setting: String,
    /// The value (or the object missing a field).
    pub at: crate::diag::Position,
    /// `` `model` must be a string, not a number ``.
    pub message: String,
}

/// Checks every top-level setting of `root` but those `skip` names
/// against Claude Code's schema: the first problem of each wrong setting.
pub fn check(root: &Node, skip: &[&str]) -> Vec<Rejected> {
    let (Some(fields), Some(entries)) = (
        schema().get("fields").and_then(Json::as_object),
        root.as_map(),
    ) else {
        return Vec::new();
    };
    let mut rejected = Vec::new();
    for (name, _, value) in last_of_each(entries) {
        if skip.contains(&name.as_str()) {
            continue;
        }
        if let Some(ty) = fields.get(&name)
            && let Err(e) = fits(value, ty, &name)
        {
            rejected.push(Rejected { setting: name, ..e });
        }
    }
    rejected
}

/// What the schema rejects in one matcher group of `hooks.<event>`.
#[derive(Debug, Default, PartialEq)]
pub struct GroupCheck {
    /// The group itself (its `matcher`, say), whatever its entries are.
    pub group: Option<Rejected>,
    /// Each wrong entry: its index in the group's `hooks`, and why. Empty
    /// when the group itself is wrong.
    pub entries: Vec<(usize, Rejected)>,
}

/// Checks the matcher group `group`, the `index`th of `hooks.<event>`,
/// as Claude Code 2.1.332 does before it loads a settings file (`N4s`):
/// each entry on its own, then the group without its entries. Every
/// wrong entry is found, not only the first; when the group itself is
/// wrong, only that is said (Claude Code then drops the group).
pub fn check_group(event: &str, index: usize, group: &Node) -> GroupCheck {
    let group_ty = &schema()["fields"]["hooks"]["values"]["items"];
    let entry_ty = &group_ty["fields"]["hooks"]["items"];
    let path = format!("hooks.{event}.{index}");
    let mut check = GroupCheck::default();
    let Value::Map(fields) = &group.value else {
        check.group = fits(group, group_ty, &path).err();
        return check;
    };
    if let Some(Node {
        value: Value::Seq(entries),
        ..
    }) = group.get("hooks")
    {
        for (i, entry) in entries.iter().enumerate() {
            if let Err(e) = fits(entry, entry_ty, &format!("{path}.hooks.{i}")) {
                check.entries.push((i, e));
            }
        }
    }
    // The group with an empty `hooks` (when it has a list there): its
    // entries were checked above, one by one.
    let shell = Node {
        value: Value::Map(
            fields
                .iter()
                .map(|(k, v)| match (&v.value, k.as_str()) {
                    (Value::Seq(_), Some("hooks")) => (
                        k.clone(),
                        Node {
                            value: Value::Seq(Vec::new()),
                            position: v.position,
                        },
                    ),
                    _ => (k.clone(), v.clone()),
                })
                .collect(),
        ),
        position: group.position,
    };
    if let Err(e) = fits(&shell, group_ty, &path) {
        check.group = Some(e);
        check.entries.clear();
    }
    for (_, e) in &mut check.entries {
        e.setting = "hooks".to_owned();
    }
    if let Some(e) = &mut check.group {
        e.setting = "hooks".to_owned();
    }
    check
}

/// A mapping's entries as JavaScript keeps them: of a repeated key, only
/// the last, in file order; each with its key's text. (Linear: a file
/// may repeat a key many times.)
fn last_of_each(entries: &[(Node, Node)]) -> Vec<(String, &Node, &Node)> {
    let names: Vec<String> = entries.iter().map(|(k, _)| k.scalar_text()).collect();
    let last: std::collections::HashMap<&str, usize> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    names
        .iter()
        .enumerate()
        .filter(|(i, n)| last.get(n.as_str()) == Some(i))
        .map(|(i, n)| (n.clone(), &entries[i].0, &entries[i].1))
        .collect()
}
