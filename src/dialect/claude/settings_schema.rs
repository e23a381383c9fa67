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
//! Before the check Claude Code 2.1.332 cleans the file ([`clean`]), and a
//! PreToolUse, PermissionRequest or PreSkillShellCommand hook written outside `hooks` drops it
//! ([`guard_search`]).
//!
//! Written by hand: no crate reads zod schemas, and a JSON Schema
//! validator would read `null`, unions and `catch` differently.

use std::sync::OnceLock;

use serde_json::Value as Json;

use crate::config::yaml::{Node, Value};
use crate::diag::Position;

/// The description (`schema`) and the lists of the cleaning (`cleaning`),
/// parsed once.
fn doc() -> &'static Json {
    static DOC: OnceLock<Json> = OnceLock::new();
    DOC.get_or_init(|| {
        // The file is part of latch, tested below: it always parses.
        serde_json::from_str::<Json>(include_str!("settings_types.json")).unwrap_or(Json::Null)
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

/// Whether `node` passes `ty` (its path for the message).
fn fits(node: &Node, ty: &Json, path: &str) -> Result<(), Rejected> {
    if flag(ty, "catch") {
        return Ok(());
    }
    // A function Claude Code runs on the value before its check, where the
    // description knows it (`preprocessOp`).
    let replaced;
    let node = match ty.get("preprocessOp").map(|op| preprocess(node, op)) {
        Some(Pre::Absent) if flag(ty, "optional") || ty.get("default").is_some() => return Ok(()),
        Some(Pre::Absent) => return Err(wrong(node, path, &wanted(ty))),
        Some(Pre::Value(v)) => {
            replaced = v;
            &replaced
        }
        Some(Pre::Same) | None => node,
    };
    if ty.get("coerce").and_then(Json::as_str) == Some("string") {
        // `String(value)` fails only for an object whose own `toString` is
        // not a function (then `valueOf` gives the object back), and JSON
        // cannot make one a function.
        return match &node.value {
            Value::Map(_) if node.get("toString").is_some() => Err(wrong(node, path, "text")),
            _ => Ok(()),
        };
    }
    let t = ty.get("t").and_then(Json::as_str).unwrap_or("any");
    let ok = match (t, &node.value) {
        ("any", _) => true,
        (_, Value::Null) => flag(ty, "nullable") || t == "null",
        ("string", Value::Str(s)) => string(s, ty),
        ("number", Value::Int(_) | Value::Float(_)) => number(node, ty),
        ("boolean", Value::Bool(_)) => true,
        ("literal" | "enum", _) => ty
            .get("values")
            .and_then(Json::as_array)
            .is_some_and(|vs| vs.contains(&node.to_json())),
        ("array", Value::Seq(items)) => {
            if !len_fits(items.len(), ty) {
                return Err(wrong(node, path, "an array of another length"));
            }
            let item = ty.get("items").unwrap_or(&Json::Null);
            for (i, it) in items.iter().enumerate() {
                fits(it, item, &format!("{path}.{i}"))?;
            }
            true
        }
        ("record", Value::Map(entries)) => {
            let (keys, values) = (
                ty.get("keys").unwrap_or(&Json::Null),
                ty.get("values").unwrap_or(&Json::Null),
            );
            for (name, k, v) in last_of_each(entries) {
                if name == "__proto__" {
                    continue;
                }
                fits(k, keys, &format!("{path} key {name:?}"))?;
                fits(v, values, &format!("{path}.{name}"))?;
            }
            true
        }
        ("object", Value::Map(_)) => {
            object(node, ty, path)?;
            true
        }
        ("union", _) => ty
            .get("options")
            .and_then(Json::as_array)
            .is_some_and(|os| os.iter().any(|o| fits(node, o, path).is_ok())),
        ("discriminated", Value::Map(_)) => {
            let key = ty.get("key").and_then(Json::as_str).unwrap_or("type");
            let tag = node.get(key).map(Node::to_json);
            let chosen = ty.get("options").and_then(Json::as_array).and_then(|os| {
                os.iter().find(|o| {
                    o.pointer(&format!("/fields/{key}/values"))
                        .and_then(Json::as_array)
                        .is_some_and(|vs| tag.as_ref().is_some_and(|t| vs.contains(t)))
                })
            });
            match chosen {
                Some(option) => {
                    object(node, option, path)?;
                    true
                }
                None => false,
            }
        }
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(wrong(node, path, &wanted(ty)))
    }
}

/// An object's declared fields: each present one fits, each absent one
/// is optional; unknown keys are fine unless the object is strict.
fn object(node: &Node, ty: &Json, path: &str) -> Result<(), Rejected> {
    let join = |name: &str| {
        if path.is_empty() {
            name.to_owned()
        } else {
            format!("{path}.{name}")
        }
    };
    let fields = ty.get("fields").and_then(Json::as_object);
    for (name, field) in fields.into_iter().flatten() {
        match node.get(name) {
            Some(value) => fits(value, field, &join(name))?,
            None if flag(field, "optional")
                || flag(field, "catch")
                || field.get("default").is_some() => {}
            None => {
                return Err(Rejected {
                    setting: String::new(),
                    at: node.position,
                    message: format!("`{}` is required", join(name)),
                });
            }
        }
    }
    if ty.get("unknown").and_then(Json::as_str) == Some("strict")
        && let Some((k, _)) = node
            .as_map()
            .unwrap_or_default()
            .iter()
            .find(|(k, _)| !fields.is_some_and(|f| f.contains_key(&k.scalar_text())))
    {
        return Err(Rejected {
            setting: String::new(),
            at: k.position,
            message: format!("`{}` is not a setting here", join(&k.scalar_text())),
        });
    }
    Ok(())
}

/// What a function run before the check made of a value.
enum Pre {
    /// The value as it was.
    Same,
    /// Another value.
    Value(Node),
    /// No value (`undefined`): the field is absent.
    Absent,
}

/// The functions the description names (`gen_settings_types.js`'s
/// `knownOp`); one it does not name leaves the value as it is.
fn preprocess(node: &Node, op: &Json) -> Pre {
    let text = |s: &str| {
        Pre::Value(Node {
            value: Value::Str(s.to_owned()),
            position: node.position,
        })
    };
    match op["op"].as_str().unwrap_or_default() {
        // A marketplace plugin's `.` is `./`; `permissions.defaultMode`'s
        // `manual` is `default` (2.1.332, `zv`).
        "replaceValue" => match (node.as_str(), op["from"].as_str(), op["to"].as_str()) {
            (Some(s), Some(from), Some(to)) if s == from => text(to),
            _ => Pre::Same,
        },
        // An `mcp_tool` handler's `onFailure`: anything but `continue` is
        // `block` (2.1.332).
        "replaceUnlessEqual" => match (op["keep"].as_str(), op["to"].as_str()) {
            (Some(keep), _) if node.as_str() == Some(keep) => Pre::Same,
            (_, Some(to)) => text(to),
            _ => Pre::Same,
        },
        "objectElseUndefined" if node.as_map().is_none() => Pre::Absent,
        "nullToUndefined" if node.value == Value::Null => Pre::Absent,
        "absolutePathElseUndefined" if !node.as_str().is_some_and(|s| s.starts_with('/')) => {
            Pre::Absent
        }
        "filterArrayItemsIn" => match &node.value {
            Value::Seq(items) => {
                let allowed = op["values"].as_array();
                Pre::Value(Node {
                    value: Value::Seq(
                        items
                            .iter()
                            .filter(|i| {
                                i.as_str().is_some_and(|s| {
                                    allowed.is_some_and(|a| a.iter().any(|v| v.as_str() == Some(s)))
                                })
                            })
                            .cloned()
                            .collect(),
                    ),
                    position: node.position,
                })
            }
            _ => Pre::Same,
        },
        // A sandbox credential that is denied loses the fields of a masked
        // one that are wrong (2.1.332, `Fo`).
        "dropKeysNotFitting" => {
            let (Value::Map(entries), Some(key)) = (&node.value, op["when"]["key"].as_str()) else {
                return Pre::Same;
            };
            if node.get(key).map(Node::to_json).as_ref() != Some(&op["when"]["equals"]) {
                return Pre::Same;
            }
            let kept = entries
                .iter()
                .filter(|(k, v)| match op["keys"].get(k.scalar_text()) {
                    Some(t) => fits(v, t, "").is_ok(),
                    None => true,
                })
                .cloned()
                .collect();
            Pre::Value(Node {
                value: Value::Map(kept),
                position: node.position,
            })
        }
        _ => Pre::Same,
    }
}

fn string(s: &str, ty: &Json) -> bool {
    // 2.1.332 counts a string's length in code points, zod in UTF-16 units.
    let units = if ty.get("lengthIn").and_then(Json::as_str) == Some("codePoints") {
        s.chars().count()
    } else {
        s.encode_utf16().count()
    };
    let num = |k: &str| ty.get(k).and_then(Json::as_u64);
    if num("length").is_some_and(|n| units as u64 != n)
        || num("min").is_some_and(|n| (units as u64) < n)
        || num("max").is_some_and(|n| units as u64 > n)
    {
        return false;
    }
    if let Some(prefix) = ty.get("startsWith").and_then(Json::as_str)
        && !s.starts_with(prefix)
    {
        return false;
    }
    if flag(ty, "url") && !url_like(s) {
        return false;
    }
    ty.get("regex")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
        .filter_map(Json::as_str)
        .all(|pattern| {
            // JavaScript's reading of the pattern (`\\d` is ASCII only); a
            // match that runs out of steps is not held against the file.
            let mut budget = crate::matcher::PatternBudget::per_file();
            crate::matcher::ecma::EcmaRegex::new(pattern, &mut budget)
                .is_ok_and(|re| re.test(s).unwrap_or(true))
        })
}

/// A URL as far as latch checks it: a scheme, and a host after `//` for
/// the web's schemes (the WHATWG parser Claude Code uses accepts more
/// forms and checks hosts and ports further).
fn url_like(s: &str) -> bool {
    let s = crate::text::js_trim(s);
    let Some((scheme, rest)) = s.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    if !chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        || !chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    {
        return false;
    }
    match scheme.to_ascii_lowercase().as_str() {
        "http" | "https" | "ws" | "wss" | "ftp" => {
            let host = rest.trim_start_matches(['/', '\\']);
            let host = host.split(['/', '\\', '?', '#']).next().unwrap_or_default();
            !host.is_empty() && !host.contains(char::is_whitespace)
        }
        _ => !s.contains(char::is_whitespace) || scheme.eq_ignore_ascii_case("file"),
    }
}

fn number(node: &Node, ty: &Json) -> bool {
    let v = match node.value {
        Value::Int(i) => i as f64,
        Value::Float(f) => f,
        _ => return false,
    };
    let bound = |k: &str| ty.get(k).and_then(Json::as_f64);
    v.is_finite()
        && !(flag(ty, "int") && (v.fract() != 0.0 || v.abs() > 9_007_199_254_740_991.0))
        && bound("min").is_none_or(|m| v >= m)
        && bound("max").is_none_or(|m| v <= m)
        && bound("exclusiveMin").is_none_or(|m| v > m)
        && bound("exclusiveMax").is_none_or(|m| v < m)
}

fn len_fits(n: usize, ty: &Json) -> bool {
    let num = |k: &str| ty.get(k).and_then(Json::as_u64);
    num("min").is_none_or(|m| n as u64 >= m)
        && num("max").is_none_or(|m| n as u64 <= m)
        && num("length").is_none_or(|m| n as u64 == m)
}

fn flag(ty: &Json, key: &str) -> bool {
    ty.get(key).and_then(Json::as_bool) == Some(true)
}

/// `a string`, `one of "a", "b"`, … for a message.
fn wanted(ty: &Json) -> String {
    let values = || {
        ty.get("values")
            .and_then(Json::as_array)
            .map(|vs| {
                vs.iter()
                    .map(Json::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default()
    };
    match ty.get("t").and_then(Json::as_str).unwrap_or("any") {
        "string" if flag(ty, "url") => "a URL".to_owned(),
        "string" => "a string".to_owned(),
        "number" if flag(ty, "int") => "a whole number".to_owned(),
        "number" => "a number".to_owned(),
        "boolean" => "a boolean".to_owned(),
        "array" => "an array".to_owned(),
        "record" | "object" | "discriminated" => "an object".to_owned(),
        "literal" | "enum" => format!("one of {}", values()),
        "union" => "one of the forms Claude Code allows".to_owned(),
        other => other.to_owned(),
    }
}

fn wrong(node: &Node, path: &str, wanted: &str) -> Rejected {
    let found = if wanted.starts_with("one of") {
        node.to_json().to_string()
    } else {
        node.json_kind().to_owned()
    };
    Rejected {
        setting: String::new(),
        at: node.position,
        message: format!("`{path}` must be {wanted}, not {found}"),
    }
}

/// What Claude Code removes from a settings file before it checks it, in
/// its order (2.1.332's `TA`: `so`, then `Se`): the settings only managed
/// settings may set; an alias (`additionalMarketplaces`,
/// `allowedMarketplaces`), which becomes the setting it names; a `null`
/// of a setting that restricts (`allowManagedHooksOnly`, …); a permission
/// rule that is not text; the broken parts of `hooks` (`load` warns of
/// those); an `extraKnownMarketplaces` that is not an object or an entry of
/// it that does not fit (but one of a source type Claude Code does not
/// know, which fails the file); a `modelPicker`, `modelPricing` or
/// `remoteControl` of the wrong shape or a part of one that does not fit;
/// an `allowedMcpServers` or `deniedMcpServers` that is not a list, or an
/// entry of one that does not fit. An `enabledMcpjsonServers` or
/// `disabledMcpjsonServers` that is one server's name becomes a list of it.
/// Each removal is a warning here, and the file still loads. (Claude Code
/// also drops permission rules whose syntax it refuses; latch leaves them,
/// which changes nothing here.) Managed settings (2.1.332's `TA` with a
/// policy source: no `so`, no `w0t`) lose the `null` of a setting that
/// restricts (recorded: `m332_null_restricting`, `m332_amho_null`), the
/// permission rules that are not text, the MCP server lists' wrong parts
/// and `hooks`' broken parts; a wrong setting there is dropped alone
/// afterwards (`load`), so the rest of the cleaning changes nothing
/// they load.
pub fn clean(root: &Node, managed: bool) -> (Node, Vec<Rejected>) {
    let mut root = root.clone();
    let mut removed = Vec::new();
    let Value::Map(entries) = &mut root.value else {
        return (root, removed);
    };
    if managed {
        restricting_nulls(entries);
    } else {
        before_the_rest(entries, &mut removed);
    }
    for (key, value) in entries.iter_mut() {
        match key.scalar_text().as_str() {
            "permissions" => {
                let Value::Map(kinds) = &mut value.value else {
                    continue;
                };
                for (kind, rules) in kinds.iter_mut() {
                    let kind = kind.scalar_text();
                    if !["allow", "deny", "ask"].contains(&kind.as_str()) {
                        continue;
                    }
                    if let Value::Seq(items) = &mut rules.value {
                        items.retain(|rule| {
                            let text = rule.as_str().is_some();
                            if !text {
                                removed.push(Rejected {
                                    setting: "permissions".to_owned(),
                                    at: rule.position,
                                    message: format!(
                                        "`permissions.{kind}` holds {}, not a rule; Claude Code removes it",
                                        rule.json_kind()
                                    ),
                                });
                            }
                            text
                        });
                    }
                }
            }
            name @ ("allowedMcpServers" | "deniedMcpServers") => {
                let item = schema()
                    .pointer(&format!("/fields/{name}/items"))
                    .cloned()
                    .unwrap_or(Json::Null);
                match &mut value.value {
                    Value::Seq(items) => items.retain(|entry| match fits(entry, &item, name) {
                        Ok(()) => true,
                        Err(e) => {
                            removed.push(Rejected {
                                setting: name.to_owned(),
                                at: e.at,
                                message: format!("{}; Claude Code removes this entry", e.message),
                            });
                            false
                        }
                    }),
                    _ => {
                        removed.push(Rejected {
                            setting: name.to_owned(),
                            at: value.position,
                            message: format!(
                                "`{name}` must be an array, not {}; Claude Code ignores it",
                                value.json_kind()
                            ),
                        });
                        // Checked no further: `check` skips a null.
                        value.value = Value::Seq(Vec::new());
                    }
                }
            }
            "hooks" => {
                let events = schema()
                    .pointer("/fields/hooks/keys/values")
                    .and_then(Json::as_array);
                match &mut value.value {
                    Value::Map(entries) => entries.retain(|(k, v)| {
                        matches!(v.value, Value::Seq(_))
                            && events.is_some_and(|e| e.contains(&Json::from(k.scalar_text())))
                    }),
                    // Left for `check` to pass over (an empty object).
                    _ => value.value = Value::Map(Vec::new()),
                }
            }
            _ => {}
        }
    }
    (root, removed)
}

/// `Fr`: a `null` of a setting that restricts is no setting (removed
/// without a word, in managed settings too).
fn restricting_nulls(entries: &mut Vec<(Node, Node)>) {
    let nulls: Vec<String> = last_of_each(entries)
        .into_iter()
        .filter(|(name, _, v)| v.value == Value::Null && null_is_removed(name))
        .map(|(name, _, _)| name)
        .collect();
    for name in nulls {
        take(entries, &name);
    }
}

/// The steps of 2.1.332's cleaning that 2.1.197 did not have (`so`, `uwe`,
/// `Fr`, `w0t`, `Wr`, `Jr`, `Kr`, `Qr`), for a file that is not managed.
fn before_the_rest(entries: &mut Vec<(Node, Node)>, removed: &mut Vec<Rejected>) {
    let warn = |removed: &mut Vec<Rejected>, setting: &str, at: Position, message: String| {
        removed.push(Rejected {
            setting: setting.to_owned(),
            at,
            message,
        });
    };
    // `so`: what only managed settings may set. Each name once, in the
    // order the file first gives it: `take` removes every entry of it.
    let mut seen = std::collections::HashSet::new();
    let names: Vec<String> = entries
        .iter()
        .map(|(k, _)| k.scalar_text())
        .filter(|n| listed("managedOnly", n) && seen.insert(n.clone()))
        .collect();
    for name in &names {
        if let Some((_, v)) = take(entries, name) {
            warn(
                removed,
                name,
                v.position,
                format!("`{name}` counts only in managed settings; Claude Code ignores it here"),
            );
        }
    }
    // `uwe`: an alias is read as the setting it names, unless that is set
    // too (not `null`).
    for pair in doc()["cleaning"]["aliases"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let (Some(alias), Some(canonical)) = (pair[0].as_str(), pair[1].as_str()) else {
            continue;
        };
        let Some((key, value)) = take(entries, alias) else {
            continue;
        };
        if value.value == Value::Null {
            continue;
        }
        match last(entries, canonical) {
            Some(set) if set.value != Value::Null => warn(
                removed,
                alias,
                value.position,
                format!(
                    "`{alias}` is another name for `{canonical}`, which this file sets too; Claude Code ignores `{alias}`"
                ),
            ),
            _ => {
                take(entries, canonical);
                entries.push((
                    Node {
                        value: Value::Str(canonical.to_owned()),
                        position: key.position,
                    },
                    value,
                ));
            }
        }
    }
    restricting_nulls(entries);
    // `w0t`: one server's name is a list of it.
    for name in ["enabledMcpjsonServers", "disabledMcpjsonServers"] {
        if let Some(v) = last_mut(entries, name)
            && let Value::Str(s) = &v.value
            && !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            let one = v.clone();
            v.value = Value::Seq(vec![one]);
        }
    }
    // `Wr`: marketplaces.
    if let Some(v) = last_mut(entries, "extraKnownMarketplaces") {
        if let Value::Map(markets) = &mut v.value {
            let ty = schema()
                .pointer("/fields/extraKnownMarketplaces/values")
                .unwrap_or(&Json::Null);
            let mut gone = std::collections::HashSet::new();
            for (name, _, market) in last_of_each(markets) {
                let path = format!("extraKnownMarketplaces.{name}");
                let why = match fits(market, ty, &path) {
                    // A source type Claude Code does not know keeps the entry,
                    // which then fails the file.
                    Err(_) if unknown_source(market) => None,
                    Err(e) => Some((e.at, e.message)),
                    Ok(()) => match (
                        market
                            .get("source")
                            .and_then(|s| s.get("source"))
                            .and_then(Node::as_str),
                        market
                            .get("source")
                            .and_then(|s| s.get("name"))
                            .and_then(Node::as_str),
                    ) {
                        (Some("settings"), Some(own)) if own != name => Some((
                            market.position,
                            format!("`{path}` must be named as its source is, `{own}`"),
                        )),
                        _ => None,
                    },
                };
                if let Some((at, message)) = why {
                    warn(
                        removed,
                        "extraKnownMarketplaces",
                        at,
                        format!("{message}; Claude Code ignores this marketplace"),
                    );
                    gone.insert(name);
                }
            }
            markets.retain(|(k, _)| !gone.contains(&k.scalar_text()));
        } else {
            warn(
                removed,
                "extraKnownMarketplaces",
                v.position,
                format!(
                    "`extraKnownMarketplaces` must be an object of marketplaces, not {}; Claude Code ignores it",
                    v.json_kind()
                ),
            );
            take(entries, "extraKnownMarketplaces");
        }
    }
    // `Jr`: the model picker.
    if let Some(v) = last_mut(entries, "modelPicker") {
        let rows = v.get("options").map(|o| matches!(o.value, Value::Seq(_)));
        if rows == Some(true) {
            let ty = schema()
                .pointer("/fields/modelPicker/fields/options/items")
                .unwrap_or(&Json::Null);
            if let Value::Map(fields) = &mut v.value {
                drop_wrong(fields, "replaceBuiltInOptions", removed, "modelPicker");
                if let Some(Value::Seq(items)) = last_mut(fields, "options").map(|o| &mut o.value) {
                    items.retain(|row| match fits(row, ty, "modelPicker.options") {
                        Ok(()) => true,
                        Err(e) => {
                            warn(
                                removed,
                                "modelPicker",
                                e.at,
                                format!("{}; Claude Code ignores this row", e.message),
                            );
                            false
                        }
                    });
                }
            }
        } else {
            warn(
                removed,
                "modelPicker",
                v.position,
                format!(
                    "`modelPicker` must be an object with an `options` array, not {}; Claude Code ignores it",
                    v.get("options").map_or(v.json_kind(), Node::json_kind)
                ),
            );
            take(entries, "modelPicker");
        }
    }
    // `Kr`: the prices.
    if let Some(v) = last_mut(entries, "modelPricing") {
        if let Value::Map(fields) = &mut v.value {
            drop_wrong(fields, "multiplier", removed, "modelPricing");
            if let Some(o) = last_mut(fields, "overrides")
                && let Value::Map(rows) = &mut o.value
            {
                let ty = schema()
                    .pointer("/fields/modelPricing/fields/overrides/values")
                    .unwrap_or(&Json::Null);
                let mut gone = std::collections::HashSet::new();
                for (model, _, row) in last_of_each(rows) {
                    let path = format!("modelPricing.overrides.{model}");
                    let why = match fits(row, ty, &path) {
                        Err(e) => Some((e.at, e.message)),
                        Ok(()) if model == "constructor" || model == "__proto__" => {
                            Some((row.position, format!("`{path}` is no model's name")))
                        }
                        Ok(()) => None,
                    };
                    if let Some((at, message)) = why {
                        warn(
                            removed,
                            "modelPricing",
                            at,
                            format!("{message}; Claude Code ignores this row"),
                        );
                        gone.insert(model);
                    }
                }
                rows.retain(|(k, _)| !gone.contains(&k.scalar_text()));
            }
            drop_wrong(fields, "overrides", removed, "modelPricing");
        } else {
            warn(
                removed,
                "modelPricing",
                v.position,
                format!(
                    "`modelPricing` must be an object, not {}; Claude Code ignores it",
                    v.json_kind()
                ),
            );
            take(entries, "modelPricing");
        }
    }
    // `Qr`: Remote Control's options.
    if let Some(v) = last(entries, "remoteControl")
        && v.as_map().is_none()
    {
        let message = format!(
            "`remoteControl` must be an object, not {}; Claude Code ignores it",
            v.json_kind()
        );
        warn(removed, "remoteControl", v.position, message);
        take(entries, "remoteControl");
    }
}

/// A marketplace entry whose `source` (or a plugin's) is of a type Claude
/// Code does not know: its cleaning keeps it (`Wr`, `tka`).
fn unknown_source(market: &Node) -> bool {
    let Some(source) = market.get("source").filter(|s| s.as_map().is_some()) else {
        return false;
    };
    if source
        .get("source")
        .and_then(Node::as_str)
        .is_some_and(|t| !listed("marketplaceSources", t))
    {
        return true;
    }
    source
        .get("plugins")
        .and_then(Node::as_seq)
        .is_some_and(|plugins| {
            plugins.iter().any(|p| {
                p.get("source")
                    .filter(|s| s.as_map().is_some())
                    .and_then(|s| s.get("source"))
                    .and_then(Node::as_str)
                    .is_some_and(|t| !listed("pluginSources", t))
            })
        })
}

/// Removes `field` of the object `setting` where it does not fit its type.
fn drop_wrong(
    fields: &mut Vec<(Node, Node)>,
    field: &str,
    removed: &mut Vec<Rejected>,
    setting: &str,
) {
    let ty = schema()
        .pointer(&format!("/fields/{setting}/fields/{field}"))
        .unwrap_or(&Json::Null);
    let Some(value) = last(fields, field) else {
        return;
    };
    if let Err(e) = fits(value, ty, &format!("{setting}.{field}")) {
        removed.push(Rejected {
            setting: setting.to_owned(),
            at: e.at,
            message: format!("{}; Claude Code ignores it", e.message),
        });
        take(fields, field);
    }
}

/// Removes every entry of `key`, giving the last.
fn take(entries: &mut Vec<(Node, Node)>, key: &str) -> Option<(Node, Node)> {
    let mut gone = None;
    entries.retain(|(k, v)| {
        if k.as_str() == Some(key) {
            gone = Some((k.clone(), v.clone()));
            false
        } else {
            true
        }
    });
    gone
}

fn last<'a>(entries: &'a [(Node, Node)], key: &str) -> Option<&'a Node> {
    entries
        .iter()
        .rfind(|(k, _)| k.as_str() == Some(key))
        .map(|(_, v)| v)
}

fn last_mut<'a>(entries: &'a mut [(Node, Node)], key: &str) -> Option<&'a mut Node> {
    entries
        .iter_mut()
        .rfind(|(k, _)| k.as_str() == Some(key))
        .map(|(_, v)| v)
}

/// Claude Code 2.1.332's search for PreToolUse, PermissionRequest and
/// PreSkillShellCommand hooks where none is read (its `pe`, `Zje`, `Prt`,
/// `Y6`, `bwe`): a file that seems to hold one anywhere but under `hooks`
/// is dropped, so a guard written in the wrong place never goes unnoticed.
pub mod guard_search {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rejected(text: &str) -> Option<String> {
        let root = crate::config::json::parse(text).expect("JSON");
        let (cleaned, _) = clean(&root, false);
        check(&cleaned, &[]).into_iter().next().map(|r| r.message)
    }

    /// JSON keeps a repeated key's last value, and a file repeating one
    /// 200,000 times is checked in linear time.
    #[test]
    fn a_repeated_key_counts_once_its_last_value() {
        let many = format!(
            r#"{{"env":{{{}"N":"x"}},"model":5,"model":"opus"}}"#,
            r#""N":[],"#.repeat(200_000)
        );
        assert_eq!(rejected(&many), None);
        assert_eq!(
            rejected(r#"{"env":{"N":"x","N":{"toString":1}}}"#).as_deref(),
            Some("`env.N` must be text, not an object")
        );
    }

    /// A file repeating a setting only managed settings may set, and a
    /// marketplace or model-price entry Claude Code drops, 100,000 times
    /// beside as many others is cleaned in linear time (a quadratic
    /// cleaning would take minutes here).
    #[test]
    fn cleaning_a_file_of_many_repeated_keys_is_linear() {
        let many = format!(
            r#"{{{}{}"modelPricing":{{"overrides":{{{}"m":{{"input":1,"output":1,"cacheRead":1,"cacheWrite":1}}}}}},"model":"opus"}}"#,
            r#""isolation":1,"#.repeat(100_000),
            (0..100_000)
                .map(|i| format!(r#""k{i}":1,"#))
                .collect::<String>(),
            (0..100_000)
                .map(|i| format!(r#""r{i}":5,"#))
                .collect::<String>(),
        );
        assert_eq!(rejected(&many), None);
    }

    /// 2.1.332's schema library counts a text's length in code points (its
    /// `nI`; `autoCompactOfferAnswer.model`'s 200 holds 200 emoji), zod in
    /// UTF-16 units (2.1.197).
    #[test]
    fn lengths_are_counted_in_code_points() {
        let ty = serde_json::json!({"t": "string", "max": 2, "lengthIn": "codePoints"});
        assert!(string("\u{1F600}\u{1F600}", &ty));
        assert!(!string("\u{1F600}\u{1F600}\u{1F600}", &ty));
        let zod = serde_json::json!({"t": "string", "max": 2});
        assert!(!string("\u{1F600}\u{1F600}", &zod));
        assert!(string("ab", &zod));
    }

    #[test]
    fn the_description_parses_and_has_every_setting() {
        let fields = schema()["fields"].as_object().expect("fields");
        assert_eq!(fields.len(), 208);
        assert!(fields.contains_key("model") && fields.contains_key("permissions"));
        // And the lists of the cleaning.
        assert!(null_is_removed("allowManagedHooksOnly") && !null_is_removed("disableAllHooks"));
        assert!(listed("managedOnly", "managedMcpServers") && listed("guardEvents", "PreToolUse"));
    }

    /// The cases Claude Code's own schema was run on (the research's first
    /// cases, and the recordings).
    #[test]
    fn settings_claude_code_rejects_and_accepts() {
        for (text, why) in [
            (r#"{"model":5}"#, "`model` must be a string, not a number"),
            (r#"{"model":null}"#, "`model` must be a string, not null"),
            (
                r#"{"permissions":{"allow":"Bash"}}"#,
                "`permissions.allow` must be an array, not a string",
            ),
            (r#"{"env":[]}"#, "`env` must be an object, not an array"),
            (
                r#"{"statusLine":"x"}"#,
                "`statusLine` must be an object, not a string",
            ),
            (
                r#"{"cleanupPeriodDays":"5"}"#,
                "`cleanupPeriodDays` must be a whole number, not a string",
            ),
            (
                r#"{"cleanupPeriodDays":1.5}"#,
                "`cleanupPeriodDays` must be a whole number, not a number",
            ),
            (
                r#"{"includeCoAuthoredBy":"yes"}"#,
                "`includeCoAuthoredBy` must be a boolean, not a string",
            ),
            (
                r#"{"enabledPlugins":[]}"#,
                "`enabledPlugins` must be an object, not an array",
            ),
            (
                r#"{"apiKeyHelper":5}"#,
                "`apiKeyHelper` must be a string, not a number",
            ),
            (
                r#"{"disableAllHooks":"true"}"#,
                "`disableAllHooks` must be a boolean, not a string",
            ),
            (
                r#"{"sandbox":{"enabled":"true"}}"#,
                "`sandbox.enabled` must be a boolean, not a string",
            ),
            (
                r#"{"fallbackModel":"x"}"#,
                "`fallbackModel` must be an array, not a string",
            ),
            (
                r#"{"env":{"O":{"toString":1}}}"#,
                "`env.O` must be text, not an object",
            ),
        ] {
            assert_eq!(rejected(text).as_deref(), Some(why), "{text}");
        }
        for text in [
            r#"{"permissions":{"allow":[1,"Bash"],"deny":[null]}}"#.to_owned(),
            r#"{"allowedMcpServers":"x","deniedMcpServers":[{"serverName":"bad name"},{"serverName":"ok"}]}"#.to_owned(),
            r#"{"env":{"N":1,"Z":null,"O":{"a":1},"A":[1,2],"V":{"valueOf":1}}}"#.to_owned(),
            r#"{"unknownKey":5}"#.to_owned(),
            r#"{"theme":"nope","effortLevel":5}"#.to_owned(),
            r#"{"sandbox":{"bogus":1}}"#.to_owned(),
            r#"{"enabledPlugins":{"a@b":true}}"#.to_owned(),
            r#"{"hooks":{"PreToolUse":5}}"#.to_owned(),
            r#"{"model":5,"model":"opus"}"#.to_owned(),
        ] {
            assert_eq!(rejected(&text), None, "{text}");
        }
    }
}
