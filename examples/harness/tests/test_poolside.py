"""The poolside example (examples/poolside): deny, output rewrite, Stop."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import Example, Runner, call, texts
from harness import Reply

SUDO_NOTICE = (
    '<hook name="block-sudo" event="PreToolUse">Blocked this tool call: '
    "sudo is forbidden in this workspace (blocked by block-sudo hook)</hook>"
)


def test_poolside_example(run: Runner, example: Example, tmp_path: Path) -> None:
    project = example("poolside")
    s = run(
        ["poolside"],
        project,
        ["Install the package."],
        [
            Reply("Installing.", [call("shell", cmd="sudo make install")]),
            Reply("Without sudo then.", [call("shell", cmd="printf 'su%s make install\\n' do")]),
            Reply("Done."),  # Stop: drive-once continues the turn, once
            Reply("", [call("write_file", path="SUMMARY.md", content="Installed.\n")]),
            Reply("Summary written."),
        ],
        env={"LOG_PAYLOAD_FILE": str(tmp_path / "payload.json")},
    )
    assert s.turns == ["done"]
    # SessionStart context is in the system prompt from the first model call on.
    assert s.seen(0)[0]["content"].endswith(
        "Workspace policy (source=startup): sudo is forbidden in this workspace; hooks are active."
    )
    # The denied call: the block notice, verbatim, is the tool result.
    assert s.seen(1)[-1] == {"role": "tool", "tool_call_id": "call_1_0", "content": SUDO_NOTICE}
    # PostToolUse rewrote the output: the model reads the rewrite, tag included.
    assert s.seen(2)[-1]["content"] == (
        "[sudo-redacted] make install\n\n-- reviewed by redact hook\n"
        '<hook name="redact" event="PostToolUse">This tool output was rewritten by the hook.</hook>'
    )
    # Stop continued once: notice and prompt as the next user input.
    assert texts(s.seen(3)[-1]) == [
        '<hook name="drive-once" event="Stop">Asked the agent to keep working instead of stopping.</hook>',
        "You stopped early. Please also write a one-line summary to SUMMARY.md, then stop.",
    ]
    assert (project / "SUMMARY.md").read_text() == "Installed.\n"
    assert len(s.model.seen) == 5  # the second Stop let it end
    # UserPromptSubmit ran once: the continuation did not go through it.
    assert json.loads((tmp_path / "payload.json").read_text())["prompt"] == "Install the package."


def test_compaction_over_budget(run: Runner, example: Example, tmp_path: Path) -> None:
    s = run(
        ["poolside"],
        example("poolside"),
        ["List the files."],
        [
            Reply("", [call("shell", cmd="ls -a")]),
            Reply("Listed."),
            Reply("Summary: none needed."),
        ],
        env={"LOG_PAYLOAD_FILE": str(tmp_path / "payload.json")},
        token_budget=60,
    )
    # Over budget before the second call: compact_before, a stub summary in
    # place of the conversation, compact_after; the system prompt stays.
    assert s.agent.compactions >= 1
    assert s.seen(1)[0]["role"] == "system"
    assert texts(s.seen(1)[1])[0].startswith("Summary of 3 earlier messages (stub compaction).")
