//! Peen's `match` and `when`: tool name, affected paths (root, glob,
//! extensions) and JSON Pointer checks on the event input. Compiled at load.

use std::path::{Path, PathBuf};

use crate::matcher::{LazyRegex, PathGlob};
use serde_json::Value;

use crate::config::normalize;

use super::input::{EventInput, Reached, shorten};

/// One input check. Every check that is set must pass.
#[derive(Debug, Clone)]
pub struct Check {
    /// `exists: true|false`.
    pub exists: Option<bool>,
    /// `equals: <value>` (never null: `equals: null` is no check).
    pub equals: Option<Value>,
    /// `regex: <pattern>`, run on the value formatted as Go prints it.
    pub regex: Option<LazyRegex>,
}

/// A compiled `match` (or `when`).
#[derive(Debug, Clone, Default)]
pub struct Match {
    /// The exact tool name.
    pub tool: Option<String>,
    /// Where `tool` is written, if it is.
    pub tool_at: Option<crate::diag::Position>,
    /// The directory affected paths must be inside (as written).
    pub root: Option<String>,
    /// The glob affected paths must match, relative to the base.
    pub path: Option<PathGlob>,
    /// Extensions (with their leading dot) an affected path must have.
    pub extensions: Option<Vec<String>>,
    /// JSON Pointer (as written, and as unescaped tokens) → check.
    pub input: Vec<(String, Vec<String>, Check)>,
}

/// What a match is tested against.
#[derive(Debug, Clone, Copy)]
pub struct Subject<'a> {
    /// The tool name, on tool events.
    pub tool: Option<&'a str>,
    /// The agent's current directory.
    pub cwd: &'a Path,
    /// The affected paths, absolute and normalized.
    pub paths: &'a [PathBuf],
    /// The event input.
    pub input: &'a EventInput<'a>,
}

impl Match {
    /// Whether every field that is set matches.
    pub fn matches(&self, s: &Subject<'_>) -> bool {
        self.explain(s).is_ok()
    }

    /// `Ok` if every field that is set matches, else the first field that
    /// does not, in words.
    pub fn explain(&self, s: &Subject<'_>) -> Result<(), String> {
        if let Some(tool) = &self.tool
            && s.tool != Some(tool.as_str())
        {
            return Err(match s.tool {
                Some(t) => format!("tool is `{t}`, not `{tool}`"),
                None => format!("`tool: {tool}` never matches a lifecycle event"),
            });
        }
        if self.root.is_some() || self.path.is_some() || self.extensions.is_some() {
            self.any_path(s)?;
        }
        for (text, ptr, check) in &self.input {
            check.explain(text, s.input.pointer(ptr))?;
        }
        Ok(())
    }

    fn any_path(&self, s: &Subject<'_>) -> Result<(), String> {
        if s.paths.is_empty() {
            return Err("the event has no affected paths".to_owned());
        }
        let base = match &self.root {
            Some(r) => normalize(&s.cwd.join(r)),
            None => normalize(s.cwd),
        };
        let inside: Vec<(&PathBuf, &Path)> = s
            .paths
            .iter()
            .filter_map(|p| p.strip_prefix(&base).ok().map(|rel| (p, rel)))
            .collect();
        if inside.is_empty() {
            return Err(format!("no affected path is inside {}", base.display()));
        }
        let mut reason = String::new();
        for (p, rel) in inside {
            if let Some(glob) = &self.path
                && !glob.is_match(rel)
            {
                reason = format!("no affected path matches `path: {}`", glob.glob());
                continue;
            }
            if let Some(exts) = &self.extensions {
                let ext = go_ext(p);
                if !ext.is_some_and(|e| exts.contains(&e)) {
                    reason = format!("no affected path has an extension in [{}]", exts.join(", "));
                    continue;
                }
            }
            return Ok(());
        }
        Err(reason)
    }
}

impl Check {
    fn explain(&self, ptr: &str, value: Option<Reached<'_>>) -> Result<(), String> {
        if let Some(want) = self.exists
            && value.is_some() != want
        {
            return Err(if want {
                format!("input {ptr} does not exist")
            } else {
                format!("input {ptr} exists")
            });
        }
        if let Some(eq) = &self.equals
            && !value.is_some_and(|v| v.equals(eq))
        {
            return Err(match value {
                Some(v) => format!("input {ptr} is {v}, not {eq}"),
                None => format!("input {ptr} does not exist (wanted {eq})"),
            });
        }
        if let Some(re) = &self.regex {
            match value {
                Some(v) => {
                    let text = v.go_text();
                    if !re.is_match(&text) {
                        return Err(format!(
                            "input {ptr} ({:?}) does not match regex `{}`",
                            shorten(&text),
                            re.as_str()
                        ));
                    }
                }
                None => {
                    return Err(format!(
                        "input {ptr} does not exist (wanted regex `{}`)",
                        re.as_str()
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Go's `filepath.Ext`: the suffix from the last dot of the file name, so
/// `.gitignore` is its own extension and `Makefile` has none.
fn go_ext(p: &Path) -> Option<String> {
    let name = p.file_name()?.to_string_lossy();
    name.rfind('.').map(|i| name[i..].to_owned())
}

/// Equality as Go sees decoded JSON: every number is a float64, so `5`
/// equals `5.0`.
pub(super) fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

/// Parses a JSON Pointer into tokens (`~1` → `/`, `~0` → `~`). The empty
/// pointer is the whole input.
pub fn parse_pointer(ptr: &str) -> Result<Vec<String>, String> {
    if ptr.is_empty() {
        return Ok(Vec::new());
    }
    let Some(rest) = ptr.strip_prefix('/') else {
        return Err(format!("JSON Pointer {ptr:?} must start with \"/\""));
    };
    rest.split('/')
        .map(|t| {
            let mut out = String::new();
            let mut chars = t.chars();
            while let Some(c) = chars.next() {
                if c == '~' {
                    match chars.next() {
                        Some('0') => out.push('~'),
                        Some('1') => out.push('/'),
                        _ => {
                            return Err(format!(
                                "JSON Pointer {ptr:?} has a \"~\" not followed by 0 or 1"
                            ));
                        }
                    }
                } else {
                    out.push(c);
                }
            }
            Ok(out)
        })
        .collect()
}

/// A value as Go's `fmt` prints what `encoding/json` decoded: strings as
/// written, numbers as float64 `%v`, objects as `map[k:v …]` with sorted
/// keys, arrays as `[a b]`, null as `<nil>`.
pub fn go_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "<nil>".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => go_float(n.as_f64().unwrap_or(0.0)),
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(go_text).collect::<Vec<_>>().join(" ")
        ),
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let parts: Vec<String> = keys
                .iter()
                .map(|k| format!("{k}:{}", go_text(&m[*k])))
                .collect();
            format!("map[{}]", parts.join(" "))
        }
    }
}

/// Go's `%v` for a float64 (`strconv.FormatFloat(f, 'g', -1, 64)`): the
/// shortest representation, in exponent form when the exponent is below -4
/// or at least 6 (the precision Go uses for that decision in shortest mode).
pub(super) fn go_float(f: f64) -> String {
    if f == 0.0 {
        return "0".to_owned();
    }
    let exp = f.abs().log10().floor() as i32;
    if (-4..6).contains(&exp) {
        format!("{f}")
    } else {
        // Rust's `{:e}` is the shortest round-trip digits, like Go's 'g' with
        // precision -1; Go writes the exponent with a sign and two digits.
        let s = format!("{f:e}");
        match s.split_once('e') {
            Some((mant, e)) => {
                let (sign, digits) = match e.strip_prefix('-') {
                    Some(d) => ('-', d),
                    None => ('+', e),
                };
                format!("{mant}e{sign}{digits:0>2}")
            }
            None => s,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_format_as_go_prints_them() {
        assert_eq!(go_text(&json!("a b")), "a b");
        assert_eq!(go_text(&json!(100)), "100");
        assert_eq!(go_text(&json!(123456)), "123456");
        assert_eq!(go_text(&json!(1000000)), "1e+06");
        assert_eq!(go_text(&json!(1234567)), "1.234567e+06");
        assert_eq!(go_text(&json!(1.5)), "1.5");
        assert_eq!(go_text(&json!(1e21)), "1e+21");
        assert_eq!(go_text(&json!(0.00001)), "1e-05");
        assert_eq!(go_text(&json!(true)), "true");
        assert_eq!(go_text(&json!(null)), "<nil>");
        assert_eq!(go_text(&json!({"b": 1, "a": "x"})), "map[a:x b:1]");
        assert_eq!(go_text(&json!([1, "x"])), "[1 x]");
    }

    #[test]
    fn go_extensions_and_numeric_equality() {
        assert_eq!(
            go_ext(Path::new("/w/.gitignore")).as_deref(),
            Some(".gitignore")
        );
        assert_eq!(go_ext(Path::new("/w/a.tar.gz")).as_deref(), Some(".gz"));
        assert_eq!(go_ext(Path::new("/w/Makefile")), None);
        assert!(json_equal(&json!(5), &json!(5.0)));
        assert!(json_equal(&json!({"a": [1]}), &json!({"a": [1.0]})));
        assert!(!json_equal(&json!("5"), &json!(5)));
    }

    #[test]
    fn pointers_walk_objects_only() {
        let v = EventInput::value(json!({"a": {"b/c": 1, "t~": 2}, "paths": ["x"]}));
        let at = |p: &str| v.pointer(&parse_pointer(p).unwrap()).map(|r| r.to_string());
        assert_eq!(at("/a/b~1c").as_deref(), Some("1"));
        assert_eq!(at("/a/t~0").as_deref(), Some("2"));
        assert_eq!(at("/paths/0"), None);
        assert!(parse_pointer("a").is_err());
        assert!(parse_pointer("/a~2").is_err());
    }

    #[test]
    fn normalize_is_lexical() {
        assert_eq!(
            normalize(Path::new("/w/a/../b/./c")),
            PathBuf::from("/w/b/c")
        );
    }
}
