#!/usr/bin/env bash
# Section 2 of `cargo bench --bench serve` (N `true` hooks through the
# server against the same processes spawned directly), run several times,
# each with a new server, and summed up: the spread of the ratio from one
# run to the next, beside the same spread of the least server (a process
# that spawns the hooks as the direct side does and does nothing else).
# One run's ratio moves with what the machine does meanwhile; the median
# over runs is the reading `benches/README.md` reports.
#
#   bash benches/serve-runs.sh              # 9 runs of N = 1
#   RUNS=5 SERVE_N=4 bash benches/serve-runs.sh
#   LATCH_BIN=/path/to/latch bash benches/serve-runs.sh   # that binary
#
# Builds the release binary first (unless LATCH_BIN is set) and copies it
# out of `cargo bench`'s way, as `benches/serve.rs` says. Needs python3.
set -euo pipefail

cd "$(dirname "$0")/.."
RUNS="${RUNS:-9}"
export SERVE_N="${SERVE_N:-1}"
export SERVE_SECTIONS=2

if [ -z "${LATCH_BIN:-}" ]; then
    cargo build --release --quiet
    cp target/release/latch target/latch-release
    LATCH_BIN="$PWD/target/latch-release"
fi
export LATCH_BIN
cargo bench --bench serve --no-run --quiet 2>/dev/null

OUT="$(mktemp)"
trap 'rm -f "$OUT"' EXIT
for run in $(seq 1 "$RUNS"); do
    echo "run $run of $RUNS" >&2
    cargo bench --bench serve --quiet 2>/dev/null | grep -E '^2\. N = ' >>"$OUT"
done

python3 - "$OUT" <<'PY'
import re
import statistics
import sys

least, ratio, paired = {}, {}, {}
for line in open(sys.argv[1], encoding="utf-8"):
    n = int(re.match(r"2\. N = *(\d+)", line).group(1))
    if "least server" in line:
        least.setdefault(n, []).append(float(re.search(r"ratio ([\d.]+)", line).group(1)))
    elif m := re.search(r"ratio ([\d.]+) \(median of each round's ratio ([\d.]+)\)", line):
        ratio.setdefault(n, []).append(float(m.group(1)))
        paired.setdefault(n, []).append(float(m.group(2)))

def spread(values):
    values = sorted(values)
    return (
        f"median {statistics.median(values):.3f}, range {values[0]:.3f}–{values[-1]:.3f}"
        f" ({', '.join(f'{v:.3f}' for v in values)})"
    )

for n in sorted(ratio):
    over = sum(r > 1.05 for r in ratio[n])
    print(f"N = {n}, {len(ratio[n])} runs")
    print(f"  latch serve / direct:        {spread(ratio[n])}; {over} over 1.05")
    print(f"  each round's own, median:    {spread(paired[n])}")
    print(f"  least server / direct:       {spread(least[n])}")
PY
