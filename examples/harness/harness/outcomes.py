"""Firing an event and applying its outcome: `Outcomes.fire` (every event
goes through it) applies what any outcome may carry (`warnings`, `runs`,
`events`, `shell_env`, `watch_paths`, `halt`, `session_title`,
`terminal_sequences`, `reload_skills`); `place` routes `context`
and `notices`; the rest renders what the user and the model are shown.

Fires ``message_display`` (the model's text, before the user sees it) and
``notification`` (before the user is asked).
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from latch_client import Diagnostic, DiagnosticsNotification, Event, Outcome
from latch_client.types import PublishedEvent

from .state import AgentState, Turn, TurnStatus, user_message

log = logging.getLogger("harness")

COMPACTION = ("after_compaction", "compaction_prompt")  # placements compact() takes itself


class Deferred(Exception):
    """A hook deferred a tool call: the turn ends without running it."""


class Halted(Exception):
    """A hook halted the turn inside a sub-agent: the delegate call ends
    without a result of its own, and so does the turn."""


class Outcomes(AgentState):
    """Firing events, and what every outcome asks of the agent."""

    def fire(self, event: Event) -> Outcome:
        """Fire one event and apply what every event may carry."""
        event = {
            "session_id": self.session_id,
            "cwd": str(self.workspace.cwd),
            "context_tokens": self.estimate(),
            **event,
        }
        if self.turn_id:
            event.setdefault("turn_id", self.turn_id)
        if self.top.title and event["event"] in ("user_prompt", "session_start"):
            event.setdefault("session_title", self.top.title)
        if self.agent_id:  # every event inside a sub-agent says so
            event.setdefault("agent_id", self.agent_id)
            event.setdefault("agent_type", self.agent_type)
            event.setdefault("agent_run_id", self.agent_id)
        outcome = self.latch.fire(event)
        for run in outcome["runs"]:  # for logs only; the harness never acts on runs
            log.debug("%s: %s %s (%s)", event["event"], run["hook"], run["status"], run.get("message", ""))
        for warning in outcome.get("warnings", []):  # for the user, never the model
            self.warn(warning)
        self.events += outcome.get("events", [])  # delivered with the next model input
        self.workspace.env.update(outcome.get("shell_env", {}))
        for path in outcome.get("watch_paths", []):
            self.top.watched.setdefault(path, mtime(path))
        if "halt" in outcome:  # claude `continue: false`: finish this event, then end the turn
            self.top.halted = outcome["halt"].get("reason") or "a hook halted the turn"
            if "message" not in outcome["halt"]:  # a prompt's own message is shown where it stops
                self.say("latch", f"stopped by a hook: {self.top.halted}")
        if "session_title" in outcome:
            self.top.title = outcome["session_title"]
            self.say("latch", f"session titled {self.top.title!r}")
        terminal = self.err or sys.stderr
        if terminal.isatty():  # titles, notifications, the bell: only to a terminal
            sequences = outcome.get("terminal_sequences", [])
            terminal.write("".join(for_terminal(sequence, os.environ) for sequence in sequences))
            terminal.flush()
        if outcome.get("reload_skills"):  # this harness has no skills to look for
            log.info("%s: a hook asked to look for skills again", event["event"])
        return outcome

    def place(self, outcome: Outcome, notices: bool = True, result: list[str] | None = None) -> None:
        """Route `context` by placement, and the notices (unless NOTICES is
        false) to the next user message. ``append_to_tool_result`` blocks
        go to RESULT, the blocks the caller appends to the tool result it
        makes; without RESULT (an event with no tool result of its own)
        they go to the next user message too, like ``with_prompt`` and
        ``after_tool_result`` context (after a tool batch, that message
        comes right after the last tool result; before the model's first
        call of a turn, it is the prompt's). Compaction's own placements
        are taken by :meth:`compact`."""
        for ctx in outcome.get("context", []):
            where = ctx["placement"]
            if where == "system_prompt":  # for the session from session_start, else for this turn
                scope = self.system_context if outcome["event"] == "session_start" else self.turn_context
                scope.append(ctx["text"])
            elif where == "append_to_tool_result" and result is not None:
                result.append(ctx["text"])
            elif where == "first_user_message":
                self.leading.append(ctx["text"])
            elif where in COMPACTION:  # compact() takes them from compact_before
                if outcome["event"] != "compact_before":
                    log.warning("%s context outside compaction dropped", where)
            else:  # with_prompt, after_tool_result, a tool result's leftovers: the next user message
                self.pending.append(ctx["text"])
        if notices:
            self.pending += [n["text"] for n in outcome.get("notices", [])]

    def with_result(self, outcome: Outcome) -> list[str]:
        """For a tool event: route `context`, and return the blocks that go
        at the end of the tool result (its notices, but `block` ones, which
        are the result itself, and ``append_to_tool_result`` context)."""
        blocks = [n["text"] for n in outcome.get("notices", []) if n["kind"] != "block"]
        self.place(outcome, notices=False, result=blocks)
        return blocks

    def show_refusal(self, outcome: Outcome) -> str:
        """A hook refused OUTCOME's event: the user reads the reasons,
        which this returns. Its context is not placed."""
        reasons = "\n".join(r["text"] for r in outcome.get("reasons", []))
        self.say("latch", f"{outcome['event']} denied: {reasons}")
        return reasons

    def refuse_turn(self, status: TurnStatus, outcome: Outcome) -> Turn:
        """A hook refused the turn (its prompt, its opening, peen's stop):
        it ends with STATUS, and the user reads why (:meth:`show_refusal`).
        :meth:`~harness.loop.Agent.turn` also drops what the turn added
        before its prompt reached the model."""
        return Turn(status, self.show_refusal(outcome))

    def add_user(self, text: str | None) -> None:
        """A user message: the pending blocks (context, notices, events),
        then ``text``. Nothing when there is nothing to say."""
        if self.events:
            self.pending.append(render_events(self.events))
            self.events = []
        blocks = [*self.leading, *self.pending, *([text] if text else [])]
        self.leading, self.pending = [], []
        if blocks:
            self.messages.append(user_message(blocks))

    def apply_permission_updates(self, outcome: Outcome) -> None:
        """`permission_updates`: the rules hooks asked for. This harness keeps
        one kind, a whole tool allowed for the session; it says so of the rest."""
        for asked in outcome.get("permission_updates", []):
            for update in asked["updates"]:
                rules = update.get("rules", []) if isinstance(update, dict) else []
                whole_tools = [r["toolName"] for r in rules if "ruleContent" not in r and "toolName" in r]
                if (
                    isinstance(update, dict)
                    and update.get("type") == "addRules"
                    and update.get("behavior") == "allow"
                    and update.get("destination") == "session"
                    and whole_tools
                ):
                    self.top.allowed.update(whole_tools)
                else:
                    self.warn(f"{asked['hook']}: permission update not applied: {json.dumps(update)}")

    def warn(self, text: str) -> None:
        self.top.warnings.append(text)
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
        prefix = f"{self.agent_id}:" if self.agent_id else ""
        print(f"[{prefix}{who}] {text}", file=self.out or sys.stdout)

    def notify(self, message: str, kind: str) -> None:
        """A notification for the user (the permission prompt, a question)."""
        self.place(self.fire({"event": "notification", "message": message, "notification_type": kind}))

    def drain_inbox(self) -> None:
        """Tell the user which async hooks finished, and when latch reloaded
        the hooks. Async texts need no delivery: latch keeps them and adds
        them to the next tool result (unless its ``warnings`` say it could
        not keep them, which the user hears)."""
        told: set[str] = set()
        while self.inbox is not None and not self.inbox.empty():
            note = self.inbox.get()
            if isinstance(note, DiagnosticsNotification):
                # One edit reloads each configuration latch holds (the
                # project's, and one per working directory events came
                # from), each with its notification: tell the user once.
                news = json.dumps([note.first_load, note.reloaded, note.reason, note.kept, note.diagnostics])
                if news not in told:
                    told.add(news)
                    self.reloaded(note)
            elif note["session_id"] == self.session_id:
                self.top.async_results.append(note)
                self.say("latch", f"async hook {note['hook']} ({note['event']}) finished")
                for warning in note.get("warnings", []):
                    self.warn(warning)

    def reloaded(self, note: DiagnosticsNotification) -> None:
        """``latch/diagnostics``: latch reloaded the hooks after an edit on
        disk, or loaded them for a new working directory with diagnostics
        (``first_load``). The new hooks
        apply from the next event. A file whose new text has errors keeps
        its last good version (``kept``; the user should fix it), and when
        no file alone is to blame, the whole configuration loaded before
        stays (``reloaded`` false)."""
        where = f" for {note.cwd}" if note.cwd and Path(note.cwd) != self.workspace.root else ""
        if note.first_load:
            because = f": {note.reason}" if note.reason else " with diagnostics"
            self.warn(f"hooks loaded{where}{because}")
        elif not note.reloaded:
            self.warn(f"hooks not reloaded{where}: {note.reason}")
        elif note.kept:
            self.warn(f"hooks reloaded{where}, but {note.reason}")
        else:
            self.say("latch", f"hooks reloaded{where}")
        for diagnostic in note.diagnostics:
            print(f"latch: {describe(diagnostic)}", file=self.err or sys.stderr)


def describe(diagnostic: Diagnostic) -> str:
    """A load diagnostic as one line: ``severity: file:line:column: message (hint)``."""
    at = (diagnostic.get("file"), diagnostic.get("line"), diagnostic.get("column"))
    place = "".join(f"{part}:" for part in at if part is not None)
    text = f"{diagnostic['severity']}: {place + ' ' if place else ''}{diagnostic['message']}"
    return text + (f" ({diagnostic['hint']})" if "hint" in diagnostic else "")


def for_terminal(sequence: str, env: Mapping[str, str]) -> str:
    """A terminal sequence (latch gives Claude Code's plain form, OSCs
    ending with BEL) in the form the user's terminal needs, as Claude Code
    writes it: kitty ends OSCs with ``ESC \\``; inside tmux or GNU screen
    an escape sequence goes through the multiplexer's passthrough (tmux's
    with each ESC doubled)."""
    if env.get("TERM") == "xterm-kitty" or "KITTY_WINDOW_ID" in env:
        sequence = re.sub(r"(\x1b\][^\x07]*)\x07", "\\1\x1b\\\\", sequence)
    if not sequence.startswith("\x1b"):  # the bell: the multiplexer rings it itself
        return sequence
    if "TMUX" in env:
        return "\x1bPtmux;" + sequence.replace("\x1b", "\x1b\x1b") + "\x1b\\"
    if "STY" in env:  # GNU screen
        return "\x1bP" + sequence + "\x1b\\"
    return sequence


def blocked_text(outcome: Outcome) -> str:
    notices = [n["text"] for n in outcome.get("notices", []) if n["kind"] == "block"]
    return "\n".join(notices or [r["text"] for r in outcome.get("reasons", [])])


def after_blank_line(text: str, blocks: Sequence[str]) -> str:
    """TEXT, then each block after a blank line."""
    for block in blocks:
        text += ("\n" if text.endswith("\n") else "\n\n") + block
    return text


def render_events(events: Sequence[PublishedEvent]) -> str:
    lines = [json.dumps({k: v for k, v in e.items() if k in ("type", "summary", "data")}) for e in events]
    return "<events>\n" + "\n".join(lines) + "\n</events>"


def mtime(path: str) -> float | None:
    try:
        return Path(path).stat().st_mtime
    except OSError:
        return None
