"""The agent loop: every step fires its latch event and applies the outcome.

The events of one turn (peen's opening order, which the other dialects
accept as well)::

    user_prompt -> session_start (first turn) -> user_prompt_ready -> turn_start
    each step: [compact_before -> compact_after] -> the model (stop_failure
               if it fails) -> message_display for its text, then
      tool calls: per call tool_before -> [permission_request -> notification
                  -> permission_denied] -> the tool -> tool_after | tool_failure
                  -> [cwd_changed]; then [file_changed ...] -> tool_batch
      no calls:   stop -> a continuation is the next step's input, else done
    Ctrl-C: turn_cancelled. Agent.end(): session_end.

docs/outcome.md says what each outcome field asks of a harness; the
README's table says what this one does.
"""

from __future__ import annotations

import json
import logging
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TextIO

from latch_client import Client, Event, Outcome, ToolCall
from latch_client.types import Compaction, PublishedEvent

from .models import Message, Model, Reply, ToolUse
from .tools import Workspace

log = logging.getLogger("harness")

TurnStatus = Literal["done", "denied", "failed", "deferred", "halted", "cancelled", "max_steps"]
Approver = Callable[[str, Any], bool]
"""Asks the user whether tool NAME may run with ARGS (``--approve``)."""


def refuse_all(name: str, args: Any) -> bool:
    """The non-interactive answer: no one is there to approve."""
    return False


@dataclass
class Policy:
    """The harness's own permission rules (hooks may override them)."""

    ask: frozenset[str] = frozenset()  # tools that need the user's approval
    approver: Approver = refuse_all


@dataclass
class Turn:
    """How one user prompt ended."""

    status: TurnStatus
    text: str = ""  # the model's last answer, or why the turn ended


@dataclass
class Agent:
    """One session of the loop, its hooks run by ``latch`` (a ``Client``)."""

    latch: Client
    model: Model
    workspace: Workspace
    policy: Policy = field(default_factory=Policy)
    system_prompt: str = "You are a coding agent. Use the tools to work in the workspace."
    max_steps: int = 20  # model calls per turn, continuations included
    token_budget: int | None = None  # compact when the conversation is larger
    out: TextIO | None = None  # the transcript, for the user (None: stdout)
    err: TextIO | None = None  # warnings, for the user (None: stderr)
    session_id: str = field(default_factory=lambda: f"harness-{uuid.uuid4().hex[:12]}")

    messages: list[Message] = field(default_factory=list, init=False)  # without the system prompt
    system_context: list[str] = field(default_factory=list, init=False)  # from session_start
    turn_context: list[str] = field(default_factory=list, init=False)  # system_prompt, this turn only
    pending: list[str] = field(default_factory=list, init=False)  # blocks for the next user message
    leading: list[str] = field(default_factory=list, init=False)  # first_user_message: before them
    events: list[PublishedEvent] = field(default_factory=list, init=False)  # published, undelivered
    warnings: list[str] = field(default_factory=list, init=False)
    watched: dict[str, float | None] = field(default_factory=dict, init=False)  # path -> mtime
    halted: str | None = field(default=None, init=False)
    started: bool = field(default=False, init=False)
    turn_id: str = field(default="", init=False)
    compactions: int = field(default=0, init=False)

    # ------------------------------------------------------------------
    # Firing events
    # ------------------------------------------------------------------

    def fire(self, event: Event) -> Outcome:
        """Fire one event and apply what every event may carry."""
        event = {"session_id": self.session_id, "cwd": str(self.workspace.cwd), **event}
        if self.turn_id:
            event.setdefault("turn_id", self.turn_id)
        outcome = self.latch.fire(event)
        for run in outcome["runs"]:  # for logs only; the harness never acts on runs
            log.debug("%s: %s %s (%s)", event["event"], run["hook"], run["status"], run.get("message", ""))
        for warning in outcome.get("warnings", []):  # for the user, never the model
            self.warn(warning)
        self.events += outcome.get("events", [])  # delivered with the next model input
        self.workspace.env.update(outcome.get("shell_env", {}))
        for path in outcome.get("watch_paths", []):
            self.watched.setdefault(path, mtime(path))
        if "halt" in outcome:  # claude `continue: false`: finish this event, then stop
            self.halted = outcome["halt"].get("reason") or "a hook halted the session"
        return outcome

    def place(self, outcome: Outcome, notices: bool = True) -> list[str]:
        """Route `context` by placement; return the blocks that belong right
        after a tool result (``append_to_tool_result``), for the caller."""
        appended: list[str] = []
        for ctx in outcome.get("context", []):
            where = ctx["placement"]
            if where == "system_prompt":  # for the session from session_start, else for this turn
                scope = self.system_context if outcome["event"] == "session_start" else self.turn_context
                scope.append(ctx["text"])
            elif where == "append_to_tool_result":
                appended.append(ctx["text"])
            elif where == "first_user_message":
                self.leading.append(ctx["text"])
            elif where in ("after_compaction", "compaction_prompt"):
                log.warning("%s context outside compaction dropped", where)
            else:  # with_prompt, after_tool_result: the next user message
                self.pending.append(ctx["text"])
        if notices:
            self.pending += [n["text"] for n in outcome.get("notices", [])]
        return appended

    def with_result(self, outcome: Outcome) -> list[str]:
        """For a tool event: route `context`, and return the blocks that go
        at the end of the tool result (its notices, but `block` ones, which
        are the result itself, and ``append_to_tool_result`` context)."""
        notices = [n["text"] for n in outcome.get("notices", []) if n["kind"] != "block"]
        return notices + self.place(outcome, notices=False)

    def warn(self, text: str) -> None:
        self.warnings.append(text)
        print(f"latch: warning: {text}", file=self.err or sys.stderr)

    def show(self, text: str) -> None:
        """Show the model's text to the user; a hook may replace what is shown."""
        shown = self.fire(
            {
                "event": "message_display",
                "display": {
                    "message_id": f"msg-{len(self.messages)}",
                    "index": 0,
                    "final": True,
                    "delta": text,
                },
            }
        )
        self.say("assistant", shown.get("display", text))

    def say(self, who: str, text: str) -> None:
        print(f"[{who}] {text}", file=self.out or sys.stdout)

    # ------------------------------------------------------------------
    # Turns
    # ------------------------------------------------------------------

    def run(self, prompt: str) -> Turn:
        """One user prompt, to the end of its turn."""
        if self.halted:
            return Turn("halted", self.halted)
        self.turn_id, self.turn_context = f"turn-{uuid.uuid4().hex[:8]}", []
        self.say("user", prompt)
        # Every real prompt goes through user_prompt: that also resets the
        # count of Stop continuations.
        submitted = self.fire({"event": "user_prompt", "prompt": prompt})
        if submitted["decision"] == "deny":  # the user's error; the model never sees it
            return self.refuse_turn("denied", submitted)
        prompt = submitted.get("prompt", prompt)  # a hook may rewrite it
        self.place(submitted)
        opening: list[Event] = [
            {"event": "user_prompt_ready", "prompt": prompt},
            {"event": "turn_start", "model": self.model.name},
        ]
        if not self.started:
            self.started = True
            opening.insert(0, {"event": "session_start", "source": "startup", "model": self.model.name})
        for event in opening:
            outcome = self.fire(event)
            if outcome["decision"] == "deny":  # peen: the turn fails before the model is called
                return self.refuse_turn("failed", outcome)
            self.place(outcome)
        self.add_user(prompt)
        try:
            return self.loop()
        except KeyboardInterrupt:  # the user cancelled the turn (Ctrl-C)
            self.fire({"event": "turn_cancelled", "reason": "user"})
            return Turn("cancelled", "cancelled by the user")

    def refuse_turn(self, status: TurnStatus, outcome: Outcome) -> Turn:
        reasons = "\n".join(r["text"] for r in outcome.get("reasons", []))
        self.say("latch", f"{outcome['event']} denied: {reasons}")
        self.pending.clear()  # no turn to attach them to (leading ones wait for the first)
        return Turn(status, reasons)

    def loop(self) -> Turn:
        for _ in range(self.max_steps):
            if self.halted:
                return Turn("halted", self.halted)
            compacted = self.maybe_compact()
            if compacted is not None:
                return compacted
            self.add_user(None)  # pending context and events not yet delivered
            try:
                reply = self.model.complete(self.conversation(), self.workspace.specs())
            except OSError as error:  # the request failed: stop_failure instead of stop
                self.fire({"event": "stop_failure", "error": "unknown", "error_details": str(error)})
                return Turn("failed", f"model request failed: {error}")
            self.messages.append(assistant_message(reply))
            if reply.text:
                self.show(reply.text)
            if reply.calls:
                ended = self.run_batch(reply.calls)
                if ended is not None:
                    return ended
                continue
            stop = self.fire(
                {
                    "event": "stop",
                    "reason": "end_turn",
                    "finish_reason": reply.finish_reason,
                    "last_assistant_message": reply.text,
                }
            )
            if stop["decision"] == "deny":  # peen: the turn failed, though answered
                return self.refuse_turn("failed", stop)
            if self.halted:
                return Turn("halted", self.halted)
            self.place(stop, notices=False)
            if "continuation" in stop:
                # Keep working: the prompt arrives as the next input, with
                # the continuation notices, and never through user_prompt.
                self.pending += [n["text"] for n in stop.get("notices", [])]
                self.say("latch", f"continue: {stop['continuation']['prompt']}")
                self.add_user(stop["continuation"]["prompt"])
                continue
            if any(e.get("delivery") == "wake" for e in self.events):
                continue  # a published event wakes the idle session
            return Turn("done", reply.text)
        return Turn("max_steps", f"stopped after {self.max_steps} model calls")

    # ------------------------------------------------------------------
    # Tools
    # ------------------------------------------------------------------

    def run_batch(self, calls: Sequence[ToolUse]) -> Turn | None:
        """Every call of one model message, then ``tool_batch``."""
        results: list[ToolCall] = []
        for call in calls:
            try:
                text, ok = self.run_tool(call)
            except Deferred:  # stop here; the session can be resumed later
                return Turn("deferred", f"a hook deferred {call.name}")
            self.messages.append({"role": "tool", "tool_call_id": call.id, "content": text})
            done: ToolCall = {"name": call.name, "input": call.input, "call_id": call.id}
            if ok:
                done["output"] = text
            else:
                done["error"] = text
            results.append(done)
            if self.halted:  # halt after a tool: it ran, nothing more does
                return Turn("halted", self.halted)
        self.check_watched()
        batch = self.fire({"event": "tool_batch", "tool_calls": results})
        appended = self.place(batch)
        if appended:  # at the end of the batch's last tool result
            self.messages[-1]["content"] += "\n\n" + "\n\n".join(appended)
        return Turn("halted", self.halted) if self.halted else None

    def run_tool(self, call: ToolUse) -> tuple[str, bool]:
        """Run one call under the hooks: (the text the model reads, whether
        it succeeded)."""
        ws = self.workspace
        tool: ToolCall = {"name": call.name, "input": call.input, "call_id": call.id}
        self.say("tool", f"{call.name} {json.dumps(call.input)}")
        problem = ws.validate(call.name, call.input)
        if problem:  # invalid calls never reach the hooks
            return self.result(call, f"invalid call: {problem}", False)
        before = self.fire({"event": "tool_before", "tool": tool})
        if before["decision"] == "deny":
            # The block notices are the tool result (claude, poolside, evener);
            # peen has none: its reason, verbatim, is.
            return self.result(call, blocked_text(before), False, before)
        if before["decision"] == "defer":
            raise Deferred
        args = before.get("tool_input", call.input)  # run with the rewrite; the model's call stays
        # `allow` skips this harness's own approval; `ask` always needs it.
        if before["decision"] == "ask" or (call.name in self.policy.ask and before["decision"] != "allow"):
            refused, args = self.approve(call, args, before)
            if refused is not None:
                return self.result(call, refused, False, before)
        problem = ws.validate(call.name, args)  # a hook's rewrite must fit the tool too
        if problem:
            return self.result(call, f"a hook rewrote the arguments, but {problem}", False, before)
        old_cwd, started = ws.cwd, time.monotonic()
        result = ws.run(call.name, args)
        appended = self.with_result(before)  # a rewrite notice goes with the result
        if result.timed_out:  # interrupted: peen runs no post hooks, so none is sent
            return self.result(call, result.text, False, appended=appended)
        ran: ToolCall = {**tool, "input": args, "duration_ms": int((time.monotonic() - started) * 1000)}
        if result.failed:
            after = self.fire(
                {"event": "tool_failure", "cwd": str(old_cwd), "tool": {**ran, "error": result.text}}
            )
        else:
            after = self.fire(
                {"event": "tool_after", "cwd": str(old_cwd), "tool": {**ran, "output": result.text}}
            )
        text = after.get("tool_output", result.text)  # verbatim: tags included
        appended += self.with_result(after)
        if ws.cwd != old_cwd:
            changed = self.fire({"event": "cwd_changed", "cwd": str(ws.cwd), "old_cwd": str(old_cwd)})
            appended += self.place(changed)
        ok = not result.failed and after["decision"] != "deny"  # peen: a denied post event is an error
        return self.result(call, text, ok, appended=appended)

    def result(
        self, call: ToolUse, text: str, ok: bool, placed: Outcome | None = None, appended: Sequence[str] = ()
    ) -> tuple[str, bool]:
        if placed is not None:
            appended = [*appended, *self.with_result(placed)]
        if self.events:  # peen: session events as data, after the <hook> blocks
            self.pending.append(render_events(self.events))
            self.events = []
        text = "\n\n".join([text, *appended])
        self.say("result", text)
        return text, ok

    def approve(self, call: ToolUse, args: Any, before: Outcome) -> tuple[str | None, Any]:
        """The permission prompt: (why it was refused or None, the arguments)."""
        tool: ToolCall = {"name": call.name, "input": args}
        asked = self.fire({"event": "permission_request", "tool": tool})
        if asked["decision"] == "deny":
            return blocked_text(asked), args
        if asked["decision"] == "allow":  # a hook answered for the user
            return None, asked.get("tool_input", args)
        self.fire(
            {
                "event": "notification",
                "message": f"The agent needs your permission to use {call.name}",
                "notification_type": "permission_prompt",
            }
        )
        if self.policy.approver(call.name, args):
            return None, args
        reason = (
            "\n".join(r["text"] for r in before.get("reasons", [])) or f"The user did not allow {call.name}."
        )
        denied = self.fire(
            {"event": "permission_denied", "tool": {**tool, "call_id": call.id}, "reason": reason}
        )
        if denied.get("retry"):
            reason += "\nYou may try this call again."
        return reason, args

    def check_watched(self) -> None:
        """Fire file_changed for every watched file that changed."""
        for path, seen in list(self.watched.items()):
            now = mtime(path)
            if now != seen:
                self.watched[path] = now
                change = "unlink" if now is None else "add" if seen is None else "change"
                self.place(self.fire({"event": "file_changed", "file_path": path, "change": change}))

    # ------------------------------------------------------------------
    # Compaction
    # ------------------------------------------------------------------

    def maybe_compact(self) -> Turn | None:
        """Compact when the conversation is over the token budget. A stub:
        the "summary" lists what it replaces instead of asking the model."""
        estimate = sum(len(json.dumps(m)) for m in self.conversation()) // 4  # ~4 characters a token
        if self.token_budget is None or estimate <= self.token_budget or len(self.messages) < 2:
            return None
        self.compactions += 1
        figures: Compaction = {
            "estimated_tokens": estimate,
            "budget_tokens": self.token_budget,
            "round": self.compactions,
            "messages_covered": len(self.messages),
        }
        before = self.fire({"event": "compact_before", "trigger": "auto", "compaction": figures})
        if before["decision"] == "deny":
            if "peen" in self.latch.dialects:  # peen: the turn fails
                return self.refuse_turn("failed", before)
            return None  # claude: compaction does not run
        contexts = before.get("context", [])
        instructions = [c["text"] for c in contexts if c["placement"] == "compaction_prompt"]
        summary = f"Summary of {len(self.messages)} earlier messages (stub compaction)."
        if instructions:
            summary += "\nInstructions: " + "\n".join(instructions)
        blocks = [
            summary,
            *(n["text"] for n in before.get("notices", [])),
            *(c["text"] for c in contexts if c["placement"] == "after_compaction"),
        ]
        self.messages = [{"role": "user", "content": [text_part(b) for b in blocks]}]
        self.say("latch", f"compacted {figures['messages_covered']} messages")
        self.fire(
            {
                "event": "compact_after",
                "trigger": "auto",
                "compaction": {**figures, "summary": summary, "summary_tokens": len(summary) // 4},
            }
        )
        return None

    # ------------------------------------------------------------------
    # Messages
    # ------------------------------------------------------------------

    def conversation(self) -> list[Message]:
        system = "\n\n".join([self.system_prompt, *self.system_context, *self.turn_context])
        return [{"role": "system", "content": system}, *self.messages]

    def add_user(self, text: str | None) -> None:
        """A user message: the pending blocks (context, notices, events),
        then ``text``. Nothing when there is nothing to say."""
        if self.events:
            self.pending.append(render_events(self.events))
            self.events = []
        blocks = [*self.leading, *self.pending, *([text] if text else [])]
        self.leading, self.pending = [], []
        if blocks:
            self.messages.append({"role": "user", "content": [text_part(b) for b in blocks]})

    def end(self, reason: str = "exit") -> None:
        """Close the session: ``session_end``, and report what is left."""
        if self.started:
            self.fire({"event": "session_end", "reason": reason})
        for event in self.events:
            self.say("event", f"{event['type']}: {event['summary']}")


class Deferred(Exception):
    """A hook deferred a tool call: the turn ends without running it."""


def blocked_text(outcome: Outcome) -> str:
    notices = [n["text"] for n in outcome.get("notices", []) if n["kind"] == "block"]
    return "\n".join(notices or [r["text"] for r in outcome.get("reasons", [])])


def render_events(events: Sequence[PublishedEvent]) -> str:
    lines = [json.dumps({k: v for k, v in e.items() if k in ("type", "summary", "data")}) for e in events]
    return "<events>\n" + "\n".join(lines) + "\n</events>"


def text_part(text: str) -> dict[str, str]:
    return {"type": "text", "text": text}


def assistant_message(reply: Reply) -> Message:
    message: Message = {"role": "assistant", "content": reply.text or None}
    if reply.calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.input)}}
            for c in reply.calls
        ]
    return message


def mtime(path: str) -> float | None:
    try:
        return Path(path).stat().st_mtime
    except OSError:
        return None
