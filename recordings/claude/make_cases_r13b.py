"""Round-13b cases (cases/r13b_*): a hook answer that starts with `{` is checked against the schema before the exit
code is looked at. Exit 2 with an invalid / valid / unparsable JSON stdout (UserPromptSubmit, PreToolUse, Stop,
PostToolUse), wrong-typed hookSpecificOutput fields on exit 0, and terminalSequence types.

Uses the r13 harness (run_case_r13.patch, summarize_r13.patch already applied). Run with run_r13.sh.
Every case uses --output-format stream-json --verbose --include-hook-events --debug-file.
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
    """a hook that prints obj (JSON compact, or a str verbatim) on stdout"""
    text = obj if isinstance(obj, str) else compact(obj)
    return hook(label, "--stdout " + q(text), *flags, **fields)


def write_case(name, question, settings, turns, prompt="Run the command please.", sentinels=(), **extra):
    d = os.path.join(CASES, name)
    os.makedirs(d, exist_ok=True)
    case = {"question": question, "prompt": prompt, "max_turns": extra.pop("max_turns", 10),
            "timeout": extra.pop("timeout", 60), "sentinels": list(sentinels), "stable_ids": True,
            "extra_args": EXTRA, "output_format": "stream-json"}
    case.update(extra)
    json.dump(case, open(os.path.join(d, "case.json"), "w"), indent=2)
    json.dump(settings, open(os.path.join(d, "settings.json"), "w"), indent=2)
    json.dump({"turns": turns, "default_text": "Script exhausted.", "side_text": "Hook harness session"},
              open(os.path.join(d, "script.json"), "w"), indent=2)


def bash(cmd, text="Running the command.", desc="cmd"):
    return {"text": text, "tool_use": {"name": "Bash", "input": {"command": cmd, "description": desc}}}


FINAL = {"text": "Final answer from fake model."}
TOOL = bash("echo ran > @OUT@/marker_tool_ran; echo hi", desc="first")
UPS = "UserPromptSubmit"
SENT = ["Hook JSON output validation failed", "BLOCKED", "KEEP_GOING", "POST_ERR", "Blocked by hook", "CTX", "R"]


def ev(event, *hooks, matcher=None):
    g = {"hooks": list(hooks)}
    if matcher is not None:
        g = {"matcher": matcher, "hooks": list(hooks)}
    return {event: [g]}


def hso(event, **fields):
    return {"hookSpecificOutput": dict(hookEventName=event, **fields)}


# ---------------------------------------------------------------- 1-3. UserPromptSubmit exit 2 + JSON stdout
for name, stdout in (("r13b_ups_exit2_reason_null", {"reason": None}),
                     ("r13b_ups_exit2_approve", {"decision": "approve"}),
                     ("r13b_ups_exit2_bad_json", "{not json")):
    write_case(name, "UserPromptSubmit: stdout %s, stderr BLOCKED, exit 2. Blocked? What text?" %
               (stdout if isinstance(stdout, str) else compact(stdout)),
               {"hooks": ev(UPS, out("ups_exit2", stdout, "--stderr BLOCKED --exit 2"))},
               [FINAL], prompt="the prompt", sentinels=SENT)

# ---------------------------------------------------------------- 4-5. PreToolUse exit 2 + invalid JSON stdout
PRE = [("r13b_pre_exit2_updated_input_str", hso("PreToolUse", permissionDecision="deny", updatedInput="str")),
       ("r13b_pre_exit2_sysmsg_num", {"systemMessage": 5}),
       ("r13b_pre_exit2_valid_json", {"systemMessage": "SM"})]          # control: valid JSON + exit 2
for name, obj in PRE:
    write_case(name, "PreToolUse (Bash): stdout %s, stderr BLOCKED, exit 2. Does the tool run? What does the model "
               "see?" % compact(obj),
               {"hooks": ev("PreToolUse", out("pre_exit2", obj, "--stderr BLOCKED --exit 2"), matcher="Bash")},
               [TOOL, FINAL], sentinels=SENT)

# ---------------------------------------------------------------- 6. Stop exit 2 + invalid JSON stdout
for name, obj in (("r13b_stop_exit2_reason_null", {"reason": None}),
                  ("r13b_stop_exit2_valid_json", {"systemMessage": "SM"})):     # control
    write_case(name, "Stop (first run only, --once): stdout %s, stderr KEEP_GOING, exit 2. Does the agent go on?"
               % compact(obj),
               {"hooks": ev("Stop", out("stop_exit2", obj, "--stderr KEEP_GOING --exit 2 --once"))},
               [{"text": "Answer 1."}, {"text": "Answer 2."}], prompt="Say something.", sentinels=SENT)

# ---------------------------------------------------------------- 7. PostToolUse exit 2 + invalid JSON stdout
for name, obj in (("r13b_post_exit2_continue_str", {"continue": "no"}),
                  ("r13b_post_exit2_valid_json", {"systemMessage": "SM"})):     # control
    write_case(name, "PostToolUse (Bash): stdout %s, stderr POST_ERR, exit 2. What does the model see?" % compact(obj),
               {"hooks": ev("PostToolUse", out("post_exit2", obj, "--stderr POST_ERR --exit 2"), matcher="Bash")},
               [TOOL, FINAL], sentinels=SENT)

# ---------------------------------------------------------------- 8. hookSpecificOutput field types, exit 0
write_case("r13b_hso_ups_session_title_num",
           "UserPromptSubmit exit 0: hookSpecificOutput additionalContext CTX + sessionTitle 5. Is CTX dropped?",
           {"hooks": ev(UPS, out("ups_hso", hso(UPS, additionalContext="CTX", sessionTitle=5)))},
           [FINAL], prompt="the prompt", sentinels=SENT)
write_case("r13b_hso_ups_session_title_str",   # control
           "UserPromptSubmit exit 0: hookSpecificOutput additionalContext CTX + sessionTitle \"T\" (control).",
           {"hooks": ev(UPS, out("ups_hso", hso(UPS, additionalContext="CTX", sessionTitle="T")))},
           [FINAL], prompt="the prompt", sentinels=SENT)
write_case("r13b_hso_ss_watch_paths_str",
           "SessionStart exit 0: hookSpecificOutput additionalContext SS_CTX + watchPaths \"x\". Is SS_CTX dropped?",
           {"hooks": ev("SessionStart", out("ss_hso", hso("SessionStart", additionalContext="SS_CTX", watchPaths="x")))},
           [FINAL], prompt="the prompt", sentinels=SENT + ["SS_CTX"])
write_case("r13b_hso_ss_watch_paths_array",   # control
           "SessionStart exit 0: hookSpecificOutput additionalContext SS_CTX + watchPaths [] (control).",
           {"hooks": ev("SessionStart", out("ss_hso", hso("SessionStart", additionalContext="SS_CTX", watchPaths=[])))},
           [FINAL], prompt="the prompt", sentinels=SENT + ["SS_CTX"])
write_case("r13b_hso_post_updated_output_null",
           "PostToolUse (Bash) exit 0: hookSpecificOutput additionalContext P_CTX + updatedToolOutput null. Does P_CTX "
           "arrive; is the output replaced?",
           {"hooks": ev("PostToolUse", out("post_hso", hso("PostToolUse", additionalContext="P_CTX",
                                                           updatedToolOutput=None)), matcher="Bash")},
           [TOOL, FINAL], sentinels=SENT + ["P_CTX"])
write_case("r13b_hso_pre_updated_input_array",
           "PreToolUse (Bash) exit 0: deny (reason R) with updatedInput [1]. Does the deny stand?",
           {"hooks": ev("PreToolUse", out("pre_hso", hso("PreToolUse", permissionDecision="deny",
                                                         permissionDecisionReason="R", updatedInput=[1])),
                        matcher="Bash")},
           [TOOL, FINAL], sentinels=SENT)

# ---------------------------------------------------------------- 9. terminalSequence type
for name, ts in (("r13b_ups_terminal_seq_num", 5), ("r13b_ups_terminal_seq_str", "x")):
    obj = {"terminalSequence": ts, "decision": "block", "reason": "R"}
    write_case(name, "UserPromptSubmit exit 0: %s. Blocked?" % compact(obj),
               {"hooks": ev(UPS, out("ups_ts", obj))}, [FINAL], prompt="the prompt", sentinels=SENT)
print("ok")
