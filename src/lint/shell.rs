//! What lint reads out of a hook's shell command line, statically: its
//! simple commands and their words, the script an interpreter is given, and
//! the environment variables it reads. Nothing is ever executed.

use std::path::{Path, PathBuf};

/// One simple command of a command line: its words, quotes removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Simple {
    /// The words, unquoted; `VAR=value` prefixes and `exec` are dropped.
    pub words: Vec<String>,
    /// Whether a `cd` ran earlier on the line, so relative paths no longer
    /// resolve against the hook's working directory.
    pub after_cd: bool,
}

/// Splits a command line into simple commands at `;`, `&`, `|`, `&&`,
/// `||` and newlines, with quotes removed from each word. Words that hold
/// a command substitution or a redirection are kept as written; lint only
/// looks at the first few words of each command.
pub fn simple_commands(line: &str) -> Vec<Simple> {
    let mut out = Vec::new();
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut after_cd = false;
    let mut chars = line.chars().peekable();
    let finish = |words: &mut Vec<String>, out: &mut Vec<Simple>, after_cd: &mut bool| {
        let mut ws = std::mem::take(words);
        // `VAR=value cmd`: the assignments are not the program.
        let skip = ws
            .iter()
            .take_while(|w| {
                w.split_once('=').is_some_and(|(n, _)| {
                    !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                })
            })
            .count();
        ws.drain(..skip);
        // `exec prog` and `command prog` run `prog` (`command -v` runs
        // nothing).
        while ws.first().is_some_and(|w| {
            w == "exec" || (w == "command" && ws.get(1).is_some_and(|n| !n.starts_with('-')))
        }) {
            ws.remove(0);
        }
        if ws.is_empty() {
            return;
        }
        let cd = ws[0] == "cd" || ws[0] == "pushd";
        out.push(Simple {
            words: ws,
            after_cd: *after_cd,
        });
        *after_cd |= cd;
    };
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    word.push(q);
                }
            }
            '"' => {
                in_word = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => {
                            if let Some(n) = chars.next() {
                                word.push(n);
                            }
                        }
                        _ => word.push(q),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(n) = chars.next() {
                    word.push(n);
                }
            }
            ';' | '&' | '|' | '\n' | '(' | ')' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
                finish(&mut words, &mut out, &mut after_cd);
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    finish(&mut words, &mut out, &mut after_cd);
    out
}

/// Interpreters whose first argument that is not an option is a script to
/// run, with the subcommand some of them take first (`uv run X`).
const INTERPRETERS: [(&str, Option<&str>); 15] = [
    ("python", None),
    ("python3", None),
    ("node", None),
    ("bash", None),
    ("sh", None),
    ("zsh", None),
    ("dash", None),
    ("ruby", None),
    ("perl", None),
    ("php", None),
    ("tsx", None),
    ("ts-node", None),
    ("bun", None),
    ("deno", Some("run")),
    ("uv", Some("run")),
];

/// Options after which there is no script file: the code is inline, or a
/// module or stdin is run.
const INLINE: [&str; 9] = ["-c", "-e", "--eval", "-m", "-p", "--print", "-", "-s", "-r"];

/// Extensions of script files.
const SCRIPT_EXTENSIONS: [&str; 13] = [
    "py", "js", "mjs", "cjs", "ts", "mts", "cts", "sh", "bash", "rb", "pl", "php", "zsh",
];

/// The script an interpreter command runs (`python3 X.py`, `uv run X`,
/// `deno run --allow-read X`), as written; `None` when there is none or
/// the word is not clearly a file path (`uv run pytest`, `node -e …`).
pub fn interpreter_script(words: &[String]) -> Option<&str> {
    let program = Path::new(words.first()?).file_name()?.to_str()?;
    // `python3.12`, `python3` and `python` are one interpreter.
    let base = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    let (_, sub) = INTERPRETERS
        .iter()
        .find(|(name, _)| *name == program || *name == base)?;
    let mut rest = words[1..].iter();
    if let Some(sub) = sub {
        // `deno run X`, `uv run X`; other subcommands run no script.
        if rest.next().map(String::as_str) != Some(*sub) {
            return None;
        }
    } else if program == "bun" {
        // `bun X` and `bun run X`.
        let mut peek = rest.clone();
        if peek.next().map(String::as_str) == Some("run") {
            rest.next();
        }
    }
    for w in rest {
        if INLINE.contains(&w.as_str()) {
            return None;
        }
        if w.starts_with('-') {
            continue;
        }
        return looks_like_script(w).then_some(w.as_str());
    }
    None
}

/// The scripts an interpreter command names: [`interpreter_script`], and
/// after it every argument that is a script file under a directory
/// variable (`node runner.js "${CLAUDE_PLUGIN_ROOT}/worker.cjs"`): a file
/// of the plugin or project, which must exist.
pub fn interpreter_scripts(words: &[String]) -> Vec<&str> {
    let Some(first) = interpreter_script(words) else {
        return Vec::new();
    };
    let mut out = vec![first];
    let after = words.iter().skip_while(|w| w.as_str() != first).skip(1);
    for w in after {
        let ext = Path::new(w).extension().and_then(|e| e.to_str());
        if w.starts_with('$') && ext.is_some_and(|e| SCRIPT_EXTENSIONS.contains(&e)) {
            out.push(w);
        }
    }
    out
}

/// Whether a word names a script file: it has a `/` or a script extension.
fn looks_like_script(w: &str) -> bool {
    let ext = Path::new(w).extension().and_then(|e| e.to_str());
    w.contains('/') || ext.is_some_and(|e| SCRIPT_EXTENSIONS.contains(&e))
}

/// Expands the variables in `word` that `vars` names (`$NAME` and
/// `${NAME}`); `None` if another variable, a `~`, a glob or a substitution
/// remains, so the path cannot be known statically.
pub fn expand(word: &str, vars: &[(&str, &Path)]) -> Option<PathBuf> {
    let mut s = word.to_owned();
    for (name, value) in vars {
        let v = value.to_string_lossy();
        s = s
            .replace(&format!("${{{name}}}"), &v)
            .replace(&format!("${name}"), &v);
    }
    let unknowable = ['$', '`', '~', '*', '?', '[', '<', '>'];
    (!s.is_empty() && !s.contains(unknowable)).then(|| PathBuf::from(s))
}

/// Why a script path is unusable, checked without opening it (it may be
/// a FIFO or a device): `None` when it is a regular file.
pub fn script_problem(path: &Path) -> Option<String> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => None,
        Ok(m) if m.is_dir() => Some("is a directory".to_owned()),
        Ok(_) => Some("is not a regular file".to_owned()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some("does not exist".to_owned()),
        Err(e) => Some(format!("cannot be used: {e}")),
    }
}

/// The environment variables a command line reads (`$NAME`, `${NAME}`,
/// `${NAME:-…}`), in order, each once, except those the line assigns
/// itself (`NAME=…`, `export NAME`, `read NAME`, `for NAME in`). Linear in
/// the line's length: a script may be a megabyte of distinct names.
pub fn variables_read(line: &str) -> Vec<(String, usize)> {
    let assigned = assigned_names(line);
    let mut seen = std::collections::HashSet::new();
    let mut out: Vec<(String, usize)> = Vec::new();
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'$' {
            let start = i + 1;
            let braced = bytes.get(start) == Some(&b'{');
            let from = if braced { start + 1 } else { start };
            let len = line[from..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(line.len() - from);
            let name = &line[from..from + len];
            let valid = name
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
            if valid && !assigned.contains(name) && seen.insert(name) {
                out.push((name.to_owned(), i));
            }
            i = from + len.max(1);
        } else {
            i += 1;
        }
    }
    out
}

/// The names the line sets itself, in one pass over its words: `NAME=`,
/// `NAME+=`, or a name after `export`, `read`, `-r`, `for`, `local` or
/// `declare`.
fn assigned_names(line: &str) -> std::collections::HashSet<&str> {
    const SETTERS: [&str; 6] = ["export", "read", "-r", "for", "local", "declare"];
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let bytes = line.as_bytes();
    let mut out = std::collections::HashSet::new();
    let mut i = 0;
    while i < bytes.len() {
        if !ident(bytes[i]) {
            i += 1;
            continue;
        }
        let end = bytes[i..]
            .iter()
            .position(|b| !ident(*b))
            .map_or(bytes.len(), |n| i + n);
        let before = i.checked_sub(1).map(|k| bytes[k]);
        let word_start = before.is_none_or(|b| b != b'$' && b != b'{');
        let after = &line[end..];
        let prefix = line[..i].trim_end();
        if word_start
            && !bytes[i].is_ascii_digit()
            && (after.starts_with('=')
                || after.starts_with("+=")
                || SETTERS.iter().any(|s| prefix.ends_with(s)))
        {
            out.insert(&line[i..end]);
        }
        i = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn many_distinct_variables_are_read_in_one_pass() {
        // Quadratic before: each distinct name rescanned the whole line.
        let line: String = (0..60_000).map(|n| format!("$v{n} ")).collect();
        let line = format!("{line} v7=1 export v8");
        let reads = variables_read(&line);
        assert_eq!(reads.len(), 59_998);
        assert!(!reads.iter().any(|(n, _)| n == "v7" || n == "v8"));
    }

    #[test]
    fn a_longer_name_assigned_does_not_hide_its_prefix() {
        let names: Vec<String> = variables_read("export AB; echo $A $AB")
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(names, ["A"]);
    }

    fn words(line: &str) -> Vec<Vec<String>> {
        simple_commands(line).into_iter().map(|s| s.words).collect()
    }

    #[test]
    fn exec_and_command_are_not_the_program() {
        assert_eq!(words("exec command prog a"), [["prog", "a"]]);
        assert_eq!(words("command -v prog"), [["command", "-v", "prog"]]);
        assert_eq!(super::super::shell_program("command -v prog"), None);
        assert_eq!(super::super::shell_program("exit 2"), None);
        assert_eq!(
            super::super::shell_program("command prog").as_deref(),
            Some("prog")
        );
    }

    #[test]
    fn commands_split_at_operators_and_lose_their_quotes() {
        assert_eq!(
            words(r#"FOO=1 "${R}"/bin/run.sh a 'b c' && node "$X/y.js"; true"#),
            [
                vec!["${R}/bin/run.sh", "a", "b c"],
                vec!["node", "$X/y.js"],
                vec!["true"]
            ]
        );
        let s = simple_commands("cd sub && python3 x.py");
        assert!(!s[0].after_cd && s[1].after_cd);
    }

    #[test]
    fn interpreters_name_their_script() {
        let script = |line: &str| {
            let s = simple_commands(line);
            interpreter_script(&s[0].words).map(str::to_owned)
        };
        assert_eq!(
            script("python3 -u hooks/x.py --flag").as_deref(),
            Some("hooks/x.py")
        );
        assert_eq!(
            script("uv run .claude/hooks/a.py").as_deref(),
            Some(".claude/hooks/a.py")
        );
        assert_eq!(
            script("deno run --allow-read s.ts").as_deref(),
            Some("s.ts")
        );
        assert_eq!(script("bun run s.ts").as_deref(), Some("s.ts"));
        assert_eq!(script("/usr/bin/python3.12 a.py").as_deref(), Some("a.py"));
        assert_eq!(script("sh ./x").as_deref(), Some("./x"));
        assert_eq!(script("node -e \"require('x')\" a.js"), None);
        assert_eq!(script("python3 -m pkg.mod"), None);
        assert_eq!(script("uv run pytest"), None);
        assert_eq!(script("uv sync"), None);
        assert_eq!(script("bash -c 'echo hi'"), None);
        assert_eq!(script("jq -r ."), None);
        let all = simple_commands(r#"node "$R/run.js" "${R}/worker.cjs" hook "$R/out.log" x.js"#);
        assert_eq!(
            interpreter_scripts(&all[0].words),
            ["$R/run.js", "${R}/worker.cjs"]
        );
    }

    #[test]
    fn variables_assigned_on_the_line_are_not_read_from_the_engine() {
        let names =
            |l: &str| -> Vec<String> { variables_read(l).into_iter().map(|(n, _)| n).collect() };
        assert_eq!(
            names(r#"echo "$TOOL_ARGS" ${CLAUDE_PROJECT_DIR:-.} $1 $? $TOOL_ARGS"#),
            ["TOOL_ARGS", "CLAUDE_PROJECT_DIR"]
        );
        assert!(names("F=$(cat); echo $F; export G=1; echo $G; read -r H; echo $H").is_empty());
    }

    #[test]
    fn only_known_variables_expand() {
        let root = Path::new("/plug");
        let vars = [("CLAUDE_PLUGIN_ROOT", root)];
        assert_eq!(
            expand("${CLAUDE_PLUGIN_ROOT}/a.py", &vars),
            Some(PathBuf::from("/plug/a.py"))
        );
        assert_eq!(
            expand("$CLAUDE_PLUGIN_ROOT/a.py", &vars),
            Some(PathBuf::from("/plug/a.py"))
        );
        assert_eq!(expand("$HOME/a.py", &vars), None);
        assert_eq!(expand("~/a.py", &vars), None);
    }
}
