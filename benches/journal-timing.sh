#!/usr/bin/env bash
# Whole-process timing of `latch fire` across a long peen session: fires
# `turn_start` for TURNS turns of one session (each a journaled checkpoint:
# begin, an inject action, finish) and compares the first fires with the
# last ones. Per-turn cost must stay flat: the restart journal is pruned,
# so state.json does not grow with the session. Builds the release binary
# first (set LATCH=/path/to/latch to time another build instead).
#
#   bash benches/journal-timing.sh            # 3000 turns
#   TURNS=500 bash benches/journal-timing.sh
#
# Prints the median and p90 in ms of the first and the last WINDOW fires
# (default 100), their ratio, and the size of state.json at the end.
# Needs python3.
set -euo pipefail

cd "$(dirname "$0")/.."
TURNS="${TURNS:-3000}"
WINDOW="${WINDOW:-100}"

if [ -z "${LATCH:-}" ]; then
    cargo build --release --quiet
    LATCH="$PWD/target/release/latch"
fi

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/ws/.agents" "$TMP/home" "$TMP/state"
cat >"$TMP/ws/.agents/hooks.yaml" <<'YAML'
version: 1
turnStart:
  - name: remind
    actions:
      - name: note
        type: inject
        message: Run the tests before you finish.
YAML

python3 - "$LATCH" "$TMP" "$TURNS" "$WINDOW" <<'PY'
import json
import math
import os
import subprocess
import sys
import time

binary, tmp, turns, window = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
fire = [
    binary, "fire",
    "--project", f"{tmp}/ws",
    "--home", f"{tmp}/home",
    "--state-dir", f"{tmp}/state",
]
env = {k: v for k, v in os.environ.items() if not k.startswith("PEEN_")}


def once(turn):
    event = json.dumps({"event": "turn_start", "session_id": "s", "turn_id": f"t{turn}",
                        "cwd": f"{tmp}/ws", "model": "m"}).encode()
    start = time.perf_counter()
    done = subprocess.run(fire, input=event, capture_output=True, env=env)
    took = (time.perf_counter() - start) * 1000
    if done.returncode != 0:
        sys.exit(f"latch fire failed ({done.returncode}): {done.stderr.decode()}")
    if turn == 0:
        outcome = json.loads(done.stdout)
        if outcome.get("decision") != "proceed" or not outcome.get("context"):
            sys.exit(f"expected a proceed with the injected context, got {done.stdout.decode()}")
    return took


def stats(samples):
    samples = sorted(samples)
    n = len(samples)
    median = samples[n // 2] if n % 2 else (samples[n // 2 - 1] + samples[n // 2]) / 2
    p90 = samples[max(0, math.ceil(0.9 * n) - 1)]  # nearest rank
    return median, p90


times = [once(t) for t in range(turns)]
first, last = stats(times[:window]), stats(times[-window:])
state = f"{tmp}/state/sessions/s/state.json"
print(f"latch fire, peen turn_start with a journaled checkpoint, {turns} turns of one session (ms):")
print(f"  first {window:4d}   median {first[0]:7.3f}   p90 {first[1]:7.3f}")
print(f"  last  {window:4d}   median {last[0]:7.3f}   p90 {last[1]:7.3f}")
print(f"  last/first (medians): {last[0] / first[0]:.2f}")
print(f"  state.json at the end: {os.path.getsize(state)} bytes")
PY
