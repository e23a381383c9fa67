#!/usr/bin/env python3
"""Round-8 cases (cases/r8_*): Stop block cap (reset by tool calls, CLAUDE_CODE_STOP_HOOK_BLOCK_CAP), exit 2 plus
JSON stdout, missing hook scripts on Stop, >10k hook outputs, space-separated matchers, dedup with different `if`,
and the texts of non-blocking errors.  Same conventions as make_cases_r7.py (harness = /tmp/rec7 + round-8 patches).

Round-8 harness additions (hook_py_r8.patch, run_case_r8.patch, summarize_r8.patch):
  * bin/hook.py --block-until N: a counter file OUT/count.<label> (one byte per invocation, flock'ed); the n-th
    invocation (1-based) prints {"decision":"block","reason":"keep going n"} while n <= N, else prints nothing
    and exits 0.  The start record gets count_n and count_blocks.
  * run_case.sh: case.json "output_format": "stream-json" runs `-p PROMPT --output-format stream-json --verbose`.
  * summarize.py: stream-json events keep stderr/output/level/stop_reason/errors/permission_denials, and system
    events other than init/hook_started/hook_response are kept whole (_raw).
Hook stdout JSON is given with --stdout-file @CASE@/<file> (not --stdout), so that the JSON does not show up in
the `[<cmd>]` echo that Claude Code puts into error texts.

Per case: ./run_r8.sh <case>...  (run_case.sh, then timeline.txt and the normalised debug.log)
Re-run after editing: python3 make_cases_r8.py
"""
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
DEBUG = ["--debug-file", "@OUT@/debug.log"]


def q(s):
    return "'" + s.replace("'", "'\\''") + "'"


def hook_cmd(label, *flags):
    cmd = "@HOOK@ --label %s --out @OUT@" % label
    for f in flags:
        cmd += " " + f
    return cmd


def cmd_h(command, **kw):
    h = {"type": "command", "command": command}
    h.update(kw)
    return h


def bash(cmd, text="Running the command.", desc="cmd"):
    return {"text": text, "tool_use": {"name": "Bash", "input": {"command": cmd, "description": desc}}}


def write(text):
    return {"text": "Writing the file.", "tool_use": {"name": "Write", "input": {"file_path": "@WS@/w.txt",
                                                                                  "content": "written\n"}}}


FINAL = {"text": "Final answer from fake model."}
MARK1 = bash("date +%s.%N > @OUT@/marker_tool1_ran; echo hi", desc="Write marker")


def write_case(name, question, hooks, turns, prompt="Run the command please.", user_hooks=None, files=None,
               **extra):
    d = os.path.join(CASES, name)
    os.makedirs(d, exist_ok=True)
    case = {"question": question, "prompt": prompt, "max_turns": extra.pop("max_turns", 10),
            "timeout": extra.pop("timeout", 90), "sentinels": list(extra.pop("sentinels", [])),
            "stable_ids": True}
    case["extra_args"] = list(extra.pop("extra_args", [])) + DEBUG
    case.update(extra)
    json.dump(case, open(os.path.join(d, "case.json"), "w"), indent=2)
    json.dump({"hooks": hooks}, open(os.path.join(d, "settings.json"), "w"), indent=2)
    if user_hooks is not None:
        json.dump({"hooks": user_hooks}, open(os.path.join(d, "user_settings.json"), "w"), indent=2)
    for fn, content in (files or {}).items():
        with open(os.path.join(d, fn), "w") as f:
            f.write(content)
    script = {"turns": turns, "default_text": "Script exhausted.", "side_text": "Hook harness session"}
    json.dump(script, open(os.path.join(d, "script.json"), "w"), indent=2)


def compact(obj):
    return json.dumps(obj, separators=(",", ":"))


# ---------------------------------------------------------------- a. Stop cap and tool calls in between
def alt_turns(n):
    """Answer k (end_turn), then a Bash call `echo k`, alternating: the model answers every Stop feedback with a
    tool call and then ends its turn again."""
    t = []
    for k in range(1, n + 1):
        t.append({"text": "Answer %d." % k})
        t.append(bash("echo n%d" % k, text="Tool call %d." % k, desc="echo %d" % k))
    return t


STOP_COUNTED = lambda n: {"Stop": [{"hooks": [cmd_h(hook_cmd("stop", "--block-until %d" % n))]}]}

write_case("r8_stop_block_then_tool",
           "Stop hook always blocks ({\"decision\":\"block\",\"reason\":\"keep going n\"}) for its first 14 runs "
           "(counter file), then lets the turn end. The model answers every Stop feedback with a Bash call "
           "(echo nK) and then ends its turn again. Does the cap of 8 consecutive Stop blocks reset when a tool call "
           "happens between blocks? How many times does Stop run?",
           STOP_COUNTED(14), alt_turns(20), prompt="Say something.", max_turns=80, output_format="stream-json")

write_case("r8_stop_block_no_tool",
           "Control: same counted Stop hook (blocks its first 14 runs), the model just ends its turn each time "
           "(text only). Cap text and count; stream-json output to see what the user gets.",
           STOP_COUNTED(14), [{"text": "Answer %d." % k} for k in range(1, 31)], prompt="Say something.",
           max_turns=80, output_format="stream-json")

write_case("r8_stop_block_no_tool_json",
           "Control as r8_stop_block_no_tool with --output-format json (the -p result of a capped turn).",
           STOP_COUNTED(14), [{"text": "Answer %d." % k} for k in range(1, 31)], prompt="Say something.",
           max_turns=80)

# ---------------------------------------------------------------- b. CLAUDE_CODE_STOP_HOOK_BLOCK_CAP
for nm, val, until in (("2x", "2x", 14), ("neg1", "-1", 12), ("zero", "0", 12), ("3", "3", 14)):
    write_case("r8_stop_cap_env_" + nm,
               "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=%s; counted Stop hook blocks its first %d runs; the model just "
               "ends its turn each time. How many blocks before the cap ends the turn?" % (val, until),
               STOP_COUNTED(until), [{"text": "Answer %d." % k} for k in range(1, 31)], prompt="Say something.",
               max_turns=80, output_format="stream-json", env={"CLAUDE_CODE_STOP_HOOK_BLOCK_CAP": val})

# ---------------------------------------------------------------- c. exit 2 plus JSON stdout
POST_REC = {"PostToolUse": [{"matcher": "Bash", "hooks": [cmd_h(hook_cmd("post_rec"))]}]}
STOP_REC = {"Stop": [{"hooks": [cmd_h(hook_cmd("stop_rec"))]}]}


def with_recs(h, *recs):
    h = dict(h)
    for r in recs:
        h.update(r)
    return h


write_case("r8_exit2_json_pre_decision_deny",
           "PreToolUse prints {\"decision\":\"deny\"} (schema-invalid top-level decision) on stdout, STDERR1 on "
           "stderr, exits 2. Does the tool run? What does the model see?",
           with_recs({"PreToolUse": [{"matcher": "Bash", "hooks": [cmd_h(hook_cmd(
               "pre", "--stdout-file @CASE@/out_pre1.json", "--stderr STDERR1", "--exit 2"))]}]}, POST_REC),
           [MARK1, FINAL], files={"out_pre1.json": compact({"decision": "deny"})},
           output_format="stream-json", sentinels=["STDERR1"])

write_case("r8_exit2_json_pre_hso_deny",
           "PreToolUse prints hookSpecificOutput permissionDecision deny with reason JSONREASON, STDERR2 on stderr, "
           "exits 2. Which text reaches the model?",
           with_recs({"PreToolUse": [{"matcher": "Bash", "hooks": [cmd_h(hook_cmd(
               "pre", "--stdout-file @CASE@/out_pre2.json", "--stderr STDERR2", "--exit 2"))]}]}, POST_REC),
           [MARK1, FINAL], files={"out_pre2.json": compact({"hookSpecificOutput": {
               "hookEventName": "PreToolUse", "permissionDecision": "deny",
               "permissionDecisionReason": "JSONREASON"}})},
           output_format="stream-json", sentinels=["STDERR2", "JSONREASON"])

write_case("r8_exit2_json_stop_block",
           "Stop prints {\"decision\":\"block\",\"reason\":\"JSONREASON\"}, STDERR3 on stderr, exits 2 (first run "
           "only). What is the Stop feedback text?",
           {"Stop": [{"hooks": [cmd_h(hook_cmd(
               "stop", "--once", "--stdout-file @CASE@/out_stop3.json", "--stderr STDERR3", "--exit 2"))]}]},
           [{"text": "Answer 1."}, {"text": "Answer 2."}, {"text": "Answer 3."}], prompt="Say something.",
           files={"out_stop3.json": compact({"decision": "block", "reason": "JSONREASON"})},
           output_format="stream-json", sentinels=["STDERR3", "JSONREASON"])

write_case("r8_exit2_json_post_ctx_sys",
           "PostToolUse prints additionalContext CTX4 and systemMessage SYS4, STDERR4 on stderr, exits 2. Which of "
           "CTX4, SYS4, STDERR4 reach the model / the user?",
           {"PostToolUse": [{"matcher": "Bash", "hooks": [cmd_h(hook_cmd(
               "post", "--stdout-file @CASE@/out_post4.json", "--stderr STDERR4", "--exit 2"))]}]},
           [MARK1, FINAL], files={"out_post4.json": compact({"hookSpecificOutput": {
               "hookEventName": "PostToolUse", "additionalContext": "CTX4"}, "systemMessage": "SYS4"})},
           output_format="stream-json", sentinels=["STDERR4", "CTX4", "SYS4"])

# ---------------------------------------------------------------- d. Stop hook whose script is missing
for nm, command in (("py", "python3 /nonexistent/stop_hook.py"), ("sh", "sh /nonexistent/stop.sh")):
    write_case("r8_stop_missing_script_" + nm,
               "Stop hook command `%s` (the script does not exist), plus a recording Stop hook. Does Claude Code "
               "block/continue the turn (exit 2 from python) or treat it as a non-blocking error? Texts?" % command,
               {"Stop": [{"hooks": [cmd_h(command), cmd_h(hook_cmd("stop_rec"))]}]},
               [{"text": "Answer %d." % k} for k in range(1, 31)], prompt="Say something.", max_turns=40,
               output_format="stream-json", sentinels=["nonexistent"])

# ---------------------------------------------------------------- e. outputs over 10,000 characters
BIG_CTX = "CTX_BEGIN_" + "A" * 11980 + "CTX_END_MK"            # 12,000 characters
BIG_UPS = "UPS_BEGIN_" + "B" * 11980 + "UPS_END_MK"
BIG_SYS = "SYS_BEGIN_" + "C" * 11980 + "SYS_END_MK"
assert len(BIG_CTX) == len(BIG_UPS) == len(BIG_SYS) == 12000

write_case("r8_big_post_ctx",
           "PostToolUse additionalContext of exactly 12,000 characters (CTX_BEGIN_ + 'A'*11980 + CTX_END_MK). "
           "What does the model receive (full text, <persisted-output> wrapper, file path)? Is a file written?",
           {"PostToolUse": [{"matcher": "Bash", "hooks": [cmd_h(hook_cmd("post_big", "--stdout-file @CASE@/out_big_ctx.json"))]}]},
           [MARK1, FINAL], files={"out_big_ctx.json": compact({"hookSpecificOutput": {
               "hookEventName": "PostToolUse", "additionalContext": BIG_CTX}})},
           output_format="stream-json", sentinels=["CTX_BEGIN_", "CTX_END_MK", "persisted-output"])

write_case("r8_big_ups_stdout",
           "UserPromptSubmit plain stdout of exactly 12,000 characters (UPS_BEGIN_ + 'B'*11980 + UPS_END_MK). "
           "What does the model receive? Is a file written?",
           {"UserPromptSubmit": [{"hooks": [cmd_h(hook_cmd("ups_big", "--stdout-file @CASE@/out_big_ups.txt"))]}]},
           [FINAL], files={"out_big_ups.txt": BIG_UPS}, prompt="Say something.",
           output_format="stream-json", sentinels=["UPS_BEGIN_", "UPS_END_MK", "persisted-output"])

write_case("r8_big_system_message",
           "PostToolUse systemMessage of exactly 12,000 characters (SYS_BEGIN_ + 'C'*11980 + SYS_END_MK). Where "
           "does it go (model? user? transcript?), truncated or persisted?",
           {"PostToolUse": [{"matcher": "Bash", "hooks": [cmd_h(hook_cmd("post_bigsys", "--stdout-file @CASE@/out_big_sys.json"))]}]},
           [MARK1, FINAL], files={"out_big_sys.json": compact({"systemMessage": BIG_SYS})},
           output_format="stream-json", sentinels=["SYS_BEGIN_", "SYS_END_MK", "persisted-output"])

write_case("r8_big_ups_json_ctx",
           "(extra) UserPromptSubmit JSON additionalContext of exactly 12,000 characters (UPS_BEGIN_ + 'B'*11980 + "
           "UPS_END_MK). What does the model receive?",
           {"UserPromptSubmit": [{"hooks": [cmd_h(hook_cmd("ups_bigjson", "--stdout-file @CASE@/out_big_upsjson.json"))]}]},
           [FINAL], files={"out_big_upsjson.json": compact({"hookSpecificOutput": {
               "hookEventName": "UserPromptSubmit", "additionalContext": BIG_UPS}})}, prompt="Say something.",
           output_format="stream-json", sentinels=["UPS_BEGIN_", "UPS_END_MK", "persisted-output"])

# ---------------------------------------------------------------- f. matcher with a plain space
write_case("r8_matcher_space_list",
           "PreToolUse groups with matcher \"Bash Write\", \"Write Bash\" (plain space), control \"Bash|Write\", "
           "and \"Bash  Write\" (two spaces), \"Bash, Write\"; the model makes one Bash call and one Write call. "
           "Which fire for which tool?",
           {"PreToolUse": [{"matcher": m, "hooks": [cmd_h(hook_cmd(lbl))]} for m, lbl in (
               ("Bash Write", "m_bash_sp_write"), ("Write Bash", "m_write_sp_bash"), ("Bash|Write", "m_bar"),
               ("Bash  Write", "m_bash_2sp_write"), ("Bash, Write", "m_bash_comma_sp_write"))]},
           [MARK1, write(None), FINAL])

# ---------------------------------------------------------------- g. dedup with `if`
DEDUP = hook_cmd("dedup")
for nm, p_if, u_if in (("diff", "Bash(echo *)", "Bash(ls *)"), ("diff_rev", "Bash(ls *)", "Bash(echo *)"),
                       ("same", "Bash(echo *)", "Bash(echo *)")):
    write_case("r8_dedup_if_" + nm,
               "The same command string (hook.py --label dedup) as a PreToolUse hook in project settings with "
               "if %s and in user settings with if %s; the Bash call is `echo hi`. How many times does the "
               "command run?" % (p_if, u_if),
               {"PreToolUse": [{"matcher": "Bash", "hooks": [cmd_h(DEDUP, **{"if": p_if})]}]},
               [bash("echo hi", desc="echo"), FINAL],
               user_hooks={"PreToolUse": [{"matcher": "Bash", "hooks": [cmd_h(DEDUP, **{"if": u_if})]}]})

# ---------------------------------------------------------------- h. texts of non-blocking errors
NB_HOOKS = {"PreToolUse": [{"matcher": "Bash", "hooks": [
    cmd_h(hook_cmd("nb_two_lines", "--stderr \"$(printf 'L1\\nL2')\"", "--exit 1")),
    cmd_h(hook_cmd("nb_empty", "--exit 1"))]}]}
write_case("r8_nonblocking_text",
           "Two PreToolUse hooks: exit 1 with stderr \"L1\\nL2\" (two lines), and exit 1 with empty stderr. Every "
           "text the user could see (stream-json events, result, debug log lines, transcript).",
           NB_HOOKS, [MARK1, FINAL], output_format="stream-json", sentinels=["L1", "L2"])
write_case("r8_nonblocking_text_json",
           "As r8_nonblocking_text with --output-format json.",
           NB_HOOKS, [MARK1, FINAL], sentinels=["L1", "L2"])

# ---------------------------------------------------------------- a2. (extra) one tool call in the middle
write_case("r8_stop_block_tool_once",
           "(extra) Counted Stop hook blocks its first 20 runs. The model ends its turn with text after blocks 1-4, "
           "answers block 5 with one Bash call (echo mid) and then only ends its turn with text again. Without a "
           "reset the cap would end the turn at Stop run 9; with a reset at the tool call, at run 5+9=14.",
           STOP_COUNTED(20), [{"text": "Answer %d." % k} for k in range(1, 6)]
           + [bash("echo mid", text="Tool call.", desc="echo mid")]
           + [{"text": "Answer %d." % k} for k in range(6, 31)], prompt="Say something.",
           max_turns=80, output_format="stream-json")

# ---------------------------------------------------------------- c2. (extra) more exit 2 + JSON variants
for nm, ev, obj, err in (
        ("pre_hso_allow", "PreToolUse", {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                                                "permissionDecisionReason": "JSONREASON"}}, "STDERR5"),
        ("pre_empty_obj", "PreToolUse", {}, "STDERR6"),
        ("pre_toplevel_block", "PreToolUse", {"decision": "block", "reason": "JSONREASON"}, "STDERR7"),
        ("stop_invalid", "Stop", {"decision": "deny"}, "STDERR8"),
        ("stop_sysmsg_only", "Stop", {"systemMessage": "SYS9"}, "STDERR9")):
    fn = "out_%s.json" % nm
    if ev == "PreToolUse":
        hooks = with_recs({"PreToolUse": [{"matcher": "Bash", "hooks": [cmd_h(hook_cmd(
            "pre", "--stdout-file @CASE@/" + fn, "--stderr " + err, "--exit 2"))]}]}, POST_REC)
        turns, prompt = [MARK1, FINAL], "Run the command please."
    else:
        hooks = {"Stop": [{"hooks": [cmd_h(hook_cmd("stop", "--once", "--stdout-file @CASE@/" + fn, "--stderr " + err,
                                                    "--exit 2"))]}]}
        turns, prompt = [{"text": "Answer 1."}, {"text": "Answer 2."}, {"text": "Answer 3."}], "Say something."
    write_case("r8_exit2_json_" + nm,
               "(extra) %s prints %s on stdout, %s on stderr, exits 2 (Stop: first run only). Blocked? Which text "
               "reaches the model?" % (ev, compact(obj), err),
               hooks, turns, prompt=prompt, files={fn: compact(obj)}, output_format="stream-json",
               sentinels=[err, "JSONREASON", "SYS9"])

# ---------------------------------------------------------------- d2. (extra) the "missing script" rule's edges
write_case("r8_pre_missing_script_py",
           "(extra) PreToolUse command `python3 /nonexistent/pre_hook.py` (exit 2, \"can't open file\"): blocking "
           "like any exit 2, or non-blocking like on Stop?",
           with_recs({"PreToolUse": [{"matcher": "Bash", "hooks": [cmd_h("python3 /nonexistent/pre_hook.py")]}]},
                     POST_REC), [MARK1, FINAL], output_format="stream-json", sentinels=["nonexistent"])
write_case("r8_stop_fake_missing_text",
           "(extra) Stop hook (a real script) exits 2 with stderr \"error: No such file here\" and empty stdout "
           "(first run only). Is the missing-script rule text-based?",
           {"Stop": [{"hooks": [cmd_h(hook_cmd("stop", "--once", "--stderr 'error: No such file here'", "--exit 2"))]}]},
           [{"text": "Answer 1."}, {"text": "Answer 2."}, {"text": "Answer 3."}], prompt="Say something.",
           output_format="stream-json", sentinels=["No such file"])
write_case("r8_stop_fake_missing_text_stdout",
           "(extra) As r8_stop_fake_missing_text, but the hook also prints plain text MISSING_STDOUT on stdout.",
           {"Stop": [{"hooks": [cmd_h(hook_cmd("stop", "--once", "--stdout MISSING_STDOUT",
                                               "--stderr \"error: can't open it\"", "--exit 2"))]}]},
           [{"text": "Answer 1."}, {"text": "Answer 2."}, {"text": "Answer 3."}], prompt="Say something.",
           output_format="stream-json", sentinels=["can't open", "MISSING_STDOUT"])

# ---------------------------------------------------------------- e2. (extra) threshold and file naming
for n in (10000, 10001):
    txt = "CTX_BEGIN_" + "A" * (n - 20) + "CTX_END_MK"
    assert len(txt) == n
    write_case("r8_big_post_ctx_%d" % n,
               "(extra) PostToolUse additionalContext of exactly %d characters: inline or <persisted-output>?" % n,
               {"PostToolUse": [{"matcher": "Bash", "hooks": [cmd_h(hook_cmd("post_big", "--stdout-file @CASE@/out_ctx.json"))]}]},
               [MARK1, FINAL], files={"out_ctx.json": compact({"hookSpecificOutput": {
                   "hookEventName": "PostToolUse", "additionalContext": txt}})},
               output_format="stream-json", sentinels=["CTX_BEGIN_", "CTX_END_MK", "persisted-output"])
_two = {}
for i, ch in ((1, "D"), (2, "E")):
    _two["out_ctx%d.json" % i] = compact({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext":
                                         ("H%d_BEGIN_" % i) + ch * 11980 + ("H%d_END_MK" % i)}})
write_case("r8_big_post_ctx_two_hooks",
           "(extra) Two PostToolUse handlers, each with a 12,000-character additionalContext (H1_BEGIN_/H2_BEGIN_), plus a "
           "third with a short one (SHORT_CTX). File names (the -N- index) and order?",
           {"PostToolUse": [{"matcher": "Bash", "hooks": [
               cmd_h(hook_cmd("post_big1", "--stdout-file @CASE@/out_ctx1.json")),
               cmd_h(hook_cmd("post_short", "--stdout-file @CASE@/out_short.json")),
               cmd_h(hook_cmd("post_big2", "--sleep 0.3", "--stdout-file @CASE@/out_ctx2.json"))]}]},
           [MARK1, FINAL], files=dict(_two, **{"out_short.json": compact({"hookSpecificOutput": {
               "hookEventName": "PostToolUse", "additionalContext": "SHORT_CTX"}})}),
           output_format="stream-json", sentinels=["H1_BEGIN_", "H2_BEGIN_", "SHORT_CTX", "persisted-output"])

# ---------------------------------------------------------------- h2. (extra) trailing newline, blank stderr, stdout
def steps(*st):
    return "--steps " + q(json.dumps(list(st)))


write_case("r8_nonblocking_text_edges",
           "(extra) PreToolUse hooks exiting 1: stderr \"L1\\nL2\\n\" (trailing newline), stderr \"  \\n\" (blank), "
           "stdout OUT_TEXT with stderr ERR_TEXT. Texts in the transcript / debug log?",
           {"PreToolUse": [{"matcher": "Bash", "hooks": [
               cmd_h(hook_cmd("nb_trailing_nl", steps(["err", "L1\nL2\n"], ["exit", 1]))),
               cmd_h(hook_cmd("nb_blank", steps(["err", "  \n"], ["exit", 1]))),
               cmd_h(hook_cmd("nb_stdout", steps(["out", "OUT_TEXT\n"], ["err", "ERR_TEXT\n"], ["exit", 1])))]}]},
           [MARK1, FINAL], output_format="stream-json", sentinels=["L1", "OUT_TEXT", "ERR_TEXT"])

# ---------------------------------------------------------------- e3. (extra) chars vs bytes, preview cut at a newline
_multi = "MB_BEGIN_" + "\u00e9" * 5982 + "MB_END_MK"                 # 6,000 chars, 12,000 UTF-8 bytes... approx
_lines = "".join("LINE%04d_" % i + "x" * 30 + "\n" for i in range(300))   # 300 lines of 40 chars = 12,000 chars
write_case("r8_big_post_ctx_multibyte",
           "(extra) PostToolUse additionalContext of %d characters / %d UTF-8 bytes (mostly \\u00e9): is the "
           "10,000 limit in characters or bytes?" % (len(_multi), len(_multi.encode())),
           {"PostToolUse": [{"matcher": "Bash", "hooks": [cmd_h(hook_cmd("post_mb", "--stdout-file @CASE@/out_mb.json"))]}]},
           [MARK1, FINAL], files={"out_mb.json": json.dumps({"hookSpecificOutput": {
               "hookEventName": "PostToolUse", "additionalContext": _multi}}, ensure_ascii=False, separators=(",", ":"))},
           output_format="stream-json", sentinels=["MB_BEGIN_", "MB_END_MK", "persisted-output"])
write_case("r8_big_post_ctx_lines",
           "(extra) PostToolUse additionalContext of 300 lines x 40 chars (12,000 chars, newline-terminated lines): "
           "where is the 2KB preview cut?",
           {"PostToolUse": [{"matcher": "Bash", "hooks": [cmd_h(hook_cmd("post_lines", "--stdout-file @CASE@/out_lines.json"))]}]},
           [MARK1, FINAL], files={"out_lines.json": compact({"hookSpecificOutput": {
               "hookEventName": "PostToolUse", "additionalContext": _lines}})},
           output_format="stream-json", sentinels=["LINE0000_", "LINE0299_", "persisted-output"])
_lines2 = "FIRST_LINE_20_CHARS\n" + "".join("LINE%04d_" % i + "x" * 30 + "\n" for i in range(299)) + "y" * 20
assert len(_lines2) == 12000
write_case("r8_big_post_ctx_lines_offset",
           "(extra) As r8_big_post_ctx_lines but the first line is 20 chars, so char 2000 falls mid-line: is the "
           "preview cut back to the last newline?",
           {"PostToolUse": [{"matcher": "Bash", "hooks": [cmd_h(hook_cmd("post_lines", "--stdout-file @CASE@/out_lines.json"))]}]},
           [MARK1, FINAL], files={"out_lines.json": compact({"hookSpecificOutput": {
               "hookEventName": "PostToolUse", "additionalContext": _lines2}})},
           output_format="stream-json", sentinels=["FIRST_LINE", "persisted-output"])
