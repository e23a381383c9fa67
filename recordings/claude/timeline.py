#!/usr/bin/env python3
"""timeline.py RUN_DIR [OUT_FILE] -- round 6: one time-ordered view of a run.

Times are seconds since run_case.sh started claude (run.json t_start):
API requests (fake_api log), hook start/step/signal/end records (hooks.jsonl),
marker files written by tools (`date +%s.%N` content), and the hook-related
lines of Claude Code's --debug-file (their ISO timestamps).  Paths are
normalised like summarize.py does (<RUN>, <WS>, ...)."""
import datetime, json, os, re, sys

run_dir = os.path.abspath(sys.argv[1])
out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(run_dir, "timeline.txt")
run = json.load(open(os.path.join(run_dir, "run.json")))
t0 = run["t_start"]
REPL = [(re.sub(r"[^A-Za-z0-9]", "-", run["workspace"]), "<WS_MANGLED>"), (run["workspace"], "<WS>"),
        (run["home"], "<HOME>"), (run["sandbox"], "<SANDBOX>"), (run_dir, "<RUN>"), (run["python"], "<PY>"),
        (os.path.dirname(os.path.abspath(__file__)), "<HARNESS>")]


def norm(s):
    for a, b in REPL:
        s = s.replace(a, b)
    return s


ev = []


def add(t, src, text):
    ev.append((t - t0, src, norm(text)))


def jl(p):
    if not os.path.exists(p):
        return []
    return [json.loads(l) for l in open(p, encoding="utf-8") if l.strip()]


for r in jl(os.path.join(run_dir, "api_requests.jsonl")):
    if r.get("path", "").startswith("/v1/messages") and r.get("method") == "POST":
        msgs = (r.get("body") or {}).get("messages") or []
        add(r["ts"], "api", "POST kind=%s turn=%s n_messages=%d" % (r.get("kind"), r.get("turn_index"), len(msgs)))
for r in jl(os.path.join(run_dir, "hooks.jsonl")):
    ph = r.get("phase")
    if ph == "start":
        add(r["t"], "hook", "%s start pid=%s event=%s" % (r["label"], r.get("pid"),
                                                          (r.get("stdin") or {}).get("hook_event_name")
                                                          if isinstance(r.get("stdin"), dict) else "?"))
    elif ph == "step":
        st = r.get("step")
        add(r["t"], "hook", "%s step %s done %s%s" % (r["label"], r.get("i"), json.dumps(st)[:120],
                                                       (" ERROR " + r["error"]) if r.get("error") else ""))
    elif ph == "signal":
        add(r["t"], "hook", "%s got signal %s" % (r["label"], r.get("signal")))
    elif ph == "end":
        add(r["t"], "hook", "%s end exit=%s" % (r["label"], r.get("exit")))
    else:
        add(r["t"], "hook", "%s %s %s" % (r.get("label"), ph, r.get("error", "")))
for f in sorted(os.listdir(run_dir)):
    if f.startswith("marker"):
        txt = open(os.path.join(run_dir, f), errors="replace").read().strip()
        m = re.search(r"(\d{9,}\.\d+)", txt)
        if m:
            add(float(m.group(1)), "marker", "%s written" % f)
add(run["t_end"], "claude", "claude exited (code %s)" % run.get("claude_exit"))
dbg = os.path.join(run_dir, "debug.log")
if os.path.exists(dbg):
    for line in open(dbg, encoding="utf-8", errors="replace"):
        m = re.match(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?)Z (.*)$", line.rstrip("\n"))
        if not m:
            continue
        low = m.group(2).lower()
        if not ("hook" in low or "tool" in low or "stream" in low or "api" in low):
            continue
        if any(n in low for n in ("3p telemetry", "getpluginskills", "total plugin", "plugin", "claude.json",
                                  "broken symlink", "failed to stat", "api:", "toolsearch", "tool search",
                                  "stream started", "snapshot", "shell config", "skills", "claudeai")):
            continue
        t = datetime.datetime.fromisoformat(m.group(1)).replace(tzinfo=datetime.timezone.utc).timestamp()
        add(t, "debug", m.group(2)[:400])
ev.sort(key=lambda e: e[0])
with open(out, "w") as f:
    for t, src, text in ev:
        f.write("%8.3f  %-6s %s\n" % (t, src, text.replace("\n", "\\n")))
print(out)
