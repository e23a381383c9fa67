#!/usr/bin/env bash
# Whole-process timing of `latch fire` for an event that matches no hook:
# process start, argument parsing, settings discovery (none found), session
# open, dispatch, outcome JSON. Builds the release binary first.
#
#   bash benches/fire-timing.sh            # 200 runs
#   RUNS=1000 bash benches/fire-timing.sh
#
# Prints the median and p90 in ms, next to the same statistics for spawning
# /bin/true through the same timing loop (the floor of any process launch on
# this machine). Needs python3; hyperfine is not required.
set -euo pipefail

cd "$(dirname "$0")/.."
RUNS="${RUNS:-200}"

cargo build --release --quiet
BIN="$PWD/target/release/latch"

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/project" "$TMP/home" "$TMP/state"
printf '%s\n' '{"event":"tool_before","session_id":"s","tool":{"name":"shell","input":{"cmd":"ls"}}}' \
    >"$TMP/event.json"

python3 - "$BIN" "$TMP" "$RUNS" <<'PY'
import json
import math
import subprocess
import sys
import time

binary, tmp, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
fire = [
    binary, "fire",
    "--project", f"{tmp}/project",
    "--home", f"{tmp}/home",
    "--state-dir", f"{tmp}/state",
    "--event", f"{tmp}/event.json",
]

# One checked run: exit 0, no diagnostics, nothing ran, the event proceeds.
done = subprocess.run(fire, stdin=subprocess.DEVNULL, capture_output=True)
if done.returncode != 0 or done.stderr:
    sys.exit(f"latch fire failed ({done.returncode}): {done.stderr.decode()}")
outcome = json.loads(done.stdout)
if outcome.get("decision") != "proceed" or outcome.get("runs"):
    sys.exit(f"expected a plain proceed with no hook runs, got {done.stdout.decode()}")


def once(argv):
    start = time.perf_counter()
    subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True)
    return (time.perf_counter() - start) * 1000


def stats(samples):
    samples = sorted(samples)
    n = len(samples)
    median = samples[n // 2] if n % 2 else (samples[n // 2 - 1] + samples[n // 2]) / 2
    p90 = samples[max(0, math.ceil(0.9 * n) - 1)]  # nearest rank
    return median, p90, samples[0]


floor_argv = ["/bin/true"]
for _ in range(10):  # warm the page cache
    once(fire)
    once(floor_argv)
# Alternate the two so that load from other processes hits both alike.
latch_ms, floor_ms = [], []
for _ in range(runs):
    latch_ms.append(once(fire))
    floor_ms.append(once(floor_argv))
latch, floor = stats(latch_ms), stats(floor_ms)
print(f"latch fire, event matching no hook, {runs} runs (ms):")
print(f"  latch fire   median {latch[0]:7.3f}   p90 {latch[1]:7.3f}   min {latch[2]:7.3f}")
print(f"  /bin/true    median {floor[0]:7.3f}   p90 {floor[1]:7.3f}   min {floor[2]:7.3f}")
print(f"  latch fire minus the spawn floor (medians): {latch[0] - floor[0]:.3f} ms")
PY
