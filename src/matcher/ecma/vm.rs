//! A backtracking matcher with ECMAScript's semantics, for the patterns the
//! `regex` crate cannot run (back-references, look-arounds) and for text
//! with astral characters, and with a limit on its work.
//!
//! It follows the specification's matchers (ECMA-262 §22.2.2) over UTF-16
//! code units, on an explicit backtracking stack (no recursion per
//! character, so a long text cannot overflow the stack):
//! - a quantified atom's captures are reset at each iteration, and an
//!   optional iteration that matched the empty string fails
//!   (`RepeatMatcher`);
//! - a back-reference to a group that has not matched matches the empty
//!   string;
//! - a look-around is atomic: its first match is kept, never backtracked
//!   into; a positive one keeps its captures, a negative one none;
//! - a look-behind matches its body backwards (right to left, as the
//!   specification's direction −1).
//!
//! Counted repetitions are unrolled (`a{2,4}` is `aa(?:a(?:a)?)?`), so the
//! program's size is bounded at compile time ([`MAX_PROGRAM`]); every
//! instruction run counts one step, and a search gives up after
//! [`STEP_LIMIT`] steps or [`MAX_STACK`] stacked alternatives.

use super::parse::{Node, Pattern};

/// The most instructions one program may have.
pub const MAX_PROGRAM: usize = 50_000;

/// The most steps (instructions run, over every start position and
/// look-around) of one search: 6 ms in a release build (`^(a+)+(?=b)`
/// on 40 `a`s and a `c`).
pub const STEP_LIMIT: u64 = 1_000_000;

/// The most saved alternatives and undo records at once.
pub const MAX_STACK: usize = 100_000;

/// The longest text searched, in UTF-16 code units.
pub const MAX_TEXT: usize = 4096;

/// A search that gave up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exhausted {
    /// It ran [`STEP_LIMIT`] steps or stacked [`MAX_STACK`] alternatives.
    Steps,
    /// The text is longer than [`MAX_TEXT`] code units.
    Text,
}

#[derive(Debug, Clone)]
enum Inst {
    /// One unit; `back` reads the unit before the position.
    Unit {
        u: u16,
        back: bool,
    },
    /// A class (index into the program's classes).
    Class {
        class: usize,
        back: bool,
    },
    /// `.`.
    Dot {
        back: bool,
    },
    Start,
    End,
    WordBoundary(bool),
    /// Try `first`, then `second`.
    Split(usize, usize),
    Jmp(usize),
    /// Store the position in a capture slot.
    Save(usize),
    /// Unset the slots `from..to` (a quantified atom's groups).
    Reset(usize, usize),
    /// Store the position in a register (an iteration's start).
    Mark(usize),
    /// Fail if the position is the register's (an empty iteration).
    CheckProgress(usize),
    BackRef {
        group: usize,
        back: bool,
    },
    /// A look-around whose body runs from the next instruction to its
    /// `Succeed`; the program continues at `next`.
    Look {
        negated: bool,
        next: usize,
    },
    /// The end of a look-around's body.
    Succeed,
    Match,
}

/// A compiled pattern.
#[derive(Debug, Clone)]
pub struct Program {
    insts: Vec<Inst>,
    classes: Vec<(Vec<(u16, u16)>, bool)>,
    slots: usize,
    registers: usize,
}

/// The number of instructions `node` compiles to (saturating), to refuse
/// an oversized pattern before building it.
pub fn size(node: &Node) -> u64 {
    match node {
        Node::Empty => 0,
        Node::Unit(_)
        | Node::Class { .. }
        | Node::Dot
        | Node::Start
        | Node::End
        | Node::WordBoundary(_)
        | Node::BackRef(_) => 1,
        Node::Group(n, cap) => size(n).saturating_add(if cap.is_some() { 2 } else { 0 }),
        Node::Look { node, .. } => size(node).saturating_add(2),
        Node::Repeat { node, min, max, .. } => {
            let body = size(node).saturating_add(4);
            let copies = match max {
                Some(m) => u64::from(*m),
                None => u64::from(*min).saturating_add(1),
            };
            body.saturating_mul(copies).saturating_add(1)
        }
        Node::Concat(ns) => ns.iter().map(size).fold(0, u64::saturating_add),
        Node::Alt(ns) => ns
            .iter()
            .map(|n| size(n).saturating_add(2))
            .fold(0, u64::saturating_add),
    }
}

/// Compiles a parsed pattern; `None` if it is over [`MAX_PROGRAM`].
pub fn compile(pattern: &Pattern) -> Option<Program> {
    if size(&pattern.node) > MAX_PROGRAM as u64 {
        return None;
    }
    let mut c = Compiler {
        p: Program {
            insts: Vec::new(),
            classes: Vec::new(),
            slots: 2 * (pattern.groups as usize + 1),
            registers: 0,
        },
    };
    c.node(&pattern.node, false);
    c.p.insts.push(Inst::Match);
    Some(c.p)
}

struct Compiler {
    p: Program,
}

/// The capturing groups inside a node: `(first, count)`.
fn groups_in(node: &Node) -> Option<(u32, u32)> {
    fn walk(n: &Node, lo: &mut u32, hi: &mut u32) {
        match n {
            Node::Group(inner, cap) => {
                if let Some(i) = cap {
                    *lo = (*lo).min(*i);
                    *hi = (*hi).max(*i);
                }
                walk(inner, lo, hi);
            }
            Node::Look { node, .. } | Node::Repeat { node, .. } => walk(node, lo, hi),
            Node::Concat(ns) | Node::Alt(ns) => ns.iter().for_each(|n| walk(n, lo, hi)),
            _ => {}
        }
    }
    let (mut lo, mut hi) = (u32::MAX, 0);
    walk(node, &mut lo, &mut hi);
    (hi >= lo).then(|| (lo, hi - lo + 1))
}

impl Compiler {
    fn pc(&self) -> usize {
        self.p.insts.len()
    }

    fn push(&mut self, i: Inst) -> usize {
        self.p.insts.push(i);
        self.p.insts.len() - 1
    }

    fn patch(&mut self, at: usize, to: usize) {
        match self.p.insts.get_mut(at) {
            Some(Inst::Split(_, b)) => *b = to,
            Some(Inst::Jmp(t)) => *t = to,
            Some(Inst::Look { next, .. }) => *next = to,
            _ => {}
        }
    }

    fn node(&mut self, node: &Node, back: bool) {
        match node {
            Node::Empty => {}
            Node::Unit(u) => {
                self.push(Inst::Unit { u: *u, back });
            }
            Node::Class { ranges, negated } => {
                self.p.classes.push((ranges.clone(), *negated));
                let class = self.p.classes.len() - 1;
                self.push(Inst::Class { class, back });
            }
            Node::Dot => {
                self.push(Inst::Dot { back });
            }
            Node::Start => {
                self.push(Inst::Start);
            }
            Node::End => {
                self.push(Inst::End);
            }
            Node::WordBoundary(b) => {
                self.push(Inst::WordBoundary(*b));
            }
            Node::BackRef(g) => {
                self.push(Inst::BackRef {
                    group: *g as usize,
                    back,
                });
            }
            Node::Group(inner, cap) => match cap {
                Some(i) => {
                    let (open, close) = (2 * *i as usize, 2 * *i as usize + 1);
                    // Backwards, the group's end is reached first.
                    self.push(Inst::Save(if back { close } else { open }));
                    self.node(inner, back);
                    self.push(Inst::Save(if back { open } else { close }));
                }
                None => self.node(inner, back),
            },
            Node::Look {
                ahead,
                negated,
                node,
            } => {
                let look = self.push(Inst::Look {
                    negated: *negated,
                    next: 0,
                });
                self.node(node, !*ahead);
                self.push(Inst::Succeed);
                let next = self.pc();
                self.patch(look, next);
            }
            Node::Concat(ns) => {
                if back {
                    ns.iter().rev().for_each(|n| self.node(n, back));
                } else {
                    ns.iter().for_each(|n| self.node(n, back));
                }
            }
            Node::Alt(ns) => {
                let mut jumps = Vec::new();
                for (k, n) in ns.iter().enumerate() {
                    if k + 1 < ns.len() {
                        let split = self.push(Inst::Split(0, 0));
                        let first = self.pc();
                        if let Some(Inst::Split(a, _)) = self.p.insts.get_mut(split) {
                            *a = first;
                        }
                        self.node(n, back);
                        jumps.push(self.push(Inst::Jmp(0)));
                        let next = self.pc();
                        self.patch(split, next);
                    } else {
                        self.node(n, back);
                    }
                }
                let end = self.pc();
                for j in jumps {
                    self.patch(j, end);
                }
            }
            Node::Repeat {
                node,
                min,
                max,
                greedy,
            } => self.repeat(node, *min, *max, *greedy, back),
        }
    }

    fn reset(&mut self, node: &Node) {
        if let Some((first, count)) = groups_in(node) {
            let from = 2 * first as usize;
            self.push(Inst::Reset(from, from + 2 * count as usize));
        }
    }

    fn repeat(&mut self, node: &Node, min: u32, max: Option<u32>, greedy: bool, back: bool) {
        // The mandatory iterations: no progress check.
        for _ in 0..min {
            self.reset(node);
            self.node(node, back);
        }
        let split = |c: &mut Compiler| {
            let at = c.push(Inst::Split(0, 0));
            let body = c.pc();
            (at, body)
        };
        let set_split = |c: &mut Compiler, at: usize, body: usize, exit: usize| {
            if let Some(Inst::Split(a, b)) = c.p.insts.get_mut(at) {
                (*a, *b) = if greedy { (body, exit) } else { (exit, body) };
            }
        };
        match max {
            None => {
                let (at, body) = split(self);
                let reg = self.p.registers;
                self.p.registers += 1;
                self.reset(node);
                self.push(Inst::Mark(reg));
                self.node(node, back);
                self.push(Inst::CheckProgress(reg));
                self.push(Inst::Jmp(at));
                let exit = self.pc();
                set_split(self, at, body, exit);
            }
            Some(max) => {
                let mut splits = Vec::new();
                for _ in min..max {
                    let (at, body) = split(self);
                    let reg = self.p.registers;
                    self.p.registers += 1;
                    self.reset(node);
                    self.push(Inst::Mark(reg));
                    self.node(node, back);
                    self.push(Inst::CheckProgress(reg));
                    splits.push((at, body));
                }
                let exit = self.pc();
                for (at, body) in splits {
                    set_split(self, at, body, exit);
                }
            }
        }
    }
}

fn is_word(u: u16) -> bool {
    matches!(u, 0x30..=0x39 | 0x41..=0x5A | 0x5F | 0x61..=0x7A)
}

fn in_class(ranges: &[(u16, u16)], u: u16) -> bool {
    ranges
        .binary_search_by(|&(a, b)| {
            if b < u {
                std::cmp::Ordering::Less
            } else if a > u {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

enum Frame {
    /// Resume at `pc` and `pos`.
    Alt { pc: usize, pos: usize },
    /// Undo a slot write.
    Slot { slot: usize, old: Option<usize> },
    /// Undo a register write.
    Register { reg: usize, old: usize },
}

struct Run<'a> {
    p: &'a Program,
    text: &'a [u16],
    steps: u64,
    /// The most steps this run may take.
    limit: u64,
}

impl Program {
    /// Whether the pattern matches anywhere in `text` (UTF-16 code units),
    /// as `RegExp.prototype.test` answers, in at most `allowance` steps
    /// (and never more than [`STEP_LIMIT`]); the steps taken are
    /// subtracted from it.
    pub fn is_match_within(&self, text: &[u16], allowance: &mut u64) -> Result<bool, Exhausted> {
        if text.len() > MAX_TEXT {
            return Err(Exhausted::Text);
        }
        let mut run = Run {
            p: self,
            text,
            steps: 0,
            limit: (*allowance).min(STEP_LIMIT),
        };
        let mut answer = Ok(false);
        for start in 0..=text.len() {
            let mut slots = vec![None; self.slots];
            let mut regs = vec![0; self.registers];
            match run.exec(0, start, &mut slots, &mut regs) {
                Ok(Some(_)) => {
                    answer = Ok(true);
                    break;
                }
                Ok(None) => {}
                Err(e) => {
                    answer = Err(e);
                    break;
                }
            }
        }
        *allowance = allowance.saturating_sub(run.steps);
        answer
    }
}

impl Run<'_> {
    /// Runs from `pc` at `pos` until `Match` or `Succeed`; returns the
    /// position there, or `None` when every alternative failed. On success
    /// the slots hold the captures of the path taken.
    fn exec(
        &mut self,
        pc: usize,
        pos: usize,
        slots: &mut [Option<usize>],
        regs: &mut [usize],
    ) -> Result<Option<usize>, Exhausted> {
        let (mut pc, mut pos) = (pc, pos);
        let mut stack: Vec<Frame> = Vec::new();
        let text = self.text;
        loop {
            self.steps += 1;
            if self.steps > self.limit || stack.len() > MAX_STACK {
                return Err(Exhausted::Steps);
            }
            let ok = match self.p.insts.get(pc) {
                None | Some(Inst::Match) | Some(Inst::Succeed) => return Ok(Some(pos)),
                Some(Inst::Unit { u, back }) => self.read(&mut pos, *back, |c| c == *u),
                Some(Inst::Class { class, back }) => {
                    let (ranges, negated) = &self.p.classes[*class];
                    self.read(&mut pos, *back, |c| in_class(ranges, c) != *negated)
                }
                Some(Inst::Dot { back }) => self.read(&mut pos, *back, |c| {
                    !matches!(c, 0x0A | 0x0D | 0x2028 | 0x2029)
                }),
                Some(Inst::Start) => pos == 0,
                Some(Inst::End) => pos == text.len(),
                Some(Inst::WordBoundary(b)) => {
                    let before = pos > 0 && is_word(text[pos - 1]);
                    let after = pos < text.len() && is_word(text[pos]);
                    (before != after) == *b
                }
                Some(Inst::Split(a, b)) => {
                    stack.push(Frame::Alt { pc: *b, pos });
                    pc = *a;
                    continue;
                }
                Some(Inst::Jmp(t)) => {
                    pc = *t;
                    continue;
                }
                Some(Inst::Save(s)) => {
                    stack.push(Frame::Slot {
                        slot: *s,
                        old: slots[*s],
                    });
                    slots[*s] = Some(pos);
                    true
                }
                Some(Inst::Reset(from, to)) => {
                    for (s, value) in slots.iter_mut().enumerate().take(*to).skip(*from) {
                        if let Some(old) = value.take() {
                            stack.push(Frame::Slot {
                                slot: s,
                                old: Some(old),
                            });
                        }
                    }
                    true
                }
                Some(Inst::Mark(r)) => {
                    stack.push(Frame::Register {
                        reg: *r,
                        old: regs[*r],
                    });
                    regs[*r] = pos;
                    true
                }
                Some(Inst::CheckProgress(r)) => regs[*r] != pos,
                Some(Inst::BackRef { group, back }) => {
                    match (slots[2 * group], slots[2 * group + 1]) {
                        (Some(s), Some(e)) if s <= e => {
                            let sub = &text[s..e];
                            let len = sub.len();
                            if *back {
                                if pos >= len && &text[pos - len..pos] == sub {
                                    pos -= len;
                                    true
                                } else {
                                    false
                                }
                            } else if text.len() - pos >= len && &text[pos..pos + len] == sub {
                                pos += len;
                                true
                            } else {
                                false
                            }
                        }
                        // A group that has not matched: the empty string.
                        _ => true,
                    }
                }
                Some(Inst::Look { negated, next }) => {
                    let (negated, next) = (*negated, *next);
                    let mut inner = slots.to_vec();
                    let found = self.exec(pc + 1, pos, &mut inner, regs)?.is_some();
                    if found && !negated {
                        // Keep the look-ahead's captures (undone on
                        // backtracking).
                        for (s, v) in inner.into_iter().enumerate() {
                            if slots[s] != v {
                                stack.push(Frame::Slot {
                                    slot: s,
                                    old: slots[s],
                                });
                                slots[s] = v;
                            }
                        }
                    }
                    if found != negated {
                        pc = next;
                        continue;
                    }
                    false
                }
            };
            if ok {
                pc += 1;
                continue;
            }
            // Backtrack.
            loop {
                match stack.pop() {
                    None => return Ok(None),
                    Some(Frame::Slot { slot, old }) => slots[slot] = old,
                    Some(Frame::Register { reg, old }) => regs[reg] = old,
                    Some(Frame::Alt { pc: p, pos: q }) => {
                        pc = p;
                        pos = q;
                        break;
                    }
                }
            }
        }
    }

    /// Reads one unit forwards or backwards if `test` accepts it.
    fn read(&self, pos: &mut usize, back: bool, test: impl Fn(u16) -> bool) -> bool {
        let at = if back {
            match pos.checked_sub(1) {
                Some(p) => p,
                None => return false,
            }
        } else {
            *pos
        };
        match self.text.get(at) {
            Some(&c) if test(c) => {
                *pos = if back { at } else { at + 1 };
                true
            }
            _ => false,
        }
    }
}
