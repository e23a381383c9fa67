//! A small schema checked as Claude Code 2.1.332 checks a hook's answer,
//! with the issue it reports.
//!
//! Claude Code reads a hook's JSON answer with a zod-v4-like library: an
//! object checks each of its schema's fields in order and gathers every
//! issue; a union that no branch passes gives one `invalid_union` issue
//! holding each branch's issues; a tagged union (`discriminatedUnion`)
//! checks only the branch its tag names. Claude Code then reports the first
//! issue, looking into unions (its `Ohn`): the first branch whose issues
//! have no wrong `async`, `hookEventName` or `behavior` value, its first
//! issue; if every branch has one, the values they expected.
//!
//! Written by hand: the messages and the choice of the issue are Claude
//! Code's own (no JSON Schema crate words them so), and the schema is
//! small and fixed.

use serde_json::Value;

/// What a value must be.
#[derive(Clone, Copy)]
pub(super) enum Schema {
    /// A string.
    Str,
    /// `true` or `false`.
    Bool,
    /// A number.
    Num,
    /// Anything, `null` included (`z.unknown()`, or a field whose errors
    /// are caught).
    Any,
    /// One of these strings (`z.enum`).
    OneOf(&'static [&'static str]),
    /// Exactly this value (`z.literal`).
    Is(Literal),
    /// A JSON object of anything (`z.record(z.string(), z.unknown())`).
    Record,
    /// A list of these.
    List(&'static Schema),
    /// An object with these fields; other keys are dropped.
    Object(&'static [Field]),
    /// One of these (`z.union`).
    Union(&'static [Schema]),
    /// The branch whose field `key` holds its tag
    /// (`z.discriminatedUnion(key, …)`).
    Tagged(&'static str, &'static [(&'static str, Schema)]),
}

/// A field of an object: its name, schema, and whether it may be left out
/// (`.optional()`: absent, never `null`).
pub(super) type Field = (&'static str, Schema, bool);

/// A literal value.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Literal {
    /// A string.
    Str(&'static str),
    /// `true`.
    True,
}

impl Literal {
    fn matches(self, v: &Value) -> bool {
        match self {
            Literal::Str(s) => v.as_str() == Some(s),
            Literal::True => v == &Value::Bool(true),
        }
    }

    /// As zod's messages quote it: a string in double quotes as it is.
    fn quoted(self) -> String {
        match self {
            Literal::Str(s) => format!("\"{s}\""),
            Literal::True => "true".to_owned(),
        }
    }

    /// As `JSON.stringify` writes it.
    fn json(self) -> String {
        match self {
            Literal::Str(s) => Value::from(s).to_string(),
            Literal::True => "true".to_owned(),
        }
    }
}

/// A step of a path: an object's key or a list's index.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Step {
    /// A key.
    Key(&'static str),
    /// An index.
    Index(usize),
}

/// One issue, as the library reports it.
struct Issue {
    /// Where, from the value checked.
    path: Vec<Step>,
    kind: Kind,
}

enum Kind {
    /// `invalid_type`: the type wanted and the one found.
    Type(&'static str, &'static str),
    /// `invalid_value`: the values allowed.
    Value(Vec<Literal>),
    /// `invalid_union`: each branch's issues.
    Union(Vec<Vec<Issue>>),
    /// A tagged union's tag matches no branch: the tags.
    NoTag(Vec<&'static str>),
}

/// The issue Claude Code reports: where, and its message.
#[derive(Debug, PartialEq)]
pub(super) struct Reported {
    /// The path, from the answer.
    pub path: Vec<Step>,
    /// The message, without zod's `Invalid input: ` lead.
    pub message: String,
}

impl Reported {
    /// The path as Claude Code writes it: steps joined by `.`, `(root)`
    /// for none.
    pub fn path_text(&self) -> String {
        if self.path.is_empty() {
            return "(root)".to_owned();
        }
        let steps: Vec<String> = self
            .path
            .iter()
            .map(|s| match s {
                Step::Key(k) => (*k).to_owned(),
                Step::Index(i) => i.to_string(),
            })
            .collect();
        steps.join(".")
    }
}

/// The issue Claude Code reports for `value` against `schema`; `None`
/// when it passes.
pub(super) fn first_issue(schema: Schema, value: &Value) -> Option<Reported> {
    let issues = check(schema, Some(value));
    issues.first().map(|issue| report(issue, Vec::new()))
}

/// The issues of `value` (`None`: absent) against `schema`.
fn check(schema: Schema, value: Option<&Value>) -> Vec<Issue> {
    let wrong = |expected| {
        vec![Issue {
            path: Vec::new(),
            kind: Kind::Type(expected, received(value)),
        }]
    };
    match schema {
        Schema::Any => Vec::new(),
        Schema::Str if value.is_some_and(Value::is_string) => Vec::new(),
        Schema::Str => wrong("string"),
        Schema::Bool if value.is_some_and(Value::is_boolean) => Vec::new(),
        Schema::Bool => wrong("boolean"),
        Schema::Num if value.is_some_and(Value::is_number) => Vec::new(),
        Schema::Num => wrong("number"),
        Schema::Record if value.is_some_and(Value::is_object) => Vec::new(),
        Schema::Record => wrong("record"),
        Schema::OneOf(allowed) => {
            if value
                .and_then(Value::as_str)
                .is_some_and(|s| allowed.contains(&s))
            {
                return Vec::new();
            }
            vec![Issue {
                path: Vec::new(),
                kind: Kind::Value(allowed.iter().map(|s| Literal::Str(s)).collect()),
            }]
        }
        Schema::Is(literal) => {
            if value.is_some_and(|v| literal.matches(v)) {
                return Vec::new();
            }
            vec![Issue {
                path: Vec::new(),
                kind: Kind::Value(vec![literal]),
            }]
        }
        Schema::List(item) => {
            let Some(Value::Array(items)) = value else {
                return wrong("array");
            };
            items
                .iter()
                .enumerate()
                .flat_map(|(i, v)| under(Step::Index(i), check(*item, Some(v))))
                .collect()
        }
        Schema::Object(fields) => {
            let Some(Value::Object(obj)) = value else {
                return wrong("object");
            };
            fields
                .iter()
                .filter(|(name, _, optional)| !*optional || obj.contains_key(*name))
                .flat_map(|(name, schema, _)| {
                    under(Step::Key(name), check(*schema, obj.get(*name)))
                })
                .collect()
        }
        Schema::Union(branches) => {
            let mut errors = Vec::new();
            for branch in branches {
                let issues = check(*branch, value);
                if issues.is_empty() {
                    return Vec::new();
                }
                errors.push(issues);
            }
            vec![Issue {
                path: Vec::new(),
                kind: Kind::Union(errors),
            }]
        }
        Schema::Tagged(key, branches) => {
            let Some(Value::Object(obj)) = value else {
                return wrong("object");
            };
            let tag = obj.get(key).and_then(Value::as_str);
            match branches.iter().find(|(t, _)| Some(*t) == tag) {
                Some((_, branch)) => check(*branch, value),
                None => vec![Issue {
                    path: vec![Step::Key(key)],
                    kind: Kind::NoTag(branches.iter().map(|(t, _)| *t).collect()),
                }],
            }
        }
    }
}

/// `issues` moved under `step`.
fn under(step: Step, mut issues: Vec<Issue>) -> Vec<Issue> {
    for issue in &mut issues {
        issue.path.insert(0, step);
    }
    issues
}

/// The type zod names for what it found.
fn received(value: Option<&Value>) -> &'static str {
    match value {
        None => "undefined",
        Some(Value::Null) => "null",
        Some(Value::Bool(_)) => "boolean",
        Some(Value::Number(_)) => "number",
        Some(Value::String(_)) => "string",
        Some(Value::Array(_)) => "array",
        Some(Value::Object(_)) => "object",
    }
}

/// Whether `issue` is a wrong `async`, `hookEventName` or `behavior`:
/// a branch with one is not the one the hook meant (Claude Code's `Chn`).
fn wrong_tag(issue: &Issue) -> bool {
    matches!(issue.kind, Kind::Value(_))
        && matches!(
            issue.path.last(),
            Some(Step::Key("async" | "hookEventName" | "behavior"))
        )
}

/// The issue Claude Code reports for `issue` found at `prefix` (its
/// `Ohn`).
fn report(issue: &Issue, prefix: Vec<Step>) -> Reported {
    let mut path = prefix;
    path.extend_from_slice(&issue.path);
    let errors = match &issue.kind {
        Kind::Union(errors) if !errors.is_empty() => errors,
        kind => {
            return Reported {
                path,
                message: message(kind),
            };
        }
    };
    let meant = errors
        .iter()
        .find(|branch| !branch.is_empty() && !branch.iter().any(wrong_tag))
        .and_then(|branch| branch.first());
    if let Some(first) = meant {
        return report(first, path);
    }
    let tags: Vec<&Issue> = errors.iter().flatten().filter(|i| wrong_tag(i)).collect();
    let Some(first) = tags.first() else {
        return Reported {
            path,
            message: "Invalid input".to_owned(),
        };
    };
    let mut values: Vec<String> = Vec::new();
    for tag in &tags {
        if let Kind::Value(allowed) = &tag.kind {
            for v in allowed.iter().map(|l| l.json()) {
                if !values.contains(&v) {
                    values.push(v);
                }
            }
        }
    }
    let more = if values.len() > 6 { " | \u{2026}" } else { "" };
    values.truncate(6);
    path.extend_from_slice(&first.path);
    Reported {
        path,
        message: format!("expected one of {}{more}", values.join(" | ")),
    }
}

/// An issue's message in zod v4's English words, without the
/// `Invalid input: ` lead Claude Code takes off.
fn message(kind: &Kind) -> String {
    match kind {
        Kind::Type(expected, received) => format!("expected {expected}, received {received}"),
        Kind::Value(allowed) => match allowed.as_slice() {
            [one] => format!("expected {}", one.quoted()),
            _ => {
                let quoted: Vec<String> = allowed.iter().map(|l| l.quoted()).collect();
                format!("Invalid option: expected one of {}", quoted.join("|"))
            }
        },
        Kind::Union(_) => "Invalid input".to_owned(),
        Kind::NoTag(tags) => {
            let quoted: Vec<String> = tags.iter().map(|t| format!("'{t}'")).collect();
            format!(
                "Invalid discriminator value. Expected {}",
                quoted.join(" | ")
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn first(schema: Schema, v: Value) -> Option<String> {
        first_issue(schema, &v).map(|r| format!("{}: {}", r.path_text(), r.message))
    }

    #[test]
    fn a_union_reports_the_branch_the_value_meant() {
        const PAIR: Schema = Schema::Object(&[(
            "x",
            Schema::Union(&[
                Schema::Object(&[
                    ("behavior", Schema::Is(Literal::Str("a")), false),
                    ("n", Schema::Num, true),
                ]),
                Schema::Object(&[
                    ("behavior", Schema::Is(Literal::Str("b")), false),
                    ("list", Schema::List(&Schema::Str), true),
                ]),
            ]),
            false,
        )]);
        assert_eq!(
            first(PAIR, json!({"x": {"behavior": "b", "list": []}})),
            None
        );
        assert_eq!(
            first(PAIR, json!({"x": {"behavior": "b", "list": ["s", 1]}})).as_deref(),
            Some("x.list.1: expected string, received number")
        );
        assert_eq!(
            first(PAIR, json!({"x": []})).as_deref(),
            Some("x: expected object, received array")
        );
        assert_eq!(
            first(PAIR, json!({})).as_deref(),
            Some("x: expected object, received undefined")
        );
        // A field of another name does not tell the branches apart: the
        // first branch speaks.
        const KINDS: Schema = Schema::Union(&[
            Schema::Object(&[("kind", Schema::Is(Literal::Str("a")), false)]),
            Schema::Object(&[("kind", Schema::Is(Literal::Str("b")), false)]),
        ]);
        assert_eq!(first(KINDS, json!({"kind": "b"})), None);
        assert_eq!(
            first(KINDS, json!({"kind": "c"})).as_deref(),
            Some("kind: expected \"a\"")
        );
    }

    #[test]
    fn wrong_names_list_what_every_branch_expected() {
        const NAMED: Schema = Schema::Union(&[
            Schema::Object(&[("behavior", Schema::Is(Literal::Str("allow")), false)]),
            Schema::Object(&[
                ("behavior", Schema::Is(Literal::Str("deny")), false),
                ("why", Schema::Str, true),
            ]),
        ]);
        assert_eq!(
            first(NAMED, json!({"behavior": 1})).as_deref(),
            Some("behavior: expected one of \"allow\" | \"deny\"")
        );
        // The deny branch has no wrong name: it speaks.
        assert_eq!(
            first(NAMED, json!({"behavior": "deny", "why": null})).as_deref(),
            Some("why: expected string, received null")
        );
    }

    #[test]
    fn enums_and_tags_in_zod_s_words() {
        const TAGGED: Schema = Schema::List(&Schema::Tagged(
            "type",
            &[
                (
                    "one",
                    Schema::Object(&[("mode", Schema::OneOf(&["x", "y"]), false)]),
                ),
                ("two", Schema::Object(&[])),
            ],
        ));
        assert_eq!(
            first(TAGGED, json!([{"type": "one", "mode": "z"}])).as_deref(),
            Some("0.mode: Invalid option: expected one of \"x\"|\"y\"")
        );
        assert_eq!(
            first(TAGGED, json!([{"type": "two"}, {"type": 3}])).as_deref(),
            Some("1.type: Invalid discriminator value. Expected 'one' | 'two'")
        );
        assert_eq!(
            first(Schema::Record, json!(null)).as_deref(),
            Some("(root): expected record, received null")
        );
    }
}
