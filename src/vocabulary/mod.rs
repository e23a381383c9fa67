//! The tool vocabulary: how a harness's tools look to hooks written for
//! another product, today Claude Code.
//!
//! Real Claude Code hooks read `tool_input.command` for Bash and
//! `tool_input.file_path` for Write; a harness whose shell tool takes
//! `cmd` would make every such guard silently allow everything. The
//! vocabulary maps each harness tool to a Claude Code tool name and its
//! arguments to Claude Code's argument names (and back, for a hook's
//! `updatedInput`), makes file paths absolute as Claude Code's are, and
//! wraps a shell tool's text result in Bash's result shape.
//!
//! It is data: [`Vocabulary::builtin`] (from `builtin.yaml`) covers latch's
//! neutral tool names and the poolside and peen tools; a harness extends
//! or replaces it with a file ([`Vocabulary::from_text`], `latch fire
//! --tool-vocabulary FILE`) or in code ([`Vocabulary::with`]). A tool it
//! does not list passes unchanged, so a harness that already uses Claude
//! Code's names and shapes needs no entry.
//!
//! # Example
//!
//! ```
//! use latch::vocabulary::Vocabulary;
//!
//! // latch's neutral `shell` tool is Claude Code's `Bash`, with `cmd` as
//! // `command`: a hook written for Claude Code sees the shape it expects.
//! let vocabulary = Vocabulary::builtin();
//! assert_eq!(vocabulary.claude_name("shell"), "Bash");
//! let input = vocabulary
//!     .get("shell")
//!     .map(|map| map.to_claude(serde_json::json!({"cmd": "ls"}), std::path::Path::new("/w")));
//! assert_eq!(input, Some(serde_json::json!({"command": "ls"})));
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Map, Value};

use crate::config::yaml::{Node, Value as Yaml};
use crate::diag::Diagnostic;

/// The built-in table.
const BUILTIN: &str = include_str!("builtin.yaml");

/// How one harness tool looks to Claude Code hooks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolMap {
    /// The Claude Code tool name.
    pub claude: String,
    /// Harness argument name → Claude Code argument name.
    pub args: BTreeMap<String, String>,
    /// Claude Code arguments made absolute against the working directory.
    pub paths: Vec<String>,
    /// A text result is shown as Bash's `{stdout, stderr, interrupted,
    /// isImage, noOutputExpected}`.
    pub bash_output: bool,
}

/// Harness tool name → how it looks to Claude Code hooks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vocabulary {
    tools: BTreeMap<String, ToolMap>,
    /// How the harness names the tools of MCP servers, if it has any.
    mcp: Option<McpNames>,
    /// Read from a file that says `replace: true`: it is the whole table,
    /// not an addition to the built-in one.
    replaces_builtin: bool,
}

/// How a harness names an MCP server's tool, which Claude Code names
/// `mcp__<server>__<tool>`: the text around and between the two names,
/// written as a pattern such as `{server}.{tool}` or `mcp/{server}/{tool}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpNames {
    prefix: String,
    separator: String,
    suffix: String,
}

impl McpNames {
    /// Reads a pattern holding `{server}`, then `{tool}`, with a
    /// non-empty separator between them; `None` for anything else.
    pub fn parse(pattern: &str) -> Option<McpNames> {
        let (prefix, rest) = pattern.split_once("{server}")?;
        let (separator, suffix) = rest.split_once("{tool}")?;
        if separator.is_empty() || [prefix, separator, suffix].iter().any(|p| p.contains('{')) {
            return None;
        }
        Some(McpNames {
            prefix: prefix.to_owned(),
            separator: separator.to_owned(),
            suffix: suffix.to_owned(),
        })
    }

    /// Claude Code's name for the harness's tool `name`, if the pattern
    /// fits it (the server's name ends at the first separator).
    pub fn to_claude(&self, name: &str) -> Option<String> {
        let middle = name
            .strip_prefix(self.prefix.as_str())?
            .strip_suffix(self.suffix.as_str())?;
        let (server, tool) = middle.split_once(self.separator.as_str())?;
        (!server.is_empty() && !tool.is_empty())
            .then(|| format!("mcp__{}__{}", mcp_part(server), mcp_part(tool)))
    }
}

/// A server's or tool's name as Claude Code writes it in `mcp__…` names:
/// every character but ASCII letters, digits, `_` and `-` becomes `_`.
fn mcp_part(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

impl Default for Vocabulary {
    /// The built-in table.
    fn default() -> Self {
        Vocabulary::builtin()
    }
}

impl Vocabulary {
    /// A table that maps nothing: every tool passes unchanged.
    pub fn empty() -> Vocabulary {
        Vocabulary {
            tools: BTreeMap::new(),
            mcp: None,
            replaces_builtin: false,
        }
    }

    /// latch's built-in table.
    pub fn builtin() -> Vocabulary {
        // The built-in text is part of latch and tested; an error in it
        // would leave the table empty rather than panic.
        Vocabulary::from_text(BUILTIN, Path::new("builtin.yaml")).0
    }

    /// A table read from YAML (or JSON) text: `tools: {NAME: {claude, args,
    /// paths, output}}`, optionally `mcp: PATTERN` ([`McpNames`]) and
    /// `replace: true` (see [`Vocabulary::over_builtin`]). Problems are
    /// diagnostics naming `file`; the valid entries are kept.
    pub fn from_text(text: &str, file: &Path) -> (Vocabulary, Vec<Diagnostic>) {
        let mut diags = Vec::new();
        let mut vocab = Vocabulary::empty();
        let root = match crate::config::yaml::parse(text) {
            Ok(root) => root,
            Err(e) => {
                diags.push(
                    Diagnostic::error(format!("invalid YAML: {}", e.message))
                        .in_file(file)
                        .at(e.position),
                );
                return (vocab, diags);
            }
        };
        let error = |message: String, at| Diagnostic::error(message).in_file(file).at(Some(at));
        for (key, _) in root.as_map().unwrap_or_default() {
            let key_text = key.scalar_text();
            if !["tools", "mcp", "replace"].contains(&key_text.as_str()) {
                diags.push(error(
                    format!("unknown key `{key_text}` (a tool vocabulary has `tools`, `mcp` and `replace`)"),
                    key.position,
                ));
            }
        }
        if let Some(node) = root.get("replace") {
            match node.value {
                Yaml::Bool(b) => vocab.replaces_builtin = b,
                _ => diags.push(error(
                    "`replace` must be true or false".to_owned(),
                    node.position,
                )),
            }
        }
        if let Some(node) = root.get("mcp") {
            match node.as_str().and_then(McpNames::parse) {
                Some(names) => vocab.mcp = Some(names),
                None => diags.push(error(
                    "`mcp` must be a pattern such as `{server}.{tool}`: `{server}`, a separator, then `{tool}`".to_owned(),
                    node.position,
                )),
            }
        }
        let tools = match root.get("tools") {
            Some(node) => match node.as_map() {
                Some(tools) => tools,
                None => {
                    diags.push(error(
                        "`tools` must be a mapping of tool names".to_owned(),
                        node.position,
                    ));
                    return (vocab, diags);
                }
            },
            None if root.get("mcp").is_some() => return (vocab, diags),
            None => {
                diags.push(error(
                    "a tool vocabulary needs `tools`, a mapping of tool names".to_owned(),
                    root.position,
                ));
                return (vocab, diags);
            }
        };
        for (name, entry) in tools {
            match read_entry(entry) {
                Ok(map) => {
                    vocab.tools.insert(name.scalar_text(), map);
                }
                Err((message, at)) => diags.push(
                    Diagnostic::error(format!("tool `{}`: {message}", name.scalar_text()))
                        .in_file(file)
                        .at(Some(at)),
                ),
            }
        }
        (vocab, diags)
    }

    /// Adds or replaces one tool.
    pub fn with(mut self, harness: impl Into<String>, map: ToolMap) -> Vocabulary {
        self.tools.insert(harness.into(), map);
        self
    }

    /// This table with every tool of `other` added (replacing same names),
    /// and `other`'s MCP names if it has them.
    pub fn extended(mut self, other: Vocabulary) -> Vocabulary {
        self.tools.extend(other.tools);
        self.mcp = other.mcp.or(self.mcp);
        self
    }

    /// The table a harness's own one makes with the built-in table: the
    /// built-in one extended by it, or itself alone when it says
    /// `replace: true`.
    pub fn over_builtin(self) -> Vocabulary {
        if self.replaces_builtin {
            self
        } else {
            Vocabulary::builtin().extended(self)
        }
    }

    /// This table, with `names` as the way the harness names MCP tools.
    pub fn with_mcp(mut self, names: McpNames) -> Vocabulary {
        self.mcp = Some(names);
        self
    }

    /// How `tool` looks to Claude Code hooks, if the table lists it.
    pub fn get(&self, tool: &str) -> Option<&ToolMap> {
        self.tools.get(tool)
    }

    /// The Claude Code name of a harness tool: its entry's, else the MCP
    /// name the table's `mcp` pattern gives it, else itself.
    pub fn claude_name<'a>(&'a self, tool: &'a str) -> std::borrow::Cow<'a, str> {
        if let Some(m) = self.get(tool) {
            return m.claude.as_str().into();
        }
        match self.mcp.as_ref().and_then(|m| m.to_claude(tool)) {
            Some(name) => name.into(),
            None => tool.into(),
        }
    }

    /// Whether the table maps MCP tools by a pattern: then any
    /// `mcp__…` name may come from the harness.
    pub fn maps_mcp(&self) -> bool {
        self.mcp.is_some()
    }

    /// Every Claude Code name the table produces.
    pub fn claude_names(&self) -> impl Iterator<Item = &str> {
        self.tools.values().map(|m| m.claude.as_str())
    }

    /// Every harness tool name with its Claude Code name.
    pub fn names(&self) -> impl Iterator<Item = (&str, &str)> {
        self.tools
            .iter()
            .map(|(harness, m)| (harness.as_str(), m.claude.as_str()))
    }
}

impl ToolMap {
    /// Whether the arguments need rewriting at all.
    pub fn changes_input(&self) -> bool {
        !self.args.is_empty() || !self.paths.is_empty()
    }

    /// The harness's arguments in Claude Code's shape: keys renamed, paths
    /// made absolute against `cwd`. Anything but an object passes as is.
    pub fn to_claude(&self, input: Value, cwd: &Path) -> Value {
        let Value::Object(obj) = input else {
            return input;
        };
        let mut out = Map::with_capacity(obj.len());
        for (k, v) in obj {
            let key = self.args.get(&k).cloned().unwrap_or(k);
            out.insert(key, v);
        }
        for p in &self.paths {
            if let Some(Value::String(s)) = out.get_mut(p)
                && !Path::new(s.as_str()).is_absolute()
            {
                *s = crate::config::normalize(&cwd.join(&*s))
                    .to_string_lossy()
                    .into_owned();
            }
        }
        Value::Object(out)
    }

    /// A hook's rewritten arguments (in Claude Code's shape) back in the
    /// harness's shape: keys renamed back; paths stay absolute.
    pub fn from_claude(&self, input: Value) -> Value {
        let Value::Object(obj) = input else {
            return input;
        };
        let back: BTreeMap<&str, &str> = self
            .args
            .iter()
            .map(|(h, c)| (c.as_str(), h.as_str()))
            .collect();
        Value::Object(
            obj.into_iter()
                .map(|(k, v)| (back.get(k.as_str()).map_or(k, |h| (*h).to_owned()), v))
                .collect(),
        )
    }

    /// A tool's result as Claude Code shows it: for a Bash-like tool, a
    /// text result becomes `{stdout, stderr, interrupted, isImage,
    /// noOutputExpected}`; anything else passes as is.
    pub fn output_to_claude(&self, output: Value) -> Value {
        match output {
            Value::String(text) if self.bash_output => serde_json::json!({
                "stdout": text, "stderr": "", "interrupted": false,
                "isImage": false, "noOutputExpected": false
            }),
            other => other,
        }
    }
}

fn read_entry(entry: &Node) -> Result<ToolMap, (String, crate::diag::Position)> {
    if entry.as_map().is_none() {
        return Err((
            format!("must be a mapping, not {}", entry.kind()),
            entry.position,
        ));
    }
    let mut map = ToolMap::default();
    match entry.get("claude") {
        Some(n) => match n.as_str() {
            Some(s) if !s.trim().is_empty() => map.claude = s.trim().to_owned(),
            _ => return Err(("`claude` must be a tool name".to_owned(), n.position)),
        },
        None => {
            return Err((
                "needs `claude`, the Claude Code tool name".to_owned(),
                entry.position,
            ));
        }
    }
    if let Some(args) = entry.get("args") {
        let Some(pairs) = args.as_map() else {
            return Err((
                "`args` must map harness names to Claude Code names".to_owned(),
                args.position,
            ));
        };
        for (k, v) in pairs {
            let Some(to) = v.as_str() else {
                return Err((
                    format!("`args.{}` must be a name", k.scalar_text()),
                    v.position,
                ));
            };
            map.args.insert(k.scalar_text(), to.to_owned());
        }
    }
    if let Some(paths) = entry.get("paths") {
        let Yaml::Seq(items) = &paths.value else {
            return Err((
                "`paths` must be a list of argument names".to_owned(),
                paths.position,
            ));
        };
        for i in items {
            match i.as_str() {
                Some(s) => map.paths.push(s.to_owned()),
                None => return Err(("`paths` must hold names".to_owned(), i.position)),
            }
        }
    }
    match entry.get("output").map(|o| (o, o.as_str())) {
        None => {}
        Some((_, Some("bash"))) => map.bash_output = true,
        Some((o, _)) => return Err(("`output` can only be `bash`".to_owned(), o.position)),
    }
    for (k, _) in entry.as_map().unwrap_or_default() {
        let key = k.scalar_text();
        if !["claude", "args", "paths", "output"].contains(&key.as_str()) {
            return Err((format!("unknown key `{key}`"), k.position));
        }
    }
    Ok(map)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_builtin_table_loads_whole() {
        let (v, diags) = Vocabulary::from_text(BUILTIN, Path::new("builtin.yaml"));
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(v.claude_name("shell"), "Bash");
        assert_eq!(v.claude_name("runCommand"), "Bash");
        assert_eq!(v.claude_name("mcp__srv__x"), "mcp__srv__x");
    }

    #[test]
    fn arguments_map_there_and_back() {
        let v = Vocabulary::builtin();
        let write = v.get("write").unwrap();
        let claude = write.to_claude(
            json!({"path": "src/a.rs", "contents": "x", "mode": 1}),
            Path::new("/w"),
        );
        assert_eq!(
            claude,
            json!({"file_path": "/w/src/a.rs", "content": "x", "mode": 1})
        );
        assert_eq!(
            write.from_claude(json!({"file_path": "/w/b.rs", "content": "y"})),
            json!({"path": "/w/b.rs", "contents": "y"})
        );
        let shell = v.get("shell").unwrap();
        assert_eq!(shell.output_to_claude(json!("hi"))["stdout"], "hi");
    }

    #[test]
    fn mcp_tools_map_by_a_pattern() {
        let (v, diags) = Vocabulary::from_text(
            "mcp: \"mcp/{server}/{tool}\"\ntools:\n  mcp/fs/special: {claude: Read}\n",
            Path::new("v.yaml"),
        );
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(
            v.claude_name("mcp/github/create_issue"),
            "mcp__github__create_issue"
        );
        // The server's name ends at the first separator.
        assert_eq!(v.claude_name("mcp/fs/read/all"), "mcp__fs__read_all");
        assert_eq!(
            v.claude_name("mcp/my.db/run query"),
            "mcp__my_db__run_query"
        );
        // An entry wins; a name the pattern does not fit passes as is.
        assert_eq!(v.claude_name("mcp/fs/special"), "Read");
        assert_eq!(v.claude_name("mcp//x"), "mcp//x");
        assert_eq!(v.claude_name("shell"), "shell");
        let dotted = McpNames::parse("{server}.{tool}").unwrap();
        assert_eq!(
            dotted.to_claude("db.query").as_deref(),
            Some("mcp__db__query")
        );
        assert_eq!(dotted.to_claude("plain"), None);
        for bad in [
            "{tool}.{server}",
            "{server}{tool}",
            "x",
            "{server}.{tool}.{x}",
        ] {
            assert!(McpNames::parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn a_file_may_replace_the_builtin_table() {
        let (own, diags) = Vocabulary::from_text(
            "replace: true\ntools:\n  run: {claude: Bash}\n",
            Path::new("v.yaml"),
        );
        assert!(diags.is_empty(), "{diags:?}");
        let table = own.over_builtin();
        assert_eq!(table.claude_name("run"), "Bash");
        assert_eq!(
            table.claude_name("shell"),
            "shell",
            "the built-in entries are gone"
        );
        let (own, _) =
            Vocabulary::from_text("tools:\n  run: {claude: Bash}\n", Path::new("v.yaml"));
        assert_eq!(own.over_builtin().claude_name("shell"), "Bash");
        let (_, diags) = Vocabulary::from_text(
            "replace: yes please\nmcp: \"{tool}\"\ntool: {}\ntools: {}\n",
            Path::new("v.yaml"),
        );
        let messages: Vec<&str> = diags.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(messages.len(), 3, "{messages:?}");
        assert!(
            messages[0].starts_with("unknown key `tool`"),
            "{messages:?}"
        );
        assert!(
            messages[1].contains("`replace` must be true or false"),
            "{messages:?}"
        );
        assert!(
            messages[2].contains("`mcp` must be a pattern"),
            "{messages:?}"
        );
    }

    #[test]
    fn a_file_reports_bad_entries_and_keeps_the_rest() {
        let (v, diags) = Vocabulary::from_text(
            "tools:\n  run: {claude: Bash, args: {c: command}}\n  bad: {args: {}}\n  worse: {claude: X, colour: red}\n",
            Path::new("v.yaml"),
        );
        assert_eq!(v.claude_name("run"), "Bash");
        assert_eq!(diags.len(), 2);
        assert!(diags[0].message.contains("tool `bad`: needs `claude`"));
        assert_eq!(diags[1].position.map(|p| p.line), Some(4));
    }
}
