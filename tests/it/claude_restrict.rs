//! `CLAUDE_CODE_RESTRICT_PERSONAL_CONFIG` (Claude Code 2.1.332's setting
//! of its hosted sessions): the user's own hooks block when they fail,
//! their answers lose what widens or changes a call, and a project's
//! `disableAllHooks` spares user, `--settings` and managed hooks.
//! Expectations from `recordings/claude-2.1.332/restrict-332.tar.gz`
//! (cases `rp*`, named per test).

use serde_json::{Value, json};

use crate::claude_util::{Claude, bash_before, settings, texts};

const ON: (&str, &str) = ("CLAUDE_CODE_RESTRICT_PERSONAL_CONFIG", "1");

/// Claude Code's words after the place of a failed personal hook.
const WHY: &str = "blocking because it is one of the user's own hooks, which must succeed in this session (CLAUDE_CODE_RESTRICT_PERSONAL_CONFIG is set). The user needs to fix or remove the hook; Claude should not change it.";

/// What the model reads when the user's PreToolUse hook `hook`, at
/// `place` in the user file `file`, ended as `how` (`failed`, `timed
/// out`), then `detail` on a line of its own if any.
fn blocked(hook: &str, how: &str, place: &str, file: &std::path::Path, detail: &str) -> String {
    let detail = if detail.is_empty() {
        String::new()
    } else {
        format!("\n{detail}")
    };
    format!(
        "PreToolUse:Bash hook error: [{hook}]: {how}; this hook is {place}, counted from 0, in {} (a change saved there usually takes effect without a new session); {WHY}{detail}",
        file.display()
    )
}

/// PreToolUse groups for Bash, one per list of handlers.
fn pre(groups: &[&[Value]]) -> Value {
    let groups: Vec<Value> = groups
        .iter()
        .map(|hs| json!({"matcher": "Bash", "hooks": hs}))
        .collect();
    json!({"hooks": {"PreToolUse": groups}})
}

fn command(c: &str) -> Value {
    json!({"type": "command", "command": c})
}

/// User settings with one PreToolUse hook for Bash, the fixture hook
/// `label` run with `args`; and that hook's command.
fn one_user_hook(label: &str, args: &str) -> (Claude, String) {
    let c = Claude::new();
    let hook = c.hook(label, args);
    let c = c.user_settings(&pre(&[&[command(&hook)]]));
    (c, hook)
}

/// rp01, rp01c, rp06, rp06b, rp02, rp15, rp05, rp22, rp11, rp21: a user
/// hook's failure on PreToolUse blocks, saying where the hook is; not
/// without the variable, nor for a project or `--settings` hook, nor on
/// PostToolUse; a project copy of the user's hook blocks without the
/// place.
#[test]
fn a_failed_user_hook_blocks_and_says_where_it_is() {
    let c = Claude::new();
    let ok = c.hook("ok", "");
    let failing = c.hook("fails", "--exit 1 --stderr 'RP_ERR boom'");
    let c = c.user_settings(&pre(&[&[command(&ok)], &[command(&failing)]]));
    let user_file = c.home().join(".claude/settings.json");
    let f = c.fire_env(&bash_before("ls"), &[ON]);
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);
    assert_eq!(
        texts(&f.outcome["notices"]),
        [blocked(
            &failing,
            "failed",
            "hooks.PreToolUse.1.hooks.0",
            &user_file,
            "RP_ERR boom"
        )]
    );
    // The host's sentence (rp06); off (`0`, or unset) the exit 1 is a
    // non-blocking error (rp01c, rp21).
    let f = c.fire_env(
        &bash_before("ls"),
        &[
            ON,
            (
                "CLAUDE_CODE_PERSONAL_CONFIG_FIX",
                " ask the host to fix it ",
            ),
        ],
    );
    assert!(
        texts(&f.outcome["notices"])[0].contains(", in ")
            && texts(&f.outcome["notices"])[0].contains(" (ask the host to fix it); blocking"),
        "{}",
        f.outcome
    );
    for env in [vec![], vec![("CLAUDE_CODE_RESTRICT_PERSONAL_CONFIG", "0")]] {
        assert_eq!(
            c.fire_env(&bash_before("ls"), &env).outcome["decision"],
            "proceed"
        );
    }

    // The second hook of one group (rp06b); a timeout (rp02).
    let c = Claude::new();
    let slow = c.hook("slow", "--sleep 5");
    let ok = c.hook("ok", "");
    let c = c.user_settings(&pre(&[&[
        command(&ok),
        json!({"type": "command", "command": slow, "timeout": 0.2}),
    ]]));
    let f = c.fire_env(&bash_before("ls"), &[ON]);
    assert_eq!(
        texts(&f.outcome["notices"]),
        [blocked(
            &slow,
            "timed out",
            "hooks.PreToolUse.0.hooks.1",
            &c.home().join(".claude/settings.json"),
            ""
        )]
    );

    // A project hook, a `--settings` hook (rp05, rp22): not personal.
    let c = Claude::new();
    let failing = c.hook("fails", "--exit 1 --stderr E");
    let c = c.project_settings(&pre(&[&[command(&failing)]]));
    assert_eq!(
        c.fire_env(&bash_before("ls"), &[ON]).outcome["decision"],
        "proceed"
    );
    let other = c.hook("flag", "--exit 1 --stderr F");
    let flag = pre(&[&[command(&other)]]).to_string();
    let f = c.fire_env_with(&bash_before("ls"), &["--claude-settings", &flag], &[ON]);
    assert_eq!(f.outcome["decision"], "proceed", "{}", f.outcome);
    assert_eq!(c.runs_of("flag"), 1);
    // The same hook in the user's file too: the copy that runs is the
    // user's own, and its place is not told (rp15).
    let c = c.user_settings(&pre(&[&[command(&failing)]]));
    let f = c.fire_env(&bash_before("ls"), &[ON]);
    assert_eq!(
        texts(&f.outcome["notices"]),
        [format!(
            "PreToolUse:Bash hook error: [{failing}]: failed; {WHY}\nE"
        )]
    );
    // Once here, and twice before it (alone, then beside the flag's).
    assert_eq!(c.runs_of("fails"), 3);

    // PostToolUse is no event where a failure blocks (rp11).
    let c = Claude::new();
    let failing = c.hook("post", "--exit 1 --stderr E");
    let c = c.user_settings(&settings("PostToolUse", Some("Bash"), &[&failing]));
    let mut after = bash_before("ls");
    after["event"] = json!("tool_after");
    after["tool"]["output"] = json!("out");
    let f = c.fire_env(&after, &[ON]);
    assert_ne!(f.outcome["decision"], "deny", "{}", f.outcome);
}

/// rp03, rp04, rp12, rp09: an answer that fails the schema, stdout that
/// looks like JSON and is not, an error with a URL (cut to its scheme,
/// host and path), a UserPromptSubmit hook.
#[test]
fn every_failure_of_a_user_hook_blocks_in_claude_code_s_words() {
    let (c, bad) = one_user_hook("bad", r#"--stdout '{"continue": "yes"}'"#);
    let f = c.fire_env(&bash_before("ls"), &[ON]);
    let said = texts(&f.outcome["notices"]).concat();
    assert!(
        said.contains(&format!("[{bad}]: failed; this hook is hooks.PreToolUse.0.hooks.0"))
            && said.contains(&format!(
                "{WHY}\nHook JSON output validation failed \u{2014} continue: expected boolean, received string"
            )),
        "{said}"
    );

    // rp04: stdout that looks like one JSON object and is not.
    let (c, broken) = one_user_hook("broken", "--stdout '{oops}'");
    let f = c.fire_env(&bash_before("ls"), &[ON]);
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);
    let said = texts(&f.outcome["notices"]).concat();
    assert!(
        said.contains(&format!(
            "[{broken}]: failed; this hook is hooks.PreToolUse.0.hooks.0"
        )),
        "{said}"
    );

    let (c, secret) = one_user_hook(
        "secret",
        "--exit 1 --stderr 'see https://user:pw@example.com/x?token=abc#frag and bob@example.com'",
    );
    let f = c.fire_env(&bash_before("ls"), &[ON]);
    let said = texts(&f.outcome["notices"]).concat();
    assert!(
        said.contains(&format!(
            "[{}]: failed;",
            secret.replace(
                "https://user:pw@example.com/x?token=abc#frag",
                "https://example.com/x"
            )
        )) && said.ends_with(&format!(
            "{WHY}\nsee https://example.com/x and bob@example.com"
        )),
        "{said}"
    );
    // Its exit 2 is no failure: that text names the command as written.
    let (c, blocks) = one_user_hook(
        "blocks",
        "--exit 2 --stderr 'see https://user:pw@example.com/x?token=abc#frag'",
    );
    let f = c.fire_env(&bash_before("ls"), &[ON]);
    assert_eq!(
        texts(&f.outcome["notices"]),
        [format!(
            "PreToolUse:Bash hook error: [{blocks}]: see https://user:pw@example.com/x?token=abc#frag"
        )]
    );

    let c = Claude::new();
    let ups = c.hook("ups", "--exit 1 --stderr 'RP09_ERR boom'");
    let c = c.user_settings(&settings("UserPromptSubmit", None, &[&ups]));
    let f = c.fire_env(
        &json!({"event": "user_prompt", "session_id": "s1", "prompt": "Say hi."}),
        &[ON],
    );
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);
    let said = serde_json::to_string(&f.outcome).unwrap();
    assert!(
        said.contains("hooks.UserPromptSubmit.0.hooks.0, counted from 0")
            && said.contains("RP09_ERR boom"),
        "{said}"
    );
}

/// rp07, rp07c, rp08, rp08c: a user hook may not change a call's input
/// (the change becomes a deny, in Claude Code's words) nor allow it (the
/// call takes its usual path); its context stays.
#[test]
fn a_user_hook_s_answer_may_narrow_but_not_widen() {
    let (c, _) = one_user_hook(
        "upd",
        r#"--stdout '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"rm -rf x"},"additionalContext":"RP07_CTX ctx"}}'"#,
    );
    let f = c.fire_env(&bash_before("ls"), &[ON]);
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);
    assert_eq!(
        texts(&f.outcome["notices"]),
        [
            "PreToolUse:Bash hook error: A hook from the user's own Claude Code files tried to change this tool call's input. In this session such hooks may block or ask about a call but not change it, so the call was not made. Retrying will not help while the hook keeps changing the input: go on without this call, and tell the user their hook's change to it was refused."
        ]
    );
    // Unrestricted, the change is made (rp07c).
    let f = c.fire(&bash_before("ls"));
    assert_eq!(f.outcome["decision"], "allow", "{}", f.outcome);

    let (c, _) = one_user_hook(
        "allow",
        r#"--stdout '{"systemMessage":"RP08_SYS msg","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"RP08_WHY","additionalContext":"RP08_CTX ctx"}}'"#,
    );
    let f = c.fire_env(&bash_before("ls"), &[ON]);
    assert_eq!(f.outcome["decision"], "proceed", "{}", f.outcome);
    assert_eq!(
        texts(&f.outcome["context"]),
        [
            "<system-reminder>\nPreToolUse:Bash hook additional context: RP08_CTX ctx\n</system-reminder>"
        ]
    );
    assert_eq!(c.fire(&bash_before("ls")).outcome["decision"], "allow");
}

/// rp10, rp10c, rp16: a project's `disableAllHooks` turns off the
/// project's hooks and spares the user's, `--settings`' and managed ones;
/// when the user's file sets it too, only managed hooks run.
#[test]
fn a_project_s_disable_all_hooks_spares_the_user_s_own() {
    let c = Claude::new();
    let (user, project, flag, managed) = (
        c.hook("user", ""),
        c.hook("project", ""),
        c.hook("flag", ""),
        c.hook("managed", ""),
    );
    let mut project_file = settings("Stop", None, &[&project]);
    project_file["disableAllHooks"] = json!(true);
    let c = c
        .user_settings(&settings("Stop", None, &[&user]))
        .project_settings(&project_file);
    c.write(
        "managed/managed-settings.json",
        &settings("Stop", None, &[&managed]).to_string(),
    );
    let flag_file = settings("Stop", None, &[&flag]).to_string();
    let stop = json!({"event": "stop", "session_id": "s1"});
    let fire =
        |env: &[(&str, &str)]| c.fire_env_with(&stop, &["--claude-settings", &flag_file], env);
    let ran = |label: &str| c.runs_of(label);
    fire(&[ON]);
    assert_eq!(
        (ran("user"), ran("project"), ran("flag"), ran("managed")),
        (1, 0, 1, 1)
    );
    // Unrestricted: managed hooks only (rp10c).
    fire(&[]);
    assert_eq!(
        (ran("user"), ran("project"), ran("flag"), ran("managed")),
        (1, 0, 1, 2)
    );
    // The user's file turns all hooks off too (rp16).
    let mut user_file = settings("Stop", None, &[&user]);
    user_file["disableAllHooks"] = json!(true);
    let c = c.user_settings(&user_file);
    c.fire_env_with(&stop, &["--claude-settings", &flag_file], &[ON]);
    assert_eq!(
        (
            c.runs_of("user"),
            c.runs_of("project"),
            c.runs_of("flag"),
            c.runs_of("managed")
        ),
        (1, 0, 1, 3)
    );
}

/// rp13_user_http_500: a user's http hook that answers 500 blocks; its URL
/// is named, in the failure and in the error after it, without its query.
#[test]
fn a_user_http_hook_s_failure_names_its_url_without_its_query() {
    let stub = crate::claude_util::HttpStub::start(vec![("/e500", 500, "RP13_BODY")]);
    let c = Claude::new().user_settings(&pre(&[&[
        json!({"type": "http", "url": format!("{}?key=v", stub.url("/e500"))}),
    ]]));
    let f = c.fire_env(&bash_before("ls"), &[ON]);
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);
    let url = stub.url("/e500");
    assert_eq!(
        texts(&f.outcome["notices"]),
        [blocked(
            &url,
            "failed",
            "hooks.PreToolUse.0.hooks.0",
            &c.home().join(".claude/settings.json"),
            &format!("HTTP 500 from {url}")
        )]
    );
    // Unrestricted, the failure lets the call go on.
    assert_eq!(c.fire(&bash_before("ls")).outcome["decision"], "proceed");
}

/// rp14, rp19, rp20: `onFailure: "continue"` does not spare a user hook;
/// an `async` one never blocks; ` TRUE ` turns the restriction on.
#[test]
fn on_failure_does_not_spare_a_user_hook_and_async_ones_never_block() {
    let c = Claude::new();
    let failing = c.hook("fails", "--exit 1 --stderr E");
    let c = c.user_settings(&pre(&[&[
        json!({"type": "command", "command": failing, "onFailure": "continue"}),
    ]]));
    let f = c.fire_env(
        &bash_before("ls"),
        &[("CLAUDE_CODE_RESTRICT_PERSONAL_CONFIG", " TRUE ")],
    );
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);

    let c = Claude::new();
    let failing = c.hook("fails", "--exit 1 --stderr E");
    let c = c.user_settings(&pre(&[&[
        json!({"type": "command", "command": failing, "async": true}),
    ]]));
    let f = c.fire_env(&bash_before("ls"), &[ON]);
    assert_eq!(f.outcome["decision"], "proceed", "{}", f.outcome);
}

/// rp17: a user PostToolUse hook's answer under the restriction reaches
/// the model as it does without it: the block's reason, then the context,
/// after the tool's own output (the `updatedToolOutput` string is not the
/// shape of Bash's result, so it is ignored either way).
#[test]
fn a_user_post_tool_use_answer_reaches_the_model_as_without_the_restriction() {
    let c = Claude::new();
    let answer = json!({"hookSpecificOutput": {"hookEventName": "PostToolUse",
        "updatedToolOutput": "RP17_OUT replaced", "additionalContext": "RP17_CTX ctx"},
        "decision": "block", "reason": "RP17_WHY"});
    let post = c.hook("u_post", &format!("--stdout '{answer}'"));
    let c = c.user_settings(&settings("PostToolUse", Some("Bash"), &[&post]));
    let after = crate::claude_util::bash_after(
        "ls",
        json!({"stdout": "hi", "stderr": "", "interrupted": false, "isImage": false,
            "noOutputExpected": false}),
    );
    for env in [vec![ON], vec![]] {
        let f = c.fire_env(&after, &env);
        assert_eq!(f.outcome["decision"], "proceed", "{}", f.outcome);
        assert_eq!(
            texts(&f.outcome["context"]),
            [
                format!(
                    "<system-reminder>\nPostToolUse:Bash hook blocking error from command: \"{post}\": RP17_WHY\n</system-reminder>"
                ),
                "<system-reminder>\nPostToolUse:Bash hook additional context: RP17_CTX ctx\n</system-reminder>".to_owned()
            ]
        );
        assert!(f.outcome.get("tool_output").is_none(), "{}", f.outcome);
    }
}

/// rp18: a user PreToolUse hook that exits 1 beside a valid answer with
/// context: the failure blocks, and the answer's context is not read.
#[test]
fn a_user_hook_exiting_1_beside_an_answer_blocks_and_its_context_is_not_read() {
    let c = Claude::new();
    let answer = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "additionalContext": "RP18_CTX ctx"}});
    let hook = c.hook(
        "u_ctx_exit1",
        &format!("--stdout '{answer}' --stderr 'RP18_ERR boom' --exit 1"),
    );
    let c = c.user_settings(&pre(&[&[command(&hook)]]));
    let user_file = c.home().join(".claude/settings.json");
    let f = c.fire_env(&bash_before("ls"), &[ON]);
    assert_eq!(f.outcome["decision"], "deny", "{}", f.outcome);
    assert_eq!(
        texts(&f.outcome["notices"]),
        [blocked(
            &hook,
            "failed",
            "hooks.PreToolUse.0.hooks.0",
            &user_file,
            "RP18_ERR boom"
        )]
    );
    assert!(f.outcome.get("context").is_none(), "{}", f.outcome);
}
