#!/usr/bin/env bash
# Peak memory of `latch fire` for a 4 MB event, with hooks of every dialect.
#
#   bash benches/event-rss.sh            # 4 MB events, limit 3 x size + 16 MiB
#   EVENT_MB=8 RSS_BASE_MIB=16 bash benches/event-rss.sh
#   SKIP_BUILD=1 bash benches/event-rss.sh   # use target/release/latch as is
#   SKIP_BUILD=1 LATCH_BIN=target/debug/latch bash benches/event-rss.sh
#
# One project loads all three dialects: a poolside hook, an evener plugin
# handler and a peen command action (with an input matcher) on both
# PreToolUse and PostToolUse, each `cat > /dev/null` (it reads the whole
# payload). Each shape of event is fired once through
# `/usr/bin/time -v latch fire --event FILE`; the peak resident set size is
# GNU time's "Maximum resident set size", the largest of latch and the
# processes it waited for (the hooks' `cat` is tiny). The shapes:
#
#   output-string   tool_after, the tool output one big string (a file read)
#   input-string    tool_before, input {"path", "content": big string} (a write)
#   output-numbers  tool_after, output {"data": [many small numbers]}
#   output-nested   tool_after, output: many arrays nested 100 deep
#   output-keys     tool_after, output: an object with many keys
#   input-numbers, input-nested, input-keys: the same three as tool input
#
# The target (issue 8): peak RSS at most 3 x the event size plus a
# constant (RSS_BASE_MIB, default 16 MiB: latch with a tiny event and the
# same hooks peaks at about 7 MiB). Every shape is checked; each input
# shape has a `path` member, so peen's input matcher passes and its
# action runs too. Exits non-zero on FAIL.
set -euo pipefail

cd "$(dirname "$0")/.."
MB=${EVENT_MB:-4}
BASE_KIB=$((${RSS_BASE_MIB:-16} * 1024))

if [[ ! -x /usr/bin/time ]]; then
    echo "event-rss.sh needs GNU time at /usr/bin/time (Debian: apt-get install time)" >&2
    exit 2
fi

[[ -n "${SKIP_BUILD:-}" ]] || cargo build --release --quiet
BIN="${LATCH_BIN:-$PWD/target/release/latch}"

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
P="$TMP/project"
mkdir -p "$P/.poolside" "$P/.agents" "$TMP/home" "$TMP/plugin/.claude-plugin" "$TMP/plugin/hooks"
cat >"$P/.poolside/settings.yaml" <<'YAML'
hooks:
  PreToolUse:
    - {name: pool-pre, command: "cat > /dev/null"}
  PostToolUse:
    - {name: pool-post, command: "cat > /dev/null"}
YAML
echo '{"name":"ev"}' >"$TMP/plugin/.claude-plugin/plugin.json"
cat >"$TMP/plugin/hooks/hooks.json" <<'JSON'
{"hooks": {
  "PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "cat > /dev/null"}]}],
  "PostToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "cat > /dev/null"}]}]
}}
JSON
cat >"$P/.agents/hooks.yaml" <<'YAML'
version: 1
preToolUse:
  - name: peen-pre
    match: {input: {/path: {regex: "."}}}
    actions: [{type: command, command: sh, args: ["-c", "cat > /dev/null"]}]
  - name: peen-pre-all
    actions: [{type: command, command: sh, args: ["-c", "cat > /dev/null"]}]
postToolUse:
  - name: peen-post
    actions: [{type: command, command: sh, args: ["-c", "cat > /dev/null"]}]
YAML

python3 - "$TMP" "$MB" <<'PY'
import json, sys
tmp, mb = sys.argv[1], int(sys.argv[2])
size = mb * 1000 * 1000
def tool(kind, name, input, output=None):
    t = {"name": name, "input": input, "call_id": "c1"}
    if output is not None:
        t["output"] = output
    return {"event": kind, "session_id": "s", "turn_id": "t", "tool": t}
numbers = [7] * (size // 2)
nested = [json.loads("[" * 100 + "1" + "]" * 100)] * (size // 202)
keys = {f"k{i:07}": i % 10 for i in range(size // 14)}
shapes = {
    "output-string": tool("tool_after", "readFile", {"path": "big.txt"}, "x" * size),
    "input-string": tool("tool_before", "writeFile", {"path": "big.txt", "content": "y" * size}),
    "output-numbers": tool("tool_after", "shell", {"cmd": "seq"}, {"data": numbers}),
    "output-nested": tool("tool_after", "shell", {"cmd": "nest"}, {"data": nested}),
    "output-keys": tool("tool_after", "shell", {"cmd": "keys"}, keys),
    "input-numbers": tool("tool_before", "shell", {"data": numbers, "path": "n.txt"}),
    "input-nested": tool("tool_before", "shell", {"data": nested, "path": "n.txt"}),
    "input-keys": tool("tool_before", "shell", {**keys, "path": "k.txt"}),
}
for name, ev in shapes.items():
    with open(f"{tmp}/{name}.json", "w") as f:
        json.dump(ev, f, separators=(",", ":"))
PY

status=0
SHAPES="output-string input-string output-numbers output-nested output-keys input-numbers input-nested input-keys"
for shape in $SHAPES; do
    /usr/bin/time -v -o "$TMP/$shape.time" "$BIN" fire \
        --project "$P" --home "$TMP/home" --state-dir "$TMP/state" \
        --plugin-dir "$TMP/plugin" \
        --event "$TMP/$shape.json" >"$TMP/$shape.out" 2>"$TMP/$shape.err" || {
        echo "FAIL: $shape: latch fire exited $?"; cat "$TMP/$shape.err"; status=1; }
done

python3 - "$TMP" "$BASE_KIB" $SHAPES <<'PY' || status=1
import json, os, re, sys
tmp, base_kib = sys.argv[1], int(sys.argv[2])
ok = True
print(f"{'shape':<15} {'event':>9} {'peak RSS':>10} {'ratio':>6} {'runs':>5}  limit (3 x event + {base_kib // 1024} MiB)")
for shape in sys.argv[3:]:
    size_kib = os.path.getsize(f"{tmp}/{shape}.json") / 1024
    timing = open(f"{tmp}/{shape}.time").read()
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", timing).group(1))
    try:
        runs = len(json.load(open(f"{tmp}/{shape}.out"))["runs"])
    except (ValueError, OSError, KeyError):
        runs = -1
    limit = 3 * size_kib + base_kib
    verdict = "PASS" if rss <= limit and runs > 0 else "FAIL"
    ok &= verdict != "FAIL"
    print(f"{shape:<15} {size_kib / 1024:7.2f} MiB {rss / 1024:7.1f} MiB {rss / size_kib:5.1f}x {runs:>5}  "
          f"{verdict} (limit {limit / 1024:.1f} MiB)")
sys.exit(0 if ok else 1)
PY
exit $status
