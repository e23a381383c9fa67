//! A parser for JavaScript regular expressions as `new RegExp(pattern)`
//! reads them: no flags, so not in Unicode mode, with the web-compatibility
//! grammar of ECMAScript Annex B (B.1.2) that every browser and Node.js
//! implement.
//!
//! The pattern is read as UTF-16 code units, as JavaScript does: without
//! the `u` flag an astral character is two units, in a literal and in a
//! class alike. What Annex B allows, beyond the strict grammar:
//! - `]`, `{` and `}` are literal where they cannot be read otherwise
//!   (`a]`, `a{`, `a{,5}`); a braced quantifier with nothing to repeat
//!   (`{2}`) is an error;
//! - `\N` is a back-reference only if the pattern has at least N capturing
//!   groups; otherwise a legacy octal escape (`\12` is U+000A) or the digit
//!   itself (`\8`);
//! - an unknown escape is the character itself (`\q`, `\/`, `\-`, `\p`),
//!   except `\c` (then the backslash is literal) and, in a pattern with a
//!   named group, `\k`;
//! - `\x` and `\u` without their hex digits are `x` and `u`;
//! - a class range with a class escape at one end (`[\d-z]`) is the union
//!   of the escape, `-` and the other end;
//! - a look-ahead may be quantified (`(?=a)*`).

use std::collections::HashMap;

/// How deep groups, classes and look-arounds may nest: as deep as latch's
/// other regexes ([`crate::matcher::pattern`]).
pub const MAX_NESTING: usize = 100;

/// A parsed pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    /// The pattern's tree.
    pub node: Node,
    /// How many capturing groups it has.
    pub groups: u32,
}

/// One node of a pattern. Characters are UTF-16 code units.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    /// Matches the empty string.
    Empty,
    /// One code unit.
    Unit(u16),
    /// A class of code units: sorted, non-overlapping inclusive ranges.
    Class {
        /// The ranges.
        ranges: Vec<(u16, u16)>,
        /// Whether the class matches the units outside the ranges.
        negated: bool,
    },
    /// `.`: any unit but a line terminator.
    Dot,
    /// `^` (the start of the text: no `m` flag).
    Start,
    /// `$` (the end of the text).
    End,
    /// `\b` (`true`) or `\B` (`false`), on ASCII word characters.
    WordBoundary(bool),
    /// A group; `Some(n)` for the n-th capturing group (from 1).
    Group(Box<Node>, Option<u32>),
    /// A look-around.
    Look {
        /// Look-ahead (`(?=`, `(?!`) or look-behind (`(?<=`, `(?<!`).
        ahead: bool,
        /// Negative (`!`).
        negated: bool,
        /// The body.
        node: Box<Node>,
    },
    /// A back-reference to group n (from 1).
    BackRef(u32),
    /// A quantified node.
    Repeat {
        /// What is repeated.
        node: Box<Node>,
        /// At least this many times.
        min: u32,
        /// At most this many times (`None`: no limit).
        max: Option<u32>,
        /// Greedy, or lazy (`*?`).
        greedy: bool,
    },
    /// A sequence.
    Concat(Vec<Node>),
    /// Alternatives, tried in order.
    Alt(Vec<Node>),
}

impl Node {
    /// Whether the node or a part of it needs more than a regular
    /// expression: a back-reference or a look-around.
    pub fn needs_backtracking(&self) -> bool {
        self.any(&|n| matches!(n, Node::BackRef(_) | Node::Look { .. }))
    }

    /// Whether the node or a part of it satisfies `test`.
    pub fn any(&self, test: &dyn Fn(&Node) -> bool) -> bool {
        test(self)
            || match self {
                Node::Group(n, _) | Node::Repeat { node: n, .. } | Node::Look { node: n, .. } => {
                    n.any(test)
                }
                Node::Concat(ns) | Node::Alt(ns) => ns.iter().any(|n| n.any(test)),
                _ => false,
            }
    }
}

/// A syntax error: V8's message and the character (from 0, in UTF-16 code
/// units) where it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// V8's words for it (`Nothing to repeat`, `Invalid group`, …).
    pub message: &'static str,
    /// Where, in code units from the start of the pattern.
    pub offset: usize,
}

/// Parses `pattern` as `new RegExp(pattern)` does.
pub fn parse(pattern: &str) -> Result<Pattern, SyntaxError> {
    let units: Vec<u16> = pattern.encode_utf16().collect();
    let (groups, names) = prescan(&units);
    let mut p = Parser {
        s: &units,
        i: 0,
        depth: 0,
        groups: 0,
        total_groups: groups,
        named: !names.is_empty(),
        all_names: names,
        names: HashMap::new(),
    };
    let node = p.disjunction()?;
    if p.i < units.len() {
        // Only an unmatched `)` stops a top-level disjunction.
        return Err(p.err("Unmatched ')'"));
    }
    Ok(Pattern {
        node,
        groups: p.groups,
    })
}

/// Counts the capturing groups and finds the named ones (name → first
/// group of that name), skipping escapes and classes, as engines do before
/// parsing: a back-reference may come before its group.
fn prescan(s: &[u16]) -> (u32, HashMap<Vec<u16>, u32>) {
    let (mut groups, mut named, mut i, mut in_class) = (0u32, HashMap::new(), 0, false);
    while i < s.len() {
        match s[i] {
            0x5C => i += 1, // `\`: skip the next unit
            0x5B => in_class = true,
            0x5D => in_class = false,
            0x28 if !in_class => {
                if s.get(i + 1) != Some(&0x3F) {
                    groups = groups.saturating_add(1);
                } else if s.get(i + 2) == Some(&0x3C)
                    && !matches!(s.get(i + 3), Some(&0x3D) | Some(&0x21))
                {
                    groups = groups.saturating_add(1);
                    if let Some(k) = s[i + 3..].iter().position(|&c| c == 0x3E) {
                        named.entry(s[i + 3..i + 3 + k].to_vec()).or_insert(groups);
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    (groups, named)
}

struct Parser<'a> {
    s: &'a [u16],
    i: usize,
    depth: usize,
    /// Capturing groups opened so far.
    groups: u32,
    /// Capturing groups in the whole pattern (from the pre-scan).
    total_groups: u32,
    /// Whether the pattern has a named group (`\k` is then a reference).
    named: bool,
    /// Every group name of the pattern (from the pre-scan).
    all_names: HashMap<Vec<u16>, u32>,
    /// The group names read so far (to refuse a duplicate).
    names: HashMap<Vec<u16>, u32>,
}

/// `\d`, `\s`, `\w` as ranges.
fn class_escape(c: u16) -> Option<(Vec<(u16, u16)>, bool)> {
    let digits = vec![(0x30, 0x39)];
    let word = vec![(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)];
    // WhiteSpace and LineTerminator of ECMAScript: the Unicode Space
    // Separators plus tab, VT, FF, BOM and the line terminators.
    let space = vec![
        (0x09, 0x0D),
        (0x20, 0x20),
        (0xA0, 0xA0),
        (0x1680, 0x1680),
        (0x2000, 0x200A),
        (0x2028, 0x2029),
        (0x202F, 0x202F),
        (0x205F, 0x205F),
        (0x3000, 0x3000),
        (0xFEFF, 0xFEFF),
    ];
    Some(match c {
        0x64 => (digits, false),
        0x44 => (digits, true),
        0x73 => (space, false),
        0x53 => (space, true),
        0x77 => (word, false),
        0x57 => (word, true),
        _ => return None,
    })
}

/// Sorts and merges ranges.
pub fn normalize(mut ranges: Vec<(u16, u16)>) -> Vec<(u16, u16)> {
    ranges.sort_unstable();
    let mut out: Vec<(u16, u16)> = Vec::with_capacity(ranges.len());
    for (a, b) in ranges {
        match out.last_mut() {
            Some(last) if u32::from(a) <= u32::from(last.1) + 1 => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

/// The complement of normalized ranges over all code units.
pub fn complement(ranges: &[(u16, u16)]) -> Vec<(u16, u16)> {
    let mut out = Vec::new();
    let mut next: u32 = 0;
    for &(a, b) in ranges {
        if u32::from(a) > next {
            out.push((next as u16, a - 1));
        }
        next = u32::from(b) + 1;
    }
    if next <= 0xFFFF {
        out.push((next as u16, 0xFFFF));
    }
    out
}

/// `ims-ims:` after `(?`: a modifiers group.
fn is_modifiers(s: &[u16]) -> bool {
    let flags = |c: &u16| matches!(*c, 0x69 | 0x6D | 0x73);
    let end = s.iter().position(|&c| c == 0x3A);
    end.is_some_and(|end| {
        let body = &s[..end];
        let (on, off) = match body.iter().position(|&c| c == 0x2D) {
            Some(d) => (&body[..d], &body[d + 1..]),
            None => (body, &[][..]),
        };
        !body.is_empty() && on.iter().all(flags) && off.iter().all(flags)
    })
}

fn is_digit(c: u16) -> bool {
    (0x30..=0x39).contains(&c)
}

fn hex(c: u16) -> Option<u16> {
    char::from_u32(u32::from(c))
        .and_then(|c| c.to_digit(16))
        .map(|d| d as u16)
}

/// One item of a class: a unit, or a class escape's ranges.
enum ClassAtom {
    Unit(u16),
    Set(Vec<(u16, u16)>),
}

impl Parser<'_> {
    fn err(&self, message: &'static str) -> SyntaxError {
        SyntaxError {
            message,
            offset: self.i,
        }
    }

    fn peek(&self) -> Option<u16> {
        self.s.get(self.i).copied()
    }

    fn peek_at(&self, k: usize) -> Option<u16> {
        self.s.get(self.i + k).copied()
    }

    fn eat(&mut self, c: u16) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn enter(&mut self) -> Result<(), SyntaxError> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(self.err("Regular expression too large"));
        }
        Ok(())
    }

    fn disjunction(&mut self) -> Result<Node, SyntaxError> {
        let mut alts = vec![self.alternative()?];
        while self.eat(b'|'.into()) {
            alts.push(self.alternative()?);
        }
        Ok(if alts.len() == 1 {
            alts.pop().unwrap_or(Node::Empty)
        } else {
            Node::Alt(alts)
        })
    }

    fn alternative(&mut self) -> Result<Node, SyntaxError> {
        let mut terms = Vec::new();
        while let Some(c) = self.peek() {
            if c == u16::from(b'|') || c == u16::from(b')') {
                break;
            }
            terms.push(self.term()?);
        }
        Ok(match terms.len() {
            0 => Node::Empty,
            1 => terms.pop().unwrap_or(Node::Empty),
            _ => Node::Concat(terms),
        })
    }

    fn term(&mut self) -> Result<Node, SyntaxError> {
        let start = self.i;
        let c = self.peek().unwrap_or(0);
        let (atom, quantifiable) = match c {
            0x5E => {
                self.i += 1;
                (Node::Start, false)
            }
            0x24 => {
                self.i += 1;
                (Node::End, false)
            }
            0x5C if matches!(self.peek_at(1), Some(0x62) | Some(0x42)) => {
                let b = self.peek_at(1) == Some(0x62);
                self.i += 2;
                (Node::WordBoundary(b), false)
            }
            0x28 => self.group()?,
            0x2E => {
                self.i += 1;
                (Node::Dot, true)
            }
            0x5B => (self.class()?, true),
            0x5C => (self.atom_escape()?, true),
            0x2A | 0x2B | 0x3F => return Err(self.err("Nothing to repeat")),
            0x7B => {
                if self.braced_quantifier().is_some() {
                    self.i = start;
                    return Err(self.err("Nothing to repeat"));
                }
                self.i = start + 1;
                (Node::Unit(c), true)
            }
            _ => {
                self.i += 1;
                (Node::Unit(c), true)
            }
        };
        let q_at = self.i;
        let Some((min, max)) = self.quantifier()? else {
            return Ok(atom);
        };
        if !quantifiable {
            self.i = q_at;
            return Err(self.err("Nothing to repeat"));
        }
        let greedy = !self.eat(b'?'.into());
        Ok(Node::Repeat {
            node: Box::new(atom),
            min,
            max,
            greedy,
        })
    }

    /// A quantifier prefix, if one follows; a `{` that does not make one is
    /// left for the next term (a literal).
    fn quantifier(&mut self) -> Result<Option<(u32, Option<u32>)>, SyntaxError> {
        let q = match self.peek() {
            Some(0x2A) => (0, None),
            Some(0x2B) => (1, None),
            Some(0x3F) => (0, Some(1)),
            Some(0x7B) => {
                let at = self.i;
                match self.braced_quantifier() {
                    Some((min, max)) => {
                        if max.is_some_and(|m| m < min) {
                            self.i = at;
                            return Err(self.err("numbers out of order in {} quantifier"));
                        }
                        return Ok(Some((min, max)));
                    }
                    None => {
                        self.i = at;
                        return Ok(None);
                    }
                }
            }
            _ => return Ok(None),
        };
        self.i += 1;
        Ok(Some(q))
    }

    /// `{n}`, `{n,}`, `{n,m}` at the cursor; on success the cursor is after
    /// it. Counts saturate (engines clamp them too).
    fn braced_quantifier(&mut self) -> Option<(u32, Option<u32>)> {
        let at = self.i;
        let res = (|| {
            if !self.eat(0x7B) {
                return None;
            }
            let min = self.number()?;
            let max = if self.eat(b','.into()) {
                if self.peek().is_some_and(is_digit) {
                    Some(self.number()?)
                } else {
                    None
                }
            } else {
                Some(min)
            };
            if !self.eat(0x7D) {
                return None;
            }
            Some((min, max))
        })();
        if res.is_none() {
            self.i = at;
        }
        res
    }

    fn number(&mut self) -> Option<u32> {
        let start = self.i;
        let mut n: u32 = 0;
        while let Some(c) = self.peek().filter(|c| is_digit(*c)) {
            n = n.saturating_mul(10).saturating_add(u32::from(c - 0x30));
            self.i += 1;
        }
        (self.i > start).then_some(n)
    }

    /// `(`…`)` in all its forms; returns the node and whether it may be
    /// quantified.
    fn group(&mut self) -> Result<(Node, bool), SyntaxError> {
        let open = self.i;
        self.i += 1;
        self.enter()?;
        let result = if self.eat(b'?'.into()) {
            match self.peek() {
                Some(0x3A) => {
                    self.i += 1;
                    let n = self.disjunction()?;
                    (Node::Group(Box::new(n), None), true)
                }
                Some(0x3D) | Some(0x21) => {
                    let negated = self.peek() == Some(0x21);
                    self.i += 1;
                    let n = self.disjunction()?;
                    // Annex B: a look-ahead may be quantified.
                    (
                        Node::Look {
                            ahead: true,
                            negated,
                            node: Box::new(n),
                        },
                        true,
                    )
                }
                Some(0x3C) if matches!(self.peek_at(1), Some(0x3D) | Some(0x21)) => {
                    let negated = self.peek_at(1) == Some(0x21);
                    self.i += 2;
                    let n = self.disjunction()?;
                    (
                        Node::Look {
                            ahead: false,
                            negated,
                            node: Box::new(n),
                        },
                        false,
                    )
                }
                Some(0x3C) => {
                    self.i += 1;
                    let name = self.group_name()?;
                    self.groups = self.groups.saturating_add(1);
                    let index = self.groups;
                    if self.names.insert(name, index).is_some() {
                        self.i = open;
                        return Err(self.err("Duplicate capture group name"));
                    }
                    let n = self.disjunction()?;
                    (Node::Group(Box::new(n), Some(index)), true)
                }
                // Modifiers (`(?i:…)`, ES2025): Node.js 22 refuses them,
                // later versions accept them.
                Some(c) if is_modifiers(&self.s[self.i..]) => {
                    let _ = c;
                    self.i = open;
                    return Err(self.err(
                        "Invalid group: latch does not support modifiers (`(?i:…)`), which only newer JavaScript engines accept",
                    ));
                }
                // `(?i)`, `(?P<…>`, …
                _ => {
                    self.i = open;
                    return Err(self.err("Invalid group"));
                }
            }
        } else {
            self.groups = self.groups.saturating_add(1);
            let index = self.groups;
            let n = self.disjunction()?;
            (Node::Group(Box::new(n), Some(index)), true)
        };
        if !self.eat(b')'.into()) {
            self.i = open;
            return Err(self.err("Unterminated group"));
        }
        self.depth -= 1;
        Ok(result)
    }

    /// `name>` after `(?<` or `\k<`: an identifier, ending at `>`.
    fn group_name(&mut self) -> Result<Vec<u16>, SyntaxError> {
        let start = self.i;
        let end = self.s[start..]
            .iter()
            .position(|&c| c == 0x3E)
            .map(|k| start + k)
            .ok_or_else(|| self.err("Invalid capture group name"))?;
        let name = &self.s[start..end];
        let text = String::from_utf16(name).map_err(|_| self.err("Invalid capture group name"))?;
        let mut chars = text.chars();
        let first_ok = chars
            .next()
            .is_some_and(|c| c == '$' || c == '_' || c.is_alphabetic());
        let rest_ok = chars.all(|c| {
            c == '$' || c == '_' || c == '\u{200C}' || c == '\u{200D}' || c.is_alphanumeric()
        });
        if !first_ok || !rest_ok {
            return Err(self.err("Invalid capture group name"));
        }
        self.i = end + 1;
        Ok(name.to_vec())
    }

    /// After `\`, outside a class.
    fn atom_escape(&mut self) -> Result<Node, SyntaxError> {
        let backslash = self.i;
        self.i += 1;
        let Some(c) = self.peek() else {
            return Err(self.err("\\ at end of pattern"));
        };
        // A back-reference, if there are that many groups.
        if (0x31..=0x39).contains(&c) {
            let at = self.i;
            let n = self.number().unwrap_or(0);
            if n <= self.total_groups {
                return Ok(Node::BackRef(n));
            }
            self.i = at;
        }
        if c == 0x6B && self.named {
            self.i += 1;
            if !self.eat(0x3C) {
                return Err(self.err("Invalid named reference"));
            }
            let at = self.i;
            let name = self.group_name()?;
            return match self.all_names.get(&name) {
                Some(&n) => Ok(Node::BackRef(n)),
                None => {
                    self.i = at;
                    Err(self.err("Invalid named capture referenced"))
                }
            };
        }
        if let Some((ranges, negated)) = class_escape(c) {
            self.i += 1;
            return Ok(Node::Class {
                ranges: normalize(ranges),
                negated,
            });
        }
        if c == 0x63 && !self.peek_at(1).is_some_and(|l| l.is_ascii_letter()) {
            // Annex B: `\c` without a letter is a literal backslash.
            self.i = backslash + 1;
            return Ok(Node::Unit(0x5C));
        }
        Ok(Node::Unit(self.character_escape(false)?))
    }

    /// A character escape after `\` (cursor on the character after it).
    fn character_escape(&mut self, in_class: bool) -> Result<u16, SyntaxError> {
        let Some(c) = self.peek() else {
            return Err(self.err("\\ at end of pattern"));
        };
        self.i += 1;
        Ok(match c {
            0x66 => 0x0C,
            0x6E => 0x0A,
            0x72 => 0x0D,
            0x74 => 0x09,
            0x76 => 0x0B,
            0x63 => {
                // `\cX` (letters; in a class also digits and `_`).
                match self.peek() {
                    Some(l) if l.is_ascii_letter() || (in_class && (is_digit(l) || l == 0x5F)) => {
                        self.i += 1;
                        l % 32
                    }
                    _ => 0x63,
                }
            }
            0x30..=0x37 => {
                // Legacy octal: up to three digits, at most 0o377.
                let mut v = c - 0x30;
                if let Some(d) = self.peek().filter(|d| (0x30..=0x37).contains(d)) {
                    v = v * 8 + (d - 0x30);
                    self.i += 1;
                    if let Some(d) = self
                        .peek()
                        .filter(|d| c <= 0x33 && (0x30..=0x37).contains(d))
                    {
                        v = v * 8 + (d - 0x30);
                        self.i += 1;
                    }
                }
                v
            }
            0x78 => match (self.peek().and_then(hex), self.peek_at(1).and_then(hex)) {
                (Some(a), Some(b)) => {
                    self.i += 2;
                    a * 16 + b
                }
                _ => 0x78,
            },
            0x75 => {
                let digits: Option<Vec<u16>> =
                    (0..4).map(|k| self.peek_at(k).and_then(hex)).collect();
                match digits {
                    Some(d) => {
                        self.i += 4;
                        d.iter().fold(0u16, |v, h| v * 16 + h)
                    }
                    None => 0x75,
                }
            }
            0x6B if self.named => return Err(self.err("Invalid escape")),
            other => other,
        })
    }

    fn class(&mut self) -> Result<Node, SyntaxError> {
        let open = self.i;
        self.i += 1;
        let negated = self.eat(b'^'.into());
        let mut ranges = Vec::new();
        loop {
            let Some(c) = self.peek() else {
                self.i = open;
                return Err(self.err("Unterminated character class"));
            };
            if c == 0x5D {
                self.i += 1;
                break;
            }
            let first = self.class_atom()?;
            if self.peek() == Some(0x2D) && self.peek_at(1).is_some_and(|c| c != 0x5D) {
                let dash = self.i;
                self.i += 1;
                let second = self.class_atom()?;
                match (first, second) {
                    (ClassAtom::Unit(a), ClassAtom::Unit(b)) => {
                        if a > b {
                            self.i = dash;
                            return Err(self.err("Range out of order in character class"));
                        }
                        ranges.push((a, b));
                    }
                    // Annex B: a class escape at either end makes no range.
                    (a, b) => {
                        for atom in [a, ClassAtom::Unit(0x2D), b] {
                            match atom {
                                ClassAtom::Unit(u) => ranges.push((u, u)),
                                ClassAtom::Set(s) => ranges.extend(s),
                            }
                        }
                    }
                }
            } else {
                match first {
                    ClassAtom::Unit(u) => ranges.push((u, u)),
                    ClassAtom::Set(s) => ranges.extend(s),
                }
            }
        }
        Ok(Node::Class {
            ranges: normalize(ranges),
            negated,
        })
    }

    fn class_atom(&mut self) -> Result<ClassAtom, SyntaxError> {
        let Some(c) = self.peek() else {
            return Err(self.err("Unterminated character class"));
        };
        if c != 0x5C {
            self.i += 1;
            return Ok(ClassAtom::Unit(c));
        }
        self.i += 1;
        let Some(e) = self.peek() else {
            return Err(self.err("\\ at end of pattern"));
        };
        if let Some((ranges, negated)) = class_escape(e) {
            self.i += 1;
            let ranges = normalize(ranges);
            return Ok(ClassAtom::Set(if negated {
                complement(&ranges)
            } else {
                ranges
            }));
        }
        if e == 0x62 {
            self.i += 1;
            return Ok(ClassAtom::Unit(0x08));
        }
        if e == 0x63
            && !self
                .peek_at(1)
                .is_some_and(|l| l.is_ascii_letter() || is_digit(l) || l == 0x5F)
        {
            // Annex B: a literal backslash; `c` is read next.
            return Ok(ClassAtom::Unit(0x5C));
        }
        Ok(ClassAtom::Unit(self.character_escape(true)?))
    }
}

trait AsciiLetter {
    fn is_ascii_letter(&self) -> bool;
}

impl AsciiLetter for u16 {
    fn is_ascii_letter(&self) -> bool {
        (0x41..=0x5A).contains(self) || (0x61..=0x7A).contains(self)
    }
}
