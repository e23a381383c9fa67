//! The events Claude Code 2.1.332 added: `PreModelSwitch`,
//! `PostModelSwitch` and `PreSkillShellCommand`, fired by the neutral
//! `model_switch_before`, `model_switch_after` and `skill_shell_before`.
//! None of them can be fired offline (`recordings/claude-2.1.332/spec/
//! events.md`, item 1): payloads, matching and texts are read from
//! Claude Code's code, and each test says which part.

use serde_json::{Value, json};

use crate::claude_events::event;
use crate::claude_util::{Claude, keys, texts};

/// Settings with one matcher group of `event` running `command`.
fn group(event: &str, matcher: Option<&str>, command: &str) -> Value {
    let mut g = json!({"hooks": [{"type": "command", "command": command}]});
    if let Some(m) = matcher {
        g["matcher"] = json!(m);
    }
    json!({"hooks": {event: [g]}})
}

/// A switch to `to` from the opus model, by `/model`.
fn switch(kind: &str, to: &str) -> Value {
    event(
        kind,
        json!({
            "source": "command",
            "model_switch": {"from": "claude-opus-4-6", "to": to, "requested": "sonnet"},
        }),
    )
}

/// `Uxi`/`Bxi`/`hbt`: the base fields without a permission mode or a
/// sub-agent's id, then the switch and its cost figures; what the harness
/// leaves out is sent as Claude Code sends it for a session with no
/// history.
#[test]
fn model_switch_payloads_come_in_claude_codes_order() {
    let c = Claude::new();
    let pre = c.hook("pre", "");
    let post = c.hook("post", "");
    let c = c.project_settings(&json!({"hooks": {
        "PreModelSwitch": [{"hooks": [{"type": "command", "command": pre}]}],
        "PostModelSwitch": [{"hooks": [{"type": "command", "command": post}]}],
    }}));
    let mut e = switch("model_switch_before", "claude-sonnet-4-6");
    e["permission_mode"] = json!("plan");
    e["agent_id"] = json!("a1");
    e["agent_type"] = json!("Explore");
    e["prompt_id"] = json!("p1");
    e["context_tokens"] = json!(1200);
    e["estimated_cache_write_usd"] = json!(0.0042);
    e["model_switch"]["prompt_cache_warm"] = json!(true);
    e["model_switch"]["cache_ttl"] = json!("1h");
    e["model_switch"]["pricing"] = json!("catalog");
    let f = c.fire(&e);
    assert_eq!(f.outcome["decision"], "proceed", "{}", f.outcome);
    let got = c.received("pre").expect("PreModelSwitch ran");
    assert_eq!(
        keys(&got),
        [
            "session_id",
            "transcript_path",
            "cwd",
            "prompt_id",
            "agent_type",
            "hook_event_name",
            "from_model",
            "to_model",
            "requested_model",
            "source",
            "context_tokens",
            "prompt_cache_warm",
            "cache_ttl",
            "estimated_cache_write_usd",
            "pricing",
        ]
    );
    assert_eq!(got["hook_event_name"], "PreModelSwitch");
    assert_eq!(got["from_model"], "claude-opus-4-6");
    assert_eq!(got["to_model"], "claude-sonnet-4-6");
    assert_eq!(got["requested_model"], "sonnet");
    assert_eq!(got["source"], "command");
    assert_eq!(got["context_tokens"], 1200);
    assert_eq!(got["prompt_cache_warm"], true);
    assert_eq!(got["cache_ttl"], "1h");
    assert_eq!(got["estimated_cache_write_usd"], 0.0042);
    assert_eq!(got["pricing"], "catalog");

    // The defaults: `requested_model` null for the default model, `auto`
    // after a switch nobody asked for, nothing in the cache.
    c.fire(&event(
        "model_switch_after",
        json!({"model_switch": {"from": "a", "to": "b"}}),
    ));
    let got = c.received("post").expect("PostModelSwitch ran");
    assert_eq!(got["hook_event_name"], "PostModelSwitch");
    assert_eq!(got["requested_model"], Value::Null);
    assert_eq!(got["source"], "auto");
    assert_eq!(got["context_tokens"], 0);
    assert_eq!(got["prompt_cache_warm"], false);
    assert_eq!(got["cache_ttl"], "5m");
    // Written as `JSON.stringify` writes it: `0`, not `0.0`.
    let raw = c.received_raw("post").expect("PostModelSwitch ran");
    assert!(
        raw.contains(r#""estimated_cache_write_usd":0,"pricing":"default"}"#),
        "{raw}"
    );
    assert_eq!(got["pricing"], "default");
}

/// `ZMt`, `gIr`, `Jkn`: matchers are tested against `to_model` without
/// its `[1m]`, and lose their own `[1m]`; a model the harness does not
/// know runs every group.
#[test]
fn model_switch_matchers_test_the_new_model() {
    let c = Claude::new();
    let (opus, sonnet, any) = (c.hook("opus", ""), c.hook("sonnet", ""), c.hook("any", ""));
    let c = c.project_settings(&json!({"hooks": {"PreModelSwitch": [
        {"matcher": "claude-opus-4-6[1m]", "hooks": [{"type": "command", "command": opus}]},
        {"matcher": "claude-sonnet-4-6|claude-haiku-4-5", "hooks": [{"type": "command", "command": sonnet}]},
        {"matcher": "^claude-", "hooks": [{"type": "command", "command": any}]},
    ]}}));
    c.fire(&switch("model_switch_before", "claude-opus-4-6[1m]"));
    assert_eq!(
        (c.runs_of("opus"), c.runs_of("sonnet"), c.runs_of("any")),
        (1, 0, 1)
    );
    c.fire(&switch("model_switch_before", "claude-sonnet-4-6"));
    assert_eq!(
        (c.runs_of("opus"), c.runs_of("sonnet"), c.runs_of("any")),
        (1, 1, 2)
    );
    let mut unknown = switch("model_switch_before", "my-own-model");
    unknown["model_switch"]["known"] = json!(false);
    c.fire(&unknown);
    assert_eq!(
        (c.runs_of("opus"), c.runs_of("sonnet"), c.runs_of("any")),
        (2, 2, 3)
    );
}

/// `Uxi`: a deny, a `decision: "block"` or an exit 2 refuses the switch,
/// a block beating an ask and an ask an allow; a timeout refuses it too,
/// any other failure is said to the user and the switch goes on.
#[test]
fn pre_model_switch_refuses_asks_and_allows() {
    let answer = |decision: &str, reason: &str| {
        format!(
            r#"--stdout '{{"hookSpecificOutput":{{"hookEventName":"PreModelSwitch","permissionDecision":"{decision}","permissionDecisionReason":"{reason}"}}}}'"#
        )
    };
    let fire_with = |args: &[String]| {
        let c = Claude::new();
        let hooks: Vec<Value> = args
            .iter()
            .enumerate()
            .map(|(i, a)| json!({"type": "command", "command": c.hook(&format!("h{i}"), a)}))
            .collect();
        let c = c.project_settings(&json!({"hooks": {"PreModelSwitch": [{"hooks": hooks}]}}));
        (
            c.fire(&switch("model_switch_before", "claude-sonnet-4-6")),
            c,
        )
    };

    let (f, _) = fire_with(&[answer("deny", "not on Fridays"), answer("allow", "")]);
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);
    assert_eq!(texts(&f.outcome["reasons"]), ["not on Fridays"]);

    let (f, _) = fire_with(&[answer("ask", "sure?"), answer("allow", "")]);
    assert_eq!(f.outcome["decision"], "ask", "{}", f.outcome);
    assert_eq!(texts(&f.outcome["reasons"]), ["sure?"]);

    let (f, _) = fire_with(&[answer("allow", "")]);
    assert_eq!(f.outcome["decision"], "allow", "{}", f.outcome);

    let (f, _) = fire_with(&[r#"--stdout '{"decision":"block"}'"#.to_owned()]);
    assert_eq!(texts(&f.outcome["reasons"]), ["Blocked by hook"]);

    // Of two refusals, the first to finish is said.
    let (f, _) = fire_with(&[
        r#"--sleep 0.3 --stdout '{"decision":"block","reason":"second"}'"#.to_owned(),
        r#"--stdout '{"decision":"block","reason":"first"}'"#.to_owned(),
    ]);
    assert_eq!(texts(&f.outcome["reasons"]), ["first"]);

    let (f, c) = fire_with(&["--exit 2 --stderr 'too pricey'".to_owned()]);
    assert_eq!(f.outcome["decision"], "deny");
    assert_eq!(
        texts(&f.outcome["reasons"]),
        [format!(
            "[{}]: too pricey",
            c.hook("h0", "--exit 2 --stderr 'too pricey'")
        )]
    );

    // Any other failure: the switch goes on, the user reads why.
    let (f, _) = fire_with(&["--exit 1 --stderr broken".to_owned()]);
    assert_eq!(f.outcome["decision"], "proceed", "{}", f.outcome);
    assert_eq!(
        f.outcome["warnings"],
        json!([
            "PreModelSwitch hook PreModelSwitch:claude-sonnet-4-6 failed: Failed with non-blocking status code: broken"
        ])
    );
    // `continue` is not read here; `systemMessage` is shown.
    let (f, _) =
        fire_with(&[r#"--stdout '{"continue":false,"systemMessage":"noted"}'"#.to_owned()]);
    assert_eq!(f.outcome["decision"], "proceed", "{}", f.outcome);
    assert!(f.outcome.get("halt").is_none(), "{}", f.outcome);
    assert_eq!(f.outcome["warnings"], json!(["noted"]));
}

/// `Uxi`: a hook that does not answer in time refuses the switch, in
/// Claude Code's words naming the hook by event and model.
#[test]
fn a_pre_model_switch_timeout_refuses_the_switch() {
    let c = Claude::new();
    let slow = c.hook("slow", "--sleep 5");
    let c = c.project_settings(&json!({"hooks": {"PreModelSwitch": [
        {"hooks": [{"type": "command", "command": slow, "timeout": 0.3}]}]}}));
    let f = c.fire(&switch("model_switch_before", "claude-sonnet-4-6"));
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);
    assert_eq!(
        texts(&f.outcome["reasons"]),
        ["PreModelSwitch hook PreModelSwitch:claude-sonnet-4-6 did not respond before its timeout"]
    );
}

/// `Bxi`: contexts and plain stdout of every hook come in one reminder
/// for the next request; an exit 2 blocks nothing.
#[test]
fn post_model_switch_context_comes_in_one_reminder() {
    let c = Claude::new();
    let ctx = c.hook(
        "ctx",
        r#"--stdout '{"hookSpecificOutput":{"hookEventName":"PostModelSwitch","additionalContext":"CTX"}}'"#,
    );
    let plain = c.hook("plain", "--sleep 0.3 --stdout PLAIN");
    let blocked = c.hook("blocked", "--exit 2 --stderr nope");
    let c = c.project_settings(&json!({"hooks": {"PostModelSwitch": [{"hooks": [
        {"type": "command", "command": ctx},
        {"type": "command", "command": plain},
        {"type": "command", "command": blocked},
    ]}]}}));
    let f = c.fire(&switch("model_switch_after", "claude-sonnet-4-6"));
    assert_eq!(f.outcome["decision"], "proceed", "{}", f.outcome);
    let context = f.outcome["context"].as_array().expect("context");
    assert_eq!(context.len(), 1, "{}", f.outcome);
    assert_eq!(context[0]["placement"], "with_prompt");
    assert_eq!(
        context[0]["text"],
        "<system-reminder>\nPostModelSwitch hook additional context: CTX\nPLAIN\n</system-reminder>"
    );
    assert_eq!(
        f.outcome["warnings"],
        json!([format!("PostModelSwitch hook error: [{blocked}]: nope")])
    );
}

/// A skill's `` !`git push` ``, typed by the user.
fn skill_command(command: &str) -> Value {
    event(
        "skill_shell_before",
        json!({
            "permission_mode": "default",
            "tool": {"name": "Bash", "input": {"command": command}, "call_id": "toolu_1:preamble-0"},
            "expansion": {"command_name": "deploy", "command_source": "projectSettings", "invoked_by": "user"},
        }),
    )
}

/// `lXo`: the command as a Bash call, then the skill that holds it.
#[test]
fn skill_shell_payload_and_matcher() {
    let c = Claude::new();
    let (bash, other) = (c.hook("bash", ""), c.hook("other", ""));
    let c = c.project_settings(&json!({"hooks": {"PreSkillShellCommand": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": bash}]},
        {"matcher": "PowerShell", "hooks": [{"type": "command", "command": other}]},
    ]}}));
    let f = c.fire(&skill_command("git push"));
    assert_eq!(f.outcome["decision"], "proceed", "{}", f.outcome);
    let got = c.received("bash").expect("the Bash group ran");
    assert_eq!(
        keys(&got),
        [
            "session_id",
            "transcript_path",
            "cwd",
            "permission_mode",
            "hook_event_name",
            "tool_name",
            "tool_input",
            "tool_use_id",
            "command_name",
            "command_source",
            "invoked_by",
        ]
    );
    assert_eq!(got["tool_input"], json!({"command": "git push"}));
    assert_eq!(got["tool_use_id"], "toolu_1:preamble-0");
    assert_eq!(got["command_name"], "deploy");
    assert_eq!(got["invoked_by"], "user");
    assert_eq!(c.runs_of("other"), 0);
}

/// `TWn`, `p5i`, `m9o.refusalOf`: whatever refuses the command, the model
/// reads `[not run: blocked by hook: <reason>]` in its place and the user
/// a line naming the skill and the command.
#[test]
fn a_refused_skill_command_is_replaced_and_said() {
    let fire_one = |args: &str| {
        let c = Claude::new();
        let hook = c.hook("h", args);
        let c = c.project_settings(&group("PreSkillShellCommand", None, &hook));
        c.fire(&skill_command("git push --force"))
    };
    let said = |f: &crate::util::Fired| {
        (
            texts(&f.outcome["reasons"])
                .into_iter()
                .map(str::to_owned)
                .collect::<Vec<_>>(),
            f.outcome["warnings"].clone(),
        )
    };
    let cases: [(&str, &str, &str); 6] = [
        (
            r#"--stdout '{"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand","permissionDecision":"deny","permissionDecisionReason":"no force"}}'"#,
            "[not run: blocked by hook: no force]",
            "(blocked by hook: no force)",
        ),
        // A PreToolUse guard's answer serves as is.
        (
            r#"--stdout '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}'"#,
            "[not run: blocked by hook: the hook asked for approval, which a skill can't wait for]",
            "(the hook asked for approval, which a skill can't wait for)",
        ),
        (
            r#"--stdout '{"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand","updatedInput":{"command":"ls"}}}'"#,
            "[not run: blocked by hook: the hook changed the command, which isn't supported here]",
            "(the hook changed the command, which isn't supported here)",
        ),
        (
            r#"--stdout '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedPermissions":[{"type":"setMode","mode":"plan","destination":"session"}]}}}'"#,
            "[not run: blocked by hook: the hook asked to change permissions, which isn't supported here]",
            "(the hook asked to change permissions, which isn't supported here)",
        ),
        (
            r#"--stdout '{"decision":"block"}'"#,
            "[not run: blocked by hook]",
            "(blocked by hook)",
        ),
        (
            "--exit 2 --stderr 'not now'",
            "[not run: blocked by hook: not now]",
            "(blocked by hook: not now)",
        ),
    ];
    for (args, model, user) in cases {
        let f = fire_one(args);
        assert_eq!(f.outcome["decision"], "deny", "{args}: {}", f.outcome);
        let (reasons, warnings) = said(&f);
        assert_eq!(reasons, [model], "{args}");
        assert_eq!(
            warnings,
            json!([format!("Not run in /deploy: git push --force {user}")]),
            "{args}"
        );
    }
    // An allow changes nothing.
    let f = fire_one(
        r#"--stdout '{"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand","permissionDecision":"allow"}}'"#,
    );
    assert_eq!(f.outcome["decision"], "proceed", "{}", f.outcome);
    assert!(f.outcome.get("warnings").is_none(), "{}", f.outcome);
}

/// `m9o.failureIn`, `mayRun`: a hook that fails or runs out of time lets
/// the command run, and the user reads why it was not checked; a
/// `systemMessage` is said with the hook's name, and `continue: false`
/// stops the command.
#[test]
fn a_failed_skill_hook_lets_the_command_run() {
    let run = |hooks: &[(&str, f64)]| {
        let c = Claude::new();
        let handlers: Vec<Value> = hooks
            .iter()
            .enumerate()
            .map(|(i, (args, timeout))| {
                json!({"type": "command", "command": c.hook(&format!("h{i}"), args), "timeout": timeout})
            })
            .collect();
        let c =
            c.project_settings(&json!({"hooks": {"PreSkillShellCommand": [{"hooks": handlers}]}}));
        c.fire(&skill_command("make deploy"))
    };
    let f = run(&[("--exit 1 --stderr 'no config'", 10.0)]);
    assert_eq!(f.outcome["decision"], "proceed", "{}", f.outcome);
    assert_eq!(
        f.outcome["warnings"],
        json!(["Ran anyway in /deploy: make deploy (hook failed: no config)"])
    );
    let f = run(&[("--sleep 5", 0.3)]);
    assert_eq!(
        f.outcome["warnings"],
        json!(["Ran anyway in /deploy: make deploy (hook timed out)"])
    );
    let f = run(&[(r#"--stdout '{"systemMessage":"checked"}'"#, 10.0)]);
    assert_eq!(
        f.outcome["warnings"],
        json!(["PreSkillShellCommand:Bash says: checked"])
    );
    let f = run(&[(
        r#"--stdout '{"continue":false,"stopReason":"enough"}'"#,
        10.0,
    )]);
    assert_eq!(
        f.outcome["halt"]["message"], "Operation stopped by hook: enough",
        "{}",
        f.outcome
    );
    // A failure and a stop: the command neither ran nor was checked.
    let f = run(&[
        ("--exit 1 --stderr x", 10.0),
        (r#"--stdout '{"continue":false}'"#, 10.0),
    ]);
    assert_eq!(
        f.outcome["warnings"],
        json!(["Not run in /deploy, and not checked: make deploy"])
    );
}

/// `zgl`: a prompt handler refuses the command without running.
#[test]
fn prompt_handlers_refuse_a_skill_command() {
    let c = Claude::new().project_settings(&json!({"hooks": {"PreSkillShellCommand": [
        {"hooks": [{"type": "prompt", "prompt": "Is $ARGUMENTS safe?"}]}]}}));
    let f = c.fire(&skill_command("ls"));
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);
    assert_eq!(
        texts(&f.outcome["reasons"]),
        ["[not run: blocked by hook: prompt and agent hooks don't run on PreSkillShellCommand]"]
    );
}

/// A wrong entry under `PreSkillShellCommand` drops the whole file, as
/// under `PreToolUse` (2.1.332's guard events), and the file is named.
#[test]
fn a_wrong_skill_shell_entry_drops_the_file() {
    let c = Claude::new();
    let stop = c.hook("stop", "");
    let c = c.project_settings(&json!({"hooks": {
        "PreSkillShellCommand": [{"hooks": [{"type": "command"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": stop}]}],
    }}));
    let f = c.fire(&event("stop", json!({})));
    assert_eq!(c.runs_of("stop"), 0, "{}", f.outcome);
    assert!(f.stderr.contains("settings.json"), "{}", f.stderr);
}

/// `qXo`: `if` conditions are evaluated on `PreSkillShellCommand`, in
/// permission-rule syntax, against the command.
#[test]
fn if_conditions_test_a_skill_command() {
    let c = Claude::new();
    let push = c.hook("push", "");
    let c = c.project_settings(&json!({"hooks": {"PreSkillShellCommand": [
        {"hooks": [{"type": "command", "command": push, "if": "Bash(git push:*)"}]}]}}));
    c.fire(&skill_command("ls -la"));
    assert_eq!(c.runs_of("push"), 0);
    c.fire(&skill_command("cd app && git push --force"));
    assert_eq!(c.runs_of("push"), 1);
}

/// `Sh`: `scratchpad_dir` comes after `cwd` on every event, when the
/// harness gives one (Claude Code 2.1.332, behind its scratchpad feature).
#[test]
fn a_scratchpad_directory_comes_after_cwd() {
    let c = Claude::new();
    let stop = c.hook("stop", "");
    let c = c.project_settings(&group("Stop", None, &stop));
    let mut e = event(
        "stop",
        json!({"scratchpad_dir": "/tmp/scratch", "prompt_id": "p1"}),
    );
    c.fire(&e);
    let got = c.received("stop").expect("Stop ran");
    assert_eq!(
        keys(&got)[..5],
        [
            "session_id",
            "transcript_path",
            "cwd",
            "scratchpad_dir",
            "prompt_id"
        ]
    );
    assert_eq!(got["scratchpad_dir"], "/tmp/scratch");
    e.as_object_mut().map(|o| o.remove("scratchpad_dir"));
    c.fire(&e);
    let got = c.received("stop").expect("Stop ran");
    assert!(got.get("scratchpad_dir").is_none(), "{got}");
}

/// `p5i`, `failureIn`: under `onFailure: "block"` a refused skill command
/// keeps the hook's command before the words; a failure says its first
/// line only.
#[test]
fn a_skill_command_s_on_failure_block_names_the_hook() {
    let c = Claude::new();
    let failing = c.hook("f", "--exit 1 --stderr oops");
    let c = c.project_settings(&json!({"hooks": {"PreSkillShellCommand": [{"hooks": [
        {"type": "command", "command": failing, "onFailure": "block"}]}]}}));
    let f = c.fire(&skill_command("ls"));
    assert_eq!(
        texts(&f.outcome["reasons"]),
        [format!(
            "[not run: blocked by hook: [{failing}]: failed; blocking because onFailure is \"block\" oops]"
        )]
    );

    let c = Claude::new();
    let traceback = c.hook(
        "t",
        r#"--exit 1 --stderr 'Traceback:
  File x
KeyError'"#,
    );
    let c = c.project_settings(&group("PreSkillShellCommand", None, &traceback));
    let f = c.fire(&skill_command("ls"));
    assert_eq!(
        f.outcome["warnings"],
        json!(["Ran anyway in /deploy: ls (hook failed: Traceback:)"])
    );
}

/// A model-switch event names the new model: without `model_switch.to`
/// latch refuses it (exit 3) rather than running every group.
#[test]
fn a_model_switch_without_its_model_is_refused() {
    let c = Claude::new();
    let f = c.fire(&event("model_switch_before", json!({})));
    assert_eq!(f.code, 3, "{}", f.stderr);
    assert!(
        f.stderr.contains(
            "a `model_switch_before` event needs a `model_switch` object with at least `to`"
        ),
        "{}",
        f.stderr
    );
}
