"""The model side of the loop: one interface, two implementations.

Messages are OpenAI chat-completions messages (plain dicts), so the
conversation the loop builds can be sent to any compatible endpoint as is,
and a test can read exactly what a real model would have read.
"""

from __future__ import annotations

import copy
import http.client
import json
import os
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

Message = dict[str, Any]
"""One chat message: ``{"role": "system"|"user"|"assistant"|"tool", ...}``."""


@dataclass
class ToolUse:
    """One tool call the model asked for."""

    name: str
    input: dict[str, Any]
    id: str = ""


@dataclass
class Reply:
    """One model answer: text, tool calls, or both."""

    text: str = ""
    calls: list[ToolUse] = field(default_factory=list)
    finish_reason: str = "stop"


@dataclass(frozen=True)
class ToolSpec:
    """A tool as the model is told about it (a JSON Schema for its input)."""

    name: str
    description: str
    parameters: dict[str, Any]


class ModelError(Exception):
    """The model request failed. ``error`` is the category the loop reports
    in ``stop_failure``: ``rate_limit``, ``server_error``,
    ``authentication_failed``, ``invalid_request`` or ``unknown``."""

    def __init__(self, error: str, details: str) -> None:
        super().__init__(details)
        self.error, self.details = error, details


class Model(Protocol):
    """Anything that answers a conversation. ``tools`` is empty for a
    request that must answer in text (the compaction summary). A failed
    request raises :class:`ModelError`."""

    name: str

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> Reply: ...


class ScriptedModel:
    """Plays a fixed list of replies, and records every conversation it got.

    ``seen[i]`` is the conversation (system prompt included) the i-th call
    received: what a real model would have read; ``tools[i]`` the names of
    the tools it was offered. Tests assert on them. An exception in the
    list is raised instead of answering (a failed request is a
    :class:`ModelError`; ``KeyboardInterrupt`` is the user's Ctrl-C).
    """

    name = "scripted"

    def __init__(self, replies: Sequence[Reply | BaseException]) -> None:
        self.replies = list(replies)
        self.seen: list[list[Message]] = []
        self.tools: list[list[str]] = []

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> Reply:
        self.seen.append(copy.deepcopy(list(messages)))
        self.tools.append([t.name for t in tools])
        if not self.replies:  # out of script: just end the turn
            return Reply(text="(end of script)")
        reply = self.replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        for i, call in enumerate(reply.calls):  # the loop needs an id per call
            call.id = call.id or f"call_{len(self.seen)}_{i}"
        return reply


class OpenAIModel:
    """An OpenAI-compatible ``/chat/completions`` endpoint, with tool calling.

    Configured from the environment: ``OPENAI_BASE_URL`` (default
    ``https://api.openai.com/v1``), ``OPENAI_API_KEY`` and ``OPENAI_MODEL``.
    """

    def __init__(
        self,
        model: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 120.0,
    ) -> None:
        self.name = model or os.environ.get("OPENAI_MODEL", "gpt-4o-mini")
        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1")).rstrip(
            "/"
        )
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY", "")
        self.timeout = timeout

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> Reply:
        body: dict[str, Any] = {"model": self.name, "messages": list(messages)}
        if tools:  # an empty list is refused by some endpoints
            body["tools"] = [
                {
                    "type": "function",
                    "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
                }
                for t in tools
            ]
        request = urllib.request.Request(
            f"{self.base_url}/chat/completions",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {self.api_key}"},
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                body = json.load(response)
        except urllib.error.HTTPError as error:
            raise ModelError(
                http_error_kind(error.code), f"HTTP {error.code}: {error.read(500).decode(errors='replace')}"
            ) from error
        except (OSError, http.client.HTTPException, ValueError) as error:  # unreachable, cut, not JSON
            raise ModelError("unknown", f"{type(error).__name__}: {error}") from error
        return parse_reply(body)


def parse_reply(body: Any) -> Reply:
    """The Reply in a ``/chat/completions`` answer. Whatever else the
    endpoint sent (a field missing, a value of the wrong type) is a failed
    request, a :class:`ModelError`, never the harness's crash."""
    try:
        choice = body["choices"][0]
        message = choice["message"]
        calls = [parse_call(call) for call in message.get("tool_calls") or []]
        text, finish = message.get("content") or "", choice.get("finish_reason") or "stop"
        if not isinstance(text, str) or not isinstance(finish, str):
            raise TypeError("content and finish_reason must be strings")
    except (LookupError, TypeError, AttributeError, ValueError) as error:
        raise ModelError("unknown", f"malformed reply: {type(error).__name__}: {error}") from error
    return Reply(text, calls, finish)


def parse_call(call: Any) -> ToolUse:
    """One entry of a reply's ``tool_calls``; a wrong shape raises."""
    function = call["function"]
    name, call_id, raw = function["name"], call["id"], function.get("arguments") or "{}"
    if not all(isinstance(value, str) for value in (name, call_id, raw)):
        raise TypeError("a tool call's id, name and arguments must be strings")
    try:
        arguments = json.loads(raw)
    except json.JSONDecodeError:
        arguments = {}  # the loop's validation reports the missing arguments
    return ToolUse(name, arguments if isinstance(arguments, dict) else {}, call_id)


def http_error_kind(status: int) -> str:
    """The ``stop_failure`` error category of an HTTP status."""
    if status == 429:
        return "rate_limit"
    if status in (401, 403):
        return "authentication_failed"
    if status >= 500:
        return "server_error"
    return "invalid_request" if status == 400 else "unknown"
