"""latch's own news: the hooks reloaded after an edit (``latch/diagnostics``),
and ``latch serve`` dying mid-session (``LatchDied``)."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from conftest import Runner, call
from harness import Agent, Reply, ScriptedModel, ToolSpec
from harness.__main__ import main
from harness.models import Message

GUARD = "grep -q forbidden && { echo 'forbidden here' >&2; exit 2; }; exit 0"


def guarded(project: Path, hook: str = GUARD) -> Path:
    """A project whose PreToolUse hook for shell calls is ``hook`` (by
    default: deny those that say ``forbidden``); its settings file."""
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    hooks = [{"matcher": "Bash", "hooks": [{"type": "command", "command": hook}]}]
    settings.write_text(json.dumps({"hooks": {"PreToolUse": hooks}}))
    return settings


class WaitsForReload:
    """A scripted model that, before each answer numbered in ``after``,
    waits until latch's notification of a reload is in the agent's inbox
    (it then reaches the user at the next step)."""

    name = "scripted"

    def __init__(self, scripted: ScriptedModel, agents: list[Agent], after: set[int]) -> None:
        self.scripted, self.agents, self.after = scripted, agents, after

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> Reply:
        inbox = self.agents[0].inbox
        deadline = time.monotonic() + 10
        while len(self.scripted.seen) in self.after and inbox is not None and inbox.empty():
            assert time.monotonic() < deadline, "no latch/diagnostics"
            time.sleep(0.02)
        return self.scripted.complete(messages, tools)


def test_settings_broken_mid_session(run: Runner, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "project"
    settings = guarded(project)
    scripted = ScriptedModel(
        [
            # The agent breaks the hooks' settings itself.
            Reply("", [call("write_file", path=".claude/settings.json", content='{"hooks": ')]),
            Reply("", [call("shell", cmd="echo forbidden")]),
            # ... and fixes them: no hooks at all.
            Reply("", [call("write_file", path=".claude/settings.json", content="{}")]),
            Reply("", [call("shell", cmd="echo forbidden")]),
            Reply("Done."),
        ]
    )
    agents: list[Agent] = []
    model = WaitsForReload(scripted, agents, {1, 3})
    s = run(["claude"], project, ["Edit the hooks."], [], model=model, before=agents.append)
    err = capsys.readouterr().err
    assert s.turns == ["done"]
    # The broken file keeps its last good version: the deny still holds.
    # Once fixed, the edit applies and the call runs.
    assert s.tool_results() == [
        "wrote 10 bytes to .claude/settings.json",
        f"PreToolUse:Bash hook error: [{GUARD}]: forbidden here\n",
        "wrote 2 bytes to .claude/settings.json",
        "forbidden\n",
    ]
    # The user is told each time, and what to fix.
    kept = f"the last good version of {settings} is kept: the new one has errors"
    assert s.agent.warnings == [f"hooks reloaded, but {kept}"]
    assert f"latch: warning: hooks reloaded, but {kept}\n" in err
    assert (
        f"latch: error: {settings}:1:10: invalid JSON: EOF while parsing a value "
        "(Claude Code ignores the whole file)\n" in err
    )
    assert s.out.count("[latch] hooks reloaded\n") == 1
    assert s.out.index("[latch] hooks reloaded\n") > s.out.index("[tool] write_file")


def test_latch_dies_mid_session(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The hook kills latch (its parent) while the call waits: the harness
    fails closed, with a message and no traceback."""
    project = tmp_path / "project"
    guarded(project, hook="kill -KILL $PPID; sleep 1")
    script = tmp_path / "script.json"
    calls = [{"name": "shell", "input": {"cmd": "echo forbidden > ran.txt"}}]
    script.write_text(json.dumps([{"text": "Running it.", "calls": calls}, {"text": "Done."}]))
    args = ["--dialect", "claude", "--project", str(project), "--home", str(tmp_path / "home")]
    args += ["--state-dir", str(tmp_path / "state"), "--script", str(script), "Run it.", "And again."]
    status = main(args)
    out, err = capsys.readouterr()
    assert status == 2
    assert not (project / "ran.txt").exists()  # the tool did not run
    assert out.splitlines() == [
        "[user] Run it.",
        "[assistant] Running it.",
        '[tool] shell {"cmd": "echo forbidden > ran.txt"}',
    ]
    assert err.startswith("harness: latch serve was killed by signal 9")
    assert err.endswith("harness: stopped: without latch no hook can check a tool call, so none runs\n")
    assert "Traceback" not in err and "[turn]" not in err
