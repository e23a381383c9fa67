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


SETTINGS = """\
hooks:
  UserPromptSubmit:
    - name: expand-pls
      matcher: "*"
      command: "jq -c '{hook_specific_output: {updated_prompt: (.prompt | sub(\\"^pls \\"; \\"Please \\"))}}'"
  PreCompact:
    - name: keep-policy
      matcher: "*"
      command: "echo '{\\"hook_specific_output\\": {\\"additional_context\\": \\"Still no sudo.\\"}}'"
"""


def test_prompt_rewrite_and_compaction(run: Runner, example: Example, tmp_path: Path) -> None:
    settings = tmp_path / "settings.yaml"  # the explicit level, on top of the example's
    settings.write_text(SETTINGS)
    s = run(
        ["poolside"],
        example("poolside"),
        ["pls count to 400", "/compact keep the count"],
        [
            Reply("", [call("shell", cmd="seq 1 400")]),
            Reply("Summary: counted to 400."),  # over budget: the summary
            Reply("Counted."),  # Stop: drive-once continues
            Reply("", [call("write_file", path="SUMMARY.md", content="Counted.\n")]),
            Reply("Summary written."),
            Reply("Summary: counted, wrote SUMMARY.md."),  # /compact
        ],
        env={"LOG_PAYLOAD_FILE": str(tmp_path / "payload.json")},
        config={"settings": settings},
        token_budget=300,
    )
    assert s.turns == ["done", "done"]
    # The rewritten prompt reached the model, with the rewrite notice.
    assert texts(s.seen(0)[1]) == [
        '<hook name="expand-pls" event="UserPromptSubmit">Rewrote the user\'s prompt.</hook>',
        "Please count to 400",
    ]
    # Over budget after the tool result: the model is asked for a summary
    # (no tools), which replaces the conversation, with PreCompact's
    # after_compaction context after it; the system prompt stays.
    assert texts(s.seen(1)[-1]) == [
        "Summarize the conversation so far for your own later use: the task, what was done, "
        "what is left, and every fact you still need. Answer with the summary only."
    ]
    assert s.model.tools[1] == []
    assert s.seen(2)[0] == s.seen(0)[0]
    assert texts(s.seen(2)[1]) == ["Summary: counted to 400.", "Still no sudo."]
    assert len(s.seen(2)) == 2
    # /compact with instructions: they end the summary request.
    assert texts(s.seen(5)[-1])[0].endswith("Additional Instructions:\nkeep the count")
    assert s.agent.messages == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Summary: counted, wrote SUMMARY.md."},
                {"type": "text", "text": "Still no sudo."},
            ],
        }
    ]
    assert s.agent.compactions == 2


def test_stop_notices_without_continuation(run: Runner, tmp_path: Path) -> None:
    """A Stop hook that fails lets the turn end; its failure notice is not
    dropped: the model reads it with the next prompt."""
    project = tmp_path / "project"
    project.mkdir()
    settings = tmp_path / "settings.yaml"
    settings.write_text('hooks:\n  Stop:\n    - name: flaky\n      matcher: "*"\n      command: "exit 1"\n')
    s = run(
        ["poolside"],
        project,
        ["One.", "Two."],
        [Reply("First."), Reply("Second.")],
        config={"settings": settings},
    )
    assert s.turns == ["done", "done"]
    notice, prompt = texts(s.seen(1)[-1])
    assert notice.startswith('<hook name="flaky" event="Stop">The hook failed and was skipped')
    assert prompt == "Two."
