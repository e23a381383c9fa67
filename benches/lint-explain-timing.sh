#!/usr/bin/env bash
# Whole-process timing of `latch lint` over 100 configuration files and of
# `latch explain` for one event against a 256-hook configuration.
# Targets: lint <= 200 ms, explain <= 10 ms (medians).
# Usage: bash benches/lint-explain-timing.sh   (RUNS=N to change the count)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
LATCH="$PWD/target/release/latch"
RUNS="${RUNS:-50}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# 100 configuration files: 34 poolside projects, 33 peen layers, 33 evener plugins.
for i in $(seq 0 33); do
  mkdir -p "$work/lint/pool$i/.poolside"
  printf 'hooks:\n  PreToolUse:\n    - {name: a%s, matcher: shell, command: /bin/true}\n    - {name: b%s, matcher: "web_.*", command: /bin/true}\n  Stop:\n    - {name: s%s, command: /bin/true}\n  stop_hook_max_continuations: 2\n' "$i" "$i" "$i" > "$work/lint/pool$i/.poolside/settings.yaml"
done
for i in $(seq 0 32); do
  mkdir -p "$work/lint/peen$i/.agents" "$work/lint/plugin$i/hooks"
  printf 'version: 1\npreToolUse:\n  - name: g%s\n    match: {tool: runCommand, input: {/command: {regex: "rm -rf"}}}\n    actions: [{type: deny, reason: no}]\n' "$i" > "$work/lint/peen$i/.agents/hooks.yaml"
  printf '{"hooks":{"PreToolUse":[{"matcher":"Bash|Edit","hooks":[{"type":"command","command":"/bin/true"}]}]}}' > "$work/lint/plugin$i/hooks/hooks.json"
done

# 256 poolside hooks with mixed matchers.
mkdir -p "$work/explain/.poolside"
{
  echo "hooks:"
  echo "  PreToolUse:"
  for i in $(seq 0 255); do
    case $((i % 4)) in
      0) m="tool_$i" ;; 1) m="read_$i|write_$i" ;; 2) m="mcp__srv${i}__.*" ;; *) m="*" ;;
    esac
    printf '    - {name: h%s, matcher: "%s", command: /bin/true}\n' "$i" "$m"
  done
} > "$work/explain/.poolside/settings.yaml"
echo '{"event":"tool_before","tool":{"name":"mcp__srv2__search","input":{}}}' > "$work/event.json"

python3 - "$LATCH" "$work" "$RUNS" <<'PY'
import statistics, subprocess, sys, time
latch, work, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
def timed(args):
    samples = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        samples.append((time.perf_counter() - t) * 1000)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.9) - 1]
files = subprocess.run([latch, "lint", "--format", "json", f"{work}/lint"], capture_output=True, text=True)
med, p90 = timed([latch, "lint", f"{work}/lint"])
print(f"latch lint, 100 configuration files: median {med:.1f} ms, p90 {p90:.1f} ms (target <= 200 ms)")
med, p90 = timed([latch, "explain", f"{work}/event.json", "--project", f"{work}/explain", "--home", f"{work}/none"])
print(f"latch explain, 256 hooks: median {med:.2f} ms, p90 {p90:.2f} ms (target <= 10 ms)")
PY
