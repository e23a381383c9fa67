"""What an agent holds: its settings (`Policy`), how a turn ends (`Turn`),
and `AgentState`, the fields every part of :class:`~harness.loop.Agent`
works on, with the conversation as the model sees it.

Fires no event.
"""

from __future__ import annotations

import json
import queue
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TextIO

from latch_client import AsyncResult, Client, DiagnosticsNotification
from latch_client.types import PublishedEvent, Task, Team

from .models import Message, Model
from .tools import Workspace

TurnStatus = Literal["done", "denied", "failed", "deferred", "halted", "cancelled", "max_steps"]


@dataclass(frozen=True)
class Approval:
    """What the user is asked to allow: ``action`` (a tool's name, or
    ``/model``) with ``input`` (the tool's arguments, which for a
    ``!`cmd` `` are the shell's; ``{"model": NAME}`` for ``/model``), and
    ``reasons``, why hooks ask (their ``ask``), to show with the question."""

    action: str
    input: Any
    reasons: tuple[str, ...] = ()


Approver = Callable[[Approval], bool]
"""Asks the user whether the agent may do what the Approval says."""
Answerer = Callable[[str], "str | None"]
"""Asks the user QUESTION (the ``ask_user`` tool); None: no answer."""
Note = AsyncResult | DiagnosticsNotification
"""What the client's notification callbacks put in the inbox: an async
hook's answer (``on_async_result``), or the hooks reloaded
(``on_diagnostics``)."""


@dataclass
class Policy:
    """The harness's own permission rules (hooks may override them)."""

    ask: frozenset[str] = frozenset()  # tools that need the user's approval
    approver: Approver | None = None  # None: no one to ask, the automatic check refuses
    answerer: Answerer | None = None  # None: no one answers ask_user (cancelled)


@dataclass
class Turn:
    """How one user prompt ended."""

    status: TurnStatus
    text: str = ""  # the model's last answer, or why the turn ended


@dataclass
class AgentState:
    """One conversation of the loop (the session's, or a sub-agent's): what
    it is given, and what it keeps. The methods are :class:`~harness.loop.Agent`'s."""

    latch: Client
    model: Model
    workspace: Workspace
    policy: Policy = field(default_factory=Policy)
    system_prompt: str = "You are a coding agent. Use the tools to work in the workspace."
    max_steps: int = 20  # model calls (rounds) per turn, continuations included
    token_budget: int | None = None  # compact when the conversation is larger
    out: TextIO | None = None  # the transcript, for the user (None: stdout)
    err: TextIO | None = None  # warnings, for the user (None: stderr)
    session_id: str = field(default_factory=lambda: f"harness-{uuid.uuid4().hex[:12]}")
    inbox: queue.SimpleQueue[Note] | None = None  # the client's notifications (asyncResult, diagnostics)
    team: Team | None = None  # this agent is a teammate of an agent team (--team, --teammate)
    parent: AgentState | None = None  # a sub-agent's delegating agent
    agent_id: str = ""  # a sub-agent's id and type
    agent_type: str = ""

    messages: list[Message] = field(default_factory=list, init=False)  # without the system prompt
    system_context: list[str] = field(default_factory=list, init=False)  # session_start, instructions
    turn_context: list[str] = field(default_factory=list, init=False)  # system_prompt, this turn only
    pending: list[str] = field(default_factory=list, init=False)  # blocks for the next user message
    leading: list[str] = field(default_factory=list, init=False)  # first_user_message: before them
    events: list[PublishedEvent] = field(default_factory=list, init=False)  # published, undelivered
    started: bool = field(default=False, init=False)
    turn_id: str = field(default="", init=False)
    last_text: str = field(default="", init=False)  # the model's last answer
    # Session-wide state, kept by the session's agent (`top`) for its sub-agents too:
    warnings: list[str] = field(default_factory=list, init=False)
    watched: dict[str, float | None] = field(default_factory=dict, init=False)  # path -> mtime
    halted: str | None = field(default=None, init=False)  # why a hook halted this turn
    title: str | None = field(default=None, init=False)  # the session's title, from hooks
    compactions: int = field(default=0, init=False)
    tasks: dict[str, Task] = field(default_factory=dict, init=False)  # the task list, by id
    done: set[str] = field(default_factory=set, init=False)  # completed task ids
    refused: set[str] = field(default_factory=set, init=False)  # calls the automatic check refused
    allowed: set[str] = field(default_factory=set, init=False)  # tools a hook allowed for the session
    settings: dict[str, Any] = field(default_factory=dict, init=False)  # the settings file, as applied
    settings_mtime: float | None = field(default=None, init=False)
    async_results: list[AsyncResult] = field(default_factory=list, init=False)
    subagents: int = field(default=0, init=False)
    worktree: tuple[Path, bool] | None = field(default=None, init=False)  # (path, made by a hook)
    home: Path | None = field(default=None, init=False)  # the workspace before the worktree

    @property
    def top(self) -> AgentState:
        """The session's agent, which keeps the session-wide state."""
        return self.parent.top if self.parent else self

    def halt(self) -> Turn | None:
        """The end of the turn, once a hook halted it (``halt``; cleared
        when the next turn starts)."""
        reason = self.top.halted
        return Turn("halted", reason) if reason else None

    def conversation(self) -> list[Message]:
        system = "\n\n".join([self.system_prompt, *self.system_context, *self.turn_context])
        return [{"role": "system", "content": system}, *self.messages]

    def estimate(self) -> int:
        """The conversation's size in tokens, at ~4 characters a token."""
        return sum(len(json.dumps(m)) for m in self.conversation()) // 4


def user_message(blocks: Sequence[str]) -> Message:
    return {"role": "user", "content": [{"type": "text", "text": b} for b in blocks]}
