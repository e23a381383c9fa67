"""Fixtures: a private copy of an example project, and a runner that drives
an :class:`Agent` with a scripted model on a real ``latch serve``."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

import pytest
from latch_client import Client, Config

from harness import TOOL_NAMES, Agent, Reply, ScriptedModel, ToolUse, Workspace
from harness.models import Message

EXAMPLES = Path(__file__).resolve().parents[2]  # examples/
LATCH_BIN = os.environ.get("LATCH_BIN") or str(EXAMPLES.parent / "target" / "debug" / "latch")

Example = Callable[[str], Path]


class Session:
    """A finished run: the agent, and what the scripted model was sent."""

    def __init__(self, agent: Agent, model: ScriptedModel, turns: Sequence[str]) -> None:
        self.agent, self.model, self.turns = agent, model, turns

    def seen(self, n: int) -> list[Message]:
        """The conversation the model's call number ``n`` received."""
        return self.model.seen[n]

    def tool_results(self) -> list[str]:
        return [m["content"] for m in self.agent.messages if m["role"] == "tool"]


class Runner(Protocol):
    def __call__(
        self,
        dialects: Sequence[str],
        project: Path,
        prompts: Sequence[str],
        replies: Sequence[Reply],
        *,
        tools: str = "cmd",
        plugin_dirs: Sequence[Path] = (),
        peen_config_dir: Path | None = None,
        claude_settings: str | None = None,
        env: dict[str, str] | None = None,
        **agent_args: Any,
    ) -> Session: ...


def call(name: str, **args: Any) -> ToolUse:
    return ToolUse(name, args)


def texts(message: Message) -> list[str]:
    """The text blocks of a user message."""
    return [part["text"] for part in message["content"]]


@pytest.fixture
def example(tmp_path: Path) -> Example:
    """Copy ``examples/NAME`` into the test's directory: hooks write there."""

    def copy(name: str) -> Path:
        dest = tmp_path / "ws" / name.replace("/", "-")
        # Without what hooks leave behind when run in place (drive-once's marker).
        shutil.copytree(EXAMPLES / name, dest, ignore=shutil.ignore_patterns(".hook-continued", ".gofmt.log"))
        return dest

    return copy


@pytest.fixture
def run(tmp_path: Path) -> Iterator[Runner]:
    clients: list[Client] = []

    def go(
        dialects: Sequence[str],
        project: Path,
        prompts: Sequence[str],
        replies: Sequence[Reply],
        *,
        tools: str = "cmd",
        plugin_dirs: Sequence[Path] = (),
        peen_config_dir: Path | None = None,
        claude_settings: str | None = None,
        env: dict[str, str] | None = None,
        **agent_args: Any,
    ) -> Session:
        config: Config = {
            "dialects": list(dialects),
            "project": project,
            # Nothing from the machine's own configuration.
            "home": tmp_path / "home",
            "claude_managed_dir": tmp_path / "managed",
            "peen_config_dir": peen_config_dir or tmp_path / "no-peen-config",
            "plugin_dirs": list(plugin_dirs),
            "state_dir": tmp_path / "state",
        }
        if claude_settings:
            config["claude_settings"] = claude_settings
        # The server's environment is what hooks inherit.
        latch = Client(config, binary=LATCH_BIN, cwd=project, env={**os.environ, **(env or {})}, timeout=30)
        latch.open()
        clients.append(latch)
        assert latch.diagnostics == []  # the example loads cleanly
        model = ScriptedModel(replies)
        agent = Agent(latch, model, Workspace(project, TOOL_NAMES[tools], shell_timeout=10), **agent_args)
        turns = [agent.run(prompt).status for prompt in prompts]
        agent.end()
        return Session(agent, model, turns)

    yield go
    for latch in clients:
        latch.close()
