#!/usr/bin/env bash
# Peak memory of `latch fire` while a hook prints 1 GiB on stdout.
#
#   bash benches/rss.sh                 # limit 32 MiB
#   RSS_LIMIT_MIB=16 bash benches/rss.sh
#
# The project's settings declare one PreToolUse hook,
# `head -c 1073741824 /dev/zero` (timeout 120 s). latch must keep reading
# and discarding past its 1 MiB stdout cap, so its peak resident set size
# must stay flat: under 32 MiB. The outcome must record the hook as failed
# with `output_too_large`. Peak RSS comes from GNU time's
# "Maximum resident set size" (/usr/bin/time -v), which is the largest of
# latch and the processes it waited for (the hook's `sh` and `head` are a
# few MiB at most). Exits non-zero on FAIL.
set -euo pipefail

cd "$(dirname "$0")/.."
LIMIT_KIB=$((${RSS_LIMIT_MIB:-32} * 1024))

if [[ ! -x /usr/bin/time ]]; then
    echo "rss.sh needs GNU time at /usr/bin/time (Debian: apt-get install time)" >&2
    exit 2
fi

cargo build --release --quiet
BIN="$PWD/target/release/latch"

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/project/.poolside" "$TMP/home" "$TMP/state"
cat >"$TMP/project/.poolside/settings.yaml" <<'YAML'
hooks:
  PreToolUse:
    - name: gigabyte
      matcher: "shell"
      command: "head -c 1073741824 /dev/zero"
      timeout: 120
YAML
printf '%s\n' '{"event":"tool_before","session_id":"s","tool":{"name":"shell","input":{"cmd":"ls"}}}' \
    >"$TMP/event.json"

status=0
/usr/bin/time -v -o "$TMP/time.txt" "$BIN" fire \
    --project "$TMP/project" --home "$TMP/home" --state-dir "$TMP/state" \
    --event "$TMP/event.json" >"$TMP/outcome.json" 2>"$TMP/stderr.txt" || status=$?

python3 - "$TMP" "$status" "$LIMIT_KIB" <<'PY'
import json
import re
import sys

tmp, status, limit_kib = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
timing = open(f"{tmp}/time.txt").read()
rss_kib = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", timing).group(1))
wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", timing).group(1)
ok = True

print(f"latch fire exit status: {status}; wall clock {wall}")
if status != 0:
    print(open(f"{tmp}/stderr.txt").read(), file=sys.stderr)
    ok = False

verdict = "PASS" if rss_kib < limit_kib else "FAIL"
ok &= verdict == "PASS"
print(f"{verdict}: peak RSS {rss_kib} KiB ({rss_kib / 1024:.1f} MiB), limit {limit_kib // 1024} MiB")

try:
    outcome = json.load(open(f"{tmp}/outcome.json"))
    runs = outcome.get("runs", [])
    run = runs[0] if len(runs) == 1 else {}
except (ValueError, OSError) as e:
    outcome, run = {}, {}
    print(f"cannot read the outcome: {e}")
if run.get("status") == "failed" and run.get("error") == "output_too_large":
    print(f"PASS: the hook failed with output_too_large ({run.get('message')}; "
          f"took {run.get('duration_ms', '?')} ms)")
else:
    print(f"FAIL: expected one run failed with output_too_large, got {json.dumps(outcome)[:400]}")
    ok = False
if outcome.get("decision") != "proceed":
    print(f"FAIL: a failed hook must not block; decision is {outcome.get('decision')!r}")
    ok = False
sys.exit(0 if ok else 1)
PY
