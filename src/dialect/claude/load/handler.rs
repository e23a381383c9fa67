//! Handlers: what each does, how copies are told apart, and the reading
//! of one hook entry.

use super::*;

/// What a handler does.
#[derive(Debug, Clone, PartialEq)]
pub enum HandlerKind {
    /// Run a process: through `/bin/sh -c` (shell form) or, with `args`,
    /// directly (exec form).
    Command {
        /// The command line (shell form) or the program (exec form).
        command: String,
        /// The arguments, in exec form.
        args: Option<Vec<String>>,
        /// The `shell` field (`bash` or `powershell`), as written.
        shell: Option<String>,
    },
    /// POST the payload to a URL.
    Http {
        /// The URL.
        url: String,
        /// Extra headers; `$VAR` and `${VAR}` expand from `allowed_env_vars`.
        headers: Vec<(String, String)>,
        /// The variables headers may expand.
        allowed_env_vars: Vec<String>,
    },
    /// Ask a model.
    Prompt {
        /// The prompt, with `$ARGUMENTS`.
        prompt: String,
        /// The model override.
        model: Option<String>,
    },
    /// Run a sub-agent (the harness must provide it).
    Agent {
        /// The agent's prompt.
        prompt: String,
    },
    /// Call an MCP tool (the harness must provide it).
    McpTool {
        /// The MCP server.
        server: String,
        /// The tool.
        tool: String,
        /// The tool's arguments, with `${path}` placeholders into the
        /// payload (`${tool_input.file_path}`); `{}` when absent.
        input: serde_json::Value,
    },
}

impl HandlerKind {
    /// The `type` as written.
    pub fn type_name(&self) -> &'static str {
        match self {
            HandlerKind::Command { .. } => "command",
            HandlerKind::Http { .. } => "http",
            HandlerKind::Prompt { .. } => "prompt",
            HandlerKind::Agent { .. } => "agent",
            HandlerKind::McpTool { .. } => "mcp_tool",
        }
    }

    /// The text Claude Code shows between brackets in its messages: the
    /// command line (exec form: the program and arguments joined by single
    /// spaces, unquoted, as recorded in `r2_exec_args_exit2`), the prompt,
    /// the URL, or the MCP tool.
    pub fn shown(&self) -> std::borrow::Cow<'_, str> {
        use std::borrow::Cow;
        match self {
            HandlerKind::Command {
                command,
                args: Some(args),
                ..
            } if !args.is_empty() => Cow::Owned(format!("{command} {}", args.join(" "))),
            HandlerKind::Command { command, .. } => Cow::Borrowed(command),
            HandlerKind::Http { url, .. } => Cow::Borrowed(url),
            HandlerKind::Prompt { prompt, .. } | HandlerKind::Agent { prompt } => {
                Cow::Borrowed(prompt)
            }
            // Claude Code's `ZD`: `server/tool`.
            HandlerKind::McpTool { server, tool, .. } => Cow::Owned(format!("{server}/{tool}")),
        }
    }
}

impl Handler {
    /// Where `key` is written in this handler, if it is.
    pub fn key_position(&self, key: &str) -> Option<Position> {
        self.key_at
            .iter()
            .rfind(|(k, _)| k == key)
            .map(|(_, at)| *at)
    }

    /// Whether `other` is a copy of this handler (see [`Handler::identity`]).
    pub fn same_hook(&self, other: &Handler) -> bool {
        self.identity() == other.identity()
    }

    /// Whether `other` is written as this handler is, as far as latch
    /// reads a handler: a copy with the same `timeout`, `async`,
    /// `asyncRewake`, `onFailure` and `statusMessage` (Claude Code's deep
    /// equality of the two objects, `isDeepStrictEqual`, which also tells
    /// `"shell": "bash"` from none, `"if": ""` from none, a written
    /// `"onFailure": "continue"` from none, and compares `once` and
    /// `rewakeMessage`: latch finds some copies alike that Claude Code
    /// does not).
    pub fn written_alike(&self, other: &Handler) -> bool {
        self.same_hook(other)
            && self.timeout == other.timeout
            && self.run_async == other.run_async
            && self.async_rewake == other.async_rewake
            && self.on_failure_blocks == other.on_failure_blocks
            && self.status_message == other.status_message
    }

    /// What makes two handlers copies of one, which Claude Code runs once
    /// per event (recorded: `i2`, `r4_dedup_identity`): the type, the `if`
    /// (none and `""` alike) and, for a command, its `command` text as
    /// written (an exec-form handler's program, not its joined command
    /// line), its `args` and its `shell` (none counts as `bash`, as on
    /// Linux); `async` and `asyncRewake` do not count. Other handlers: the
    /// URL, the prompt, or the MCP server, tool and input. (The `shell`,
    /// `args` and non-command keys are read from Claude Code's 2.1.197
    /// code; the recordings cover `if`, `async` and `shell: "bash"`.)
    fn identity(&self) -> Identity<'_> {
        let condition = self
            .condition
            .as_ref()
            .map(|c| c.text.as_str())
            .filter(|t| !t.is_empty());
        match &self.kind {
            HandlerKind::Command {
                command,
                args,
                shell,
            } => Identity {
                kind: "command",
                text: std::borrow::Cow::Borrowed(command),
                args: args.as_deref(),
                shell: shell.as_deref().unwrap_or("bash"),
                condition,
            },
            HandlerKind::McpTool {
                server,
                tool,
                input,
            } => Identity {
                kind: "mcp_tool",
                text: std::borrow::Cow::Owned(format!("{server}\0{tool}\0{input}")),
                args: None,
                shell: "",
                condition,
            },
            kind => Identity {
                kind: kind.type_name(),
                text: kind.shown(),
                args: None,
                shell: "",
                condition,
            },
        }
    }
}

/// Which of `handlers`, in configuration order and each with its
/// plugin's root (`None`: a settings file), a later copy replaces: Claude
/// Code runs only the last copy, with its own settings (recorded:
/// `r4_dedup_async_first`, `r4_dedup_sync_first`), and a plugin's copy
/// counts apart from a settings file's (`r2_plugin`).
pub fn superseded<'a>(handlers: &[(Option<&'a Path>, &'a Handler)]) -> Vec<bool> {
    let keys: Vec<(Option<&Path>, Identity<'_>)> = handlers
        .iter()
        .map(|&(plugin, handler)| (plugin, handler.identity()))
        .collect();
    later_copies(&keys)
}

/// For each key, whether an equal one follows it.
fn later_copies<K: Eq + std::hash::Hash>(keys: &[K]) -> Vec<bool> {
    // A handful (the usual case, a hook or a few per event): comparing
    // each with the later ones beats hashing them all.
    if keys.len() <= 16 {
        return keys
            .iter()
            .enumerate()
            .map(|(i, key)| keys[i + 1..].contains(key))
            .collect();
    }
    let last: std::collections::HashMap<&K, usize> =
        keys.iter().enumerate().map(|(i, key)| (key, i)).collect();
    keys.iter()
        .enumerate()
        .map(|(i, key)| last.get(key) != Some(&i))
        .collect()
}

/// The message of a handler skipped as a copy of a later one.
pub const COPY_SKIPPED: &str =
    "a later handler of this event is a copy of it; Claude Code runs only the last copy";

/// What tells a handler from its copies (see [`Handler::identity`]),
/// borrowed from the handler: comparing copies costs no allocation for
/// command handlers.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Identity<'a> {
    kind: &'static str,
    text: std::borrow::Cow<'a, str>,
    args: Option<&'a [String]>,
    shell: &'a str,
    condition: Option<&'a str>,
}

/// A handler's `timeout` as Claude Code runs it: any positive number of
/// seconds loads; Node's timer fires after 1 ms for a delay under that,
/// and Claude Code 2.1.332 caps a longer one at 2,147,483,647 ms (recorded:
/// `r4_timeout_huge`, `timeout: 1e18` runs the hook to its end; 2.1.197
/// timed it out at once). The flag says the timeout was changed so.
fn node_timeout(t: &Node) -> Result<(Duration, Option<Adjusted>), String> {
    let secs = match t.value {
        Value::Int(i) => i as f64,
        Value::Float(f) => f,
        _ => return Err(t.kind().to_owned()),
    };
    if !(secs > 0.0 && secs.is_finite()) {
        return Err(t.scalar_text());
    }
    let ms = secs * 1000.0;
    Ok(if ms < 1.0 {
        (Duration::from_millis(1), Some(Adjusted::Raised))
    } else if ms > MAX_TIMER_MS as f64 {
        (Duration::from_millis(MAX_TIMER_MS), Some(Adjusted::Capped))
    } else {
        (Duration::from_secs_f64(secs), None)
    })
}

/// The longest timeout Claude Code sets, in milliseconds (Node's timer's
/// limit; 2.1.332's `Lu`).
const MAX_TIMER_MS: u64 = 2_147_483_647;

/// How [`node_timeout`] changed a timeout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Adjusted {
    /// Under a millisecond: 1 ms.
    Raised,
    /// Over Node's timer: capped.
    Capped,
}

/// One handler of a group.
#[derive(Debug, Clone)]
pub struct Handler {
    /// What it does.
    pub kind: HandlerKind,
    /// Its `timeout`, if set.
    pub timeout: Option<Duration>,
    /// `onFailure: "block"`: a failure (an exit other than 0 and 2, a
    /// timeout, a failed start, an answer that fails the schema) blocks
    /// as an exit 2 does, where Claude Code honours it (2.1.332).
    pub on_failure_blocks: bool,
    /// `statusMessage`: what the user sees while it runs, and how an
    /// answer's block names it (Claude Code 2.1.332's `qwo`).
    pub status_message: Option<String>,
    /// `async: true`: runs in the background; its decision is ignored.
    pub run_async: bool,
    /// `asyncRewake: true` (synchronous under a non-interactive harness).
    pub async_rewake: bool,
    /// The `if` condition.
    pub condition: Option<Condition>,
    /// Where it was declared.
    pub source: SourceRef,
    /// Each key as written, with where it is written, in file order (for
    /// reports that point at one key, such as `latch convert`'s).
    pub key_at: Vec<(String, Position)>,
}

impl Loader<'_> {
    pub(super) fn handler(&mut self, h: &Node) -> Option<Handler> {
        if h.as_map().is_none() {
            self.problem(
                h.position,
                format!("a handler must be an object, not {}", h.json_kind()),
            );
            return None;
        }
        let before = self.problems.len();
        let ty = self.string(h, "type", true).unwrap_or_default();
        let kind = match ty.as_str() {
            "command" => {
                let command = self.string(h, "command", true);
                let args = self.strings(h, "args");
                let shell = self.string(h, "shell", false);
                if let (Some(s), Some(node)) = (&shell, h.get("shell"))
                    && s != "bash"
                    && s != "powershell"
                {
                    self.problem(
                        node.position,
                        format!("`shell` must be \"bash\" or \"powershell\", not {s:?}"),
                    );
                }
                command.map(|command| HandlerKind::Command {
                    command,
                    args,
                    shell,
                })
            }
            "http" => {
                let url = self.string(h, "url", true);
                let headers = self.headers(h);
                let allowed_env_vars = self.strings(h, "allowedEnvVars").unwrap_or_default();
                url.map(|url| HandlerKind::Http {
                    url,
                    headers,
                    allowed_env_vars,
                })
            }
            "prompt" => {
                let prompt = self.string(h, "prompt", true);
                let model = self.string(h, "model", false);
                prompt.map(|prompt| HandlerKind::Prompt { prompt, model })
            }
            "agent" => self
                .string(h, "prompt", true)
                .map(|prompt| HandlerKind::Agent { prompt }),
            "mcp_tool" => {
                let server = self.string(h, "server", true);
                let tool = self.string(h, "tool", true);
                let input = match h.get("input") {
                    None => Some(serde_json::Value::Object(serde_json::Map::new())),
                    Some(n) if n.as_map().is_some() => Some(n.to_json()),
                    Some(n) => {
                        self.problem(
                            n.position,
                            format!("`input` must be an object, not {}", n.json_kind()),
                        );
                        None
                    }
                };
                match (server, tool, input) {
                    (Some(server), Some(tool), Some(input)) => Some(HandlerKind::McpTool {
                        server,
                        tool,
                        input,
                    }),
                    _ => None,
                }
            }
            "" => None,
            other => {
                let at = h.get("type").map_or(h.position, |t| t.position);
                self.problem(
                    at,
                    format!("unknown handler type {other:?}; Claude Code knows command, http, prompt, agent and mcp_tool"),
                );
                None
            }
        };
        let timeout = match h.get("timeout") {
            None => None,
            Some(t) => match node_timeout(t) {
                Ok((d, None)) => Some(d),
                Ok((d, Some(how))) => {
                    let what = match how {
                        Adjusted::Raised => {
                            "under a millisecond: Claude Code's timer fires after 1 ms, so the hook times out at once, in latch too"
                        }
                        Adjusted::Capped => {
                            "over what Claude Code's timer holds: it is capped at 2147483.647 s (about 24.8 days), in latch too"
                        }
                    };
                    self.note(
                        Diagnostic::warning(format!(
                            "a `timeout` of {} seconds is {what}",
                            t.scalar_text()
                        ))
                        .at(Some(t.position)),
                    );
                    Some(d)
                }
                Err(found) => {
                    self.problem(
                        t.position,
                        format!("`timeout` must be a positive number of seconds, not {found}"),
                    );
                    None
                }
            },
        };
        let run_async = self.boolean(h, "async");
        let async_rewake = self.boolean(h, "asyncRewake");
        self.boolean(h, "once");
        // An empty `if` is no condition: the handler runs (recorded:
        // `r4_if_empty`).
        let condition = self
            .string(h, "if", false)
            .filter(|text| !text.is_empty())
            .map(|text| {
                let rule = match Rule::parse_with_budget(&text, &mut self.budget) {
                    Ok(rule) => Some(rule),
                    Err(e) => {
                        let at = h.get("if").map_or(h.position, |n| n.position);
                        self.note(
                            Diagnostic::warning(format!(
                                "{e}; the handler runs as if it had no `if`"
                            ))
                            .at(Some(at)),
                        );
                        None
                    }
                };
                Condition { text, rule }
            });
        let status_message = self.string(h, "statusMessage", false);
        let on_failure_blocks = self.on_failure(h, kind.as_ref());
        let kind = kind.filter(|_| self.problems.len() == before)?;
        if matches!(
            kind,
            HandlerKind::Agent { .. } | HandlerKind::McpTool { .. }
        ) {
            let at = h.get("type").map_or(h.position, |t| t.position);
            self.note(
                Diagnostic::new(
                    crate::diag::Severity::Info,
                    format!(
                        "`{}` handlers run only when the harness gives latch its sub-agents and tool servers (the library's `Engine::with_harness_handlers`); `latch fire` skips them",
                        kind.type_name()
                    ),
                )
                .at(Some(at)),
            );
        }
        let key_at = h
            .as_map()
            .unwrap_or_default()
            .iter()
            .map(|(k, _)| (k.scalar_text(), k.position))
            .collect();
        Some(Handler {
            kind,
            timeout,
            run_async,
            async_rewake,
            on_failure_blocks,
            status_message,
            condition,
            source: SourceRef {
                file: self.path.to_path_buf(),
                position: Some(h.position),
            },
            key_at,
        })
    }

    /// `onFailure` (Claude Code 2.1.332): `"block"` makes the handler's
    /// failure block like an exit 2; `"continue"` (the default) does not.
    /// Another value makes the entry invalid, except on an `mcp_tool`
    /// handler, where anything but `"continue"` blocks; `prompt` and
    /// `agent` handlers have no such key (Claude Code strips it).
    pub(super) fn on_failure(&mut self, h: &Node, kind: Option<&HandlerKind>) -> bool {
        let Some(n) = h.get("onFailure") else {
            return false;
        };
        match kind {
            Some(HandlerKind::McpTool { .. }) => return n.as_str() != Some("continue"),
            // Not a key of these handlers: their schema strips it.
            Some(HandlerKind::Prompt { .. } | HandlerKind::Agent { .. }) | None => return false,
            _ => {}
        }
        match n.as_str() {
            Some("block") => true,
            Some("continue") => false,
            _ => {
                self.problem(
                    n.position,
                    format!(
                        "`onFailure` must be \"continue\" or \"block\", not {}",
                        n.json_kind()
                    ),
                );
                false
            }
        }
    }

    /// The string under `key`; a problem if it is missing (when required)
    /// or not a string.
    pub(super) fn string(&mut self, h: &Node, key: &str, required: bool) -> Option<String> {
        match h.get(key) {
            Some(n) => match n.as_str() {
                Some(s) => Some(s.to_owned()),
                None => {
                    self.problem(
                        n.position,
                        format!("`{key}` must be a string, not {}", n.json_kind()),
                    );
                    None
                }
            },
            None if required => {
                self.problem(h.position, format!("the handler needs `{key}`"));
                None
            }
            None => None,
        }
    }

    pub(super) fn strings(&mut self, h: &Node, key: &str) -> Option<Vec<String>> {
        let n = h.get(key)?;
        let items = match &n.value {
            Value::Seq(items) => items,
            _ => {
                self.problem(
                    n.position,
                    format!("`{key}` must be an array of strings, not {}", n.json_kind()),
                );
                return None;
            }
        };
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            match item.as_str() {
                Some(s) => out.push(s.to_owned()),
                None => self.problem(
                    item.position,
                    format!("`{key}` must hold only strings, not {}", item.json_kind()),
                ),
            }
        }
        Some(out)
    }

    pub(super) fn boolean(&mut self, h: &Node, key: &str) -> bool {
        match h.get(key).map(|n| (n, &n.value)) {
            None => false,
            Some((_, Value::Bool(b))) => *b,
            Some((n, _)) => {
                self.problem(
                    n.position,
                    format!("`{key}` must be a boolean, not {}", n.json_kind()),
                );
                false
            }
        }
    }

    pub(super) fn headers(&mut self, h: &Node) -> Vec<(String, String)> {
        let Some(n) = h.get("headers") else {
            return Vec::new();
        };
        let Some(entries) = n.as_map() else {
            self.problem(
                n.position,
                format!(
                    "`headers` must be an object of strings, not {}",
                    n.json_kind()
                ),
            );
            return Vec::new();
        };
        let mut out = Vec::new();
        for (k, v) in entries {
            match v.as_str() {
                Some(s) => out.push((k.scalar_text(), s.to_owned())),
                None => self.problem(
                    v.position,
                    format!(
                        "header `{}` must be a string, not {}",
                        k.scalar_text(),
                        v.json_kind()
                    ),
                ),
            }
        }
        out
    }
}

/// The keys of a handler Claude Code knows (the schema lists them;
/// `onFailure`, `holdsTools` and `cloud` since 2.1.332).
pub const HANDLER_KEYS: [&str; 21] = [
    "type",
    "command",
    "args",
    "shell",
    "timeout",
    "async",
    "asyncRewake",
    "once",
    "if",
    "statusMessage",
    "url",
    "headers",
    "allowedEnvVars",
    "prompt",
    "model",
    "server",
    "tool",
    "input",
    "onFailure",
    "holdsTools",
    "cloud",
];

/// JavaScript's `String(value)` of a JSON value: numbers as JavaScript
/// writes them, an array's items joined with `,` (`null` as nothing), an
/// object `[object Object]`.
pub(super) fn js_string(node: &Node) -> String {
    match &node.value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) if i.unsigned_abs() <= 1 << 53 => i.to_string(),
        Value::Int(i) => crate::dialect::js_json::js_number(*i as f64),
        Value::Float(f) => crate::dialect::js_json::js_number(*f),
        Value::Str(s) => s.clone(),
        Value::Seq(items) => items
            .iter()
            .map(|i| match i.value {
                Value::Null => String::new(),
                _ => js_string(i),
            })
            .collect::<Vec<_>>()
            .join(","),
        Value::Map(_) => "[object Object]".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_a_copy_when_an_equal_one_follows_it_few_or_many() {
        assert_eq!(
            later_copies(&[1, 2, 1, 3, 2]),
            [true, true, false, false, false]
        );
        assert!(later_copies::<u8>(&[]).is_empty());
        // Past 16 keys the hashed path answers as the pairwise one does.
        let many: Vec<u32> = (0..40).map(|i| i % 7).collect();
        let expected: Vec<bool> = (0..40).map(|i| i + 7 < 40).collect();
        assert_eq!(later_copies(&many), expected);
        let few = &many[..14];
        let expected: Vec<bool> = (0..14).map(|i| i + 7 < 14).collect();
        assert_eq!(later_copies(few), expected);
    }
}
