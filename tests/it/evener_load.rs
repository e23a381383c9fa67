//! Evener discovery and loading, through the real binary.

use serde_json::json;

use crate::evener_util::{Plugins, pre};

const OK_HOOK: &str = r#"{"type":"command","command":"true"}"#;

fn hooks_for(event: &str, matcher: &str) -> String {
    format!(r#"{{"hooks":{{"{event}":[{{"matcher":"{matcher}","hooks":[{OK_HOOK}]}}]}}}}"#)
}

#[test]
fn the_manifest_names_the_plugin_and_the_default_hooks_file_is_read() {
    let p = Plugins::new().plugin("named", &hooks_for("PreToolUse", "Bash"));
    let f = p.fire(&pre("shell", json!({"command": "ls"})));
    assert_eq!(f.code, 0, "{}", f.stderr);
    assert_eq!(f.runs()[0]["hook"], "named");
    assert_eq!(f.runs()[0]["dialect"], "evener");
}

#[test]
fn a_manifest_hooks_path_wins_over_the_default_file() {
    let p = Plugins::new();
    let dir = p.root.path().join("pl");
    p.write(
        "pl/.claude-plugin/plugin.json",
        br#"{"name":"pl","hooks":"${CLAUDE_PLUGIN_ROOT}/custom/h.json"}"#,
    );
    p.write("pl/custom/h.json", hooks_for("Stop", "*").as_bytes());
    p.write(
        "pl/hooks/hooks.json",
        hooks_for("PreToolUse", "*").as_bytes(),
    );
    let mut p = p;
    p.dirs.push(dir.clone());
    let f = p.fire(&json!({"event": "stop"}));
    assert_eq!(f.runs().len(), 1);
    assert_eq!(
        f.runs()[0]["source"]["file"],
        json!(dir.join("custom/h.json"))
    );
    assert!(
        p.fire(&pre("shell", json!({}))).runs().is_empty(),
        "hooks/hooks.json is not read"
    );
}

#[test]
fn inline_manifest_hooks_win_over_the_default_file_and_codex_manifest_is_a_fallback() {
    let p = Plugins::new();
    let dir = p.root.path().join("inl");
    p.write(
        "inl/.codex-plugin/plugin.json",
        format!(
            r#"{{"name":"inline-one","hooks":{}}}"#,
            hooks_for("Stop", "")
        )
        .as_bytes(),
    );
    p.write("inl/hooks/hooks.json", hooks_for("Stop", "*").as_bytes());
    let mut p = p;
    p.dirs.push(dir.clone());
    let f = p.fire(&json!({"event": "stop"}));
    assert_eq!(f.runs().len(), 1);
    assert_eq!(f.runs()[0]["hook"], "inline-one");
    assert_eq!(
        f.runs()[0]["source"]["file"],
        json!(dir.join(".codex-plugin/plugin.json"))
    );
}

#[test]
fn the_direct_shape_has_events_at_the_top_level() {
    let p = Plugins::new().plugin(
        "direct",
        &format!(r#"{{"PreToolUse":[{{"matcher":"*","hooks":[{OK_HOOK}]}}]}}"#),
    );
    assert_eq!(p.fire(&pre("shell", json!({}))).runs().len(), 1);
}

#[test]
fn reserved_and_unknown_events_warn_loudly_and_never_run() {
    let p = Plugins::new().plugin(
        "warn",
        &format!(r#"{{"hooks":{{"PostToolUseFailure":[{{"hooks":[{OK_HOOK}]}}],"PreToolUze":[{{"hooks":[{OK_HOOK}]}}]}}}}"#),
    );
    let f = p.fire(&pre("shell", json!({})));
    assert!(f.stderr.contains("warning: PostToolUseFailure hook declared for a reserved event evener does not yet fire; this hook will not run."), "{}", f.stderr);
    assert!(f.stderr.contains("warning: \"PreToolUze\" is not a recognized Claude or evener event (likely a typo); this hook will never fire."), "{}", f.stderr);
    assert!(f.stderr.contains("did you mean \"PreToolUse\"?"));
    assert!(
        f.stderr.contains("hooks.json:1:11: "),
        "positions are given: {}",
        f.stderr
    );
    assert!(f.runs().is_empty());
}

#[test]
fn a_handler_without_type_is_a_load_error_naming_path_event_matcher_and_index() {
    let p = Plugins::new().plugin(
        "bad",
        r#"{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"true"},{"command":"x"}]}]}}"#,
    );
    let f = p.fire(&pre("shell", json!({})));
    let file = p.dirs[0].join("hooks/hooks.json");
    assert!(
        f.stderr.contains(&format!(
            "{}:1:88: error: \"PreToolUse\" matcher \"Bash\" handler 1 has no \"type\"; the handler is not loaded",
            file.display()
        )),
        "{}",
        f.stderr
    );
    assert_eq!(f.runs().len(), 1, "the good handler still runs");
}

#[test]
fn a_malformed_hooks_array_is_a_load_error() {
    let p = Plugins::new().plugin("bad", r#"{"hooks":{"PreToolUse":{"matcher":"Bash"}}}"#);
    let f = p.fire(&pre("shell", json!({})));
    assert!(f.stderr.contains("error: malformed hooks array: \"PreToolUse\" must be an array of matcher groups, found an object"), "{}", f.stderr);
}

#[test]
fn invalid_json_names_the_file_line_and_column() {
    let p = Plugins::new().plugin("broken", "{\n  \"hooks\": {,}\n}");
    let f = p.fire(&pre("shell", json!({})));
    let file = p.dirs[0].join("hooks/hooks.json");
    assert!(
        f.stderr
            .contains(&format!("{}:2:13: error: invalid JSON:", file.display())),
        "{}",
        f.stderr
    );
}

#[test]
fn an_invalid_regex_skips_the_group_with_a_warning_naming_plugin_event_and_matcher() {
    let p = Plugins::new().plugin(
        "rx",
        &format!(
            r#"{{"hooks":{{"PreToolUse":[{{"matcher":"(?<!x)Bash","hooks":[{OK_HOOK}]}}]}}}}"#
        ),
    );
    let f = p.fire(&pre("shell", json!({})));
    assert!(
        f.stderr
            .contains("warning: plugin rx: invalid matcher regex \"(?<!x)Bash\" for PreToolUse:"),
        "{}",
        f.stderr
    );
    assert_eq!(f.runs()[0]["status"], "skipped");
    assert_eq!(f.runs()[0]["error"], "invalid_matcher");
}

#[test]
fn reserved_handler_types_are_skipped_with_a_diagnostic() {
    let p = Plugins::new().plugin(
        "rt",
        r#"{"hooks":{"PreToolUse":[{"hooks":[{"type":"http","url":"http://x"},{"type":"agent"}]}]}}"#,
    );
    let f = p.fire(&pre("shell", json!({})));
    assert!(f.stderr.contains("warning: plugin rt: PreToolUse handler type \"http\" is reserved and not run yet; the handler is skipped"), "{}", f.stderr);
    assert_eq!(f.runs()[0]["error"], "unsupported_handler");
    assert_eq!(f.runs()[1]["error"], "unsupported_handler");
}

#[test]
fn reserved_and_unknown_handler_fields_are_kept_and_reported_not_errors() {
    let p = Plugins::new().plugin(
        "rf",
        r#"{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"true","if":"Bash(git *)","statusMessage":"checking","once":true,"async":true,"custom":1}]}]}}"#,
    );
    let f = p.fire(&pre("shell", json!({})));
    for field in ["if", "statusMessage", "once", "async"] {
        assert!(f.stderr.contains(&format!("info: \"PreToolUse\" matcher \"\" handler 0: \"{field}\" is parsed but reserved; it has no effect yet")), "{field}: {}", f.stderr);
    }
    assert!(
        f.stderr
            .contains("unknown field \"custom\" is kept but has no effect")
    );
    assert_eq!(f.runs()[0]["status"], "ok");
}

#[test]
fn a_missing_plugin_directory_is_an_error() {
    let mut p = Plugins::new();
    p.dirs.push(p.root.path().join("nope"));
    let f = p.fire(&json!({"event": "stop"}));
    assert_eq!(f.code, 0);
    assert!(
        f.stderr
            .contains("nope: error: plugin directory does not exist"),
        "{}",
        f.stderr
    );
}
