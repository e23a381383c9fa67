#!/usr/bin/env python3
"""r14: SessionStart hook whose answer depends on the payload's source.
ss_by_source.py --out OUT --label L [--only SOURCE] [--field sessionTitle]
Prints {"hookSpecificOutput":{"hookEventName":"SessionStart",FIELD:"S_<source>"}} unless --only is given and
the source differs (then prints nothing). Records its stdin to OUT/hooks.jsonl like hook.py."""
import argparse, json, os, sys, time, fcntl, uuid
ap = argparse.ArgumentParser()
ap.add_argument("--out", required=True); ap.add_argument("--label", required=True)
ap.add_argument("--only"); ap.add_argument("--field", default="sessionTitle")
a = ap.parse_args()
raw = sys.stdin.read()
inv = uuid.uuid4().hex[:8]
p = json.loads(raw)
src = p.get("source")
ans = None
if not a.only or a.only == src:
    ans = {"hookSpecificOutput": {"hookEventName": "SessionStart", a.field: "S_%s" % src}}
    sys.stdout.write(json.dumps(ans))
with open(os.path.join(a.out, "hooks.jsonl"), "a") as f:
    fcntl.flock(f, fcntl.LOCK_EX)
    f.write(json.dumps({"phase": "start", "label": a.label, "inv": inv, "t": time.time(), "stdin": p, "stdin_raw": raw,
                        "answer": ans}, ensure_ascii=False) + "\n")
    f.write(json.dumps({"phase": "end", "label": a.label, "inv": inv, "t": time.time(), "exit": 0}) + "\n")
