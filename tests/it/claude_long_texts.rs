//! Hook texts over 10,000 characters: saved to a file, and the model reads
//! Claude Code's `<persisted-output>` preview (recorded: `r8_big_*`).

use serde_json::{Value, json};

use crate::claude_util::{Claude, bash_after, settings, texts};
use crate::util::write_script;

/// `CTX_BEGIN_` + `A`s + `CTX_END_MK`, `len` characters in all.
fn long_text(len: usize) -> String {
    format!("CTX_BEGIN_{}CTX_END_MK", "A".repeat(len - 20))
}

/// A hook printing `json` with `{TEXT}` replaced by a long text of `len`
/// characters (kept in a file beside the script, so no argument limit).
fn hook_printing(c: &Claude, name: &str, json: &str, text: &str) -> String {
    let dir = c.root.path().join("big");
    std::fs::create_dir_all(&dir).expect("dir");
    let (before, after) = json.split_once("{TEXT}").unwrap_or((json, ""));
    std::fs::write(
        dir.join(format!("{name}.out")),
        format!("{before}{text}{after}"),
    )
    .expect("write");
    let script = write_script(
        &dir,
        &format!("{name}.sh"),
        &format!(
            "#!/bin/sh\ncat > /dev/null\ncat '{}'\n",
            dir.join(format!("{name}.out")).display()
        ),
    );
    script.display().to_string()
}

/// A PostToolUse answer whose `additionalContext` is `{TEXT}`.
const POST_CONTEXT: &str =
    r#"{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "{TEXT}"}}"#;

/// A PostToolUse settings file whose one handler answers `text` as context.
fn context_of(c: Claude, text: &str) -> Claude {
    let cmd = hook_printing(&c, "ctx", POST_CONTEXT, text);
    c.project_settings(&settings("PostToolUse", Some("Bash"), &[&cmd]))
}

/// The `<persisted-output>` block Claude Code writes for a saved text.
fn persisted(size: &str, path: &str, preview: &str) -> String {
    format!(
        "<persisted-output>\nOutput too large ({size}). Full output saved to: {path}\n\nPreview (first 2KB):\n{preview}\n...\n</persisted-output>"
    )
}

fn post(call_id: &str) -> Value {
    let mut e = bash_after("ls", json!({"stdout": "hi"}));
    e["tool"]["call_id"] = json!(call_id);
    e
}

/// The one saved file named `<prefix><32 hex digits><suffix>` (Claude
/// Code 2.1.332's names: `hook-<id>-<Event>-<tag>-<field>.txt`, and
/// `hook-<run>-<tag>-stdout.txt`).
fn saved(c: &Claude, prefix: &str, suffix: &str) -> std::path::PathBuf {
    let dir = c.root.path().join("state/sessions/s1/tool-results");
    let found: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    let named: Vec<_> = found
        .into_iter()
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.strip_prefix(prefix)
                .and_then(|rest| rest.strip_suffix(suffix))
                .is_some_and(|tag| {
                    tag.len() == 32
                        && tag
                            .bytes()
                            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
                })
        })
        .collect();
    assert_eq!(
        named.len(),
        1,
        "{prefix}…{suffix} in {}: {named:?}",
        dir.display()
    );
    named[0].clone()
}

/// Recorded: `r8_big_post_ctx`.
#[test]
fn r8_big_post_ctx_a_long_context_is_saved_and_previewed() {
    let c = Claude::new();
    let text = long_text(12_000);
    let c = context_of(c, &text);
    let f = c.fire(&post("toolu_1"));
    let file = saved(&c, "hook-toolu_1-PostToolUse-", "-additionalContext.txt");
    assert_eq!(std::fs::read_to_string(&file).expect("saved"), text);
    let shown = texts(&f.outcome["context"]);
    assert_eq!(shown.len(), 1, "{}", f.outcome);
    let want = format!(
        "<system-reminder>\nPostToolUse:Bash hook additional context: {}\n</system-reminder>",
        persisted("11.7KB", &file.display().to_string(), &text[..2000])
    );
    assert_eq!(shown[0], want);
}

/// Recorded: `r8_big_post_ctx_10000`, `r8_big_post_ctx_10001`,
/// `r8_big_post_ctx_multibyte`.
#[test]
fn r8_big_post_ctx_10000_stays_inline_and_10001_is_saved() {
    for (len, saved) in [(10_000, false), (10_001, true)] {
        let c = Claude::new();
        let text = long_text(len);
        let c = context_of(c, &text);
        let f = c.fire(&post("toolu_2"));
        let shown = texts(&f.outcome["context"]).concat();
        assert_eq!(shown.contains("<persisted-output>"), saved, "{len}");
        if saved {
            // r8_big_post_ctx_10001
            assert!(shown.contains("Output too large (9.8KB)"), "{shown}");
        } else {
            assert!(shown.contains(&text));
        }
    }
    // r8_big_post_ctx_multibyte: 6,000 two-byte characters are 6,000
    // JavaScript characters: inline.
    let c = Claude::new();
    let text = "é".repeat(6_000);
    let c = context_of(c, &text);
    let f = c.fire(&post("toolu_3"));
    assert!(texts(&f.outcome["context"]).concat().contains(&text));
}

#[test]
fn r8_big_post_ctx_lines_the_preview_ends_at_a_line() {
    // r8_big_post_ctx_lines: 300 lines of 40 characters; the preview is 50
    // lines without the last break (1,999 characters).
    let lines: String = (0..300)
        .map(|i| format!("LINE{i:04}_{}\\n", "x".repeat(30)))
        .collect();
    // r8_big_post_ctx_lines_offset: a first line of 20 characters moves the
    // cut to the end of the line before character 2,000.
    let offset = format!("FIRST_{}\\n{lines}", "y".repeat(13));
    for (text, len) in [(lines, 1_999), (offset, 1_979)] {
        let c = Claude::new();
        let c = context_of(c, &text);
        let f = c.fire(&post("toolu_4"));
        let shown = texts(&f.outcome["context"]).concat();
        let preview = shown
            .split_once("Preview (first 2KB):\n")
            .and_then(|(_, rest)| rest.split_once("\n...\n"))
            .map(|(p, _)| p.to_owned())
            .expect("a preview");
        assert_eq!(preview.chars().count(), len, "{preview}");
        assert!(!preview.ends_with('\n'));
    }
}

/// Recorded: `r8_big_post_ctx_two_hooks` (2.1.197 named the files by the
/// handler's place in its group, 2.1.332 by a tag of 32 hex digits).
#[test]
fn r8_big_post_ctx_two_hooks_files_are_named_by_event_and_text() {
    let c = Claude::new();
    let json = POST_CONTEXT;
    let one = hook_printing(&c, "one", json, &long_text(12_000));
    let two = hook_printing(&c, "two", json, "SHORT_CTX");
    let three = hook_printing(&c, "three", json, &long_text(11_000));
    let c = c.project_settings(&settings(
        "PostToolUse",
        Some("Bash"),
        &[&one, &two, &three],
    ));
    let f = c.fire(&post("toolu_5"));
    let dir = c.root.path().join("state/sessions/s1/tool-results");
    let mut held: Vec<usize> = std::fs::read_dir(&dir)
        .expect("files saved")
        .flatten()
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.starts_with("hook-toolu_5-PostToolUse-")
                && name.ends_with("-additionalContext.txt")
        })
        .map(|e| std::fs::read_to_string(e.path()).map_or(0, |t| t.len()))
        .collect();
    held.sort_unstable();
    assert_eq!(held, [11_000, 12_000], "{}", f.outcome);
    assert!(texts(&f.outcome["context"]).concat().contains("SHORT_CTX"));
}

/// Recorded: `r8_big_system_message`.
#[test]
fn r8_big_system_message_is_saved_and_never_reaches_the_model() {
    let c = Claude::new();
    let cmd = hook_printing(
        &c,
        "sys",
        r#"{"systemMessage": "{TEXT}"}"#,
        &long_text(12_000),
    );
    let c = c.project_settings(&settings("PostToolUse", Some("Bash"), &[&cmd]));
    let f = c.fire(&post("toolu_6"));
    assert!(f.outcome.get("context").is_none(), "{}", f.outcome);
    assert!(
        f.warnings_contain("<persisted-output>\nOutput too large (11.7KB)"),
        "{}",
        f.outcome
    );
    saved(&c, "hook-toolu_6-PostToolUse-", "-systemMessage.txt");
}

#[test]
fn r8_big_ups_stdout_and_context_are_saved_too() {
    // r8_big_ups_stdout: plain stdout, `hook-<run>-<tag>-stdout.txt`;
    // r8_big_ups_json_ctx: a JSON context,
    // `hook-<id>-UserPromptSubmit-<tag>-additionalContext.txt`.
    let c = Claude::new();
    let plain = hook_printing(&c, "plain", "{TEXT}", &long_text(12_000));
    let c = c.project_settings(&settings("UserPromptSubmit", None, &[&plain]));
    let f = c.fire(&json!({"event": "user_prompt", "session_id": "s1", "prompt": "go"}));
    let shown = texts(&f.outcome["context"]).concat();
    assert!(
        shown.starts_with("<system-reminder>\nUserPromptSubmit hook success: <persisted-output>\nOutput too large (11.7KB)"),
        "{shown}"
    );
    let names = |c: &Claude| -> Vec<String> {
        std::fs::read_dir(c.root.path().join("state/sessions/s1/tool-results"))
            .map(|d| {
                d.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default()
    };
    assert!(
        names(&c)
            .iter()
            .any(|n| n.starts_with("hook-") && n.ends_with("-stdout.txt")),
        "{:?}",
        names(&c)
    );
    let c = Claude::new();
    let ctx = hook_printing(
        &c,
        "ctx",
        r#"{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "{TEXT}"}}"#,
        &long_text(12_000),
    );
    let c = c.project_settings(&settings("UserPromptSubmit", None, &[&ctx]));
    let f = c.fire(&json!({"event": "user_prompt", "session_id": "s1", "prompt": "go"}));
    assert!(
        texts(&f.outcome["context"]).concat().starts_with(
            "<system-reminder>\nUserPromptSubmit hook additional context: <persisted-output>"
        ),
        "{}",
        f.outcome
    );
    assert!(
        names(&c).iter().any(|n| n.starts_with("hook-")
            && n.contains("-UserPromptSubmit-")
            && n.ends_with("-additionalContext.txt")),
        "{:?}",
        names(&c)
    );
}

/// Two handlers at the same place in two groups, for one tool call: each
/// preview names a file that holds that handler's own text.
#[test]
fn every_preview_names_a_file_with_its_own_text() {
    let c = Claude::new();
    let (a, b) = (long_text(11_000), long_text(11_000).replace('A', "B"));
    let one = hook_printing(&c, "one", POST_CONTEXT, &a);
    let two = hook_printing(&c, "two", POST_CONTEXT, &b);
    let c = c.project_settings(&json!({"hooks": {"PostToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": one}]},
        {"matcher": "*", "hooks": [{"type": "command", "command": two}]}]}}));
    let event = post("toolu/../7");
    let f = c.fire(&event);
    let shown = texts(&f.outcome["context"]);
    assert_eq!(shown.len(), 2, "{}", f.outcome);
    for text in &shown {
        let path = text
            .split_once("Full output saved to: ")
            .and_then(|(_, rest)| rest.split_once('\n'))
            .map(|(p, _)| p.to_owned())
            .expect("a path");
        let saved = std::fs::read_to_string(&path).expect("the file");
        // A call id with a `/` stays inside tool-results.
        assert!(path.contains("/tool-results/hook-toolu%2F"), "{path}");
        assert!(text.contains(&saved[..2000]), "{path} holds another text");
    }
    // The same texts again reuse their files.
    // (Texts come in the order the hooks finished.)
    let again = c.fire(&event);
    let mut again = texts(&again.outcome["context"]);
    let mut shown = shown;
    again.sort_unstable();
    shown.sort_unstable();
    assert_eq!(again, shown);
}

/// An `async` hook's answer is never saved or cut, however long: it
/// reaches the next tool result whole, whether the hook is configured
/// `async` or says so on its first line, on `PostToolUse` or `PreToolUse`
/// (recorded: `r11_async_cfg_post_ctx12k`, `r11_async_cfg_post_sysmsg12k`,
/// `r11_async_first_line_post_ctx12k`, `r11_async_cfg_pre_ctx12k`; the
/// hook that waited, `r11_sync_post_ctx12k`, is saved as `r8_big_post_ctx`
/// shows). Plain stdout gives nothing (`r11_async_cfg_post_stdout12k`,
/// `r11_async_first_line_post_stdout12k`).
#[test]
fn r11_async_cfg_post_ctx12k_an_async_answer_is_whole_and_not_saved() {
    let c = Claude::new();
    let text = long_text(12_000);
    let first_line = |json: &str| format!("{{\"async\":true}}\n{json}");
    let pre_context = POST_CONTEXT.replace("PostToolUse", "PreToolUse");
    let configured = [
        hook_printing(&c, "ctx", POST_CONTEXT, &text),
        hook_printing(&c, "sys", r#"{"systemMessage": "{TEXT}"}"#, &text),
        hook_printing(&c, "plain", "{TEXT}", &text),
    ];
    let by_first_line = [
        hook_printing(&c, "line_ctx", &first_line(POST_CONTEXT), &text),
        hook_printing(&c, "line_plain", &first_line("{TEXT}"), &text),
    ];
    let pre = hook_printing(&c, "pre", &pre_context, &text);
    let mut handlers: Vec<Value> = configured
        .iter()
        .map(|cmd| json!({"type": "command", "command": cmd, "async": true}))
        .collect();
    handlers.extend(
        by_first_line
            .iter()
            .map(|cmd| json!({"type": "command", "command": cmd})),
    );
    let c = c.project_settings(&json!({"hooks": {
        "PostToolUse": [{"matcher": "Bash", "hooks": handlers}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": pre, "async": true}]}]
    }}));
    let mut before = post("toolu_1");
    before["event"] = json!("tool_before");
    assert!(c.fire(&before).outcome.get("context").is_none());
    // The PreToolUse hook's answer may already come with this result.
    let mut arrived: Vec<String> = texts(&c.fire(&post("toolu_1")).outcome["context"])
        .into_iter()
        .map(str::to_owned)
        .collect();
    // The next tool results, of a tool the hooks do not match.
    let read = |id: &str| {
        let mut e = post(id);
        e["tool"]["name"] = json!("Read");
        e["tool"]["input"] = json!({"file_path": "/etc/hostname"});
        e
    };
    // Four answers arrive (each hook stores its own), the plain ones never.
    let start = std::time::Instant::now();
    while arrived.len() < 4 && start.elapsed() < std::time::Duration::from_secs(20) {
        let next = c.context_arriving(&read("toolu_2"));
        arrived.extend(texts(&next).into_iter().map(str::to_owned));
        for entry in next.as_array().into_iter().flatten() {
            assert_eq!(entry["placement"], "append_to_tool_result");
        }
    }
    let whole = format!("<system-reminder>\n{text}\n</system-reminder>");
    let lengths: Vec<usize> = arrived.iter().map(String::len).collect();
    assert_eq!(lengths, [whole.len(); 4], "four whole answers");
    assert!(
        arrived.iter().all(|a| *a == whole),
        "each is the hook's text"
    );
    assert!(
        !c.root
            .path()
            .join("state/sessions/s1/tool-results")
            .exists(),
        "nothing saved"
    );
    assert!(c.fire(&read("toolu_3")).outcome.get("context").is_none());
}

/// `asyncRewake` runs like an ordinary hook, and its exit 2 gives the model
/// the whole of its stderr, however long (recorded:
/// `r11_rewake_exit2_stderr12k`).
#[test]
fn r11_rewake_exit2_stderr12k_reaches_the_model_whole() {
    let c = Claude::new();
    let text = long_text(12_000);
    let dir = c.root.path().join("big");
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(dir.join("err.txt"), &text).expect("write");
    let cmd = write_script(
        &dir,
        "rewake.sh",
        &format!(
            "#!/bin/sh\ncat > /dev/null\ncat '{}' >&2\nexit 2\n",
            dir.join("err.txt").display()
        ),
    )
    .display()
    .to_string();
    let c = c.project_settings(&json!({"hooks": {"PostToolUse": [{"matcher": "Bash",
        "hooks": [{"type": "command", "command": cmd, "asyncRewake": true}]}]}}));
    let f = c.fire(&post("toolu_1"));
    let shown = texts(&f.outcome["context"]);
    let want = format!(
        "<system-reminder>\nPostToolUse:Bash hook blocking error from command: \"{cmd}\": [{cmd}]: {text}\n</system-reminder>"
    );
    assert_eq!(shown.len(), 1, "one text");
    assert!(
        shown[0] == want,
        "the whole stderr: {} of {} bytes",
        shown[0].len(),
        want.len()
    );
}

/// A PostToolUse replacement of an MCP tool's result is not checked
/// against the result's shape (recorded: `r11_mcp_updated_control`,
/// `r11_mcp_updated_string`, `r11_mcp_updated_array`,
/// `r11_mcp_updated_array_strings`, `r11_mcp_updated_null`,
/// `r11_mcp_updated_empty_string`, `r11_mcp_updated_legacy_mcp_string`,
/// `r11_mcp_updated_both_fields`; Claude Code fails the call on
/// `r11_mcp_updated_object`, `r11_mcp_updated_number`,
/// `r11_mcp_updated_bool` and `r11_mcp_updated_legacy_mcp_object`, where
/// latch keeps the original output and says why).
#[test]
fn r11_mcp_updated_output_replaces_an_mcp_result_without_a_shape_check() {
    let original = json!([{"type": "text", "text": "MCP_RESULT ORIGINAL"}]);
    let answer = |fields: Value| {
        let mut out = json!({"hookEventName": "PostToolUse"});
        if let (Some(o), Some(f)) = (out.as_object_mut(), fields.as_object()) {
            o.extend(f.clone());
        }
        json!({"hookSpecificOutput": out}).to_string()
    };
    let cases = [
        // (case, hookSpecificOutput fields, tool_output, an ignored field).
        ("control", json!({}), None, None::<&str>),
        ("string", json!({"updatedToolOutput": "R"}), Some("R"), None),
        (
            "array_strings",
            json!({"updatedToolOutput": ["A", "B"]}),
            Some(r#"["A","B"]"#),
            None,
        ),
        // 2.1.332: an object, a number or `true` is the result as
        // `JSON.stringify` writes it (2.1.197 failed the call).
        (
            "bool",
            json!({"updatedToolOutput": true}),
            Some("true"),
            None,
        ),
        (
            "legacy_mcp_object",
            json!({"updatedMCPToolOutput": {"content": []}}),
            Some(r#"{"content":[]}"#),
            None,
        ),
        (
            "array",
            json!({"updatedToolOutput": [{"type": "text", "text": "R"}]}),
            Some(r#"[{"type":"text","text":"R"}]"#),
            None,
        ),
        (
            "null",
            json!({"updatedToolOutput": null}),
            Some("(mcp__srv__echo_tool completed with no output)"),
            None,
        ),
        (
            "empty_string",
            json!({"updatedToolOutput": ""}),
            Some("(mcp__srv__echo_tool completed with no output)"),
            None,
        ),
        (
            "legacy_mcp_string",
            json!({"updatedMCPToolOutput": "LEGACY"}),
            Some("LEGACY"),
            None,
        ),
        (
            "both_fields",
            json!({"updatedToolOutput": "NEW", "updatedMCPToolOutput": "LEGACY"}),
            Some("NEW"),
            None,
        ),
        (
            "object",
            json!({"updatedToolOutput": {"content": [{"type": "text", "text": "R"}]}}),
            Some(r#"{"content":[{"type":"text","text":"R"}]}"#),
            None,
        ),
        ("number", json!({"updatedToolOutput": 42}), Some("42"), None),
    ];
    for (case, fields, output, ignored) in cases {
        let c = Claude::new();
        let cmd = c.hook("post", &format!("--stdout '{}'", answer(fields)));
        let c = c.project_settings(&settings("PostToolUse", Some("mcp__.*"), &[&cmd]));
        let mut ev = bash_after("x", original.clone());
        ev["tool"]["name"] = json!("mcp__srv__echo_tool");
        ev["tool"]["input"] = json!({"text": "ORIGINAL"});
        let f = c.fire(&ev);
        assert_eq!(
            f.outcome["tool_output"].as_str(),
            output,
            "r11_mcp_updated_{case}: {}",
            f.outcome
        );
        let fields = f.runs()[0]["ignored_fields"].to_string();
        match ignored {
            Some(note) => assert!(fields.contains(note), "r11_mcp_updated_{case}: {fields}"),
            None => assert_eq!(fields, "null", "r11_mcp_updated_{case}"),
        }
    }
}

/// Async answers wait in the session's state, which latch reads only up
/// to 8 MiB: each text is kept up to 1 MiB and all of them up to 4 MiB,
/// so two hooks answering 5 MiB each leave a session that still works.
#[test]
fn huge_async_answers_are_kept_to_a_mebibyte_and_the_session_goes_on() {
    let c = Claude::new();
    let text = long_text(5 << 20);
    let handlers: Vec<Value> = ["one", "two"]
        .iter()
        .map(|name| {
            let cmd = hook_printing(&c, name, POST_CONTEXT, &text);
            json!({"type": "command", "command": cmd, "async": true})
        })
        .collect();
    let c = c.project_settings(
        &json!({"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": handlers}]}}),
    );
    assert!(c.fire(&post("toolu_1")).outcome.get("context").is_none());
    let read = |id: &str| {
        let mut e = post(id);
        e["tool"]["name"] = json!("Read");
        e
    };
    let mut arrived: Vec<String> = Vec::new();
    let start = std::time::Instant::now();
    while arrived.len() < 2 && start.elapsed() < std::time::Duration::from_secs(30) {
        let next = c.context_arriving(&read("toolu_2"));
        arrived.extend(texts(&next).into_iter().map(str::to_owned));
    }
    let kept = format!(
        "<system-reminder>\n{}\n</system-reminder>",
        &text[..1 << 20]
    );
    assert_eq!(arrived.len(), 2);
    assert!(arrived.iter().all(|a| *a == kept), "the first MiB of each");
    let after = c.fire(&read("toolu_3"));
    assert!(after.outcome.get("warnings").is_none(), "{}", after.outcome);
    assert_eq!(after.stderr, "");
}
