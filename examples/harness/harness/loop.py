"""The agent loop: every step fires its latch event and applies the outcome.

The events of a session, in order::

    [setup (--init, --maintenance)] [worktree_create (--worktree)]
    session_start, instructions_loaded per file (without peen: before the
      first prompt, and its initial_user_message is a prompt of its own)
    each prompt: [/compact | /add-dir: directory_added
                  | /model: model_switch_before -> model_switch_after]
      | user_prompt [/name: prompt_expansion, then skill_shell_before per
                     !`cmd`] -> [with peen, the first turn: session_start,
                     instructions_loaded per file]
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

This module holds the turn and its tool calls, and fires ``user_prompt``,
``session_start``, ``user_prompt_ready``, ``turn_start``,
``prompt_expansion``, ``skill_shell_before``, ``directory_added``,
``model_switch_before``, ``model_switch_after``, ``stop_failure``, ``stop``,
``subagent_stop``, ``teammate_idle``, ``turn_cancelled``, ``tool_before``,
``permission_request``, ``permission_denied``, ``tool_after``,
``tool_failure``, ``cwd_changed`` and ``tool_batch``. `Agent` is composed
of the other parts, each a module:

- state.py: the fields (`AgentState`), `Policy` and `Turn`;
- outcomes.py: firing an event and applying its outcome (context, notices,
  what the user is shown);
- session.py: setup, the worktree, instructions, settings and watched
  files, the end;
- own_tools.py: the agent's own tools (sub-agent, question, tasks);
- compaction.py: compaction.

docs/outcome.md says what each outcome field asks of a harness; the
README's table says what this one does.
"""

from __future__ import annotations

import json
import re
import shlex
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from latch_client import Event, Outcome, ToolCall
from latch_client.types import Halt, ModelSwitch

from .compaction import Compacting
from .models import Message, ModelError, Reply, ToolSpec, ToolUse
from .outcomes import Deferred, Halted, after_blank_line, blocked_text, render_events
from .own_tools import OwnTools
from .session import COMMANDS, Session
from .state import Approval, Turn
from .tools import CLAUDE_NAMES, ToolResult, tool_specs, unknown_tool, validate


PREAMBLE = re.compile(r"(?<!\S)!`([^`]+)`")
"""A command's ``!`cmd` ``: a shell command run as the command expands."""


class Agent(Session, OwnTools, Compacting):
    """One conversation of the loop (the session's, or a sub-agent's), its
    hooks run by ``latch`` (a ``Client``). Its fields are `AgentState`'s."""

    # ------------------------------------------------------------------
    # Turns
    # ------------------------------------------------------------------

    def run(self, prompt: str) -> Turn:
        """One user prompt, to the end of its turn. Without peen, the
        session's first prompt is preceded by ``session_start`` (Claude
        Code's order), and its ``initial_user_message`` by a turn of its
        own. A Ctrl-C cancels the turn it interrupts: during that start,
        the user's prompt does not run (the next one starts the session
        again); during the ``initial_user_message``'s turn, the user's
        prompt still does, as a prompt after a cancelled turn would."""
        # A halt ends the turn it came in. One from before any turn (a
        # `setup` hook's) is the caller's to act on, as __main__ does (it
        # runs no prompt then); it never ends this turn, in either order.
        self.top.halted = None
        if not self.started and not self.peen_order():
            try:
                first = self.start_session()
            except KeyboardInterrupt:  # the user cancelled the turn (Ctrl-C)
                return self.cancel()
            if isinstance(first, Turn):
                return first
            if first:  # claude `initialUserMessage`: a prompt before the user's, cancelled alone
                self.cancellable(first)
        return self.cancellable(prompt)

    def cancellable(self, prompt: str) -> Turn:
        """PROMPT's turn; a Ctrl-C anywhere in it cancels it."""
        try:
            return self.turn(prompt)
        except KeyboardInterrupt:  # the user cancelled the turn (Ctrl-C)
            return self.cancel()

    def peen_order(self) -> bool:
        """Whether ``session_start`` comes after the first ``user_prompt``:
        peen's opening order, kept whenever peen is loaded."""
        return "peen" in self.latch.dialects

    def start_session(self) -> str | Turn | None:
        """``session_start`` (``startup``), then the workspace's
        instructions: the hooks' first user message, if any, or the Turn
        when a hook refused the start (peen) or halted it (claude): the
        prompt is not run then, in either order. The session counts as
        started once both are done: a Ctrl-C before then (a slow hook)
        undoes what the start placed, and the next prompt starts it again
        (with peen loaded, latch then runs no second ``sessionStart``: it
        is the first turn's alone; docs/dialects/peen.md)."""
        marks = len(self.system_context), len(self.pending), len(self.leading)
        try:
            started = self.fire({"event": "session_start", "source": "startup", "model": self.model.name})
            if started["decision"] != "deny":
                self.place(started)
                self.load_instructions()
        except KeyboardInterrupt:  # not started: the next prompt's start places it all again
            del self.system_context[marks[0] :], self.pending[marks[1] :], self.leading[marks[2] :]
            raise
        self.started = True
        if started["decision"] == "deny":  # peen: the turn fails before the model is called
            return self.refuse_turn("failed", started)
        if halted := self.halt():  # claude `continue: false`: the session started, the turn ends
            return halted
        return started.get("initial_user_message")

    def turn(self, prompt: str) -> Turn:
        """One prompt's turn: a built-in command, else the opening events
        (:meth:`open_turn`), then the loop."""
        self.top.halted = None  # a halt ends a turn, not the session
        self.turn_id, self.turn_context = f"turn-{uuid.uuid4().hex[:8]}", []
        self.say("user", prompt)
        self.check_settings()  # edited between turns
        if prompt.startswith("/") and (done := self.builtin(prompt)) is not None:
            return done
        # What earlier events left for the next user message (a Stop
        # notice, model_switch_after's context) stays first in `pending`.
        # A turn that ends before its prompt reaches the model drops only
        # what it added after them; a stopped prompt (stop_prompt) has
        # already taken them all into the conversation, in that order.
        earlier = len(self.pending)
        try:
            opened = self.open_turn(prompt)
        except KeyboardInterrupt:
            del self.pending[earlier:]
            raise
        if isinstance(opened, Turn):  # refused, stopped, or an unknown command
            del self.pending[earlier:]
            return opened
        prompt, first = opened
        if first:  # claude `initialUserMessage`, peen's order: a user message before the prompt
            self.add_user(first)
        self.add_user(prompt)
        return self.loop()

    def open_turn(self, prompt: str) -> tuple[str, str | None] | Turn:
        """``user_prompt`` (and a ``/command``'s expansion), then the opening
        events: the prompt for the model, with the hooks' first user
        message when this turn started the session (peen's order), or the
        Turn when a hook refused or stopped it first. Nothing reaches the
        conversation until every opening event let the turn go on (but a
        stopped prompt, which stays in it: :meth:`stop_prompt`)."""
        # Every real prompt goes through user_prompt, a `/command` as typed
        # (Claude Code fires UserPromptSubmit before it expands one, and
        # whether the expansion is then refused or not); that also resets
        # the count of Stop continuations.
        submitted = self.fire({"event": "user_prompt", "prompt": prompt})
        if submitted["decision"] == "deny":  # the user's error; the model never sees it
            return self.refuse_turn("denied", submitted)
        prompt = submitted.get("prompt", prompt)  # a hook may rewrite it
        self.place(submitted)
        if "halt" in submitted:
            return self.stop_prompt(prompt, submitted["halt"])
        if prompt.startswith("/"):
            command = self.command(prompt)
            if isinstance(command, Turn):
                return command
            prompt = command
        first = None
        if not self.started:  # peen's order: session_start after the first user_prompt
            started = self.start_session()
            if isinstance(started, Turn):
                return started
            first = started
        opening: list[Event] = [
            {"event": "user_prompt_ready", "prompt": prompt},
            {"event": "turn_start", "model": self.model.name},
        ]
        for event in opening:
            outcome = self.fire(event)
            if outcome["decision"] == "deny":  # peen: the turn fails before the model is called
                return self.refuse_turn("failed", outcome)
            self.place(outcome)
        return prompt, first

    def cancel(self) -> Turn:
        """Ctrl-C: the turn ends at once. Each call of the model's last
        message still without a result gets one (a call that was running
        has its own), and hooks hear of it (``turn_cancelled``)."""
        self.answer_unanswered("not run: the user cancelled the turn")
        self.fire({"event": "turn_cancelled", "reason": "user"})
        return Turn("cancelled", "cancelled by the user")

    def stop_prompt(self, prompt: str, halt: Halt) -> Turn:
        """claude `continue: false` on ``user_prompt`` or
        ``prompt_expansion``: no model call now, and the turn ends. The
        user reads ``message``; the prompt and ``kept`` stay in the
        conversation, and the model reads them with the next prompt."""
        stopped = halt.get("message") or "Operation stopped by hook"
        self.say("latch", stopped)
        self.add_user(prompt)
        self.add_user(halt.get("kept", stopped))
        return Turn("halted", stopped)

    def builtin(self, typed: str) -> Turn | None:
        """The built-in ``/compact [instructions]``, ``/add-dir PATH`` and
        ``/model NAME``: they run here and end the turn, without
        ``user_prompt``; ``None`` for any other ``/command``."""
        name, _, args = typed[1:].partition(" ")
        args = args.strip()
        if name == "compact":
            return self.compact("manual", args)
        if name == "add-dir":
            return self.add_directory(args)
        if name == "model":
            return self.switch_model(args)
        return None

    def switch_model(self, requested: str) -> Turn:
        """``/model NAME``: the next requests go to NAME, unless a hook
        refuses the switch or asks and the user does not confirm it; hooks
        then hear that it happened (their context comes with the next
        prompt)."""
        if not requested:
            self.say("latch", f"the model is {self.model.name}")
            return Turn("done", self.model.name)
        switch: ModelSwitch = {"from": self.model.name, "to": requested, "requested": requested}
        before = self.fire({"event": "model_switch_before", "source": "command", "model_switch": switch})
        reason = "\n".join(reasons(before))
        refused = before["decision"] in ("deny", "defer")
        if before["decision"] == "ask":  # the user is asked as for a tool (notification first)
            if not self.ask_permission(Approval("/model", {"model": requested}, reasons(before))):
                # Claude Code's words where no one can confirm.
                refused, reason = True, f"{reason or 'confirmation required'} (run /model interactively to confirm)"
        if refused:
            text = f"Model switch to {requested} was blocked by a PreModelSwitch hook: {reason}"
            self.say("latch", text)
            return Turn("denied", text)
        self.model.name = requested
        self.place(self.fire({"event": "model_switch_after", "source": "command", "model_switch": switch}))
        self.say("latch", f"the model is now {requested}")
        return Turn("done", requested)

    def command(self, typed: str) -> str | Turn:
        """``/NAME ARGS``: expands ``.harness/commands/NAME.md`` into the
        prompt (``$ARGUMENTS`` is ARGS), through ``prompt_expansion``,
        after ``user_prompt`` saw it as typed; then its ``!`cmd` `` run."""
        name, _, args = typed[1:].partition(" ")
        args = args.strip()
        path = self.workspace.root / COMMANDS / f"{name}.md"
        if not re.fullmatch(r"[\w-]+", name) or not path.is_file():
            self.say("latch", f"unknown command /{name}")
            return Turn("failed", f"unknown command /{name}")
        template = path.read_text().strip()
        expanded = self.fire(
            {
                "event": "prompt_expansion",
                "prompt": typed,
                "expansion": {
                    "kind": "slash_command",
                    "command_name": name,
                    "command_args": args,
                    "command_source": "projectSettings",
                },
            }
        )
        if expanded["decision"] == "deny":  # like a denied prompt
            return self.refuse_turn("denied", expanded)
        self.place(expanded)  # with_prompt: beside the expanded prompt
        if "halt" in expanded:  # like a stopped prompt: kept as typed, no `!`cmd` runs
            return self.stop_prompt(typed, expanded["halt"])
        return self.run_preamble(name, template, args)

    def run_preamble(self, name: str, template: str, args: str) -> str | Turn:
        """A command's ``!`cmd` `` run before the model reads it. They are
        found in the command's own file, never in the typed ARGS (a
        command's ``$ARGUMENTS`` gets them shell-quoted). As for a tool
        call, hooks decide first: each goes through ``skill_shell_before``,
        then, unless a hook allowed it, the permission check; only once all
        have answered, and none stopped the command, do the allowed ones
        run. Each output takes its command's place; a refusal's place reads
        the outcome's reason, and a command no one approved is handed to
        the model instead. They run where the shell is, but a ``cd`` in
        them does not carry over: they expand a prompt, they are no tool
        call of the model's."""
        ws = self.workspace
        found = list(PREAMBLE.finditer(template))
        commands = [m.group(1).replace("$ARGUMENTS", shlex.quote(args)) for m in found]
        checked: list[Outcome] = []
        for i, cmd in enumerate(commands):
            outcome = self.fire(
                {
                    "event": "skill_shell_before",
                    "tool": {
                        "name": ws.names.shell,
                        "input": {ws.names.shell_arg: cmd},
                        "call_id": f"{self.turn_id}:preamble-{i}",
                    },
                    "expansion": {"command_name": name, "command_source": "projectSettings", "invoked_by": "user"},
                }
            )
            if halt := outcome.get("halt"):  # no command of it runs, and no one is asked
                stopped = halt.get("message", "Operation stopped by hook")
                self.say("latch", stopped)
                return Turn("halted", stopped)
            checked.append(outcome)
        places: list[str | None] = []  # None: runs once every command is checked
        for cmd, outcome in zip(commands, checked):
            if outcome["decision"] == "deny":
                places.append("\n".join(reasons(outcome)))
            elif (
                outcome["decision"] != "allow"
                and self.needs_approval(ws.names.shell)
                and not self.ask_permission(Approval(ws.names.shell, {ws.names.shell_arg: cmd}))
            ):
                hint = f"run this first, exactly as written, with the {ws.names.shell} tool and use its output"
                places.append(f"[{hint}: `{cmd}`]")
            else:
                places.append(None)
        for i, cmd in enumerate(commands):
            if places[i] is None:
                cwd = ws.cwd
                places[i] = ws.run(ws.names.shell, {ws.names.shell_arg: cmd}).text.strip()
                ws.cwd = cwd  # its `cd` does not carry over (so no cwd_changed)
        # The ARGS go where the file's own text says `$ARGUMENTS` (else
        # after it); the commands' outputs are not searched for it.
        parts: list[str] = []
        last = 0
        for m, place in zip(found, places):
            parts.append(template[last : m.start()].replace("$ARGUMENTS", args))
            parts.append(place or "")
            last = m.end()
        parts.append(template[last:].replace("$ARGUMENTS", args))
        text = "".join(parts)
        return text if "$ARGUMENTS" in template else f"{text}\n\n{args}".strip()

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

    def loop(self) -> Turn:
        """The model rounds of a turn (a sub-agent's: of its task)."""
        for step in range(1, self.max_steps + 1):
            if halted := self.halt():
                return halted
            self.drain_inbox()
            compacted = self.maybe_compact(step)
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
        which never goes through user_prompt. Without one, the notices wait
        for the next prompt (the model still reads them, as outcome.md asks)."""
        self.place(stop)  # context, then notices: before the continuation's prompt
        if "continuation" not in stop:
            return False
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
                deferred = "not run: a hook deferred this call, which ended the turn"
                self.messages.append(tool_result(call.id, deferred))
                self.answer_unanswered("not run: a hook deferred an earlier call, which ended the turn")
                return Turn("deferred", f"a hook deferred {call.name}")
            except Halted:  # inside the sub-agent; the hook's reason is the user's, never the model's
                self.messages.append(tool_result(call.id, "not finished: a hook stopped the turn"))
                self.answer_unanswered("not run: a hook halted the turn")
                return self.halt()
            self.messages.append(tool_result(call.id, text))
            done: ToolCall = {"name": call.name, "input": call.input, "call_id": call.id}
            if ok:
                done["output"] = text
            else:
                done["error"] = text
            results.append(done)
            if halted := self.halt():  # halt after a tool: it ran, nothing more does
                self.answer_unanswered("not run: a hook halted the turn")
                return halted
        self.check_watched()
        self.check_settings()
        batch = self.fire({"event": "tool_batch", "tool_calls": results})
        appended: list[str] = []
        self.place(batch, result=appended)
        if appended:  # at the end of the batch's last tool result
            self.messages[-1]["content"] = after_blank_line(self.messages[-1]["content"], appended)
        return self.halt()

    def hooks_see_raw_arguments(self) -> bool:
        """Whether ``tool_before`` comes before argument validation: with
        the evener dialect alone (Evener runs PreToolUse before schema
        validation; docs/events.md)."""
        return set(self.latch.dialects) == {"evener"}

    def reports_interruptions(self) -> bool:
        """Whether a tool call that was cancelled or ran out of time gets
        its ``tool_after``/``tool_failure``: not with peen loaded, since
        Peen runs no post or failure hooks after such an interruption
        (docs/events.md); the other dialects hear of it as a failure."""
        return "peen" not in self.latch.dialects

    def answer_unanswered(self, text: str) -> None:
        """Give each call of the last model message that has no result yet
        TEXT as its result: the turn ended before it ran (a ``defer``, a
        halt, a Ctrl-C). The conversation stays one a model accepts (OpenAI
        refuses tool calls without results), and the model reads that they
        did not run."""
        last = next((m for m in reversed(self.messages) if m["role"] == "assistant"), {})
        calls = last.get("tool_calls", [])
        answered = {m.get("tool_call_id") for m in self.messages if m["role"] == "tool"}
        for call in calls:
            if call["id"] not in answered:
                self.messages.append(tool_result(call["id"], text))

    def run_tool(self, call: ToolUse) -> tuple[str, bool]:
        """Run one call under the hooks: (the text the model reads, whether
        it succeeded)."""
        ws = self.workspace
        tool: ToolCall = {"name": call.name, "input": call.input, "call_id": call.id}
        self.say("tool", f"{call.name} {json.dumps(call.input)}")
        # Invalid calls never reach the hooks; but evener runs PreToolUse
        # before schema validation, so for it only the tool must exist here.
        if self.hooks_see_raw_arguments():
            problem = unknown_tool(self.specs(), call.name)
        else:
            problem = validate(self.specs(), call.name, call.input)
        if problem:
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
        # The arguments it runs with must fit the tool: a hook's rewrite, or
        # (evener) the model's own, not validated yet.
        if problem := validate(self.specs(), call.name, args):
            lead = "invalid call:" if args == call.input else "a hook rewrote the arguments, but"
            return self.result(call, f"{lead} {problem}", False, before)
        appended = self.with_result(before)  # a rewrite notice goes with the result
        old_cwd, started = ws.cwd, time.monotonic()
        try:
            result = self.execute(call.name, args)
        except KeyboardInterrupt:  # Ctrl-C while it ran: it stopped part way, and the turn ends
            self.interrupted(call, args, started, old_cwd, appended)
            raise
        if result.timed_out and not self.reports_interruptions():
            return self.result(call, result.text, False, appended=appended)
        text = result.text
        try:
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
                self.place(changed, result=appended)
        except KeyboardInterrupt:
            # Ctrl-C in its hooks: the call ran, so the model reads what it
            # did (as far as the hooks got with it), and that the turn
            # ended before they finished.
            text = after_blank_line(text, [*appended, HOOKS_CANCELLED])
            self.messages.append(tool_result(call.id, text))
            self.say("result", text)
            raise
        ok = not result.failed and after["decision"] != "deny"  # peen: a denied post event is an error
        return self.result(call, text, ok, appended=appended)

    def interrupted(
        self, call: ToolUse, args: Any, started: float, cwd: Path, appended: Sequence[str]
    ) -> None:
        """The user's Ctrl-C stopped CALL while it ran: ``tool_failure``
        (``interrupted``) tells the hooks, unless peen is loaded
        (:meth:`reports_interruptions`), and its result says so, with
        what they add to it (a second Ctrl-C during them leaves it
        without)."""
        blocks = list(appended)
        if self.reports_interruptions():
            ms = int((time.monotonic() - started) * 1000)
            tool: ToolCall = {"name": call.name, "input": args, "call_id": call.id, "duration_ms": ms}
            failed: ToolCall = {**tool, "error": INTERRUPTED, "interrupted": True}
            try:
                # Other context waits for the next user message: the turn ends.
                blocks += self.with_result(self.fire({"event": "tool_failure", "cwd": str(cwd), "tool": failed}))
            except KeyboardInterrupt:
                pass  # the turn is being cancelled already
        self.messages.append(tool_result(call.id, after_blank_line(INTERRUPTED, blocks)))
        self.say("result", INTERRUPTED)

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
        # The rule the user could pick in the prompt: this tool, for the session.
        offer = {
            "type": "addRules",
            "rules": [{"toolName": CLAUDE_NAMES.get(call.name, call.name)}],
            "behavior": "allow",
            "destination": "session",
        }
        asked = self.fire({"event": "permission_request", "tool": tool, "permission_suggestions": [offer]})
        self.apply_permission_updates(asked)
        if asked["decision"] == "deny":
            return blocked_text(asked), args
        if asked["decision"] == "allow":  # a hook answered for the user
            return None, asked.get("tool_input", args)
        why = reasons(before)  # a hook's `ask`: the user reads why
        if self.policy.approver is not None:  # a user to ask: they decide
            if self.ask_permission(Approval(call.name, args, why)):
                return None, args
            return f"The user did not allow {call.name}.", args
        # No one to ask: the harness's automatic check refuses, with the
        # hooks' reasons (an `ask`), as Claude Code's -p mode does.
        reason = "\n".join(why) or (
            f"{call.name} needs the user's approval, and no one can give it in this run."
        )
        denied = self.fire(
            {"event": "permission_denied", "tool": {**tool, "call_id": call.id}, "reason": reason}
        )
        self.place(denied)  # claude: the retry hint, after the result
        if not denied.get("retry"):  # the model may not try it again
            self.top.refused.add(key)
        return reason, args

    def ask_permission(self, request: Approval) -> bool:
        """Ask the user (``notification``, then the approver); False when
        no one can be asked, or the user said no."""
        if self.policy.approver is None:
            return False
        why = f": {'; '.join(request.reasons)}" if request.reasons else ""
        self.notify(f"The agent needs your permission to use {request.action}{why}", "permission_prompt")
        return self.policy.approver(request)


INTERRUPTED = "interrupted: the user cancelled the turn while this call ran"
HOOKS_CANCELLED = "cancelled: the user cancelled the turn after this call ran, before its hooks finished"


def reasons(outcome: Outcome) -> tuple[str, ...]:
    """The texts of an outcome's ``reasons`` (a deny's, an ``ask``'s)."""
    return tuple(r["text"] for r in outcome.get("reasons", []))


def tool_result(call_id: str, text: str) -> Message:
    """The result of tool call CALL_ID, as the model reads it."""
    return {"role": "tool", "tool_call_id": call_id, "content": text}


def assistant_message(reply: Reply) -> Message:
    message: Message = {"role": "assistant", "content": reply.text or None}
    if reply.calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.input)}}
            for c in reply.calls
        ]
    return message
