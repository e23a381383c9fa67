//! How deep a settings file may nest.
//!
//! Claude Code 2.1.332 reads a settings file through a copy that stops at
//! [`MAX_LEVELS`] levels (`xje`): an object or array nested deeper becomes
//! `null`, or, when it is an object holding nothing but objects, its key
//! is left out; then each top-level setting that lost something is named
//! in a warning (`he`), and the copy is cleaned and checked as usual. So a
//! value cut out that a setting needs fails the schema, and a `hooks`
//! written as nested arrays fails the file. latch does the same before
//! reading a settings file (not a plugin's hooks file, which Claude Code
//! reads otherwise).
//!
//! latch's JSON reader itself refuses a file nested more than 128 levels
//! deep (`config::json`), to keep its recursion bounded: Claude Code would
//! cut such a file and read the rest, latch drops it with a located error.

use std::collections::HashMap;

use crate::config::yaml::{Node, Value};
use crate::diag::Position;

/// The deepest level Claude Code reads; the top-level object is level 1.
pub const MAX_LEVELS: usize = 64;

/// What was cut out of one top-level setting.
#[derive(Debug, Clone, PartialEq)]
pub struct Cut {
    /// The setting (the top-level key).
    pub key: String,
    /// How many values were cut out of it.
    pub count: usize,
    /// Where the first value cut out of it is, in the order Claude Code
    /// walks the file.
    pub at: Position,
}

/// The file as Claude Code reads it, and what was cut out, in the order
/// of the settings in the file.
pub fn cut(root: Node) -> (Node, Vec<Cut>) {
    if !too_deep(&root) {
        return (root, Vec::new());
    }
    let mut cuts = Cuts::default();
    let copy = copy(&root, 1, None, &mut cuts);
    let mut cuts = cuts.list;
    if let Value::Map(entries) = &root.value {
        let mut first = HashMap::new();
        for (i, (k, _)) in entries.iter().enumerate() {
            first.entry(k.scalar_text()).or_insert(i);
        }
        cuts.sort_by_key(|c| first.get(&c.key).copied().unwrap_or(usize::MAX));
    }
    (copy, cuts)
}

/// The cuts found so far, one per setting (indexed: a file may have
/// thousands of settings).
#[derive(Default)]
struct Cuts {
    list: Vec<Cut>,
    index: HashMap<String, usize>,
}

impl Cuts {
    fn record(&mut self, key: String, at: Position) {
        match self.index.get(&key) {
            Some(&i) => self.list[i].count += 1,
            None => {
                self.index.insert(key.clone(), self.list.len());
                self.list.push(Cut { key, count: 1, at });
            }
        }
    }
}

/// Whether a container lies deeper than [`MAX_LEVELS`] (most files are
/// read as they are, without a copy).
fn too_deep(root: &Node) -> bool {
    let mut stack = vec![(root, 1)];
    while let Some((node, level)) = stack.pop() {
        let children: Vec<&Node> = match &node.value {
            Value::Map(entries) => {
                let seen = read(entries);
                entries
                    .iter()
                    .zip(seen)
                    .filter_map(|((_, v), read)| read.then_some(v))
                    .collect()
            }
            Value::Seq(items) => items.iter().collect(),
            _ => continue,
        };
        for child in children.into_iter().filter(|c| container(c)) {
            if level >= MAX_LEVELS {
                return true;
            }
            stack.push((child, level + 1));
        }
    }
    false
}

/// Which of a mapping's entries JavaScript reads: of a repeated key, the
/// last only (`JSON.parse`).
fn read(entries: &[(Node, Node)]) -> Vec<bool> {
    let mut last = HashMap::new();
    for (i, (k, _)) in entries.iter().enumerate() {
        last.insert(k.scalar_text(), i);
    }
    let mut read = vec![false; entries.len()];
    for i in last.into_values() {
        read[i] = true;
    }
    read
}

/// Whether `node` is an object or an array.
fn container(node: &Node) -> bool {
    matches!(node.value, Value::Map(_) | Value::Seq(_))
}

/// Whether `node` is an object holding only objects, all the way down
/// (`yr`): cut out, its key is left out rather than set to `null`.
fn only_objects(node: &Node) -> bool {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        let Value::Map(entries) = &n.value else {
            return false;
        };
        for (_, v) in entries {
            if !matches!(v.value, Value::Map(_)) {
                return false;
            }
            stack.push(v);
        }
    }
    true
}

/// The top-level setting a value is in: `top`, or at the top level the
/// value's own key.
fn setting(top: Option<&str>, key: Option<&Node>) -> String {
    top.map_or_else(
        || key.map(Node::scalar_text).unwrap_or_default(),
        str::to_owned,
    )
}

/// Copies `node`, a container at `level`, cutting what lies deeper than
/// [`MAX_LEVELS`]. `top` is the top-level setting it is in. Claude Code
/// walks the file with a stack: a container's own values first, in order,
/// then its containers from the last to the first, each whole; the cuts
/// are found in that order.
fn copy(node: &Node, level: usize, top: Option<&str>, cuts: &mut Cuts) -> Node {
    let null = |at: Position| Node {
        value: Value::Null,
        position: at,
    };
    // Each child, or `None` when it is left out; containers to copy later.
    let mut children: Vec<Option<Node>> = Vec::new();
    let mut deeper: Vec<usize> = Vec::new();
    let items: Vec<(Option<&Node>, &Node)> = match &node.value {
        Value::Map(entries) => entries.iter().map(|(k, v)| (Some(k), v)).collect(),
        Value::Seq(items) => items.iter().map(|v| (None, v)).collect(),
        _ => return node.clone(),
    };
    // A repeated key's earlier values JavaScript never reads: kept as they
    // are, neither cut nor counted.
    let read = match &node.value {
        Value::Map(entries) => read(entries),
        _ => vec![true; items.len()],
    };
    for (i, (key, value)) in items.iter().enumerate() {
        if !container(value) || !read[i] {
            children.push(Some((*value).clone()));
            continue;
        }
        if level < MAX_LEVELS {
            children.push(None);
            deeper.push(i);
            continue;
        }
        let name = setting(top, *key);
        cuts.record(name, value.position);
        children.push(if key.is_some() && only_objects(value) {
            None
        } else {
            Some(null(value.position))
        });
    }
    for &i in deeper.iter().rev() {
        let (key, value) = items[i];
        let name = setting(top, key);
        children[i] = Some(copy(value, level + 1, Some(&name), cuts));
    }
    let value = match &node.value {
        Value::Map(entries) => Value::Map(
            entries
                .iter()
                .zip(children)
                .filter_map(|((k, _), v)| v.map(|v| (k.clone(), v)))
                .collect(),
        ),
        _ => Value::Seq(children.into_iter().flatten().collect()),
    };
    Node {
        value,
        position: node.position,
    }
}

/// A key as Claude Code names it in a message (`Ewe`): as written when it
/// is short and plain, else `<key>`.
fn shown(key: &str) -> &str {
    let plain = (1..=40).contains(&key.chars().count())
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.' | '-'));
    if plain { key } else { "<key>" }
}

/// Claude Code's warning for one cut setting (`he`; a file it may save to,
/// unlike managed settings, adds what happens then).
pub fn warning(cut: &Cut, saved_to: bool) -> String {
    let key = shown(&cut.key);
    let (what, verb, them) = if cut.count == 1 {
        ("A value".to_owned(), "is", "it")
    } else {
        (format!("{} values", cut.count), "are", "them")
    };
    let saves = if saved_to {
        format!(", and leaves {them} out if it saves a setting to this file")
    } else {
        String::new()
    };
    format!(
        "{what} under \"{key}\" {verb} nested more than {MAX_LEVELS} levels deep, so Claude Code ignores {them}{saves}. Reduce the nesting under \"{key}\"."
    )
}

/// Claude Code's error for a `hooks` written as nested arrays of which a
/// part was cut (`he`, severity "fatal": the file is not read).
pub fn hooks_error(cut: &Cut) -> String {
    let (a, was) = if cut.count == 1 {
        ("a value".to_owned(), "was")
    } else {
        (format!("{} values", cut.count), "were")
    };
    format!(
        "\"hooks\" is written as nested arrays and holds {a} more than {MAX_LEVELS} levels deep that {was} left out \u{2014} a PreToolUse/PermissionRequest hook that cannot be loaded may be what guards the permissions declared beside it, so nothing it sits in is applied until the entry is fixed or removed. Write \"hooks\" as an object of event names."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chain of `{"k": …}` objects holding `inner` at `level` (the top
    /// object is level 1).
    fn nested(level: usize, inner: &str) -> String {
        format!(
            "{}{inner}{}",
            r#"{"k":"#.repeat(level - 1),
            "}".repeat(level - 1)
        )
    }

    fn parse(text: &str) -> Node {
        crate::config::json::parse(text).expect("JSON")
    }

    #[test]
    fn sixty_four_levels_are_read_whole() {
        let root = parse(&nested(64, "[1]"));
        let (copy, cuts) = cut(root.clone());
        assert!(cuts.is_empty());
        assert_eq!(copy, root);
        let (copy, cuts) = cut(parse(&nested(65, "[1]")));
        assert_eq!(cuts.len(), 1);
        assert_eq!((cuts[0].key.as_str(), cuts[0].count), ("k", 1));
        assert!(copy.to_json().to_string().contains(r#"{"k":null}"#));
    }

    #[test]
    fn an_object_of_objects_is_left_out_and_a_list_entry_becomes_null() {
        let (copy, cuts) = cut(parse(&nested(65, r#"{"a":{"b":{}}}"#)));
        let text = copy.to_json().to_string();
        assert!(!text.contains("null") && !text.contains(r#""a""#), "{text}");
        assert_eq!(cuts.len(), 1);
        let (copy, cuts) = cut(parse(&nested(64, r#"[{"a":{}},2,{"c":[]}]"#)));
        assert!(copy.to_json().to_string().contains("[null,2,null]"));
        assert_eq!(cuts[0].count, 2);
    }

    #[test]
    fn cuts_are_counted_per_setting_in_file_order() {
        // The list is at level 64 under each setting: its two lists are cut.
        let deep = nested(63, "[[1],[2]]");
        let text = format!(r#"{{"b":{deep},"model":"x","a":{deep}}}"#);
        let (copy, cuts) = cut(parse(&text));
        let got: Vec<_> = cuts.iter().map(|c| (c.key.as_str(), c.count)).collect();
        assert_eq!(got, [("b", 2), ("a", 2)]);
        assert_eq!(copy.get("model").and_then(Node::as_str), Some("x"));
        assert_eq!(
            warning(&cuts[0], true),
            "2 values under \"b\" are nested more than 64 levels deep, so Claude Code ignores them, and leaves them out if it saves a setting to this file. Reduce the nesting under \"b\"."
        );
        let one = Cut {
            key: "a b".to_owned(),
            count: 1,
            at: cuts[0].at,
        };
        assert_eq!(
            warning(&one, false),
            "A value under \"<key>\" is nested more than 64 levels deep, so Claude Code ignores it. Reduce the nesting under \"<key>\"."
        );
    }

    /// The deepest level of a container in `node` (`node` at `level`).
    fn depth(node: &Node, level: usize) -> usize {
        let children: Vec<&Node> = match &node.value {
            Value::Map(entries) => entries.iter().map(|(_, v)| v).collect(),
            Value::Seq(items) => items.iter().collect(),
            _ => return level - 1,
        };
        children
            .into_iter()
            .map(|c| depth(c, level + 1))
            .max()
            .unwrap_or(level)
            .max(level)
    }

    /// A deep value under a repeated key's earlier copy, which JavaScript
    /// never reads, is neither cut nor named.
    #[test]
    fn a_repeated_key_s_earlier_value_is_not_read() {
        let deep = nested(64, "[[1]]");
        let text = format!(r#"{{"s":{deep},"s":1}}"#);
        let root = parse(&text);
        let (copy, cuts) = cut(root.clone());
        assert!(cuts.is_empty());
        assert_eq!(copy, root);
        let text = format!(r#"{{"s":1,"s":{deep}}}"#);
        assert_eq!(cut(parse(&text)).1.len(), 1);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

        /// Whatever the shape, the copy holds no container deeper than 64
        /// levels, and something is cut exactly when the file had one.
        #[test]
        fn the_copy_is_never_deeper_than_sixty_four_levels(
            shape in proptest::collection::vec(0u8..3, 1..120),
        ) {
            // Each step wraps the value in an object, a list, or an object
            // beside a leaf.
            let text = shape.iter().fold("1".to_owned(), |v, s| match s {
                0 => format!(r#"{{"k":{v}}}"#),
                1 => format!("[{v}]"),
                _ => format!(r#"{{"a":2,"k":{v}}}"#),
            });
            let text = format!(r#"{{"s":{text}}}"#);
            let root = parse(&text);
            let deep = depth(&root, 1) > MAX_LEVELS;
            let (copy, cuts) = cut(root);
            proptest::prop_assert!(depth(&copy, 1) <= MAX_LEVELS);
            proptest::prop_assert_eq!(deep, !cuts.is_empty());
        }
    }
}
