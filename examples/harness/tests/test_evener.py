"""The evener plugins (examples/evener/*-plugin)."""

from __future__ import annotations

from pathlib import Path

from conftest import EXAMPLES, Runner, call, texts
from harness import Reply

PLUGINS = ["guard-plugin", "hello-plugin", "inline-plugin", "pointed-plugin"]


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
