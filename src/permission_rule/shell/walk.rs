//! The walk over tree-sitter-bash's tree: the allowlist of node types,
//! and the simple commands it collects.

use tree_sitter::Node;

use super::MAX_DEPTH;
use super::heredoc::{CatHeredoc, cat_heredoc, heredoc_unreadable};
use super::words::{brace_expansion, node_kind, option_syntax, unescape_double, unescape_unquoted};

/// The first thing met that keeps the command from being exact.
#[derive(Debug, Clone, Copy)]
pub(super) enum Problem {
    Approximate(&'static str),
    Unknown(&'static str),
    TooDeep,
}

pub(super) struct Walk<'s> {
    pub(super) src: &'s str,
    pub(super) commands: Vec<String>,
    pub(super) problem: Option<Problem>,
    /// How many command substitutions the walk is inside.
    pub(super) substitutions: usize,
}

/// What Claude Code puts in place of a command substitution's output when
/// it inlines a multi-line `$(cat <<'EOF' … EOF)` (2.1.197's code).
pub(super) const SUBSTITUTION_OUTPUT: &str = "__CMDSUB_OUTPUT__";

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
    pub(super) fn statement(&mut self, node: Node<'_>, depth: usize) {
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
