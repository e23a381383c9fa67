"""show_managed.py CASE_DIR...: one compact view per case (hooks that ran, sentinels, MN, stderr, result)."""
import json, re, sys
for d in sys.argv[1:]:
    o = json.load(open(d.rstrip('/') + "/observed.json"))
    labels = [h.get("label") for h in o.get("hooks", [])]
    sent = {k: len(v) for k, v in o.get("sentinels", {}).items()}
    mn = sorted(set(re.findall(r"MN=\[[^\]]*\]", json.dumps(o.get("sentinels", {})))))
    res = o.get("claude_result")
    if isinstance(res, dict) and "stream_json_events" in res:
        r = [e for e in res["stream_json_events"] if e.get("type") in ("result",)]
        info = [e.get("content") for e in res["stream_json_events"] if e.get("subtype") == "informational"]
        res = (r[0].get("result") if r else None, info)
    reqs = o.get("api_main_requests", [])
    models = sorted(set(str(x.get("model")) for x in reqs))
    print("==", o["case"], o.get("claude_code_version"), "exit", o.get("claude_exit"))
    print("   hooks:", labels, "sentinels:", sent, mn, "main requests:", len(reqs))
    print("   stderr:", json.dumps(o.get("claude_stderr")))
    print("   result:", json.dumps(res)[:300])
