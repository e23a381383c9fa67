"""The harness's two tools: a shell and a file writer, both in one workspace.

Tool names and argument shapes differ between the hook dialects: latch
maps a harness's tool *names* for claude and evener hooks, but argument
names only for claude (``cmd`` -> ``command``), and peen hooks see tool
names verbatim. So the harness picks the naming its hooks were written
for (a :class:`ToolNames`), as a real harness has one naming of its own.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Mapping
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


TOOL_NAMES: dict[str, ToolNames] = {
    # latch's neutral names with poolside's shell argument (claude hooks see
    # Bash {command} through latch's tool vocabulary).
    "cmd": ToolNames("shell", "cmd", "write_file"),
    # evener translates tool names only, so its hooks read `command`.
    "command": ToolNames("shell", "command", "write_file"),
    # peen's own tools: peen matchers test these names exactly.
    "peen": ToolNames("runCommand", "command", "writeFile"),
}
DEFAULT_NAMES = {"poolside": "cmd", "claude": "cmd", "evener": "command", "peen": "peen"}


@dataclass
class ToolResult:
    """What a tool did: its text, and whether it failed."""

    text: str
    failed: bool = False
    timed_out: bool = False  # interrupted: no tool_after/tool_failure is sent


class Workspace:
    """The tools' world: a root directory, the shell's cwd, and its env."""

    def __init__(self, root: Path, names: ToolNames, shell_timeout: float = 60.0) -> None:
        self.root = root.resolve()
        self.cwd = self.root
        self.names = names
        self.shell_timeout = shell_timeout
        self.env: dict[str, str] = {}  # the outcome's shell_env, for later shell calls

    def specs(self) -> list[ToolSpec]:
        n = self.names
        return [
            ToolSpec(
                n.shell,
                "Run a shell command in the workspace; `cd` persists between calls.",
                {
                    "type": "object",
                    "properties": {n.shell_arg: {"type": "string"}},
                    "required": [n.shell_arg],
                },
            ),
            ToolSpec(
                n.write,
                "Write a file (path relative to the current directory, inside the workspace).",
                {
                    "type": "object",
                    "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                    "required": ["path", "content"],
                },
            ),
        ]

    def validate(self, name: str, args: Any) -> str | None:
        """Why these arguments are unusable, or None. Runs on the model's
        arguments and again on a hook's rewrite (``tool_input``)."""
        if name == self.names.shell:
            fields = {self.names.shell_arg: str}
        elif name == self.names.write:
            fields = {"path": str, "content": str}
        else:
            return f"unknown tool {name!r}"
        if not isinstance(args, dict):
            return "the arguments must be an object"
        for key, kind in fields.items():
            if not isinstance(args.get(key), kind):
                return f"`{key}` must be a {kind.__name__}"
        return None

    def run(self, name: str, args: Mapping[str, Any]) -> ToolResult:
        if name == self.names.shell:
            return self._shell(str(args[self.names.shell_arg]))
        return self._write(str(args["path"]), str(args["content"]))

    def _shell(self, cmd: str) -> ToolResult:
        with tempfile.NamedTemporaryFile("r", prefix="harness-cwd-") as cwd_file:
            # Like Claude Code's Bash tool, the script records its final
            # directory so that `cd` carries over to the next call.
            script = f'{cmd}\n__rc=$?\npwd -P > "{cwd_file.name}"\nexit $__rc\n'
            try:
                done = subprocess.run(
                    ["/bin/sh", "-c", script],
                    cwd=self.cwd,
                    env={**os.environ, **self.env},
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    timeout=self.shell_timeout,
                    text=True,
                    errors="replace",
                )
            except subprocess.TimeoutExpired:
                return ToolResult(f"timed out after {self.shell_timeout:g}s", failed=True, timed_out=True)
            new_cwd = cwd_file.read().strip()
        if new_cwd:
            path = Path(new_cwd)
            # The shell stays in the workspace; leaving it resets to the root.
            self.cwd = path if path.is_relative_to(self.root) else self.root
        if done.returncode != 0:
            return ToolResult(f"{done.stdout}exit status {done.returncode}", failed=True)
        return ToolResult(done.stdout)

    def _write(self, path: str, content: str) -> ToolResult:
        target = (self.cwd / path).resolve()
        if not target.is_relative_to(self.root):
            return ToolResult(f"{path}: outside the workspace {self.root}", failed=True)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
        return ToolResult(f"wrote {len(content)} bytes to {target.relative_to(self.root)}")
