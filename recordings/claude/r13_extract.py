#!/usr/bin/env python3
"""r13_extract.py CASE_DIR -- round 13: unclipped detail next to observed.json.

Writes CASE_DIR/r13_detail.json:
  result: the final stream-json result event (what `-p` prints as its result);
  stream_events: every stream-json event except init, normalised (hook_started/hook_response included);
  main_requests: for each main API request, the messages new since the previous one, in full;
  transcript: every entry of Claude Code's own transcript (type, subtype, isMeta, message content,
    attachment, content, level), in order;
  user_settings: the case's user_settings.json (if any), project settings file bytes (hex if not UTF-8 JSON);
  debug_settings_lines: debug-log lines about settings/validation/hooks config (normalised).
Paths normalised as summarize.py does."""
import glob, json, os, re, sys

case_dir = os.path.abspath(sys.argv[1])
run_dir = os.path.join(case_dir, "last_run")
harness = os.path.dirname(os.path.abspath(__file__))
run = json.load(open(os.path.join(run_dir, "run.json")))
ws, home, sandbox = run["workspace"], run["home"], run["sandbox"]
REPL = [(re.sub(r"[^A-Za-z0-9]", "-", ws), "<WS_MANGLED>"), (ws, "<WS>"), (home, "<HOME>"), (sandbox, "<SANDBOX>"),
        (run_dir, "<RUN>"), (case_dir, "<CASE>"), (harness, "<HARNESS>"), (run["python"], "<PY>"),
        (":%d" % run["port"], ":<PORT>")]
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def norm(o):
    if isinstance(o, str):
        for a, b in REPL:
            o = o.replace(a, b)
        return UUID.sub("<UUID>", o)
    if isinstance(o, list):
        return [norm(x) for x in o]
    if isinstance(o, dict):
        return {k: norm(v) for k, v in o.items() if k not in ("cache_control", "usage", "modelUsage", "total_cost_usd")}
    return o


def jsonl(p):
    out = []
    for line in open(p, encoding="utf-8", errors="replace"):
        try:
            out.append(json.loads(line))
        except Exception:
            pass
    return out


d = {}
evs = jsonl(os.path.join(run_dir, "claude_stdout.txt"))
d["result"] = norm(next((e for e in evs if e.get("type") == "result"), None))
keep = []
for e in evs:
    if e.get("type") == "system" and e.get("subtype") == "init":
        continue
    e = {k: v for k, v in e.items() if k not in ("uuid", "session_id", "parent_tool_use_id")}
    if isinstance(e.get("message"), dict):
        m = e["message"]
        e["message"] = {k: m[k] for k in ("role", "content") if k in m}
    keep.append(e)
d["stream_events"] = norm(keep)
d["claude_stderr"] = norm(open(os.path.join(run_dir, "claude_stderr.txt"), errors="replace").read())

prev = None
reqs = []
for r in jsonl(os.path.join(run_dir, "api_requests.jsonl")):
    if r.get("kind") != "main":
        continue
    msgs = (r.get("body") or {}).get("messages", [])
    k = 0
    if prev is not None:
        while k < min(len(msgs), len(prev)) and msgs[k] == prev[k]:
            k += 1
    reqs.append({"turn_index": r.get("turn_index"), "n_messages": len(msgs), "new_from_index": k,
                 "new_messages": norm(msgs[k:])})
    prev = msgs
d["main_requests"] = reqs

tr = []
for f in sorted(glob.glob(os.path.join(run_dir, "transcripts", "*.jsonl"))):
    for e in jsonl(f):
        x = {k: e[k] for k in ("type", "subtype", "isMeta", "attachment", "content", "level", "hookInfos",
                               "hookErrors", "preventedContinuation", "stopReason", "toolUseResult") if k in e}
        if isinstance(e.get("message"), dict):
            x["message"] = {k: e["message"][k] for k in ("role", "content") if k in e["message"]}
        tr.append(x)
d["transcript"] = norm(tr)

us = os.path.join(case_dir, "user_settings.json")
d["user_settings"] = json.load(open(us)) if os.path.exists(us) else None
sp = os.path.join(run_dir, "workspace_dot_claude", "settings.json")
if os.path.exists(sp):
    b = open(sp, "rb").read()
    try:
        d["project_settings_file"] = norm(json.loads(b.decode("utf-8")))
    except Exception:
        d["project_settings_file_hex"] = norm(b.hex())
        d["project_settings_file_latin1"] = norm(b.decode("latin-1"))

dl = os.path.join(run_dir, "debug.log")
lines = []
if os.path.exists(dl):
    pat = re.compile(r"setting|validat|invalid|hook|schema|must be|ignored|warn|error|env", re.I)
    skip = re.compile(r"checkForNewResponses|Found 0 total hooks in registry|\.claude\.json|Failed to stat directory|"
                      r"auto mode|auto-mode|3P telemetry|rg error|Error log sink")
    for line in open(dl, encoding="utf-8", errors="replace"):
        if pat.search(line) and not skip.search(line):
            lines.append(norm(line.rstrip("\n"))[:3000])
d["debug_lines"] = lines
json.dump(d, open(os.path.join(case_dir, "r13_detail.json"), "w"), indent=1, ensure_ascii=False)
