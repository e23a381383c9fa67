"""Fixtures: real temporary projects with real hook scripts, and the latch
binary from ``$LATCH_BIN`` (else ``latch`` on ``PATH``)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterator, List, Tuple, Unpack

from latch_client import Config, Event, ToolCall

import pytest

# A PreToolUse hook for Bash, in Python (the interpreter running the tests):
#   rm -rf ...      -> exit 2, the reason on stderr (a deny)
#   npm test        -> allow, rewritten to `make test`
#   sleep N         -> sleeps N seconds, then rewrites to `echo SESSION_ID`
#   hang            -> sleeps 30 seconds
#   anything else   -> nothing to say (proceed)
GUARD = r'''
import json, sys, time
payload = json.load(sys.stdin)
command = (payload.get("tool_input") or {}).get("command", "")
if command.startswith("rm -rf"):
    print("Refusing to delete the whole tree; name the files instead.", file=sys.stderr)
    sys.exit(2)
if command == "npm test":
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "allow", "permissionDecisionReason": "make test is the runner",
        "updatedInput": {"command": "make test"}}}))
elif command.startswith("sleep "):
    time.sleep(float(command.split()[1]))
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "updatedInput": {"command": "echo " + payload["session_id"]}}}))
elif command == "hang":
    time.sleep(30)
'''

ASYNC_HOOK = (
    "sleep 0.2; echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PostToolUse\","
    "\"additionalContext\":\"X\"}}'"
)


@dataclass
class Project:
    """A temporary project and the configuration to serve it."""

    root: Path
    home: Path
    managed: Path
    state: Path

    def config(self, **extra: Unpack[Config]) -> Config:
        """The ``initialize`` configuration for this project."""
        config: Config = {
            "dialects": ["claude"],
            "project": str(self.root),
            "home": str(self.home),
            "claude_managed_dir": str(self.managed),
            "state_dir": str(self.state),
        }
        config.update(extra)
        return config


def make_project(base: Path, settings: Dict[str, Any]) -> Project:
    """A project under ``base`` with ``settings`` as its ``.claude/settings.json``."""
    root, home, managed, state = (base / n for n in ("project", "home", "managed", "state"))
    for directory in (root / ".claude" / "hooks", home, managed):
        directory.mkdir(parents=True)
    guard = root / ".claude" / "hooks" / "guard.py"
    guard.write_text(f"#!{sys.executable}\n{GUARD}")
    guard.chmod(guard.stat().st_mode | stat.S_IXUSR)
    (root / ".claude" / "settings.json").write_text(json.dumps(settings, indent=2))
    return Project(root, home, managed, state)


def default_settings() -> Dict[str, Any]:
    """Hooks for the tests: the guard on Bash, an async PostToolUse hook."""
    return {
        "hooks": {
            "PreToolUse": [
                {
                    "matcher": "Bash",
                    "hooks": [{"type": "command", "command": '"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.py'}],
                }
            ],
            "PostToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "async": True, "command": ASYNC_HOOK}]}
            ],
        }
    }


# A PreToolUse hook for Bash that writes its process id to hook.pid in the
# project, then sleeps 30 seconds (`exec`: the id is the sleep's).
HANG_HOOK = 'echo $$ > "$CLAUDE_PROJECT_DIR"/hook.pid; exec sleep 30'


@pytest.fixture
def hanging(tmp_path: Path) -> Iterator[Project]:
    """A project whose hook hangs and says its process id (see
    :func:`hook_pid`); a hook a failed test left running is killed."""
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": HANG_HOOK}]}]}}
    project = make_project(tmp_path / "hanging", settings)
    yield project
    try:
        pid = int((project.root / "hook.pid").read_text())
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            if b"sleep" in cmdline.read():
                os.kill(pid, signal.SIGKILL)
    except (OSError, ValueError):
        pass


def stalling_fire(session: str = "stall") -> Event:
    """A 14 MiB ``tool_before`` event for Bash. Five of them, for the
    :func:`hanging` project's hook, stall latch: once the fires it read and
    has not answered come to 64 MiB, it reads no further message, not even
    ``exit`` nor the end of its input, until the hook ends (flow control,
    docs/serve.md). A sixth one is stuck in the pipe, half written."""
    return {
        "event": "tool_before",
        "session_id": session,
        "tool": {"name": "Bash", "input": {"command": "x", "pad": "b" * (14 << 20)}},
    }


def spy_writes(monkeypatch: pytest.MonkeyPatch) -> List[bytes]:
    """Records every ``os.write`` from now on (each still done), until
    ``monkeypatch.undo()``: what a client sends."""
    written: List[bytes] = []
    real_write = os.write

    def spy(fd: int, data: bytes) -> int:
        written.append(bytes(data))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", spy)
    return written


def touching(base: Path) -> Project:
    """A project whose hook for Bash creates ``hook.ran`` in the project."""
    touch = 'touch "$CLAUDE_PROJECT_DIR"/hook.ran'
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": touch}]}]}}
    return make_project(base / "touching", settings)


def hook_pid(project: Project, within: float = 10.0) -> int:
    """The process id of the hanging hook of ``project`` (the :func:`hanging`
    fixture), once it started."""
    path = project.root / "hook.pid"
    deadline = time.monotonic() + within
    while True:
        try:
            text = path.read_text()
        except FileNotFoundError:
            text = ""
        if text.endswith("\n"):
            return int(text)
        assert time.monotonic() < deadline, "the hook did not start"
        time.sleep(0.02)


@pytest.fixture(scope="session")
def latch_bin() -> str:
    """The latch binary under test."""
    binary = os.environ.get("LATCH_BIN") or shutil.which("latch")
    if not binary or not os.access(binary, os.X_OK):
        pytest.skip("no latch binary: set LATCH_BIN")
    return binary


@pytest.fixture(autouse=True)
def _latch_bin_env(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    """Tests find the binary through ``$LATCH_BIN``, as a harness would."""
    if "no_latch" in request.keywords:
        return
    binary = request.getfixturevalue("latch_bin")
    monkeypatch.setenv("LATCH_BIN", binary)


@pytest.fixture
def project(tmp_path: Path) -> Project:
    """A project with the default hooks."""
    return make_project(tmp_path, default_settings())


def bash(command: str, session: str = "s1", call_id: str | None = None) -> Event:
    """A ``tool_before`` event for the Bash tool."""
    tool: ToolCall = {"name": "Bash", "input": {"command": command}}
    if call_id is not None:
        tool["call_id"] = call_id
    return {"event": "tool_before", "session_id": session, "tool": tool}


def bash_after(command: str, output: str, session: str = "s1") -> Event:
    """A ``tool_after`` event for the Bash tool."""
    return {
        "event": "tool_after",
        "session_id": session,
        "tool": {"name": "Bash", "input": {"command": command}, "output": output},
    }


def fake_server(tmp_path: Path, script: str) -> str:
    """An executable standing in for latch (for a hung or crashing server)."""
    path = tmp_path / "fake-latch"
    path.write_text("#!/bin/sh\n" + script + "\n")
    path.chmod(0o755)
    return str(path)


def interrupt_harness(tmp_path: Path, code: str, config: Config) -> Tuple[int, str, str]:
    """Run ``code`` as a harness in a session (and process group) of its
    own, as a shell runs a job; once it prints ``ready``, wait a little and
    press Ctrl-C, which sends SIGINT to the whole foreground process group.
    Its exit code, stdout and stderr."""
    script = tmp_path / "harness.py"
    script.write_text(code)
    harness = subprocess.Popen(
        [sys.executable, str(script), json.dumps(config)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert harness.stdout is not None
        first = harness.stdout.readline()
        assert first == "ready\n", first + (harness.stderr.read() if harness.stderr else "")
        time.sleep(0.5)  # the fire is in flight, its hook running
        os.killpg(harness.pid, signal.SIGINT)
        out, err = harness.communicate(timeout=30)
    finally:
        if harness.poll() is None:
            os.killpg(harness.pid, signal.SIGKILL)
            harness.wait()
    return harness.returncode, out, err


def process_gone(pid: int, within: float = 10.0) -> bool:
    """Whether process ``pid`` exited and was reaped within ``within`` seconds."""
    deadline = time.monotonic() + within
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "no_latch: the test does not need the latch binary")
