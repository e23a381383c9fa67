import json, os, re, sys
run_dir = os.path.abspath(sys.argv[1]); out = sys.argv[2]
run = json.load(open(os.path.join(run_dir, "run.json")))
R = [(re.sub(r"[^A-Za-z0-9]", "-", run["workspace"]), "<WS_MANGLED>"), (run["workspace"], "<WS>"), (run["home"], "<HOME>"),
     (run["sandbox"], "<SANDBOX>"), (run_dir, "<RUN>"), (run["python"], "<PY>"),
     (os.path.dirname(os.path.abspath(__file__)), "<HARNESS>"), (":%d" % run["port"], ":<PORT>")]
s = open(os.path.join(run_dir, "debug.log"), encoding="utf-8", errors="replace").read()
for a, b in R: s = s.replace(a, b)
open(out, "w").write(s)
