"""Round 14j cases (cases/r14j_*), interactive UI (pty):
Q1 UserPromptExpansion (project command .claude/commands/deploy.md) block / continue:false with systemMessage +
terminalSequence; Q2 SessionStart source=clear (sessionTitle / initialUserMessage) via /clear typed into the TUI.
Each case dir: settings.json, script.json, case.json (prompt, until, timeout, steps, ws_files, question). Run with run_r14j.sh."""
import json, os
HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
UPS, UPE, SS, SE = "UserPromptSubmit", "UserPromptExpansion", "SessionStart", "SessionEnd"
DEPLOY = {".claude/commands/deploy.md": "---\ndescription: deploy test command\n---\nDEPLOY_BODY_SENTINEL deploy with: $ARGUMENTS\n"}

def q(s): return "'" + s.replace("'", "'\\''") + "'"
def compact(o): return json.dumps(o, separators=(",", ":"))
def hook(label, obj=None):
    cmd = "@HOOK@ --label %s --out @OUT@" % label
    if obj is not None:
        cmd += " --stdout " + q(obj if isinstance(obj, str) else compact(obj))
    return {"type": "command", "command": cmd}
def ssrc(label, extra=""):
    return {"type": "command", "command": "@PY@ @HARNESS@/bin/ss_by_source.py --out @OUT@ --label %s --ium%s" % (label, extra)}
FINAL = {"text": "Final answer from fake model."}

def w(name, question, hooks, turns=(FINAL,), prompt="the prompt", until="Final answer from fake model", timeout=20,
      steps=(), ws_files=None, selection="sequential"):
    d = os.path.join(CASES, name); os.makedirs(d, exist_ok=True)
    h = {}
    for ev, hk in hooks:
        h.setdefault(ev, []).append({"hooks": [hk]})
    json.dump({"hooks": h}, open(os.path.join(d, "settings.json"), "w"), indent=2)
    json.dump({"turns": list(turns), "default_text": "Script exhausted.", "side_text": "Hook harness session",
               "turn_selection": selection}, open(os.path.join(d, "script.json"), "w"), indent=2)
    json.dump({"question": question, "prompt": prompt, "until": until, "timeout": timeout, "steps": list(steps),
               "ws_files": ws_files or {}}, open(os.path.join(d, "case.json"), "w"), indent=2)

TS = "\u001b]9;upeblocked\u0007"
# ---- Q1: UserPromptExpansion
w("r14j_upe_control", "control: /deploy now as positional prompt; UPE + UPS + SS record only.",
  [(SS, hook("ss_rec")), (UPE, hook("upe_rec")), (UPS, hook("ups_rec"))], prompt="/deploy now", ws_files=DEPLOY)
w("r14j_upe_block", "UPE answers decision block + reason R + systemMessage SYSMSG + terminalSequence OSC 9 upeblocked.",
  [(UPE, hook("upe_block", {"decision": "block", "reason": "R", "systemMessage": "SYSMSG", "terminalSequence": TS})),
   (UPS, hook("ups_rec"))], prompt="/deploy now", until="NEVER_SEEN_TEXT", ws_files=DEPLOY)
w("r14j_upe_noblock", "control for block: UPE answers reason R + systemMessage SYSMSG + terminalSequence (no decision).",
  [(UPE, hook("upe_noblock", {"reason": "R", "systemMessage": "SYSMSG", "terminalSequence": TS})),
   (UPS, hook("ups_rec"))], prompt="/deploy now", ws_files=DEPLOY)
w("r14j_upe_stop", "UPE answers continue:false + stopReason S + systemMessage SYSMSG (exact brief answer, no sequence).",
  [(UPE, hook("upe_stop", {"continue": False, "stopReason": "S", "systemMessage": "SYSMSG"})),
   (UPS, hook("ups_rec"))], prompt="/deploy now", until="NEVER_SEEN_TEXT", ws_files=DEPLOY)
w("r14j_upe_stop_ts", "UPE answers continue:false + stopReason S + systemMessage SYSMSG + terminalSequence OSC 9 upestopped.",
  [(UPE, hook("upe_stop_ts", {"continue": False, "stopReason": "S", "systemMessage": "SYSMSG", "terminalSequence": "\u001b]9;upestopped\u0007"})),
   (UPS, hook("ups_rec"))], prompt="/deploy now", until="NEVER_SEEN_TEXT", ws_files=DEPLOY)
w("r14j_upe_nostop", "control for stop: UPE answers stopReason S + systemMessage SYSMSG + terminalSequence OSC 9 upestopped (continue absent).",
  [(UPE, hook("upe_nostop", {"stopReason": "S", "systemMessage": "SYSMSG", "terminalSequence": "\u001b]9;upestopped\u0007"})),
   (UPS, hook("ups_rec"))], prompt="/deploy now", ws_files=DEPLOY)
w("r14j_upe_block_typed", "as r14j_upe_block, but /deploy now is TYPED into the prompt box (no positional prompt).",
  [(UPE, hook("upe_block", {"decision": "block", "reason": "R", "systemMessage": "SYSMSG", "terminalSequence": TS})),
   (UPS, hook("ups_rec"))], prompt="", until="NEVER_SEEN_TEXT", timeout=25, ws_files=DEPLOY,
  steps=["for shortcuts::/deploy now\\r"])

# ---- Q2: SessionStart source=clear
T1 = {"text": "Alpha reply finished."}
T2 = {"text": "Bravo reply finished."}
T3 = {"text": "Charlie reply finished."}
w("r14j_ss_clear", "SessionStart (ss_by_source --ium: sessionTitle S_<source>, initialUserMessage IUM_<source>) on every source; "
  "prompt 1 (positional), then /clear typed, then 'second prompt' typed. UPS + SessionEnd record.",
  [(SS, ssrc("ss_src")), (UPS, hook("ups_rec")), (SE, hook("se_rec"))], turns=(T1, T2, T3),
  prompt="first prompt", until="Bravoreply", timeout=40,
  steps=["Alphareply::/clear\\r", "for shortcuts::second prompt\\r"])
w("r14j_ss_clear_only", "SessionStart answers only for source clear (ss_by_source --only clear --ium); startup gets no title. "
  "prompt 1, /clear, 'second prompt'. UPS + SessionEnd record.",
  [(SS, ssrc("ss_src", " --only clear")), (UPS, hook("ups_rec")), (SE, hook("se_rec"))], turns=(T1, T2, T3),
  prompt="first prompt", until="Bravoreply", timeout=40,
  steps=["Alphareply::/clear\\r", "for shortcuts::second prompt\\r"])
w("r14j_ss_clear_rec", "control: SessionStart/UPS/SessionEnd only record; prompt 1, /clear, 'second prompt'.",
  [(SS, hook("ss_rec")), (UPS, hook("ups_rec")), (SE, hook("se_rec"))], turns=(T1, T2, T3),
  prompt="first prompt", until="Bravoreply", timeout=40,
  steps=["Alphareply::/clear\\r", "for shortcuts::second prompt\\r"])
print("ok")

# ---- bonus: /clear with a name argument (clearedSessionTitle) in the TUI
w("r14j_ss_clear_named", "as r14j_ss_clear, but '/clear Named' is typed (clear with a name argument).",
  [(SS, ssrc("ss_src")), (UPS, hook("ups_rec")), (SE, hook("se_rec"))], turns=(T1, T2, T3),
  prompt="first prompt", until="Bravoreply", timeout=40,
  steps=["Alphareply::/clear Named\\r", "for shortcuts::second prompt\\r"])

# ---- bonus: print mode, stream-json input P1, /clear, P2 (run with run_r13.sh; uses run_case.sh)
def pcase(name, question, settings, turns, stdin_messages, timeout=60):
    d = os.path.join(CASES, name); os.makedirs(d, exist_ok=True)
    json.dump({"question": question, "prompt": "the prompt", "max_turns": 10, "timeout": timeout,
               "sentinels": ["IUM_startup", "IUM_clear", "S_startup", "S_clear", "P1", "P2"], "stable_ids": True,
               "extra_args": ["--include-hook-events", "--debug-file", "@OUT@/debug.log"], "output_format": "stream-json",
               "stdin_messages": stdin_messages}, open(os.path.join(d, "case.json"), "w"), indent=2)
    json.dump(settings, open(os.path.join(d, "settings.json"), "w"), indent=2)
    json.dump({"turns": turns, "default_text": "Script exhausted.", "side_text": "Hook harness session",
               "turn_selection": "sequential"}, open(os.path.join(d, "script.json"), "w"), indent=2)
pcase("r14j_p_ss_clear_stream", "print mode, stream-json input P1, /clear, P2; SessionStart ss_by_source --ium on every source.",
      {"hooks": {SS: [{"hooks": [ssrc("ss_src")]}], UPS: [{"hooks": [hook("ups_rec")]}], SE: [{"hooks": [hook("se_rec")]}]}},
      [{"text": "Answer %d." % i} for i in range(1, 6)], ["P1", [3, "/clear"], [4, "P2"]])
print("ok bonus")
