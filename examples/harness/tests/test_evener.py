"""The evener plugins (examples/evener/*-plugin)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest
from conftest import EXAMPLES, Runner, call, texts
from harness import Policy, Reply

PLUGINS = ["guard-plugin", "hello-plugin", "inline-plugin", "pointed-plugin"]


def inline_plugin(tmp_path: Path, name: str, hooks: Mapping[str, object]) -> Path:
    """A plugin directory named ``name`` in ``tmp_path`` with ``hooks`` as
    its ``hooks/hooks.json``."""
    plugin = tmp_path / name
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": name}))
    (plugin / "hooks").mkdir()
    (plugin / "hooks" / "hooks.json").write_text(json.dumps(hooks))
    return plugin


def test_evener_plugins(run: Runner, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    s = run(
        ["evener"],
        project,
        ["Fix the failing test."],
        [
            Reply("", [call("shell", command="sudo make install")]),
            Reply("Done."),  # inline-plugin's Stop hook: no SUMMARY.md yet
            Reply("", [call("write_file", path="SUMMARY.md", content="Fixed.\n")]),
            Reply("Summary written."),
        ],
        tools="command",
        plugin_dirs=[EXAMPLES / "evener" / p for p in PLUGINS],
    )
    assert s.turns == ["done"]
    # hello-plugin's systemMessage is for the user: a warning, not context.
    assert "hello-plugin startup hook ran" in s.agent.warnings
    assert "hello-plugin" not in str(s.model.seen)
    # pointed-plugin's UserPromptSubmit text goes beside the prompt.
    assert texts(s.seen(0)[1]) == [
        "<SYSTEM-REMINDER>\nProject rule: run make test before you say the work is done.\n</SYSTEM-REMINDER>",
        "Fix the failing test.",
    ]
    # guard-plugin denies twice (exit 2, JSON): the bare reasons are the result.
    assert s.seen(1)[-1]["content"] == (
        "sudo is not allowed here (guard-plugin, exit 2)\nsudo is not allowed here (guard-plugin, JSON deny)"
    )
    # The Stop hook's continuation (no notice in evener) is the next input.
    assert texts(s.seen(2)[-1]) == ["Write SUMMARY.md before you stop."]
    assert len(s.model.seen) == 4


def test_subagent_stop_notification_and_exec_form(run: Runner, tmp_path: Path) -> None:
    # An inline plugin for what no example does: SubagentStop and Notification.
    once = tmp_path / "reviewed"
    hooks = {
        "SubagentStop": [
            {
                "hooks": [
                    {
                        "type": "command",
                        "command": f"test -e {once} || {{ touch {once}; echo 'Review the tests too.' >&2; exit 2; }}",
                    }
                ]
            }
        ],
        "Notification": [
            {
                "hooks": [
                    {
                        "type": "command",
                        "command": "echo 'The user is on a phone: keep it short.' >&2; exit 2",
                    }
                ]
            }
        ],
    }
    plugin = inline_plugin(tmp_path, "team-plugin", hooks)
    project = tmp_path / "project"
    project.mkdir()
    s = run(
        ["evener"],
        project,
        ["Review it."],
        [
            Reply("", [call("delegate", prompt="Review main.py.")]),
            Reply("main.py: fine."),  # the sub-agent; SubagentStop goes on
            Reply("Tests: fine."),
            Reply(
                "",
                [call("ask_user", question="Merge?"), call("write_file", path="REVIEW.md", content="ok\n")],
            ),
            Reply("Merged."),
        ],
        tools="command",
        plugin_dirs=[plugin, EXAMPLES / "evener" / "exec-plugin"],
        policy=Policy(answerer=lambda question: "yes"),
    )
    assert s.turns == ["done"]
    # SubagentStop's continuation (no notice in evener): the delegate keeps
    # working; its last answer is the result.
    assert texts(s.seen(2)[-1]) == ["Review the tests too."]
    assert s.tool_results()[0] == "Tests: fine."
    # Notification (the question for the user): its text goes with the next input.
    assert s.tool_results()[1:] == ["yes", "wrote 3 bytes to REVIEW.md"]
    assert texts(s.seen(4)[-1]) == [
        "<SYSTEM-REMINDER>\nThe user is on a phone: keep it short.\n</SYSTEM-REMINDER>"
    ]
    # exec-plugin: exec form, no shell ($HOME stays literal); its
    # systemMessage is a warning for the user, not the model.
    assert "exec form: $HOME stays literal" in s.agent.warnings
    assert "exec form" not in str(s.model.seen)


def test_pre_tool_use_before_validation(run: Runner, tmp_path: Path) -> None:
    """Evener runs PreToolUse before schema validation: the hook sees a call
    that lacks its argument and may fill it in (updatedInput); the merged
    arguments are then validated, and a call still invalid does not run."""
    log = tmp_path / "pre.jsonl"
    fill = json.dumps({"hookSpecificOutput": {"updatedInput": {"command": "echo filled in"}}})
    command = f'p=$(cat); echo "$p" >> {log}; echo "$p" | grep -q Bash && echo \'{fill}\' || true'
    hooks = {"PreToolUse": [{"hooks": [{"type": "command", "command": command}]}]}
    plugin = inline_plugin(tmp_path, "fill-plugin", hooks)
    project = tmp_path / "project"
    project.mkdir()
    s = run(
        ["evener"],
        project,
        ["Go."],
        [Reply("", [call("shell"), call("write_file", path="a.txt")]), Reply("Done.")],
        tools="command",
        plugin_dirs=[plugin],
    )
    assert s.turns == ["done"]
    seen = [json.loads(line).get("tool_input", {}) for line in log.read_text().splitlines()]
    assert seen == [{}, {"path": "a.txt"}]  # both reached the hook as the model wrote them ({}: left out)
    assert s.tool_results() == ["filled in\n", "invalid call: `content` must be a string"]
    assert not (project / "a.txt").exists()


def test_prompt_plugin_without_endpoint(run: Runner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """prompt-plugin with no model endpoint configured: the prompt hook
    fails without blocking, and the user (never the model) is told."""
    # latch falls back on OpenAI's variables for the endpoint and key.
    for name in ("LATCH_PROMPT_BASE_URL", "OPENAI_BASE_URL", "LATCH_PROMPT_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    project = tmp_path / "project"
    project.mkdir()
    s = run(
        ["evener"],
        project,
        ["Say hi."],
        [Reply("", [call("shell", command="echo hi")]), Reply("Done.")],
        tools="command",
        plugin_dirs=[EXAMPLES / "evener" / "prompt-plugin"],
    )
    assert s.turns == ["done"]
    assert s.tool_results() == ["hi\n"]
    failed = "PreToolUse hook prompt-plugin failed: no model endpoint configured"
    assert s.agent.warnings == [
        f"{failed} (set --prompt-base-url or LATCH_PROMPT_BASE_URL)"
    ]
    assert "prompt-plugin" not in str(s.model.seen)
