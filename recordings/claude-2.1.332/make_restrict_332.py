"""Cases for CLAUDE_CODE_RESTRICT_PERSONAL_CONFIG (Claude Code 2.1.332).

Run in a copy of the recording harness with 2.1.332 installed:
    CASES=cases python3 make_restrict_332.py && ./run_case.sh cases/<case>
Each case is written to $CASES/<name>/{case,settings,script,user_settings}.json.
`R` cases set the variable; `c` cases (the controls) do not.
"""
import json, os

BASE = os.environ.get("CASES", "cases")
RESTRICT = {"CLAUDE_CODE_RESTRICT_PERSONAL_CONFIG": "1"}


def hook(label, out_json=None, sleep=0, exit=0, stderr=None, plain=None, **extra):
    cmd = "@HOOK@ --label %s --out @OUT@" % label
    if sleep:
        cmd += " --sleep %s" % sleep
    if out_json is not None:
        cmd += " --stdout '%s'" % json.dumps(out_json)
    elif plain is not None:
        cmd += " --stdout '%s'" % plain
    if stderr is not None:
        cmd += " --stderr '%s'" % stderr
    if exit:
        cmd += " --exit %d" % exit
    h = {"type": "command", "command": cmd}
    h.update(extra)
    return h


def hso(event, **kw):
    d = {"hookEventName": event}
    d.update(kw)
    return {"hookSpecificOutput": d}


ONE = {"turns": [{"text": "Running the command.", "tool_use": {"name": "Bash", "input": {
    "command": "echo ran > @OUT@/marker_tool_ran; echo hi", "description": "Write marker"}}},
    {"text": "Final answer from fake model."}],
    "default_text": "Script exhausted.", "side_text": "Hook harness session"}
TEXT = {"turns": [{"text": "Final answer from fake model."}],
        "default_text": "Script exhausted.", "side_text": "Hook harness session"}


def case(name, question, sentinels, settings, user_settings=None, script=ONE, env=None,
         extra_args=None, permission="bypass", http_routes=None, prompt="Run the command please."):
    d = os.path.join(BASE, name)
    os.makedirs(d, exist_ok=True)
    c = {"question": question, "prompt": prompt, "max_turns": 10, "timeout": 60,
         "sentinels": sentinels, "stable_ids": True, "permission": permission,
         "env": env or {},
         "extra_args": ["--debug-file", "@OUT@/debug.log"] + (extra_args or [])}
    if http_routes:
        c["http_routes"] = http_routes
    json.dump(c, open(d + "/case.json", "w"), indent=2)
    json.dump(settings, open(d + "/settings.json", "w"), indent=2)
    json.dump(script, open(d + "/script.json", "w"), indent=2)
    if user_settings is not None:
        json.dump(user_settings, open(d + "/user_settings.json", "w"), indent=2)


def ev(event, *groups, matcher="Bash"):
    return {"hooks": {event: [dict(({"matcher": matcher} if matcher else {}), hooks=list(g)) for g in groups]}}


pre = lambda *g: ev("PreToolUse", *g)
NONE = {}

# 1 a user hook's exit 1 on PreToolUse
for sfx, env in (("", RESTRICT), ("c", {})):
    case("rp01%s_user_exit1_pre" % sfx, "User PreToolUse hook exits 1 with stderr (%s)." % ("restricted" if env else "control"),
         ["RP01_ERR"], NONE, pre([hook("u_exit1", exit=1, stderr="RP01_ERR boom")]), env=env)
# 2 timeout
case("rp02_user_timeout_pre", "User PreToolUse hook times out (timeout 1, sleeps 3), restricted.",
     [], NONE, pre([hook("u_slow", sleep=3, timeout=1)]), env=RESTRICT)
# 3 answer that fails the schema
case("rp03_user_schema_fail_pre", "User PreToolUse hook answers {\"continue\": \"yes\"} (fails the schema), restricted.",
     [], NONE, pre([hook("u_bad", {"continue": "yes"})]), env=RESTRICT)
# 4 JSON-looking stdout that does not parse
case("rp04_user_broken_json_pre", "User PreToolUse hook prints {not json}, restricted.",
     [], NONE, pre([hook("u_broken", plain="{not json}")]), env=RESTRICT)
# 5 a project hook's exit 1
case("rp05_project_exit1_pre", "Project PreToolUse hook exits 1, restricted: not personal.",
     ["RP05_ERR"], pre([hook("p_exit1", exit=1, stderr="RP05_ERR boom")]), env=RESTRICT)
# 6 second group of the user file, and the host's fix sentence
case("rp06_user_second_group_fix", "User file: two PreToolUse groups; the second's hook exits 1; CLAUDE_CODE_PERSONAL_CONFIG_FIX set.",
     ["RP06_ERR"], NONE, pre([hook("u_ok")], [hook("u_exit1", exit=1, stderr="RP06_ERR boom")]),
     env=dict(RESTRICT, CLAUDE_CODE_PERSONAL_CONFIG_FIX="ask the host to fix it"))
case("rp06b_user_second_hook_no_fix", "User file: one group, two hooks; the second exits 1, restricted.",
     ["RP06B_ERR"], NONE, pre([hook("u_ok"), hook("u_exit1", exit=1, stderr="RP06B_ERR boom")]), env=RESTRICT)
# 7 allow + updatedInput
for sfx, env in (("", RESTRICT), ("c", {})):
    case("rp07%s_user_updated_input" % sfx, "User PreToolUse hook allows with updatedInput (%s)." % ("restricted" if env else "control"),
         ["RP07_CTX"], NONE,
         pre([hook("u_upd", hso("PreToolUse", permissionDecision="allow", permissionDecisionReason="RP07_WHY",
                                updatedInput={"command": "echo changed > @OUT@/marker_changed; echo changed", "description": "changed"},
                                additionalContext="RP07_CTX ctx"))]), env=env)
# 8 allow in default permission mode
for sfx, env in (("", RESTRICT), ("c", {})):
    case("rp08%s_user_allow_default_mode" % sfx, "User PreToolUse hook allows (reason, context, systemMessage) in default permission mode (%s)." % ("restricted" if env else "control"),
         ["RP08_CTX", "RP08_WHY", "RP08_SYS"], NONE,
         dict(pre([hook("u_allow", dict(hso("PreToolUse", permissionDecision="allow", permissionDecisionReason="RP08_WHY",
                                               additionalContext="RP08_CTX ctx"), systemMessage="RP08_SYS msg"))])),
         env=env, permission="default")
# 9 UserPromptSubmit exit 1
case("rp09_user_ups_exit1", "User UserPromptSubmit hook exits 1, restricted.",
     ["RP09_ERR"], NONE, ev("UserPromptSubmit", [hook("u_ups", exit=1, stderr="RP09_ERR boom")], matcher=None),
     env=RESTRICT, script=TEXT, prompt="Say hi.")
# 10 project disableAllHooks with user, flag and project hooks
flag = json.dumps(ev("PreToolUse", [hook("f_hook", hso("PreToolUse", additionalContext="RP10_FLAG ctx"))]))
for sfx, env in (("", RESTRICT), ("c", {})):
    s = pre([hook("p_hook", hso("PreToolUse", additionalContext="RP10_PROJ ctx"))])
    s["disableAllHooks"] = True
    case("rp10%s_project_disable_all" % sfx, "Project disableAllHooks true; user, flag and project PreToolUse hooks (%s)." % ("restricted" if env else "control"),
         ["RP10_USER", "RP10_FLAG", "RP10_PROJ"], s,
         pre([hook("u_hook", hso("PreToolUse", additionalContext="RP10_USER ctx"))]), env=env,
         extra_args=["--settings", flag])
# 11 PostToolUse exit 1 (not an event where personal failures block)
case("rp11_user_post_exit1", "User PostToolUse hook exits 1, restricted.",
     ["RP11_ERR"], NONE, ev("PostToolUse", [hook("u_post", exit=1, stderr="RP11_ERR boom")]), env=RESTRICT)
# 12 stderr with a URL and a token: redacted?
case("rp12_user_stderr_secrets", "User PreToolUse hook exits 1, stderr holds a URL with a query and credentials, restricted.",
     ["RP12_ERR"], NONE,
     pre([hook("u_secret", exit=1, stderr="RP12_ERR see https://user:pw@example.com/x?token=abc#frag and bob@example.com")]),
     env=RESTRICT)
# 13 http hook answering 500
case("rp13_user_http_500", "User http PreToolUse hook answers 500, restricted.",
     ["RP13_BODY"], NONE, pre([{"type": "http", "url": "@HTTP@/e500?key=v"}]), env=RESTRICT,
     http_routes={"/e500": {"status": 500, "body": "RP13_BODY failure", "content_type": "text/plain"}})
# 14 onFailure continue
case("rp14_user_onfailure_continue", "User PreToolUse hook with onFailure continue exits 1, restricted.",
     ["RP14_ERR"], NONE, pre([hook("u_cont", exit=1, stderr="RP14_ERR boom", onFailure="continue")]), env=RESTRICT)
# 15 the same hook in project and user files
h15 = hook("both_exit1", exit=1, stderr="RP15_ERR boom")
case("rp15_same_hook_project_and_user", "The same failing PreToolUse hook in project and user settings, restricted.",
     ["RP15_ERR"], pre([h15]), pre([h15]), env=RESTRICT)
# 16 user disableAllHooks with project disableAllHooks: only managed hooks
s = pre([hook("p_hook", hso("PreToolUse", additionalContext="RP16_PROJ ctx"))])
s["disableAllHooks"] = True
u = pre([hook("u_hook", hso("PreToolUse", additionalContext="RP16_USER ctx"))])
u["disableAllHooks"] = True
case("rp16_user_and_project_disable_all", "User and project disableAllHooks true, restricted.",
     ["RP16_USER", "RP16_PROJ"], s, u, env=RESTRICT)
# 17 PermissionDenied/retry etc. are not reachable here; a PostToolUse answer
case("rp17_user_post_answer", "User PostToolUse hook: updatedToolOutput, additionalContext, decision block, reason, restricted.",
     ["RP17_OUT", "RP17_CTX", "RP17_WHY"], NONE,
     ev("PostToolUse", [hook("u_post", dict(hso("PostToolUse", updatedToolOutput="RP17_OUT replaced", additionalContext="RP17_CTX ctx"),
                                             decision="block", reason="RP17_WHY"))]), env=RESTRICT)
# 18 exit 1 beside a valid answer with context (the failure blocks)
case("rp18_user_exit1_with_context", "User PreToolUse hook exits 1 printing a valid answer with additionalContext, restricted.",
     ["RP18_CTX", "RP18_ERR"], NONE,
     pre([hook("u_ctx_exit1", hso("PreToolUse", additionalContext="RP18_CTX ctx"), exit=1, stderr="RP18_ERR boom")]), env=RESTRICT)
# 19 an async user hook failing
case("rp19_user_async_exit1", "Async user PreToolUse hook exits 1, restricted.",
     ["RP19_ERR"], NONE, pre([hook("u_async", exit=1, stderr="RP19_ERR boom", **{"async": True})]), env=RESTRICT)
# 20 the value: "true" and "0"
case("rp20_value_true", "As rp01 with CLAUDE_CODE_RESTRICT_PERSONAL_CONFIG=true.",
     ["RP20_ERR"], NONE, pre([hook("u_exit1", exit=1, stderr="RP20_ERR boom")]),
     env={"CLAUDE_CODE_RESTRICT_PERSONAL_CONFIG": " TRUE "})
case("rp21_value_0", "As rp01 with CLAUDE_CODE_RESTRICT_PERSONAL_CONFIG=0.",
     ["RP21_ERR"], NONE, pre([hook("u_exit1", exit=1, stderr="RP21_ERR boom")]),
     env={"CLAUDE_CODE_RESTRICT_PERSONAL_CONFIG": "0"})
# 22 a failing flag-settings hook
case("rp22_flag_exit1", "A --settings PreToolUse hook exits 1, restricted: not personal.",
     ["RP22_ERR"], NONE, env=RESTRICT,
     extra_args=["--settings", json.dumps(pre([hook("f_exit1", exit=1, stderr="RP22_ERR boom")]))])
