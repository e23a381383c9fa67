"""Round-14k cases (cases/r14k_*).
Q1: managed settings (/etc/claude-code/managed-settings.json, written only inside a private mount namespace with an
    overlay /etc, see run_r14k.sh and the round-14k block of run_case.sh) with a wrong-typed setting or a bad hook entry,
    vs the same content as the project .claude/settings.json.
Q2: UserPromptExpansion with two blocking hooks (decision:block after 0.5 s vs exit 2 at once, and swapped).
Run with ./run_r14k.sh cases/r14k_* (managed cases) -- the project / UPE cases need no namespace but go through it too.
"""
import json, os, shutil

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
EXTRA = ["--include-hook-events", "--debug-file", "@OUT@/debug.log"]
UPS = "UserPromptSubmit"
UPE = "UserPromptExpansion"


def q(s):
    return "'" + s.replace("'", "'\\''") + "'"


def compact(o):
    return json.dumps(o, separators=(",", ":"))


def hook(label, *flags):
    cmd = "@HOOK@ --label %s --out @OUT@" % label
    for f in flags:
        cmd += " " + f
    return {"type": "command", "command": cmd}


def ctx_hook(label, ctx):
    return hook(label, "--dump-env", "--stdout " + q(compact({"hookSpecificOutput": {"hookEventName": UPS, "additionalContext": ctx}})))


USER_SETTINGS = {"hooks": {UPS: [{"hooks": [{"type": "command",
    "command": "echo \"USER_HOOK MN=[${MN-unset}]\"; @HOOK@ --label user_ups --out @OUT@"}]}]}}
BAD = {"type": "command"}   # no "command"
FINAL = {"text": "Final answer from fake model."}


def write(name, question, settings=None, managed=None, managed_d=None, user=USER_SETTINGS, prompt="the prompt",
          workspace_files=None, sentinels=(), turns=(FINAL,), **extra):
    d = os.path.join(CASES, name)
    os.makedirs(d, exist_ok=True)
    if os.path.isdir(os.path.join(d, "managed_settings.d")):
        shutil.rmtree(os.path.join(d, "managed_settings.d"))
    case = {"question": question, "prompt": prompt, "max_turns": 10, "timeout": 60, "sentinels": list(sentinels),
            "stable_ids": True, "extra_args": EXTRA, "output_format": "stream-json", "settle_s": 1}
    if workspace_files:
        case["workspace_files"] = workspace_files
    case.update(extra)
    json.dump(case, open(os.path.join(d, "case.json"), "w"), indent=2)
    json.dump(settings or {}, open(os.path.join(d, "settings.json"), "w"), indent=2)
    if user is not None:
        json.dump(user, open(os.path.join(d, "user_settings.json"), "w"), indent=2)
    if managed is not None:
        json.dump(managed, open(os.path.join(d, "managed_settings.json"), "w"), indent=2)
    if managed_d:
        os.makedirs(os.path.join(d, "managed_settings.d"))
        for fn, content in managed_d.items():
            json.dump(content, open(os.path.join(d, "managed_settings.d", fn), "w"), indent=2)
    json.dump({"turns": list(turns), "default_text": "Script exhausted.", "side_text": "Hook harness session"},
              open(os.path.join(d, "script.json"), "w"), indent=2)


# ---------------- Q1 ----------------
def variants(label, ctx):
    good = ctx_hook(label, ctx)
    base_hooks = {UPS: [{"hooks": [good]}]}
    env = {"MN": "mx"}
    return {
        "control": {"env": env, "hooks": base_hooks},
        "model_num": {"model": 5, "env": env, "hooks": base_hooks},
        "cleanup_str": {"cleanupPeriodDays": "x", "env": env, "hooks": base_hooks},
        "badhook_same_group": {"env": env, "hooks": {UPS: [{"hooks": [BAD, good]}]}},
        "badhook_sep_group": {"env": env, "hooks": {UPS: [{"hooks": [BAD]}, {"hooks": [good]}]}},
        "badhook_other_event": {"env": env, "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [BAD]}], UPS: [{"hooks": [good]}]}},
    }


SENT1 = ["MANAGED_CTX", "PROJECT_CTX", "USER_HOOK"]
for k, content in variants("managed_ups", "MANAGED_CTX").items():
    write("r14k_m_" + k, "managed-settings.json = %s ; project settings {} ; user hook echoes MN" % compact(content),
          managed=content, sentinels=SENT1)
for k, content in variants("project_ups", "PROJECT_CTX").items():
    write("r14k_p_" + k, "project .claude/settings.json = %s ; no managed file ; user hook echoes MN" % compact(content),
          settings=content, sentinels=SENT1)
# extra: structural hooks problem (pre-pass p2u drops only the entry) and a managed file that is not JSON
mv0 = variants("managed_ups", "MANAGED_CTX")
ev_obj = {"env": {"MN": "mx"}, "hooks": {"PreToolUse": {}, UPS: mv0["control"]["hooks"][UPS]}}
write("r14k_m_event_object", "managed-settings.json = %s" % compact(ev_obj), managed=ev_obj, sentinels=SENT1)
write("r14k_p_event_object", "project settings = same as r14k_m_event_object (PROJECT_CTX)",
      settings={"env": {"MN": "mx"}, "hooks": {"PreToolUse": {}, UPS: variants("project_ups", "PROJECT_CTX")["control"]["hooks"][UPS]}},
      sentinels=SENT1)
write("r14k_m_badjson", "managed-settings.json = control content with the final closing brace missing (not JSON)",
      managed=None, sentinels=SENT1)
_bad = json.dumps(mv0["control"], indent=2)[:-1]
open(os.path.join(CASES, "r14k_m_badjson", "managed_settings.json"), "w").write(_bad)
# managed-settings.d: a wrong-typed drop-in beside a good one
mv = variants("managed_ups", "MANAGED_CTX")
write("r14k_md_model_num",
      "managed-settings.d/10-hooks.json = {model:5, env, hooks}; no managed-settings.json",
      managed_d={"10-hooks.json": mv["model_num"]}, sentinels=SENT1)
write("r14k_md_badhook_same_group",
      "managed-settings.d/10-hooks.json = {env, hooks:{UPS:[{hooks:[BAD, good]}]}}",
      managed_d={"10-hooks.json": mv["badhook_same_group"]}, sentinels=SENT1)

# ---------------- Q2 ----------------
DEPLOY = {".claude/commands/deploy.md": "---\ndescription: deploy command\n---\nDEPLOY_BODY do the deploy with: $ARGUMENTS\n"}
BLOCK_A = q(compact({"decision": "block", "reason": "A"}))
SENT2 = ["DEPLOY_BODY", "UserPromptExpansion operation blocked", "UPS_REC"]


def upe_case(name, question, a_flags, b_flags, **extra):
    hooks = {"hooks": {UPE: [{"hooks": [hook("upe_A", *a_flags), hook("upe_B", *b_flags)]}],
                       UPS: [{"hooks": [hook("ups_rec", "--stdout UPS_REC")]}]}}
    write(name, question, settings=hooks, user=None, prompt="/deploy now", workspace_files=DEPLOY, sentinels=SENT2, **extra)


upe_case("r14k_upe_two_a_slow_block", "UPE: hook A (first) sleeps 0.5 s then {decision:block,reason:A}; hook B exit 2 stderr B at once",
         ["--sleep 0.5", "--stdout " + BLOCK_A], ["--stderr B", "--exit 2"])
upe_case("r14k_upe_two_b_slow_exit2", "UPE: hook A (first) {decision:block,reason:A} at once; hook B sleeps 0.5 s then exit 2 stderr B",
         ["--stdout " + BLOCK_A], ["--sleep 0.5", "--stderr B", "--exit 2"])
upe_case("r14k_upe_two_a_slow_block_text", "as r14k_upe_two_a_slow_block, --output-format text (plain print output)",
         ["--sleep 0.5", "--stdout " + BLOCK_A], ["--stderr B", "--exit 2"], output_format="text", extra_args=["--debug-file", "@OUT@/debug.log"])
upe_case("r14k_upe_two_b_slow_exit2_text", "as r14k_upe_two_b_slow_exit2, --output-format text (plain print output)",
         ["--stdout " + BLOCK_A], ["--sleep 0.5", "--stderr B", "--exit 2"], output_format="text", extra_args=["--debug-file", "@OUT@/debug.log"])
upe_case("r14k_upe_control", "UPE: both hooks only record (no block)", [], [])
print("ok")
