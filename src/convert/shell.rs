//! What a converted shell script depends on: constructs that `/bin/sh` may
//! not run the way bash does, and the environment variables it reads.
//!
//! The check is conservative: a script passes only when every part of it
//! is known to mean the same in POSIX `sh` as in bash. Words of plain
//! characters, globs, `'…'` and `"…"` quoting, backslash escapes,
//! `$NAME`, `${NAME}` and the POSIX `${NAME:-word}` family, `$(…)` (whose
//! inside is checked the same way), pipes, `&&`, `||`, `;`, `&`, newlines,
//! comments and the redirections `<`, `>`, `>>`, `N>&M` pass. Everything
//! else is reported: bash-only words (`[[`, `function`, `source`,
//! `declare`, `==`, `pipefail`, `echo -e`, …), bash-only variables
//! (`$RANDOM`, `$BASH_SOURCE`, …), `$'…'`, `&>`, `|&`, `<<<`, `<(…)`,
//! `>(…)`, other `${…}` forms, and the constructs latch does not look
//! into: parentheses, braces, here-documents, backquotes and `$((…))`.

use std::collections::HashSet;

/// Words that bash understands and POSIX `sh` does not (or differently).
const BASH_WORDS: [&str; 22] = [
    "[[",
    "]]",
    "==",
    "=~",
    "function",
    "source",
    "declare",
    "typeset",
    "shopt",
    "let",
    "select",
    "pushd",
    "popd",
    "dirs",
    "mapfile",
    "readarray",
    "disown",
    "complete",
    "compgen",
    "coproc",
    "pipefail",
    "time",
];

/// Variables bash sets and POSIX `sh` does not.
const BASH_VARIABLES: [&str; 18] = [
    "RANDOM",
    "SRANDOM",
    "SECONDS",
    "EPOCHSECONDS",
    "EPOCHREALTIME",
    "PIPESTATUS",
    "BASHPID",
    "BASH_SOURCE",
    "BASH_VERSION",
    "BASH_REMATCH",
    "FUNCNAME",
    "EUID",
    "UID",
    "HOSTNAME",
    "OSTYPE",
    "HOSTTYPE",
    "MACHTYPE",
    "REPLY",
];

/// Variables the shell sets itself (POSIX `sh` and bash), so reading them
/// reads nothing from the environment.
const SHELL_VARIABLES: [&str; 10] = [
    "PWD", "OLDPWD", "IFS", "PS1", "PS2", "PS4", "PPID", "OPTIND", "OPTARG", "LINENO",
];

/// What a script uses: its first construct POSIX `sh` may not run like
/// bash, and the variables it reads from its environment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScriptUse {
    /// The first bash-only or unchecked construct, described.
    pub bash_only: Option<String>,
    /// The variables read and not assigned in the script, in order of
    /// first use (not special parameters, not variables the shell sets).
    pub reads: Vec<String>,
}

/// Scans a shell script.
pub fn scan(script: &str) -> ScriptUse {
    let mut s = Scanner {
        chars: script.chars().collect(),
        i: 0,
        bash_only: None,
        reads: Vec::new(),
        assigned: Vec::new(),
        words: Vec::new(),
        word: String::new(),
    };
    s.run(None);
    s.end_word();
    s.check_words();
    // Sets, not lists: a script with many variables costs linear time.
    let assigned: HashSet<String> = std::mem::take(&mut s.assigned).into_iter().collect();
    let mut seen: HashSet<String> = HashSet::new();
    let mut reads: Vec<String> = Vec::new();
    for r in s.reads {
        if !assigned.contains(&r)
            && !SHELL_VARIABLES.contains(&r.as_str())
            && !BASH_VARIABLES.contains(&r.as_str())
            && seen.insert(r.clone())
        {
            reads.push(r);
        }
    }
    ScriptUse {
        bash_only: s.bash_only,
        reads,
    }
}

struct Scanner {
    chars: Vec<char>,
    i: usize,
    bash_only: Option<String>,
    reads: Vec<String>,
    assigned: Vec<String>,
    /// The words of the current simple command, and the one being read.
    words: Vec<String>,
    word: String,
}

fn is_name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_name(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

impl Scanner {
    fn peek(&self, k: usize) -> Option<char> {
        self.chars.get(self.i + k).copied()
    }

    fn flag(&mut self, what: impl Into<String>) {
        if self.bash_only.is_none() {
            self.bash_only = Some(what.into());
        }
    }

    fn end_word(&mut self) {
        if !self.word.is_empty() {
            let w = std::mem::take(&mut self.word);
            self.words.push(w);
        }
    }

    /// Ends a simple command: checks its words.
    fn end_command(&mut self) {
        self.end_word();
        self.check_words();
    }

    fn check_words(&mut self) {
        let words = std::mem::take(&mut self.words);
        for (k, w) in words.iter().enumerate() {
            if BASH_WORDS.contains(&w.as_str()) {
                self.flag(format!("`{w}`"));
            }
            if w == "-e" && k > 0 && words[k - 1] == "echo" {
                self.flag("`echo -e`");
            }
            // `NAME=value` assigns; so do `read NAME…`, `for NAME`,
            // `export NAME`, `local NAME`, `readonly NAME`, `getopts … NAME`.
            if let Some((name, _)) = w.split_once('=')
                && name.chars().next().is_some_and(is_name_start)
                && name.chars().all(is_name)
            {
                self.assigned.push(name.to_owned());
            }
        }
        if let Some(first) = words.first() {
            let names = words
                .iter()
                .skip(1)
                .filter(|w| w.chars().next().is_some_and(is_name_start) && w.chars().all(is_name))
                .cloned();
            match first.as_str() {
                "read" | "export" | "local" | "readonly" | "unset" => self.assigned.extend(names),
                "for" => self.assigned.extend(names.take(1)),
                "getopts" => self.assigned.extend(words.get(2).cloned()),
                _ => {}
            }
        }
    }

    /// Scans until `stop` (the `)` of a `$(…)`) or the end.
    fn run(&mut self, stop: Option<char>) {
        while let Some(c) = self.peek(0) {
            if Some(c) == stop {
                self.i += 1;
                return;
            }
            match c {
                ' ' | '\t' => {
                    self.end_word();
                    self.i += 1;
                }
                '\n' | ';' => {
                    self.end_command();
                    self.i += 1;
                }
                '#' if self.word.is_empty() => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.i += 1;
                    }
                }
                '\'' => {
                    self.i += 1;
                    self.word.push('\'');
                    while let Some(c) = self.peek(0) {
                        self.i += 1;
                        if c == '\'' {
                            break;
                        }
                    }
                }
                '"' => {
                    self.i += 1;
                    self.word.push('"');
                    self.double_quoted();
                }
                '\\' => {
                    self.word.push('\\');
                    self.i += 2;
                }
                '$' => self.dollar(),
                '`' => {
                    self.flag("a backquoted command substitution (not checked)");
                    self.i += 1;
                }
                '(' | ')' => {
                    self.flag("parentheses (not checked)");
                    self.i += 1;
                }
                '{' | '}' => {
                    self.flag("braces (not checked)");
                    self.i += 1;
                }
                '|' => {
                    self.end_command();
                    match self.peek(1) {
                        Some('&') => self.flag("`|&`"),
                        Some('|') => self.i += 1,
                        _ => {}
                    }
                    self.i += 1;
                }
                '&' => {
                    match self.peek(1) {
                        Some('>') => self.flag("`&>`"),
                        Some('&') => self.i += 1,
                        _ => {}
                    }
                    self.end_command();
                    self.i += 1;
                }
                '<' => {
                    self.end_word();
                    match self.peek(1) {
                        Some('<') if self.peek(2) == Some('<') => self.flag("`<<<`"),
                        Some('<') => self.flag("a here-document (not checked)"),
                        Some('(') => self.flag("`<(…)`"),
                        _ => {}
                    }
                    self.i += 1;
                    if self.peek(0) == Some('&') {
                        self.i += 1;
                    }
                }
                '>' => {
                    // `2>` belongs to the redirection, not to a word.
                    if self.word.chars().all(|c| c.is_ascii_digit()) {
                        self.word.clear();
                    }
                    self.end_word();
                    if self.peek(1) == Some('(') {
                        self.flag("`>(…)`");
                    }
                    self.i += 1;
                    while matches!(self.peek(0), Some('>' | '&' | '|')) {
                        self.i += 1;
                    }
                }
                c => {
                    self.word.push(c);
                    self.i += 1;
                }
            }
        }
    }

    fn double_quoted(&mut self) {
        while let Some(c) = self.peek(0) {
            match c {
                '"' => {
                    self.i += 1;
                    return;
                }
                '\\' => self.i += 2,
                '$' => self.dollar(),
                '`' => {
                    self.flag("a backquoted command substitution (not checked)");
                    self.i += 1;
                }
                _ => self.i += 1,
            }
        }
    }

    /// At a `$`: a parameter, a `${…}`, a `$(…)` or a bash-only form.
    fn dollar(&mut self) {
        self.word.push('$');
        match self.peek(1) {
            Some('\'') => {
                self.flag("`$'…'`");
                self.i += 1;
            }
            Some('"') => {
                self.flag("`$\"…\"`");
                self.i += 1;
            }
            Some('(') if self.peek(2) == Some('(') => {
                self.flag("arithmetic `$((…))` (not checked)");
                self.i += 3;
            }
            Some('(') => {
                self.i += 2;
                // The inside is a script of its own; its words do not end
                // the current command's.
                let words = std::mem::take(&mut self.words);
                let word = std::mem::take(&mut self.word);
                self.run(Some(')'));
                self.end_command();
                self.words = words;
                self.word = word;
            }
            Some('{') => {
                self.i += 2;
                self.braced();
            }
            Some(c) if is_name_start(c) => {
                self.i += 1;
                let name = self.name();
                self.read(name);
            }
            _ => self.i += 1,
        }
    }

    fn name(&mut self) -> String {
        let mut name = String::new();
        while let Some(c) = self.peek(0).filter(|c| is_name(*c)) {
            name.push(c);
            self.i += 1;
        }
        name
    }

    fn read(&mut self, name: String) {
        if BASH_VARIABLES.contains(&name.as_str()) || name.starts_with("BASH") {
            self.flag(format!("`${name}`"));
        }
        self.reads.push(name);
    }

    /// After `${`: `NAME}`, `#NAME}`, a special parameter, or `NAME` and a
    /// POSIX operator (`:-`, `-`, `:=`, `=`, `:?`, `?`, `:+`, `+`, `#`,
    /// `##`, `%`, `%%`) and a word up to the first `}`.
    fn braced(&mut self) {
        if self.peek(0) == Some('#') && self.peek(1).is_some_and(is_name_start) {
            self.i += 1;
        }
        match self.peek(0) {
            Some(c) if is_name_start(c) => {
                let name = self.name();
                self.read(name);
            }
            Some(c) if c.is_ascii_digit() || "@*#?$!-".contains(c) => self.i += 1,
            _ => {
                self.flag("`${!…}` or another bash-only `${…}` form");
            }
        }
        let posix = matches!(
            (self.peek(0), self.peek(1)),
            (Some('}'), _)
                | (Some(':'), Some('-' | '=' | '?' | '+'))
                | (Some('-' | '=' | '?' | '+' | '#' | '%'), _)
        );
        if !posix {
            self.flag("a bash-only `${…}` form (such as `${x//a/b}` or `${x:1:2}`)");
        }
        while let Some(c) = self.peek(0) {
            self.i += 1;
            match c {
                '}' => return,
                '$' => {
                    self.i -= 1;
                    self.dollar();
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bash(s: &str) -> Option<String> {
        scan(s).bash_only
    }

    #[test]
    fn plain_invocations_and_posix_pipelines_pass() {
        for s in [
            "python3 script.py",
            "python3 /plug/hooks/check.py --strict",
            "\"$CLAUDE_PROJECT_DIR\"/hooks/run.sh",
            "jq -r '.tool_input.command' | grep -q 'rm -rf' && exit 2 || exit 0",
            "cat >/dev/null 2>&1; exit 0",
            "[ -f \"${HOME:-/root}/.x\" ] && echo yes >&2",
            "cd \"$(git rev-parse --show-toplevel)\" && make -s lint",
            "node x.js # a comment with [[ inside",
            "echo '[[ $RANDOM ]] (x) {y}'",
            "input=$(cat); printf '%s' \"$input\" | jq .",
        ] {
            assert_eq!(bash(s), None, "{s}");
        }
    }

    #[test]
    fn bash_only_and_unchecked_constructs_are_named() {
        for (s, what) in [
            ("[[ -f x ]] && exit 2", "`[[`"),
            ("[ \"$a\" == b ]", "`==`"),
            ("set -o pipefail; x | y", "`pipefail`"),
            ("echo -e 'a\\tb'", "`echo -e`"),
            ("source ./env.sh", "`source`"),
            ("diff <(a) <(b)", "`<(…)`"),
            ("x &> /dev/null", "`&>`"),
            ("grep x <<< \"$y\"", "`<<<`"),
            ("echo $'a\\n'", "`$'…'`"),
            (
                "echo ${x//a/b}",
                "a bash-only `${…}` form (such as `${x//a/b}` or `${x:1:2}`)",
            ),
            ("echo $RANDOM", "`$RANDOM`"),
            ("echo {a,b}", "braces (not checked)"),
            ("(cd x && y)", "parentheses (not checked)"),
            (
                "echo `date`",
                "a backquoted command substitution (not checked)",
            ),
            ("echo $(( 1 + 2 ))", "arithmetic `$((…))` (not checked)"),
            ("x=$( [[ a ]] )", "`[[`"),
        ] {
            assert_eq!(bash(s).as_deref(), Some(what), "{s}");
        }
    }

    #[test]
    fn many_variables_cost_linear_time() {
        let script: String = (0..200_000).map(|i| format!("$v{i} v{i}=1 ")).collect();
        let started = std::time::Instant::now();
        assert!(scan(&script).reads.is_empty());
        // A generous hang guard, not a timing assertion: quadratic is minutes.
        assert!(started.elapsed() < std::time::Duration::from_secs(20));
    }

    #[test]
    fn reads_are_variables_not_assigned_in_the_script() {
        let u = scan(
            "input=$(cat); read -r line; for f in *; do echo \"$f $line $input ${CLAUDE_PLUGIN_ROOT}/x $HOME $1 $? $PWD\"; done; echo '$NOT_READ' \\$ESCAPED",
        );
        assert_eq!(u.reads, ["CLAUDE_PLUGIN_ROOT", "HOME"]);
        assert_eq!(
            scan("${CLAUDE_PROJECT_DIR:-.}/x $TOOL_ARGS").reads,
            ["CLAUDE_PROJECT_DIR", "TOOL_ARGS"]
        );
    }
}
