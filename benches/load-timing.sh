#!/usr/bin/env bash
# Whole-process timing of `latch fire` on configurations of 10,000 hooks,
# per dialect, valid and with oversized patterns (the configurations of
# benches/load.rs). Builds the release binary first.
#
#   bash benches/load-timing.sh            # 10 runs per configuration
#   RUNS=30 bash benches/load-timing.sh
#
# Each configuration is fired with a `tool_before` event for a tool that
# matches no hook's pattern (so every regex a selection needs is compiled
# and no hook process is spawned), and the median and maximum in ms are
# printed next to the target (200 ms). Needs python3.
set -euo pipefail

cd "$(dirname "$0")/.."
RUNS="${RUNS:-10}"

cargo build --release --quiet
BIN="$PWD/target/release/latch"

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

python3 - "$BIN" "$TMP" "$RUNS" <<'PY'
import json
import os
import subprocess
import sys
import time

binary, tmp, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
HOOKS = 10_000


def valid(i):
    # As benches/load.rs, but `agent_{i}` instead of `*`: a `*` hook would
    # run on every event, and this script times loading and selection.
    return [f"agent_{i}", f"tool_{i}", f"read_{i}|write_{i}|edit_{i}", f"mcp__srv{i}__.*",
            f"web_(fetch|search)_{i}", f"tool_{i}", f"read_{i}|write_{i}|edit_{i}",
            f"(?i)bash_{i}.*"][i % 8]


def oversized(i):
    return r"(?:\w{100}x%d){100}" % i


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def poolside(name, matcher):
    root = f"{tmp}/{name}"
    lines = ["hooks:", "  PreToolUse:"]
    lines += [f"    - {{name: h{i}, matcher: {json.dumps(matcher(i))}, command: 'true'}}"
              for i in range(HOOKS)]
    write(f"{root}/.poolside/settings.yaml", "\n".join(lines) + "\n")
    return root, []


def evener(name, matcher):
    root = f"{tmp}/{name}"
    plugin = f"{root}-plugin"
    groups = [{"matcher": matcher(i), "hooks": [{"type": "command", "command": "true"}]}
              for i in range(HOOKS)]
    write(f"{plugin}/.claude-plugin/plugin.json", json.dumps({"name": "many"}))
    write(f"{plugin}/hooks/hooks.json", json.dumps({"hooks": {"PreToolUse": groups}}))
    os.makedirs(root, exist_ok=True)
    return root, ["--plugin-dir", plugin]


def peen(name, bad):
    root = f"{tmp}/{name}"
    out = ["version: 1", "preToolUse:"]
    for g in range(HOOKS // 40):
        out += [f"  - name: g{g}", "    actions:"]
        for a in range(40):
            i = g * 40 + a
            if bad:
                when = [f"path: 'src/d{i}/**/*.{{rs,go}}'", "input:",
                        f"  /command: {{regex: '{oversized(i)}'}}"]
            else:
                when = [[f"path: 'src/d{i}/**/*.{{rs,go}}'"],
                        ["input:", f"  /command: {{regex: '^rm{i} .*'}}"],
                        [f"tool: tool_{i}"], ["extensions: [.md]"]][i % 4]
            out += ["      - type: inject", f"        message: m{i}", "        when:"]
            out += [f"          {w}" for w in when]
    write(f"{root}/.agents/hooks.yaml", "\n".join(out) + "\n")
    return root, []


configs = [
    ("poolside/valid", *poolside("pv", valid)),
    ("poolside/oversized", *poolside("po", oversized)),
    ("evener/valid", *evener("ev", valid)),
    ("evener/oversized", *evener("eo", oversized)),
    ("peen/valid", *peen("qv", False)),
    ("peen/oversized", *peen("qo", True)),
]

print(f"latch fire on 10,000 hooks, {runs} runs each (ms; target 200):")
for label, project, extra in configs:
    event = f"{project}.event.json"
    write(event, json.dumps({"event": "tool_before", "session_id": "s", "cwd": project,
                             "tool": {"name": "no_such_tool", "input": {"command": "ls"}}}))
    argv = [binary, "fire", "--project", project, "--home", f"{tmp}/home",
            "--state-dir", f"{tmp}/state", "--event", event] + extra
    env = dict(os.environ)
    env.pop("PEEN_CONFIG_DIR", None)
    done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, env=env)
    if done.returncode != 0:
        sys.exit(f"{label}: latch fire failed ({done.returncode}): {done.stderr[:2000]}")
    json.loads(done.stdout)
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, env=env)
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    median = samples[len(samples) // 2]
    print(f"  {label:20} median {median:8.1f}   max {samples[-1]:8.1f}")
PY
