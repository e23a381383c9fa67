//! The one path every configuration pattern takes: checked cheaply at load,
//! compiled lazily within a size limit.
//!
//! A pattern comes from a file in a repository, so an attacker chooses it.
//! Compiling a regex costs time and memory in proportion to its compiled
//! size, and refusing an oversized one only after trying costs as much
//! (about 10 ms each), so latch never compiles at load. Instead, in order:
//!
//! 1. the text is at most [`MAX_PATTERN_LEN`] bytes;
//! 2. it parses (`regex_syntax`, with its nesting limit; a glob is parsed
//!    by `globset`, and the regex it writes is read into the same syntax
//!    tree by `glob_hir.rs`, or parsed the same way if it is not in
//!    the subset that reader knows);
//! 3. its compiled size, estimated from the parsed form (a repetition
//!    multiplies, a class counts its UTF-8 sequences), is at most
//!    [`MAX_PATTERN_SIZE`];
//! 4. the file still has budget: every pattern of one file costs its
//!    estimate (or its length, if larger) plus [`PATTERN_BASE_COST`], and a
//!    file's patterns share [`FILE_PATTERN_BUDGET`].
//!
//! A pattern that passes is compiled on first use, with a size limit far
//! above what the estimate allows, so the compile cannot fail in practice;
//! if it ever did, the pattern matches nothing. Nothing here panics:
//! `globset`'s own `compile_matcher` panics on an oversized glob, so globs
//! are translated with `globset` and compiled here.

use std::fmt;
use std::path::Path;
use std::sync::OnceLock;

use regex::bytes::{Regex as BytesRegex, RegexBuilder as BytesRegexBuilder};
use regex::{Regex, RegexBuilder};
use regex_syntax::hir::{Class, Hir, HirKind};

/// The longest pattern (regex or glob) latch accepts, in bytes.
pub const MAX_PATTERN_LEN: usize = 16 * 1024;

/// The largest estimated compiled size of one pattern, in units of roughly
/// one automaton state. `\w{15}` (about 50,000) is at the limit; `.{1000}`
/// (28,000) and `(Bash|Edit|Write|Read){500}` (11,000) are within it.
pub const MAX_PATTERN_SIZE: u64 = 50_000;

/// What one file's patterns may cost together: about 10,000 ordinary
/// regexes, or 40 at [`MAX_PATTERN_SIZE`].
pub const FILE_PATTERN_BUDGET: u64 = 2_000_000;

/// What every pattern costs on top of its size (parsing, a compiled
/// regex's fixed overhead).
pub const PATTERN_BASE_COST: u64 = 100;

/// Globs nest alternates (`{a,{b,c}}`) at most this deep; `globset`
/// translates them recursively.
pub const MAX_GLOB_NESTING: usize = 32;

/// The regex crate's own limit when a checked pattern is finally compiled:
/// far above anything [`MAX_PATTERN_SIZE`] admits (whose largest compiled
/// forms measure about 2 MiB), so it is only a backstop.
const COMPILE_SIZE_LIMIT: usize = 16 << 20;

/// Regex syntax nesting limit (groups and repetitions).
const NEST_LIMIT: u32 = 100;

/// The syntax-tree lower bound refuses a pattern outright above this (four
/// times the limit, so the bound's small differences from the full
/// estimate never refuse a pattern the full estimate admits).
const AST_REFUSAL: u64 = 4 * MAX_PATTERN_SIZE;

/// Why a pattern was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatternError {
    /// It does not parse; the message is one line.
    Syntax(String),
    /// It is longer than [`MAX_PATTERN_LEN`].
    TooLong {
        /// Its length in bytes.
        len: usize,
    },
    /// Its estimated compiled size is over [`MAX_PATTERN_SIZE`].
    TooLarge {
        /// The estimate.
        size: u64,
    },
    /// The file's patterns together are over [`FILE_PATTERN_BUDGET`].
    OverBudget {
        /// Whether this is the first pattern of the file over the budget
        /// (the one a diagnostic is reported at; later ones are refused
        /// silently).
        first: bool,
    },
}

impl PatternError {
    /// Whether this refusal deserves its own diagnostic: every refusal
    /// does, except the patterns after the first one over a file's budget.
    pub fn reported(&self) -> bool {
        !matches!(self, PatternError::OverBudget { first: false })
    }
}

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PatternError::Syntax(m) => f.write_str(m),
            PatternError::TooLong { len } => write!(
                f,
                "the pattern is {len} bytes, more than latch's limit of {MAX_PATTERN_LEN}"
            ),
            PatternError::TooLarge { size } => write!(
                f,
                "the pattern would compile too large (estimated size {size}, latch's limit is {MAX_PATTERN_SIZE}); use fewer or smaller repetitions"
            ),
            PatternError::OverBudget { first: true } => write!(
                f,
                "this file's patterns together are over latch's budget of {FILE_PATTERN_BUDGET} (estimated size, plus {PATTERN_BASE_COST} per pattern); this and every later pattern of the file are refused"
            ),
            PatternError::OverBudget { first: false } => {
                f.write_str("the file's pattern budget was already spent")
            }
        }
    }
}

impl std::error::Error for PatternError {}

/// The compile work one configuration file may still spend on patterns.
/// Create one per file and pass it to every check of that file.
#[derive(Debug, Clone)]
pub struct PatternBudget {
    left: u64,
    exhausted: bool,
}

impl Default for PatternBudget {
    fn default() -> Self {
        PatternBudget::per_file()
    }
}

impl PatternBudget {
    /// A fresh budget of [`FILE_PATTERN_BUDGET`].
    pub fn per_file() -> Self {
        PatternBudget {
            left: FILE_PATTERN_BUDGET,
            exhausted: false,
        }
    }

    /// Refuses at once if the budget is already spent, so a file past its
    /// budget costs no parsing at all.
    pub(super) fn check_open(&self) -> Result<(), PatternError> {
        if self.exhausted {
            Err(PatternError::OverBudget { first: false })
        } else {
            Ok(())
        }
    }

    /// Charges a pattern that latch checked and sized itself (a JavaScript
    /// regex run by its own matcher): its size or its length, whichever is
    /// larger, plus [`PATTERN_BASE_COST`].
    pub(super) fn charge_checked(&mut self, size: u64, len: usize) -> Result<(), PatternError> {
        self.charge(cost(size, len))
    }

    fn charge(&mut self, cost: u64) -> Result<(), PatternError> {
        self.check_open()?;
        match self.left.checked_sub(cost) {
            Some(left) => {
                self.left = left;
                Ok(())
            }
            None => {
                self.exhausted = true;
                Err(PatternError::OverBudget { first: true })
            }
        }
    }
}

/// A checked regex over text, compiled on first use.
#[derive(Debug, Clone)]
pub struct LazyRegex {
    source: String,
    size: u64,
    compiled: OnceLock<Option<Regex>>,
}

impl LazyRegex {
    /// The regex as compiled (for a whole-name matcher, the anchored form).
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Its estimated compiled size.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The compiled regex; `None` only if the backstop limit refused it.
    pub fn get(&self) -> Option<&Regex> {
        self.compiled
            .get_or_init(|| {
                RegexBuilder::new(&self.source)
                    .size_limit(COMPILE_SIZE_LIMIT)
                    .build()
                    .map_err(|e| {
                        tracing::warn!(pattern = %self.source, error = %e, "a checked pattern did not compile; it matches nothing");
                    })
                    .ok()
            })
            .as_ref()
    }

    /// Whether it matches anywhere in `text` (a pattern that could not be
    /// compiled matches nothing).
    pub fn is_match(&self, text: &str) -> bool {
        self.get().is_some_and(|r| r.is_match(text))
    }
}

/// A checked glob over paths, compiled on first use.
#[derive(Debug, Clone)]
pub struct PathGlob {
    glob: String,
    regex: String,
    compiled: OnceLock<Option<BytesRegex>>,
}

impl PathGlob {
    /// The glob as written.
    pub fn glob(&self) -> &str {
        &self.glob
    }

    /// Whether the whole of `path` matches (a glob that could not be
    /// compiled matches nothing).
    pub fn is_match(&self, path: &Path) -> bool {
        use std::os::unix::ffi::OsStrExt;
        let compiled = self.compiled.get_or_init(|| {
            BytesRegexBuilder::new(&self.regex)
                .dot_matches_new_line(true)
                .size_limit(COMPILE_SIZE_LIMIT)
                .build()
                .map_err(|e| {
                    tracing::warn!(glob = %self.glob, error = %e, "a checked glob did not compile; it matches nothing");
                })
                .ok()
        });
        compiled
            .as_ref()
            .is_some_and(|r| r.is_match(path.as_os_str().as_bytes()))
    }
}

/// Checks a regex as written and returns it, to be compiled as `compiled`
/// (the pattern itself, or a wrapped form such as `^(?:p)$` for a
/// whole-name matcher: the pattern is parsed as written, so a broken
/// `a)|(.*` cannot become a valid wrapped one).
pub fn check_regex_as(
    pattern: &str,
    compiled: String,
    budget: &mut PatternBudget,
) -> Result<LazyRegex, PatternError> {
    budget.check_open()?;
    if pattern.len() > MAX_PATTERN_LEN {
        return Err(PatternError::TooLong { len: pattern.len() });
    }
    let syntax = |e: regex_syntax::Error| {
        PatternError::Syntax(super::regex_error_message(&regex::Error::Syntax(
            e.to_string(),
        )))
    };
    let ast = regex_syntax::ast::parse::ParserBuilder::new()
        .nest_limit(NEST_LIMIT)
        .build()
        .parse(pattern)
        .map_err(|e| syntax(e.into()))?;
    // A cheap lower bound first, from the syntax tree alone: translating
    // Unicode classes (`\w` has 770 ranges) is most of the cost of refusing
    // an oversized pattern. Only in Unicode mode, where Perl classes have
    // their Unicode size.
    if !pattern.contains("-u") {
        let low = ast_estimate(&ast, 0);
        if low > AST_REFUSAL {
            return Err(PatternError::TooLarge { size: low });
        }
    }
    let hir = regex_syntax::hir::translate::TranslatorBuilder::new()
        .build()
        .translate(pattern, &ast)
        .map_err(|e| syntax(e.into()))?;
    let size = estimate(&hir, 0);
    if size > MAX_PATTERN_SIZE {
        return Err(PatternError::TooLarge { size });
    }
    budget.charge(cost(size, pattern.len()))?;
    Ok(LazyRegex {
        source: compiled,
        size,
        compiled: OnceLock::new(),
    })
}

/// Checks a regex that is compiled as written (unanchored search).
pub fn check_regex(pattern: &str, budget: &mut PatternBudget) -> Result<LazyRegex, PatternError> {
    check_regex_as(pattern, pattern.to_owned(), budget)
}

/// Checks and compiles a regex now, for a pattern used at once (a
/// scenario's `reason_matches`); its budget is its own.
pub fn compile_regex(pattern: &str) -> Result<Regex, String> {
    let lazy = check_regex(pattern, &mut PatternBudget::per_file()).map_err(|e| e.to_string())?;
    lazy.get()
        .cloned()
        .ok_or_else(|| "the pattern did not compile within latch's size limit".to_owned())
}

/// The options a peen `path` glob is read with: `*` and `?` stop at `/`,
/// `**` crosses directories, `\` escapes, `{,a}` is allowed.
pub fn check_glob(glob: &str, budget: &mut PatternBudget) -> Result<PathGlob, PatternError> {
    budget.check_open()?;
    if glob.len() > MAX_PATTERN_LEN {
        return Err(PatternError::TooLong { len: glob.len() });
    }
    if glob_nesting(glob) > MAX_GLOB_NESTING {
        return Err(PatternError::Syntax(format!(
            "alternates nest more than {MAX_GLOB_NESTING} deep"
        )));
    }
    let parsed = globset::GlobBuilder::new(glob)
        .literal_separator(true)
        .backslash_escape(true)
        .empty_alternates(true)
        .build()
        .map_err(|e| PatternError::Syntax(e.kind().to_string()))?;
    let regex = parsed.regex().to_owned();
    let hir = match super::glob_hir::translate(&regex) {
        Some(hir) => hir,
        None => regex_syntax::ParserBuilder::new()
            .nest_limit(NEST_LIMIT.saturating_mul(2))
            .utf8(false)
            .dot_matches_new_line(true)
            .build()
            .parse(&regex)
            .map_err(|e| PatternError::Syntax(format!("its regex does not parse: {e}")))?,
    };
    let size = estimate(&hir, 0);
    if size > MAX_PATTERN_SIZE {
        return Err(PatternError::TooLarge { size });
    }
    budget.charge(cost(size, glob.len()))?;
    Ok(PathGlob {
        glob: glob.to_owned(),
        regex,
        compiled: OnceLock::new(),
    })
}

/// A pattern as shown in a message: at most 120 characters, with an
/// ellipsis when cut (an oversized pattern can be megabytes long).
pub fn shown(pattern: &str) -> String {
    crate::text::clip(pattern, 120)
}

fn cost(size: u64, len: usize) -> u64 {
    size.max(len as u64).saturating_add(PATTERN_BASE_COST)
}

/// How deep `{` alternates nest, skipping `\`-escaped characters (an
/// over-count inside a `[…]` class only makes the check stricter).
fn glob_nesting(glob: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    let mut chars = glob.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '{' => {
                depth += 1;
                max = max.max(depth);
            }
            '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// A lower bound of [`estimate`] from the syntax tree, without translating
/// classes: Perl classes count their Unicode size (computed once), other
/// classes 1, a concatenation only its parts, an alternation its largest
/// branch.
fn ast_estimate(ast: &regex_syntax::ast::Ast, depth: u32) -> u64 {
    use regex_syntax::ast::{Ast, ClassPerlKind, GroupKind, RepetitionKind, RepetitionRange};
    static PERL: OnceLock<[u64; 7]> = OnceLock::new();
    if depth > 4 * NEST_LIMIT {
        return u64::MAX;
    }
    let perl = PERL.get_or_init(|| {
        let size = |p: &str| {
            regex_syntax::Parser::new()
                .parse(p)
                .map_or(1, |h| estimate(&h, 0))
        };
        [
            size(r"\d"),
            size(r"\D"),
            size(r"\s"),
            size(r"\S"),
            size(r"\w"),
            size(r"\W"),
            size("."),
        ]
    });
    let sub = |a: &Ast| ast_estimate(a, depth + 1);
    match ast {
        Ast::Empty(_) | Ast::Flags(_) => 0,
        Ast::Literal(l) => l.c.len_utf8() as u64,
        Ast::Dot(_) => perl[6],
        Ast::Assertion(_) | Ast::ClassUnicode(_) | Ast::ClassBracketed(_) => 1,
        Ast::ClassPerl(c) => {
            let i = match c.kind {
                ClassPerlKind::Digit => 0,
                ClassPerlKind::Space => 2,
                ClassPerlKind::Word => 4,
            };
            perl[i + usize::from(c.negated)]
        }
        Ast::Repetition(r) => {
            let (min, max) = match &r.op.kind {
                RepetitionKind::ZeroOrOne => (0, Some(1)),
                RepetitionKind::ZeroOrMore => (0, None),
                RepetitionKind::OneOrMore => (1, None),
                RepetitionKind::Range(RepetitionRange::Exactly(n)) => (*n, Some(*n)),
                RepetitionKind::Range(RepetitionRange::AtLeast(n)) => (*n, None),
                RepetitionKind::Range(RepetitionRange::Bounded(m, n)) => (*m, Some(*n)),
            };
            match (min, max) {
                (_, Some(0)) => 0,
                (1, Some(1)) => sub(&r.ast),
                _ => {
                    let count = u64::from(max.unwrap_or(min.saturating_add(1)).max(1));
                    sub(&r.ast).saturating_add(1).saturating_mul(count)
                }
            }
        }
        Ast::Group(g) => match g.kind {
            GroupKind::NonCapturing(_) => sub(&g.ast),
            _ => sub(&g.ast).saturating_add(20),
        },
        // The largest branch: alternatives of literals become one class.
        Ast::Alternation(a) => a.asts.iter().map(sub).max().unwrap_or(0),
        Ast::Concat(c) => c.asts.iter().map(sub).fold(0, u64::saturating_add),
    }
}

/// An estimate of the compiled size, in units of about one automaton
/// state: literals count their bytes, a class its UTF-8 byte sequences
/// (what the compiler builds), a capture group its slots, a repetition its
/// body times its largest count. Saturating, so it never overflows; the
/// depth is bounded by the parser's nesting limit.
fn estimate(hir: &Hir, depth: u32) -> u64 {
    if depth > 4 * NEST_LIMIT {
        return u64::MAX;
    }
    let sub = |h: &Hir| estimate(h, depth + 1);
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => 1,
        HirKind::Literal(l) => l.0.len() as u64,
        HirKind::Class(Class::Unicode(c)) => c
            .ranges()
            .iter()
            .map(|r| {
                regex_syntax::utf8::Utf8Sequences::new(r.start(), r.end())
                    .map(|s| s.as_slice().len() as u64)
                    .sum::<u64>()
            })
            .fold(1, u64::saturating_add),
        HirKind::Class(Class::Bytes(c)) => (c.ranges().len() as u64).max(1),
        HirKind::Repetition(r) => {
            let count = u64::from(r.max.unwrap_or(r.min.saturating_add(1)).max(1));
            sub(&r.sub).saturating_add(1).saturating_mul(count)
        }
        HirKind::Capture(c) => sub(&c.sub).saturating_add(20),
        HirKind::Concat(hs) => hs.iter().map(sub).fold(1, u64::saturating_add),
        HirKind::Alternation(hs) => hs
            .iter()
            .map(sub)
            .fold(hs.len() as u64, u64::saturating_add),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn size_of(p: &str) -> u64 {
        check_regex(p, &mut PatternBudget::per_file())
            .map(|r| r.size())
            .unwrap_or_else(|e| panic!("{p}: {e}"))
    }

    #[test]
    fn ordinary_patterns_are_small() {
        for p in [
            "mcp__.*",
            "Bash|Edit",
            r"^(?:Write|Edit|MultiEdit)$",
            r"rm\s+-rf\s+/",
        ] {
            assert!(size_of(p) < 5_000, "{p}: {}", size_of(p));
        }
        // A Unicode class is large: `\w` alone is about 3,400.
        assert!(size_of(r"\w{1,5}") < 20_000);
        assert!(size_of(".{1000}") < MAX_PATTERN_SIZE);
    }

    #[test]
    fn nested_repetitions_multiply() {
        let e = check_regex("((a{100}){100}){100}", &mut PatternBudget::per_file())
            .expect_err("too large");
        assert!(matches!(e, PatternError::TooLarge { .. }), "{e}");
        assert!(matches!(
            check_regex(r"\w{100}", &mut PatternBudget::per_file()),
            Err(PatternError::TooLarge { .. })
        ));
        let huge = "a{1000}{1000}{1000}{1000}{1000}{1000}{1000}";
        assert!(matches!(
            check_regex(huge, &mut PatternBudget::per_file()),
            Err(PatternError::TooLarge { .. })
        ));
    }

    #[test]
    fn the_syntax_bound_never_exceeds_the_estimate() {
        for p in [
            "mcp__.*",
            r"\w{1,5}",
            "(?:ab){100}",
            "(?:a|b|c){100}",
            "((?:a|b|c){30}){30}",
            r"(?i)bash_\d+.*",
            "(a)(b)(c){10}",
            r"\W{10}",
            "(?:(?:(?:x{1}){1}){1}){1}",
            "a{0}b{0,0}",
        ] {
            let ast = regex_syntax::ast::parse::Parser::new().parse(p).expect(p);
            let hir = regex_syntax::Parser::new().parse(p).expect(p);
            assert!(
                ast_estimate(&ast, 0) <= estimate(&hir, 0),
                "{p}: {} > {}",
                ast_estimate(&ast, 0),
                estimate(&hir, 0)
            );
        }
    }

    #[test]
    fn admitted_patterns_compile() {
        // At the edge of the estimate, the compile (with its backstop
        // limit) still succeeds.
        for p in [
            ".{1000}",
            r"\d{200}",
            r"\W{10}",
            "(a)(a)(a)(a)(a)(a)(a)(a)(a)(a)(a)(a){150}",
            "(?:Bash|Edit|Write|Read){500}",
            r"[\x{80}-\x{10FFFF}]{1000}",
        ] {
            let r = check_regex(p, &mut PatternBudget::per_file()).expect(p);
            assert!(r.get().is_some(), "{p} should compile");
        }
    }

    #[test]
    fn too_long_and_too_deep_are_refused_before_parsing() {
        let long = "a".repeat(MAX_PATTERN_LEN + 1);
        assert!(matches!(
            check_regex(&long, &mut PatternBudget::per_file()),
            Err(PatternError::TooLong { .. })
        ));
        let deep = format!("{}a{}", "(".repeat(500), ")".repeat(500));
        assert!(matches!(
            check_regex(&deep, &mut PatternBudget::per_file()),
            Err(PatternError::Syntax(_))
        ));
        let glob = format!("{}a{}", "{".repeat(5000), "}".repeat(5000));
        assert!(matches!(
            check_glob(&glob, &mut PatternBudget::per_file()),
            Err(PatternError::Syntax(_))
        ));
    }

    #[test]
    fn the_budget_is_shared_and_reported_once() {
        let mut budget = PatternBudget::per_file();
        let p = ".{1500}"; // about 45,000 each
        let mut results = Vec::new();
        for _ in 0..60 {
            results.push(check_regex(p, &mut budget).map(|_| ()));
        }
        let first = results
            .iter()
            .position(Result::is_err)
            .expect("over budget");
        assert!(first > 10 && first < 60, "{first}");
        assert_eq!(
            results[first],
            Err(PatternError::OverBudget { first: true })
        );
        assert!(results[first].as_ref().expect_err("err").reported());
        for r in &results[first + 1..] {
            assert_eq!(r, &Err(PatternError::OverBudget { first: false }));
        }
        // Even a tiny pattern is refused once the budget is spent.
        assert!(check_regex("a", &mut budget).is_err());
    }

    #[test]
    fn globs_match_like_globset() {
        let mut b = PatternBudget::per_file();
        let g = check_glob("src/**/*.{rs,go}", &mut b).expect("valid");
        assert!(g.is_match(Path::new("src/a/b.rs")));
        assert!(g.is_match(Path::new("src/b.go")));
        assert!(!g.is_match(Path::new("src/b.py")));
        assert!(!g.is_match(Path::new("lib/b.rs")));
        let star = check_glob("*.md", &mut b).expect("valid");
        assert!(star.is_match(Path::new("a.md")));
        assert!(!star.is_match(Path::new("d/a.md")), "* stops at /");
        let empty = check_glob("a{,b}", &mut b).expect("valid");
        assert!(empty.is_match(Path::new("a")) && empty.is_match(Path::new("ab")));
        let esc = check_glob(r"\*.md", &mut b).expect("valid");
        assert!(esc.is_match(Path::new("*.md")) && !esc.is_match(Path::new("a.md")));
        assert!(matches!(
            check_glob("a[", &mut b),
            Err(PatternError::Syntax(m)) if m.contains("unclosed character class")
        ));
    }

    #[test]
    fn the_reported_oversized_glob_is_refused() {
        // The issue's glob: about 300 KB, over globset's compile limit.
        let alts: Vec<String> = (0..16000).map(|i| format!("a{i}/**/*.{{x,y,z}}")).collect();
        let glob = format!("{{{}}}", alts.join(","));
        assert!(matches!(
            check_glob(&glob, &mut PatternBudget::per_file()),
            Err(PatternError::TooLong { .. })
        ));
        // Under the length limit, a large glob is admitted and compiles.
        let alts: Vec<String> = (0..600).map(|i| format!("a{i}/**/*.{{x,y,z}}")).collect();
        let glob = format!("{{{}}}", alts.join(","));
        assert!(glob.len() < MAX_PATTERN_LEN);
        let g = check_glob(&glob, &mut PatternBudget::per_file()).expect("admitted");
        assert!(g.is_match(Path::new("a599/b/c.z")));
    }
}
