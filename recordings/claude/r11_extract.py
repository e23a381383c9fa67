#!/usr/bin/env python3
"""r11_extract.py CASE_DIR -- round 11: unclipped detail next to observed.json.

Writes CASE_DIR/r11_detail.json:
  main_requests[]: for each main API request, the messages new since the previous one, in FULL
    (summarize.py clips strings at 2,500 chars), each string also described by length/head/tail, and
    for every text/tool_result string a check against the case's big payload files (whole? cut?).
  persisted_files: files under <HOME>/.claude/projects/*/<SESSION_ID>/tool-results/ (needs KEEP_TMP=1),
    name, size, equal-to-which-payload.
  debug_lines: debug-log lines matching hook/updated/tool error keywords (normalised).
Paths normalised as summarize.py does."""
import glob, json, os, re, sys

case_dir = os.path.abspath(sys.argv[1])
run_dir = os.path.join(case_dir, "last_run")
harness = os.path.dirname(os.path.abspath(__file__))
run = json.load(open(os.path.join(run_dir, "run.json")))
ws, home, sandbox = run["workspace"], run["home"], run["sandbox"]
REPL = [(re.sub(r"[^A-Za-z0-9]", "-", ws), "<WS_MANGLED>"), (ws, "<WS>"), (home, "<HOME>"), (sandbox, "<SANDBOX>"),
        (run_dir, "<RUN>"), (case_dir, "<CASE>"), (harness, "<HARNESS>"), (run["python"], "<PY>")]


def norm(o):
    if isinstance(o, str):
        for a, b in REPL:
            o = o.replace(a, b)
        return o
    if isinstance(o, list):
        return [norm(x) for x in o]
    if isinstance(o, dict):
        return {k: norm(v) for k, v in o.items() if k != "cache_control"}
    return o


# big payloads of this case (the strings inside ctx.json / out.txt / err.txt / sys.json)
payloads = {}
for fn in os.listdir(case_dir):
    p = os.path.join(case_dir, fn)
    if fn.endswith(".json") and fn not in ("case.json", "settings.json", "script.json", "observed.json",
                                             "r11_detail.json", "findings.json"):
        d = json.load(open(p))
        hs = d.get("hookSpecificOutput") or {}
        if "additionalContext" in hs:
            payloads[fn + ":additionalContext"] = hs["additionalContext"]
        if "systemMessage" in d:
            payloads[fn + ":systemMessage"] = d["systemMessage"]
    elif fn.endswith(".txt"):
        payloads[fn] = open(p, encoding="utf-8").read()


def describe(s):
    d = {"len": len(s), "head": s[:160], "tail": s[-160:]}
    for name, pl in payloads.items():
        if pl in s:
            i = s.index(pl)
            d["contains_payload_whole"] = {"payload": name, "at": i, "before": s[max(0, i - 200):i],
                                           "after": s[i + len(pl):i + len(pl) + 200]}
        elif pl[:40] in s:
            i = s.index(pl[:40])
            # longest common prefix from i
            k = 0
            while k < len(pl) and i + k < len(s) and s[i + k] == pl[k]:
                k += 1
            d["contains_payload_prefix"] = {"payload": name, "at": i, "common_prefix_len": k,
                                            "before": s[max(0, i - 200):i], "after_prefix": s[i + k:i + k + 600]}
    return d


def walk(o, path, out):
    if isinstance(o, str):
        if len(o) > 300:
            out.append(dict(path=path, **describe(o)))
    elif isinstance(o, list):
        for i, x in enumerate(o):
            walk(x, "%s[%d]" % (path, i), out)
    elif isinstance(o, dict):
        for k, v in o.items():
            walk(v, "%s.%s" % (path, k), out)


reqs = [json.loads(l) for l in open(os.path.join(run_dir, "api_requests.jsonl")) if l.strip()]
mains, prev = [], None
for r in reqs:
    if r.get("kind") != "main":
        continue
    msgs = norm((r.get("body") or {}).get("messages", []))
    if prev is None:
        new, k = msgs, 0
    else:
        k = 0
        while k < min(len(msgs), len(prev)) and msgs[k] == prev[k]:
            k += 1
        new = msgs[k:]
    prev = msgs
    longs = []
    walk(new, "$new", longs)
    # skip the very long first-request reminders (skills/agents) from the full dump, keep from index 1
    mains.append({"turn_index": r.get("turn_index"), "n_messages": len(msgs), "new_from_index": k,
                  "new_messages_full": new if prev is not None and k > 0 else "(first request: see observed.json)",
                  "long_strings": longs})

persisted = []
for f in sorted(glob.glob(os.path.join(home, ".claude", "projects", "*", "*", "tool-results", "*"))):
    c = open(f, encoding="utf-8", errors="replace").read()
    persisted.append({"path": norm(f), "len": len(c),
                      "equals": [n for n, p in payloads.items() if p == c], "head": c[:120]})

dbg = []
dp = os.path.join(run_dir, "debug.log")
if os.path.exists(dp):
    for line in open(dp, encoding="utf-8", errors="replace"):
        if re.search(r"replaced tool output|updatedToolOutput|tool error|output shape|async|Async|rewake|"
                     r"task-notification|persist|truncat|attachment for|Hooks: Found|blocking|queued|enqueue",
                     line) and "polling" not in line:
            dbg.append(norm(line.rstrip("\n"))[:1200])

json.dump({"case": os.path.basename(case_dir), "payload_lengths": {n: len(p) for n, p in payloads.items()},
           "keep_tmp": os.path.isdir(home), "main_requests": mains, "persisted_files": persisted,
           "debug_lines": dbg}, open(os.path.join(case_dir, "r11_detail.json"), "w"), indent=1, ensure_ascii=False)
print("r11_detail.json written: %d main requests, %d persisted files" % (len(mains), len(persisted)))
