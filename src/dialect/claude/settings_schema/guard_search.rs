//! Claude Code 2.1.332's search for PreToolUse, PermissionRequest and
//! PreSkillShellCommand hooks where none is read (its `pe`, `Zje`, `Prt`,
//! `Y6`, `bwe`): a file that seems to hold one anywhere but under `hooks`
//! is dropped, so a guard written in the wrong place never goes unnoticed.

use super::*;

fn hook_event(name: &str) -> bool {
    schema()
        .pointer("/fields/hooks/keys/values")
        .and_then(Json::as_array)
        .is_some_and(|e| e.iter().any(|v| v.as_str() == Some(name)))
}

fn entries(node: &Node) -> Vec<(String, &Node)> {
    match &node.value {
        Value::Map(entries) => last_of_each(entries)
            .into_iter()
            .map(|(name, _, v)| (name, v))
            .collect(),
        _ => Vec::new(),
    }
}

/// `pe`: an object with a guard event whose value is neither `null` nor
/// an empty list.
pub fn names_a_guard(node: &Node) -> bool {
    entries(node).iter().any(|(name, v)| {
        listed("guardEvents", name)
            && v.value != Value::Null
            && !matches!(&v.value, Value::Seq(items) if items.is_empty())
    })
}

/// `Zje`: an object that looks like a matcher group.
pub fn looks_like_a_group(node: &Node) -> bool {
    if node.as_map().is_none() {
        return false;
    }
    let fields = entries(node);
    let has = |k: &str| fields.iter().any(|(n, _)| n == k);
    if !has("matcher") && fields.iter().any(|(n, _)| hook_event(n)) {
        return false;
    }
    match fields.iter().find(|(n, _)| n == "hooks").map(|(_, v)| *v) {
        Some(Node {
            value: Value::Seq(items),
            ..
        }) => !items.is_empty(),
        Some(
            h @ Node {
                value: Value::Map(_),
                ..
            },
        ) => has("matcher") || h.get("type").and_then(Node::as_str).is_some(),
        _ => false,
    }
}

/// `Prt`: whether `node`, searched `depth` levels down, holds guard
/// hooks; `groups` counts a matcher group as one; `skip_unscanned`
/// leaves out the keys `bwe` does not search (`env`, `mcpServers`, …).
pub fn holds_guards(
    node: &Node,
    depth: u32,
    groups: bool,
    skip_unscanned: bool,
    in_list: bool,
) -> bool {
    if names_a_guard(node) || (groups && looks_like_a_group(node)) {
        return true;
    }
    if depth == 0 {
        return false;
    }
    match &node.value {
        Value::Seq(items) => items
            .iter()
            .any(|i| holds_guards(i, depth - 1, groups, skip_unscanned, in_list)),
        Value::Map(_) => {
            if in_list && node.get("type").and_then(Node::as_str).is_some() {
                return false;
            }
            entries(node).iter().any(|(name, v)| {
                !(skip_unscanned && listed("unscannedKeys", name))
                    && holds_guards(
                        v,
                        depth - 1,
                        groups && !hook_event(name),
                        skip_unscanned,
                        name == "hooks" && matches!(v.value, Value::Seq(_)),
                    )
            })
        }
        _ => false,
    }
}

/// `bwe`: the first setting, other than `hooks`, that seems to hold
/// guard hooks (the file itself, for a guard event at its top level).
pub fn outside_hooks(root: &Node) -> Option<Position> {
    root.as_map()?;
    if names_a_guard(root) {
        return Some(root.position);
    }
    let found = entries(root).into_iter().find(|(name, v)| {
        name != "hooks"
            && !listed("unscannedKeys", name)
            && holds_guards(v, 3, !hook_event(name), true, false)
    });
    found.map(|(_, v)| v.position)
}

/// `Y6`: a matcher group, or guard hooks, anywhere in a list.
pub fn in_list(node: &Node) -> bool {
    looks_like_a_group(node)
        || match &node.value {
            Value::Seq(items) => items.iter().any(in_list),
            _ => names_a_guard(node),
        }
}

/// `_r`: lists nested 32 deep or more holding a `null`, or an object
/// with a `null` (such a file is cut to 64 levels by Claude Code, which
/// could have cut a guard there).
pub fn deep_null(node: &Node) -> bool {
    let mut stack = vec![(node, 1u32)];
    while let Some((list, depth)) = stack.pop() {
        for item in list.as_seq().unwrap_or_default() {
            match &item.value {
                Value::Seq(_) => stack.push((item, depth + 1)),
                Value::Null if depth >= 32 => return true,
                Value::Map(fields)
                    if depth >= 32 && fields.iter().any(|(_, v)| v.value == Value::Null) =>
                {
                    return true;
                }
                _ => {}
            }
        }
    }
    false
}
