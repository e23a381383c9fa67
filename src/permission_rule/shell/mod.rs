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
//!
//! The walk over the tree is in `walk.rs`, its heredoc rules in
//! `heredoc.rs`, its word helpers in `words.rs`, and the texts refused
//! before parsing in `differential.rs`.

use std::cell::RefCell;
use std::fmt;
use std::time::{Duration, Instant};

use tree_sitter::{ParseOptions, ParseState, Parser};

mod differential;
mod heredoc;
mod walk;
mod words;

use differential::{BEYOND_PARSER, differential};
use walk::{Problem, Walk};
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

#[cfg(test)]
mod tests;
