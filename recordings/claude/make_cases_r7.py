#!/usr/bin/env python3
"""Round-7 cases (cases/r7_*): SessionEnd after async hooks at -p teardown,
when the pending hook ignores SIGTERM.  Follow-up of r6_async_first_line_teardown
(FINDINGS §34) and r2_async_teardown.  Same conventions as make_cases_r6.py
(apply the r3 patches, hook_py_r6.patch and summarize_r6.patch first, then the
round-7 ones).

Round-7 harness additions (hook_py_r7.patch, fake_api_r7.patch, run_case_r7.patch,
summarize_r7.patch, timeline_r7.patch; apply with patch -p1 in the harness root after
the r3/r6 ones, timeline.py copied there first):
  * bin/hook.py --term-continue: on SIGTERM/SIGHUP/SIGINT log phase=signal with
    continued=true and carry on (round 6's --log-term logs and exits 143).
  * bin/hook.py --watch-death: a double-forked, setsid'd watcher (stdio
    /dev/null, so it holds none of claude's pipes and is not in the hook's
    process group or process tree) polls /proc/<pid>/stat of the hook and of
    its parent (the `/bin/sh -c` wrapper Claude Code spawns) every 0.5 ms and
    logs phase=death (zombie + wait status, or gone).  The start record also
    gets parent_ppid (= the claude process).
  * bin/hook.py --strace (with --watch-death): the watcher attaches
    `strace -ttt -e trace=none -e signal=all` to both pids
    (OUT/strace_<label>_<inv>.txt: every signal with its sender si_pid, and
    `+++ killed by SIGKILL +++`).  The hook sleeps 0.3 s after starting the
    watcher so strace is attached before it does anything else.
  * fake_api.py: a script turn's "delay_s" sleeps before the reply is sent
    (logged as delay_s; timeline.py shows "reply ... sent").
  * run_case.sh: case.json "stdin_messages" ["text" | [delay_s, "text"], ...] runs ONE
    `claude -p --input-format stream-json --output-format stream-json --verbose`
    and bin/stdin_feeder.py writes the user messages to its stdin pipe, each after
    its delay, then closes it (a regular file as stdin was never read).
  * summarize.py keeps death records in hooks[].death and, for stream-json output,
    claude_result.stream_json_events (one compact entry per event); timeline.py
    shows the death, strace, reply-delay and stdin-feeder records.
Per case: ./run_case.sh cases/<c>; python3 timeline.py cases/<c>/last_run cases/<c>/timeline.txt;
python3 normdebug.py cases/<c>/last_run cases/<c>/debug.log

The pending hook sleeps 6 s between a start marker and a finish marker; the
model answers at once after the first (only) Bash call, so the -p session ends
~1 s after the hook started (fake_api_r7.patch: script turn "delay_s" delays the
final answer by 1.0 s in the config-async cases, see FINAL_1S).  settle_s 8 lets a surviving hook write its
finish marker/end record after claude has exited.

"Ignores SIGTERM" is done in the shell wrapper (`trap '' TERM; <hook.py ...>`):
dash then ignores TERM itself and the python child inherits SIG_IGN, which
--term-continue replaces with a log-and-continue handler.  So the whole
process group survives SIGTERM.  (_child_only: only python ignores it; the
`sh -c` wrapper, whose pid Claude Code tracks, dies on SIGTERM.)

Re-run after editing: python3 make_cases_r7.py
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


def steps(*st):
    return "--steps " + q(json.dumps(list(st)))


def bash(cmd, text="Running the command.", desc="cmd"):
    return {"text": text, "tool_use": {"name": "Bash", "input": {"command": cmd, "description": desc}}}


FINAL = {"text": "Final answer from fake model."}
# fake_api_r7.patch: the final answer is sent 1.0 s after its request arrives, so that a config-async hook
# (spawned only as the 2nd request goes out; python start + 0.3 s strace attach) is fully set up before the
# session ends.  Without it (_at_once) SIGTERM lands while python is still starting.
FINAL_1S = dict(FINAL, delay_s=1.0)
FIRST = bash("date +%s.%N > @OUT@/marker_tool1_ran; echo hi", desc="Write marker")
IF_FIRST = "Bash(date *)"
ASYNC_LINE = '{"async":true}\n'
WATCH = "--watch-death --strace"
STARTED = ["touch", "@OUT@/marker_hook_started"]
FINISHED = ["touch", "@OUT@/marker_hook_finished"]
SESSION_END = {"SessionEnd": [{"hooks": [{"type": "command", "command": hook_cmd("session_end")}]}]}


def write_case(name, question, hooks, turns, prompt="Run the command please.", **extra):
    d = os.path.join(CASES, name)
    os.makedirs(d, exist_ok=True)
    case = {"question": question, "prompt": prompt, "max_turns": extra.pop("max_turns", 10),
            "timeout": extra.pop("timeout", 60), "sentinels": list(extra.pop("sentinels", [])),
            "stable_ids": True}
    case["extra_args"] = list(extra.pop("extra_args", [])) + DEBUG
    case.update(extra)
    json.dump(case, open(os.path.join(d, "case.json"), "w"), indent=2)
    json.dump({"hooks": hooks}, open(os.path.join(d, "settings.json"), "w"), indent=2)
    script = {"turns": turns, "default_text": "Script exhausted.", "side_text": "Hook harness session"}
    json.dump(script, open(os.path.join(d, "script.json"), "w"), indent=2)


def teardown_case(name, question, handler, final=FINAL_1S):
    hooks = {"PostToolUse": [{"matcher": "Bash", "hooks": [handler]}]}
    hooks.update(SESSION_END)
    write_case(name, question, hooks, [FIRST, final], settle_s=8)


# 1. config async:true, whole process group ignores SIGTERM
teardown_case(
    "r7_async_teardown_ignores_term",
    "PostToolUse handler with config \"async\": true; the command is `trap '' TERM; hook.py ...` (sh and python "
    "ignore SIGTERM; python logs it and carries on), touches marker_hook_started, sleeps 6 s, touches "
    "marker_hook_finished. The model's final answer follows the Bash call (sent 1.0 s after its request, so the "
    "hook is set up before the end). Does the hook get SIGTERM and then "
    "SIGKILL ~1.5 s later? Does SessionEnd run then (which reason)? When does claude exit?",
    {"type": "command", "async": True, "if": IF_FIRST,
     "command": "trap '' TERM; " + hook_cmd("post_async_ignore_term", "--term-continue", WATCH,
                                            steps(STARTED, ["sleep", 6], FINISHED))})

# 2. first stdout line {"async":true}, handler not async in config, group ignores SIGTERM
teardown_case(
    "r7_async_first_line_teardown_ignores_term",
    "Same as r7_async_teardown_ignores_term, but the handler is NOT async in config: it prints the first stdout "
    "line {\"async\":true} (backgrounded), then touches marker_hook_started, sleeps 6 s, touches "
    "marker_hook_finished; `trap '' TERM` in sh, python logs SIGTERM and carries on. The final answer is "
    "sent at once (as r6_async_first_line_teardown). SIGTERM then SIGKILL ~1.5 s later? SessionEnd (reason)? "
    "claude exit time?",
    {"type": "command", "if": IF_FIRST,
     "command": "trap '' TERM; " + hook_cmd("post_async_fl_ignore_term", "--term-continue", WATCH,
                                            steps(["out", ASYNC_LINE], STARTED, ["sleep", 6], FINISHED))},
    final=FINAL)

# 3. control for 1: config async, SIGTERM not ignored (python logs it and exits 143, sh dies of it)
teardown_case(
    "r7_async_teardown_control",
    "Control for r7_async_teardown_ignores_term: the same config-async PostToolUse hook (start marker, sleep 6 s, "
    "finish marker) that does NOT ignore SIGTERM (no trap; python logs SIGTERM and exits 143). Expected as "
    "r2_async_teardown: killed by SIGTERM, SessionEnd skipped.",
    {"type": "command", "async": True, "if": IF_FIRST,
     "command": hook_cmd("post_async_control", "--log-term", WATCH,
                         steps(STARTED, ["sleep", 6], FINISHED))})

# 3b. (extra) config async; only the python child ignores SIGTERM, the `sh -c` wrapper dies of it
teardown_case(
    "r7_async_teardown_ignores_term_child_only",
    "Variant of r7_async_teardown_ignores_term without the shell trap: the `/bin/sh -c` wrapper (the pid Claude Code "
    "tracks) dies on SIGTERM, only its python child logs SIGTERM and carries on. Does claude still escalate to "
    "SIGKILL after ~1.5 s, does SessionEnd run, and does the python child survive claude?",
    {"type": "command", "async": True, "if": IF_FIRST,
     "command": hook_cmd("post_async_child_ignore_term", "--term-continue", WATCH,
                         steps(STARTED, ["sleep", 6], FINISHED))})

# 1b. (extra) as 1, but the final answer is sent at once: SIGTERM arrives while the hook's python is still
# starting (SIG_IGN inherited from the trap, no handler/strace yet)
teardown_case(
    "r7_async_teardown_ignores_term_at_once",
    "As r7_async_teardown_ignores_term, but the final answer is sent at once (no delay_s), so the session ends "
    "~0.1 s after the config-async hook was spawned, before its python has started. Killed ~1.5 s after the "
    "end? SessionEnd?",
    {"type": "command", "async": True, "if": IF_FIRST,
     "command": "trap '' TERM; " + hook_cmd("post_async_ignore_term", "--term-continue", WATCH,
                                            steps(STARTED, ["sleep", 6], FINISHED))},
    final=FINAL)


# 4. /clear while an async hook is still running.  -p has no second prompt, so the run uses
# run_case_r7.patch: case.json "stdin_messages" feeds several user messages to ONE claude process
# (`-p --input-format stream-json --output-format stream-json --verbose`), written by
# bin/stdin_feeder.py with delays (all three at once: "/clear" ran but message 3 was never
# processed -- see FINDINGS §35).  Message 1 runs the
# Bash call that starts the config-async hook (sleeps 4 s, then prints additionalContext
# CLEAR_HOOK_CTX_SENTINEL and touches marker_hook_finished); message 2 is exactly "/clear"; message 3
# (AFTER_CLEAR_PROMPT) runs `sleep 7` so the hook finishes inside the cleared conversation.  The
# cleared conversation has no assistant message, so its requests are scripted with an `agents` entry
# that matches the first user message (logged as kind agent:after_clear).
def post_ctx(text):
    return json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": text}},
                      separators=(",", ":"))


_clear_hooks = {
    "PostToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "async": True, "if": IF_FIRST,
         "command": hook_cmd("post_async_clear", "--log-term", WATCH,
                             steps(STARTED, ["sleep", 4], ["out", post_ctx("CLEAR_HOOK_CTX_SENTINEL") + "\n"],
                                   FINISHED))}]}],
    "SessionStart": [{"hooks": [{"type": "command", "command": hook_cmd("session_start")}]}],
}
_clear_hooks.update(SESSION_END)
write_case("r7_clear_with_async",
           "stream-json input, three user messages in one -p process: (1) a Bash call starts a config-async "
           "PostToolUse hook (sleeps 4 s, then additionalContext CLEAR_HOOK_CTX_SENTINEL); (2) \"/clear\" while the "
           "hook still runs; (3) AFTER_CLEAR_PROMPT runs `sleep 7; echo after`. Does SessionEnd (reason clear) run "
           "at /clear, SessionStart (source clear) after it? Is the async hook killed at /clear, or does it finish "
           "and is its context delivered into the cleared conversation? What happens at the end?",
           _clear_hooks, [FIRST, FINAL], settle_s=3,
           stdin_messages=["Run the command please.", [2.0, "/clear"],
                           [1.0, "AFTER_CLEAR_PROMPT: run the slow command."]],
           sentinels=["CLEAR_HOOK_CTX_SENTINEL"])
# script for the cleared conversation (fake_api `agents`, matched on its first user message)
_sp = os.path.join(CASES, "r7_clear_with_async", "script.json")
_script = json.load(open(_sp))
_script["agents"] = [{"name": "after_clear", "match": "AFTER_CLEAR_PROMPT",
                      "turns": [bash("sleep 7; echo after", desc="slow after clear"), FINAL]}]
json.dump(_script, open(_sp, "w"), indent=2)

# 4b. (extra) the same three messages written all at once (no delays): "/clear" is queued while turn 1 runs
write_case("r7_clear_with_async_queued",
           "As r7_clear_with_async, but the three stream-json messages are written at once (stdin then closed), so "
           "\"/clear\" and message 3 are queued while turn 1 runs. Is message 3 processed after /clear? What happens "
           "to the async hook and to SessionEnd?",
           _clear_hooks, [FIRST, FINAL], settle_s=6,
           stdin_messages=["Run the command please.", "/clear", "AFTER_CLEAR_PROMPT: run the slow command."],
           sentinels=["CLEAR_HOOK_CTX_SENTINEL"])
_sp = os.path.join(CASES, "r7_clear_with_async_queued", "script.json")
_script = json.load(open(_sp))
_script["agents"] = [{"name": "after_clear", "match": "AFTER_CLEAR_PROMPT",
                      "turns": [bash("sleep 7; echo after", desc="slow after clear"), FINAL]}]
json.dump(_script, open(_sp, "w"), indent=2)
