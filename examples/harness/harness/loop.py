"""The agent loop: every step fires its latch event and applies the outcome.

The events of a session, in order (peen's opening order, which the other
dialects accept as well)::

    [setup (--init, --maintenance)] [worktree_create (--worktree)]
    each prompt: [/name: prompt_expansion | /compact | /add-dir: directory_added]
      user_prompt -> session_start, instructions_loaded per file (first turn)
      -> user_prompt_ready -> turn_start
      each step: [compact_before -> compact_after] -> the model (stop_failure
                 if it fails) -> message_display for its text, then
        tool calls: per call tool_before -> [permission_request -> notification
                    | permission_denied] -> the tool -> tool_after | tool_failure
                    -> [cwd_changed]; then [file_changed ...] [config_change]
                    -> tool_batch
        no calls:   stop -> a continuation is the next step's input, else
                    [teammate_idle (--teammate)] -> done
      Ctrl-C: turn_cancelled.
    the agent's own tools: delegate (subagent_start, the sub-agent's steps,
      subagent_stop), ask_user (elicitation -> [notification] ->
      elicitation_result), create_task (task_created), complete_task
      (task_completed)
    Agent.end(): [worktree_remove] -> session_end.

docs/outcome.md says what each outcome field asks of a harness; the
README's table says what this one does.
"""

from __future__ import annotations

import json
import logging
import queue
import re
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TextIO

from latch_client import AsyncResult, Client, Event, Outcome, ToolCall
from latch_client.types import Compaction, ElicitationRequest, PublishedEvent, Task, Team

from .models import Message, Model, ModelError, Reply, ToolSpec, ToolUse
from .tools import ToolResult, Workspace, tool_specs, validate

log = logging.getLogger("harness")

TurnStatus = Literal["done", "denied", "failed", "deferred", "halted", "cancelled", "max_steps"]
Approver = Callable[[str, Any], bool]
"""Asks the user whether tool NAME may run with ARGS."""
Answerer = Callable[[str], "str | None"]
"""Asks the user QUESTION (the ``ask_user`` tool); None: no answer."""

SETTINGS = Path(".harness/settings.json")  # this harness's own settings, per workspace
COMMANDS = Path(".harness/commands")  # /NAME runs COMMANDS/NAME.md
INSTRUCTIONS = ("AGENTS.md", "CLAUDE.md")  # loaded into the system prompt
WORKTREES = Path(".harness/worktrees")  # --worktree NAME, when no hook makes it
ANSWER_SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}
COMPACT_PROMPT = (
    "Summarize the conversation so far for your own later use: the task, what was done, "
    "what is left, and every fact you still need. Answer with the summary only."
)


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
class Agent:
    """One conversation of the loop (the session's, or a sub-agent's), its
    hooks run by ``latch`` (a ``Client``)."""

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
    inbox: queue.SimpleQueue[AsyncResult] | None = None  # the client's latch/asyncResult notifications
    team: Team | None = None  # this agent is a teammate of an agent team (--team, --teammate)
    parent: Agent | None = None  # a sub-agent's delegating agent
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
    halted: str | None = field(default=None, init=False)
    compactions: int = field(default=0, init=False)
    tasks: dict[str, Task] = field(default_factory=dict, init=False)  # the task list, by id
    done: set[str] = field(default_factory=set, init=False)  # completed task ids
    refused: set[str] = field(default_factory=set, init=False)  # calls the automatic check refused
    settings: dict[str, Any] = field(default_factory=dict, init=False)  # SETTINGS, as applied
    settings_mtime: float | None = field(default=None, init=False)
    async_results: list[AsyncResult] = field(default_factory=list, init=False)
    subagents: int = field(default=0, init=False)
    worktree: tuple[Path, bool] | None = field(default=None, init=False)  # (path, made by a hook)
    home: Path | None = field(default=None, init=False)  # the workspace before the worktree

    def __post_init__(self) -> None:
        if self.parent is None:
            self.load_settings()

    @property
    def top(self) -> Agent:
        """The session's agent, which keeps the session-wide state."""
        return self.parent.top if self.parent else self

    def halt(self) -> Turn | None:
        """The end of the turn, once a hook halted the session."""
        reason = self.top.halted
        return Turn("halted", reason) if reason else None

    # ------------------------------------------------------------------
    # Firing events
    # ------------------------------------------------------------------

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
        if "halt" in outcome:  # claude `continue: false`: finish this event, then stop
            self.top.halted = outcome["halt"].get("reason") or "a hook halted the session"
        return outcome

    def place(self, outcome: Outcome, notices: bool = True) -> list[str]:
        """Route `context` by placement; return the blocks that belong right
        after a tool result (``append_to_tool_result``), for the caller.
        Compaction's own placements are taken by :meth:`compact`."""
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
            elif where in COMPACTION:  # compact() takes them from compact_before
                if outcome["event"] != "compact_before":
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

    def drain_async(self) -> None:
        """Tell the user which async hooks finished. Their texts need no
        delivery: latch keeps them and adds them to the next tool result."""
        while self.inbox is not None and not self.inbox.empty():
            result = self.inbox.get()
            if result["session_id"] == self.session_id:
                self.top.async_results.append(result)
                self.say("latch", f"async hook {result['hook']} ({result['event']}) finished")

    # ------------------------------------------------------------------
    # The session around the turns
    # ------------------------------------------------------------------

    def setup(self, trigger: Literal["init", "maintenance"] = "init") -> Outcome:
        """One-time setup (``--init``: also writes default settings) or
        maintenance (``--maintenance``). Hooks may export ``shell_env``."""
        path = self.settings_path()
        if trigger == "init" and not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps({"ask": []}, indent=2) + "\n")
            (self.workspace.root / COMMANDS).mkdir(exist_ok=True)
            self.load_settings()
        return self.fire({"event": "setup", "trigger": trigger})

    def create_worktree(self, name: str) -> str | None:
        """Work in a new worktree NAME from now on (``--worktree``): a hook
        makes it (``worktree_path``), else git does. Why it failed, or None."""
        made = self.fire({"event": "worktree_create", "worktree": {"name": name}})
        if made["decision"] == "deny":
            return blocked_text(made) or "a hook refused the worktree"
        by_hook = "worktree_path" in made
        path = Path(made["worktree_path"]) if by_hook else self.workspace.root / WORKTREES / name
        if not by_hook:
            git = run_git(self.workspace.root, "worktree", "add", "-b", f"harness/{name}", str(path))
            if git is None:
                return f"git worktree add {path} failed"
        self.top.worktree, self.top.home = (path.resolve(), by_hook), self.workspace.root
        self.workspace.move(path)
        self.load_settings()  # the worktree's own
        self.say("latch", f"working in the worktree {path}")
        return None

    def remove_worktree(self) -> None:
        """Leave the worktree: kept when it has changes, else removed (by git
        when git made it, by the hooks when one did), then worktree_remove."""
        if self.worktree is None or self.home is None:
            return
        (path, by_hook), self.worktree = self.worktree, None
        self.workspace.move(self.home)
        if run_git(path, "status", "--porcelain"):
            self.say("latch", f"kept the worktree {path}: it has changes")
            return
        if not by_hook and run_git(self.home, "worktree", "remove", str(path)) is None:
            self.warn(f"could not remove the worktree {path}")
            return
        self.fire({"event": "worktree_remove", "worktree": {"path": str(path)}})

    def load_instructions(self) -> None:
        """AGENTS.md and CLAUDE.md of the workspace, into the system prompt."""
        for name in INSTRUCTIONS:
            path = self.workspace.root / name
            if path.is_file():
                self.system_context.append(f"Instructions from {name}:\n\n{path.read_text().strip()}")
                self.fire(
                    {
                        "event": "instructions_loaded",
                        "instructions": {
                            "file_path": str(path),
                            "memory_type": "Project",
                            "load_reason": "session_start",
                        },
                    }
                )

    def settings_path(self) -> Path:
        return self.workspace.root / SETTINGS

    def load_settings(self) -> None:
        path, top = self.settings_path(), self.top
        settings = read_settings(path)
        if settings is None:
            self.warn(f"{path}: not a JSON object with an `ask` list; ignored")
        top.settings_mtime, top.settings = mtime(str(path)), settings or {}

    def check_settings(self) -> None:
        """When the settings file changed: config_change, and the new
        settings apply unless a hook refused them."""
        top, path = self.top, self.settings_path()
        now = mtime(str(path))
        if now == top.settings_mtime:
            return
        top.settings_mtime = now
        changed = self.fire({"event": "config_change", "source": "project_settings", "file_path": str(path)})
        new = read_settings(path)
        if changed["decision"] == "deny":
            reasons = "; ".join(r["text"] for r in changed.get("reasons", []))
            self.say("latch", f"{SETTINGS} changed; a hook refused the change: {reasons}")
        elif new is None:
            self.warn(f"{path}: not a JSON object with an `ask` list; the settings before it are kept")
        else:
            top.settings = new

    def needs_approval(self, tool: str) -> bool:
        return tool in self.policy.ask or tool in self.top.settings.get("ask", [])

    def end(self, reason: str = "exit") -> None:
        """Close the session: [worktree_remove], ``session_end``, and report
        what is left."""
        self.remove_worktree()
        if self.started:
            self.fire({"event": "session_end", "reason": reason})
        self.drain_async()
        for event in self.events:
            self.say("event", f"{event['type']}: {event['summary']}")

    # ------------------------------------------------------------------
    # Turns
    # ------------------------------------------------------------------

    def run(self, prompt: str) -> Turn:
        """One user prompt, to the end of its turn."""
        if halted := self.halt():
            return halted
        self.turn_id, self.turn_context = f"turn-{uuid.uuid4().hex[:8]}", []
        self.say("user", prompt)
        self.check_settings()  # edited between turns
        if prompt.startswith("/"):
            command = self.command(prompt)
            if isinstance(command, Turn):
                return command
            prompt = command
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
            if event["event"] == "session_start":
                self.load_instructions()
        self.add_user(prompt)
        try:
            return self.loop()
        except KeyboardInterrupt:  # the user cancelled the turn (Ctrl-C)
            self.fire({"event": "turn_cancelled", "reason": "user"})
            return Turn("cancelled", "cancelled by the user")

    def command(self, typed: str) -> str | Turn:
        """A ``/command``: the built-in ``/compact [instructions]`` and
        ``/add-dir PATH`` run here and end the turn; ``/NAME ARGS`` expands
        ``.harness/commands/NAME.md`` into the prompt (``$ARGUMENTS`` is
        ARGS), through ``prompt_expansion``."""
        name, _, args = typed[1:].partition(" ")
        args = args.strip()
        if name == "compact":
            return self.compact("manual", args) or Turn("done", "compacted")
        if name == "add-dir":
            return self.add_directory(args)
        path = self.workspace.root / COMMANDS / f"{name}.md"
        if not re.fullmatch(r"[\w-]+", name) or not path.is_file():
            self.say("latch", f"unknown command /{name}")
            return Turn("failed", f"unknown command /{name}")
        text = path.read_text().strip()
        text = text.replace("$ARGUMENTS", args) if "$ARGUMENTS" in text else f"{text}\n\n{args}".strip()
        expanded = self.fire(
            {
                "event": "prompt_expansion",
                "prompt": typed,
                "expansion": {
                    "kind": "slash_command",
                    "command_name": name,
                    "command_args": args,
                    "command_source": "project",
                },
            }
        )
        if expanded["decision"] == "deny":  # like a denied prompt
            return self.refuse_turn("denied", expanded)
        self.place(expanded)  # with_prompt: beside the expanded prompt
        return text

    def add_directory(self, path: str) -> Turn:
        """``/add-dir PATH``: the tools may work there too."""
        directory = (self.workspace.cwd / path).resolve()
        if not path or not directory.is_dir():
            self.say("latch", f"not a directory: {path}")
            return Turn("failed", f"not a directory: {path}")
        self.workspace.extra.append(directory)
        self.fire({"event": "directory_added", "directory": str(directory), "source": "slash_command"})
        self.say("latch", f"added {directory} to the workspace")
        return Turn("done", f"added {directory}")

    def refuse_turn(self, status: TurnStatus, outcome: Outcome) -> Turn:
        reasons = "\n".join(r["text"] for r in outcome.get("reasons", []))
        self.say("latch", f"{outcome['event']} denied: {reasons}")
        self.pending.clear()  # no turn to attach them to (leading ones wait for the first)
        return Turn(status, reasons)

    def loop(self) -> Turn:
        for _ in range(self.max_steps):
            if halted := self.halt():
                return halted
            self.drain_async()
            compacted = self.maybe_compact()
            if compacted is not None:
                return compacted
            self.add_user(None)  # pending context and events not yet delivered
            try:
                reply = self.model.complete(self.conversation(), self.specs())
            except ModelError as error:  # the request failed: stop_failure instead of stop
                return self.failed(error)
            self.messages.append(assistant_message(reply))
            if reply.text:
                self.last_text = reply.text
                self.show(reply.text)
            if reply.calls:
                ended = self.run_batch(reply.calls)
                if ended is not None:
                    return ended
                continue
            ended = self.end_turn(reply)
            if ended is not None:
                return ended
        return Turn("max_steps", f"stopped after {self.max_steps} model calls")

    def failed(self, error: ModelError) -> Turn:
        self.fire(
            {
                "event": "stop_failure",
                "error": error.error,
                "error_details": error.details,
                "last_assistant_message": self.last_text,
            }
        )
        self.say("latch", f"model request failed ({error.error}): {error.details}")
        return Turn("failed", f"model request failed: {error.details}")

    def end_turn(self, reply: Reply) -> Turn | None:
        """The model answered without tool calls: ``stop`` (a sub-agent:
        ``subagent_stop``; a teammate then ``teammate_idle``). None means
        a hook made it go on: the next input is already added."""
        if self.agent_id:
            stop = self.fire({"event": "subagent_stop", "last_assistant_message": reply.text})
        else:
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
        if halted := self.halt():
            return halted
        if self.go_on(stop):
            return None
        if any(e.get("delivery") == "wake" for e in self.events):
            return None  # a published event wakes the idle session
        if self.team and not self.agent_id:  # a teammate about to go idle
            idle = self.fire({"event": "teammate_idle", "team": self.team})
            if halted := self.halt():
                return halted
            if self.go_on(idle):
                return None
        return Turn("done", reply.text)

    def go_on(self, stop: Outcome) -> bool:
        """Apply a continuation: its notices and prompt are the next input,
        which never goes through user_prompt."""
        self.place(stop, notices=False)
        if "continuation" not in stop:
            return False
        self.pending += [n["text"] for n in stop.get("notices", [])]
        self.say("latch", f"continue: {stop['continuation']['prompt']}")
        self.add_user(stop["continuation"]["prompt"])
        return True

    # ------------------------------------------------------------------
    # Tools
    # ------------------------------------------------------------------

    def specs(self) -> list[ToolSpec]:
        """The tools offered to the model; a sub-agent cannot delegate."""
        specs = tool_specs(self.workspace.names)
        return [s for s in specs if not (self.agent_id and s.name == self.workspace.names.delegate)]

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
            if halted := self.halt():  # halt after a tool: it ran, nothing more does
                return halted
        self.check_watched()
        self.check_settings()
        batch = self.fire({"event": "tool_batch", "tool_calls": results})
        appended = self.place(batch)
        if appended:  # at the end of the batch's last tool result
            self.messages[-1]["content"] = after_blank_line(self.messages[-1]["content"], appended)
        return self.halt()

    def run_tool(self, call: ToolUse) -> tuple[str, bool]:
        """Run one call under the hooks: (the text the model reads, whether
        it succeeded)."""
        ws = self.workspace
        tool: ToolCall = {"name": call.name, "input": call.input, "call_id": call.id}
        self.say("tool", f"{call.name} {json.dumps(call.input)}")
        problem = validate(self.specs(), call.name, call.input)
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
        if before["decision"] == "ask" or (self.needs_approval(call.name) and before["decision"] != "allow"):
            refused, args = self.approve(call, args, before)
            if refused is not None:
                return self.result(call, refused, False, before)
        problem = validate(self.specs(), call.name, args)  # a hook's rewrite must fit the tool too
        if problem:
            return self.result(call, f"a hook rewrote the arguments, but {problem}", False, before)
        old_cwd, started = ws.cwd, time.monotonic()
        result = self.execute(call.name, args)
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

    def execute(self, name: str, args: dict[str, Any]) -> ToolResult:
        """Run a tool: the workspace's, or one of the agent's own."""
        n = self.workspace.names
        if self.workspace.runs(name):
            return self.workspace.run(name, args)
        if name == n.delegate:
            return self.delegate(args["prompt"], args.get("agent_type") or "general-purpose")
        if name == n.ask:
            return self.ask_user(args["question"])
        if name == n.create_task:
            return self.create_task(args["subject"], args.get("description", ""))
        return self.complete_task(args["id"])

    def result(
        self, call: ToolUse, text: str, ok: bool, placed: Outcome | None = None, appended: Sequence[str] = ()
    ) -> tuple[str, bool]:
        if placed is not None:
            appended = [*appended, *self.with_result(placed)]
        if self.events:  # peen: session events as data, after the <hook> blocks
            self.pending.append(render_events(self.events))
            self.events = []
        text = after_blank_line(text, appended)
        self.say("result", text)
        return text, ok

    def approve(self, call: ToolUse, args: Any, before: Outcome) -> tuple[str | None, Any]:
        """The permission prompt: (why it was refused or None, the arguments)."""
        key = json.dumps([call.name, args], sort_keys=True)
        if key in self.top.refused:  # the automatic check already refused this very call
            return "This call was refused before, and is refused again without asking.", args
        tool: ToolCall = {"name": call.name, "input": args}
        asked = self.fire({"event": "permission_request", "tool": tool})
        if asked["decision"] == "deny":
            return blocked_text(asked), args
        if asked["decision"] == "allow":  # a hook answered for the user
            return None, asked.get("tool_input", args)
        if self.policy.approver is not None:  # a user to ask: they decide
            self.notify(f"The agent needs your permission to use {call.name}", "permission_prompt")
            if self.policy.approver(call.name, args):
                return None, args
            return f"The user did not allow {call.name}.", args
        # No one to ask: the harness's automatic check refuses, with the
        # hooks' reasons (an `ask`), as Claude Code's -p mode does.
        reason = "\n".join(r["text"] for r in before.get("reasons", [])) or (
            f"{call.name} needs the user's approval, and no one can give it in this run."
        )
        denied = self.fire(
            {"event": "permission_denied", "tool": {**tool, "call_id": call.id}, "reason": reason}
        )
        self.place(denied)  # claude: the retry hint, after the result
        if not denied.get("retry"):  # the model may not try it again
            self.top.refused.add(key)
        return reason, args

    def notify(self, message: str, kind: str) -> None:
        """A notification for the user (the permission prompt, a question)."""
        self.place(self.fire({"event": "notification", "message": message, "notification_type": kind}))

    # ------------------------------------------------------------------
    # The agent's own tools
    # ------------------------------------------------------------------

    def delegate(self, prompt: str, agent_type: str) -> ToolResult:
        """A sub-agent: its own conversation and steps, in this session and
        workspace; its last answer is the result."""
        top = self.top
        top.subagents += 1
        child = Agent(
            self.latch,
            self.model,
            self.workspace,
            self.policy,
            system_prompt=self.system_prompt,
            max_steps=self.max_steps,
            out=self.out,
            err=self.err,
            session_id=self.session_id,
            inbox=self.inbox,
            parent=self,
            agent_id=f"agent-{top.subagents}",
            agent_type=agent_type,
        )
        child.started, child.turn_id, child.system_context = True, self.turn_id, list(self.system_context)
        child.place(child.fire({"event": "subagent_start"}))  # first_user_message: its first input
        child.add_user(prompt)
        turn = child.loop()
        self.events += child.events  # undelivered session events come back to the session
        if turn.status == "deferred":  # the whole turn stops there
            raise Deferred
        return ToolResult(turn.text, failed=turn.status != "done")

    def ask_user(self, question: str) -> ToolResult:
        """The model asks the user. This harness's own tool server
        (``harness``) asks as a tool server (MCP's ``elicitation/create``)
        does, so hooks may answer in place of the user."""
        form: ElicitationRequest = {
            "server": "harness",
            "message": question,
            "mode": "form",
            "id": f"ask-{uuid.uuid4().hex[:8]}",
            "requested_schema": ANSWER_SCHEMA,
        }
        asked = self.fire({"event": "elicitation", "elicitation": form})
        content: Any = None
        if "elicitation" in asked:  # a hook answered for the user
            action, content = asked["elicitation"]["action"], asked["elicitation"].get("content")
        elif asked["decision"] == "deny":
            action = "decline"
        elif self.policy.answerer is not None:
            self.notify(question, "elicitation_dialog")
            answer = self.policy.answerer(question)
            action, content = ("cancel", None) if answer is None else ("accept", {"answer": answer})
        else:  # no one to answer
            action = "cancel"
        reply: ElicitationRequest = {"server": "harness", "mode": "form", "id": form["id"], "action": action}
        if content is not None:
            reply["content"] = content
        answered = self.fire({"event": "elicitation_result", "elicitation": reply})
        if "elicitation" in answered:  # a hook changed the answer
            action, content = answered["elicitation"]["action"], answered["elicitation"].get("content")
        elif answered["decision"] == "deny":
            action = "decline"
        if action != "accept":
            return ToolResult(f"The user did not answer ({action}).")
        answer_text = content.get("answer") if isinstance(content, dict) else None
        return ToolResult(answer_text if isinstance(answer_text, str) else json.dumps(content))

    def create_task(self, subject: str, description: str) -> ToolResult:
        top = self.top
        task: Task = {"id": str(len(top.tasks) + 1), "subject": subject}
        if description:
            task["description"] = description
        event: Event = {"event": "task_created", "task": task}
        if top.team:
            event["team"] = top.team
        created = self.fire(event)
        if created["decision"] == "deny":  # not created: the tool fails with the hook's text
            return ToolResult(blocked_text(created), failed=True)
        top.tasks[task["id"]] = task
        return ToolResult(f"created task {task['id']}: {subject}")

    def complete_task(self, task_id: str) -> ToolResult:
        top = self.top
        if task_id not in top.tasks:
            return ToolResult(f"no task {task_id}", failed=True)
        event: Event = {"event": "task_completed", "task": top.tasks[task_id]}
        if top.team:
            event["team"] = top.team
        completed = self.fire(event)
        if completed["decision"] == "deny":  # stays open; the hook's text is the result
            return ToolResult(blocked_text(completed))
        top.done.add(task_id)
        return ToolResult(f"task {task_id} done")

    def check_watched(self) -> None:
        """Fire file_changed for every watched file that changed."""
        watched = self.top.watched
        for path, seen in list(watched.items()):
            now = mtime(path)
            if now != seen:
                watched[path] = now
                change = "unlink" if now is None else "add" if seen is None else "change"
                self.place(self.fire({"event": "file_changed", "file_path": path, "change": change}))

    # ------------------------------------------------------------------
    # Compaction
    # ------------------------------------------------------------------

    def estimate(self) -> int:
        """The conversation's size in tokens, at ~4 characters a token."""
        return sum(len(json.dumps(m)) for m in self.conversation()) // 4

    def maybe_compact(self) -> Turn | None:
        """Compact when the conversation is over the token budget."""
        if self.token_budget is None or len(self.messages) < 2 or self.estimate() <= self.token_budget:
            return None
        return self.compact("auto")

    def compact(self, trigger: Literal["auto", "manual"], instructions: str = "") -> Turn | None:
        """Replace the conversation with a summary the model writes. A Turn
        when the turn must end (peen refused the compaction)."""
        if len(self.messages) < 2:
            self.say("latch", "nothing to compact")
            return None
        top = self.top
        top.compactions += 1
        figures: Compaction = {
            "estimated_tokens": self.estimate(),
            "round": top.compactions,
            "messages_covered": len(self.messages),
        }
        if self.token_budget is not None:
            figures["budget_tokens"] = self.token_budget
        if instructions:
            figures["instructions"] = instructions
        before = self.fire({"event": "compact_before", "trigger": trigger, "compaction": figures})
        if before["decision"] == "deny":
            if trigger == "auto" and "peen" in self.latch.dialects:  # peen: the turn fails
                return self.refuse_turn("failed", before)
            self.say(
                "latch", "compaction refused: " + "; ".join(r["text"] for r in before.get("reasons", []))
            )
            return None
        contexts = before.get("context", [])
        extra = [c["text"] for c in contexts if c["placement"] == "compaction_prompt"]
        request = COMPACT_PROMPT
        if instructions or extra:
            request += "\n\nAdditional Instructions:\n" + "\n".join(
                [*([instructions] if instructions else []), *extra]
            )
        try:
            summary = self.model.complete([*self.conversation(), user_message([request])], []).text
        except ModelError as error:
            self.say("latch", f"compaction failed: {error.details}")
            return None
        blocks = [
            summary,
            *(n["text"] for n in before.get("notices", [])),  # a system reminder after compaction
            *(c["text"] for c in contexts if c["placement"] == "after_compaction"),
        ]
        self.messages = [user_message(blocks)]
        self.place(before, notices=False)  # any other placement
        self.say("latch", f"compacted {figures['messages_covered']} messages")
        self.fire(
            {
                "event": "compact_after",
                "trigger": trigger,
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
            self.messages.append(user_message(blocks))


COMPACTION = ("after_compaction", "compaction_prompt")


class Deferred(Exception):
    """A hook deferred a tool call: the turn ends without running it."""


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


def user_message(blocks: Sequence[str]) -> Message:
    return {"role": "user", "content": [{"type": "text", "text": b} for b in blocks]}


def assistant_message(reply: Reply) -> Message:
    message: Message = {"role": "assistant", "content": reply.text or None}
    if reply.calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.input)}}
            for c in reply.calls
        ]
    return message


def read_settings(path: Path) -> dict[str, Any] | None:
    """The settings file: {} when there is none, None when it is broken."""
    try:
        settings = json.loads(path.read_text())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError):
        return None
    if not isinstance(settings, dict) or not isinstance(settings.get("ask", []), list):
        return None
    return settings


def run_git(cwd: Path, *args: str) -> str | None:
    """git's output, or None when it failed."""
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def mtime(path: str) -> float | None:
    try:
        return Path(path).stat().st_mtime
    except OSError:
        return None
