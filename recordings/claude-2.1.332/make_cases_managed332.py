"""Managed-settings cases re-recorded with Claude Code 2.1.332 (cases/r14k_m_*, r14k_md_* as in
../claude/make_cases_r14k.py, plus new m332_* cases).
Q1: managed settings (/etc/claude-code/managed-settings.json, written only inside a private mount namespace with an
    overlay /etc, see run_r14k.sh and the round-14k block of run_case.sh) with a wrong-typed setting or a bad hook entry,
    vs the same content as the project .claude/settings.json.
Q2: UserPromptExpansion with two blocking hooks (decision:block after 0.5 s vs exit 2 at once, and swapped).
Run with ./run_managed.sh cases/r14k_m* cases/m332_* (each in a private mount namespace, overlay /etc).
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
# extra: structural hooks problem (pre-pass p2u drops only the entry) and a managed file that is not JSON
mv0 = variants("managed_ups", "MANAGED_CTX")
ev_obj = {"env": {"MN": "mx"}, "hooks": {"PreToolUse": {}, UPS: mv0["control"]["hooks"][UPS]}}
write("r14k_m_event_object", "managed-settings.json = %s" % compact(ev_obj), managed=ev_obj, sentinels=SENT1)
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


# ---------------- new cases for 2.1.332 (m332_*) ----------------
ENV = {"MN": "mx"}
GOOD = ctx_hook("managed_ups", "MANAGED_CTX")
UPS_GOOD = [{"hooks": [GOOD]}]
BAD2 = {"type": "command", "command": 5}
PRE_BAD = [{"matcher": "Bash", "hooks": [BAD]}]
PRE_GOOD = [{"matcher": "Bash", "hooks": [hook("managed_pre")]}]
NEW = {
    # a wrong entry under a non-guard event other than UPS
    "m332_badhook_stop": {"env": ENV, "hooks": {"Stop": [{"hooks": [BAD]}], UPS: UPS_GOOD}},
    # two wrong entries under one event, around the good one
    "m332_two_bad_same_group": {"env": ENV, "hooks": {UPS: [{"hooks": [BAD, GOOD, BAD2]}]}},
    # a wrong matcher group (matcher not a string) under a non-guard event
    "m332_bad_group_matcher": {"env": ENV, "hooks": {UPS: [{"matcher": 5, "hooks": [hook("ups_in_bad_group")]}, {"hooks": [GOOD]}]}},
    # the other guard events
    "m332_badhook_permreq": {"env": ENV, "hooks": {"PermissionRequest": PRE_BAD, UPS: UPS_GOOD}},
    "m332_badhook_skillshell": {"env": ENV, "hooks": {"PreSkillShellCommand": PRE_BAD, UPS: UPS_GOOD}},
    # guard event's list null (dropped alone?) and a non-guard event's list an object
    "m332_pre_null": {"env": ENV, "hooks": {"PreToolUse": None, UPS: UPS_GOOD}},
    "m332_stop_object": {"env": ENV, "hooks": {"Stop": {}, UPS: UPS_GOOD}},
    # unknown event
    "m332_unknown_event": {"env": ENV, "hooks": {"NotAnEvent": [{"hooks": [hook("x")]}], UPS: UPS_GOOD}},
    # a managed file whose only policy content is hooks with a wrong guard entry (nothing left after dropping hooks)
    "m332_pre_bad_hooks_only": {"hooks": {"PreToolUse": PRE_BAD, UPS: UPS_GOOD}},
    # a guard hook written outside hooks (top level), hooks itself fine
    "m332_guard_outside_hooks": {"env": ENV, "PreToolUse": PRE_GOOD, "hooks": {UPS: UPS_GOOD}},
    # a guard hook nested under another setting
    "m332_guard_under_setting": {"env": ENV, "permissions": {"hooks": {"PreToolUse": PRE_GOOD}}, "hooks": {UPS: UPS_GOOD}},
    # settings that bear on hooks, wrong or null
    "m332_amho_true": {"env": ENV, "allowManagedHooksOnly": True, "hooks": {UPS: UPS_GOOD}},
    "m332_amho_str": {"env": ENV, "allowManagedHooksOnly": "yes", "hooks": {UPS: UPS_GOOD}},
    "m332_amho_null": {"env": ENV, "allowManagedHooksOnly": None, "hooks": {UPS: UPS_GOOD}},
    "m332_disable_str": {"env": ENV, "disableAllHooks": "yes", "hooks": {UPS: UPS_GOOD}},
    "m332_disable_null": {"env": ENV, "disableAllHooks": None, "hooks": {UPS: UPS_GOOD}},
    "m332_disable_true": {"env": ENV, "disableAllHooks": True, "hooks": {UPS: UPS_GOOD}},
    # a wrong env (dropped alone? hooks kept)
    "m332_env_list": {"env": ["MN=mx"], "hooks": {UPS: UPS_GOOD}},
    # settings only managed settings may set, wrong-typed, and a managed-only one right
    "m332_managed_only_wrong": {"env": ENV, "isolation": 5, "deniedModels": 5, "hooks": {UPS: UPS_GOOD}},
    "m332_managed_only_ok": {"env": ENV, "deniedModels": ["claude-nothing-1"], "hooks": {UPS: UPS_GOOD}},
    # a restricting setting null beside a wrong one
    "m332_null_restricting": {"env": ENV, "allowManagedPermissionRulesOnly": None, "model": 5, "hooks": {UPS: UPS_GOOD}},
}
for name, content in NEW.items():
    write(name, "managed-settings.json = %s ; project settings {} ; user hook echoes MN" % compact(content),
          managed=content, sentinels=SENT1)
# drop-ins
write("m332_md_pre_bad_plus_base",
      "managed-settings.json = control (managed_ups, MANAGED_CTX); managed-settings.d/20-pre.json = {env:{MD:md}, hooks:{PreToolUse:[BAD], UPS:[managed_d_ups MANAGED_D_CTX]}}",
      managed=mv["control"],
      managed_d={"20-pre.json": {"env": {"MD": "md"}, "hooks": {"PreToolUse": PRE_BAD, UPS: [{"hooks": [ctx_hook("managed_d_ups", "MANAGED_D_CTX")]}]}}},
      sentinels=SENT1 + ["MANAGED_D_CTX"])
write("m332_md_badjson_plus_good",
      "managed-settings.d/10-good.json = control; managed-settings.d/20-bad.json not JSON",
      managed_d={"10-good.json": mv["control"]}, sentinels=SENT1)
open(os.path.join(CASES, "m332_md_badjson_plus_good", "managed_settings.d", "20-bad.json"), "w").write('{"env": {"MX": "1"}')
write("m332_md_override",
      "managed-settings.json = {env:{MN:base}, hooks UPS managed_ups}; managed-settings.d/10-x.json = {env:{MN:dropin}, hooks UPS managed_d_ups}",
      managed={"env": {"MN": "base"}, "hooks": {UPS: UPS_GOOD}},
      managed_d={"10-x.json": {"env": {"MN": "dropin"}, "hooks": {UPS: [{"hooks": [ctx_hook("managed_d_ups", "MANAGED_D_CTX")]}]}}},
      sentinels=SENT1 + ["MANAGED_D_CTX"])
print("ok (m332)")
