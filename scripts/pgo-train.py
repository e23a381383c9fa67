#!/usr/bin/env python3
"""The training run of a profile-guided build (scripts/pgo-build.sh).

    python3 scripts/pgo-train.py BINARY

Drives an instrumented `latch` through what its users run most, so that
the profile it writes says which code is hot:

- `latch serve` with one bundled example of each dialect (examples/:
  poolside's project, evener's plugins but the one that needs a model,
  claude's project and plugin, peen's no-force-push), each of its events
  fired through it, and `explain` for each;
- `latch serve` with the claude dialect and one `true` hook, the common
  shape of a harness's session: many `tool_before` events with the hook,
  and as many prompts with no hook at all, over a few sessions;
- `latch fire` once per example event, and `latch lint` on each example,
  for the one-process path.

Only the standard library; the examples' hooks need `jq`. Every server is
shut down and must exit 0, which is when an instrumented binary writes
its profile. A request answered with an error, a hook run that failed, a
served session whose hook stopped running, or a command that exits
non-zero stops the run with an error, as does a run longer than 10
minutes. So `.ci/run` runs it against the debug binary too: it fails
when an example no longer works. latch runs with the caller's
environment less its own and the dialects' variables (`LATCH_*`,
`PEEN_*`, `CLAUDE*`), which would add configuration or state.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from types import FrameType

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
# Fires per session in the served claude loop, and passes over each
# example event: enough for every hot path to dwarf start-up.
LOOP_FIRES = 1500
EXAMPLE_PASSES = 20
# Longer than this and something hangs: CI should fail, not wait.
TIME_LIMIT_SECONDS = 600
# What latch runs with: this environment without the variables that
# would point it at other configuration or state.
ENV = {
    name: value
    for name, value in os.environ.items()
    if not name.startswith(("LATCH_", "PEEN_", "CLAUDE"))
}


class Server:
    """One `latch serve`, driven through its pipes as a client does."""

    def __init__(self, binary: str, params: dict[str, object]) -> None:
        self.proc = subprocess.Popen(
            [binary, "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=ENV,
        )
        self.next_id = 0
        self.call("initialize", params)

    def call(self, method: str, params: object) -> dict[str, object]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.next_id += 1
        line = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self.proc.stdin.write(json.dumps(line).encode() + b"\n")
        self.proc.stdin.flush()
        while True:
            raw = self.proc.stdout.readline()
            if not raw:
                raise SystemExit(f"pgo-train: latch serve ended during {method}")
            message: dict[str, object] = json.loads(raw)
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise SystemExit(f"pgo-train: {method} failed: {message['error']}")
                return message

    def fire(self, event: dict[str, object]) -> list[dict[str, object]]:
        """Fires `event`; returns its runs, none of which failed."""
        result = self.call("fire", event)["result"]
        assert isinstance(result, dict)
        runs: list[dict[str, object]] = result["runs"]
        for run in runs:
            if run.get("status") == "failed":
                raise SystemExit(f"pgo-train: hook {run.get('hook')} failed on {event['event']}: {run}")
        return runs

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.call("shutdown", None)
        self.proc.stdin.write(b'{"jsonrpc":"2.0","method":"exit"}\n')
        self.proc.stdin.close()
        if self.proc.wait(timeout=60) != 0:
            raise SystemExit(f"pgo-train: latch serve exited {self.proc.returncode}")


def events(directory: Path) -> list[dict[str, object]]:
    return [json.loads(p.read_text()) for p in sorted(directory.glob("*.json"))]


def peen_events(workspace: Path) -> list[dict[str, object]]:
    return [
        {
            "event": "tool_before",
            "session_id": "train",
            "turn_id": "t1",
            "cwd": str(workspace),
            "tool": {"name": "runCommand", "input": {"command": command}, "call_id": "c1"},
        }
        for command in ("git push origin main --force", "git push origin main")
    ]


Example = tuple[dict[str, object], list[str], list[str], list[dict[str, object]]]


def configurations(work: Path) -> list[Example]:
    """Each dialect's example: serve params, the same as `latch fire`
    flags, what `latch lint` checks, and its events."""
    home = work / "home"
    home.mkdir()
    poolside = work / "poolside"
    shutil.copytree(EXAMPLES / "poolside", poolside)
    peen = work / "peen"
    shutil.copytree(EXAMPLES / "peen" / "no-force-push", peen)
    evener_plugins = [
        str(EXAMPLES / "evener" / p)
        for p in ("hello-plugin", "guard-plugin", "exec-plugin", "pointed-plugin", "inline-plugin")
    ]
    claude = EXAMPLES / "claude"
    managed = str(home / "no-managed-settings")
    return [
        (
            {"dialects": ["poolside"], "project": str(poolside), "home": str(home)},
            ["--dialect", "poolside", "--project", str(poolside), "--home", str(home)],
            ["--dialect", "poolside", str(poolside)],
            events(poolside / "events"),
        ),
        (
            {"dialects": ["evener"], "plugin_dirs": evener_plugins, "project": str(work), "home": str(home)},
            ["--dialect", "evener", "--project", str(work), "--home", str(home)]
            + [flag for p in evener_plugins for flag in ("--plugin-dir", p)],
            ["--dialect", "evener", *evener_plugins],
            events(EXAMPLES / "evener" / "events"),
        ),
        (
            {
                "dialects": ["claude"],
                "project": str(claude / "project"),
                "plugin_dirs": [str(claude / "plugins" / "careful")],
                "home": str(home),
                "claude_managed_dir": managed,
            },
            [
                "--dialect", "claude", "--project", str(claude / "project"),
                "--plugin-dir", str(claude / "plugins" / "careful"),
                "--home", str(home), "--claude-managed-dir", managed,
            ],
            ["--dialect", "claude", str(claude / "project"), str(claude / "plugins" / "careful")],
            events(claude / "events"),
        ),
        (
            {"dialects": ["peen"], "project": str(peen), "home": str(home)},
            ["--dialect", "peen", "--project", str(peen), "--home", str(home)],
            ["--dialect", "peen", str(peen)],
            peen_events(peen),
        ),
    ]


def serve_examples(binary: str, work: Path) -> None:
    for n, (params, flags, lint, evs) in enumerate(configurations(work / "examples")):
        state = work / f"state-{n}"
        server = Server(binary, {**params, "state_dir": str(state)})
        for event in evs:
            server.call("explain", event)
        for i in range(EXAMPLE_PASSES):
            for event in evs:
                server.fire({**event, "session_id": f"train-{i % 3}"})
        server.close()
        for event in evs:
            run([binary, "fire", *flags, "--state-dir", str(state)], json.dumps(event).encode())
        run([binary, "lint", *lint], b"")


def run(command: list[str], stdin: bytes) -> None:
    """Runs a one-process command; its output is shown only if it fails."""
    done = subprocess.run(command, input=stdin, capture_output=True, env=ENV, check=False)
    if done.returncode != 0:
        sys.stderr.buffer.write(done.stdout + done.stderr)
        raise SystemExit(f"pgo-train: exit {done.returncode}: {' '.join(command)}")


def serve_loop(binary: str, work: Path) -> None:
    project = work / "loop"
    (project / ".claude").mkdir(parents=True)
    (work / "home").mkdir()
    hook = {"type": "command", "command": "true"}
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    server = Server(
        binary,
        {
            "dialects": ["claude"],
            "project": str(project),
            "home": str(work / "home"),
            "claude_managed_dir": str(work / "home" / "no-managed-settings"),
            "state_dir": str(work / "loop-state"),
        },
    )
    for i in range(LOOP_FIRES):
        session = f"loop-{i % 4}"
        tool = {"name": "Bash", "input": {"command": f"ls {i}"}, "call_id": f"toolu_{i}"}
        hooked = server.fire({"event": "tool_before", "session_id": session, "cwd": str(project), "tool": tool})
        prompt = server.fire({"event": "user_prompt", "session_id": session, "cwd": str(project), "prompt": "go on"})
        if (len(hooked), len(prompt)) != (1, 0):
            raise SystemExit(f"pgo-train: the served session ran {len(hooked)} and {len(prompt)} hooks, not 1 and 0")
    server.close()


def main() -> None:
    if len(sys.argv) != 2:
        raise SystemExit("usage: pgo-train.py BINARY")
    binary = str(Path(sys.argv[1]).resolve())
    if shutil.which("jq") is None:
        raise SystemExit("pgo-train: the examples' hooks need jq on PATH")

    def too_long(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(f"pgo-train: still running after {TIME_LIMIT_SECONDS} s")

    signal.signal(signal.SIGALRM, too_long)
    signal.alarm(TIME_LIMIT_SECONDS)
    with tempfile.TemporaryDirectory(prefix="latch-pgo-") as tmp:
        work = Path(tmp)
        (work / "examples").mkdir()
        serve_examples(binary, work)
        serve_loop(binary, work)


if __name__ == "__main__":
    main()
