//! A Bash command split into the simple commands an `if` rule is checked
//! against, the way Claude Code splits it.
//!
//! Claude Code parses the command with tree-sitter-bash and walks the tree
//! with an allowlist of node types. latch uses the same grammar (the
//! `tree-sitter-bash` crate), so a command gives the same tree, including
//! where tree-sitter and bash disagree. The walk yields one of three
//! answers ([`Commands`]):
//!
//! - **exact**: every simple command of every list, pipeline, subshell and
//!   `$(…)` body, as its words with quotes removed, joined by single
//!   spaces. Leading `VAR=x` assignments and redirections are not words.
//!   Quoted text and the bodies of heredocs with a quoted delimiter are
//!   data, not commands; `bash -c '…'` is one command whose argument is the
//!   quoted text. Inside double quotes, `$(cat <<'EOF' … EOF)` is the
//!   heredoc's text, as Claude Code reads it (its commit-message idiom).
//! - **approximate**: the command uses command substitution (`$(…)`,
//!   backticks) or a variable latch cannot resolve (`$X` outside double
//!   quotes, or inside them for a name that is not one of bash's own). The
//!   commands are still listed, but only a rule that names a single command
//!   (`git *`, `git*`, `git:*`) is checked against them; every other rule
//!   matches (recorded: `Bash(npm test)` fired for `ls $(pwd)`).
//! - **unknown**: nothing can be said (a syntax error, a construct outside
//!   the allowlist such as `${x}`, `<(…)`, `if`/`for`/`while`/`case`, a
//!   function, `$'…'`, brace expansion, a character tree-sitter and bash
//!   read differently, a command over [`MAX_COMMAND_LEN`] bytes): every
//!   rule matches, as in Claude Code, so a guard hook is never skipped.
//!
//! Anything unknown makes the whole command unknown, wherever it is: Claude
//! Code's walk goes on past a substitution or a variable (approximate) but
//! stops at the first construct it cannot read. The first such construct is
//! the reason given.

use std::cell::RefCell;
use std::fmt;
use std::sync::OnceLock;

use regex::Regex;
use std::time::{Duration, Instant};

use tree_sitter::{Node, ParseOptions, ParseState, Parser};

/// The longest command analysed, in bytes; a longer one is
/// [`Commands::Unknown`] (Claude Code's parser refuses long commands too,
/// and then runs every hook).
pub const MAX_COMMAND_LEN: usize = 10_000;

/// How long tree-sitter may parse one command before latch gives up on
/// it (the hook then runs).
const PARSE_BUDGET: Duration = Duration::from_millis(100);

/// How deep the walk follows nested lists, subshells and substitutions
/// before giving up (unknown).
const MAX_DEPTH: usize = 200;

/// A command split for matching.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Commands {
    /// Every simple command, its words joined by single spaces.
    Exact(Vec<String>),
    /// Command substitution or an unresolved variable: only single-command
    /// rules are checked against these; every other rule matches.
    Approximate {
        /// The simple commands, substitutions kept as written.
        commands: Vec<String>,
        /// What made the command approximate.
        reason: FailOpen,
    },
    /// Nothing can be said: every rule matches.
    Unknown(FailOpen),
}

/// Why a command is not analysed exactly (shown by `latch explain`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FailOpen {
    /// The command is longer than [`MAX_COMMAND_LEN`].
    TooLong {
        /// Its length in bytes.
        len: usize,
    },
    /// tree-sitter could not parse it (a syntax error, or more than 100 ms
    /// of parsing), or the parser could not be set up.
    Unparsable,
    /// It nests deeper than latch follows.
    TooDeep,
    /// A character or sequence that tree-sitter and bash read differently.
    Differential(&'static str),
    /// A construct whose words are only known when it runs (the
    /// tree-sitter node type, such as `command_substitution`).
    Construct(String),
}

impl fmt::Display for FailOpen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FailOpen::TooLong { len } => write!(
                f,
                "the command is {len} bytes, more than the {MAX_COMMAND_LEN} that are analysed"
            ),
            FailOpen::Unparsable => f.write_str("the command does not parse"),
            FailOpen::TooDeep => write!(f, "the command nests more than {MAX_DEPTH} deep"),
            FailOpen::Differential(what) => write!(f, "the command contains {what}"),
            FailOpen::Construct(kind) => write!(f, "the command contains a {kind}"),
        }
    }
}

/// Splits `command` into the simple commands an `if` rule is checked
/// against. Never panics; anything it cannot read is [`Commands::Unknown`].
pub fn split(command: &str) -> Commands {
    if command.len() > MAX_COMMAND_LEN {
        return Commands::Unknown(FailOpen::TooLong { len: command.len() });
    }
    if command.is_empty() {
        return Commands::Exact(Vec::new());
    }
    if let Some(what) = differential(command) {
        return Commands::Unknown(FailOpen::Differential(what));
    }
    if command.trim().is_empty() {
        return Commands::Exact(Vec::new());
    }
    // tree-sitter-bash 0.25 crashes the process (SIGSEGV, whatever the stack
    // size) on `{` followed by a character far above the Basic
    // Multilingual Plane (from about U+B1E40: `{\u{E0101}`, found by the
    // `never_panics` property test). Nothing but private-use and tag
    // characters lives that high, and no real command needs them: such a
    // command fails open, as any command the parser cannot read does.
    if command.chars().any(|c| u32::from(c) >= BEYOND_PARSER) {
        return Commands::Unknown(FailOpen::Unparsable);
    }
    thread_local! {
        static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
    }
    PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let mut parser = Parser::new();
            if parser
                .set_language(&tree_sitter_bash::LANGUAGE.into())
                .is_err()
            {
                return Commands::Unknown(FailOpen::Unparsable);
            }
            *slot = Some(parser);
        }
        let Some(parser) = slot.as_mut() else {
            return Commands::Unknown(FailOpen::Unparsable);
        };
        // tree-sitter's error recovery can take long on hostile text
        // (half a second for 10 KB of `a|`): past the budget the parse is
        // cancelled and the command fails open, as Claude Code's does.
        let start = Instant::now();
        let mut over_budget = |_: &ParseState| start.elapsed() > PARSE_BUDGET;
        let options = ParseOptions::new().progress_callback(&mut over_budget);
        let bytes = command.as_bytes();
        let mut read = |offset: usize, _| bytes.get(offset..).unwrap_or_default();
        let Some(tree) = parser.parse_with_options(&mut read, None, Some(options)) else {
            parser.reset();
            return Commands::Unknown(FailOpen::Unparsable);
        };
        let root = tree.root_node();
        if root.has_error() {
            return Commands::Unknown(FailOpen::Unparsable);
        }
        let mut walk = Walk {
            src: command,
            commands: Vec::new(),
            problem: None,
            substitutions: 0,
        };
        walk.statement(root, 0);
        match walk.problem {
            None => Commands::Exact(walk.commands),
            Some(Problem::Approximate(kind)) if !walk.commands.is_empty() => {
                Commands::Approximate {
                    commands: walk.commands,
                    reason: FailOpen::Construct(kind.to_owned()),
                }
            }
            Some(Problem::Approximate(kind) | Problem::Unknown(kind)) => {
                Commands::Unknown(FailOpen::Construct(kind.to_owned()))
            }
            Some(Problem::TooDeep) => Commands::Unknown(FailOpen::TooDeep),
        }
    })
}

/// The first thing met that keeps the command from being exact.
#[derive(Debug, Clone, Copy)]
enum Problem {
    Approximate(&'static str),
    Unknown(&'static str),
    TooDeep,
}

struct Walk<'s> {
    src: &'s str,
    commands: Vec<String>,
    problem: Option<Problem>,
    /// How many command substitutions the walk is inside.
    substitutions: usize,
}

/// What Claude Code puts in place of a command substitution's output when
/// it inlines a multi-line `$(cat <<'EOF' … EOF)` (2.1.197's code).
const SUBSTITUTION_OUTPUT: &str = "__CMDSUB_OUTPUT__";

/// Variables bash sets itself, which Claude Code resolves inside double
/// quotes (their value is a path or a name, never words to split).
const SAFE_VARS: &[&str] = &[
    "HOME",
    "PWD",
    "OLDPWD",
    "USER",
    "LOGNAME",
    "SHELL",
    "PATH",
    "HOSTNAME",
    "UID",
    "EUID",
    "PPID",
    "RANDOM",
    "SECONDS",
    "LINENO",
    "TMPDIR",
    "BASH_VERSION",
    "BASHPID",
    "SHLVL",
    "HISTFILE",
    "IFS",
    "?",
    "$",
    "!",
    "#",
    "0",
    "-",
];

impl<'s> Walk<'s> {
    fn text(&self, node: Node<'_>) -> &'s str {
        self.src.get(node.byte_range()).unwrap_or("")
    }

    fn note(&mut self, problem: Problem) {
        // Claude Code's walk goes on past an approximate construct and stops
        // at the first unknown one, so an unknown construct overrides an
        // earlier approximate one, and the first unknown one is the reason.
        // latch's own depth limit overrides everything.
        let replace = matches!(
            (&self.problem, problem),
            (None, _)
                | (_, Problem::TooDeep)
                | (Some(Problem::Approximate(_)), Problem::Unknown(_))
        );
        if replace {
            self.problem = Some(problem);
        }
    }

    /// A statement-level node: lists, pipelines, commands, subshells.
    fn statement(&mut self, node: Node<'_>, depth: usize) {
        if depth > MAX_DEPTH {
            self.note(Problem::TooDeep);
            return;
        }
        let mut cursor = node.walk();
        match node.kind() {
            "program" | "list" | "pipeline" | "subshell" | "negated_command" => {
                for child in node.named_children(&mut cursor) {
                    self.statement(child, depth + 1);
                }
            }
            "redirected_statement" => {
                for child in node.named_children(&mut cursor) {
                    match child.kind() {
                        "file_redirect" | "heredoc_redirect" | "herestring_redirect" => {
                            self.redirect(child, depth + 1);
                        }
                        _ => self.statement(child, depth + 1),
                    }
                }
            }
            "command" => self.command(node, depth + 1),
            "declaration_command" | "unset_command" => {
                let mut argv = Vec::new();
                for child in node.children(&mut cursor) {
                    match child.kind() {
                        "variable_assignment" => {
                            argv.push(self.assignment(child, depth + 1));
                        }
                        "variable_name" => argv.push(self.text(child).to_owned()),
                        _ if child.is_named() => argv.push(self.word(child, depth + 1)),
                        // The keyword (`export`, `unset`, …).
                        _ => argv.push(self.text(child).to_owned()),
                    }
                }
                self.commands.push(argv.join(" "));
            }
            "variable_assignment" => {
                self.assignment(node, depth + 1);
            }
            "variable_assignments" => {
                for child in node.named_children(&mut cursor) {
                    self.assignment(child, depth + 1);
                }
            }
            "comment" => {}
            "file_redirect" | "heredoc_redirect" | "herestring_redirect" => {
                self.redirect(node, depth + 1);
            }
            other => self.note(Problem::Unknown(node_kind(other))),
        }
    }

    /// One simple command: its words, without assignments and redirects.
    fn command(&mut self, node: Node<'_>, depth: usize) {
        let mut argv = Vec::new();
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            match child.kind() {
                "variable_assignment" => {
                    self.assignment(child, depth);
                }
                "file_redirect" | "heredoc_redirect" | "herestring_redirect" => {
                    self.redirect(child, depth);
                }
                "command_name" => {
                    let mut inner = child.walk();
                    let name: Vec<String> = child
                        .named_children(&mut inner)
                        .map(|n| self.word(n, depth + 1))
                        .collect();
                    if name.is_empty() {
                        argv.push(self.text(child).to_owned());
                    } else {
                        argv.push(name.concat());
                    }
                }
                "comment" => {}
                _ => argv.push(self.word(child, depth + 1)),
            }
        }
        if !argv.is_empty() {
            self.commands.push(argv.join(" "));
        }
    }

    /// `NAME=value`: the value is read for what it runs; returns the
    /// assignment as a word.
    fn assignment(&mut self, node: Node<'_>, depth: usize) -> String {
        let mut out = String::new();
        let mut cursor = node.walk();
        let mut last = node.start_byte();
        for child in node.named_children(&mut cursor) {
            out.push_str(self.src.get(last..child.start_byte()).unwrap_or(""));
            match child.kind() {
                "variable_name" | "subscript" => out.push_str(self.text(child)),
                _ => {
                    let w = self.word(child, depth + 1);
                    out.push_str(&w);
                }
            }
            last = child.end_byte();
        }
        out.push_str(self.src.get(last..node.end_byte()).unwrap_or(""));
        out
    }

    fn redirect(&mut self, node: Node<'_>, depth: usize) {
        if depth > MAX_DEPTH {
            self.note(Problem::TooDeep);
            return;
        }
        let mut cursor = node.walk();
        match node.kind() {
            "file_redirect" => {
                for child in node.named_children(&mut cursor) {
                    if child.kind() != "file_descriptor" {
                        self.word(child, depth + 1);
                    }
                }
            }
            "heredoc_redirect" => {
                // Claude Code reads no heredoc inside a command substitution
                // but its own `"$(cat <<'EOF' … EOF)"` (recorded:
                // `r9_if_subst`).
                if self.substitutions > 0 || heredoc_unreadable(node, self.src) {
                    self.note(Problem::Unknown("heredoc_redirect"));
                }
            }
            _ => self.note(Problem::Unknown("herestring_redirect")),
        }
    }

    /// One word with quotes removed; notes what keeps it from being known.
    fn word(&mut self, node: Node<'_>, depth: usize) -> String {
        if depth > MAX_DEPTH {
            self.note(Problem::TooDeep);
            return String::new();
        }
        let text = self.text(node);
        match node.kind() {
            "word" => {
                if brace_expansion(text) {
                    self.note(Problem::Unknown("brace_expression"));
                }
                unescape_unquoted(text)
            }
            "number" => text.to_owned(),
            "raw_string" => text
                .strip_prefix('\'')
                .and_then(|t| t.strip_suffix('\''))
                .unwrap_or(text)
                .to_owned(),
            "string" => self.double_quoted(node, depth),
            "concatenation" => self.pieces(node, depth, unescape_unquoted),
            "simple_expansion" => {
                self.note(Problem::Approximate("simple_expansion"));
                text.to_owned()
            }
            "command_substitution" => {
                self.note(Problem::Approximate("command_substitution"));
                self.substitutions += 1;
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    self.statement(child, depth + 1);
                }
                self.substitutions -= 1;
                text.to_owned()
            }
            other => {
                self.note(Problem::Unknown(node_kind(other)));
                text.to_owned()
            }
        }
    }

    /// A `"…"` string: literal parts unescaped, `$HOME`-like variables
    /// kept as written, substitutions walked.
    fn double_quoted(&mut self, node: Node<'_>, depth: usize) -> String {
        let inner_start = node.start_byte().saturating_add(1);
        let inner_end = node.end_byte().saturating_sub(1).max(inner_start);
        let mut out = String::new();
        let mut last = inner_start;
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            let gap = self.src.get(last..child.start_byte()).unwrap_or("");
            out.push_str(&unescape_double(gap));
            match child.kind() {
                "string_content" => out.push_str(&unescape_double(self.text(child))),
                "simple_expansion" => {
                    let name = self.text(child).trim_start_matches('$');
                    if !SAFE_VARS.contains(&name) {
                        self.note(Problem::Approximate("simple_expansion"));
                    }
                    out.push_str(self.text(child));
                }
                "command_substitution" => match cat_heredoc(child, self.src) {
                    Some(CatHeredoc::Text(body)) => {
                        let body = body.trim_end_matches('\n');
                        if body.contains('\n') {
                            if option_syntax(&format!("{out}{body}")) {
                                self.note(Problem::Unknown("command_substitution"));
                            }
                            out.push('\n');
                            out.push_str(SUBSTITUTION_OUTPUT);
                        } else {
                            out.push_str(body);
                        }
                    }
                    Some(CatHeredoc::Dangerous) => {
                        self.note(Problem::Unknown("command_substitution"));
                        out.push_str(self.text(child));
                    }
                    None => {
                        let w = self.word(child, depth + 1);
                        out.push_str(&w);
                    }
                },
                _ => {
                    let w = self.word(child, depth + 1);
                    out.push_str(&w);
                }
            }
            last = child.end_byte();
        }
        out.push_str(&unescape_double(
            self.src.get(last.min(inner_end)..inner_end).unwrap_or(""),
        ));
        out
    }

    /// The pieces of a concatenation, gaps read with `unescape`.
    /// Unquoted parts are also checked for brace expansion (`{a,b}` is a
    /// concatenation of words in tree-sitter's tree).
    fn pieces(&mut self, node: Node<'_>, depth: usize, unescape: fn(&str) -> String) -> String {
        let mut out = String::new();
        let mut shape = String::new();
        let mut last = node.start_byte();
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            let gap = self.src.get(last..child.start_byte()).unwrap_or("");
            out.push_str(&unescape(gap));
            shape.push_str(gap);
            if child.kind() == "word" {
                shape.push_str(self.text(child));
            } else {
                shape.push('x');
            }
            let w = self.word(child, depth + 1);
            out.push_str(&w);
            last = child.end_byte();
        }
        let tail = self.src.get(last..node.end_byte()).unwrap_or("");
        out.push_str(&unescape(tail));
        shape.push_str(tail);
        if brace_expansion(&shape) {
            self.note(Problem::Unknown("brace_expression"));
        }
        out
    }
}

/// Whether Claude Code refuses to read a heredoc (2.1.197's code, its
/// reasons quoted; recorded: `r9_if_heredoc`): anything under the redirect
/// but the delimiters, the body and a file descriptor (`cat <<'EOF' | wc`:
/// the pipeline hangs under the redirect); no body; a delimiter that is
/// not quoted, which "undergoes shell expansion" whatever the body holds;
/// a quoted delimiter with a backslash inside; a body with expansions; `<<-`
/// with a tab-prefixed delimiter; a body line that starts with the
/// delimiter and goes on with `)`, `` ` `` or `}`.
fn heredoc_unreadable(node: Node<'_>, src: &str) -> bool {
    let text = |n: Node<'_>| src.get(n.byte_range()).unwrap_or("");
    let mut start = None;
    let mut body = None;
    let mut dash = false;
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        match child.kind() {
            "heredoc_start" => start = Some(text(child)),
            "heredoc_body" => body = Some(child),
            "<<-" => dash = true,
            "<<" | "heredoc_end" | "file_descriptor" => {}
            _ => return true,
        }
    }
    let (Some(start), Some(body)) = (start, body) else {
        return true;
    };
    let single = start.len() >= 2 && start.starts_with('\'') && start.ends_with('\'');
    let double = start.len() >= 2 && start.starts_with('"') && start.ends_with('"');
    let delimiter = if single || double {
        let inner = &start[1..start.len() - 1];
        if inner.contains('\\') {
            return true;
        }
        inner
    } else if let Some(rest) = start.strip_prefix('\\') {
        rest
    } else {
        return true;
    };
    let mut inner = body.walk();
    if body
        .children(&mut inner)
        .any(|c| c.kind() != "heredoc_content")
    {
        return true;
    }
    if delimiter.is_empty() {
        return false;
    }
    if dash && delimiter.starts_with('\t') {
        return true;
    }
    text(body).split('\n').any(|line| {
        let line = if dash {
            line.trim_start_matches('\t')
        } else {
            line
        };
        line.strip_prefix(delimiter)
            .is_some_and(|rest| rest.contains([')', '`', '}']))
    })
}

/// A `$(cat <<'EOF' … EOF)` inside double quotes, as Claude Code reads it.
enum CatHeredoc<'s> {
    /// The heredoc's body: the substitution's output.
    Text(&'s str),
    /// A body Claude Code refuses (it reads `/proc/…/environ`, or looks
    /// like an awk program that runs commands): the command is unknown.
    Dangerous,
}

/// `$(cat <<'EOF' … EOF)`: one `cat` without arguments and heredocs Claude
/// Code reads (see [`heredoc_unreadable`]), none of them `<<-`. Anything
/// else is `None`: an ordinary substitution.
fn cat_heredoc<'s>(node: Node<'_>, src: &'s str) -> Option<CatHeredoc<'s>> {
    let text = |n: Node<'_>| src.get(n.byte_range()).unwrap_or("");
    let mut statement = None;
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        match child.kind() {
            "$(" | ")" => {}
            "redirected_statement" if statement.is_none() => statement = Some(child),
            _ => return None,
        }
    }
    let statement = statement?;
    let mut cat = false;
    let mut body = None;
    let mut cursor = statement.walk();
    for child in statement.children(&mut cursor) {
        match child.kind() {
            "command" => {
                let mut inner = child.walk();
                let mut parts = child.children(&mut inner);
                let (Some(name), None) = (parts.next(), parts.next()) else {
                    return None;
                };
                if name.kind() != "command_name" || text(name) != "cat" {
                    return None;
                }
                cat = true;
            }
            "heredoc_redirect" => {
                if heredoc_unreadable(child, src) {
                    return None;
                }
                let mut inner = child.walk();
                for part in child.children(&mut inner) {
                    match part.kind() {
                        "<<-" => return None,
                        "heredoc_body" => body = Some(text(part)),
                        _ => {}
                    }
                }
            }
            _ => return None,
        }
    }
    let body = body.filter(|_| cat)?;
    if dangerous_body(body) {
        Some(CatHeredoc::Dangerous)
    } else {
        Some(CatHeredoc::Text(body))
    }
}

/// Claude Code's checks on an inlined heredoc body: `/proc/…/environ`, and
/// an awk program that runs commands, pipes, loads code or opens a socket.
fn dangerous_body(body: &str) -> bool {
    static RES: OnceLock<Vec<Regex>> = OnceLock::new();
    let res = RES.get_or_init(|| {
        [
            r"/proc/.*/environ",
            r#"(?:^|[^|])\|&?[^/|%";#{}]*""#,
            r"(?:^|[^|])\|&?[\s\\]*getline\b",
            r"@[\s\\]*(?:load|include)\b|@[\s\\]*\w+(?:::\w+)?(?:\[[^\]]*\])*[\s\\]*\(",
            r#""/inet[46]?/"#,
            // `system(` and `extension(` not after a letter or `_` (the
            // lookbehind is checked below).
            r"(system|extension)[\s\\]*\(",
        ]
        .iter()
        .filter_map(|re| Regex::new(re).ok())
        .collect()
    });
    let (others, calls) = res.split_at(res.len().saturating_sub(1));
    others.iter().any(|re| re.is_match(body))
        || calls.iter().any(|re| {
            re.find_iter(body).any(|m| {
                !body[..m.start()]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            })
        })
}

/// An inlined multi-line heredoc that would make its argument start like an
/// option (`-x`, `--x`): Claude Code refuses it.
fn option_syntax(arg: &str) -> bool {
    let rest = arg.strip_prefix("--").or_else(|| arg.strip_prefix('-'));
    rest.and_then(|r| r.chars().next())
        .is_some_and(|c| c.is_ascii_alphanumeric())
}

/// The first code point tree-sitter-bash is not given: every character
/// from here on is refused before parsing (planes 3 to 16, where the
/// parser's crash lies; a full scan found none below U+40000).
const BEYOND_PARSER: u32 = 0x30000;

/// A node kind as a `'static` name for the reason (tree-sitter's kinds are
/// `'static` already; this keeps the signature honest).
fn node_kind(kind: &'static str) -> &'static str {
    kind
}

/// Unquoted text: a backslash keeps the next character literally.
fn unescape_unquoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('\n') => {}
                Some(n) => out.push(n),
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Double-quoted text: a backslash escapes only `$`, `` ` ``, `"`, `\` and
/// a newline.
fn unescape_double(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some('$' | '`' | '"' | '\\') => {
                    if let Some(n) = chars.next() {
                        out.push(n);
                    }
                }
                Some('\n') => {
                    chars.next();
                }
                _ => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// `{a,b}` or `{1..3}` in an unquoted word: bash expands it into several
/// words.
fn brace_expansion(word: &str) -> bool {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"\{[^{}\s]*(,|\.\.)[^{}\s]*\}").ok())
        .as_ref()
        .is_none_or(|re| re.is_match(word))
}

/// Text that tree-sitter and bash split differently, which Claude Code
/// refuses to analyse (every rule then matches).
fn differential(command: &str) -> Option<&'static str> {
    static CHECKS: OnceLock<Vec<(Option<Regex>, &'static str)>> = OnceLock::new();
    let checks = CHECKS.get_or_init(|| {
        [
            (r"[\x00-\x08\x0B-\x1F\x7F]", "a control character"),
            (
                r"[\u{00A0}\u{1680}\u{2000}-\u{200B}\u{2028}\u{2029}\u{202F}\u{205F}\u{3000}\u{FEFF}]",
                "a Unicode space",
            ),
            (r"\\[ \t]|[^ \t\n\\]\\\n", "a backslash before a space"),
            (r"~\[", "zsh's ~[ expansion"),
            (r"(?:^|[\s;&|])=[a-zA-Z_]", "zsh's =command expansion"),
        ]
        .into_iter()
        .map(|(re, what)| (Regex::new(re).ok(), what))
        .collect()
    });
    for (re, what) in checks {
        // A check that failed to compile refuses everything (fail open).
        if re.as_ref().is_none_or(|re| re.is_match(command)) {
            return Some(what);
        }
    }
    if brace_with_quote(command) {
        return Some("a quote inside braces");
    }
    None
}

/// `{a'}',b}`: a brace with a quote character after it, outside quotes.
fn brace_with_quote(command: &str) -> bool {
    if !command.contains('{') {
        return false;
    }
    // Mask `{` inside quotes, then look for `{` followed (before any `}`)
    // by a quote character.
    let mut masked = String::with_capacity(command.len());
    let (mut single, mut double) = (false, false);
    let mut chars = command.chars().peekable();
    while let Some(c) = chars.next() {
        if single {
            if c == '\'' {
                single = false;
            }
            masked.push(if c == '{' { ' ' } else { c });
        } else if double {
            if c == '\\' && matches!(chars.peek(), Some('"' | '\\')) {
                masked.push(c);
                if let Some(n) = chars.next() {
                    masked.push(n);
                }
                continue;
            }
            if c == '"' {
                double = false;
            }
            masked.push(if c == '{' { ' ' } else { c });
        } else if c == '\\' {
            masked.push(c);
            if let Some(n) = chars.next() {
                masked.push(n);
            }
        } else {
            if c == '\'' {
                single = true;
            } else if c == '"' {
                double = true;
            }
            masked.push(c);
        }
    }
    let mut open = false;
    for c in masked.chars() {
        match c {
            '{' => open = true,
            '}' => open = false,
            '\'' | '"' if open => return true,
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exact(cmd: &str) -> Vec<String> {
        match split(cmd) {
            Commands::Exact(c) => c,
            other => panic!("{cmd:?}: {other:?}"),
        }
    }

    #[test]
    fn lists_pipelines_and_subshells_are_split() {
        assert_eq!(exact("ls && git push"), ["ls", "git push"]);
        assert_eq!(exact("git --version | cat"), ["git --version", "cat"]);
        assert_eq!(exact("git --version; echo x"), ["git --version", "echo x"]);
        assert_eq!(exact("(git --version)"), ["git --version"]);
        assert_eq!(exact("a || b & c |& d"), ["a", "b", "c", "d"]);
        assert_eq!(exact("! grep x f"), ["grep x f"]);
    }

    #[test]
    fn assignments_redirects_and_quotes() {
        assert_eq!(exact("FOO=x git --version"), ["git --version"]);
        assert_eq!(exact("git --version > /dev/null"), ["git --version"]);
        assert_eq!(exact("echo 'git push'"), ["echo git push"]);
        assert_eq!(exact("echo \"a \\\"b\\\" $HOME\""), ["echo a \"b\" $HOME"]);
        assert_eq!(exact("bash -c 'git --version'"), ["bash -c git --version"]);
        assert_eq!(exact("cat <<'EOF'\ngit push\nEOF"), ["cat"]);
        assert_eq!(exact("X=1"), Vec::<String>::new());
        assert_eq!(exact("export A=b"), ["export A=b"]);
        assert_eq!(exact(""), Vec::<String>::new());
        assert_eq!(exact("  \n "), Vec::<String>::new());
    }

    #[test]
    fn substitution_is_approximate() {
        let Commands::Approximate { commands, .. } = split("echo $(git --version)") else {
            panic!("approximate");
        };
        assert!(
            commands.contains(&"git --version".to_owned()),
            "{commands:?}"
        );
        assert!(
            commands.iter().any(|c| c.starts_with("echo ")),
            "{commands:?}"
        );
        assert!(matches!(
            split("echo `git --version`"),
            Commands::Approximate { .. }
        ));
        assert!(matches!(split("echo $FOO"), Commands::Approximate { .. }));
        assert!(matches!(
            split("echo \"$FOO\""),
            Commands::Approximate { .. }
        ));
    }

    #[test]
    fn what_cannot_be_read_is_unknown() {
        for cmd in [
            "echo ${x}",
            "if true; then ls; fi",
            "for i in a; do ls; done",
            "echo $'a'",
            "echo {a,b}",
            "cat <(ls)",
            "echo $((1+2))",
            "echo 'unterminated",
            "ls )",
            "echo \u{a0}x",
            "a\\ b",
            "cat <<< x",
        ] {
            assert!(
                matches!(split(cmd), Commands::Unknown(_)),
                "{cmd:?}: {:?}",
                split(cmd)
            );
        }
        let long = "a ".repeat(MAX_COMMAND_LEN);
        assert!(matches!(
            split(&long),
            Commands::Unknown(FailOpen::TooLong { .. })
        ));
    }

    #[test]
    fn heredocs_read_as_claude_code_reads_them() {
        // Recorded: r9_if_heredoc. A quoted delimiter keeps the body data.
        for cmd in [
            "cat <<'EOF'\ngit push\nEOF",
            "cat <<\"EOF\"\ngit push\nEOF",
            "cat <<\\EOF\ngit push\nEOF",
        ] {
            assert_eq!(exact(cmd), ["cat"], "{cmd:?}");
        }
        // An unquoted delimiter, whatever the body; a pipeline or a
        // redirect under the heredoc; a backslash inside quotes; a body
        // line that would end the heredoc early.
        for cmd in [
            "cat <<EOF\nhello\nEOF",
            "cat <<-EOF\n\thello\nEOF",
            "git hash-object --stdin <<EOF\nhello\nEOF",
            "cat <<'EOF' | wc -l\nhello\nEOF",
            "cat <<'E\\OF'\nhello\nE\\OF",
            "cat <<'EOF'\nEOF)\nEOF",
            "echo $(cat <<'EOF'\nhello\nEOF\n)",
        ] {
            assert!(
                matches!(split(cmd), Commands::Unknown(_)),
                "{cmd:?}: {:?}",
                split(cmd)
            );
        }
    }

    #[test]
    fn a_quoted_cat_heredoc_substitution_is_its_text() {
        // Recorded: r9_if_subst.
        assert_eq!(
            exact("git commit -m \"$(cat <<'EOF'\nFix it\nEOF\n)\""),
            ["git commit -m Fix it"]
        );
        assert_eq!(
            exact("echo \"a$(cat <<'EOF'\nhello\n\n\nEOF\n)\""),
            ["echo ahello"]
        );
        assert_eq!(
            exact("echo \"$(cat <<'EOF'\nline1\nline2\nEOF\n)\""),
            [format!("echo \n{SUBSTITUTION_OUTPUT}")]
        );
        for cmd in [
            "echo \"$(cat <<'EOF'\n-x\nline2\nEOF\n)\"",
            "echo \"$(cat <<'EOF'\ncat /proc/1/environ\nEOF\n)\"",
            "echo \"$(cat <<'EOF'\n{ system(\"ls\") }\nEOF\n)\"",
            "echo \"$(cat <<-'EOF'\n\thello\nEOF\n)\"",
        ] {
            assert!(
                matches!(split(cmd), Commands::Unknown(_)),
                "{cmd:?}: {:?}",
                split(cmd)
            );
        }
        assert!(!dangerous_body("mysystem (x)"));
        assert!(dangerous_body("x; system (x)"));
    }

    #[test]
    fn an_unknown_construct_overrides_an_approximate_one() {
        assert!(matches!(split("echo $X ${y}"), Commands::Unknown(_)));
        assert!(matches!(
            split("echo $(ls) $(cat <(ls))"),
            Commands::Unknown(_)
        ));
        assert!(matches!(
            split("echo $X $(ls)"),
            Commands::Approximate { .. }
        ));
    }

    #[test]
    fn slow_parses_give_up() {
        let start = std::time::Instant::now();
        for hostile in [
            "a|".repeat(4999),
            format!("(( a{} ))", "[0]".repeat(3300)),
            "x=(".repeat(3000),
        ] {
            assert!(matches!(split(&hostile), Commands::Unknown(_)));
        }
        assert!(start.elapsed().as_secs() < 20, "{:?}", start.elapsed());
        // A cancelled parse leaves the parser ready for the next command.
        assert_eq!(
            split("git push"),
            Commands::Exact(vec!["git push".to_owned()])
        );
    }

    #[test]
    fn deep_nesting_gives_up() {
        let deep = format!("{}ls{}", "(".repeat(400), ")".repeat(400));
        assert!(matches!(split(&deep), Commands::Unknown(_)));
        let subst = format!("{}ls{}", "$(".repeat(300), ")".repeat(300));
        assert!(matches!(split(&subst), Commands::Unknown(_)));
    }
}
