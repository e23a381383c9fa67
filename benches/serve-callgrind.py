#!/usr/bin/env python3
"""Instructions and code lines of one served `fire`, under callgrind.

Usage: python3 benches/serve-callgrind.py LATCH_BINARY [FIRES]

Starts `LATCH_BINARY serve` under valgrind's callgrind in a fresh project
with one claude PreToolUse hook running `true`, sends `initialize` and
five warm-up fires, zeroes the counters, sends FIRES more (default 100)
one after the other, and prints:

- the instructions latch executed per fire (all threads);
- the distinct 64-byte lines of code ten of those fires touched, which is
  what a fire costs when it runs with cold caches (see benches/README.md,
  "Fewer instructions, the same cold path").

Needs valgrind (`apt install valgrind`). Build the binary with symbols for
readable reports: `cargo build --profile profiling` (with
`CARGO_PROFILE_PROFILING_LTO=false` it builds in a third of the time and
counts within a few percent). The callgrind files are left in the
temporary directory printed at the end, for `callgrind_annotate`.
"""

import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Any


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    binary = os.path.abspath(sys.argv[1])
    fires = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    work = tempfile.mkdtemp(prefix="latch-callgrind-")
    project = os.path.join(work, "project")
    for d in [".claude", "home", "managed", "state"]:
        os.makedirs(os.path.join(project, d))
    with open(os.path.join(project, ".claude", "settings.json"), "w") as f:
        json.dump({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "true"}]}]}}, f)
    count = run(binary, project, os.path.join(work, "count.out"), fires, [])
    total = summary(count)
    lines_out = os.path.join(work, "lines.out")
    run(binary, project, lines_out, 10, ["--dump-instr=yes"])
    lines = code_lines(lines_out + ".1")
    print(f"instructions per fire: {total / fires:,.0f} ({fires} fires)")
    print(f"distinct code lines touched by 10 fires: {lines:,} ({lines * 64 // 1024} KiB)")
    print(f"callgrind files: {work}")
    return 0


def run(binary: str, project: str, out: str, fires: int, extra: list[str]) -> str:
    """Runs the server under callgrind; returns the counted part's file."""
    server = subprocess.Popen(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *extra,
         binary, "serve"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert server.stdin is not None and server.stdout is not None
    stdin, stdout = server.stdin, server.stdout
    ids = iter(range(1, 1_000_000))

    def call(method: str, params: dict[str, Any]) -> dict[str, Any]:
        request_id = next(ids)
        line = json.dumps({"jsonrpc": "2.0", "id": request_id,
                           "method": method, "params": params})
        stdin.write(line.encode() + b"\n")
        stdin.flush()
        while True:
            answer: dict[str, Any] = json.loads(stdout.readline())
            if answer.get("id") == request_id:
                return answer

    answer = call("initialize", {
        "dialects": ["claude"], "project": project,
        "home": os.path.join(project, "home"),
        "claude_managed_dir": os.path.join(project, "managed"),
        "state_dir": os.path.join(project, "state")})
    if "result" not in answer:
        raise SystemExit(f"initialize failed: {answer}")
    event = {"event": "tool_before", "session_id": "s1",
             "tool": {"name": "Bash", "input": {"command": "ls"}}}
    for _ in range(5):
        call("fire", event)
    control(server.pid, "-z")
    for _ in range(fires):
        answer = call("fire", event)
        if len(answer["result"].get("runs", [])) != 1:
            raise SystemExit(f"the hook did not run: {answer}")
    control(server.pid, "-d")
    stdin.close()
    server.wait()
    return out + ".1"


def control(pid: int, flag: str) -> None:
    subprocess.run(["callgrind_control", flag, str(pid)],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=True)
    # The dump is written asynchronously by the server's next basic block.
    time.sleep(0.5)


def summary(path: str) -> int:
    with open(path) as f:
        for line in f:
            if line.startswith("summary:"):
                return int(line.split()[1])
    raise SystemExit(f"no summary in {path}")


def code_lines(path: str) -> int:
    """Distinct 64-byte lines of the instructions executed, from a dump
    made with --dump-instr=yes (addresses relative or absolute)."""
    lines = set()
    current = 0
    after_call = False
    with open(path) as f:
        for line in f:
            if line.startswith("calls="):
                after_call = True
                continue
            if not line or line[0] not in "0123456789+-*":
                continue
            position = line.split()[0]
            if position.startswith("0x"):
                current = int(position, 16)
            elif position[0] in "+-":
                step = position[1:]
                delta = int(step, 16) if step.startswith("0x") else int(step)
                current += delta if position[0] == "+" else -delta
            if after_call:
                # The call's own cost line: its address is the call site.
                after_call = False
                continue
            lines.add(current >> 6)
    return len(lines)


if __name__ == "__main__":
    sys.exit(main())
