"""The session around the turns: setup, the worktree, the workspace's
instructions, the harness's own settings and watched files, and the end.

Fires ``setup``, ``worktree_create``, ``instructions_loaded``,
``config_change``, ``file_changed``, ``worktree_remove`` and
``session_end``.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any, Literal

from latch_client import Outcome

from .outcomes import Outcomes, blocked_text, mtime
from .tools import CLAUDE_NAMES

SETTINGS = Path(".harness/settings.json")  # this harness's own settings, per workspace
COMMANDS = Path(".harness/commands")  # /NAME runs COMMANDS/NAME.md
INSTRUCTIONS = ("AGENTS.md", "CLAUDE.md")  # loaded into the system prompt
WORKTREES = Path(".harness/worktrees")  # --worktree NAME, when no hook makes it


class Session(Outcomes):
    """The session's lifecycle, and the files it keeps an eye on."""

    def __post_init__(self) -> None:
        if self.parent is None:  # the session's agent: sub-agents share its settings
            self.load_settings()

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
        if {tool, CLAUDE_NAMES.get(tool)} & self.top.allowed:  # a hook allowed it for the session
            return False
        return tool in self.policy.ask or tool in self.top.settings.get("ask", [])

    def check_watched(self) -> None:
        """Fire file_changed for every watched file that changed."""
        watched = self.top.watched
        for path, seen in list(watched.items()):
            now = mtime(path)
            if now != seen:
                watched[path] = now
                change = "unlink" if now is None else "add" if seen is None else "change"
                self.place(self.fire({"event": "file_changed", "file_path": path, "change": change}))

    def end(self, reason: str = "exit") -> None:
        """Close the session: [worktree_remove], ``session_end`` (for a
        session that started: not when a Ctrl-C cut its only start short),
        and report what is left."""
        self.remove_worktree()
        if self.started:
            self.fire({"event": "session_end", "reason": reason})
        self.drain_inbox()
        for event in self.events:
            self.say("event", f"{event['type']}: {event['summary']}")


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
