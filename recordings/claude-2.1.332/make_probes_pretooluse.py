import json, os, shutil
BASE = os.environ.get("CASES", "cases")  # where the case directories are written
def hook(label, out_json=None, sleep=0, plain=None):
    cmd = "@HOOK@ --label %s --out @OUT@" % label
    if sleep: cmd += " --sleep %s" % sleep
    if out_json is not None:
        cmd += " --stdout '%s'" % json.dumps(out_json)
    elif plain is not None:
        cmd += " --stdout '%s'" % plain
    return {"type": "command", "command": cmd}
def ctx(text, **extra):
    hso = {"hookEventName": "PreToolUse"}
    hso.update(extra)
    hso["additionalContext"] = text
    return {"hookSpecificOutput": hso}
ONE = {"turns": [{"text": "Running the command.", "tool_use": {"name": "Bash", "input": {
        "command": "echo ran > @OUT@/marker_tool_ran; echo hi", "description": "Write marker"}}},
       {"text": "Final answer from fake model."}],
       "default_text": "Script exhausted.", "side_text": "Hook harness session"}
BATCH = {"turns": [{"text": "Running two commands.", "tool_uses": [
        {"name": "Bash", "input": {"command": "echo one > @OUT@/marker_one; echo one", "description": "first"}},
        {"name": "Bash", "input": {"command": "echo two > @OUT@/marker_two; echo two", "description": "second"}}]},
       {"text": "Final answer from fake model."}],
       "default_text": "Script exhausted.", "side_text": "Hook harness session"}
def case(name, question, sentinels, settings, script=ONE, user_settings=None):
    d = os.path.join(BASE, name)
    os.makedirs(d, exist_ok=True)
    c = {"question": question, "prompt": "Run the command please.", "max_turns": 10, "timeout": 60,
         "sentinels": sentinels, "stable_ids": True, "extra_args": ["--debug-file", "@OUT@/debug.log"]}
    json.dump(c, open(d + "/case.json", "w"), indent=2)
    json.dump(settings, open(d + "/settings.json", "w"), indent=2)
    json.dump(script, open(d + "/script.json", "w"), indent=2)
    if user_settings is not None:
        json.dump(user_settings, open(d + "/user_settings.json", "w"), indent=2)
def pre(*groups):
    return {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": list(g)} for g in groups]}}

A = lambda s, **kw: hook("ctx_a_slow", ctx(s, **kw), sleep=0.6)
B = lambda s: hook("ctx_b_fast", ctx(s))

# 1 one group
case("p1_one_group_two_ctx", "PreToolUse: one matcher group, A (slow 0.6s) and B (fast) both return additionalContext only. One reminder or two?",
     ["P1_CTX_A", "P1_CTX_B"], pre([A("P1_CTX_A ctx of A"), B("P1_CTX_B ctx of B")]))
# 2 two groups
case("p2_two_groups_two_ctx", "PreToolUse: two matcher groups, A (slow) and B (fast) additionalContext only.",
     ["P2_CTX_A", "P2_CTX_B"], pre([A("P2_CTX_A ctx of A")], [B("P2_CTX_B ctx of B")]))
# 3 two files
case("p3_two_files_two_ctx", "PreToolUse: A (slow) in project settings, B (fast) in user settings, additionalContext only.",
     ["P3_CTX_A", "P3_CTX_B"], pre([A("P3_CTX_A ctx of A")]), user_settings=pre([B("P3_CTX_B ctx of B")]))
# 4 re-run of r3_deny_slow_plus_context_fast (copied below from the tarball) + same, one group
case("p4b_deny_slow_ctx_fast_one_group", "PreToolUse: one matcher group, A denies with context (slow), B context only (fast).",
     ["P4_DENY_A", "P4_CTX_A", "P4_CTX_B"],
     pre([hook("deny_ctx_a_slow", ctx("P4_CTX_A ctx of A", permissionDecision="deny", permissionDecisionReason="P4_DENY_A reason"), sleep=0.6),
          B("P4_CTX_B ctx of B")]))
# 5 allow + ctx
case("p5_allow_slow_ctx_fast", "PreToolUse: two groups, A permissionDecision allow with context (slow), B context only (fast).",
     ["P5_CTX_A", "P5_CTX_B"],
     pre([hook("allow_ctx_a_slow", ctx("P5_CTX_A ctx of A", permissionDecision="allow", permissionDecisionReason="P5_ALLOW_A reason"), sleep=0.6)],
         [B("P5_CTX_B ctx of B")]))
# 6 batch
case("p6_batch_two_calls_two_ctx", "PreToolUse: two Bash calls in one message; each gets one group with A (slow) and B (fast) context only.",
     ["P6_CTX_A", "P6_CTX_B"], pre([A("P6_CTX_A ctx of A"), B("P6_CTX_B ctx of B")]), script=BATCH)
# 7 plain stdout
case("p7_plain_stdout_two_hooks", "PreToolUse: one group, A (slow) and B (fast) print plain stdout, exit 0. Does it reach the model?",
     ["P7_PLAIN_A", "P7_PLAIN_B"],
     pre([hook("plain_a_slow", plain="P7_PLAIN_A plain of A", sleep=0.6), hook("plain_b_fast", plain="P7_PLAIN_B plain of B")]))
# extra: order — first-configured hook fast, second slow
case("p8_first_fast_second_slow", "PreToolUse: one group, A (first, fast) and B (second, slow 0.6s) context only. Join order = finishing or config?",
     ["P8_CTX_A", "P8_CTX_B"], pre([hook("ctx_a_fast", ctx("P8_CTX_A ctx of A")), hook("ctx_b_slow", ctx("P8_CTX_B ctx of B"), sleep=0.6)]))
# extra: three hooks, staggered, config order mid/slow/fast
case("p9_three_hooks_staggered", "PreToolUse: one group, A (0.3s), B (0.8s), C (0s) context only. Join order?",
     ["P9_CTX_A", "P9_CTX_B", "P9_CTX_C"], pre([hook("ctx_a_mid", ctx("P9_CTX_A"), sleep=0.3), hook("ctx_b_slow", ctx("P9_CTX_B"), sleep=0.8), hook("ctx_c_fast", ctx("P9_CTX_C"))]))
# extra: builtin plugins disabled (does the per-hook path come back?)
s = pre([A("P10_CTX_A ctx of A"), B("P10_CTX_B ctx of B")])
s["enabledPlugins"] = {"cc-plugin-agents-md@builtin": False, "cc-plugin-plugin-authoring@builtin": False, "cc-plugin-privacy@builtin": False}
case("p10_builtins_disabled", "PreToolUse as p1 with the three builtin plugins disabled in enabledPlugins.", ["P10_CTX_A", "P10_CTX_B"], s)
for nm, off in (("p11_agents_md_disabled", ["cc-plugin-agents-md@builtin"]), ("p12_plugin_authoring_disabled", ["cc-plugin-plugin-authoring@builtin"])):
    s = pre([A(nm.upper()[:3] + "_CTX_A ctx of A"), B(nm.upper()[:3] + "_CTX_B ctx of B")])
    s["enabledPlugins"] = {k: False for k in off}
    case(nm, "PreToolUse as p1 with %s disabled in enabledPlugins." % off, [nm.upper()[:3] + "_CTX_A", nm.upper()[:3] + "_CTX_B"], s)
s = pre([hook("deny_ctx_a_slow", ctx("P13_CTX_A ctx of A", permissionDecision="deny", permissionDecisionReason="P13_DENY_A reason"), sleep=0.6)], [B("P13_CTX_B ctx of B")])
s["enabledPlugins"] = {"cc-plugin-agents-md@builtin": False, "cc-plugin-plugin-authoring@builtin": False}
case("p13_deny_builtins_disabled", "As r3_deny_slow_plus_context_fast with the tool.call modules disabled.", ["P13_DENY_A", "P13_CTX_A", "P13_CTX_B"], s)
