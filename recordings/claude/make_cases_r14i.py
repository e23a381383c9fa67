"""Round 14i cases (cases/r14i_*): hook terminalSequence / systemMessage in the INTERACTIVE UI (pty).
Each case dir: settings.json, script.json, case.json (prompt, until, timeout, question). Run with run_r14i.sh."""
import json, os
HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
UPS, SS, PTU = "UserPromptSubmit", "SessionStart", "PreToolUse"

def q(s): return "'" + s.replace("'", "'\\''") + "'"
def compact(o): return json.dumps(o, separators=(",", ":"))
def hook(label, obj=None):
    cmd = "@HOOK@ --label %s --out @OUT@" % label
    if obj is not None:
        cmd += " --stdout " + q(obj if isinstance(obj, str) else compact(obj))
    return {"type": "command", "command": cmd}
FINAL = {"text": "Final answer from fake model."}
BASH = {"text": "Running the command.", "tool_use": {"name": "Bash", "input": {"command": "echo ran > @OUT@/marker_tool_ran; echo hi", "description": "first"}}}

def w(name, question, hooks, turns=(FINAL,), prompt="the prompt", until="Final answer from fake model", timeout=20, matcher=None):
    d = os.path.join(CASES, name); os.makedirs(d, exist_ok=True)
    h = {}
    for ev, hk in hooks:
        g = {"hooks": [hk]}
        if ev == PTU: g = {"matcher": "Bash", "hooks": [hk]}
        h.setdefault(ev, []).append(g)
    json.dump({"hooks": h}, open(os.path.join(d, "settings.json"), "w"), indent=2)
    json.dump({"turns": list(turns), "default_text": "Script exhausted.", "side_text": "Hook harness session"},
              open(os.path.join(d, "script.json"), "w"), indent=2)
    json.dump({"question": question, "prompt": prompt, "until": until, "timeout": timeout},
              open(os.path.join(d, "case.json"), "w"), indent=2)

w("r14i_control", "control: UPS and SessionStart hooks only record. Baseline OSC/BEL output of the CLI itself.",
  [(SS, hook("ss_rec")), (UPS, hook("ups_rec"))])
# Q1
for name, ts in (("osc9_st", "\u001b]9;hello\u001b\\"), ("bel", "\u0007"), ("osc2_tab", "\u001b]2;a\tb\u0007"),
                 ("osc0099", "\u001b]0099;x\u0007"), ("osc52", "\u001b]52;c;e30=\u0007"),
                 ("osc9_bel", "\u001b]9;hello\u0007")):
    w("r14i_ups_ts_" + name, "UPS answers {terminalSequence: %r}. Bytes in the PTY output?" % ts,
      [(UPS, hook("ups_ts", {"terminalSequence": ts}))])
# Q2
w("r14i_ss_ts_osc0", "SessionStart answers terminalSequence \"\\u001b]0;ttl\\u0007\". Written?",
  [(SS, hook("ss_ts", {"terminalSequence": "\u001b]0;ttl\u0007"})), (UPS, hook("ups_rec"))])
# Q3
w("r14i_ups_block", "UPS answers decision block + systemMessage SYSMSG + terminalSequence OSC 9 blocked.",
  [(UPS, hook("ups_block", {"decision": "block", "reason": "R", "systemMessage": "SYSMSG", "terminalSequence": "\u001b]9;blocked\u0007"}))],
  until="NEVER_SEEN_TEXT", timeout=20)
w("r14i_ups_noblock", "control for block: UPS answers reason R + systemMessage SYSMSG + terminalSequence OSC 9 blocked (no decision).",
  [(UPS, hook("ups_noblock", {"reason": "R", "systemMessage": "SYSMSG", "terminalSequence": "\u001b]9;blocked\u0007"}))])
# Q4
w("r14i_ups_stop", "UPS answers continue:false stopReason S + systemMessage SYSMSG + terminalSequence OSC 9 stopped.",
  [(UPS, hook("ups_stop", {"continue": False, "stopReason": "S", "systemMessage": "SYSMSG", "terminalSequence": "\u001b]9;stopped\u0007"}))],
  until="NEVER_SEEN_TEXT", timeout=20)
w("r14i_ups_nostop", "control for stop: stopReason S + systemMessage SYSMSG + terminalSequence OSC 9 stopped (continue absent).",
  [(UPS, hook("ups_nostop", {"stopReason": "S", "systemMessage": "SYSMSG", "terminalSequence": "\u001b]9;stopped\u0007"}))])
# Q5
w("r14i_pre_deny", "PreToolUse (Bash) denies + systemMessage SYSMSG + terminalSequence OSC 9 denied.",
  [(PTU, hook("pre_deny", {"hookSpecificOutput": {"hookEventName": PTU, "permissionDecision": "deny", "permissionDecisionReason": "no"},
                           "systemMessage": "SYSMSG", "terminalSequence": "\u001b]9;denied\u0007"}))],
  turns=(BASH, FINAL), prompt="Run the command please.", timeout=25)
print("ok")
