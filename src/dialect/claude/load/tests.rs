use super::*;

/// `text` read as the managed settings file.
fn managed(text: &str) -> (LoadedFile, Vec<Diagnostic>) {
    load_text(
        text,
        Path::new("/etc/claude-code/managed-settings.json"),
        Scope::Managed,
        None,
    )
}

fn load(text: &str) -> (LoadedFile, Vec<Diagnostic>) {
    load_text(
        text,
        Path::new("/p/.claude/settings.json"),
        Scope::Project,
        None,
    )
}

#[test]
fn one_invalid_handler_drops_the_whole_file_with_located_errors() {
    let (file, diags) = load(
        "{\"hooks\": {\"PreToolUse\": [{\"hooks\": [\n  {\"type\": \"command\", \"command\": \"true\"},\n  {\"type\": \"command\", \"command\": \"x\", \"timeout\": \"1\"}]}]}}",
    );
    assert!(file.dropped);
    assert!(file.groups.is_empty());
    let errors: Vec<String> = diags
        .iter()
        .map(|d| format!("{:?} {}", d.position.map(|p| (p.line, p.column)), d.message))
        .collect();
    assert!(
        errors.iter().any(|e| e.contains("(3, 50)")
            && e.contains("`timeout` must be a positive number of seconds, not a string")),
        "{errors:?}"
    );
    assert!(
        errors.iter().any(|e| e.contains("ignores this whole file")),
        "{errors:?}"
    );
}

#[test]
fn unknown_events_are_tolerated() {
    let (file, diags) = load(
        r#"{"hooks": {"PreToolUze": [{"hooks": [{"type": "command", "command": "a"}]}], "Stop": [{"hooks": [{"type": "command", "command": "b"}]}]}}"#,
    );
    assert!(!file.dropped);
    // Claude Code drops the unknown event before it checks the file.
    assert_eq!(file.groups.len(), 1);
    assert_eq!(file.groups[0].event_name, "Stop");
    assert!(diags[0].message.contains("unknown event `PreToolUze`"));
    assert_eq!(diags[0].hint.as_deref(), Some("did you mean `PreToolUse`?"));
}

/// The events Claude Code 2.1.332 added load like the others.
#[test]
fn the_events_of_2_1_332_load() {
    let (file, diags) = load(
        r#"{"hooks":{"PreModelSwitch":[{"matcher":"claude-opus-4-6[1m]","hooks":[{"type":"command","command":"a"}]}],"PostModelSwitch":[{"hooks":[{"type":"command","command":"b"}]}],"PreSkillShellCommand":[{"matcher":"Bash","hooks":[{"type":"command","command":"c"}]}]}}"#,
    );
    assert!(!file.dropped);
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(file.groups.len(), 3);
    // The matcher as written is kept for display.
    assert_eq!(
        file.groups[0].matcher_text.as_deref(),
        Some("claude-opus-4-6[1m]")
    );
}

/// A model-switch matcher loses its `[1m]`/`[2m]` suffixes before a
/// separator or the end (Claude Code 2.1.332's `gIr`), unless that
/// leaves it blank.
#[test]
fn model_matchers_lose_their_context_suffix() {
    assert_eq!(model_matcher("claude-opus-4-6[1m]"), "claude-opus-4-6");
    assert_eq!(
        model_matcher("opus[1M] | sonnet[2m],haiku"),
        "opus | sonnet,haiku"
    );
    assert_eq!(model_matcher("a[1m]b"), "a[1m]b");
    assert_eq!(model_matcher("[1m]"), "[1m]");
    assert_eq!(model_matcher("x[3m]"), "x[3m]");
}

/// A wrong entry under an event that guards nothing drops that entry
/// alone (or its matcher group), in a settings file and in a plugin;
/// under `PreToolUse` or `PermissionRequest` it drops the file
/// (Claude Code 2.1.332; recorded: `r2_invalid_hook_entry`).
#[test]
fn a_wrong_entry_drops_itself_except_under_a_guard_event() {
    let good = r#"{"type":"command","command":"ok"}"#;
    for (path, scope) in [
        ("/p/.claude/settings.json", Scope::Project),
        ("/p/hooks/hooks.json", Scope::Plugin),
    ] {
        for (event, groups) in [
            (
                "Stop",
                format!(r#"[{{"hooks":[{{"type":"bogus"}},{good}]}}]"#),
            ),
            (
                "DirectoryAdded",
                format!(r#"[{{"hooks":[{{"type":"command"}},{good}]}}]"#),
            ),
            (
                "Stop",
                format!(r#"[{{"matcher":5,"hooks":[{good}]}},{{"hooks":[{good}]}}]"#),
            ),
            ("Stop", format!(r#"[7,{{"hooks":[{good}]}}]"#)),
        ] {
            let text = format!(r#"{{"env":{{"N":"x"}},"hooks":{{"{event}":{groups}}}}}"#);
            let (file, diags) = load_text(&text, Path::new(path), scope, None);
            assert!(!file.dropped, "{path} {text}: {diags:?}");
            let handlers: usize = file.groups.iter().map(|g| g.handlers.len()).sum();
            assert_eq!(handlers, 1, "{path} {text}");
            assert!(
                diags
                    .iter()
                    .any(|d| d.severity == crate::diag::Severity::Warning
                        && d.message.contains("Claude Code ignores this")),
                "{path} {text}: {diags:?}"
            );
        }
        for event in ["PreToolUse", "PermissionRequest", "PreSkillShellCommand"] {
            let text =
                format!(r#"{{"hooks":{{"{event}":[{{"hooks":[{{"type":"bogus"}},{good}]}}]}}}}"#);
            let (file, diags) = load_text(&text, Path::new(path), scope, None);
            assert!(file.dropped, "{path} {text}: {diags:?}");
        }
    }
}

/// A settings file is read as if cut at 64 levels (2.1.332, `xje`): a
/// value cut out of a setting that may be `null` is a warning; one a
/// hook needs fails its entry, and the file under a guard event; a
/// `hooks` of nested arrays fails the file.
#[test]
fn a_file_is_read_cut_at_sixty_four_levels() {
    // `{"k":{"k":…[1]…}}`, the list at level `level` of the file.
    let deep = |level: usize| {
        format!(
            "{}[1]{}",
            r#"{"k":"#.repeat(level - 2),
            "}".repeat(level - 2)
        )
    };
    let project = |text: &str| {
        load_text(
            text,
            Path::new("/p/.claude/settings.json"),
            Scope::Project,
            None,
        )
    };
    let stop = r#"{"Stop":[{"hooks":[{"type":"command","command":"c"}]}]}"#;
    let (file, diags) = project(&format!(
        r#"{{"statusLine":{{"type":"command","command":"s","x":{}}},"hooks":{stop}}}"#,
        deep(63)
    ));
    assert!(diags.is_empty() && !file.dropped, "{diags:?}");
    let (file, diags) = project(&format!(
        r#"{{"statusLine":{{"type":"command","command":"s","x":{}}},"hooks":{stop}}}"#,
        deep(64)
    ));
    assert!(!file.dropped && file.groups.len() == 1, "{diags:?}");
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert!(
        diags[0].message.starts_with(
            "A value under \"statusLine\" is nested more than 64 levels deep, so Claude Code ignores it, and leaves it out"
        ) && diags[0].severity == crate::diag::Severity::Warning,
        "{diags:?}"
    );
    // In a hook entry: an `mcp_tool` input is cut too.
    let (file, diags) = project(&format!(
        r#"{{"hooks":{{"Stop":[{{"hooks":[{{"type":"mcp_tool","server":"s","tool":"t","input":{{"a":1,"k":{}}}}}]}}]}}}}"#,
        deep(59)
    ));
    assert!(!file.dropped, "{diags:?}");
    let HandlerKind::McpTool { input, .. } = &file.groups[0].handlers[0].kind else {
        panic!("{:?}", file.groups[0].handlers[0].kind);
    };
    assert_eq!(input["a"], 1);
    assert!(input.to_string().contains(r#"{"k":null}"#), "{input}");
    assert!(
        diags
            .iter()
            .any(|d| d.message.starts_with("A value under \"hooks\"")),
        "{diags:?}"
    );
    // `hooks` as nested arrays.
    let (file, diags) = project(&format!(
        r#"{{"hooks":[{}]}}"#,
        "[".repeat(70) + &"]".repeat(70)
    ));
    assert!(file.dropped, "{diags:?}");
    assert!(
        diags.iter().any(|d| d
            .message
            .starts_with("\"hooks\" is written as nested arrays")),
        "{diags:?}"
    );
}

/// Every wrong entry under an event that guards nothing drops itself,
/// whether the loader or only the schema rejects it, and however many
/// there are: the entries beside them still run (2.1.332, `N4s`).
#[test]
fn each_wrong_entry_under_one_event_drops_itself() {
    let good = |c: &str| format!(r#"{{"type":"command","command":"{c}"}}"#);
    let text = format!(
        r#"{{"hooks":{{"Stop":[
            {{"hooks":[{a},{{"type":"command","command":"x","rewakeMessage":5}},{b}]}},
            {{"hooks":[{{"type":"command","command":"y","statusMessage":[]}},{c},{{"type":"command"}},{{"type":"command","command":"z","rewakeMessage":true}}]}},
            {{"hooks":[{{"type":"command","command":"w","rewakeMessage":1}}]}}
        ]}}}}"#,
        a = good("a"),
        b = good("b"),
        c = good("c"),
    );
    for (path, scope) in [
        ("/p/.claude/settings.json", Scope::Project),
        ("/p/hooks/hooks.json", Scope::Plugin),
    ] {
        each_wrong_entry_drops_itself_in(&text, path, scope);
        // Under a guard event, one such entry drops the file.
        let guard = r#"{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"x","rewakeMessage":5}]}]}}"#;
        let (file, diags) = load_text(guard, Path::new(path), scope, None);
        assert!(file.dropped, "{path}: {diags:?}");
    }
}

fn each_wrong_entry_drops_itself_in(text: &str, path: &str, scope: Scope) {
    let (file, diags) = load_text(text, Path::new(path), scope, None);
    assert!(!file.dropped, "{diags:?}");
    let commands: Vec<_> = file
        .groups
        .iter()
        .flat_map(|g| &g.handlers)
        .map(|h| match &h.kind {
            HandlerKind::Command { command, .. } => command.as_str(),
            _ => "?",
        })
        .collect();
    assert_eq!(commands, ["a", "b", "c"], "{diags:?}");
    // One warning for each of the five wrong entries, none twice.
    let warnings: Vec<_> = diags
        .iter()
        .filter(|d| d.message.contains("Claude Code ignores this entry"))
        .collect();
    assert_eq!(warnings.len(), 5, "{diags:?}");
    assert!(
        diags
            .iter()
            .all(|d| d.severity == crate::diag::Severity::Warning),
        "{diags:?}"
    );
    // A group left with no hook stays, as in Claude Code, and runs
    // nothing.
    assert_eq!(file.groups.len(), 3);
}

/// Managed settings drop a wrong setting alone (Claude Code 2.1.332's
/// check of them; recorded: `r14k_m_model_num`, `m332_env_list`,
/// `m332_disable_str`): `env`, a flag; a wrong hook entry drops itself
/// under an event that does not guard (`r14k_m_badhook_same_group`,
/// `m332_badhook_stop`), the file's `hooks` under one that does
/// (`r14k_m_badhook_other_event`); the rest applies.
#[test]
fn managed_settings_drop_each_wrong_setting_alone() {
    let stop = r#"{"Stop":[{"hooks":[{"type":"command","command":"c"}]}]}"#;
    // A wrong setting beside the hooks: they run.
    let (file, diags) = managed(&format!(
        r#"{{"env":{{"M":"1"}},"model":5,"hooks":{stop}}}"#
    ));
    assert!(!file.dropped && file.groups.len() == 1, "{diags:?}");
    assert_eq!(file.env, [("M".to_owned(), "1".to_owned())]);
    assert!(
        diags[0]
            .message
            .starts_with("`model` must be a string, not a number; in managed settings"),
        "{diags:?}"
    );
    let handlers = |file: &LoadedFile| -> Vec<usize> {
        file.groups.iter().map(|g| g.handlers.len()).collect()
    };
    // A wrong hook entry, for the loader or for the schema: under
    // `Stop` it is dropped alone, under `PreToolUse` the file's
    // `hooks`; the rest applies.
    for (event, entry, left) in [
        ("Stop", r#""timeout":"5""#, vec![1, 1]),
        ("Stop", r#""rewakeMessage":5"#, vec![1, 1]),
        ("PreToolUse", r#""timeout":"5""#, vec![]),
        ("PreToolUse", r#""rewakeMessage":5"#, vec![]),
    ] {
        let text = format!(
            r#"{{"env":{{"M":"1"}},"hooks":{{"{event}":[{{"hooks":[{{"type":"command","command":"c",{entry}}},{{"type":"command","command":"d"}}]}}],"Notification":[{{"hooks":[{{"type":"command","command":"n"}}]}}]}}}}"#
        );
        let (file, diags) = managed(&text);
        assert!(!file.dropped, "{text}: {diags:?}");
        assert_eq!(handlers(&file), left, "{text}: {diags:?}");
        assert_eq!(file.env.len(), 1, "{text}");
        assert!(
            diags
                .iter()
                .all(|d| d.severity == crate::diag::Severity::Warning),
            "{diags:?}"
        );
    }
    // A wrong flag is ignored alone; a wrong `env` drops the variables.
    let (file, diags) = managed(&format!(
        r#"{{"disableAllHooks":"no","env":[],"hooks":{stop}}}"#
    ));
    assert!(!file.dropped && file.groups.len() == 1, "{diags:?}");
    assert_eq!(file.disable_all_hooks, None);
    assert!(file.env.is_empty());
    assert_eq!(diags.len(), 2, "{diags:?}");
    // Elsewhere the same file is dropped whole, with every problem named.
    let (file, diags) = load(r#"{"model":5,"env":[]}"#);
    assert!(file.dropped);
    assert_eq!(
        diags
            .iter()
            .filter(|d| d.severity == crate::diag::Severity::Error)
            .count(),
        3,
        "{diags:?}"
    );
}

/// A settings file's broken `hooks` parts are dropped, and the rest
/// loads (`r13_settings_event_*`, `r13_settings_hooks_*`,
/// `r13_settings_unknown_event_*`); a plugin's hooks file is dropped
/// whole.
#[test]
fn settings_drop_broken_hooks_parts_and_plugins_the_whole_file() {
    let stop = r#"[{"hooks": [{"type": "command", "command": "b"}]}]"#;
    for (hooks, kept, warning) in [
        (
            "[]".to_owned(),
            0,
            "`hooks` must be an object of events, not an array; Claude Code ignores it and loads the rest of the file",
        ),
        (
            "null".to_owned(),
            0,
            "`hooks` must be an object of events, not null; Claude Code ignores it",
        ),
        (
            format!(r#"{{"Notification": {{}}, "Stop": {stop}}}"#),
            1,
            "`Notification` must be an array of matcher groups, not an object; Claude Code ignores this event's hooks and loads the rest",
        ),
        (
            format!(r#"{{"PreToolUse": null, "Stop": {stop}}}"#),
            1,
            "`PreToolUse` must be an array of matcher groups, not null",
        ),
        (
            format!(r#"{{"NoSuchEvent": 5, "Stop": {stop}}}"#),
            1,
            "unknown event `NoSuchEvent`",
        ),
        (
            format!(r#"{{"NoSuchEvent": [{{"hooks": [{{"type": "bogus"}}]}}], "Stop": {stop}}}"#),
            1,
            "unknown event `NoSuchEvent`",
        ),
    ] {
        let text = format!(r#"{{"env": {{"N": "x"}}, "hooks": {hooks}}}"#);
        let (file, diags) = load(&text);
        assert!(!file.dropped, "{text}: {diags:?}");
        assert_eq!(file.groups.len(), kept, "{text}");
        assert_eq!(file.env, [("N".to_owned(), "x".to_owned())], "{text}");
        assert!(
            diags
                .iter()
                .all(|d| d.severity == crate::diag::Severity::Warning),
            "{text}: {diags:?}"
        );
        assert!(diags[0].message.contains(warning), "{text}: {diags:?}");
        // A plugin's hooks file is dropped whole for a `hooks` that is
        // not an object, and for a guard event's wrong list; another
        // event's wrong list drops that event (2.1.332).
        let (plugin, diags) =
            load_text(&text, Path::new("/p/hooks/hooks.json"), Scope::Plugin, None);
        let whole = !hooks.starts_with('{') || hooks.contains("PreToolUse");
        assert_eq!(plugin.dropped, whole, "a plugin's {text}: {diags:?}");
    }
    // 2.1.332: a guard event's list that is not an array drops the
    // settings file, `env` and all (`drift_guard_event_object_env`,
    // `r13_settings_event_object`).
    let (file, diags) = load(&format!(
        r#"{{"env": {{"N": "x"}}, "hooks": {{"PreToolUse": {{}}, "Stop": {stop}}}}}"#
    ));
    assert!(file.dropped, "{diags:?}");
}

/// Claude Code 2.1.332 looks for PreToolUse, PermissionRequest and
/// PreSkillShellCommand hooks where none is read and drops the file
/// when it seems to find one (`bwe`, `Tr`, `N4s` in its code); each
/// verdict here is its own `TA`'s (run on the code
/// `extract_settings_schema.js` carves out).
#[test]
fn a_guard_hook_where_none_is_read_drops_the_file() {
    let many = "a".repeat(501);
    for (text, dropped) in [
        (
            r#"{"env":{"N":"x"},"PreToolUse":[{"hooks":[{"type":"command","command":"c"}]}]}"#,
            true,
        ),
        // A matcher group anywhere in another setting…
        (
            r#"{"statusLine":{"type":"command","command":"x","hooks":[1]}}"#,
            true,
        ),
        // …but in the settings it does not search.
        (r#"{"env":{"hooks":[1]}}"#, false),
        (r#"{"hooks":[{"matcher":"Bash","hooks":[]}]}"#, true),
        (r#"{"hooks":[[{"PreToolUse":[1]}]]}"#, true),
        (r#"{"hooks":[1,"x"]}"#, false),
        (r#"{"hooks":[]}"#, false),
        (
            r#"{"hooks":{"Bogus":[{"hooks":[{"type":"command","command":"x"}]}]}}"#,
            false,
        ),
        (
            r#"{"hooks":{"Bogus":[{"PreToolUse":[{"hooks":[]}]}]}}"#,
            true,
        ),
        (r#"{"hooks":{"Stop":{"PreToolUse":[1]}}}"#, true),
        (r#"{"hooks":{"Stop":{"x":1}}}"#, false),
        (
            r#"{"hooks":{"Stop":[{"PreToolUse":[1],"hooks":[]}]}}"#,
            true,
        ),
        // The `null` of a setting that restricts is removed first (`Fr`);
        // `disableAllHooks` is not one.
        (r#"{"allowManagedHooksOnly":null}"#, false),
        (r#"{"disableAllHooks":null}"#, true),
        (
            &format!(
                r#"{{"strictKnownMarketplaces":[{{"source":"url","url":"https://x","headersHelper":"{many}"}}]}}"#
            ),
            true,
        ),
    ] {
        let (file, diags) = load(text);
        assert_eq!(
            file.dropped,
            dropped,
            "{}: {diags:?}",
            &text[..text.len().min(120)]
        );
    }
    // Managed settings keep such a file, and its `hooks`, with a
    // warning (`m332_guard_outside_hooks`).
    let (file, diags) = load_text(
        r#"{"PreToolUse":[{"hooks":[{"type":"command","command":"c"}]}],"hooks":{"Stop":[{"hooks":[{"type":"command","command":"s"}]}]}}"#,
        Path::new("/etc/claude-code/managed-settings.json"),
        Scope::Managed,
        None,
    );
    assert!(!file.dropped && file.groups.len() == 1, "{diags:?}");
    assert!(
        diags
            .iter()
            .any(|d| d.severity == crate::diag::Severity::Warning
                && d.message.contains("outside `hooks`")),
        "{diags:?}"
    );
}

/// How Claude Code 2.1.332 reads a managed file's `hooks` and its
/// switches (recorded: `r14k_m_event_object`, `m332_pre_null`,
/// `m332_stop_object`, `m332_two_bad_same_group`,
/// `m332_bad_group_matcher`, `m332_unknown_event`, `m332_amho_str`,
/// `m332_amho_null`, `m332_disable_null`, `m332_pre_bad_hooks_only`,
/// `r14k_m_badjson`).
#[test]
fn managed_hooks_drop_what_they_must_and_no_more() {
    let ups = r#""UserPromptSubmit":[{"hooks":[{"type":"command","command":"u"}]}]"#;
    let errors = |diags: &[Diagnostic]| {
        diags
            .iter()
            .filter(|d| d.severity == crate::diag::Severity::Error)
            .count()
    };
    // (the file's `hooks` besides `ups`, the groups left)
    for (hooks, groups) in [
        // A guard event's wrong list drops `hooks`, its `null` itself.
        (r#""PreToolUse":{}"#, 0),
        (r#""PreToolUse":null"#, 1),
        // Another event's wrong list, or an unknown event, itself.
        (r#""Stop":{}"#, 1),
        (r#""NotAnEvent":[{"hooks":[]}]"#, 1),
        // Each wrong entry alone; a wrong matcher group alone.
        (
            r#""Stop":[{"hooks":[{"type":"command"},{"type":"command","command":"s"},{"type":"command","command":5}]}]"#,
            2,
        ),
        (
            r#""Stop":[{"matcher":5,"hooks":[{"type":"command","command":"s"}]}]"#,
            1,
        ),
        // A guard hook where a matcher group belongs drops `hooks`.
        (r#""Stop":[{"PreToolUse":[{"hooks":[]}]}]"#, 0),
    ] {
        let text = format!(r#"{{"env":{{"M":"1"}},"hooks":{{{hooks},{ups}}}}}"#);
        let (file, diags) = managed(&text);
        assert!(!file.dropped, "{text}: {diags:?}");
        assert_eq!(file.groups.len(), groups, "{text}: {diags:?}");
        assert_eq!(file.env.len(), 1, "{text}");
        assert_eq!(errors(&diags), 0, "{text}: {diags:?}");
    }
    // A wrong `allowManagedHooksOnly` is `true`; its `null` is no
    // setting; a wrong or `null` `disableAllHooks` is ignored.
    for (setting, only, warned) in [
        (r#""allowManagedHooksOnly":"yes""#, Some(true), true),
        (r#""allowManagedHooksOnly":null"#, None, false),
        (r#""disableAllHooks":null"#, None, true),
    ] {
        let text = format!(r#"{{{setting},"hooks":{{{ups}}}}}"#);
        let (file, diags) = managed(&text);
        assert_eq!(file.allow_managed_hooks_only, only, "{text}");
        assert_eq!(file.disable_all_hooks, None, "{text}");
        assert_eq!(file.groups.len(), 1, "{text}");
        assert_eq!(!diags.is_empty(), warned, "{text}: {diags:?}");
    }
    // `hooks` that cannot be loaded for a guard, and nothing else:
    // Claude Code does not start; so with a file that is not JSON.
    for text in [
        format!(
            r#"{{"env":{{}},"hooks":{{"PreToolUse":[{{"hooks":[{{"type":"command"}}]}}],{ups}}}}}"#
        ),
        r#"{"env":{"M":"1"}"#.to_owned(),
        "[]".to_owned(),
    ] {
        let (file, diags) = managed(&text);
        assert!(file.dropped && file.groups.is_empty(), "{text}");
        let says = |d: &Diagnostic| {
            let hint = d.hint.as_deref().unwrap_or_default();
            d.severity == crate::diag::Severity::Error
                && (d.message.contains("does not start") || hint.contains("does not start"))
        };
        assert!(diags.iter().any(says), "{text}: {diags:?}");
    }
}

/// What Claude Code 2.1.332 cleans before its check keeps the file
/// (recorded: `claude-2.1.332/settings-cases.jsonl`).
#[test]
fn what_claude_code_cleans_first_keeps_the_file() {
    for (text, dropped) in [
        (r#"{"additionalMarketplaces":5}"#, false),
        (
            r#"{"allowedMarketplaces":5,"strictKnownMarketplaces":[]}"#,
            false,
        ),
        (r#"{"allowedMarketplaces":[5]}"#, true),
        (r#"{"managedMcpServers":5,"deniedModels":5}"#, false),
        (r#"{"strictKnownMarketplaces":null}"#, false),
        (r#"{"enabledMcpjsonServers":"abc"}"#, false),
        (r#"{"enabledMcpjsonServers":"a b"}"#, true),
        (r#"{"permissions":{"defaultMode":"manual"}}"#, false),
        (r#"{"permissions":{"defaultMode":"yolo"}}"#, true),
        (
            r#"{"modelPicker":{"options":[{"model":"m"},5],"replaceBuiltInOptions":"x"}}"#,
            false,
        ),
        (
            r#"{"modelPricing":{"multiplier":50,"overrides":{"m":5}}}"#,
            false,
        ),
        (r#"{"remoteControl":5}"#, false),
        (
            r#"{"extraKnownMarketplaces":{"m":{"source":{"source":"settings","name":"other","plugins":[]}}}}"#,
            false,
        ),
        // A source type Claude Code does not know keeps its entry, which
        // fails the file.
        (
            r#"{"extraKnownMarketplaces":{"m":{"source":{"source":"bogus"}}}}"#,
            true,
        ),
        (
            r#"{"sandbox":{"credentials":{"files":[{"path":"x","mode":"deny","extract":5}]}}}"#,
            false,
        ),
        (
            r#"{"sandbox":{"credentials":{"files":[{"path":"x","mode":"mask","extract":5}]}}}"#,
            true,
        ),
        (
            r#"{"hooks":{"Stop":[{"hooks":[{"type":"mcp_tool","server":"s","tool":"t","onFailure":5}]}]}}"#,
            false,
        ),
    ] {
        let (file, diags) = load(text);
        assert_eq!(file.dropped, dropped, "{text}: {diags:?}");
    }
    // Each removal is told.
    let (_, diags) = load(r#"{"modelPricing":{"multiplier":50}}"#);
    assert!(
        diags
            .iter()
            .any(|d| d.message.contains("`modelPricing.multiplier`")
                && d.message.contains("ignores")),
        "{diags:?}"
    );
}

/// A file of 30,000 matcher groups, one of them with 10,000 entries only
/// the schema rejects, is read in linear time (a quadratic pass would take
/// minutes here): every wrong entry dropped, every good group kept.
#[test]
fn many_groups_and_wrong_entries_are_read_in_linear_time() {
    let good = r#"{"hooks":[{"type":"command","command":"g"}]}"#;
    let wrong = r#"{"type":"command","command":"w","rewakeMessage":5}"#;
    let text = format!(
        r#"{{"hooks":{{"Stop":[{},{{"hooks":[{}]}}]}}}}"#,
        [good; 30_000].join(","),
        [wrong; 10_000].join(",")
    );
    for (path, scope) in [
        ("/p/.claude/settings.json", Scope::Project),
        ("/p/hooks/hooks.json", Scope::Plugin),
    ] {
        let (file, diags) = load_text(&text, Path::new(path), scope, None);
        assert!(!file.dropped);
        assert_eq!(file.groups.len(), 30_001);
        let handlers: usize = file.groups.iter().map(|g| g.handlers.len()).sum();
        assert_eq!(handlers, 30_000);
        assert_eq!(diags.len(), 10_000);
    }
}
