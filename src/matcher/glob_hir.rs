//! The syntax tree of a glob's regex, built without parsing it.
//!
//! A peen `path` glob is checked by estimating the compiled size of the
//! regex `globset` translates it to (see [`super::pattern`]). Parsing that
//! regex with `regex_syntax` (syntax tree, then translation) was most of
//! the cost of checking a glob: 10,000 globs took ~75 ms of a ~100 ms
//! check. `globset` writes a small, fixed subset of the regex syntax, so
//! [`translate`] reads that subset directly and builds the same [`Hir`]
//! with `regex_syntax`'s own constructors, which normalise it exactly as
//! its translator does (literals merged, one-byte classes made literals,
//! nested concatenations flattened). Anything outside the subset gives
//! `None`, and the caller parses the regex as before; a test compares the
//! two on generated globs.
//!
//! The subset: `(?-u)^` … `$` around a sequence of literals (a character,
//! a `\`-escaped meta character or a `\xHH` byte), `.`, classes `[…]` /
//! `[^…]` of such literals and ranges, non-capturing groups `(?:…|…)`, and `*` or `?` after an item.

use regex_syntax::hir::{Class, ClassBytes, ClassBytesRange, Dot, Hir, Look, Repetition};

/// Groups nest at most this deep here; deeper regexes take the parser's
/// path, with its nesting limit (globs nest at most 32 deep anyway).
const MAX_DEPTH: usize = 40;

/// The [`Hir`] `regex_syntax` gives for `regex` (parsed without Unicode
/// and UTF-8 checks, `.` matching any byte), or `None` if `regex` is not
/// in the subset `globset` writes.
pub(super) fn translate(regex: &str) -> Option<Hir> {
    let body = regex.strip_prefix("(?-u)^")?.strip_suffix('$')?;
    let mut reader = Reader {
        bytes: body.as_bytes(),
        at: 0,
    };
    let hir = reader.alternation(0)?;
    if reader.at != reader.bytes.len() {
        return None;
    }
    Some(Hir::concat(vec![
        Hir::look(Look::Start),
        hir,
        Hir::look(Look::End),
    ]))
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn eat(&mut self, s: &[u8]) -> bool {
        let found = self
            .bytes
            .get(self.at..)
            .is_some_and(|rest| rest.starts_with(s));
        if found {
            self.at += s.len();
        }
        found
    }

    /// Branches separated by `|`, up to a `)` or the end.
    fn alternation(&mut self, depth: usize) -> Option<Hir> {
        let mut branches = vec![self.concat(depth)?];
        while self.eat(b"|") {
            branches.push(self.concat(depth)?);
        }
        Some(if branches.len() == 1 {
            branches.pop()?
        } else {
            Hir::alternation(branches)
        })
    }

    /// Items up to a `|`, a `)` or the end.
    fn concat(&mut self, depth: usize) -> Option<Hir> {
        let mut items = Vec::new();
        while let Some(b) = self.peek() {
            let item = match b {
                b'|' | b')' => break,
                b'(' => {
                    if depth >= MAX_DEPTH || !self.eat(b"(?:") {
                        return None;
                    }
                    let inner = self.alternation(depth + 1)?;
                    if !self.eat(b")") {
                        return None;
                    }
                    inner
                }
                b'.' => {
                    self.at += 1;
                    Hir::dot(Dot::AnyByte)
                }
                b'[' => self.class()?,
                _ => Hir::literal([self.literal()?]),
            };
            let max = if self.eat(b"*") {
                None
            } else if self.eat(b"?") {
                Some(1)
            } else {
                items.push(item);
                continue;
            };
            // A second operator (`*?` is lazy, `**` an error) is outside
            // the subset.
            if matches!(self.peek(), Some(b'*' | b'?' | b'+' | b'{')) {
                return None;
            }
            let item = Hir::repetition(Repetition {
                min: 0,
                max,
                greedy: true,
                sub: Box::new(item),
            });
            items.push(item);
        }
        Some(Hir::concat(items))
    }

    /// One literal byte: a plain character, `\` and a meta character, or
    /// `\xHH`. Any other syntax is outside the subset.
    fn literal(&mut self) -> Option<u8> {
        let b = self.peek()?;
        if b == b'\\' {
            let next = *self.bytes.get(self.at + 1)?;
            if next == b'x' {
                let hex = self.bytes.get(self.at + 2..self.at + 4)?;
                let hex = std::str::from_utf8(hex).ok()?;
                if !hex.bytes().all(|h| h.is_ascii_hexdigit()) {
                    return None;
                }
                self.at += 4;
                return u8::from_str_radix(hex, 16).ok();
            }
            if !regex_syntax::is_meta_character(char::from(next)) {
                return None;
            }
            self.at += 2;
            return Some(next);
        }
        // A meta character here means syntax this reader does not know;
        // non-ASCII is never written raw by globset.
        if !b.is_ascii() || regex_syntax::is_meta_character(char::from(b)) {
            return None;
        }
        self.at += 1;
        Some(b)
    }

    /// `[…]` or `[^…]`: literals and `a-b` ranges.
    fn class(&mut self) -> Option<Hir> {
        self.at += 1;
        let negated = self.eat(b"^");
        let mut ranges = Vec::new();
        loop {
            if self.eat(b"]") {
                break;
            }
            // A literal `/` is written unescaped (`[^/]`); it is not a meta
            // character, so `literal` reads it.
            let start = self.literal()?;
            let end = if self.peek() == Some(b'-') && self.bytes.get(self.at + 1) != Some(&b']') {
                self.at += 1;
                self.literal()?
            } else {
                start
            };
            if start > end {
                return None;
            }
            ranges.push(ClassBytesRange::new(start, end));
        }
        if ranges.is_empty() {
            return None;
        }
        let mut class = ClassBytes::new(ranges);
        if negated {
            class.negate();
        }
        Some(Hir::class(Class::Bytes(class)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The parser's tree, or its error as text.
    fn parsed(regex: &str) -> Result<Hir, String> {
        regex_syntax::ParserBuilder::new()
            .nest_limit(200)
            .utf8(false)
            .dot_matches_new_line(true)
            .build()
            .parse(regex)
            .map_err(|e| e.to_string())
    }

    fn globset_regex(glob: &str) -> Option<String> {
        globset::GlobBuilder::new(glob)
            .literal_separator(true)
            .backslash_escape(true)
            .empty_alternates(true)
            .build()
            .ok()
            .map(|g| g.regex().to_owned())
    }

    #[test]
    fn ordinary_globs_are_in_the_subset_and_match_the_parser() {
        for glob in [
            "src/**/*.rs",
            "**/*.{rs,go}",
            "src/d17/**/*.{rs,go}",
            "*.md",
            "**",
            "docs/**",
            "a?c",
            "[a-z]*.txt",
            "[!a-c]x",
            "[/]",
            "{a,{b,c},}",
            "café/*.é",
            "[é-ü]",
            "a\\*b",
            "x y#z&w~v-u",
            "{,a}b",
            "{}",
        ] {
            let regex = globset_regex(glob).unwrap();
            let fast = translate(&regex);
            let slow = parsed(&regex);
            match (fast, slow) {
                (Some(f), Ok(s)) => assert_eq!(f, s, "{glob} → {regex}"),
                (None, _) => {
                    // Outside the subset: the caller parses it.
                    assert!(
                        ["[/]", "[é-ü]"].contains(&glob),
                        "{glob} → {regex} not read"
                    );
                }
                (Some(_), Err(e)) => panic!("{glob} → {regex}: read, but the parser says {e}"),
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        #[test]
        fn same_tree_as_the_parser(
            glob in prop::collection::vec(
                prop::sample::select(vec![
                    "*", "**", "/", "?", "[", "]", "!", "^", "-", "{", "}", ",", "\\",
                    "a", "b", "z", "0", ".", "é", "ü", " ", "#", "&", "~", "$", "(", ")",
                    "|", "+", "/**/", "[a-z]", "[!/]", "{a,b}", "\\*", "\n",
                ]),
                0..12,
            )
        ) {
            let glob = glob.concat();
            if let Some(regex) = globset_regex(&glob)
                && let Some(fast) = translate(&regex)
            {
                prop_assert_eq!(Ok(fast), parsed(&regex), "{:?} → {:?}", glob, regex);
            }
        }

        #[test]
        fn any_text_is_read_or_refused_without_panic(text in "\\PC{0,40}") {
            let _ = translate(&format!("(?-u)^{text}$"));
        }
    }
}
