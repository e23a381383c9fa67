#!/usr/bin/env python3
"""Round-10 cases (cases/r10_seam_*): where Claude Code 2.1.197 ends a text block of a user message
with an extra "\n" (FINDINGS.md §38). Each case mixes PreToolUse, PostToolUse and PostToolBatch
`additionalContext` so that the order of the texts, the newline between them and the folding of a
PostToolBatch text into a tool_result can be told apart. `seam_check.py` checks the rule against
every recording.

Same conventions as make_cases_r8.py (a copy of the harness with bin/hook.py; the model's script in
script.json). Per case: ./run_all.sh 'r10_seam_*'   Re-run after editing: python3 make_cases_r10.py
"""
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
DEBUG = ["--debug-file", "@OUT@/debug.log"]


def hook(label, *flags, timeout=None, **fields):
    cmd = "@HOOK@ --label %s --out @OUT@" % label
    for f in flags:
        cmd += " " + f
    h = {"type": "command", "command": cmd}
    if timeout is not None:
        h["timeout"] = timeout
    h.update(fields)
    return h


def q(s):
    return "'" + s.replace("'", "'\\''") + "'"


def js(obj):
    return q(json.dumps(obj))


def bash(cmd, text="Running the command.", desc="cmd"):
    return {"text": text, "tool_use": {"name": "Bash", "input": {"command": cmd, "description": desc}}}


def bash2(cmd1, cmd2, text="Running two commands.", desc1="first", desc2="second"):
    """ONE assistant message with TWO Bash tool_use blocks (a batch)."""
    return {"text": text, "tool_uses": [{"name": "Bash", "input": {"command": cmd1, "description": desc1}},
                                        {"name": "Bash", "input": {"command": cmd2, "description": desc2}}]}


def marker_bash(marker="marker_tool_ran", extra=""):
    return bash("echo ran > @OUT@/%s; echo hi%s" % (marker, extra), desc="Write marker")


def hso(event, **fields):
    return {"hookSpecificOutput": dict(hookEventName=event, **fields)}


def write_case(name, question, hooks, turns, prompt="Run the command please.", user_settings=None,
               settings_extra=None, sentinels=(), debug=True, side_turns=None, **extra):
    side_text = extra.pop("side_text", None)
    script_extra = {k: extra.pop(k) for k in ("compact_match", "compact_text", "turn_selection") if k in extra}
    d = os.path.join(CASES, name)
    os.makedirs(d, exist_ok=True)
    for stale in ("user_settings.json",):
        p = os.path.join(d, stale)
        if os.path.exists(p):
            os.remove(p)
    case = {"question": question, "prompt": prompt, "max_turns": extra.pop("max_turns", 10),
            "timeout": extra.pop("timeout", 60), "sentinels": list(sentinels), "stable_ids": True}
    args = list(extra.pop("extra_args", []))
    if debug:
        args += DEBUG
    case["extra_args"] = args
    wf = dict(extra.pop("workspace_files", {}))
    if wf:
        case["workspace_files"] = wf
    case.update(extra)
    json.dump(case, open(os.path.join(d, "case.json"), "w"), indent=2)
    settings = dict(settings_extra or {})
    if hooks is not None:
        settings["hooks"] = hooks
    json.dump(settings, open(os.path.join(d, "settings.json"), "w"), indent=2)
    script = {"turns": turns, "default_text": "Script exhausted.", "side_text": side_text or "Hook harness session"}
    if side_turns:
        script["side_turns"] = side_turns
    script.update(script_extra)
    json.dump(script, open(os.path.join(d, "script.json"), "w"), indent=2)
    if user_settings is not None:
        json.dump(user_settings, open(os.path.join(d, "user_settings.json"), "w"), indent=2)

# ===================================================== seam cases (trailing "\n" between text blocks)
FINAL = {"text": "Final answer from fake model."}
TWO = [bash2("echo one > @OUT@/marker_one; echo one", "echo two > @OUT@/marker_two; echo two"), FINAL]
ONE = [marker_bash(), FINAL]


def ctx(event, label, text, **fields):
    return hook(label, "--stdout " + js(hso(event, additionalContext=text)), **fields)


write_case("r10_seam_single_post_ctx_batch",
           "One Bash call; PostToolUse additionalContext POST_CTX + PostToolBatch additionalContext BATCH_CTX. Prediction: BATCH folded into the tool_result string, POST ctx a separate text without trailing newline.",
           {"PostToolUse": [{"matcher": "Bash", "hooks": [ctx("PostToolUse", "post_ctx", "POST_CTX_SENTINEL")]}],
            "PostToolBatch": [{"hooks": [ctx("PostToolBatch", "batch_ctx", "BATCH_CTX_SENTINEL")]}]},
           ONE, sentinels=["POST_CTX_SENTINEL", "BATCH_CTX_SENTINEL"])
write_case("r10_seam_single_pre_ctx_batch",
           "One Bash call; PreToolUse additionalContext PRE_CTX + PostToolBatch additionalContext BATCH_CTX. Prediction: [tool_result 'hi', PRE (no \\n), BATCH (no \\n)], nothing folded.",
           {"PreToolUse": [{"matcher": "Bash", "hooks": [ctx("PreToolUse", "pre_ctx", "PRE_CTX_SENTINEL")]}],
            "PostToolBatch": [{"hooks": [ctx("PostToolBatch", "batch_ctx", "BATCH_CTX_SENTINEL")]}]},
           ONE, sentinels=["PRE_CTX_SENTINEL", "BATCH_CTX_SENTINEL"])
write_case("r10_seam_two_pre_post_batch",
           "Two Bash calls; PreToolUse and PostToolUse additionalContext per call (PRE1/PRE2/POST1/POST2 via `if`) + PostToolBatch BATCH. Prediction: [TR1, TR2, PRE1\\n, POST1\\n, PRE2, BATCH\\n, POST2].",
           {"PreToolUse": [{"matcher": "Bash", "hooks": [ctx("PreToolUse", "pre1", "PRE1_SENTINEL", **{"if": "Bash(echo one*)"}),
                                                         ctx("PreToolUse", "pre2", "PRE2_SENTINEL", **{"if": "Bash(echo two*)"})]}],
            "PostToolUse": [{"matcher": "Bash", "hooks": [ctx("PostToolUse", "post1", "POST1_SENTINEL", **{"if": "Bash(echo one*)"}),
                                                          ctx("PostToolUse", "post2", "POST2_SENTINEL", **{"if": "Bash(echo two*)"})]}],
            "PostToolBatch": [{"hooks": [ctx("PostToolBatch", "batch_ctx", "BATCH_CTX_SENTINEL")]}]},
           TWO, sentinels=["PRE1_SENTINEL", "PRE2_SENTINEL", "POST1_SENTINEL", "POST2_SENTINEL", "BATCH_CTX_SENTINEL"])
write_case("r10_seam_two_post_first_only_batch",
           "Two Bash calls; PostToolUse additionalContext only for the FIRST call (POST1 via `if`) + PostToolBatch BATCH. Prediction: [TR1, TR2, POST1, BATCH], no trailing newlines, BATCH not folded.",
           {"PostToolUse": [{"matcher": "Bash", "hooks": [ctx("PostToolUse", "post1", "POST1_SENTINEL", **{"if": "Bash(echo one*)"})]}],
            "PostToolBatch": [{"hooks": [ctx("PostToolBatch", "batch_ctx", "BATCH_CTX_SENTINEL")]}]},
           TWO, sentinels=["POST1_SENTINEL", "BATCH_CTX_SENTINEL"])
