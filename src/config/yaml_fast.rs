//! The fast path of [`super::yaml::parse`]: the located tree built
//! straight from the YAML parser's events, for the documents that need none
//! of serde-saphyr's rules beyond the plainest ones.
//!
//! serde-saphyr spends about two thirds of its time above its event parser
//! (`granit_parser`): on a 1.7 MB file of 10,000 peen hooks the events alone
//! take ~50 ms, deserializing into `serde::de::IgnoredAny` ~150 ms and into
//! our `Spanned` tree ~175 ms. Other event parsers were measured on that file
//! too (`saphyr-parser` 47 ms, `yaml-rust2` 46 ms, `libyaml-safer` 36 ms),
//! but none is faster by enough to be worth a second grammar whose accepted
//! documents, positions and errors would all have to be proved equal to
//! serde-saphyr's. This module drives the *same* parser, with the options
//! serde-saphyr gives it, and so sees exactly the events serde-saphyr sees.
//!
//! It builds the tree only while the document stays in a subset where the
//! result is certain to equal serde-saphyr's, and gives up (returns `None`)
//! at the first thing outside it; the caller then parses the whole text
//! again with serde-saphyr. So every error (syntax, second document,
//! duplicate key, alias bomb, budget) and every anchor, alias, merge key,
//! tag or directive is still serde-saphyr's work, with its messages and
//! positions. The subset:
//!
//! - one document, no `%YAML` directive, no anchors, aliases or tags;
//! - mapping keys that are strings (quoted, block, or plain text that is not
//!   null, a boolean or a number), none of them `<<`, none repeated;
//! - plain scalars that are null (`~`, `null`, `Null`, `NULL`, nothing),
//!   booleans (`true`, `True`, `TRUE` and the same for false, as with
//!   `strict_booleans`), decimal integers of at most 18 digits without a
//!   leading zero or `+`, or text that does not start like a number (a digit,
//!   or `+`, `-` not followed by a letter) and is not a float written with a
//!   leading dot (`.5`, `.inf`), all resolved as serde-saphyr resolves them;
//! - well inside serde-saphyr's default budget (depth, nodes, events).
//!
//! A proptest and a fuzz target compare both paths on generated documents.

use std::borrow::Cow;

use granit_parser::{Event, Parser, ScalarStyle, Span};

use super::yaml::{Node, Value};
use crate::diag::Position;

/// Give up below serde-saphyr's default limits (depth 64, 250,000 nodes,
/// 1,000,000 events), whatever it counts exactly.
const MAX_DEPTH: usize = 48;
const MAX_NODES: usize = 200_000;
const MAX_EVENTS: usize = 800_000;
/// serde-saphyr refuses more than 64 MiB of scalar text; stay far below.
const MAX_TEXT: usize = 32 * 1024 * 1024;
/// Mappings up to this size look for a repeated key by comparing each new
/// key with the previous ones; larger ones use a hash set at their end.
const LINEAR_DUPLICATE_CHECK: usize = 16;

/// The located tree of `text`, or `None` if the document is outside the
/// subset this module handles (then serde-saphyr must parse it).
pub(super) fn parse(text: &str) -> Option<Node> {
    if text.len() > MAX_TEXT {
        return None;
    }
    let mut parser = Parser::new_from_str_with_options(text, parser_options());
    let mut stack: Vec<Open> = Vec::new();
    let mut root: Option<Node> = None;
    let mut documents = 0usize;
    let mut events = 0usize;
    let mut nodes = 0usize;
    while let Some(next) = parser.next_event() {
        let (event, span) = next.ok()?;
        events += 1;
        if events > MAX_EVENTS {
            return None;
        }
        let node = match event {
            Event::StreamStart | Event::StreamEnd | Event::DocumentEnd => continue,
            Event::DocumentStart(_, version) => {
                documents += 1;
                if documents > 1 || version.is_some() {
                    return None;
                }
                continue;
            }
            Event::Scalar(value, style, anchor, tag) => {
                if anchor != 0 || tag.is_some() {
                    return None;
                }
                nodes += 1;
                Node {
                    value: resolve(value, style)?,
                    position: position(&span),
                }
            }
            Event::SequenceStart(_, anchor, tag) | Event::MappingStart(_, anchor, tag)
                if anchor != 0 || tag.is_some() || stack.len() >= MAX_DEPTH =>
            {
                return None;
            }
            Event::SequenceStart(..) => {
                nodes += 1;
                stack.push(Open::Seq(position(&span), Vec::new()));
                continue;
            }
            Event::MappingStart(..) => {
                nodes += 1;
                stack.push(Open::Map(position(&span), Vec::new(), None));
                continue;
            }
            Event::SequenceEnd => match stack.pop()? {
                Open::Seq(position, items) => Node {
                    value: Value::Seq(items),
                    position,
                },
                Open::Map(..) => return None,
            },
            Event::MappingEnd => match stack.pop()? {
                Open::Map(position, entries, None) if !has_repeated_key(&entries) => Node {
                    value: Value::Map(entries),
                    position,
                },
                _ => return None,
            },
            // Aliases, anchor and comment events, and whatever a later
            // version of the parser adds.
            _ => return None,
        };
        if nodes > MAX_NODES {
            return None;
        }
        match stack.last_mut() {
            None if root.is_none() => root = Some(node),
            None => return None,
            Some(Open::Seq(_, items)) => items.push(node),
            Some(Open::Map(_, entries, key)) => match key.take() {
                Some(k) => {
                    if entries.len() < LINEAR_DUPLICATE_CHECK
                        && entries.iter().any(|(e, _)| e.as_str() == k.as_str())
                    {
                        return None;
                    }
                    entries.push((k, node));
                }
                None => match node.as_str() {
                    Some(s) if s != "<<" => *key = Some(node),
                    _ => return None,
                },
            },
        }
    }
    if !stack.is_empty() {
        return None;
    }
    root
}

/// A collection whose end event has not come yet.
enum Open {
    Seq(Position, Vec<Node>),
    /// The entries so far and the key waiting for its value.
    Map(Position, Vec<(Node, Node)>, Option<Node>),
}

/// The parser options serde-saphyr derives from its default [`Options`]
/// and [`Budget`] (`Options::parser_options`, which is private), so that
/// both see the same events.
///
/// [`Options`]: serde_saphyr::Options
/// [`Budget`]: serde_saphyr::Budget
fn parser_options() -> granit_parser::Options {
    let saphyr = serde_saphyr::Options::default();
    let budget = saphyr.budget.unwrap_or_default();
    let mut options = granit_parser::Options::default();
    options.simple_key_max_lookahead = budget.simple_key_max_lookahead;
    options.flow_nesting_limit = budget.flow_nesting_limit;
    options.block_nesting_limit = options
        .block_nesting_limit
        .max(budget.max_depth.saturating_add(1));
    options.emit_comments = false;
    options.strict_indentation = saphyr.strict_indentation;
    options.bom_inside_document_as_content = saphyr.bom_inside_document_as_content;
    options
}

/// Where an event's node starts, as serde-saphyr reports it (its
/// `location_from_span`: the parser's line, and its 0-based character
/// column plus one).
fn position(span: &Span) -> Position {
    Position {
        line: span.start.line() as u32,
        column: (span.start.col() + 1) as u32,
    }
}

/// The value of a scalar as serde-saphyr's untyped `deserialize_any`
/// resolves it with `strict_booleans`, or `None` where this module does not
/// know for sure (numbers other than small decimal integers).
fn resolve(text: Cow<'_, str>, style: ScalarStyle) -> Option<Value> {
    if style != ScalarStyle::Plain {
        return Some(Value::Str(text.into_owned()));
    }
    let value = match &*text {
        "" | "~" | "null" | "Null" | "NULL" => Value::Null,
        "true" | "True" | "TRUE" => Value::Bool(true),
        "false" | "False" | "FALSE" => Value::Bool(false),
        s => {
            let bytes = s.as_bytes();
            let (first, last) = (*bytes.first()?, *bytes.last()?);
            // serde-saphyr trims these before it resolves; a plain scalar
            // never has them at its ends, but do not rely on it.
            if matches!(first, b' ' | b'\t' | b'\r' | b'\n')
                || matches!(last, b' ' | b'\t' | b'\r' | b'\n')
            {
                return None;
            }
            if first == b'.' {
                // `.5`, `.inf`, `.NaN` are floats; `.md` is text.
                let special = ["inf", "nan"]
                    .iter()
                    .any(|w| s[1..].eq_ignore_ascii_case(w));
                if special || s.parse::<f64>().is_ok() {
                    return None;
                }
            } else if first.is_ascii_digit() || matches!(first, b'+' | b'-') {
                if let Some(i) = small_decimal(s) {
                    return Some(Value::Int(i));
                }
                // `-rf` and `+x` are text: a number needs a digit or a
                // dot after its sign (`-inf` is Rust's float, not YAML's).
                if !(matches!(first, b'+' | b'-')
                    && bytes.get(1).is_some_and(u8::is_ascii_alphabetic))
                {
                    return None;
                }
            }
            // Anything else is text: an integer or a float needs a digit
            // (or `.inf`, `.nan`) after an optional sign, and `inf`, `nan`
            // are text in YAML although Rust parses them as floats.
            return Some(Value::Str(text.into_owned()));
        }
    };
    Some(value)
}

/// `0`, or an optional `-` and 1 to 18 digits not starting with `0`.
fn small_decimal(s: &str) -> Option<i64> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    let bytes = digits.as_bytes();
    let plain = !bytes.is_empty() && bytes.len() <= 18 && bytes.iter().all(u8::is_ascii_digit);
    if !plain || (bytes[0] == b'0' && (bytes.len() > 1 || digits.len() != s.len())) {
        return None;
    }
    s.parse().ok()
}

/// Whether two keys of a large mapping are the same string (smaller
/// mappings were checked as each key came).
fn has_repeated_key(entries: &[(Node, Node)]) -> bool {
    if entries.len() <= LINEAR_DUPLICATE_CHECK {
        return false;
    }
    let mut seen = std::collections::HashSet::with_capacity(entries.len());
    !entries.iter().all(|(k, _)| seen.insert(k.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_decimals_only() {
        assert_eq!(small_decimal("0"), Some(0));
        assert_eq!(small_decimal("-12"), Some(-12));
        assert_eq!(
            small_decimal("123456789012345678"),
            Some(123456789012345678)
        );
        for s in [
            "-0",
            "01",
            "+1",
            "1.0",
            "1_0",
            "0x1",
            "-",
            "1234567890123456789",
            ".5",
        ] {
            assert_eq!(small_decimal(s), None, "{s}");
        }
    }

    #[test]
    fn plain_hook_files_take_the_fast_path() {
        let text = "version: 1\npreToolUse:\n  - name: g0\n    actions:\n      - type: inject\n        message: 'm0'\n        when:\n          path: \"src/**/*.{rs,go}\"\n          input:\n            /command: {regex: '^rm .*'}\n";
        let fast = parse(text).expect("in the subset");
        assert_eq!(Ok(fast), super::super::yaml::parse_with_serde_saphyr(text));
        let text = "extensions: [.md, -rf, +x, inf]\n";
        let fast = parse(text).expect("in the subset");
        assert_eq!(Ok(fast), super::super::yaml::parse_with_serde_saphyr(text));
    }

    #[test]
    fn the_rest_goes_to_serde_saphyr() {
        for text in [
            "a: &x 1\nb: *x\n",
            "a: !!str 1\n",
            "a: 1\na: 2\n",
            "<<: {a: 1}\n",
            "a: 1\n---\nb: 2\n",
            "%YAML 1.2\n---\na: 1\n",
            "a: 1.5\n",
            "a: .5\n",
            "a: -.inf\n",
            "a: .NaN\n",
            "a: 0x10\n",
            "1: a\n",
            "a: [1\n",
            "",
            "# only a comment\n",
        ] {
            assert_eq!(parse(text), None, "{text:?}");
        }
    }
}

#[cfg(test)]
mod against_serde_saphyr;
