"""Round-13 cases (cases/r13_*): hook JSON answers with null / wrong types, settings-file structure and types,
BOM / Latin-1 / blank settings files, non-string env values, decision:block without a reason,
UserPromptSubmit continue:false, two UserPromptSubmit exit-2 hooks.

Needs run_case_r13.patch (case file settings.raw: written byte for byte as the project settings file) and
summarize_r13.patch (a settings file that is not JSON is kept as text). Run with run_r13.sh.

Hooks that print JSON use bin/hook.py --stdout; hooks that read env are plain shell `echo`s (their stdout is
UserPromptSubmit context, so the model's first request shows what they printed) followed by hook.py --dump-env.
Every case uses --output-format stream-json --verbose --include-hook-events, so hook_response events (what a
-p user sees of each hook) and the final result event are both recorded.
"""
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
EXTRA = ["--include-hook-events", "--debug-file", "@OUT@/debug.log"]


def hook(label, *flags, **fields):
    cmd = "@HOOK@ --label %s --out @OUT@" % label
    for f in flags:
        cmd += " " + f
    h = {"type": "command", "command": cmd}
    h.update(fields)
    return h


def q(s):
    return "'" + s.replace("'", "'\\''") + "'"


def compact(obj):
    return json.dumps(obj, separators=(",", ":"))


def out(label, obj, *flags, **fields):
    """a hook that prints obj (JSON, compact) on stdout"""
    return hook(label, "--stdout " + q(compact(obj)), *flags, **fields)


def write_case(name, question, settings, turns, prompt="Run the command please.", sentinels=(), user=None,
               raw=None, **extra):
    d = os.path.join(CASES, name)
    os.makedirs(d, exist_ok=True)
    for f in ("settings.raw", "user_settings.json"):
        if os.path.exists(os.path.join(d, f)):
            os.remove(os.path.join(d, f))
    case = {"question": question, "prompt": prompt, "max_turns": extra.pop("max_turns", 10),
            "timeout": extra.pop("timeout", 60), "sentinels": list(sentinels), "stable_ids": True,
            "extra_args": EXTRA, "output_format": "stream-json"}
    case.update(extra)
    json.dump(case, open(os.path.join(d, "case.json"), "w"), indent=2)
    if raw is not None:   # bytes: the project settings file exactly (run_case_r13.patch)
        open(os.path.join(d, "settings.raw"), "wb").write(raw)
        settings = {}
    json.dump(settings, open(os.path.join(d, "settings.json"), "w"), indent=2)
    if user is not None:
        json.dump(user, open(os.path.join(d, "user_settings.json"), "w"), indent=2)
    json.dump({"turns": turns, "default_text": "Script exhausted.", "side_text": "Hook harness session"},
              open(os.path.join(d, "script.json"), "w"), indent=2)


def bash(cmd, text="Running the command.", desc="cmd"):
    return {"text": text, "tool_use": {"name": "Bash", "input": {"command": cmd, "description": desc}}}


FINAL = {"text": "Final answer from fake model."}
TOOL = bash("echo ran > @OUT@/marker_tool_ran; echo hi", desc="first")
UPS = "UserPromptSubmit"


def ev(event, *hooks, matcher=None):
    g = {"hooks": list(hooks)}
    if matcher is not None:
        g = {"matcher": matcher, "hooks": list(hooks)}
    return {event: [g]}


def hso(event, **fields):
    return {"hookSpecificOutput": dict(hookEventName=event, **fields)}


# ---------------------------------------------------------------- 1. null in a hook's JSON answer
NULL_SENT = ["Hook JSON output validation failed", "Blocked by hook", "denied", "hook error"]
write_case("r13_null_ups_sysmsg",
           "UserPromptSubmit prints {\"decision\":\"block\",\"reason\":\"R\",\"systemMessage\":null}. Blocked? What "
           "do the user and the model see (validation error text)?",
           {"hooks": ev(UPS, out("ups_null_sys", {"decision": "block", "reason": "R", "systemMessage": None}))},
           [FINAL], prompt="the prompt", sentinels=NULL_SENT)
write_case("r13_null_ups_reason",
           "UserPromptSubmit prints {\"decision\":\"block\",\"reason\":null}. Blocked?",
           {"hooks": ev(UPS, out("ups_null_reason", {"decision": "block", "reason": None}))},
           [FINAL], prompt="the prompt", sentinels=NULL_SENT)
write_case("r13_null_pre_sysmsg",
           "PreToolUse (Bash) prints hookSpecificOutput deny (reason R) plus \"systemMessage\":null. Does the tool run?",
           {"hooks": ev("PreToolUse", out("pre_null_sys", dict(hso("PreToolUse", permissionDecision="deny",
                                                                      permissionDecisionReason="R"), systemMessage=None)),
                        matcher="Bash")},
           [TOOL, FINAL], sentinels=NULL_SENT)
write_case("r13_null_post_ctx",
           "PostToolUse (Bash): hook A prints additionalContext null, hook B (same group) additionalContext \"OK\". "
           "What does the model get?",
           {"hooks": ev("PostToolUse", out("post_null_ctx", hso("PostToolUse", additionalContext=None)),
                        out("post_ok_ctx", hso("PostToolUse", additionalContext="OK")), matcher="Bash")},
           [TOOL, FINAL], sentinels=NULL_SENT)

# ---------------------------------------------------------------- 2. updatedInput not an object
write_case("r13_pre_deny_updated_input_str",
           "PreToolUse (Bash) prints deny (reason R) with \"updatedInput\":\"str\". Does the deny stand?",
           {"hooks": ev("PreToolUse", out("pre_deny_upd_str", hso("PreToolUse", permissionDecision="deny",
                                                                   permissionDecisionReason="R", updatedInput="str")),
                        matcher="Bash")},
           [TOOL, FINAL], sentinels=NULL_SENT)

# ---------------------------------------------------------------- 3-6. settings files
PROJECT_HOOK = hook("project_ups", "--stdout PROJECT_HOOK_RAN")
ENV_VARS = ("N", "B", "Z", "O", "A")
USER_CMD = "echo \"USER_HOOK %s\"; @HOOK@ --label user_ups --out @OUT@ --dump-env" % " ".join(
    "%s=[${%s-unset}]" % (v, v) for v in ENV_VARS)
USER = {"hooks": ev(UPS, {"type": "command", "command": USER_CMD})}
SET_SENT = ["PROJECT_HOOK_RAN", "USER_HOOK", "PROJECT_LATIN1"]
PUPS = ev(UPS, PROJECT_HOOK)


def settings_case(name, question, settings=None, raw=None):
    write_case(name, question + " (The user-settings UserPromptSubmit hook prints N B Z O A; the project hook "
               "prints PROJECT_HOOK_RAN as context.)", settings, [FINAL], prompt="the prompt",
               sentinels=SET_SENT, user=USER, raw=raw)


settings_case("r13_settings_control", "CONTROL: {\"env\":{\"N\":\"x\"},\"hooks\":{UserPromptSubmit:[project hook]}}",
              {"env": {"N": "x"}, "hooks": PUPS})
settings_case("r13_settings_event_object", "(3a) {\"hooks\":{\"PreToolUse\":{},\"UserPromptSubmit\":[hook]}}",
              {"hooks": {"PreToolUse": {}, **PUPS}})
settings_case("r13_settings_hooks_array", "(3b) {\"hooks\":[],\"env\":{\"N\":\"x\"}}", {"hooks": [], "env": {"N": "x"}})
settings_case("r13_settings_hooks_null", "(3c) {\"hooks\":null,\"env\":{\"N\":\"x\"}}", {"hooks": None, "env": {"N": "x"}})
settings_case("r13_settings_event_null", "(3d) {\"hooks\":{\"PreToolUse\":null},\"env\":{\"N\":\"x\"}}",
              {"hooks": {"PreToolUse": None}, "env": {"N": "x"}})
settings_case("r13_settings_unknown_event_num",
              "(3e) {\"hooks\":{\"NoSuchEvent\":5,\"UserPromptSubmit\":[hook]},\"env\":{\"N\":\"x\"}}",
              {"hooks": {"NoSuchEvent": 5, **PUPS}, "env": {"N": "x"}})
settings_case("r13_settings_unknown_event_bogus",
              "(3f) {\"hooks\":{\"NoSuchEvent\":[{\"hooks\":[{\"type\":\"bogus\"}]}],\"UserPromptSubmit\":[hook]}}",
              {"hooks": {"NoSuchEvent": [{"hooks": [{"type": "bogus"}]}], **PUPS}})
settings_case("r13_settings_model_num", "(4) {\"model\":5,\"hooks\":{UserPromptSubmit:[hook]}}", {"model": 5, "hooks": PUPS})
settings_case("r13_settings_perm_allow_str", "(4) {\"permissions\":{\"allow\":\"Bash\"},\"hooks\":…}",
              {"permissions": {"allow": "Bash"}, "hooks": PUPS})
settings_case("r13_settings_env_array", "(4) {\"env\":[],\"hooks\":…}", {"env": [], "hooks": PUPS})
settings_case("r13_settings_env_model_num", "(4) {\"env\":{\"N\":\"x\"},\"model\":5}", {"env": {"N": "x"}, "model": 5})
settings_case("r13_settings_disable_model_num",
              "(4) {\"disableAllHooks\":true,\"model\":5}: does disableAllHooks still turn the user hook off?",
              {"disableAllHooks": True, "model": 5})
settings_case("r13_settings_disable_control",
              "CONTROL for the above: {\"disableAllHooks\":true} alone.", {"disableAllHooks": True})
PUPS_ENV = compact({"env": {"N": "x"}, "hooks": PUPS})
settings_case("r13_settings_bom", "(5) UTF-8 BOM, then {\"env\":{\"N\":\"x\"},\"hooks\":{UserPromptSubmit:[hook]}}",
              raw=b"\xef\xbb\xbf" + PUPS_ENV.encode())
LATIN1 = compact({"env": {"N": "x"}, "hooks": ev(UPS, {"type": "command", "command": "echo PROJECT_LATIN1 cafLATIN1BYTE"})})
settings_case("r13_settings_latin1",
              "(5) {\"env\":{\"N\":\"x\"},\"hooks\":{UserPromptSubmit:[echo PROJECT_LATIN1 caf\\xe9]}} where \\xe9 "
              "is the raw Latin-1 byte (not UTF-8)", raw=LATIN1.encode().replace(b"LATIN1BYTE", b"\xe9"))
settings_case("r13_settings_whitespace", "(5) a project settings file of only whitespace (\" \\n\\t\\n \")",
              raw=b" \n\t\n ")
settings_case("r13_settings_env_nonstring",
              "(6) {\"env\":{\"N\":1,\"B\":true,\"Z\":null,\"O\":{\"a\":1},\"A\":[1,2]},\"hooks\":…}",
              {"env": {"N": 1, "B": True, "Z": None, "O": {"a": 1}, "A": [1, 2]}, "hooks": PUPS})

# ---------------------------------------------------------------- 7. decision:block without a reason
BLK_SENT = ["Blocked by hook", "Stop hook feedback", "blocking error"]
for tag, obj in (("noreason", {"decision": "block"}), ("emptyreason", {"decision": "block", "reason": ""})):
    write_case("r13_block_%s_ups" % tag, "UserPromptSubmit prints %s." % compact(obj),
               {"hooks": ev(UPS, out("ups_block", obj))}, [FINAL], prompt="the prompt", sentinels=BLK_SENT)
    write_case("r13_block_%s_stop" % tag, "Stop prints %s (first run only, --once); the model answers again." % compact(obj),
               {"hooks": ev("Stop", out("stop_block", obj, "--once"))},
               [{"text": "Answer 1."}, {"text": "Answer 2."}], prompt="Say something.", sentinels=BLK_SENT)
    write_case("r13_block_%s_post" % tag, "PostToolUse (Bash) prints %s." % compact(obj),
               {"hooks": ev("PostToolUse", out("post_block", obj), matcher="Bash")}, [TOOL, FINAL],
               sentinels=BLK_SENT)

# ---------------------------------------------------------------- 8. UserPromptSubmit continue:false
CF_SENT = ["Operation stopped by hook", "blocked by hook", "SIBLING", "the prompt"]
write_case("r13_ups_continue_false_stopreason", "UserPromptSubmit prints {\"continue\":false,\"stopReason\":\"S\"}.",
           {"hooks": ev(UPS, out("ups_cf", {"continue": False, "stopReason": "S"}))}, [FINAL], prompt="the prompt",
           sentinels=CF_SENT)
write_case("r13_ups_continue_false_alone", "UserPromptSubmit prints {\"continue\":false}.",
           {"hooks": ev(UPS, out("ups_cf", {"continue": False}))}, [FINAL], prompt="the prompt", sentinels=CF_SENT)
write_case("r13_ups_continue_false_sibling_exit2",
           "UserPromptSubmit: hook A prints {\"continue\":false} at once; hook B sleeps 0.3 s, prints SIBLING on "
           "stderr and exits 2.",
           {"hooks": ev(UPS, out("ups_cf", {"continue": False}),
                        hook("ups_exit2_slow", "--sleep 0.3 --stderr SIBLING --exit 2"))},
           [FINAL], prompt="the prompt", sentinels=CF_SENT, settle_s=1)
write_case("r13_ups_continue_false_block",
           "UserPromptSubmit prints {\"decision\":\"block\",\"reason\":\"R\",\"continue\":false,\"stopReason\":\"S\"}.",
           {"hooks": ev(UPS, out("ups_cf_block", {"decision": "block", "reason": "R", "continue": False,
                                                  "stopReason": "S"}))},
           [FINAL], prompt="the prompt", sentinels=CF_SENT)

# Does the stopped prompt (and the stop text) reach the model on the NEXT prompt of the same session?
# --input-format stream-json (case key stdin_messages, round 7): two user messages in one process; the hook acts
# on the first only (--once).
for tag, obj in (("continue_false", {"continue": False, "stopReason": "S"}),
                 ("block", {"decision": "block", "reason": "R"})):
    write_case("r13_ups_%s_then_prompt" % tag,
               "UserPromptSubmit prints %s on the first prompt only (--once); a second prompt follows in the same "
               "process (stream-json input). What does the model get in its first request?" % compact(obj),
               {"hooks": ev(UPS, out("ups_first", obj, "--once"))}, [FINAL, FINAL],
               sentinels=CF_SENT + ["SECOND_PROMPT"],
               stdin_messages=["the prompt", [1.5, "SECOND_PROMPT please"]], settle_s=0.5)

# ---------------------------------------------------------------- 9. two UserPromptSubmit exit-2 hooks
write_case("r13_ups_two_exit2",
           "Two UserPromptSubmit hooks exit 2: fast (stderr FAST) at once, slow (stderr SLOW) after 0.3 s. Which "
           "text is shown?",
           {"hooks": ev(UPS, hook("ups_fast", "--stderr FAST --exit 2"),
                        hook("ups_slow", "--sleep 0.3 --stderr SLOW --exit 2"))},
           [FINAL], prompt="the prompt", sentinels=["FAST", "SLOW"], settle_s=1)
print("ok")
