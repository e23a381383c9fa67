//! The walk of one value against its type in the description.

use super::*;

/// Whether `node` passes `ty` (its path for the message).
pub(super) fn fits(node: &Node, ty: &Json, path: &str) -> Result<(), Rejected> {
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

pub(super) fn string(s: &str, ty: &Json) -> bool {
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
