"""Round-14 cases (cases/r14_*): SessionStart sessionTitle / initialUserMessage / reloadSkills,
UserPromptSubmit sessionTitle, top-level terminalSequence. Adapted from make_cases_r13b.py.

Old r13b docstring: Round-13b cases (cases/r13b_*): a hook answer that starts with `{` is checked against the schema before the exit
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



SS = "SessionStart"
REC_UPS = {UPS: [{"hooks": [hook("ups_rec")]}]}
SENT14 = ["T1", "IUM", "S_startup", "S_resume", "U1", "U_A", "U_B"]


def merge(*dicts):
    h = {}
    for d in dicts:
        for k, v in d.items():
            h.setdefault(k, []).extend(v)
    return {"hooks": h}


def ss(*hooks):
    return {SS: [{"hooks": list(hooks)}]}


def ups(*hooks):
    return {UPS: [{"hooks": list(hooks)}]}


def w(name, question, settings, turns=(FINAL,), prompt="the prompt", **extra):
    if "hooks" not in settings:
        settings = merge(settings)
    write_case(name, question, settings, list(turns), prompt=prompt, sentinels=SENT14 + extra.pop("sent", []), **extra)


# Q1 --------------------------------------------------------------------
w("r14_ss_title_basic", "SessionStart answers sessionTitle T1; UPS records stdin. Does UPS carry session_title T1?",
  merge(ss(out("ss_title", hso(SS, sessionTitle="T1"))), REC_UPS))
w("r14_control_no_title", "control: SessionStart records only (no answer); UPS records stdin. Any session_title key?",
  merge(ss(hook("ss_rec")), REC_UPS))
# Q2 --------------------------------------------------------------------
w("r14_ss_title_two", "Two SessionStart hooks: first (settings order) sleeps 0.5 s then sessionTitle A; second "
  "answers B immediately. Which title does UPS see?",
  merge(ss(out("ss_A", hso(SS, sessionTitle="A"), "--sleep 0.5"), out("ss_B", hso(SS, sessionTitle="B"))), REC_UPS))
w("r14_ss_title_two_rev", "Two SessionStart hooks: first (settings order) answers A immediately; second sleeps 0.5 s "
  "then B. Which title does UPS see?",
  merge(ss(out("ss_A", hso(SS, sessionTitle="A")), out("ss_B", hso(SS, sessionTitle="B"), "--sleep 0.5")), REC_UPS))
w("r14_ss_ium_two", "Two SessionStart hooks: first sleeps 0.5 s then initialUserMessage IUM_A; second IUM_B "
  "immediately. What reaches the model?",
  merge(ss(out("ss_A", hso(SS, initialUserMessage="IUM_A"), "--sleep 0.5"),
           out("ss_B", hso(SS, initialUserMessage="IUM_B"))), REC_UPS), sent=["IUM_A", "IUM_B"])
# Q3 --------------------------------------------------------------------
w("r14_ss_title_ctrl", "SessionStart sessionTitle \"a\\u0007b\\nc\\u009bd\". What does UPS see?",
  merge(ss(out("ss_title", hso(SS, sessionTitle="a\u0007b\nc\u009bd"))), REC_UPS))
T250 = "".join("%03d|" % i for i in range(0, 250, 4))[:250]   # position markers, 250 ASCII chars
w("r14_ss_title_250", "SessionStart sessionTitle of 250 ASCII chars (position markers). What does UPS see?",
  merge(ss(out("ss_title", hso(SS, sessionTitle=T250))), REC_UPS))
TEMO = "x" * 150 + "\U0001F600" * 100   # 250 code points, 350 UTF-16 units
w("r14_ss_title_250_emoji", "SessionStart sessionTitle of 150 x + 100 U+1F600 (250 code points, 350 UTF-16 units).",
  merge(ss(out("ss_title", hso(SS, sessionTitle=TEMO))), REC_UPS))
w("r14_ss_title_empty", "SessionStart sessionTitle \"\". Does UPS have session_title?",
  merge(ss(out("ss_title", hso(SS, sessionTitle=""))), REC_UPS))
w("r14_ss_title_ctrl_only", "SessionStart sessionTitle \"\\u0007\\n\\u009b\" (empty after sanitizing).",
  merge(ss(out("ss_title", hso(SS, sessionTitle="\u0007\n\u009b"))), REC_UPS))
# Q4 --------------------------------------------------------------------
w("r14_ss_ium", "SessionStart initialUserMessage IUM. What does the first API request contain? UPS fired for it?",
  merge(ss(out("ss_ium", hso(SS, initialUserMessage="IUM"))), REC_UPS), turns=[{"text": "Answer 1."}, {"text": "Answer 2."}])
w("r14_ss_ium_stream", "stream-json input, two prompts P1, P2; SessionStart initialUserMessage IUM.",
  merge(ss(out("ss_ium", hso(SS, initialUserMessage="IUM"))), REC_UPS),
  turns=[{"text": "Answer 1."}, {"text": "Answer 2."}, {"text": "Answer 3."}],
  stdin_messages=["P1", [4, "P2"]], sent=["P1", "P2"])
# Q5 --------------------------------------------------------------------
w("r14_ups_title_stream", "stream-json input, two prompts; UPS hook answers sessionTitle U1 on its first run only. "
  "Does the second UPS payload carry session_title U1?",
  ups(out("ups_title", hso(UPS, sessionTitle="U1"), "--once")),
  turns=[{"text": "Answer 1."}, {"text": "Answer 2."}], stdin_messages=["P1", [4, "P2"]], sent=["P1", "P2"])
w("r14_ups_title_two_stream", "stream-json input, two prompts; two UPS hooks (first sleeps 0.5 s, U_A; second U_B), "
  "first run only. Which title does the second UPS payload carry?",
  ups(out("ups_A", hso(UPS, sessionTitle="U_A"), "--once --sleep 0.5"), out("ups_B", hso(UPS, sessionTitle="U_B"), "--once")),
  turns=[{"text": "Answer 1."}, {"text": "Answer 2."}], stdin_messages=["P1", [4, "P2"]], sent=["P1", "P2"])
w("r14_ss_ups_title_stream", "stream-json input, two prompts; SessionStart title T1, UPS hook answers U1 on first run.",
  merge(ss(out("ss_title", hso(SS, sessionTitle="T1"))), ups(out("ups_title", hso(UPS, sessionTitle="U1"), "--once"))),
  turns=[{"text": "Answer 1."}, {"text": "Answer 2."}], stdin_messages=["P1", [4, "P2"]], sent=["P1", "P2"])
w("r14_ss_title_stream", "stream-json input, two prompts; SessionStart title T1; UPS records.",
  merge(ss(out("ss_title", hso(SS, sessionTitle="T1"))), REC_UPS),
  turns=[{"text": "Answer 1."}, {"text": "Answer 2."}], stdin_messages=["P1", [4, "P2"]], sent=["P1", "P2"])
# Q6 --------------------------------------------------------------------
for name, ts in (("osc9", "\u001b]9;hello\u0007"), ("bel", "\u0007"), ("rejected_sgr", "\u001b[31m"),
                 ("osc9_progress", "\u001b]9;4;1;50\u0007"), ("osc9_digit", "\u001b]9;5x\u0007")):
    w("r14_ts_ups_" + name, "UPS answers terminalSequence %r (+ additionalContext CTX). Anything on stdout/stderr?" % ts,
      ups(out("ups_ts", {"terminalSequence": ts, "hookSpecificOutput": {"hookEventName": UPS, "additionalContext": "CTX"}})),
      sent=["CTX"])
w("r14_ts_ss_osc9", "SessionStart answers terminalSequence OSC 9 hello.",
  merge(ss(out("ss_ts", {"terminalSequence": "\u001b]9;hello\u0007"})), REC_UPS))
w("r14_ts_ups_osc9_jsonout", "UPS answers terminalSequence OSC 9 hello; --output-format json (not stream-json).",
  ups(out("ups_ts", {"terminalSequence": "\u001b]9;hello\u0007"})), output_format="json")
# Q7 --------------------------------------------------------------------
w("r14_ss_reload_skills", "SessionStart reloadSkills true.",
  merge(ss(out("ss_reload", hso(SS, reloadSkills=True))), REC_UPS))
w("r14_ss_watch_paths", "SessionStart watchPaths [@WS@/watched.txt].",
  merge(ss(out("ss_watch", hso(SS, watchPaths=["@WS@/watched.txt"]))), REC_UPS))
# Q8 --------------------------------------------------------------------
BYSRC = "@PY@ @HARNESS@/bin/ss_by_source.py --out @OUT@ --label ss_src"
SECOND = {"prompt": "second prompt", "args": ["--continue", "--debug-file", "@OUT@/debug2.log"]}
w("r14_ss_title_resume", "Run 1: SessionStart answers sessionTitle S_<source>; run 2 with --continue. What do the "
  "SessionStart (resume) and UPS payloads of run 2 carry?",
  merge(ss({"type": "command", "command": BYSRC}), REC_UPS),
  turns=[{"text": "Answer 1."}, {"text": "Answer 2."}], second_run=SECOND)
w("r14_ss_title_resume_only", "SessionStart answers sessionTitle S_resume only when source==resume; run 2 --continue.",
  merge(ss({"type": "command", "command": BYSRC + " --only resume"}), REC_UPS),
  turns=[{"text": "Answer 1."}, {"text": "Answer 2."}], second_run=SECOND)
w("r14_ss_ium_resume_only", "SessionStart answers initialUserMessage S_resume only when source==resume; run 2 --continue.",
  merge(ss({"type": "command", "command": BYSRC + " --only resume --field initialUserMessage"}), REC_UPS),
  turns=[{"text": "Answer 1."}, {"text": "Answer 2."}, {"text": "Answer 3."}], second_run=SECOND)
print("ok")

# ---------------------------------------------------------------- round 14, part 2
def mkskills(tag):
    lines = lambda n, d: " ".join(q(x) for x in ("---", "name: " + n, "description: " + d, "---", "body"))
    return ("mkdir -p @HOME@/.claude/skills/userskill%(t)s @WS@/.claude/skills/projskill%(t)s && "
            "printf '%%s\\n' %(u)s > @HOME@/.claude/skills/userskill%(t)s/SKILL.md && "
            "printf '%%s\\n' %(p)s > @WS@/.claude/skills/projskill%(t)s/SKILL.md && " % {
                "t": tag, "u": lines("userskill" + tag, "USERSKILL_DESC_" + tag),
                "p": lines("projskill" + tag, "PROJSKILL_DESC_" + tag)})


for name, obj in (("r14_ss_reload_skills_new", hso(SS, reloadSkills=True)),
                  ("r14_ss_noreload_skills_new", {"systemMessage": "no reload"})):   # control
    h = out("ss_skill", obj)
    h["command"] = mkskills("X") + h["command"]
    w(name, "SessionStart hook first creates ~/.claude/skills/userskillX/SKILL.md and .claude/skills/projskillX/SKILL.md, "
      "then answers %s. Are the new skills listed to the model?" % compact(obj),
      merge(ss(h), REC_UPS), sent=["USERSKILL_DESC_X", "PROJSKILL_DESC_X"])
w("r14_ts_ups_osc9_text", "UPS answers terminalSequence OSC 9 hello; --output-format text.",
  ups(out("ups_ts", {"terminalSequence": "\u001b]9;hello\u0007"})), output_format="text")
w("r14_ts_ups_bel_text", "UPS answers terminalSequence BEL; --output-format text.",
  ups(out("ups_ts", {"terminalSequence": "\u0007"})), output_format="text")
w("r14_ups_title_print", "-p: UPS answers sessionTitle U1 (single prompt). Transcript custom-title?",
  ups(out("ups_title", hso(UPS, sessionTitle="U1"))))
w("r14_ups_title_ctrl_stream", "stream-json input: UPS answers sessionTitle \"a\\u0007b\\nc\\u009bd\" on first prompt.",
  ups(out("ups_title", hso(UPS, sessionTitle="a\u0007b\nc\u009bd"), "--once")),
  turns=[{"text": "Answer 1."}, {"text": "Answer 2."}], stdin_messages=["P1", [4, "P2"]], sent=["P1", "P2"])
w("r14_ups_title_same_stream", "stream-json input: SessionStart T1, UPS answers sessionTitle T1 (same) on first prompt.",
  merge(ss(out("ss_title", hso(SS, sessionTitle="T1"))), ups(out("ups_title", hso(UPS, sessionTitle="T1"), "--once"))),
  turns=[{"text": "Answer 1."}, {"text": "Answer 2."}], stdin_messages=["P1", [4, "P2"]], sent=["P1", "P2"])
w("r14_ss_title_and_ium", "SessionStart answers sessionTitle T1 and initialUserMessage IUM. UPS payloads?",
  merge(ss(out("ss_both", hso(SS, sessionTitle="T1", initialUserMessage="IUM"))), REC_UPS),
  turns=[{"text": "Answer 1."}, {"text": "Answer 2."}])
w("r14_ss_ium_empty", "SessionStart answers initialUserMessage \"\".",
  merge(ss(out("ss_ium", hso(SS, initialUserMessage=""))), REC_UPS), turns=[{"text": "Answer 1."}, {"text": "Answer 2."}])
w("r14_ss_ium_block", "SessionStart IUM; UPS blocks prompts equal to... (always blocks, reason R, once). What happens to IUM turn and the -p prompt?",
  merge(ss(out("ss_ium", hso(SS, initialUserMessage="IUM"))),
        ups(out("ups_block", {"decision": "block", "reason": "R"}, "--once"))),
  turns=[{"text": "Answer 1."}, {"text": "Answer 2."}])
print("ok2")

# ---------------------------------------------------------------- round 14, part 3: source compact (stream-json /compact)
w("r14_ss_title_compact_stream", "stream-json input P1, /compact, P2; SessionStart answers sessionTitle S_<source>. "
  "Is S_compact applied?",
  merge(ss({"type": "command", "command": BYSRC}), REC_UPS),
  turns=[{"text": "Answer %d." % i} for i in range(1, 13)],
  stdin_messages=["P1", [3, "P2"], [3, "P3"], [3, "P4"], [3, "P5"], [3, "P6"], [3, "/compact"], [8, "P7"]],
  sent=["P1", "P7", "S_compact"], timeout=120)
w("r14_ss_ium_compact_stream", "stream-json input P1, /compact, P2; SessionStart answers initialUserMessage S_<source> "
  "only for source compact.",
  merge(ss({"type": "command", "command": BYSRC + " --only compact --field initialUserMessage"}), REC_UPS),
  turns=[{"text": "Answer %d." % i} for i in range(1, 13)],
  stdin_messages=["P1", [3, "P2"], [3, "P3"], [3, "P4"], [3, "P5"], [3, "P6"], [3, "/compact"], [8, "P7"]],
  sent=["P1", "P7", "S_compact"], timeout=120)
print("ok3")
