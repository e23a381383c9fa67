//! Round 13 of the recordings (`recordings/claude/r13_*`, `r13b_*`;
//! FINDINGS.md §41 and §42): hook answers that fail Claude Code's schema,
//! a block without a reason, a prompt's `continue: false` and its first
//! hook to finish, and how a settings file is read, cleaned and checked.
//! Each expectation is the recorded one.

use serde_json::{Value, json};

use crate::claude_util::{Claude, bash_after, bash_before, settings};

/// How Claude Code's message for an answer that fails its schema starts.
const INVALID: &str = "Hook JSON output validation failed \u{2014} ";

/// A command that prints `stdout`, writes `stderr` and exits with `code`.
fn answering(stdout: &str, stderr: &str, code: i32) -> String {
    format!("printf '%s\\n' '{stdout}'; printf '%s' '{stderr}' >&2; exit {code}")
}

fn prompt() -> Value {
    json!({"event": "user_prompt", "session_id": "s1", "prompt": "the prompt"})
}

fn prompt_blocked(text: &str) -> String {
    format!("UserPromptSubmit operation blocked by hook:\n{text}\n\nOriginal prompt: the prompt")
}

/// The one run's record of a fire.
fn only_run(outcome: &Value) -> &Value {
    let runs = outcome["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 1, "{outcome}");
    &runs[0]
}

/// An answer that fails the schema is a non-blocking error whatever the
/// exit code: the user is warned, nothing of it applies. The message
/// names the first wrong field (`first`, the recorded first line), then
/// shows the answer and the schema.
fn assert_invalid(outcome: &Value, first: &str) -> String {
    let run = only_run(outcome);
    assert_eq!(run["status"], "failed", "{outcome}");
    let message = run["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with(&format!(
            "{INVALID}{first}\n\nThe hook's output was: {{\n  \""
        )),
        "{outcome}"
    );
    assert!(
        message.contains("\n}\n\nExpected schema:\n{\n  \"continue\": \"boolean (optional)\",\n"),
        "{outcome}"
    );
    assert!(
        outcome["warnings"].as_array().is_some_and(|w| w
            .iter()
            .any(|w| w.as_str().is_some_and(|w| w.contains(message)))),
        "{outcome}"
    );
    message.to_owned()
}

/// r13_null_ups_sysmsg, r13_null_ups_reason, r13b_ups_exit2_reason_null,
/// r13b_ups_terminal_seq_num, r13b_ups_exit2_approve,
/// r13b_ups_exit2_bad_json, r13b_ups_terminal_seq_str.
#[test]
fn a_prompt_answer_that_fails_the_schema_blocks_nothing_but_its_exit_2_does() {
    for (stdout, code, why) in [
        (
            r#"{"decision":"block","reason":"R","systemMessage":null}"#,
            0,
            "systemMessage: expected string, received null",
        ),
        (
            r#"{"decision":"block","reason":null}"#,
            0,
            "reason: expected string, received null",
        ),
        (
            r#"{"terminalSequence":5,"decision":"block","reason":"R"}"#,
            0,
            "terminalSequence: expected string, received number",
        ),
    ] {
        let c = Claude::new();
        let cmd = answering(stdout, "BLOCKED", code);
        let c = c.project_settings(&settings("UserPromptSubmit", None, &[&cmd]));
        let f = c.fire(&prompt());
        assert_eq!(f.outcome["decision"], "proceed", "{stdout}: {}", f.outcome);
        assert!(f.outcome.get("reasons").is_none(), "{}", f.outcome);
        let message = assert_invalid(&f.outcome, why);
        // The answer as `JSON.stringify(answer, null, 2)` writes it.
        if stdout.starts_with(r#"{"decision":"block","reason":null"#) {
            assert!(
                message.contains(
                    "The hook's output was: {\n  \"decision\": \"block\",\n  \"reason\": null\n}\n\n"
                ),
                "{message}"
            );
        }
    }
    // A valid answer keeps the exit 2's block, as does one that is not
    // JSON at all, and (2.1.332) one that fails the schema: it is ignored.
    for stdout in [
        r#"{"decision":"approve"}"#,
        "{not json",
        r#"{"reason":null}"#,
    ] {
        let c = Claude::new();
        let cmd = answering(stdout, "BLOCKED", 2);
        let c = c.project_settings(&settings("UserPromptSubmit", None, &[&cmd]));
        let f = c.fire(&prompt());
        assert_eq!(f.outcome["decision"], "deny", "{stdout}");
        assert_eq!(
            f.outcome["reasons"][0]["text"],
            prompt_blocked(&format!("[{cmd}]: BLOCKED"))
        );
    }
    let c = Claude::new();
    let cmd = answering(
        r#"{"terminalSequence":"x","decision":"block","reason":"R"}"#,
        "",
        0,
    );
    let c = c.project_settings(&settings("UserPromptSubmit", None, &[&cmd]));
    assert_eq!(
        c.fire(&prompt()).outcome["reasons"][0]["text"],
        prompt_blocked("R")
    );
}

/// r13_null_pre_sysmsg, r13_pre_deny_updated_input_str,
/// r13b_pre_exit2_updated_input_str, r13b_pre_exit2_sysmsg_num,
/// r13b_hso_pre_updated_input_array: the tool runs; r13b_pre_exit2_valid_json:
/// it does not.
#[test]
fn a_tool_answer_that_fails_the_schema_denies_nothing_but_its_exit_2_does() {
    let deny = |extra: &str| {
        format!(
            r#"{{"hookSpecificOutput":{{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"R"{extra}}}}}"#
        )
    };
    for (stdout, code, why) in [
        (
            deny("")
                .replacen('}', r#"},"systemMessage":null"#, 1)
                .replacen("}}", "}", 1),
            0,
            "systemMessage: expected string, received null",
        ),
        (
            deny(r#","updatedInput":"str""#),
            0,
            "hookSpecificOutput.updatedInput: expected record, received string",
        ),
        (
            deny(r#","updatedInput":"str""#),
            2,
            "hookSpecificOutput.updatedInput: expected record, received string",
        ),
        (
            r#"{"systemMessage":5}"#.to_owned(),
            2,
            "systemMessage: expected string, received number",
        ),
        (
            deny(r#","updatedInput":[1]"#),
            0,
            "hookSpecificOutput.updatedInput: expected record, received array",
        ),
    ] {
        let c = Claude::new();
        let cmd = answering(&stdout, "BLOCKED", code);
        let c = c.project_settings(&settings("PreToolUse", Some("Bash"), &[&cmd]));
        let f = c.fire(&bash_before("ls"));
        if code == 2 {
            // 2.1.332: the answer is ignored and the exit denies
            // (`r13b_pre_exit2_*`; 2.1.197 ran the tool).
            assert_eq!(f.outcome["decision"], "deny", "{stdout}: {}", f.outcome);
            assert_eq!(
                f.outcome["notices"][0]["text"],
                format!("PreToolUse:Bash hook error: [{cmd}]: BLOCKED")
            );
            assert!(f.outcome.get("warnings").is_none(), "{}", f.outcome);
            continue;
        }
        assert_eq!(f.outcome["decision"], "proceed", "{stdout}: {}", f.outcome);
        assert!(f.outcome.get("notices").is_none(), "{}", f.outcome);
        assert_invalid(&f.outcome, why);
    }
    let c = Claude::new();
    let cmd = answering(r#"{"systemMessage":"SM"}"#, "BLOCKED", 2);
    let c = c.project_settings(&settings("PreToolUse", Some("Bash"), &[&cmd]));
    let f = c.fire(&bash_before("ls"));
    assert_eq!(f.outcome["decision"], "deny");
    assert_eq!(
        f.outcome["notices"][0]["text"],
        format!("PreToolUse:Bash hook error: [{cmd}]: BLOCKED")
    );
}

/// After an exit other than 0 (and 2, which blocks), the message of an
/// answer that fails the schema ends with the exit's code and the hook's
/// stderr, trimmed, unless it is blank (read from Claude Code 2.1.332's
/// code, its `Tan`).
#[test]
fn a_failed_exit_adds_its_stderr_to_the_message() {
    for (stderr, code, tail) in [
        ("  WHY\n", 1, Some("\n\nHook exited 1 with stderr:\nWHY")),
        (" \n", 3, None),
        ("WHY", 0, None),
    ] {
        let c = Claude::new();
        let cmd = answering(r#"{"continue":"no"}"#, stderr, code);
        let c = c.project_settings(&settings("PreToolUse", Some("Bash"), &[&cmd]));
        let f = c.fire(&bash_before("ls"));
        assert_eq!(f.outcome["decision"], "proceed", "{}", f.outcome);
        let message = assert_invalid(&f.outcome, "continue: expected boolean, received string");
        match tail {
            Some(tail) => assert!(message.ends_with(tail), "{message}"),
            None => assert!(message.ends_with("\n  }\n}"), "{message}"),
        }
    }
}

fn post_context(c: &Claude) -> Value {
    c.fire(&bash_after("ls", json!("hi"))).outcome
}

/// r13_null_post_ctx, r13b_post_exit2_continue_str,
/// r13b_post_exit2_valid_json, r13b_hso_post_updated_output_null.
#[test]
fn after_a_tool_only_valid_answers_reach_the_model() {
    let c = Claude::new();
    let null = answering(
        r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":null}}"#,
        "",
        0,
    );
    let ok = answering(
        r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"OK"}}"#,
        "",
        0,
    );
    let c = c.project_settings(&settings("PostToolUse", Some("Bash"), &[&null, &ok]));
    let out = post_context(&c);
    let texts: Vec<&Value> = out["context"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["text"])
        .collect();
    assert_eq!(
        texts,
        ["<system-reminder>\nPostToolUse:Bash hook additional context: OK\n</system-reminder>"]
    );

    // An answer that fails the schema is ignored and the exit 2 blocks
    // (2.1.332: `r13b_post_exit2_continue_str`), as beside a valid one.
    for answer in [r#"{"continue":"no"}"#, r#"{"systemMessage":"SM"}"#] {
        let c = Claude::new();
        let cmd = answering(answer, "POST_ERR", 2);
        let c = c.project_settings(&settings("PostToolUse", Some("Bash"), &[&cmd]));
        let out = post_context(&c);
        assert_eq!(
            out["context"][0]["text"],
            format!(
                "<system-reminder>\nPostToolUse:Bash hook blocking error from command: \"{cmd}\": [{cmd}]: POST_ERR\n</system-reminder>"
            ),
            "{answer}"
        );
        assert!(out.get("halt").is_none(), "{out}");
    }

    // `z.unknown()` takes null: the context arrives, the output stays.
    let c = Claude::new();
    let cmd = answering(
        r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"P_CTX","updatedToolOutput":null}}"#,
        "",
        0,
    );
    let c = c.project_settings(&settings("PostToolUse", Some("Bash"), &[&cmd]));
    let out = post_context(&c);
    assert!(out.get("tool_output").is_none(), "{out}");
    assert!(
        out["context"][0]["text"]
            .as_str()
            .unwrap()
            .contains("P_CTX"),
        "{out}"
    );
}

/// r13b_hso_ups_session_title_num, r13b_hso_ups_session_title_str,
/// r13b_hso_ss_watch_paths_str, r13b_hso_ss_watch_paths_array: each event's
/// own fields are typed too, and a wrong one drops the context beside it.
#[test]
fn event_specific_fields_have_their_types() {
    for (event, fields, ok) in [
        ("UserPromptSubmit", r#""sessionTitle":5"#, false),
        ("UserPromptSubmit", r#""sessionTitle":"T""#, true),
        ("SessionStart", r#""watchPaths":"x""#, false),
        ("SessionStart", r#""watchPaths":[]"#, true),
    ] {
        let c = Claude::new();
        let cmd = answering(
            &format!(
                r#"{{"hookSpecificOutput":{{"hookEventName":"{event}","additionalContext":"CTX",{fields}}}}}"#
            ),
            "",
            0,
        );
        let c = c.project_settings(&settings(event, None, &[&cmd]));
        let fired = if event == "SessionStart" {
            json!({"event": "session_start", "session_id": "s1", "source": "startup"})
        } else {
            prompt()
        };
        let out = c.fire(&fired).outcome;
        let arrived = out["context"].to_string().contains("CTX");
        assert_eq!(arrived, ok, "{event} {fields}: {out}");
    }
}

/// r13_block_noreason_ups, r13_block_emptyreason_ups, r13_block_noreason_stop,
/// r13_block_emptyreason_stop, r13_block_noreason_post,
/// r13_block_emptyreason_post: `Blocked by hook`.
#[test]
fn a_block_without_a_reason_says_blocked_by_hook() {
    for answer in [
        r#"{"decision":"block"}"#,
        r#"{"decision":"block","reason":""}"#,
    ] {
        let c = Claude::new();
        let cmd = answering(answer, "", 0);
        let c = c.project_settings(&json!({"hooks": {
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": cmd}]}],
            "Stop": [{"hooks": [{"type": "command", "command": cmd}]}],
            "PostToolUse": [{"hooks": [{"type": "command", "command": cmd}]}]}}));
        assert_eq!(
            c.fire(&prompt()).outcome["reasons"][0]["text"],
            prompt_blocked("Blocked by hook")
        );
        let stop = c
            .fire(&json!({"event": "stop", "session_id": "s1"}))
            .outcome;
        assert_eq!(
            stop["continuation"]["prompt"],
            crate::claude_util::stop_block_feedback("Stop", &cmd, "Blocked by hook")
        );
        assert_eq!(
            post_context(&c)["context"][0]["text"],
            format!(
                "<system-reminder>\nPostToolUse:Bash hook blocking error from command: \"{cmd}\": Blocked by hook\n</system-reminder>"
            )
        );
    }
}

/// r13b_stop_exit2_reason_null, r13b_stop_exit2_valid_json: the exit 2
/// keeps the agent going beside a valid answer and (2.1.332) beside one
/// that fails the schema, which is ignored (2.1.197 stopped the agent).
#[test]
fn a_stop_answer_that_fails_the_schema_is_ignored_and_its_exit_2_keeps_the_agent_going() {
    for answer in [r#"{"reason":null}"#, r#"{"systemMessage":"SM"}"#] {
        let c = Claude::new();
        let cmd = answering(answer, "KEEP_GOING", 2);
        let c = c.project_settings(&settings("Stop", None, &[&cmd]));
        let out = c
            .fire(&json!({"event": "stop", "session_id": "s1"}))
            .outcome;
        assert_eq!(
            out["continuation"]["prompt"],
            crate::claude_util::stop_feedback(&format!("[{cmd}]: KEEP_GOING")),
            "{answer}"
        );
    }
}

/// r13_ups_continue_false_stopreason, r13_ups_continue_false_alone,
/// r13_ups_continue_false_block, r13_ups_continue_false_sibling_exit2,
/// r13_ups_continue_false_then_prompt: the prompt is kept, not sent, and
/// the user reads `Operation stopped by hook`; r13_ups_two_exit2,
/// r13_ups_block_then_prompt: of two blocks only the first to finish counts.
#[test]
fn a_prompt_stopped_or_blocked_by_its_first_hook_to_finish() {
    for (answer, message) in [
        (
            r#"{"continue":false,"stopReason":"S"}"#,
            "Operation stopped by hook: S",
        ),
        (r#"{"continue":false}"#, "Operation stopped by hook"),
        (
            r#"{"decision":"block","reason":"R","continue":false,"stopReason":"S"}"#,
            "Operation stopped by hook: S",
        ),
    ] {
        let c = Claude::new();
        let stop = answering(answer, "", 0);
        let sibling = "sleep 0.3; printf SIBLING >&2; exit 2".to_owned();
        let c = c.project_settings(&settings("UserPromptSubmit", None, &[&stop, &sibling]));
        let out = c.fire(&prompt()).outcome;
        assert_eq!(out["decision"], "proceed", "{answer}: {out}");
        assert!(out.get("reasons").is_none(), "{out}");
        assert_eq!(out["halt"]["message"], message, "{out}");
        // What the conversation keeps: the same words in a reminder that
        // says they are a hook's (2.1.332).
        assert_eq!(
            out["halt"]["kept"],
            format!(
                "<system-reminder>\nThe text below is the output of a hook, not a message from the user.\n{message}\n</system-reminder>"
            ),
            "{out}"
        );
        let late = out["runs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["hook"] == sibling)
            .unwrap();
        assert!(
            late["message"].as_str().unwrap().starts_with("not applied"),
            "{out}"
        );
    }
    let c = Claude::new();
    let fast = "printf FAST >&2; exit 2".to_owned();
    // The slower hook also blocks, and would add context: none of it counts.
    let slow = r#"sleep 0.3; echo '{"decision":"block","reason":"SLOW","hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"LATE"}}'"#.to_owned();
    let c = c.project_settings(&settings("UserPromptSubmit", None, &[&slow, &fast]));
    let out = c.fire(&prompt()).outcome;
    assert_eq!(out["decision"], "deny");
    let reasons: Vec<&Value> = out["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["text"])
        .collect();
    assert_eq!(
        reasons,
        [&Value::from(prompt_blocked(&format!("[{fast}]: FAST")))]
    );
    assert!(!out.to_string().contains("LATE"), "{out}");
    let late = out["runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| {
            r["hook"]
                .as_str()
                .is_some_and(|h| h.starts_with("sleep 0.3"))
        })
        .unwrap();
    assert!(
        late["message"].as_str().unwrap().starts_with("not applied"),
        "{out}"
    );
}

/// An exit 2 beside a valid `continue: false` (FINDINGS §42, a probe of
/// the CLI): the stop wins, as over a block in the answer.
#[test]
fn a_prompt_s_stop_wins_over_its_exit_2() {
    let c = Claude::new();
    let cmd = answering(r#"{"continue":false,"stopReason":"S"}"#, "ERR", 2);
    let c = c.project_settings(&settings("UserPromptSubmit", None, &[&cmd]));
    let out = c.fire(&prompt()).outcome;
    assert_eq!(out["decision"], "proceed", "{out}");
    assert!(out.get("reasons").is_none(), "{out}");
    assert_eq!(
        out["halt"]["message"], "Operation stopped by hook: S",
        "{out}"
    );
}

/// `updatedToolOutput: null` replaces nothing, whatever the tool
/// (r13b_hso_post_updated_output_null, for Bash).
#[test]
fn a_null_replacement_replaces_nothing() {
    let c = Claude::new();
    let cmd = answering(
        r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":null}}"#,
        "",
        0,
    );
    let c = c.project_settings(&settings("PostToolUse", None, &[&cmd]));
    let event = json!({"event": "tool_after", "session_id": "s1",
        "tool": {"name": "Read", "input": {"file_path": "/x"}}});
    let out = c.fire(&event).outcome;
    assert!(out.get("tool_output").is_none(), "{out}");
}

/// The user-settings hook of the settings cases: what reached it.
const USER_HOOK: &str = r#"echo "USER_HOOK N=[${N-unset}] B=[${B-unset}] Z=[${Z-unset}] O=[${O-unset}] A=[${A-unset}]""#;

/// Fires a prompt over a project settings file written as `bytes`, beside
/// a user settings file whose hook prints the variables: the model's
/// context, as one string.
fn settings_case(bytes: &[u8]) -> (String, String) {
    let c = Claude::new().user_settings(&settings("UserPromptSubmit", None, &[USER_HOOK]));
    let path = c.project().join(".claude/settings.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, bytes).unwrap();
    let f = c.fire(&prompt());
    (f.outcome["context"].to_string(), f.stderr)
}

const PROJECT_HOOK: &str = r#"[{"hooks":[{"type":"command","command":"echo PROJECT_HOOK_RAN"}]}]"#;

/// r13_settings_control, r13_settings_event_object, r13_settings_hooks_array,
/// r13_settings_hooks_null, r13_settings_event_null,
/// r13_settings_unknown_event_num, r13_settings_unknown_event_bogus: the
/// broken part of `hooks` is dropped, the rest of the file loads; but a
/// guard event's list that is not an array drops the file (2.1.332).
#[test]
fn a_settings_file_loses_only_its_broken_hooks_parts() {
    for (file, project_ran, n) in [
        (
            format!(r#"{{"env":{{"N":"x"}},"hooks":{{"UserPromptSubmit":{PROJECT_HOOK}}}}}"#),
            true,
            "x",
        ),
        // 2.1.332: a guard event's list that is not an array drops the
        // whole file (2.1.197 dropped the event alone).
        (
            format!(r#"{{"hooks":{{"PreToolUse":{{}},"UserPromptSubmit":{PROJECT_HOOK}}}}}"#),
            false,
            "unset",
        ),
        (r#"{"hooks":[],"env":{"N":"x"}}"#.to_owned(), false, "x"),
        (r#"{"hooks":null,"env":{"N":"x"}}"#.to_owned(), false, "x"),
        (
            r#"{"hooks":{"PreToolUse":null},"env":{"N":"x"}}"#.to_owned(),
            false,
            "x",
        ),
        (
            format!(
                r#"{{"hooks":{{"NoSuchEvent":5,"UserPromptSubmit":{PROJECT_HOOK}}},"env":{{"N":"x"}}}}"#
            ),
            true,
            "x",
        ),
        (
            format!(
                r#"{{"hooks":{{"NoSuchEvent":[{{"hooks":[{{"type":"bogus"}}]}}],"UserPromptSubmit":{PROJECT_HOOK}}}}}"#
            ),
            true,
            "unset",
        ),
    ] {
        let (context, stderr) = settings_case(file.as_bytes());
        assert_eq!(
            context.contains("PROJECT_HOOK_RAN"),
            project_ran,
            "{file}: {context}"
        );
        assert!(
            context.contains(&format!("USER_HOOK N=[{n}]")),
            "{file}: {context}"
        );
        // Only a dropped file is an error.
        let dropped = file.contains(r#""PreToolUse":{}"#);
        assert_eq!(stderr.contains("error:"), dropped, "{file}: {stderr}");
    }
}

/// r13_settings_model_num, r13_settings_perm_allow_str,
/// r13_settings_env_array, r13_settings_env_model_num,
/// r13_settings_disable_model_num, r13_settings_disable_control: a setting
/// of the wrong type drops the whole file, its hooks, env and
/// `disableAllHooks` included.
#[test]
fn a_wrong_typed_setting_drops_the_whole_file() {
    for (file, error) in [
        (
            format!(r#"{{"model":5,"hooks":{{"UserPromptSubmit":{PROJECT_HOOK}}}}}"#),
            "`model` must be a string, not a number",
        ),
        (
            format!(
                r#"{{"permissions":{{"allow":"Bash"}},"hooks":{{"UserPromptSubmit":{PROJECT_HOOK}}}}}"#
            ),
            "`permissions.allow` must be an array, not a string",
        ),
        (
            format!(r#"{{"env":[],"hooks":{{"UserPromptSubmit":{PROJECT_HOOK}}}}}"#),
            "`env` must be an object, not an array",
        ),
        (
            r#"{"env":{"N":"x"},"model":5}"#.to_owned(),
            "`model` must be a string, not a number",
        ),
        (
            r#"{"disableAllHooks":true,"model":5}"#.to_owned(),
            "`model` must be a string, not a number",
        ),
    ] {
        let (context, stderr) = settings_case(file.as_bytes());
        assert!(!context.contains("PROJECT_HOOK_RAN"), "{file}: {context}");
        assert!(context.contains("USER_HOOK N=[unset]"), "{file}: {context}");
        assert!(stderr.contains(error), "{file}: {stderr}");
        assert!(
            stderr.contains("Claude Code ignores this whole file"),
            "{file}: {stderr}"
        );
    }
    // The control: `disableAllHooks` alone turns the user's hook off.
    let (context, _) = settings_case(br#"{"disableAllHooks":true}"#);
    assert!(!context.contains("USER_HOOK"), "{context}");
}

/// r13_settings_bom, r13_settings_latin1, r13_settings_whitespace,
/// r13_settings_env_nonstring.
#[test]
fn a_settings_file_is_read_as_claude_code_reads_it() {
    let body = format!(r#"{{"env":{{"N":"x"}},"hooks":{{"UserPromptSubmit":{PROJECT_HOOK}}}}}"#);
    let (context, stderr) = settings_case(&[b"\xef\xbb\xbf", body.as_bytes()].concat());
    assert!(
        context.contains("PROJECT_HOOK_RAN") && context.contains("N=[x]"),
        "{context} {stderr}"
    );

    // `é` as Latin-1 writes it: one byte, 0xE9.
    let latin1 = [
        br#"{"env":{"N":"x"},"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"echo PROJECT_LATIN1 caf"#.as_slice(),
        &[0xe9],
        br#""}]}]}}"#,
    ]
    .concat();
    let (context, stderr) = settings_case(&latin1);
    assert!(context.contains("PROJECT_LATIN1 caf\u{fffd}"), "{context}");
    assert!(stderr.contains("not valid UTF-8 at line 1"), "{stderr}");

    let (context, stderr) = settings_case(b" \n\t\n ");
    assert!(context.contains("USER_HOOK N=[unset]"), "{context}");
    assert!(!stderr.contains("settings.json"), "{stderr}");

    let (context, _) = settings_case(
        format!(r#"{{"env":{{"N":1,"B":true,"Z":null,"O":{{"a":1}},"A":[1,2]}},"hooks":{{"UserPromptSubmit":{PROJECT_HOOK}}}}}"#)
            .as_bytes(),
    );
    assert!(
        context.contains("USER_HOOK N=[1] B=[true] Z=[null] O=[[object Object]] A=[1,2]"),
        "{context}"
    );
}

/// `suppressOriginalPrompt` (FINDINGS §42, a probe of the CLI): the block
/// text leaves the prompt out.
#[test]
fn a_block_may_leave_the_prompt_out() {
    let c = Claude::new();
    let cmd = answering(
        r#"{"decision":"block","reason":"R","hookSpecificOutput":{"hookEventName":"UserPromptSubmit","suppressOriginalPrompt":true}}"#,
        "",
        0,
    );
    let c = c.project_settings(&settings("UserPromptSubmit", None, &[&cmd]));
    assert_eq!(
        c.fire(&prompt()).outcome["reasons"][0]["text"],
        "UserPromptSubmit operation blocked by hook:\nR"
    );
}

/// A session keeps the settings it started with while a `ConfigChange`
/// hook is configured (`r3_config_change_*`); a settings file with a byte
/// that is not UTF-8 is kept as it is read, U+FFFD and all.
#[test]
fn a_session_keeps_settings_read_with_a_bad_byte() {
    let c = Claude::new();
    let path = c.project().join(".claude/settings.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let file = |word: &str| {
        [
            br#"{"hooks":{"ConfigChange":[{"hooks":[{"type":"command","command":"true"}]}],"UserPromptSubmit":[{"hooks":[{"type":"command","command":"echo "#.as_slice(),
            word.as_bytes(),
            b" caf",
            &[0xe9],
            br#""}]}]}}"#,
        ]
        .concat()
    };
    std::fs::write(&path, file("A")).unwrap();
    c.fire(&json!({"event": "session_start", "session_id": "s1", "source": "startup"}));
    std::fs::write(&path, file("B")).unwrap();
    let context = c.fire(&prompt()).outcome["context"].to_string();
    assert!(context.contains("A caf\u{fffd}"), "{context}");
}
