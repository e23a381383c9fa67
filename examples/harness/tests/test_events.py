"""Every event kind the loop fires, where it fires it: one session with a
claude hook on every Claude Code event that records what it read. (The
three kinds with no Claude Code event, user_prompt_ready, turn_start and
turn_cancelled, are peen's: test_peen.py.)"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

from conftest import Runner, call, records
from harness import Agent, ModelError, Policy, Reply

CLAUDE_EVENTS = [
    "Setup",
    "WorktreeCreate",
    "DirectoryAdded",
    "PreModelSwitch",
    "PostModelSwitch",
    "UserPromptExpansion",
    "UserPromptSubmit",
    "PreSkillShellCommand",
    "SessionStart",
    "InstructionsLoaded",
    "MessageDisplay",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "CwdChanged",
    "PermissionRequest",
    "PermissionDenied",
    "Notification",
    "Elicitation",
    "ElicitationResult",
    "SubagentStart",
    "SubagentStop",
    "TaskCreated",
    "TaskCompleted",
    "FileChanged",
    "ConfigChange",
    "PostToolBatch",
    "Stop",
    "TeammateIdle",
    "PreCompact",
    "PostCompact",
    "StopFailure",
    "WorktreeRemove",
    "SessionEnd",
]


def git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=harness", "-c", "user.email=harness@example.com", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


def test_every_event_kind(run: Runner, tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"
    record = {"type": "command", "command": f"cat >> {log}"}  # one line per event
    groups: dict[str, list[dict[str, Any]]] = {event: [{"hooks": [record]}] for event in CLAUDE_EVENTS}
    # FileChanged hooks name the files the harness watches.
    groups["FileChanged"] = [{"matcher": "notes.txt", "hooks": [record]}]

    # A git project: --worktree makes a git worktree of it. What the
    # harness writes (.harness/, notes.txt) is ignored, so the worktree is
    # clean at the end and is removed.
    project, shared = tmp_path / "project", tmp_path / "shared"
    (project / ".harness" / "commands").mkdir(parents=True)
    shared.mkdir()
    (project / ".gitignore").write_text(".harness/\nnotes.txt\n")
    (project / "AGENTS.md").write_text("Keep answers short.\n")
    (project / ".harness" / "commands" / "review.md").write_text("Review $ARGUMENTS for bugs. Last change: !`git log --format=%s -1`\n")
    (project / "main.py").write_text("print('hi')\n")
    git(project, "init", "-q")
    git(project, "add", "-f", ".")
    git(project, "commit", "-qm", "init")

    def start(agent: Agent) -> None:
        agent.setup("init")
        assert agent.create_worktree("feature") is None

    answers: list[str] = []

    def answer(question: str) -> str:
        answers.append(question)
        return "yes"

    worktree = project / ".harness" / "worktrees" / "feature"
    s = run(
        ["claude"],
        project,
        [f"/add-dir {shared}", "/model claude-sonnet-4-6", "/review main.py", "/compact keep the task list", "Go on."],
        [
            Reply(
                "Looking.",
                [
                    call("shell", cmd="mkdir -p sub && cd sub"),
                    call("shell", cmd="false"),
                    call("write_file", path="../notes.txt", content="seen\n"),
                    # The settings now ask before each shell call (config_change).
                    call("write_file", path="../.harness/settings.json", content='{"ask": ["shell"]}'),
                ],
            ),
            Reply("", [call("shell", cmd="echo needs approval"), call("ask_user", question="Ship it?")]),
            Reply("", [call("delegate", prompt="Check main.py.", agent_type="reviewer")]),
            Reply("main.py looks fine."),  # the sub-agent's answer
            Reply("", [call("create_task", subject="Ship"), call("complete_task", id="1")]),
            Reply("Reviewed."),
            Reply("Summary: reviewed main.py."),  # /compact: the summary
            ModelError("rate_limit", "HTTP 429"),  # "Go on.": the request fails
        ],
        claude_settings=json.dumps({"hooks": groups}),
        before=start,
        policy=Policy(answerer=answer),  # no one approves tools; questions are answered
        team={"team_name": "core", "teammate_name": "ada"},
    )
    assert s.turns == ["done", "done", "done", "done", "failed"]
    # InstructionsLoaded and StopFailure hooks run in the background.
    deadline = time.monotonic() + 10
    while not {"InstructionsLoaded", "StopFailure"} <= {r["hook_event_name"] for r in records(log)}:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    got: dict[str, dict[str, Any]] = {}  # the first of each event
    for r in records(log):
        got.setdefault(r["hook_event_name"], r)
    assert set(got) == set(CLAUDE_EVENTS)

    wt = str(worktree.resolve())
    assert got["Setup"]["trigger"] == "init"
    assert got["WorktreeCreate"]["name"] == "feature"
    assert got["DirectoryAdded"]["directory"] == str(shared.resolve())
    assert got["PreModelSwitch"]["to_model"] == got["PostModelSwitch"]["to_model"] == "claude-sonnet-4-6"
    assert got["PreModelSwitch"]["from_model"] == "scripted"
    assert got["PreSkillShellCommand"]["tool_name"] == "Bash"
    assert got["PreSkillShellCommand"]["tool_input"] == {"command": "git log --format=%s -1"}
    assert got["PreSkillShellCommand"]["command_name"] == "review"
    assert got["UserPromptExpansion"]["command_name"] == "review"
    assert got["UserPromptExpansion"]["command_args"] == "main.py"
    # UserPromptSubmit sees the command as typed (Claude Code 2.1.332).
    assert got["UserPromptSubmit"]["prompt"] == "/review main.py"
    assert got["InstructionsLoaded"]["file_path"] == f"{wt}/AGENTS.md"
    assert got["CwdChanged"]["new_cwd"] == f"{wt}/sub"
    assert got["FileChanged"]["file_path"] == f"{wt}/notes.txt"
    assert got["ConfigChange"]["file_path"] == f"{wt}/.harness/settings.json"
    assert got["PermissionDenied"]["tool_input"] == {"command": "echo needs approval"}
    assert got["Elicitation"]["message"] == "Ship it?"
    assert got["ElicitationResult"]["content"] == {"answer": "yes"}
    assert got["SubagentStart"]["agent_type"] == "reviewer"
    assert got["SubagentStop"]["last_assistant_message"] == "main.py looks fine."
    assert got["TaskCompleted"]["task_subject"] == "Ship"
    assert got["TeammateIdle"]["teammate_name"] == "ada"
    assert got["PreCompact"]["custom_instructions"] == "keep the task list"
    assert got["StopFailure"]["error"] == "rate_limit"
    assert got["WorktreeRemove"]["worktree_path"] == wt
    assert answers == ["Ship it?"]
    assert not worktree.exists()

    # Where each fires (InstructionsLoaded and StopFailure hooks run in the
    # background, so their place in the log varies).
    background = ("InstructionsLoaded", "StopFailure")
    order = [r["hook_event_name"] for r in records(log) if r["hook_event_name"] not in background]
    assert order == [
        "Setup",  # agent.setup("init"), before the session
        "WorktreeCreate",  # agent.create_worktree("feature")
        "SessionStart",  # before the first prompt, as Claude Code (then InstructionsLoaded: AGENTS.md)
        "DirectoryAdded",  # /add-dir
        *["PreModelSwitch", "PostModelSwitch"],  # /model
        "UserPromptSubmit",  # /review main.py, as typed (Claude Code 2.1.332's order)
        "UserPromptExpansion",  # its expansion
        "PreSkillShellCommand",  # its !`git log …`
        "MessageDisplay",  # "Looking."
        *["PreToolUse", "PostToolUse", "CwdChanged"],  # cd sub
        *["PreToolUse", "PostToolUseFailure"],  # false
        *["PreToolUse", "PostToolUse"] * 2,  # the two writes
        *["FileChanged", "ConfigChange", "PostToolBatch"],  # notes.txt, the settings
        *["PreToolUse", "PermissionRequest", "PermissionDenied"],  # shell now asks; no one approves
        *["PreToolUse", "Elicitation", "Notification", "ElicitationResult", "PostToolUse"],  # ask_user
        "PostToolBatch",
        *["PreToolUse", "SubagentStart", "MessageDisplay", "SubagentStop", "PostToolUse"],  # delegate
        "PostToolBatch",
        *["PreToolUse", "TaskCreated", "PostToolUse", "PreToolUse", "TaskCompleted", "PostToolUse"],
        "PostToolBatch",
        *["MessageDisplay", "Stop", "TeammateIdle"],  # "Reviewed."
        *["PreCompact", "PostCompact"],  # /compact
        "UserPromptSubmit",  # "Go on." (then StopFailure)
        *["WorktreeRemove", "SessionEnd"],  # agent.end()
    ]
    # Events inside the sub-agent say so.
    inside = [r for r in records(log) if r.get("agent_id") == "agent-1"]
    assert [r["hook_event_name"] for r in inside] == ["SubagentStart", "MessageDisplay", "SubagentStop"]
