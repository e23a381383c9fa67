"""The harness's tools, and the workspace they work in.

Two tools run in the workspace (:class:`Workspace`): a shell and a file
writer. Four more are the agent's own, run by the agent (``own_tools.py``)
because each fires events of its own: ``delegate`` (a sub-agent:
``subagent_start``/``subagent_stop``), ``ask_user`` (a question to the
user: ``elicitation``/``elicitation_result``), ``create_task`` and
``complete_task`` (the session's task list: ``task_created``/
``task_completed``).

Tool names and argument shapes differ between the hook dialects: latch
maps a harness's tool *names* for claude and evener hooks, but argument
names only for claude (``cmd`` -> ``command``), and peen hooks see tool
names verbatim. So the harness picks the naming its hooks were written
for (a :class:`ToolNames`), as a real harness has one naming of its own.
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .models import ToolSpec


@dataclass(frozen=True)
class ToolNames:
    """How this harness names its tools and the shell command argument."""

    shell: str
    shell_arg: str
    write: str
    delegate: str = "delegate"  # claude hooks see Task
    ask: str = "ask_user"  # claude hooks see AskUserQuestion
    create_task: str = "create_task"
    complete_task: str = "complete_task"


TOOL_NAMES: dict[str, ToolNames] = {
    # latch's neutral names with poolside's shell argument (claude hooks see
    # Bash {command} through latch's tool vocabulary).
    "cmd": ToolNames("shell", "cmd", "write_file"),
    # evener translates tool names only, so its hooks read `command`.
    "command": ToolNames("shell", "command", "write_file"),
    # peen's own tools: peen matchers test these names exactly.
    "peen": ToolNames("runCommand", "command", "writeFile", delegate="launchAgent", ask="ask"),
}
DEFAULT_NAMES = {"poolside": "cmd", "claude": "cmd", "evener": "command", "peen": "peen"}


def tool_specs(names: ToolNames) -> list[ToolSpec]:
    """Every tool, as the model is told about it."""
    n = names

    def obj(required: dict[str, str], optional: dict[str, str] | None = None) -> dict[str, Any]:
        props = {k: {"type": "string", "description": d} for k, d in {**required, **(optional or {})}.items()}
        return {"type": "object", "properties": props, "required": list(required)}

    return [
        ToolSpec(
            n.shell,
            "Run a shell command in the workspace; `cd` persists between calls.",
            obj({n.shell_arg: "the command"}),
        ),
        ToolSpec(
            n.write,
            "Write a file (path relative to the current directory, inside the workspace).",
            obj({"path": "the file", "content": "its new content"}),
        ),
        ToolSpec(
            n.delegate,
            "Hand a self-contained job to a sub-agent; its final answer is the result.",
            obj({"prompt": "the job"}, {"agent_type": "the kind of agent (default general-purpose)"}),
        ),
        ToolSpec(
            n.ask, "Ask the user a question; the answer is the result.", obj({"question": "the question"})
        ),
        ToolSpec(
            n.create_task,
            "Add a task to the session's task list; the result is its id.",
            obj({"subject": "one line"}, {"description": "details"}),
        ),
        ToolSpec(n.complete_task, "Mark a task of the task list done.", obj({"id": "the task's id"})),
    ]


def unknown_tool(specs: Sequence[ToolSpec], name: str) -> str | None:
    """Why NAME is none of SPECS' tools, or None."""
    return None if any(spec.name == name for spec in specs) else f"unknown tool {name!r}"


def validate(specs: Sequence[ToolSpec], name: str, args: Any) -> str | None:
    """Why these arguments are unusable for tool NAME, one of SPECS, or
    None. Runs on the model's arguments and again on a hook's rewrite
    (``tool_input``)."""
    if problem := unknown_tool(specs, name):
        return problem
    spec = next(spec for spec in specs if spec.name == name)
    if not isinstance(args, dict):
        return "the arguments must be an object"
    for key in spec.parameters["properties"]:
        required = key in spec.parameters["required"]
        if (required or key in args) and not isinstance(args.get(key), str):
            return f"`{key}` must be a string"
    return None


@dataclass
class ToolResult:
    """What a tool did: its text, and whether it failed."""

    text: str
    failed: bool = False
    timed_out: bool = False  # ran out of time: with peen loaded, no tool_after/tool_failure is sent


class Workspace:
    """The tools' world: its directories, the shell's cwd, and its env."""

    def __init__(self, root: Path, names: ToolNames, shell_timeout: float = 60.0) -> None:
        self.root = root.resolve()
        self.cwd = self.root
        self.extra: list[Path] = []  # directories added to the workspace (/add-dir)
        self.names = names
        self.shell_timeout = shell_timeout
        self.env: dict[str, str] = {}  # the outcome's shell_env, for later shell calls

    def contains(self, path: Path) -> bool:
        return any(path.is_relative_to(d) for d in (self.root, *self.extra))

    def move(self, root: Path) -> None:
        """Work in ROOT from now on (a worktree), or again in the old one."""
        self.root = self.cwd = root.resolve()

    def runs(self, name: str) -> bool:
        """Whether tool NAME runs here (else the loop runs it)."""
        return name in (self.names.shell, self.names.write)

    def run(self, name: str, args: Mapping[str, Any]) -> ToolResult:
        """Run tool NAME here. What the system refuses (a directory where a
        file should be, a full disk, a permission) is the tool's failure,
        for the model to read, never the harness's crash."""
        moved = ""
        if not self.cwd.is_dir():  # the shell's directory was removed (by the agent, or not)
            moved = f"[{self.cwd} no longer exists; back in {self.root}]\n"
            self.cwd = self.root
        try:
            if name == self.names.shell:
                result = self._shell(str(args[self.names.shell_arg]))
            else:
                result = self._write(str(args["path"]), str(args["content"]))
        except (OSError, ValueError) as error:  # ValueError: a NUL byte, a lone surrogate
            result = ToolResult(str(error), failed=True)
        result.text = moved + result.text
        return result

    def _shell(self, cmd: str) -> ToolResult:
        """The shell tool: CMD in the shell's directory, with ``env``."""
        with tempfile.NamedTemporaryFile("r", prefix="harness-cwd-") as cwd_file:
            # Like Claude Code's Bash tool, the script records its final
            # directory so that `cd` carries over to the next call.
            script = f'{cmd}\n__rc=$?\npwd -P > "{cwd_file.name}"\nexit $__rc\n'
            try:
                returncode, output = self._run_script(script)
            except subprocess.TimeoutExpired:
                return ToolResult(f"timed out after {self.shell_timeout:g}s", failed=True, timed_out=True)
            new_cwd = cwd_file.read().strip()
        if new_cwd:
            path = Path(new_cwd)
            # The shell stays in the workspace; leaving it resets to the root.
            self.cwd = path if self.contains(path) else self.root
        if returncode != 0:
            return ToolResult(f"{output}exit status {returncode}", failed=True)
        return ToolResult(output)

    def _run_script(self, script: str) -> tuple[int, str]:
        """Run SCRIPT with ``/bin/sh`` in a process group of its own: (its
        exit status, its output). On a timeout (``TimeoutExpired``) or a
        Ctrl-C, the whole group is killed, whatever the script started."""
        with subprocess.Popen(
            ["/bin/sh", "-c", script],
            cwd=self.cwd,
            env={**shell_environ(), **self.env},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            start_new_session=True,  # its own group: killed as one, and no terminal's Ctrl-C
        ) as shell:
            try:
                output, _ = shell.communicate(timeout=self.shell_timeout)
            except BaseException:  # timed out, or the user's Ctrl-C
                kill_group(shell)
                raise
            return shell.returncode, output

    def _write(self, path: str, content: str) -> ToolResult:
        target = (self.cwd / path).resolve()
        if not self.contains(target):
            return ToolResult(f"{path}: outside the workspace {self.root}", failed=True)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
        shown = target.relative_to(self.root) if target.is_relative_to(self.root) else target
        return ToolResult(f"wrote {len(content)} bytes to {shown}")


SECRETS = ("OPENAI_API_KEY",)
"""The harness's own secrets, which the shell that runs the model's
commands does not inherit (a hook's ``shell_env`` may still set one on
purpose). A courtesy, not isolation: such a command runs as the same
user, and can still read them, from ``/proc/$PPID/environ`` say; hooks,
and ``latch serve``, get them in their own environment. Run the harness
as a separate user, or in a sandbox, to keep them from the model."""


def shell_environ() -> dict[str, str]:
    """This process's environment without its secrets."""
    return {name: value for name, value in os.environ.items() if name not in SECRETS}


def kill_group(process: subprocess.Popen[str]) -> None:
    """Kill PROCESS's process group (it leads one) and reap PROCESS. A
    process that left the group keeps running, but no longer holds up the
    harness: the output pipe is closed after a grace period."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:  # the whole group already exited
        pass
    try:
        process.communicate(timeout=5)  # the rest of the output, until every holder is gone
    except subprocess.TimeoutExpired:
        if process.stdout is not None:
            process.stdout.close()
    process.wait()


# How hooks written for Claude Code name this harness's tools (latch's
# built-in tool vocabulary): permission rules they ask for use these names.
CLAUDE_NAMES = {"shell": "Bash", "write_file": "Write", "runCommand": "Bash", "writeFile": "Write"}
