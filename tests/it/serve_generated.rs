//! `latch serve` against `latch fire` over generated events: for the same
//! configuration, event and session state, `fire` through the server and
//! `latch fire` give the same outcome (issue 10), one event at a time and
//! with the events of several sessions in flight at once.
//!
//! Each case is an event of every kind latch knows, one invalid event and
//! 10 to 39 more events (mostly tool calls, prompts and stops), in a
//! random order, over a few interleaved sessions and working directories.
//! It runs on each bundled example with a fresh state directory for each
//! path. The cases are seeded (`LATCH_GEN_SEED` picks another seed); a
//! failure shows the event, both answers, the case (shrunk for up to
//! 30 s) and the seed.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use proptest::prelude::*;
use proptest::strategy::{Union, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};
use serde_json::{Map, Value, json};

use crate::serve::{Server, untimed};

/// The seed of the generated cases, unless `LATCH_GEN_SEED` gives one.
const SEED: u64 = 0x1a7c_4e5e_0010;

/// The session ids the events use, interleaved (two of them odd, as a
/// harness may send them); an event may also have none.
const SESSIONS: &[&str] = &["s1", "s2", "s3", "s é/✓", ""];

/// The variables of the test's environment neither path may inherit.
const UNSET: &[&str] = &[
    "LATCH_STATE_DIR",
    "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP",
    "LATCH_MAX_EVENT_BYTES",
];

/// One bundled example: a dialect and its project.
struct Setup {
    /// What a failure calls it.
    name: &'static str,
    dialect: &'static str,
    project: PathBuf,
    plugin: Option<PathBuf>,
    /// A subdirectory of the project, for events whose `cwd` is in it.
    sub: &'static str,
    /// Another project with hooks, for events whose `cwd` is elsewhere.
    other: PathBuf,
    /// Tool calls the example's hooks answer, which the tool events use
    /// often.
    hot: Vec<Value>,
}

/// The bundled examples, each with its dialect; the project with a hook
/// on every Claude Code event is made in `dir`.
fn setups(dir: &Path) -> Vec<Setup> {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let every_event = every_event_project(dir);
    vec![
        Setup {
            name: "claude examples/claude/project",
            dialect: "claude",
            project: examples.join("claude/project"),
            plugin: None,
            sub: ".claude/hooks",
            other: every_event.clone(),
            hot: calls(&[
                ("Bash", json!({"command": "rm -rf /"})),
                ("Bash", json!({"command": "rm -rf ~/work"})),
                ("Bash", json!({"command": "npm test"})),
                (
                    "Write",
                    json!({"file_path": "<project>/src/a.rs", "content": "x"}),
                ),
                (
                    "Edit",
                    json!({"file_path": "src/a.rs", "old_string": "a", "new_string": "b"}),
                ),
            ]),
        },
        Setup {
            name: "claude, a hook on every event",
            dialect: "claude",
            project: every_event,
            plugin: None,
            sub: ".claude",
            other: examples.join("claude/project"),
            hot: calls(&[
                ("Bash", json!({"command": "ls"})),
                ("write_file", json!({"path": "notes.md", "contents": "hi"})),
            ]),
        },
        Setup {
            name: "poolside examples/poolside",
            dialect: "poolside",
            project: examples.join("poolside"),
            plugin: None,
            sub: "events",
            other: examples.join("claude/project"),
            hot: calls(&[
                ("shell", json!({"cmd": "sudo make install"})),
                ("shell", json!({"cmd": "echo hook-test"})),
                ("shell", json!({"cmd": "make test"})),
            ]),
        },
        Setup {
            name: "evener examples/evener with guard-plugin",
            dialect: "evener",
            project: examples.join("evener"),
            plugin: Some(examples.join("evener/guard-plugin")),
            sub: "events",
            other: examples.join("poolside"),
            hot: calls(&[
                ("shell", json!({"command": "sudo make install"})),
                ("Bash", json!({"command": "sudo rm x"})),
                ("shell", json!({"command": "make test"})),
            ]),
        },
        Setup {
            name: "peen examples/peen/no-rm-rf",
            dialect: "peen",
            project: examples.join("peen/no-rm-rf"),
            plugin: None,
            sub: ".agents",
            other: examples.join("claude/project"),
            hot: calls(&[
                ("runCommand", json!({"command": "rm -rf /"})),
                (
                    "runCommand",
                    json!({"command": "rm -rf /home", "purpose": "clean up"}),
                ),
                ("runCommand", json!({"command": "cd /tmp && rm -rf /var/x"})),
            ]),
        },
    ]
}

/// Tool calls, each a name and its arguments.
fn calls(list: &[(&str, Value)]) -> Vec<Value> {
    list.iter()
        .map(|(name, input)| json!({"name": name, "input": input}))
        .collect()
}

/// A claude project with a hook on every event Claude Code has: each
/// answers exit 2 with a checksum of its payload, so any difference in a
/// payload, a text or a rule shows.
fn every_event_project(dir: &Path) -> PathBuf {
    let project = dir.join("every-event");
    std::fs::create_dir_all(project.join(".claude")).expect("mkdir");
    let hook = r#"cksum | { read sum size; echo "PAYLOAD $sum $size" >&2; exit 2; }"#;
    let events = [
        "SessionStart",
        "Setup",
        "InstructionsLoaded",
        "UserPromptSubmit",
        "UserPromptExpansion",
        "MessageDisplay",
        "PreModelSwitch",
        "PostModelSwitch",
        "PreSkillShellCommand",
        "PreToolUse",
        "PermissionRequest",
        "PermissionDenied",
        "PostToolUse",
        "PostToolUseFailure",
        "PostToolBatch",
        "Notification",
        "SubagentStart",
        "SubagentStop",
        "TaskCreated",
        "TaskCompleted",
        "Stop",
        "StopFailure",
        "TeammateIdle",
        "ConfigChange",
        "CwdChanged",
        "DirectoryAdded",
        "FileChanged",
        "WorktreeCreate",
        "WorktreeRemove",
        "PreCompact",
        "PostCompact",
        "Elicitation",
        "ElicitationResult",
        "SessionEnd",
    ];
    let hooks: Map<String, Value> = events
        .iter()
        .map(|e| {
            (
                (*e).to_owned(),
                json!([{"hooks": [{"type": "command", "command": hook}]}]),
            )
        })
        .collect();
    std::fs::write(
        project.join(".claude/settings.json"),
        json!({ "hooks": hooks }).to_string(),
    )
    .expect("write settings");
    project
}

// ---- the generated events ----
//
// Paths are written with placeholders that `render` replaces for each
// setup: `<project>`, `<sub>` (the setup's subdirectory), `<other>`
// (another project) and `<empty>` (an empty directory).

/// A field of a generated object: its key and its value, when present.
type Field = (&'static str, BoxedStrategy<Option<Value>>);

/// An object holding each field whose value came out present.
fn object(fields: Vec<Field>) -> BoxedStrategy<Map<String, Value>> {
    let (keys, values): (Vec<&'static str>, Vec<_>) = fields.into_iter().unzip();
    values
        .prop_map(move |values| {
            keys.iter()
                .zip(values)
                .filter_map(|(k, v)| Some(((*k).to_owned(), v?)))
                .collect()
        })
        .boxed()
}

/// [`object`] as a JSON value.
fn object_value(fields: Vec<Field>) -> BoxedStrategy<Value> {
    object(fields).prop_map(Value::Object).boxed()
}

/// A field that is always there.
fn always(value: impl Strategy<Value = Value> + 'static) -> BoxedStrategy<Option<Value>> {
    value.prop_map(Some).boxed()
}

/// A field that is there half of the time.
fn maybe(value: impl Strategy<Value = Value> + 'static) -> BoxedStrategy<Option<Value>> {
    prop::option::of(value).boxed()
}

/// A field that is there a fifth of the time.
fn seldom(value: impl Strategy<Value = Value> + 'static) -> BoxedStrategy<Option<Value>> {
    prop::option::weighted(0.2, value).boxed()
}

/// One of `choices`, as a JSON string.
fn one_of(choices: &'static [&'static str]) -> BoxedStrategy<Value> {
    prop::sample::select(choices).prop_map(Value::from).boxed()
}

/// A number of tokens, lines or such.
fn count() -> BoxedStrategy<Value> {
    prop_oneof![Just(0u64), 1u64..300_000]
        .prop_map(Value::from)
        .boxed()
}

/// Free text: words the examples' hooks react to (a secret, `sudo`,
/// `rm -rf /`), odd unicode, an empty string, or any printable text.
fn text() -> BoxedStrategy<Value> {
    prop_oneof![
        3 => one_of(&[
            "",
            "hello",
            "use sk-abcd1234 please",
            "/deploy prod",
            "sudo make install",
            "rm -rf /",
            "Done.",
            "héllo wörld ✓ 🚀 日本語",
            "a \"quoted\" \\ back\nslash\ttab",
            "\u{202e}rtl\u{200b}zero-width",
        ]),
        1 => "\\PC{0,24}".prop_map(Value::from),
    ]
    .boxed()
}

/// A shell command: the ones the examples' hooks block or rewrite
/// (destructive ones, `sudo`, `npm test`, …), harmless ones, odd
/// unicode, empty, or any printable text.
fn command() -> BoxedStrategy<Value> {
    prop_oneof![
        3 => one_of(&[
            "rm -rf /",
            "rm -rf ~",
            "rm -rf /tmp/x",
            "ls\nrm -rf /",
            "sudo make install",
            "echo hook-test",
            "npm test",
        ]),
        2 => one_of(&[
            "make test",
            "ls -la",
            "git push origin main",
            "cat .env | grep sk-abcd1234",
            "echo 'héllo' ✓ 🚀",
            "",
        ]),
        1 => "\\PC{0,20}".prop_map(Value::from),
    ]
    .boxed()
}

/// A file path: relative, in the project, outside it, in another
/// directory, empty, or with odd characters.
fn path() -> BoxedStrategy<Value> {
    one_of(&[
        "<project>/src/a.rs",
        "src/a.rs",
        "notes.md",
        "../outside.txt",
        "/tmp/outside.txt",
        "<project>/../escape.txt",
        "<project>/.envrc",
        ".envrc",
        "<other>/x.txt",
        "<empty>/ünï côdé ✓.md",
        "",
    ])
}

/// A working directory: the project (also written with a trailing
/// slash), a subdirectory of it, another project, an empty directory, or
/// one that does not exist.
fn directory() -> BoxedStrategy<Value> {
    one_of(&[
        "<project>",
        "<project>/",
        "<project>/<sub>",
        "<other>",
        "<empty>",
        "/nonexistent/dir",
    ])
}

/// Tool names of shell tools: Claude Code's, latch's neutral one,
/// peen's, and one no vocabulary knows.
const SHELL_TOOLS: &[&str] = &["Bash", "shell", "runCommand", "exec_command"];

/// Tool names of file tools, in Claude Code's, the neutral, poolside's
/// and peen's words.
const FILE_TOOLS: &[&str] = &[
    "Write",
    "Edit",
    "Read",
    "MultiEdit",
    "NotebookEdit",
    "write_file",
    "edit_file",
    "read_file",
    "notebook_edit",
    "write",
    "edit",
    "read",
    "writeFile",
    "editFile",
    "readFile",
];

/// Every other tool name: search, agents, web, questions, peen's own
/// tools, MCP tools, and names no vocabulary knows.
const OTHER_TOOLS: &[&str] = &[
    "Grep",
    "Glob",
    "grep",
    "glob",
    "searchText",
    "listFiles",
    "applyPatch",
    "movePath",
    "removePath",
    "Agent",
    "Task",
    "delegate",
    "WebFetch",
    "web_fetch",
    "WebSearch",
    "web_search",
    "AskUserQuestion",
    "ask_user",
    "mcp__srv__lookup",
    "srv.lookup",
    "outil ✓",
];

/// A shell tool's arguments, the command under `key`.
fn shell_input(key: &'static str) -> BoxedStrategy<Value> {
    object_value(vec![
        (key, always(command())),
        ("description", seldom(text())),
        ("purpose", seldom(text())),
        ("timeout", seldom(count())),
    ])
}

/// A file tool's arguments, with Claude Code's or the neutral keys.
fn file_input() -> BoxedStrategy<Value> {
    prop_oneof![
        object_value(vec![
            ("file_path", always(path())),
            ("content", maybe(text())),
            ("old_string", seldom(text())),
            ("new_string", seldom(text())),
        ]),
        object_value(vec![
            ("path", always(path())),
            ("contents", maybe(text())),
            ("content", seldom(text())),
        ]),
    ]
    .boxed()
}

/// Any other arguments: none, not an object, or a few keys.
fn other_input() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(Value::Null),
        Just(json!({})),
        text(),
        Just(json!([1, "two", null, {"three": 3.5}])),
        object_value(vec![
            ("pattern", maybe(text())),
            ("url", maybe(one_of(&["https://example.com/a?b=c", ""]))),
            ("prompt", maybe(text())),
            ("path", seldom(path())),
        ]),
    ]
    .boxed()
}

/// A tool call's name and arguments: often one of `hot`, the calls the
/// setup's hooks answer; else mostly arguments shaped for the tool
/// (Claude Code's keys for its tools and peen's; the neutral shell
/// tools take `cmd` as poolside's or `command` as evener's), sometimes
/// any tool with any arguments.
fn tool_call(hot: &[Value]) -> BoxedStrategy<Map<String, Value>> {
    let named = |names: &'static [&'static str], input: BoxedStrategy<Value>| {
        (prop::sample::select(names), input)
            .prop_map(|(name, input)| json!({"name": name, "input": input}))
    };
    let every = [SHELL_TOOLS, FILE_TOOLS, OTHER_TOOLS].concat();
    let any_input = prop_oneof![
        shell_input("command"),
        shell_input("cmd"),
        file_input(),
        other_input()
    ];
    let call = prop_oneof![
        5 => prop::sample::select(hot.to_vec()),
        2 => named(&["Bash", "runCommand"], shell_input("command")),
        2 => named(
            &["shell", "exec_command"],
            prop_oneof![shell_input("cmd"), shell_input("command")].boxed()
        ),
        3 => named(FILE_TOOLS, file_input()),
        1 => named(OTHER_TOOLS, other_input()),
        1 => (prop::sample::select(every), any_input)
            .prop_map(|(name, input)| json!({"name": name, "input": input})),
    ];
    let ids = object(vec![("call_id", maybe(one_of(&["c1", "c2", "call ✓"])))]);
    (call, ids)
        .prop_map(|(call, mut fields)| {
            if let Value::Object(call) = call {
                fields.extend(call);
            }
            fields
        })
        .boxed()
}

/// A tool call with `extra` fields (its output, its error, …).
fn tool(hot: &[Value], extra: Vec<Field>) -> BoxedStrategy<Value> {
    (tool_call(hot), object(extra))
        .prop_map(|(mut call, extra)| {
            call.extend(extra);
            Value::Object(call)
        })
        .boxed()
}

/// A tool's result: text (now and then with `sudo` in it), Bash's
/// shape, a file tool's, or none.
fn output() -> BoxedStrategy<Value> {
    prop_oneof![
        2 => text(),
        1 => Just(json!("1 sudo make install\n2 make test")),
        1 => text().prop_map(|t| json!({"stdout": t, "stderr": "", "interrupted": false})),
        1 => text().prop_map(|t| json!({"content": t})),
        1 => Just(Value::Null),
    ]
    .boxed()
}

/// A tool call that ran: its output and, sometimes, how long it took.
fn tool_ran(hot: &[Value]) -> BoxedStrategy<Value> {
    tool(
        hot,
        vec![
            ("output", always(output())),
            ("duration_ms", seldom(count())),
        ],
    )
}

/// A tool call that failed: its error, and sometimes whether the user
/// interrupted it and how long it took.
fn tool_failed(hot: &[Value]) -> BoxedStrategy<Value> {
    tool(
        hot,
        vec![
            (
                "error",
                always(one_of(&["Exit code 1", "exit status 1", "", "dénié ✓"])),
            ),
            ("interrupted", seldom(any::<bool>().prop_map(Value::from))),
            ("duration_ms", seldom(count())),
        ],
    )
}

/// The fields every event may have, each present or not; most events
/// have a session.
fn common_fields() -> BoxedStrategy<Map<String, Value>> {
    object(vec![
        (
            "session_id",
            prop::option::weighted(0.85, prop::sample::select(SESSIONS).prop_map(Value::from))
                .boxed(),
        ),
        ("cwd", prop::option::weighted(0.4, directory()).boxed()),
        ("id", seldom(one_of(&["e1", "e2"]))),
        ("turn_id", seldom(one_of(&["t1", "t2"]))),
        ("request_id", seldom(one_of(&["r1", "r2"]))),
        ("agent_run_id", seldom(one_of(&["run1"]))),
        ("scratchpad_dir", seldom(one_of(&["/nonexistent/scratch"]))),
        (
            "transcript_path",
            seldom(one_of(&[
                "<empty>/transcript.jsonl",
                "/nonexistent/t.jsonl",
            ])),
        ),
        ("model", seldom(one_of(&["zai/glm-5.3", "big ✓", ""]))),
        ("effort", seldom(one_of(&["low", "high"]))),
        (
            "permission_mode",
            seldom(one_of(&[
                "default",
                "plan",
                "acceptEdits",
                "auto",
                "dontAsk",
                "bypassPermissions",
            ])),
        ),
        ("prompt_id", seldom(one_of(&["p1"]))),
        ("agent_id", seldom(one_of(&["a1"]))),
        (
            "agent_type",
            seldom(one_of(&["Explore", "general-purpose"])),
        ),
        ("context_tokens", seldom(count())),
    ])
}

/// The compaction figures of a compaction event.
fn compaction() -> BoxedStrategy<Value> {
    object_value(vec![
        ("estimated_tokens", maybe(count())),
        ("budget_tokens", maybe(count())),
        ("round", maybe(count())),
        ("units_covered", seldom(count())),
        ("messages_covered", seldom(count())),
        ("summary_tokens", seldom(count())),
        ("instructions", maybe(text())),
        ("summary", maybe(text())),
    ])
}

/// An agent-team member.
fn team() -> BoxedStrategy<Value> {
    object_value(vec![
        ("teammate_name", maybe(one_of(&["ann", "bö ✓"]))),
        ("team_name", maybe(one_of(&["core", ""]))),
    ])
}

/// A task of an agent team.
fn task() -> BoxedStrategy<Value> {
    object_value(vec![
        ("id", maybe(one_of(&["1", "t-✓"]))),
        ("subject", maybe(text())),
        ("description", maybe(text())),
    ])
}

/// A tool server's request for input, or the user's answer to it.
fn elicitation() -> BoxedStrategy<Value> {
    object_value(vec![
        ("server", maybe(one_of(&["srv", "sérveur"]))),
        ("message", maybe(text())),
        ("mode", maybe(one_of(&["form", "url"]))),
        ("url", seldom(one_of(&["https://example.com/auth"]))),
        ("id", seldom(one_of(&["el1"]))),
        (
            "requested_schema",
            maybe(Just(
                json!({"type": "object", "properties": {"name": {"type": "string"}}}),
            )),
        ),
        ("action", maybe(one_of(&["accept", "decline", "cancel"]))),
        (
            "content",
            maybe(prop_oneof![Just(json!({"name": "x"})), Just(json!(null))]),
        ),
    ])
}

/// The fields of its own an event of `kind` has (see docs/events.md),
/// each present or not, but the tool a tool event needs (see
/// [`tool_call`] for `hot`).
fn own_fields(kind: &str, hot: &[Value]) -> Vec<Field> {
    let stop_reason = || maybe(one_of(&["end_turn", "user", "other", "clear", ""]));
    match kind {
        "session_start" => vec![(
            "source",
            maybe(one_of(&["startup", "resume", "clear", "compact", "wïld"])),
        )],
        "user_prompt" | "user_prompt_ready" => vec![("prompt", maybe(text()))],
        "turn_start" => vec![],
        "tool_before" => vec![("tool", always(tool(hot, vec![])))],
        "permission_request" => vec![
            ("tool", always(tool(hot, vec![]))),
            (
                "permission_suggestions",
                seldom(Just(
                    json!([{"type": "addRules", "rules": [{"toolName": "Bash"}],
                    "behavior": "allow", "destination": "session"}]),
                )),
            ),
        ],
        "tool_after" => vec![("tool", always(tool_ran(hot)))],
        "tool_failure" => vec![("tool", always(tool_failed(hot)))],
        "permission_denied" => vec![
            ("tool", always(tool(hot, vec![]))),
            ("reason", maybe(text())),
        ],
        "stop" => vec![
            ("reason", stop_reason()),
            ("finish_reason", maybe(one_of(&["stop", "length"]))),
            (
                "pending_questions",
                seldom(any::<bool>().prop_map(Value::from)),
            ),
            ("last_assistant_message", maybe(text())),
        ],
        "turn_cancelled" | "session_end" => vec![("reason", stop_reason())],
        "subagent_start" => vec![
            ("agent_id", maybe(one_of(&["a1", "a2"]))),
            ("agent_type", maybe(one_of(&["Explore", "Plan", ""]))),
        ],
        "subagent_stop" => vec![
            ("agent_id", maybe(one_of(&["a1", "a2"]))),
            ("agent_type", maybe(one_of(&["Explore", "Plan", ""]))),
            ("agent_transcript_path", maybe(path())),
            ("last_assistant_message", maybe(text())),
        ],
        "compact_before" | "compact_after" => vec![
            ("trigger", maybe(one_of(&["auto", "manual", "forced"]))),
            ("compaction", maybe(compaction())),
        ],
        "notification" => vec![
            ("message", maybe(text())),
            (
                "notification_type",
                maybe(one_of(&["idle_prompt", "permission_prompt", "info"])),
            ),
            ("title", seldom(text())),
        ],
        "setup" => vec![("trigger", maybe(one_of(&["init", "maintenance"])))],
        "instructions_loaded" => vec![(
            "instructions",
            maybe(object_value(vec![
                ("file_path", maybe(path())),
                (
                    "memory_type",
                    maybe(one_of(&["User", "Project", "Local", "Managed"])),
                ),
                (
                    "load_reason",
                    maybe(one_of(&[
                        "session_start",
                        "nested_traversal",
                        "path_glob_match",
                        "include",
                        "compact",
                    ])),
                ),
                ("globs", seldom(Just(json!(["src/**/*.rs", "*.md"])))),
                ("trigger_file_path", seldom(path())),
                ("parent_file_path", seldom(path())),
            ])),
        )],
        "prompt_expansion" => vec![
            ("prompt", maybe(one_of(&["/deploy prod", "/review", ""]))),
            (
                "expansion",
                maybe(object_value(vec![
                    ("kind", maybe(one_of(&["slash_command", "mcp_prompt"]))),
                    (
                        "command_name",
                        maybe(one_of(&["deploy", "review", "déploy ✓", ""])),
                    ),
                    ("command_args", maybe(one_of(&["prod", ""]))),
                    (
                        "command_source",
                        maybe(one_of(&["projectSettings", "userSettings", "plugin"])),
                    ),
                ])),
            ),
        ],
        "model_switch_before" | "model_switch_after" => vec![
            (
                "source",
                maybe(one_of(&["command", "picker", "sdk", "auto", "resume"])),
            ),
            ("context_tokens", maybe(count())),
            (
                "model_switch",
                always(object_value(vec![
                    ("from", maybe(one_of(&["claude-opus-4-6", ""]))),
                    (
                        "to",
                        always(one_of(&[
                            "claude-sonnet-4-6",
                            "claude-opus-4-6[1m]",
                            "mödel ✓",
                        ])),
                    ),
                    ("requested", maybe(one_of(&["sonnet", "opus[1m]"]))),
                    ("known", seldom(any::<bool>().prop_map(Value::from))),
                    (
                        "prompt_cache_warm",
                        maybe(any::<bool>().prop_map(Value::from)),
                    ),
                    ("cache_ttl", maybe(one_of(&["5m", "1h"]))),
                    (
                        "pricing",
                        maybe(one_of(&["configured", "catalog", "default"])),
                    ),
                ])),
            ),
        ],
        "skill_shell_before" => vec![
            ("tool", always(tool(hot, vec![]))),
            (
                "expansion",
                maybe(object_value(vec![
                    ("command_name", maybe(one_of(&["deploy", "déploy ✓", ""]))),
                    (
                        "command_source",
                        maybe(one_of(&["projectSettings", "plugin"])),
                    ),
                    ("invoked_by", maybe(one_of(&["user", "claude", "other"]))),
                ])),
            ),
        ],
        "message_display" => vec![(
            "display",
            maybe(object_value(vec![
                ("message_id", maybe(one_of(&["m1"]))),
                ("index", maybe(count())),
                ("final", maybe(any::<bool>().prop_map(Value::from))),
                ("delta", maybe(text())),
            ])),
        )],
        "tool_batch" => vec![(
            "tool_calls",
            maybe(
                prop::collection::vec(prop_oneof![tool_ran(hot), tool_failed(hot)], 0..3)
                    .prop_map(Value::from),
            ),
        )],
        "task_created" | "task_completed" => {
            vec![("task", maybe(task())), ("team", maybe(team()))]
        }
        "teammate_idle" => vec![("team", maybe(team()))],
        "stop_failure" => vec![
            (
                "error",
                maybe(one_of(&[
                    "rate_limit",
                    "server_error",
                    "authentication_failed",
                    "unknown",
                ])),
            ),
            ("error_details", maybe(text())),
            ("last_assistant_message", maybe(text())),
        ],
        "config_change" => vec![
            (
                "source",
                maybe(one_of(&[
                    "project_settings",
                    "local_settings",
                    "user_settings",
                    "policy_settings",
                    "skills",
                ])),
            ),
            (
                "file_path",
                maybe(one_of(&[
                    "<project>/.claude/settings.json",
                    "<project>/.claude/settings.local.json",
                    "/nonexistent/.claude/settings.json",
                ])),
            ),
        ],
        "cwd_changed" => vec![("cwd", maybe(directory())), ("old_cwd", maybe(directory()))],
        "directory_added" => vec![
            ("directory", maybe(directory())),
            ("source", seldom(one_of(&["add_dir", "config"]))),
        ],
        "file_changed" => vec![
            ("file_path", maybe(path())),
            ("change", maybe(one_of(&["change", "add", "unlink"]))),
        ],
        "worktree_create" => vec![(
            "worktree",
            maybe(object_value(vec![(
                "name",
                maybe(one_of(&["feature", "fé ✓"])),
            )])),
        )],
        "worktree_remove" => vec![(
            "worktree",
            maybe(object_value(vec![("path", maybe(path()))])),
        )],
        "elicitation" | "elicitation_result" => vec![("elicitation", maybe(elicitation()))],
        other => {
            panic!("no fields are generated for the event kind `{other}`: add them to own_fields")
        }
    }
}

/// Every event kind latch knows, as the event JSON names it.
fn kinds() -> Vec<String> {
    latch::event::EventKind::ALL
        .iter()
        .map(|k| {
            serde_json::to_value(k)
                .expect("a kind is JSON")
                .as_str()
                .expect("a kind is a string")
                .to_owned()
        })
        .collect()
}

/// An event of `kind`: its own fields and those every event may have
/// (see [`tool_call`] for `hot`).
fn event_of(kind: &str, hot: &[Value]) -> BoxedStrategy<Value> {
    let own = object(own_fields(kind, hot));
    let kind = kind.to_owned();
    (common_fields(), own)
        .prop_map(move |(mut fields, own)| {
            fields.extend(own);
            fields.insert("event".to_owned(), json!(kind));
            Value::Object(fields)
        })
        .boxed()
}

/// An event both paths must refuse: a tool event without its tool or
/// with an empty name, an unknown kind or field, a value of the wrong
/// type, a NUL in the session id.
fn invalid_event() -> BoxedStrategy<Value> {
    let session = prop::option::of(prop::sample::select(SESSIONS));
    let invalid = prop::sample::select(vec![
        json!({"event": "tool_before"}),
        json!({"event": "permission_denied", "tool": {"input": {}}}),
        json!({"event": "tool_after", "tool": {"name": "", "output": "x"}}),
        json!({"event": "tool_during", "tool": {"name": "Bash"}}),
        json!({"event": "stop", "sesion_id": "s1"}),
        json!({"event": "stop", "pending_questions": "yes"}),
        json!({"event": "user_prompt", "prompt": 5}),
        json!({"event": "tool_batch", "tool_calls": [{"name": "Read"}, {"input": {}}]}),
        json!({"event": "tool_before", "tool": {"name": "Bash", "inptu": {"command": "ls"}}}),
        json!({"event": "compact_before", "compaction": {"round": -1}}),
        json!({"event": "stop", "session_id": "s1\u{0}x"}),
        json!({"prompt": "no event"}),
    ]);
    (invalid, session)
        .prop_map(|(mut event, session)| {
            if let Some(s) = session
                && event.get("session_id").is_none()
            {
                event["session_id"] = json!(s);
            }
            event
        })
        .boxed()
}

/// One more event, mostly of the kinds the examples' hooks answer: tool
/// calls, prompts and stops; now and then an invalid one (see
/// [`tool_call`] for `hot`).
fn extra_event(hot: &[Value]) -> BoxedStrategy<Value> {
    let event_of = |kind| event_of(kind, hot);
    Union::new_weighted(vec![
        (6, event_of("tool_before")),
        (2, event_of("tool_after")),
        (1, event_of("tool_failure")),
        (1, event_of("permission_request")),
        (3, event_of("user_prompt")),
        (3, event_of("stop")),
        (1, event_of("session_start")),
        (1, event_of("prompt_expansion")),
        (1, event_of("file_changed")),
        (1, invalid_event()),
    ])
    .boxed()
}

/// A case: an event of every kind latch knows and an invalid event, and
/// 10 to 39 more events, in a random order (see [`tool_call`] for
/// `hot`). Shrinking a failing case removes events (any of them) and
/// simplifies the rest, and keeps their order.
fn case_events(hot: &[Value]) -> impl Strategy<Value = Vec<Value>> {
    let place = || any::<u32>().no_shrink();
    let mut tour: Vec<BoxedStrategy<Value>> = kinds().iter().map(|k| event_of(k, hot)).collect();
    tour.push(invalid_event());
    let tour: Vec<_> = tour.into_iter().map(|e| (place(), Removable(e))).collect();
    let extra = prop::collection::vec((place(), extra_event(hot).prop_map(Some)), 10..40);
    // The extra events first: shrinking tries them first.
    (extra, tour).prop_map(|(extra, tour)| {
        let mut placed: Vec<(u32, Value)> = extra
            .into_iter()
            .chain(tour)
            .filter_map(|(place, event)| Some((place, event?)))
            .collect();
        placed.sort_by_key(|(place, _)| *place);
        placed.into_iter().map(|(_, event)| event).collect()
    })
}

/// Always `Some` of the inner strategy's value, which shrinking first
/// tries to remove (`None`), then simplifies: an event of a case's tour,
/// present in every generated case but not needed in a shrunk one.
#[derive(Debug)]
struct Removable<S>(S);

impl<S: Strategy> Strategy for Removable<S> {
    type Tree = RemovableTree<S::Tree>;
    type Value = Option<S::Value>;

    fn new_tree(&self, runner: &mut TestRunner) -> proptest::strategy::NewTree<Self> {
        Ok(RemovableTree {
            inner: self.0.new_tree(runner)?,
            removed: false,
            removal_tried: false,
        })
    }
}

/// The value tree of [`Removable`].
struct RemovableTree<T> {
    inner: T,
    removed: bool,
    removal_tried: bool,
}

impl<T: ValueTree> ValueTree for RemovableTree<T> {
    type Value = Option<T::Value>;

    fn current(&self) -> Option<T::Value> {
        (!self.removed).then(|| self.inner.current())
    }

    fn simplify(&mut self) -> bool {
        if self.removed {
            return false;
        }
        if !self.removal_tried {
            self.removal_tried = true;
            self.removed = true;
            return true;
        }
        self.inner.simplify()
    }

    fn complicate(&mut self) -> bool {
        if self.removed {
            // The case passes without it: it stays.
            self.removed = false;
            return true;
        }
        self.inner.complicate()
    }
}

/// `event` with its placeholders replaced by `setup`'s directories and
/// `empty`.
fn render(event: &Value, setup: &Setup, empty: &Path) -> Value {
    match event {
        Value::String(s) => Value::String(
            s.replace("<project>", &setup.project.display().to_string())
                .replace("<sub>", setup.sub)
                .replace("<other>", &setup.other.display().to_string())
                .replace("<empty>", &empty.display().to_string()),
        ),
        Value::Array(items) => items.iter().map(|v| render(v, setup, empty)).collect(),
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(k, v)| (k.clone(), render(v, setup, empty)))
                .collect(),
        ),
        other => other.clone(),
    }
}

// ---- the two paths ----

/// What one path answered for one event.
#[derive(Debug, Clone, PartialEq)]
enum Answer {
    /// The outcome, without its timings.
    Outcome(Value),
    /// The event was refused as invalid, for this reason (the words
    /// naming where the event came from left out).
    Refused(String),
    /// Anything else, as it came.
    Other(String),
}

impl std::fmt::Display for Answer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Answer::Outcome(v) => write!(f, "{v}"),
            Answer::Refused(why) => write!(f, "refused: {why}"),
            Answer::Other(what) => write!(f, "{what}"),
        }
    }
}

impl Answer {
    /// The answer in a server's response.
    fn served(response: &Value) -> Answer {
        if let Some(outcome) = response.get("result") {
            return Answer::Outcome(untimed(outcome.clone()));
        }
        match (
            response["error"]["code"].as_i64(),
            response["error"]["message"].as_str(),
        ) {
            (Some(-32602), Some(message)) => Answer::Refused(refusal(message)),
            _ => Answer::Other(response.to_string()),
        }
    }

    /// The answer `latch fire` printed and the code it exited with.
    fn fired(out: &std::process::Output) -> Answer {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let other = || {
            Answer::Other(format!(
                "exit {:?}, stdout {}, stderr {stderr}",
                out.status.code(),
                String::from_utf8_lossy(&out.stdout)
            ))
        };
        match out.status.code() {
            Some(0) => serde_json::from_slice(&out.stdout)
                .map(|v| Answer::Outcome(untimed(v)))
                .unwrap_or_else(|_| other()),
            Some(3) => stderr
                .lines()
                .rev()
                .find_map(|l| l.strip_prefix("latch: error: "))
                .map(|why| Answer::Refused(refusal(why)))
                .unwrap_or_else(other),
            _ => other(),
        }
    }
}

/// A refusal's reason, without the words naming where the event came
/// from (`params …` through the server, `stdin …` from `latch fire`).
fn refusal(message: &str) -> String {
    message
        .strip_prefix("params ")
        .or_else(|| message.strip_prefix("stdin "))
        .unwrap_or(message)
        .to_owned()
}

/// Where one path keeps what it writes: its state directory and the
/// files the examples' hooks write.
struct Side {
    state: PathBuf,
    /// The poolside example's Stop hook continues once, then leaves this
    /// marker.
    marker: PathBuf,
    /// Where the poolside example's prompt hook writes its payload.
    payload_log: PathBuf,
}

impl Side {
    /// A side whose files are in `dir`; with `marker_kept`, the poolside
    /// example's Stop marker can be made (so it continues only once in
    /// all), else it cannot (so it always asks to continue, and only the
    /// session's own counter stops it: nothing is shared between
    /// sessions).
    fn new(dir: &Path, marker_kept: bool) -> Side {
        std::fs::create_dir_all(dir.join("state")).expect("state dir");
        Side {
            state: dir.join("state"),
            marker: if marker_kept {
                dir.join("marker")
            } else {
                dir.join("no-such-dir/marker")
            },
            payload_log: dir.join("payload.json"),
        }
    }

    /// The variables both paths set for the hooks.
    fn env(&self) -> Vec<(&'static str, String)> {
        let text = |p: &Path| p.to_str().expect("utf-8 path").to_owned();
        vec![
            ("DRIVE_ONCE_MARKER", text(&self.marker)),
            ("LOG_PAYLOAD_FILE", text(&self.payload_log)),
        ]
    }
}

/// The request id of the event at `index` (`initialize` is 1).
fn request_id(index: usize) -> i64 {
    i64::try_from(index).expect("a small index") + 2
}

/// The index of the event whose request id is `id`, if it can be one.
fn event_index(id: i64) -> Option<usize> {
    usize::try_from(id.checked_sub(2)?).ok()
}

/// A server for `setup` with `side`'s state, run in the project as
/// `latch fire` is, and initialized.
fn start_server(setup: &Setup, side: &Side) -> Server {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("latch"));
    cmd.current_dir(&setup.project);
    for var in UNSET {
        cmd.env_remove(var);
    }
    let env = side.env();
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let mut s = Server::start_in(cmd, &env);
    let mut config = json!({"dialects": [setup.dialect], "project": setup.project,
        "home": "/nonexistent", "claude_managed_dir": "/nonexistent", "state_dir": side.state});
    if let Some(p) = &setup.plugin {
        config["plugin_dirs"] = json!([p]);
    }
    let r = s.request(1, "initialize", config);
    assert!(r["result"].is_object(), "{}: {r}", setup.name);
    s
}

/// `latch fire` of `event` for `setup`, with `side`'s state and files.
fn fire_cli(setup: &Setup, side: &Side, event: &Value) -> Answer {
    let mut cmd = crate::util::latch();
    cmd.args(["fire", "--dialect", setup.dialect, "--project"])
        .arg(&setup.project)
        .args([
            "--home",
            "/nonexistent",
            "--claude-managed-dir",
            "/nonexistent",
        ])
        .arg("--state-dir")
        .arg(&side.state)
        .current_dir(&setup.project);
    if let Some(p) = &setup.plugin {
        cmd.arg("--plugin-dir").arg(p);
    }
    for var in UNSET {
        cmd.env_remove(var);
    }
    for (k, v) in side.env() {
        cmd.env(k, v);
    }
    let out = cmd
        .write_stdin(serde_json::to_vec(event).expect("json"))
        .output()
        .expect("latch fire runs");
    Answer::fired(&out)
}

/// `latch fire` of each session's events in turn, the sessions (and the
/// events without one, in turn too) at once; the answers in the events'
/// order.
fn fire_by_session(setup: &Setup, side: &Side, events: &[Value]) -> Vec<Answer> {
    let mut sessions: BTreeMap<Option<&str>, Vec<usize>> = BTreeMap::new();
    for (i, e) in events.iter().enumerate() {
        sessions
            .entry(e["session_id"].as_str())
            .or_default()
            .push(i);
    }
    let mut answers: Vec<Option<Answer>> = vec![None; events.len()];
    std::thread::scope(|scope| {
        let runs: Vec<_> = sessions
            .into_values()
            .map(|indices| {
                scope.spawn(move || {
                    indices
                        .into_iter()
                        .map(|i| (i, fire_cli(setup, side, &events[i])))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for run in runs {
            for (i, answer) in run.join().expect("a session's fires") {
                answers[i] = Some(answer);
            }
        }
    });
    answers
        .into_iter()
        .map(|a| a.expect("every event fired"))
        .collect()
}

/// Fires `event` through the server as request `id` and waits for its
/// answer.
fn serve_one(s: &mut Server, id: i64, event: &Value) -> Answer {
    s.fire(id, event.clone());
    loop {
        let m = s.recv();
        if m["id"] == id {
            return Answer::served(&m);
        }
        assert!(m["id"].is_null(), "an answer to {id} came as {m}");
    }
}

/// Fires each event in turn through one server and with `latch fire`
/// (the two side by side, each with its own state) and fails at the
/// first event whose answers differ; else answers the served answers.
fn check_in_turn(setup: &Setup, events: &[Value]) -> Result<Vec<Answer>, TestCaseError> {
    let (_dir, served_side, fired_side) = sides(true);
    let mut s = start_server(setup, &served_side);
    let mut answers = Vec::new();
    for (i, event) in events.iter().enumerate() {
        let (served, fired) = std::thread::scope(|scope| {
            let fired = scope.spawn(|| fire_cli(setup, &fired_side, event));
            let served = serve_one(&mut s, request_id(i), event);
            (served, fired.join().expect("latch fire"))
        });
        if served != fired {
            return Err(difference(setup, events, i, &served, &fired));
        }
        answers.push(served);
    }
    assert_eq!(s.close(), 0, "{}: the server's exit code", setup.name);
    Ok(answers)
}

/// Fires every event through one server at once (every request is
/// written before any answer is read; the server keeps each session's
/// order) and returns the answers, matched by id, in the events' order.
fn serve_at_once(setup: &Setup, side: &Side, events: &[Value]) -> Vec<Answer> {
    let mut s = start_server(setup, side);
    for (i, e) in events.iter().enumerate() {
        s.fire(request_id(i), e.clone());
    }
    let mut answers: Vec<Option<Answer>> = vec![None; events.len()];
    while answers.iter().any(Option::is_none) {
        let m = s.recv();
        let Some(id) = m["id"].as_i64() else {
            continue; // a notification
        };
        let slot = event_index(id)
            .and_then(|i| answers.get_mut(i))
            .unwrap_or_else(|| panic!("{}: an answer to no request: {m}", setup.name));
        assert!(slot.is_none(), "{}: a second answer: {m}", setup.name);
        *slot = Some(Answer::served(&m));
    }
    assert_eq!(s.close(), 0, "{}: the server's exit code", setup.name);
    answers
        .into_iter()
        .map(|a| a.expect("every event answered"))
        .collect()
}

/// Fires every event at once through one server, and each session's
/// events in turn with `latch fire`, the sessions at once (the two side
/// by side, each with its own state, where nothing the examples' hooks
/// keep is shared between sessions); fails at the first event whose
/// answers differ, else answers the served answers.
fn check_at_once(setup: &Setup, events: &[Value]) -> Result<Vec<Answer>, TestCaseError> {
    let (_dir, served_side, fired_side) = sides(false);
    let (served, fired) = std::thread::scope(|scope| {
        let fired = scope.spawn(|| fire_by_session(setup, &fired_side, events));
        let served = serve_at_once(setup, &served_side, events);
        (served, fired.join().expect("the fires"))
    });
    compare(setup, events, &served, &fired)?;
    Ok(served)
}

/// Fails on the first event whose two answers differ (see
/// [`difference`]).
fn compare(
    setup: &Setup,
    events: &[Value],
    served: &[Answer],
    fired: &[Answer],
) -> Result<(), TestCaseError> {
    match served.iter().zip(fired).position(|(s, f)| s != f) {
        Some(i) => Err(difference(setup, events, i, &served[i], &fired[i])),
        None => Ok(()),
    }
}

/// The failure of event `i`, whose two answers differ: the event, both
/// answers and the events of its session before it.
fn difference(
    setup: &Setup,
    events: &[Value],
    i: usize,
    served: &Answer,
    fired: &Answer,
) -> TestCaseError {
    let event = &events[i];
    let session = event["session_id"].as_str();
    let before: Vec<String> = events[..i]
        .iter()
        .filter(|e| e["session_id"].as_str() == session)
        .map(|e| format!("  {e}"))
        .collect();
    TestCaseError::fail(format!(
        "{}: event {i} of {} has two outcomes\n\
         event:            {event}\n\
         through serve:    {served}\n\
         with latch fire:  {fired}\n\
         the events of its session before it:\n{}",
        setup.name,
        events.len(),
        before.join("\n")
    ))
}

/// How many events a setup's cases had, how many of their outcomes
/// show a hook that ran, how many were denies, and how many events were
/// refused.
#[derive(Default)]
struct Tally {
    events: Cell<usize>,
    with_runs: Cell<usize>,
    denied: Cell<usize>,
    refused: Cell<usize>,
}

impl Tally {
    /// Counts `answers`.
    fn add(&self, answers: &[Answer]) {
        let bump = |c: &Cell<usize>| c.set(c.get() + 1);
        for a in answers {
            bump(&self.events);
            match a {
                Answer::Outcome(o) => {
                    if o["runs"].as_array().is_some_and(|r| !r.is_empty()) {
                        bump(&self.with_runs);
                    }
                    if o["decision"] == "deny" {
                        bump(&self.denied);
                    }
                }
                Answer::Refused(_) => bump(&self.refused),
                Answer::Other(_) => {}
            }
        }
    }

    /// Checks that the cases of `setup` did what they are for: its hooks
    /// ran (on most events, with a hook on every event), one of them
    /// denied, and invalid events were compared too.
    fn check(&self, setup: &Setup) {
        let (events, with_runs) = (self.events.get(), self.with_runs.get());
        let (denied, refused) = (self.denied.get(), self.refused.get());
        eprintln!(
            "{}: {events} events, {with_runs} ran a hook, {denied} denied, {refused} refused",
            setup.name
        );
        assert!(with_runs > 0, "{}: no hook ran", setup.name);
        assert!(denied > 0, "{}: no hook denied", setup.name);
        assert!(refused > 0, "{}: no invalid event", setup.name);
        if setup.project.ends_with("every-event") {
            assert!(
                with_runs * 2 > events,
                "{}: only {with_runs} of {events} outcomes show a hook",
                setup.name
            );
        }
    }
}

/// The seed of this run's cases.
fn seed() -> u64 {
    std::env::var("LATCH_GEN_SEED")
        .ok()
        .map(|s| s.parse().expect("LATCH_GEN_SEED is a number"))
        .unwrap_or(SEED)
}

/// Runs `check` on `cases` generated cases for each setup (each setup
/// its own seeded cases, rendered for it; each `stream` of cases its
/// own, so two tests do not run the same events); `check` answers the
/// served answers, which [`Tally::check`] checks. A failure names the
/// setup and the seed, and shows the failing case, shrunk for up to
/// 30 s.
fn for_generated_cases(
    stream: u64,
    cases: u32,
    check: impl Fn(&Setup, &[Value]) -> Result<Vec<Answer>, TestCaseError>,
) {
    let dir = tempfile::tempdir().expect("tempdir");
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).expect("empty dir");
    let seed = seed();
    for (n, setup) in setups(dir.path()).iter().enumerate() {
        let config = Config {
            cases,
            failure_persistence: None,
            max_shrink_iters: 1024,
            max_shrink_time: 30_000,
            ..Config::default()
        };
        let setup_seed = seed
            .wrapping_add(stream << 8)
            .wrapping_add(u64::try_from(n).expect("few setups"));
        let rng = TestRng::from_seed(
            RngAlgorithm::ChaCha,
            &[setup_seed.to_le_bytes(); 4].concat(),
        );
        let mut runner = TestRunner::new_with_rng(config, rng);
        let tally = Tally::default();
        let result = runner.run(&case_events(&setup.hot), |case| {
            let events: Vec<Value> = case.iter().map(|e| render(e, setup, &empty)).collect();
            tally.add(&check(setup, &events)?);
            Ok(())
        });
        match result {
            Ok(()) => {}
            Err(TestError::Fail(why, case)) => {
                let lines: Vec<String> = case
                    .iter()
                    .map(|e| format!("  {}", render(e, setup, &empty)))
                    .collect();
                panic!(
                    "{why}\nthe case's events (shrunk), in order:\n{}\n(seed {seed}: LATCH_GEN_SEED={seed} gives these cases again)",
                    lines.join("\n")
                );
            }
            Err(e) => panic!("{}: {e} (seed {seed})", setup.name),
        }
        tally.check(setup);
    }
}

/// A fresh pair of sides in a temporary directory: the server's and
/// `latch fire`'s (see [`Side::new`] for `marker_kept`).
fn sides(marker_kept: bool) -> (tempfile::TempDir, Side, Side) {
    let dir = tempfile::tempdir().expect("tempdir");
    let served = Side::new(&dir.path().join("serve"), marker_kept);
    let fired = Side::new(&dir.path().join("fire"), marker_kept);
    (dir, served, fired)
}

/// One event at a time, the sessions interleaved: each answer through
/// the server is `latch fire`'s for the same history. (The two paths run
/// side by side, each with its own state.)
#[test]
fn generated_events_give_the_same_outcome_through_serve_and_fire() {
    for_generated_cases(1, 5, check_in_turn);
}

/// Every event in flight at once through the server, which keeps each
/// session's order and runs the sessions at once: each answer is `latch
/// fire`'s for the same session's events in turn (nothing the examples'
/// hooks keep is shared between sessions here).
#[test]
fn generated_sessions_in_flight_at_once_give_latch_fire_s_outcomes() {
    for_generated_cases(2, 5, check_at_once);
}
