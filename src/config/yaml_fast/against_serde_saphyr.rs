//! The fast path against serde-saphyr on generated YAML: block and flow
//! collections, every kind of scalar, anchors, aliases, merges, tags,
//! comments, CRLF, tabs, duplicate keys, more documents, and random
//! corruption for syntax errors.

use crate::config::yaml;
use proptest::prelude::*;

/// A scalar; `{I}` stands for the indentation of continuation lines.
const SCALARS: &[&str] = &[
    ".md",
    ".5",
    ".e1",
    "-.md",
    "-rf",
    "--flag",
    "+x",
    "-inf",
    "-nan",
    "-Infinity",
    ".Nan",
    "-e5",
    "a",
    "Bash",
    "x y",
    "é",
    "😀 中",
    "g12",
    "/command",
    "src/**/*.{rs,go}",
    "a:b",
    "a#b",
    "a #c",
    "-x",
    "- x",
    "x-",
    "1",
    "-1",
    "0",
    "-0",
    "01",
    "+1",
    "12345678901234567890",
    "123456789012345678",
    "9223372036854775807",
    "-9223372036854775808",
    "0x1A",
    "0X1A",
    "0o17",
    "0b101",
    "1_000",
    "1.5",
    "-2.5e3",
    "1e999",
    ".5",
    ".inf",
    "-.Inf",
    ".nan",
    "+.nan",
    "inf",
    "nan",
    "NaN",
    "null",
    "Null",
    "NULL",
    "nUll",
    "~",
    "",
    "true",
    "True",
    "TRUE",
    "tRue",
    "false",
    "FALSE",
    "yes",
    "on",
    "no",
    "off",
    "y",
    "<<",
    "'it''s'",
    "''",
    "'1'",
    "'true'",
    "'null'",
    "\"a\\nb\"",
    "\"\\u00e9\\t\"",
    "\"\"",
    "\"1\"",
    "\"multi\n{I}line\"",
    "'multi\n{I}line'",
    "plain\n{I}continued",
    "|\n{I}lit\n{I}  more\n",
    "|-\n{I}lit\n",
    ">\n{I}folded\n{I}text\n",
    ">+\n{I}kept\n\n",
    "|2\n{I}  x\n",
    "&a x",
    "&b 1",
    "*a",
    "*b",
    "*nope",
    "!!str 1",
    "!!int 3",
    "!!float 1",
    "!!bool true",
    "!t x",
    "!!null ''",
    "? x",
    "@x",
    "`x",
    "%x",
    "x # comment",
    "[a, b]",
    "{a: 1}",
    "[]",
    "{}",
    "[a, [b, {c: d}]]",
    "{a: [1, 2], b: ~}",
    "{a, b}",
    "[a: 1]",
    "&m {x: 1}",
    "*m",
    "\tx",
    "x\t",
    "\"tab\there\"",
];
const KEYS: &[&str] = &[
    "a",
    "b",
    "a",
    "name",
    "/command",
    "x y",
    "'a'",
    "\"b\"",
    "1",
    "~",
    "null",
    "true",
    "<<",
    "'<<'",
    "é",
    "&k a",
    "*k",
    "!!str c",
    "? a",
    "[a]",
    "{a: 1}",
    "1.5",
    "\"\"",
    "key with spaces",
    "k:v",
];
/// Scalars and keys of the fast path's subset, so that large
/// documents stay in it.
const PLAIN_SCALARS: &[&str] = &[
    ".md",
    "-rf",
    "+x",
    "-inf",
    "a",
    "Bash",
    "x y",
    "é",
    "😀 中",
    "g12",
    "/command",
    "src/**/*.{rs,go}",
    "a:b",
    "a#b",
    "a #c",
    "-x",
    "x-",
    "1",
    "-1",
    "0",
    "123456789012345678",
    "-123456789012345678",
    "null",
    "Null",
    "NULL",
    "~",
    "",
    "true",
    "True",
    "TRUE",
    "false",
    "False",
    "FALSE",
    "yes",
    "'it''s'",
    "''",
    "'1'",
    "\"a\\nb\"",
    "\"\\u00e9\\t\"",
    "\"multi\n{I}line\"",
    "'multi\n{I}line'",
    "plain\n{I}continued",
    "|\n{I}lit\n{I}  more\n",
    "|-\n{I}lit\n",
    ">\n{I}folded\n{I}text\n",
    ">+\n{I}kept\n\n",
    "x # comment",
    "[a, b]",
    "{a: 1}",
    "[]",
    "{}",
    "[a, [b, {c: d}]]",
    "{a: [1, 2], b: ~}",
    "{a, b}",
    "[a: 1]",
    "\"tab\there\"",
];
const PLAIN_KEYS: &[&str] = &[
    "a",
    "b",
    "c",
    "name",
    "/command",
    "x y",
    "'d'",
    "\"e\"",
    "é",
    "key with spaces",
    "k:v",
    "f",
    "g",
    "h",
    "i",
    "j",
];
const SEPARATORS: &[&str] = &[" ", " ", " ", "  ", "\t", " \t"];

#[derive(Debug, Clone)]
enum Gen {
    Scalar(&'static str),
    Seq(Vec<Gen>),
    Map(Vec<(&'static str, &'static str, Gen)>),
    Flow(Box<Gen>),
}

fn tree(
    scalars: &'static [&'static str],
    keys: &'static [&'static str],
) -> impl Strategy<Value = Gen> {
    let leaf = prop::sample::select(scalars).prop_map(Gen::Scalar);
    leaf.prop_recursive(5, 48, 5, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Gen::Seq),
            prop::collection::vec(
                (
                    prop::sample::select(keys),
                    prop::sample::select(SEPARATORS),
                    inner.clone()
                ),
                0..5
            )
            .prop_map(Gen::Map),
            inner.prop_map(|g| Gen::Flow(Box::new(g))),
        ]
    })
}

fn flow(g: &Gen) -> String {
    match g {
        Gen::Scalar(s) if s.contains('\n') => "q".to_owned(),
        Gen::Scalar(s) => (*s).to_owned(),
        Gen::Seq(items) => {
            let items: Vec<String> = items.iter().map(flow).collect();
            format!("[{}]", items.join(", "))
        }
        Gen::Map(entries) => {
            let entries: Vec<String> = entries
                .iter()
                .map(|(k, sep, v)| format!("{k}:{sep}{}", flow(v)))
                .collect();
            format!("{{{}}}", entries.join(", "))
        }
        Gen::Flow(g) => flow(g),
    }
}

/// Renders `g` after a prefix (`key:` or `-`) whose line continues at
/// `indent`.
fn block(g: &Gen, indent: usize, sep: &str) -> String {
    let pad = " ".repeat(indent);
    match g {
        Gen::Scalar(s) => format!("{sep}{}", s.replace("{I}", &pad)),
        Gen::Seq(items) if !items.is_empty() => items
            .iter()
            .map(|item| format!("\n{pad}-{}", block(item, indent + 2, " ")))
            .collect(),
        Gen::Map(entries) if !entries.is_empty() => entries
            .iter()
            .map(|(k, sep, v)| format!("\n{pad}{k}:{}", block(v, indent + 2, sep)))
            .collect(),
        other => format!("{sep}{}", flow(other)),
    }
}

fn document(plain: bool) -> impl Strategy<Value = String> {
    // A plain document is a mapping of a few subtrees, as a
    // configuration file is.
    let tree = if plain {
        prop::collection::vec(tree(PLAIN_SCALARS, PLAIN_KEYS), 1..7)
            .prop_map(|values| {
                let keys = ["version", "hooks", "k2", "k3", "k4", "k5"];
                Gen::Map(
                    keys.into_iter()
                        .zip(values)
                        .map(|(k, v)| (k, " ", v))
                        .collect(),
                )
            })
            .boxed()
    } else {
        tree(SCALARS, KEYS).boxed()
    };
    let prefix = prop::sample::select(vec![
        "",
        "",
        "",
        "---\n",
        "--- ",
        "# c\n",
        "%YAML 1.2\n---\n",
        "%YAML 1.1\n---\n",
        "\u{feff}",
    ]);
    let suffix = prop::sample::select(vec![
        "\n",
        "\n",
        "",
        "\n...\n",
        "\n---\nb: 2\n",
        "\n# end",
        "\n---\n",
        "\n\n",
    ]);
    (prefix, tree, suffix, any::<bool>(), any::<bool>()).prop_map(
        |(prefix, tree, suffix, crlf, comments)| {
            let body = block(&tree, 0, "");
            let body = body.strip_prefix('\n').unwrap_or(&body);
            let mut text = format!("{prefix}{body}{suffix}");
            if comments {
                text = text.replace(":\n", ": # note\n");
            }
            if crlf {
                text = text.replace('\n', "\r\n");
            }
            text
        },
    )
}

/// A document, then maybe one character inserted or removed.
fn text(plain: bool) -> impl Strategy<Value = String> {
    let edit = prop::option::weighted(
        0.3,
        (
            any::<prop::sample::Index>(),
            prop::sample::select(vec![
                "", " ", "\t", "\n", ":", "-", "[", "]", "{", "}", ",", "'", "\"", "#", "&", "*",
                "!", "|", ">", "?", "%", "@", "\\", "\u{0}", "\u{85}", "\r",
            ]),
        ),
    );
    (document(plain), edit).prop_map(|(doc, edit)| match edit {
        None => doc,
        Some((at, piece)) => {
            let chars: Vec<char> = doc.chars().collect();
            if chars.is_empty() {
                return piece.to_owned();
            }
            let i = at.index(chars.len());
            let mut out: String = chars[..i].iter().collect();
            out.push_str(piece);
            // An empty piece removes the character.
            let rest = if piece.is_empty() { i + 1 } else { i };
            out.extend(&chars[rest..]);
            out
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn same_result_as_serde_saphyr(text in text(false)) {
        prop_assert_eq!(yaml::parse(&text), yaml::parse_with_serde_saphyr(&text), "{:?}", text);
    }

    #[test]
    fn same_result_as_serde_saphyr_on_plain_documents(text in text(true)) {
        prop_assert_eq!(yaml::parse(&text), yaml::parse_with_serde_saphyr(&text), "{:?}", text);
    }
}

/// The generator must reach the fast path often, or the comparison
/// above proves little.
#[test]
fn the_generator_reaches_the_fast_path() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    for (plain, least, size) in [(false, 100, 1), (true, 250, 8)] {
        let strategy = text(plain);
        let (mut fast, mut nodes) = (0, 0);
        for _ in 0..1000 {
            let text = strategy.new_tree(&mut runner).unwrap().current();
            if let Some(node) = super::parse(&text) {
                fast += 1;
                nodes += count(&node);
            }
        }
        assert!(fast > least, "only {fast} of 1000 on the fast path");
        assert!(nodes > size * fast, "{nodes} nodes in {fast} documents");
    }
}

fn count(node: &super::Node) -> usize {
    1 + match &node.value {
        super::Value::Seq(items) => items.iter().map(count).sum(),
        super::Value::Map(entries) => entries.iter().map(|(k, v)| count(k) + count(v)).sum(),
        _ => 0,
    }
}
