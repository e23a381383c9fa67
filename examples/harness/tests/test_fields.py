"""Outcome fields the bundled examples do not produce, with claude hooks
written inline: permission_request, tool_batch context and halt."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import Runner, call, texts
from harness import Policy, Reply

ALLOW = {
    "hookSpecificOutput": {
        "hookEventName": "PermissionRequest",
        "decision": {"behavior": "allow", "updatedInput": {"command": "echo approved by hook"}},
    }
}
BATCH = (
    'if grep -q halt-now; then echo \'{"decision": "block", "reason": "enough for today"}\'; '
    'else echo \'{"hookSpecificOutput": {"hookEventName": "PostToolBatch", "additionalContext": "batch checked"}}\'; fi'
)
SETTINGS = {
    "hooks": {
        "PermissionRequest": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": f"echo '{json.dumps(ALLOW)}'"}]}
        ],
        "PostToolBatch": [{"hooks": [{"type": "command", "command": BATCH}]}],
    }
}


def test_permission_batch_context_and_halt(run: Runner, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    asked: list[str] = []

    def ask_user(name: str, args: object) -> bool:
        asked.append(name)
        return False

    s = run(
        ["claude"],
        project,
        ["Go.", "Again."],
        [
            # `shell` needs approval here; the PermissionRequest hook gives it
            # (and rewrites the command), so the user is never asked.
            Reply("", [call("shell", cmd="echo hello"), call("write_file", path="a.txt", content="a")]),
            Reply("", [call("shell", cmd="echo halt-now")]),  # PostToolBatch halts: no more model calls
            Reply("never sent"),
        ],
        claude_settings=json.dumps(SETTINGS),
        policy=Policy(ask=frozenset({"shell"}), approver=ask_user),
    )
    assert asked == []
    assert s.turns == ["halted", "halted"]  # a halted session takes no more prompts
    assert s.agent.halted == "enough for today"  # for the user, never the model
    shell, write = s.seen(1)[-2:]
    assert shell["content"] == "approved by hook\n"
    # PostToolBatch context: at the end of the batch's last tool result.
    assert write["content"] == (
        "wrote 1 bytes to a.txt\n\n"
        "<system-reminder>\nPostToolBatch hook additional context: batch checked\n</system-reminder>"
    )
    assert len(s.model.seen) == 2
    assert "enough for today" not in str(s.model.seen)
    assert texts(s.seen(0)[1]) == ["Go."]
