//! Claude Code's check of a whole settings file (2.1.197): every setting,
//! not only `hooks`, has a type, and one value of the wrong type makes
//! Claude Code skip the file entirely, its hooks, `env` and
//! `disableAllHooks` included (recorded: `r13_settings_model_num`,
//! `_perm_allow_str`, `_env_array`, `_env_model_num`,
//! `_disable_model_num`).
//!
//! The types are data: `settings_types.json`, generated from Claude Code's
//! own zod schema objects by `recordings/claude/gen_settings_types.js`
//! (which checked the description against zod on 3,318 inputs). This
//! module reads that description the way zod reads the schema: absent is
//! fine only for an optional field, `null` is never a value (except for
//! `env`, whose values are turned into text), unknown keys are ignored,
//! and a setting marked `catch` drops a bad value instead of failing.
//! What the description cannot say is not checked: a few refinements of
//! marketplace entries and sandbox lookups (`refined`), and a URL is
//! checked for a scheme and, for web schemes, a host, not parsed whole.
//! `hooks` is checked here only where latch's own loader, which reports
//! each problem where it is, found nothing (the loader does not read
//! every key Claude Code checks, such as `rewakeMessage`).
//!
//! Written by hand: no crate reads zod schemas, and a JSON Schema
//! validator would read `null`, unions and `catch` differently.

use std::sync::OnceLock;

use serde_json::Value as Json;

use crate::config::yaml::{Node, Value};

/// The description, parsed once.
fn schema() -> &'static Json {
    static SCHEMA: OnceLock<Json> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        serde_json::from_str::<Json>(include_str!("settings_types.json"))
            .map(|mut d| d["schema"].take())
            // The file is part of latch, tested below: it always parses.
            .unwrap_or(Json::Null)
    })
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

fn string(s: &str, ty: &Json) -> bool {
    // A value replaced before the check (a marketplace plugin's `.` is `./`).
    let s = match ty.get("preprocessOp") {
        Some(op) if op["op"] == "replaceValue" && op["from"].as_str() == Some(s) => {
            op["to"].as_str().unwrap_or(s)
        }
        _ => s,
    };
    let units = s.encode_utf16().count();
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

/// What Claude Code removes from a settings file before it checks it: a
/// permission rule that is not text, an `allowedMcpServers` or
/// `deniedMcpServers` that is not a list, or an entry of one that does
/// not fit, and the broken parts of `hooks` (`load.rs` warns of those).
/// Each other removal is a warning here, and the file still loads.
/// (Claude Code also drops permission rules whose syntax it refuses; latch
/// leaves them, which changes nothing here.)
pub fn clean(root: &Node) -> (Node, Vec<Rejected>) {
    let mut root = root.clone();
    let mut removed = Vec::new();
    let Value::Map(entries) = &mut root.value else {
        return (root, removed);
    };
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

#[cfg(test)]
mod tests {
    use super::*;

    fn rejected(text: &str) -> Option<String> {
        let root = crate::config::json::parse(text).expect("JSON");
        let (cleaned, _) = clean(&root);
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

    #[test]
    fn the_description_parses_and_has_every_setting() {
        let fields = schema()["fields"].as_object().expect("fields");
        assert_eq!(fields.len(), 146);
        assert!(fields.contains_key("model") && fields.contains_key("permissions"));
    }

    /// The cases Claude Code's own schema was run on (REPORT.md of the
    /// research, and the recordings).
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
