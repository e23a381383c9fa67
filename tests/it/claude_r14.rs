//! Round 14 of the recordings (`recordings/claude/r14_*`, FINDINGS.md
//! §43): what hooks ask of the harness's own interface. A session's title
//! (`sessionTitle`) and where hooks read it again (`session_title`), a
//! first user message (`initialUserMessage`), a new look for skills
//! (`reloadSkills`) and terminal sequences (`terminalSequence`). Each
//! expectation is the recorded one, except the order in which several
//! hooks' titles and messages count (configuration order, as documented).

use serde_json::{Value, json};

use crate::claude_util::{Claude, keys};

fn start(source: &str) -> Value {
    json!({"event": "session_start", "session_id": "s1", "source": source})
}

fn prompt(text: &str) -> Value {
    json!({"event": "user_prompt", "session_id": "s1", "prompt": text})
}

/// A shell word holding `text`.
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// A SessionStart answer with these `hookSpecificOutput` fields.
fn start_answer(fields: Value) -> String {
    let mut specific = json!({"hookEventName": "SessionStart"});
    if let (Some(o), Some(extra)) = (specific.as_object_mut(), fields.as_object()) {
        o.extend(extra.clone());
    }
    json!({"hookSpecificOutput": specific}).to_string()
}

/// Settings with these (event, commands) entries, each in one group.
fn hooks(entries: &[(&str, Vec<String>)]) -> Value {
    let mut all = serde_json::Map::new();
    for (event, commands) in entries {
        let handlers: Vec<Value> = commands
            .iter()
            .map(|c| json!({"type": "command", "command": c}))
            .collect();
        all.insert((*event).to_owned(), json!([{"hooks": handlers}]));
    }
    json!({ "hooks": all })
}

/// The answers that end a prompt (a block, a stop) and one that does not,
/// each with whether it ends it.
fn prompt_endings() -> [(Value, bool); 3] {
    [
        (json!({"decision": "block", "reason": "R"}), true),
        (json!({"continue": false, "stopReason": "S"}), true),
        (json!({}), false),
    ]
}

/// An answer with a `systemMessage` and the terminal sequence `OSC 9;
/// text`, and `ending`'s fields.
fn noisy_answer(text: &str, ending: &Value) -> String {
    let mut answer =
        json!({"systemMessage": "SYSMSG", "terminalSequence": format!("\u{1b}]9;{text}\u{7}")});
    if let (Some(a), Some(e)) = (answer.as_object_mut(), ending.as_object()) {
        a.extend(e.clone());
    }
    answer.to_string()
}

/// A `prompt_expansion` event: `/deploy now`, a project command.
fn expansion() -> Value {
    json!({
        "event": "prompt_expansion",
        "session_id": "s1",
        "prompt": "/deploy now",
        "expansion": {"kind": "slash_command", "command_name": "deploy", "command_args": "now", "command_source": "project"}
    })
}

/// A fixture hook answering `stdout`.
fn answering(c: &Claude, label: &str, stdout: &str) -> String {
    c.hook(label, &format!("--stdout {}", quoted(stdout)))
}

/// r14_ss_title_basic, r14_control_no_title: the title reaches the next
/// UserPromptSubmit as its last key; the startup payload has none, and a
/// session without a title sends none.
#[test]
fn a_session_start_title_reaches_the_next_prompt_as_its_last_key() {
    let c = Claude::new();
    let ss = answering(&c, "ss", &start_answer(json!({"sessionTitle": "T1"})));
    let ups = c.hook("ups", "");
    let c = c.project_settings(&hooks(&[
        ("SessionStart", vec![ss]),
        ("UserPromptSubmit", vec![ups]),
    ]));
    let f = c.fire(&start("startup"));
    assert_eq!(f.outcome["session_title"], "T1", "{}", f.outcome);
    let got = c.received("ss").expect("SessionStart ran");
    assert_eq!(keys(&got).last(), Some(&"source"), "{got}");
    let f = c.fire(&prompt("the prompt"));
    assert!(f.outcome.get("session_title").is_none(), "{}", f.outcome);
    let got = c.received("ups").expect("UserPromptSubmit ran");
    assert_eq!(
        keys(&got)[keys(&got).len() - 2..],
        ["prompt", "session_title"],
        "{got}"
    );
    assert_eq!(got["session_title"], "T1");
    let raw = c.received_raw("ups").unwrap_or_default();
    assert!(
        raw.trim_end()
            .ends_with(r#""prompt":"the prompt","session_title":"T1"}"#),
        "{raw}"
    );

    // r14_control_no_title.
    let c = Claude::new();
    let ups = c.hook("ups", "");
    let c = c.project_settings(&hooks(&[("UserPromptSubmit", vec![ups])]));
    c.fire(&prompt("the prompt"));
    let got = c.received("ups").expect("UserPromptSubmit ran");
    assert!(got.get("session_title").is_none(), "{got}");
}

/// r14_ss_title_ctrl, r14_ss_title_250, r14_ss_title_250_emoji,
/// r14_ss_title_empty, r14_ss_title_ctrl_only: each run of control
/// characters is a space (2.1.332), the title is cut at 200 characters
/// (code points) and trimmed, and a title with nothing left is no title.
#[test]
fn titles_are_cleaned_and_cut_as_claude_code_keeps_them() {
    let long: String = (0..50).map(|i| format!("{:03}|", i * 4)).collect();
    let emoji = format!("{}{}", "x".repeat(150), "\u{1f600}".repeat(100));
    for (given, kept) in [
        // 2.1.332: each run of control characters is a space.
        ("a\u{7}b\nc\u{9b}d".to_owned(), Some("a b c d".to_owned())),
        (long.clone(), Some(long.chars().take(200).collect())),
        (
            emoji,
            Some(format!("{}{}", "x".repeat(150), "\u{1f600}".repeat(50))),
        ),
        (String::new(), None),
        ("\u{7}\n\u{9b}".to_owned(), None),
    ] {
        let c = Claude::new();
        let ss = answering(&c, "ss", &start_answer(json!({"sessionTitle": given})));
        let ups = c.hook("ups", "");
        let c = c.project_settings(&hooks(&[
            ("SessionStart", vec![ss]),
            ("UserPromptSubmit", vec![ups]),
        ]));
        let f = c.fire(&start("startup"));
        assert_eq!(
            f.outcome.get("session_title").and_then(Value::as_str),
            kept.as_deref(),
            "{given:?}: {}",
            f.outcome
        );
        c.fire(&prompt("the prompt"));
        let got = c.received("ups").expect("UserPromptSubmit ran");
        assert_eq!(
            got.get("session_title").and_then(Value::as_str),
            kept.as_deref(),
            "{given:?}"
        );
    }
}

/// r14_ups_title_stream, r14_ups_title_print, r14_ss_ups_title_stream,
/// r14_ss_title_stream, r14_ups_title_same_stream,
/// r14_ups_title_ctrl_stream, r14_ss_title_and_ium: a prompt's title holds
/// from the next prompt on (whatever prompt that is, a first user message
/// included) and replaces a SessionStart one; it is cleaned like any
/// title; the same title again changes nothing.
#[test]
fn a_prompt_title_holds_from_the_next_prompt() {
    let c = Claude::new();
    let ss = answering(&c, "ss", &start_answer(json!({"sessionTitle": "T1"})));
    let ups = c.hook(
        "ups",
        &format!(
            "--once --stdout {}",
            quoted(
                r#"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","sessionTitle":"U1"}}"#
            )
        ),
    );
    let c = c.project_settings(&hooks(&[
        ("SessionStart", vec![ss]),
        ("UserPromptSubmit", vec![ups]),
    ]));
    c.fire(&start("startup"));
    let f = c.fire(&prompt("P1"));
    assert_eq!(f.outcome["session_title"], "U1", "{}", f.outcome);
    assert_eq!(c.received("ups").expect("P1")["session_title"], "T1");
    let f = c.fire(&prompt("P2"));
    assert!(f.outcome.get("session_title").is_none(), "{}", f.outcome);
    assert_eq!(c.received("ups").expect("P2")["session_title"], "U1");

    // r14_ups_title_same_stream: T1 from SessionStart, then T1 again.
    let c = Claude::new();
    let ss = answering(&c, "ss", &start_answer(json!({"sessionTitle": "T1"})));
    let ups = answering(
        &c,
        "ups",
        r#"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","sessionTitle":"T1"}}"#,
    );
    let c = c.project_settings(&hooks(&[
        ("SessionStart", vec![ss]),
        ("UserPromptSubmit", vec![ups]),
    ]));
    c.fire(&start("startup"));
    let f = c.fire(&prompt("P1"));
    assert!(f.outcome.get("session_title").is_none(), "{}", f.outcome);

    // r14_ups_title_ctrl_stream.
    let c = Claude::new();
    let ups = answering(
        &c,
        "ups",
        r#"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","sessionTitle":"a\u0007b\nc\u009bd"}}"#,
    );
    let c = c.project_settings(&hooks(&[("UserPromptSubmit", vec![ups])]));
    let f = c.fire(&prompt("P1"));
    assert_eq!(f.outcome["session_title"], "a b c d", "{}", f.outcome);
    c.fire(&prompt("P2"));
    assert_eq!(c.received("ups").expect("P2")["session_title"], "a b c d");
}

/// A prompt that is blocked or stopped keeps its title (Claude Code
/// returns before it applies one; read from its code), and a title the
/// harness gives on the event is the one hooks read and compare with.
#[test]
fn a_blocked_prompt_sets_no_title_and_the_events_title_wins() {
    let c = Claude::new();
    let ups = answering(
        &c,
        "ups",
        r#"{"decision":"block","reason":"R","hookSpecificOutput":{"hookEventName":"UserPromptSubmit","sessionTitle":"U1"}}"#,
    );
    let c = c.project_settings(&hooks(&[("UserPromptSubmit", vec![ups])]));
    let f = c.fire(&prompt("P1"));
    assert_eq!(f.outcome["decision"], "deny");
    assert!(f.outcome.get("session_title").is_none(), "{}", f.outcome);
    c.fire(&prompt("P2"));
    assert!(
        c.received("ups")
            .expect("P2")
            .get("session_title")
            .is_none()
    );

    // A title from a hook that does not block, beside one that blocks or
    // stops: whichever finishes first, the prompt does not go on, and
    // the title does not count.
    for ending in [
        r#"{"decision":"block","reason":"R"}"#,
        r#"{"continue":false}"#,
    ] {
        let c = Claude::new();
        let titled = answering(
            &c,
            "titled",
            r#"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","sessionTitle":"U1"}}"#,
        );
        let ends = answering(&c, "ends", ending);
        let c = c.project_settings(&hooks(&[("UserPromptSubmit", vec![titled, ends])]));
        let f = c.fire(&prompt("P1"));
        assert!(
            f.outcome.get("session_title").is_none(),
            "{ending}: {}",
            f.outcome
        );
    }

    let c = Claude::new();
    let ups = answering(
        &c,
        "ups",
        r#"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","sessionTitle":"Mine"}}"#,
    );
    let c = c.project_settings(&hooks(&[("UserPromptSubmit", vec![ups])]));
    let mut event = prompt("P1");
    event["session_title"] = json!("Mine");
    let f = c.fire(&event);
    assert!(f.outcome.get("session_title").is_none(), "{}", f.outcome);
    assert_eq!(c.received("ups").expect("P1")["session_title"], "Mine");
    event["session_title"] = json!("");
    c.fire(&event);
    // An empty title is none (nothing was kept: "Mine" was no change).
    assert!(
        c.received("ups")
            .expect("an empty title")
            .get("session_title")
            .is_none()
    );
    event["session_title"] = json!("Renamed");
    let f = c.fire(&event);
    assert_eq!(f.outcome["session_title"], "Mine");
    assert_eq!(c.received("ups").expect("P2")["session_title"], "Renamed");
}

/// r14_ss_title_two, r14_ss_title_two_rev, r14_ss_ium_two,
/// r14_ups_title_two_stream: Claude Code
/// keeps the title and message of the hook that finished last; latch, of
/// the hook last in configuration order, however long each took.
#[test]
fn of_several_titles_the_last_in_configuration_order_counts() {
    for (slow_first, expected) in [(true, "B"), (false, "B")] {
        let c = Claude::new();
        let (sa, sb) = if slow_first {
            ("0.5", "0")
        } else {
            ("0", "0.5")
        };
        let a = c.hook(
            "a",
            &format!(
                "--sleep {sa} --stdout {}",
                quoted(&start_answer(
                    json!({"sessionTitle": "A", "initialUserMessage": "IUM_A"})
                ))
            ),
        );
        let b = c.hook(
            "b",
            &format!(
                "--sleep {sb} --stdout {}",
                quoted(&start_answer(
                    json!({"sessionTitle": "B", "initialUserMessage": "IUM_B"})
                ))
            ),
        );
        let c = c.project_settings(&hooks(&[("SessionStart", vec![a, b])]));
        let f = c.fire(&start("startup"));
        assert_eq!(f.outcome["session_title"], expected, "{}", f.outcome);
        assert_eq!(f.outcome["initial_user_message"], format!("IUM_{expected}"));
    }
    let c = Claude::new();
    let title = |t: &str| {
        quoted(
            &json!({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "sessionTitle": t}})
                .to_string(),
        )
    };
    let a = c.hook("a", &format!("--sleep 0.5 --stdout {}", title("U_A")));
    let b = c.hook("b", &format!("--stdout {}", title("U_B")));
    let c = c.project_settings(&hooks(&[("UserPromptSubmit", vec![a, b])]));
    assert_eq!(c.fire(&prompt("P1")).outcome["session_title"], "U_B");
}

/// r14_ss_title_resume, r14_ss_title_resume_only,
/// r14_ss_title_compact_stream, r14_ss_ium_compact_stream: a resumed
/// session's SessionStart reads the title and may set one; after
/// compaction it reads it, and a new title or first message is not taken
/// (the run says so).
#[test]
fn titles_on_resume_and_after_compaction() {
    let c = Claude::new();
    let ss = c.hook(
        "ss",
        &format!(
            "--stdout {}",
            quoted(&start_answer(json!({"sessionTitle": "S_any"})))
        ),
    );
    let c = c.project_settings(&hooks(&[("SessionStart", vec![ss])]));
    let f = c.fire(&start("startup"));
    assert_eq!(f.outcome["session_title"], "S_any");
    // Resumed: the same title changes nothing; the payload has it last.
    let f = c.fire(&start("resume"));
    assert!(f.outcome.get("session_title").is_none(), "{}", f.outcome);
    let raw = c.received_raw("ss").expect("resume ran");
    assert!(
        raw.trim_end().ends_with(
            r#""hook_event_name":"SessionStart","source":"resume","session_title":"S_any"}"#
        ),
        "{raw}"
    );
    let mut compact = start("compact");
    compact["model"] = json!("claude-sonnet-4-5-20250929");
    let f = c.fire(&compact);
    let raw = c.received_raw("ss").expect("compact ran");
    assert!(
        raw.trim_end().ends_with(
            r#""source":"compact","model":"claude-sonnet-4-5-20250929","session_title":"S_any"}"#
        ),
        "{raw}"
    );
    assert!(f.outcome.get("session_title").is_none(), "{}", f.outcome);

    // A new title on compaction is not taken, and the run says why.
    let c = Claude::new();
    let ss = answering(
        &c,
        "ss",
        &start_answer(json!({"sessionTitle": "S_compact", "initialUserMessage": "IUM"})),
    );
    let c = c.project_settings(&hooks(&[("SessionStart", vec![ss])]));
    let f = c.fire(&start("clear"));
    assert!(f.outcome.get("session_title").is_none(), "{}", f.outcome);
    assert!(
        f.outcome["runs"][0]["ignored_fields"]
            .to_string()
            .contains("not clear"),
        "{}",
        f.outcome
    );
    let f = c.fire(&start("compact"));
    assert!(f.outcome.get("session_title").is_none(), "{}", f.outcome);
    assert!(
        f.outcome.get("initial_user_message").is_none(),
        "{}",
        f.outcome
    );
    let ignored = f.outcome["runs"][0]["ignored_fields"].to_string();
    assert!(ignored.contains("sessionTitle (Claude Code keeps a SessionStart title on startup and resume, not compact)"), "{ignored}");
    assert!(
        ignored.contains(
            "initialUserMessage (Claude Code sends it on startup and resume, not compact)"
        ),
        "{ignored}"
    );
    // Resumed, both count (r14_ss_title_resume_only, r14_ss_ium_resume_only).
    let f = c.fire(&start("resume"));
    assert_eq!(f.outcome["session_title"], "S_compact");
    assert_eq!(f.outcome["initial_user_message"], "IUM");
}

/// r14_ss_ium, r14_ss_ium_empty, r14_ss_reload_skills,
/// r14_ss_reload_skills_new, r14_ss_noreload_skills_new,
/// r14_ss_watch_paths: the first user message goes to the harness as
/// written; an empty one is none; `reloadSkills: true` asks for a new look
/// for skills (without it, skills a hook installs wait for the next
/// session); `watchPaths` beside them still counts.
#[test]
fn a_first_user_message_and_a_new_look_for_skills() {
    let c = Claude::new();
    let ss = answering(
        &c,
        "ss",
        &start_answer(
            json!({"initialUserMessage": "IUM", "reloadSkills": true, "watchPaths": ["/w/.envrc"]}),
        ),
    );
    let empty = answering(
        &c,
        "empty",
        &start_answer(json!({"initialUserMessage": "", "reloadSkills": false})),
    );
    let c = c.project_settings(&hooks(&[("SessionStart", vec![ss, empty])]));
    let f = c.fire(&start("startup"));
    assert_eq!(f.outcome["initial_user_message"], "IUM", "{}", f.outcome);
    assert_eq!(f.outcome["reload_skills"], true);
    assert_eq!(f.outcome["watch_paths"], json!(["/w/.envrc"]));

    let c = Claude::new();
    let ss = answering(&c, "ss", &start_answer(json!({"reloadSkills": false})));
    let c = c.project_settings(&hooks(&[("SessionStart", vec![ss])]));
    let f = c.fire(&start("startup"));
    assert!(f.outcome.get("reload_skills").is_none(), "{}", f.outcome);
}

/// A first user message over 10,000 characters is kept in a file and
/// previewed, as Claude Code keeps it (its code sends it through the same
/// step as `additionalContext`).
#[test]
fn a_long_first_user_message_is_saved_to_a_file() {
    let c = Claude::new();
    let long = "m".repeat(10_001);
    let first = answering(
        &c,
        "first",
        &start_answer(json!({"initialUserMessage": "f".repeat(10_001)})),
    );
    let ss = answering(&c, "ss", &start_answer(json!({"initialUserMessage": long})));
    let c = c.project_settings(&hooks(&[("SessionStart", vec![first, ss])]));
    let f = c.fire(&start("startup"));
    let message = f.outcome["initial_user_message"]
        .as_str()
        .unwrap_or_default();
    assert!(
        message.starts_with("<persisted-output>\nOutput too large"),
        "{}",
        &message[..message.len().min(200)]
    );
    // Named by the event and the text (Claude Code 2.1.332's names).
    assert!(
        message.contains("-SessionStart-") && message.contains("-initialUserMessage.txt"),
        "{}",
        &message[..message.len().min(300)]
    );
    // Only the message that counts is saved.
    let saved: Vec<_> = walk(&c.root.path().join("state"))
        .into_iter()
        .filter(|p| p.to_string_lossy().contains("initialUserMessage"))
        .collect();
    assert_eq!(saved.len(), 1, "{saved:?}");
    assert_eq!(std::fs::read_to_string(&saved[0]).ok(), Some(long));
}

/// Every file under `dir`.
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

/// r14_ts_ups_osc9, r14_ts_ups_bel, r14_ts_ups_osc9_progress,
/// r14_ts_ss_osc9, r14_ts_ups_rejected_sgr, r14_ts_ups_osc9_digit, and in
/// the interactive interface r14i_ups_ts_osc9_st, r14i_ups_ts_osc9_bel,
/// r14i_ups_ts_bel, r14i_ups_ts_osc2_tab, r14i_ups_ts_osc0099,
/// r14i_ups_ts_osc52, r14i_ss_ts_osc0: allowed
/// sequences reach the harness in Claude Code's form; refused ones are
/// named in the run, and the rest of the answer still counts. (Claude Code
/// writes none in `-p` mode, whatever the output format:
/// r14_ts_ups_osc9_jsonout, r14_ts_ups_osc9_text, r14_ts_ups_bel_text.)
#[test]
fn terminal_sequences_pass_claude_codes_allowlist() {
    let c = Claude::new();
    let cmds: Vec<String> = [
        ("osc9", "\u{1b}]9;hello\u{1b}\\"),
        ("bel", "\u{7}"),
        ("tab", "\u{1b}]2;a\tb\u{7}"),
        ("zeros", "\u{1b}]0099;x\u{7}"),
        ("clipboard", "\u{1b}]52;c;e30=\u{7}"),
        ("progress", "\u{1b}]9;4;1;50\u{7}"),
        ("sgr", "\u{1b}[31m"),
        ("digit", "\u{1b}]9;5x\u{7}"),
    ]
    .iter()
    .map(|(label, seq)| {
        answering(
            &c,
            label,
            &json!({"terminalSequence": seq, "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "CTX"}}).to_string(),
        )
    })
    .collect();
    let c = c.project_settings(&hooks(&[("UserPromptSubmit", cmds)]));
    let f = c.fire(&prompt("the prompt"));
    assert_eq!(
        f.outcome["terminal_sequences"],
        json!([
            "\u{1b}]9;hello\u{7}",
            "\u{7}",
            "\u{1b}]2;ab\u{7}",
            "\u{1b}]99;x\u{7}",
            "\u{1b}]9;4;1;50\u{7}"
        ]),
        "{}",
        f.outcome
    );
    assert_eq!(f.outcome["context"].as_array().map(Vec::len), Some(8));
    let runs = f.outcome["runs"].as_array().expect("runs");
    assert_eq!(
        runs[4]["ignored_fields"][0],
        "terminalSequence (refused: OSC \"52\" is not one of 0, 1, 2, 9, 99, 777; only OSC 0, 1, 2, 9, 99, 777 and BEL pass)"
    );
    assert_eq!(
        runs[6]["ignored_fields"][0],
        "terminalSequence (refused: byte 0 starts neither a BEL nor an `ESC ]`; only OSC 0, 1, 2, 9, 99, 777 and BEL pass)"
    );
    assert_eq!(
        runs[7]["ignored_fields"][0],
        "terminalSequence (refused: an OSC 9 text may only start with a number in the `9;4` progress form; only OSC 0, 1, 2, 9, 99, 777 and BEL pass)"
    );

    let c = Claude::new();
    let ss = answering(
        &c,
        "ss",
        &json!({"terminalSequence": "\u{1b}]0;title\u{7}"}).to_string(),
    );
    let c = c.project_settings(&hooks(&[("SessionStart", vec![ss])]));
    let f = c.fire(&start("startup"));
    assert_eq!(
        f.outcome["terminal_sequences"],
        json!(["\u{1b}]0;title\u{7}"])
    );
}

/// r14i_ups_block, r14i_ups_stop, r14i_ups_noblock, r14i_ups_nostop,
/// r14i_pre_deny: a prompt's hook that blocks or stops it has its
/// `systemMessage` and `terminalSequence` dropped (Claude Code stops
/// reading its answer there); without the block or stop both count, and so
/// they do beside a PreToolUse deny. A hook that did not block keeps its
/// sequence.
#[test]
fn a_prompt_hook_that_blocks_or_stops_shows_and_writes_nothing_more() {
    for (ending, blocks) in prompt_endings() {
        let c = Claude::new();
        let hook = answering(&c, "ups", &noisy_answer("blocked", &ending));
        let other = c.hook(
            "other",
            &format!(
                "--stdout {}",
                quoted(&json!({"terminalSequence": "\u{1b}]2;t\u{7}"}).to_string())
            ),
        );
        assert!(hook.contains("--label ups"), "{hook}");
        let hook = hook.replace("--label ups", "--label ups --sleep 0.3");
        let c = c.project_settings(&hooks(&[("UserPromptSubmit", vec![other, hook])]));
        let f = c.fire(&prompt("the prompt"));
        let warnings = f.outcome["warnings"].to_string();
        if blocks {
            assert!(!warnings.contains("SYSMSG"), "{ending}: {}", f.outcome);
            // `other` counts only if it finished before the block: either
            // way the blocking hook's sequence is not there.
            assert!(
                !f.outcome["terminal_sequences"]
                    .to_string()
                    .contains("blocked"),
                "{ending}: {}",
                f.outcome
            );
            assert_eq!(
                f.outcome["runs"][1]["ignored_fields"],
                json!([
                    "systemMessage (Claude Code stops reading an answer that blocks or stops the prompt)",
                    "terminalSequence (Claude Code stops reading an answer that blocks or stops the prompt)"
                ]),
                "{ending}"
            );
        } else {
            assert!(warnings.contains("SYSMSG"), "{}", f.outcome);
            assert_eq!(
                f.outcome["terminal_sequences"],
                json!(["\u{1b}]2;t\u{7}", "\u{1b}]9;blocked\u{7}"])
            );
        }
    }
    // Exit 2 beside the answer blocks the same way.
    let c = Claude::new();
    let hook = c.hook(
        "ups",
        &format!(
            "--exit 2 --stderr no --stdout {}",
            quoted(&json!({"systemMessage": "SYSMSG", "terminalSequence": "\u{7}"}).to_string())
        ),
    );
    let c = c.project_settings(&hooks(&[("UserPromptSubmit", vec![hook])]));
    let f = c.fire(&prompt("the prompt"));
    assert_eq!(f.outcome["decision"], "deny");
    assert!(
        !f.outcome["warnings"].to_string().contains("SYSMSG"),
        "{}",
        f.outcome
    );
    assert!(
        f.outcome.get("terminal_sequences").is_none(),
        "{}",
        f.outcome
    );

    // r14i_pre_deny.
    let c = Claude::new();
    let hook = answering(
        &c,
        "pre",
        &json!({
            "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no"},
            "systemMessage": "SYSMSG",
            "terminalSequence": "\u{1b}]9;denied\u{7}"
        })
        .to_string(),
    );
    let c = c.project_settings(&hooks(&[("PreToolUse", vec![hook])]));
    let f = c.fire(&crate::claude_util::bash_before("echo ran"));
    assert_eq!(f.outcome["decision"], "deny");
    assert!(
        f.outcome["warnings"].to_string().contains("SYSMSG"),
        "{}",
        f.outcome
    );
    assert_eq!(
        f.outcome["terminal_sequences"],
        json!(["\u{1b}]9;denied\u{7}"])
    );
}

/// r14j_upe_block, r14j_upe_block_typed, r14j_upe_stop, r14j_upe_stop_ts,
/// r14j_upe_noblock, r14j_upe_nostop, r14j_upe_control: a prompt
/// expansion's answer that blocks or stops it shows no `systemMessage` and
/// writes no sequence; without the block or stop both count.
#[test]
fn a_prompt_expansion_hook_that_blocks_or_stops_shows_and_writes_nothing_more() {
    for (ending, ends) in prompt_endings() {
        let c = Claude::new();
        let hook = answering(&c, "upe", &noisy_answer("upeblocked", &ending));
        let c = c.project_settings(&hooks(&[("UserPromptExpansion", vec![hook])]));
        let f = c.fire(&expansion());
        let warnings = f.outcome["warnings"].to_string();
        assert_eq!(
            warnings.contains("SYSMSG"),
            !ends,
            "{ending}: {}",
            f.outcome
        );
        assert_eq!(
            f.outcome.get("terminal_sequences").is_some(),
            !ends,
            "{ending}: {}",
            f.outcome
        );
    }
}

/// r14j_ss_clear, r14j_ss_clear_only, r14j_ss_clear_rec,
/// r14j_p_ss_clear_stream: after a clear, SessionStart carries the title
/// the session had, and a new title or first message does not count; the
/// prompt's id it carried with 2.1.197 it no longer does with 2.1.332
/// (`r14j_p_ss_clear_stream`).
#[test]
fn a_clear_session_start_carries_the_title_and_no_prompt_id() {
    let c = Claude::new();
    let ss = c.hook(
        "ss",
        &format!(
            "--stdout {}",
            quoted(&start_answer(
                json!({"sessionTitle": "S_any", "initialUserMessage": "IUM"})
            ))
        ),
    );
    let c = c.project_settings(&hooks(&[("SessionStart", vec![ss])]));
    assert_eq!(c.fire(&start("startup")).outcome["session_title"], "S_any");
    let mut clear = start("clear");
    clear["prompt_id"] = json!("p-clear");
    let f = c.fire(&clear);
    assert!(f.outcome.get("session_title").is_none(), "{}", f.outcome);
    assert!(
        f.outcome.get("initial_user_message").is_none(),
        "{}",
        f.outcome
    );
    let got = c.received("ss").expect("clear ran");
    assert_eq!(
        keys(&got),
        [
            "session_id",
            "transcript_path",
            "cwd",
            "hook_event_name",
            "source",
            "session_title"
        ],
        "{got}"
    );
    assert_eq!(got["session_title"], "S_any");
}

/// Settings with `env` `MN`, a UserPromptSubmit hook that says `MN`, and
/// `extra` merged in (a wrong setting, a wrong hook entry).
fn reporting_settings(extra: Value) -> Value {
    let mut settings = json!({
        "env": {"MN": "mx"},
        "hooks": {"UserPromptSubmit": [{"hooks": [
            {"type": "command", "command": "echo \"CTX MN=${MN:-unset}\""}
        ]}]}
    });
    if let (Some(s), Some(extra)) = (settings.as_object_mut(), extra.as_object()) {
        for (k, v) in extra {
            if k == "hooks" {
                if let (Some(h), Some(more)) = (s["hooks"].as_object_mut(), v.as_object()) {
                    for (event, groups) in more {
                        match (
                            h.get_mut(event).and_then(Value::as_array_mut),
                            groups.as_array(),
                        ) {
                            (Some(mine), Some(theirs)) => mine.extend(theirs.iter().cloned()),
                            _ => {
                                h.insert(event.clone(), groups.clone());
                            }
                        }
                    }
                }
            } else {
                s.insert(k.clone(), v.clone());
            }
        }
    }
    settings
}

/// What the prompt's hooks said, and the warnings.
fn said(c: &Claude) -> (Vec<String>, String) {
    let f = c.fire(&prompt("P1"));
    let texts = f.outcome["context"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|c| c["text"].as_str())
                .map(|t| t.replace("<system-reminder>\nUserPromptSubmit hook success: ", ""))
                .map(|t| t.replace("\n</system-reminder>", ""))
                .collect()
        })
        .unwrap_or_default();
    (texts, f.stderr)
}

/// r14k_m_control, r14k_m_model_num, r14k_m_cleanup_str,
/// r14k_md_model_num, r14k_m_badhook_same_group, r14k_m_badhook_sep_group,
/// r14k_m_badhook_other_event, r14k_md_badhook_same_group,
/// r14k_m_event_object, r14k_m_badjson, re-recorded with Claude Code
/// 2.1.332 (`recordings/claude-2.1.332/managed-332.tar.gz`): in managed
/// settings a wrong setting is dropped alone, a wrong hook entry under
/// `UserPromptSubmit` drops itself (2.1.197: the file's `hooks`), one
/// under `PreToolUse` the file's `hooks` (its `env` stays), and so does
/// `"PreToolUse": {}` (2.1.197: that event alone). A file that is not JSON
/// stops Claude Code from starting; latch says so and loads the others.
/// Each says so.
#[test]
fn managed_settings_drop_only_the_wrong_key() {
    let wrong_hook = json!({"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command"}]}]}});
    let other_event = json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command"}]}]}});
    for (name, extra, in_dir, expected) in [
        ("control", json!({}), false, vec!["CTX MN=mx"]),
        ("model_num", json!({"model": 5}), false, vec!["CTX MN=mx"]),
        (
            "cleanup_str",
            json!({"cleanupPeriodDays": "x"}),
            false,
            vec!["CTX MN=mx"],
        ),
        ("md_model_num", json!({"model": 5}), true, vec!["CTX MN=mx"]),
        ("badhook", wrong_hook.clone(), false, vec!["CTX MN=mx"]),
        ("badhook_other_event", other_event, false, vec![]),
        ("md_badhook", wrong_hook, true, vec!["CTX MN=mx"]),
        (
            "event_object",
            json!({"hooks": {"PreToolUse": {}}}),
            false,
            vec![],
        ),
    ] {
        let c = Claude::new();
        let path = if in_dir {
            "managed/managed-settings.d/10-policy.json"
        } else {
            "managed/managed-settings.json"
        };
        c.write(path, &reporting_settings(extra).to_string());
        // A project hook shows the managed `env` still applies.
        let c = c.project_settings(&json!({"hooks": {"UserPromptSubmit": [{"hooks": [
            {"type": "command", "command": "echo \"PROJ MN=${MN:-unset}\""}
        ]}]}}));
        let (mut texts, stderr) = said(&c);
        // The hooks run at once: their texts come as they finish.
        texts.sort();
        let mut want: Vec<String> = expected.iter().map(|s| (*s).to_owned()).collect();
        want.push("PROJ MN=mx".to_owned());
        want.sort();
        assert_eq!(texts, want, "{name}: {stderr}");
        if name != "control" {
            assert!(stderr.contains("warning"), "{name}: {stderr}");
        }
    }
    // Not JSON: nothing of it applies, and Claude Code would not start.
    let c = Claude::new();
    c.write(
        "managed/managed-settings.json",
        "{\"env\": {\"MN\": \"mx\"},",
    );
    let c = c.project_settings(&json!({"hooks": {"UserPromptSubmit": [{"hooks": [
        {"type": "command", "command": "echo \"PROJ MN=${MN:-unset}\""}
    ]}]}}));
    let (texts, stderr) = said(&c);
    assert_eq!(texts, ["PROJ MN=unset"], "{stderr}");
    assert!(stderr.contains("managed-settings.json"), "{stderr}");
    assert!(stderr.contains("does not start"), "{stderr}");
}

/// Claude Code 2.1.332's managed settings, recorded
/// (`recordings/claude-2.1.332/managed-332.tar.gz`, `m332_*`): what drops
/// a managed file's `hooks`, an entry, an event or nothing, and the
/// settings that switch hooks off. Each case: the managed file (the
/// `reporting_settings` with `extra`), what the prompt's hooks say (a
/// project hook reports `MN`), and whether latch warns.
#[test]
fn managed_settings_read_as_claude_code_2_1_332_reads_them() {
    let pre = |hooks: Value| json!({"matcher": "Bash", "hooks": hooks});
    let bad = json!({"type": "command"});
    for (name, extra, expected) in [
        // m332_badhook_stop, m332_two_bad_same_group, m332_bad_group_matcher
        (
            "badhook_stop",
            json!({"hooks": {"Stop": [{"hooks": [bad.clone()]}]}}),
            vec!["CTX MN=mx", "PROJ MN=mx"],
        ),
        (
            "two_bad_same_group",
            json!({"hooks": {"UserPromptSubmit": [{"hooks": [
                bad.clone(),
                {"type": "command", "command": "echo SECOND"},
                {"type": "command", "command": 5}
            ]}]}}),
            vec!["CTX MN=mx", "PROJ MN=mx", "SECOND"],
        ),
        (
            "bad_group_matcher",
            json!({"hooks": {"UserPromptSubmit": [{"matcher": 5, "hooks": [
                {"type": "command", "command": "echo IN_BAD_GROUP"}
            ]}]}}),
            vec!["CTX MN=mx", "PROJ MN=mx"],
        ),
        // m332_badhook_permreq, m332_badhook_skillshell: the file's `hooks`.
        (
            "badhook_permreq",
            json!({"hooks": {"PermissionRequest": [pre(json!([bad.clone()]))]}}),
            vec!["PROJ MN=mx"],
        ),
        (
            "badhook_skillshell",
            json!({"hooks": {"PreSkillShellCommand": [pre(json!([bad.clone()]))]}}),
            vec!["PROJ MN=mx"],
        ),
        // m332_pre_null, m332_stop_object, m332_unknown_event: the event.
        (
            "pre_null",
            json!({"hooks": {"PreToolUse": null}}),
            vec!["CTX MN=mx", "PROJ MN=mx"],
        ),
        (
            "stop_object",
            json!({"hooks": {"Stop": {}}}),
            vec!["CTX MN=mx", "PROJ MN=mx"],
        ),
        (
            "unknown_event",
            json!({"hooks": {"NotAnEvent": [{"hooks": [bad.clone()]}]}}),
            vec!["CTX MN=mx", "PROJ MN=mx"],
        ),
        // m332_guard_outside_hooks, m332_guard_under_setting: nothing.
        (
            "guard_outside_hooks",
            json!({"PreToolUse": [pre(json!([{"type": "command", "command": "true"}]))]}),
            vec!["CTX MN=mx", "PROJ MN=mx"],
        ),
        (
            "guard_under_setting",
            json!({"permissions": {"hooks": {"PreToolUse": [pre(json!([{"type": "command", "command": "true"}]))]}}}),
            vec!["CTX MN=mx", "PROJ MN=mx"],
        ),
        // m332_env_list: `env` alone.
        (
            "env_list",
            json!({"env": ["MN=mx"]}),
            vec!["CTX MN=unset", "PROJ MN=unset"],
        ),
        // m332_amho_true, m332_amho_str (read as `true`), m332_amho_null.
        (
            "amho_true",
            json!({"allowManagedHooksOnly": true}),
            vec!["CTX MN=mx"],
        ),
        (
            "amho_str",
            json!({"allowManagedHooksOnly": "yes"}),
            vec!["CTX MN=mx"],
        ),
        (
            "amho_null",
            json!({"allowManagedHooksOnly": null}),
            vec!["CTX MN=mx", "PROJ MN=mx"],
        ),
        // m332_disable_true, m332_disable_str, m332_disable_null.
        ("disable_true", json!({"disableAllHooks": true}), vec![]),
        (
            "disable_str",
            json!({"disableAllHooks": "yes"}),
            vec!["CTX MN=mx", "PROJ MN=mx"],
        ),
        (
            "disable_null",
            json!({"disableAllHooks": null}),
            vec!["CTX MN=mx", "PROJ MN=mx"],
        ),
        // m332_managed_only_ok, m332_null_restricting.
        (
            "managed_only_ok",
            json!({"deniedModels": ["claude-nothing-1"]}),
            vec!["CTX MN=mx", "PROJ MN=mx"],
        ),
        (
            "null_restricting",
            json!({"allowManagedPermissionRulesOnly": null, "model": 5}),
            vec!["CTX MN=mx", "PROJ MN=mx"],
        ),
    ] {
        let c = Claude::new();
        c.write(
            "managed/managed-settings.json",
            &reporting_settings(extra).to_string(),
        );
        let c = c.project_settings(&json!({"hooks": {"UserPromptSubmit": [{"hooks": [
            {"type": "command", "command": "echo \"PROJ MN=${MN:-unset}\""}
        ]}]}}));
        let (mut texts, stderr) = said(&c);
        texts.sort();
        assert_eq!(texts, expected, "{name}: {stderr}");
        let quiet = ["amho_true", "amho_null", "disable_true", "managed_only_ok"];
        assert_eq!(
            stderr.contains("warning"),
            !quiet.contains(&name),
            "{name}: {stderr}"
        );
        assert!(!stderr.contains("error"), "{name}: {stderr}");
    }
}

/// m332_pre_bad_hooks_only, m332_md_pre_bad_plus_base, m332_md_override,
/// m332_md_badjson_plus_good: a managed file whose `hooks` cannot be
/// loaded for a guard and that sets nothing else stops Claude Code from
/// starting (latch: an error, the other files load); a drop-in's wrong
/// guard drops its own `hooks` only, its `env` applying; a drop-in's `env`
/// wins over the main file's; a drop-in that is not JSON stops Claude Code
/// too.
#[test]
fn managed_drop_ins_are_read_one_by_one() {
    let proj = json!({"hooks": {"UserPromptSubmit": [{"hooks": [
        {"type": "command", "command": "echo \"PROJ MN=${MN:-unset} MD=${MD:-unset}\""}
    ]}]}});
    let bad_pre = json!({"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command"}]}]});
    let ups =
        |text: &str| json!([{"hooks": [{"type": "command", "command": format!("echo {text}")}]}]);
    // Only `hooks`, and a guard in them wrong.
    let c = Claude::new();
    let mut only = json!({"hooks": bad_pre.clone()});
    only["hooks"]["UserPromptSubmit"] = ups("MANAGED");
    c.write("managed/managed-settings.json", &only.to_string());
    let c = c.project_settings(&proj);
    let (texts, stderr) = said(&c);
    assert_eq!(texts, ["PROJ MN=unset MD=unset"], "{stderr}");
    assert!(stderr.contains("does not start"), "{stderr}");
    // A drop-in's wrong guard beside a good main file.
    let c = Claude::new();
    c.write(
        "managed/managed-settings.json",
        &json!({"env": {"MN": "mx"}, "hooks": {"UserPromptSubmit": ups("MANAGED")}}).to_string(),
    );
    let mut drop_in = json!({"env": {"MD": "md"}, "hooks": bad_pre});
    drop_in["hooks"]["UserPromptSubmit"] = ups("DROP_IN");
    c.write(
        "managed/managed-settings.d/20-pre.json",
        &drop_in.to_string(),
    );
    let c = c.project_settings(&proj);
    let (mut texts, stderr) = said(&c);
    texts.sort();
    assert_eq!(texts, ["MANAGED", "PROJ MN=mx MD=md"], "{stderr}");
    assert!(stderr.contains("20-pre.json"), "{stderr}");
    // A drop-in's `env` wins.
    let c = Claude::new();
    c.write(
        "managed/managed-settings.json",
        &json!({"env": {"MN": "base"}, "hooks": {"UserPromptSubmit": ups("MANAGED")}}).to_string(),
    );
    c.write(
        "managed/managed-settings.d/10-x.json",
        &json!({"env": {"MN": "dropin"}, "hooks": {"UserPromptSubmit": ups("DROP_IN")}})
            .to_string(),
    );
    let c = c.project_settings(&proj);
    let (mut texts, stderr) = said(&c);
    texts.sort();
    assert_eq!(
        texts,
        ["DROP_IN", "MANAGED", "PROJ MN=dropin MD=unset"],
        "{stderr}"
    );
    // A drop-in that is not JSON.
    let c = Claude::new();
    c.write(
        "managed/managed-settings.d/10-good.json",
        &json!({"env": {"MN": "mx"}, "hooks": {"UserPromptSubmit": ups("MANAGED")}}).to_string(),
    );
    c.write(
        "managed/managed-settings.d/20-bad.json",
        "{\"env\": {\"MX\": \"1\"}",
    );
    let c = c.project_settings(&proj);
    let (mut texts, stderr) = said(&c);
    texts.sort();
    assert_eq!(texts, ["MANAGED", "PROJ MN=mx MD=unset"], "{stderr}");
    assert!(
        stderr.contains("20-bad.json") && stderr.contains("does not start"),
        "{stderr}"
    );
}

/// r14k_p_control, r14k_p_model_num, r14k_p_cleanup_str,
/// r14k_p_badhook_same_group, r14k_p_badhook_sep_group,
/// r14k_p_badhook_other_event, r14k_p_event_object: the same content as a
/// project's settings drops the whole file, `env` included, for a wrong
/// setting and for a wrong entry or list under a guard event
/// (`PreToolUse`); a wrong entry under another event drops that entry
/// alone (Claude Code 2.1.332, re-recorded; 2.1.197 dropped the file for
/// any wrong entry and kept it for a wrong list).
#[test]
fn project_settings_with_the_same_faults_are_dropped_whole_or_in_part() {
    let wrong_hook = json!({"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command"}]}]}});
    let other_event = json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command"}]}]}});
    for (name, extra, expected) in [
        ("control", json!({}), vec!["CTX MN=mx"]),
        ("model_num", json!({"model": 5}), vec![]),
        ("cleanup_str", json!({"cleanupPeriodDays": "x"}), vec![]),
        ("badhook", wrong_hook, vec!["CTX MN=mx"]),
        ("badhook_other_event", other_event, vec![]),
        ("event_object", json!({"hooks": {"PreToolUse": {}}}), vec![]),
    ] {
        let c = Claude::new().project_settings(&reporting_settings(extra));
        let (texts, stderr) = said(&c);
        assert_eq!(texts, expected, "{name}: {stderr}");
    }
}

/// r14k_upe_two_a_slow_block, r14k_upe_two_b_slow_exit2,
/// r14k_upe_two_a_slow_block_text, r14k_upe_two_b_slow_exit2_text (the same
/// result as text), r14k_upe_control: of a prompt
/// expansion's two blocking hooks, the first to finish decides, whatever
/// the configuration order.
#[test]
fn a_prompt_expansion_is_blocked_by_its_first_hook_to_finish() {
    for (a_sleeps, winner) in [(true, "B"), (false, "A")] {
        let (sa, sb) = if a_sleeps { ("0.5", "0") } else { ("0", "0.5") };
        let a = format!("sleep {sa}; echo '{{\"decision\":\"block\",\"reason\":\"A\"}}'");
        let b = format!("sleep {sb}; printf B >&2; exit 2");
        let c = Claude::new().project_settings(&hooks(&[(
            "UserPromptExpansion",
            vec![a.clone(), b.clone()],
        )]));
        let f = c.fire(&expansion());
        assert_eq!(f.outcome["decision"], "deny");
        let text = if winner == "A" {
            "A".to_owned()
        } else {
            format!("[{b}]: B")
        };
        assert_eq!(
            f.outcome["reasons"][0]["text"],
            format!(
                "UserPromptExpansion operation blocked by hook:\n{text}\n\nOriginal prompt: /deploy now"
            ),
            "{}",
            f.outcome
        );
        assert_eq!(f.outcome["reasons"].as_array().map(Vec::len), Some(1));
    }
}
