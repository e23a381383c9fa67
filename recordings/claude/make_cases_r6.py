#!/usr/bin/env python3
"""Round-6 cases (cases/r6_*): a synchronously configured hook whose FIRST
stdout line is {"async":true} (extends cases/r2_async_first_line).  Same
conventions as make_cases_r3.py / make_cases_r5.py (run the r3 patches first).

Round-6 harness additions (hook_py_r6.patch, summarize_r6.patch):
  * bin/hook.py --steps JSON: after --sleep, run [["out", TEXT], ["err", TEXT],
    ["errbytes", N], ["sleep", S], ["touch", PATH], ["exit", N]] in order, each
    flushed, each logged to hooks.jsonl as phase=step with its time (and the
    write error, e.g. BrokenPipeError, if any).  --log-term: on SIGTERM/SIGHUP/
    SIGINT log phase=signal and exit 143 (so a kill is visible).
  * summarize.py keeps those as hooks[].steps / hooks[].signal (t_s relative to
    the run start).
  * timeline.py RUN_DIR: one merged, time-ordered view (API requests, hook
    start/steps/end, tool markers, hook lines of the debug log) -> timeline.txt.

The first tool call writes `date +%s.%N` into marker_tool1_ran, so the time
it ran is recorded (later calls: the debug log's `[Stall] tool_dispatch_start/
end` lines).  The async hook is restricted to the first Bash call with
`if: "Bash(date *)"`.  (An `if` matches any subcommand, and a first attempt
with `echo $EPOCHREALTIME > marker` in the later calls made `Bash(date *)`
fire for them too -- no "Skipping hook" debug line -- so later calls are plain
`sleep N; echo second` / `echo third`.)

Re-run after editing: python3 make_cases_r6.py
"""
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
DEBUG = ["--debug-file", "@OUT@/debug.log"]


def hook(label, *flags, **fields):
    cmd = "@HOOK@ --label %s --out @OUT@" % label
    for f in flags:
        cmd += " " + f
    h = {"type": "command", "command": cmd}
    h.update(fields)
    return h


def q(s):
    return "'" + s.replace("'", "'\\''") + "'"


def js(obj):
    return q(json.dumps(obj))


def steps(*st):
    return "--log-term --steps " + q(json.dumps(list(st)))


def compact(obj):
    return json.dumps(obj, separators=(",", ":"))


def bash(cmd, text="Running the command.", desc="cmd"):
    return {"text": text, "tool_use": {"name": "Bash", "input": {"command": cmd, "description": desc}}}


FINAL = {"text": "Final answer from fake model."}
FIRST = bash("date +%s.%N > @OUT@/marker_tool1_ran; echo hi", desc="Write marker")
IF_FIRST = "Bash(date *)"


def later(sleep_s):
    return [bash("sleep %s; echo second" % sleep_s, desc="slow second"),
            bash("echo third", desc="third"),
            FINAL]


ASYNC_LINE = '{"async":true}\n'


def post_ctx(text):
    return compact({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": text}})


def write_case(name, question, hooks, turns, prompt="Run the command please.", settings_extra=None,
               sentinels=(), **extra):
    d = os.path.join(CASES, name)
    os.makedirs(d, exist_ok=True)
    case = {"question": question, "prompt": prompt, "max_turns": extra.pop("max_turns", 10),
            "timeout": extra.pop("timeout", 60), "sentinels": list(sentinels), "stable_ids": True}
    case["extra_args"] = list(extra.pop("extra_args", [])) + DEBUG
    wf = dict(extra.pop("workspace_files", {}))
    if wf:
        case["workspace_files"] = wf
    case.update(extra)
    json.dump(case, open(os.path.join(d, "case.json"), "w"), indent=2)
    settings = dict(settings_extra or {})
    if hooks is not None:
        settings["hooks"] = hooks
    json.dump(settings, open(os.path.join(d, "settings.json"), "w"), indent=2)
    script = {"turns": turns, "default_text": "Script exhausted.", "side_text": "Hook harness session"}
    json.dump(script, open(os.path.join(d, "script.json"), "w"), indent=2)


def post_group(h):
    return {"PostToolUse": [{"matcher": "Bash", "hooks": [h]}]}


# 1. PreToolUse: first line async, then (1 s later) a deny JSON, stderr, exit 2
PRE_DENY = compact({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                           "permissionDecisionReason": "PRE_DENY_REASON_SENTINEL"}})
write_case("r6_async_first_line_pre_deny",
           "PreToolUse(Bash) hook prints {\"async\":true}\\n, sleeps 1 s, prints a deny JSON (reason "
           "PRE_DENY_REASON_SENTINEL), writes stderr PRE_DENY_STDERR_SENTINEL and exits 2. Does the tool run? "
           "How long does the PreToolUse wait? What reaches the model with the later tool results?",
           {"PreToolUse": [{"matcher": "Bash", "hooks": [hook("pre_async_deny", steps(
               ["out", ASYNC_LINE], ["sleep", 1], ["out", PRE_DENY + "\n"],
               ["err", "PRE_DENY_STDERR_SENTINEL\n"], ["exit", 2]), **{"if": IF_FIRST})]}]},
           [FIRST] + later(2), sentinels=["PRE_DENY_REASON_SENTINEL", "PRE_DENY_STDERR_SENTINEL"], settle_s=1)

# 1b. same, the late JSON also carries additionalContext and systemMessage
PRE_DENY_CTX = compact({"systemMessage": "PRE_SYSMSG_SENTINEL",
                        "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                               "permissionDecisionReason": "PRE_DENY_REASON_SENTINEL",
                                               "additionalContext": "PRE_LATE_CTX_SENTINEL"}})
write_case("r6_async_first_line_pre_deny_ctx",
           "Variant of r6_async_first_line_pre_deny: the late deny JSON also has systemMessage PRE_SYSMSG_SENTINEL "
           "and additionalContext PRE_LATE_CTX_SENTINEL; exit 0 (no stderr). Which of these reach the model?",
           {"PreToolUse": [{"matcher": "Bash", "hooks": [hook("pre_async_deny_ctx", steps(
               ["out", ASYNC_LINE], ["sleep", 1], ["out", PRE_DENY_CTX + "\n"]), **{"if": IF_FIRST})]}]},
           [FIRST] + later(2),
           sentinels=["PRE_DENY_REASON_SENTINEL", "PRE_SYSMSG_SENTINEL", "PRE_LATE_CTX_SENTINEL"], settle_s=1)

# 2. no newline after {"async":true}
write_case("r6_async_first_line_no_newline",
           "PostToolUse hook prints {\"async\":true} with NO newline (flushed), sleeps 3 s, then prints "
           "\\n + additionalContext LATE_CTX_SENTINEL. Backgrounded at once? Does the context reach the model with "
           "the next tool result (second Bash sleeps 4 s)?",
           post_group(hook("post_async_nonl", steps(
               ["out", '{"async":true}'], ["sleep", 3], ["out", "\n" + post_ctx("LATE_CTX_SENTINEL")]),
               **{"if": IF_FIRST})),
           [FIRST] + later(4), sentinels=["LATE_CTX_SENTINEL"], settle_s=1)

# 3. asyncTimeout 1500 in the first line, hook runs 4 s
write_case("r6_async_first_line_timeout",
           "PostToolUse hook prints {\"async\":true,\"asyncTimeout\":1500}\\n, sleeps 4 s, then prints "
           "additionalContext TOO_LATE_CTX_SENTINEL and touches marker_hook_finished. Killed after 1.5 s? "
           "Does the context reach the model (second Bash sleeps 5 s)?",
           post_group(hook("post_async_timeout", steps(
               ["out", '{"async":true,"asyncTimeout":1500}\n'], ["sleep", 4],
               ["out", post_ctx("TOO_LATE_CTX_SENTINEL") + "\n"], ["touch", "@OUT@/marker_hook_finished"]),
               **{"if": IF_FIRST})),
           [FIRST] + later(5), sentinels=["TOO_LATE_CTX_SENTINEL"], settle_s=1)

# 3b. the handler's own `timeout` (2 s) after the first line backgrounded it
write_case("r6_async_first_line_cfg_timeout",
           "PostToolUse handler with \"timeout\": 2 prints {\"async\":true}\\n, sleeps 4 s, then prints "
           "additionalContext CFG_TIMEOUT_CTX_SENTINEL and touches marker_hook_finished. Does the configured "
           "timeout still kill it once it is backgrounded (second Bash sleeps 5 s)?",
           post_group(hook("post_async_cfg_timeout", steps(
               ["out", ASYNC_LINE], ["sleep", 4],
               ["out", post_ctx("CFG_TIMEOUT_CTX_SENTINEL") + "\n"], ["touch", "@OUT@/marker_hook_finished"]),
               timeout=2, **{"if": IF_FIRST})),
           [FIRST] + later(5), sentinels=["CFG_TIMEOUT_CTX_SENTINEL"], settle_s=1)

# 4. first line split across two writes
write_case("r6_async_first_line_split",
           "PostToolUse hook prints {\"async\": (flushed), sleeps 0.5 s, prints true}\\n, sleeps 1 s, prints "
           "additionalContext SPLIT_CTX_SENTINEL. Backgrounded (after the 0.5 s)? Delivered with the next tool "
           "result (second Bash sleeps 3 s)?",
           post_group(hook("post_async_split", steps(
               ["out", '{"async":'], ["sleep", 0.5], ["out", 'true}\n'], ["sleep", 1],
               ["out", post_ctx("SPLIT_CTX_SENTINEL") + "\n"]), **{"if": IF_FIRST})),
           [FIRST] + later(3), sentinels=["SPLIT_CTX_SENTINEL"], settle_s=1)

# 5. SessionStart
write_case("r6_async_first_line_sessionstart",
           "SessionStart hook prints {\"async\":true}\\n, sleeps 1 s, prints SessionStart additionalContext "
           "SS_LATE_SENTINEL. Under -p: backgrounded or forced sync (debug)? Where does SS_LATE_SENTINEL show?",
           {"SessionStart": [{"hooks": [hook("ss_async", steps(
               ["out", ASYNC_LINE], ["sleep", 1],
               ["out", compact({"hookSpecificOutput": {"hookEventName": "SessionStart",
                                                       "additionalContext": "SS_LATE_SENTINEL"}}) + "\n"]))]}]},
           [bash("sleep 2; date +%s.%N > @OUT@/marker_tool1_ran; echo first", desc="slow first"),
            bash("echo second", desc="second"), FINAL],
           sentinels=["SS_LATE_SENTINEL"], settle_s=1)

# 6. 1 MB of stderr after backgrounding
write_case("r6_async_first_line_stderr_flood",
           "PostToolUse hook prints {\"async\":true}\\n, sleeps 0.3 s, writes 1 MiB to stderr, then prints "
           "additionalContext FLOOD_CTX_SENTINEL. Does it finish (stderr still drained) and is the context "
           "delivered (second Bash sleeps 3 s)?",
           post_group(hook("post_async_flood", steps(
               ["out", ASYNC_LINE], ["sleep", 0.3], ["errbytes", 1048576],
               ["out", post_ctx("FLOOD_CTX_SENTINEL") + "\n"]), **{"if": IF_FIRST})),
           [FIRST] + later(3), sentinels=["FLOOD_CTX_SENTINEL"], settle_s=1)

# 7. exit 2 with stderr after backgrounding
write_case("r6_async_first_line_exit2_later",
           "PostToolUse hook prints {\"async\":true}\\n, sleeps 1 s, writes stderr LATE_ERR_SENTINEL and exits 2. "
           "Does anything reach the model with later tool results (second Bash sleeps 3 s)?",
           post_group(hook("post_async_exit2", steps(
               ["out", ASYNC_LINE], ["sleep", 1], ["err", "LATE_ERR_SENTINEL\n"], ["exit", 2]),
               **{"if": IF_FIRST})),
           [FIRST] + later(3), sentinels=["LATE_ERR_SENTINEL"], settle_s=1)

# 8. (extra) past the 15 s default registry timeout
write_case("r6_async_first_line_over_default",
           "PostToolUse hook prints {\"async\":true}\\n (registry timeout 15000 ms by default), sleeps 17 s, prints "
           "additionalContext OVER_DEFAULT_CTX_SENTINEL and touches marker_hook_finished. Killed at 15 s? "
           "Delivered with the next tool result (second Bash sleeps 18 s)?",
           post_group(hook("post_async_over_default", steps(
               ["out", ASYNC_LINE], ["sleep", 17],
               ["out", post_ctx("OVER_DEFAULT_CTX_SENTINEL") + "\n"], ["touch", "@OUT@/marker_hook_finished"]),
               **{"if": IF_FIRST})),
           [FIRST] + later(18), sentinels=["OVER_DEFAULT_CTX_SENTINEL"], settle_s=1, timeout=90)

# 9. (extra) still running when the -p session ends
_teardown_hooks = post_group(hook("post_async_teardown", steps(
    ["out", ASYNC_LINE], ["sleep", 4], ["touch", "@OUT@/marker_hook_finished"]), **{"if": IF_FIRST}))
_teardown_hooks["SessionEnd"] = [{"hooks": [hook("session_end")]}]
write_case("r6_async_first_line_teardown",
           "PostToolUse hook prints {\"async\":true}\\n then sleeps 4 s; the model answers at once. Does -p wait, "
           "kill it (SIGTERM logged by --log-term), and does SessionEnd run?",
           _teardown_hooks, [FIRST, FINAL], settle_s=5)

# 5b. (extra) the only forced-sync path found in the bundle: --init-only runs Setup and SessionStart
# with forceSyncExecution:true
write_case("r6_async_first_line_sessionstart_init_only",
           "`claude -p --init-only` (runs Setup init + SessionStart startup hooks with forceSyncExecution, then "
           "exits): SessionStart hook prints {\"async\":true}\\n, sleeps 1 s, prints additionalContext "
           "SS_LATE_SENTINEL. Debug 'forceSyncExecution is true'? Does it wait the 1 s?",
           {"SessionStart": [{"hooks": [hook("ss_async", steps(
               ["out", ASYNC_LINE], ["sleep", 1],
               ["out", compact({"hookSpecificOutput": {"hookEventName": "SessionStart",
                                                       "additionalContext": "SS_LATE_SENTINEL"}}) + "\n"]))]}],
            "Setup": [{"hooks": [hook("setup_async", steps(["out", ASYNC_LINE], ["sleep", 1]))]}]},
           [FINAL], extra_args=["--init-only"], sentinels=["SS_LATE_SENTINEL"], settle_s=1)

# 7b. (extra) exit 2 AND a JSON line with additionalContext
write_case("r6_async_first_line_exit2_ctx",
           "PostToolUse hook prints {\"async\":true}\\n, sleeps 1 s, prints additionalContext EXIT2_CTX_SENTINEL, "
           "writes stderr LATE_ERR2_SENTINEL and exits 2. Is the context still delivered despite exit 2? "
           "(second Bash sleeps 3 s)",
           post_group(hook("post_async_exit2_ctx", steps(
               ["out", ASYNC_LINE], ["sleep", 1], ["out", post_ctx("EXIT2_CTX_SENTINEL") + "\n"],
               ["err", "LATE_ERR2_SENTINEL\n"], ["exit", 2]), **{"if": IF_FIRST})),
           [FIRST] + later(3), sentinels=["EXIT2_CTX_SENTINEL", "LATE_ERR2_SENTINEL"], settle_s=1)
