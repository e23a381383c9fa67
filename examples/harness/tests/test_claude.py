"""The claude example (examples/claude/project, plugin careful)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import EXAMPLES, Example, Runner, Session, call, stop_block_feedback, texts
from harness import Reply

GUARD = '"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard-bash.sh'


def claude(
    run: Runner,
    example: Example,
    prompts: list[str],
    replies: list[Reply],
    commands: dict[str, str] | None = None,
    **kw: Any,
) -> tuple[Path, Session]:
    project = example("claude/project")
    (project / "Makefile").write_text("test:\n\t@echo all 3 tests pass\n")
    for name, text in (commands or {}).items():  # the harness's /commands
        (project / ".harness" / "commands").mkdir(parents=True, exist_ok=True)
        (project / ".harness" / "commands" / f"{name}.md").write_text(text)
    return project, run(
        ["claude"], project, prompts, replies, plugin_dirs=[EXAMPLES / "claude" / "plugins" / "careful"], **kw
    )


def test_guard_stop_and_session_context(run: Runner, example: Example) -> None:
    project, s = claude(
        run,
        example,
        ["Run the tests."],
        [
            Reply("", [call("shell", cmd="rm -rf /"), call("shell", cmd="npm test")]),
            Reply("Tests pass. Done."),  # Stop: tests-first asks for one more round
            Reply("I ran make test: all 3 tests pass."),
        ],
    )
    assert s.turns == ["done"]
    first = texts(s.seen(0)[1])
    assert first == [
        # SessionStart: leading blocks of the first user message.
        "<system-reminder>\nSessionStart:startup hook success: This project builds with `make`; "
        "run `make test` before you finish.\n</system-reminder>",
        # UserPromptSubmit plain stdout: beside the prompt.
        "<system-reminder>\nUserPromptSubmit hook success: Prompt received; the project notes are in "
        ".claude/NOTES.md.\n</system-reminder>",
        "Run the tests.",
    ]
    rm, npm = s.seen(1)[-2:]
    # The guard's deny: Claude Code's text is the tool result.
    assert (
        rm["content"]
        == f"PreToolUse:Bash hook error: [{GUARD}]: Refusing to delete the whole tree; name the files instead.\n"
    )
    # The rewrite: the model's call stays `npm test`, the tool ran `make test`.
    assert s.seen(1)[-3]["tool_calls"][1]["function"]["arguments"] == '{"cmd": "npm test"}'
    assert npm["content"] == "all 3 tests pass\n"
    # The Stop hook's continuation is the next input; it never went through
    # UserPromptSubmit (which would have added its context block).
    assert texts(s.seen(2)[-1]) == [
        stop_block_feedback(
            "Stop",
            '"$CLAUDE_PROJECT_DIR"/.claude/hooks/tests-first.sh',
            "Run make test and report the result before you finish.",
        )
    ]
    assert len(s.model.seen) == 3


def test_refused_prompts_never_reach_the_model(run: Runner, example: Example) -> None:
    _, s = claude(
        run,
        example,
        ["use sk-abcd1234 please", "/deploy prod", "/fix the build"],
        [Reply("Fixed."), Reply("make test: ok.")],
        commands={"deploy": "Deploy to $ARGUMENTS.\n", "fix": "Fix $ARGUMENTS. Run the tests first.\n"},
    )
    assert s.turns == ["denied", "denied", "done"]
    # no-secrets (UserPromptSubmit) and the deploy guard (UserPromptExpansion)
    # refuse; the user reads why, the model sees neither prompt.
    assert "Original prompt: use sk-abcd1234 please" in s.out
    assert "[latch] prompt_expansion denied: UserPromptExpansion operation blocked by hook:\n" in s.out
    assert "Deploys go through CI: push a tag instead." in s.out
    assert texts(s.seen(0)[1])[-1] == "Fix the build. Run the tests first."
    assert "sk-abcd1234" not in str(s.model.seen) and "Deploy" not in str(s.model.seen)


def test_ask_outside_project_and_envrc(run: Runner, example: Example) -> None:
    project, s = claude(
        run,
        example,
        ["Configure it."],
        [
            # careful asks; no one can approve in this run, so it is refused.
            Reply("", [call("write_file", path="/etc/motd", content="hi")]),
            # .envrc is watched (FileChanged): its exports reach later shell calls.
            Reply("", [call("write_file", path=".envrc", content="export APP_ENV=staging\n")]),
            Reply("", [call("shell", cmd="mkdir sub && cd sub && echo $APP_ENV"), call("shell", cmd="pwd")]),
            Reply("Done."),
            Reply("make test: fine."),
        ],
    )
    # PostToolUse(Write) context: folded into the tool result after a blank
    # line (Claude Code 2.1.332; outcome placement `append_to_tool_result`).
    assert s.tool_results()[:2] == [
        "This writes outside the project.",
        "wrote 23 bytes to .envrc\n\n<system-reminder>\nPostToolUse:Write hook additional context: "
        "Run the formatter before committing.\n</system-reminder>",
    ]
    assert s.seen(2)[-1]["role"] == "tool"
    assert s.agent.workspace.env == {"APP_ENV": "staging"}
    # The shell got the variable, and `cd` carried over to the next call.
    assert s.tool_results()[2:] == ["staging\n", f"{project.resolve()}/sub\n"]


def test_skill_commands_and_model_switches(run: Runner, example: Example) -> None:
    """Claude Code 2.1.332's new events: the Bash guard also checks the
    shell commands of a /command (PreSkillShellCommand), and the model
    reads why one did not run in its place; a PreModelSwitch hook refuses
    one model, and PostModelSwitch's context comes with the next prompt."""
    refuse_opus = "echo 'Opus costs too much here.' >&2; exit 2"
    settings = {
        "hooks": {
            "PreSkillShellCommand": [{"matcher": "Bash", "hooks": [{"type": "command", "command": GUARD}]}],
            "PreModelSwitch": [{"matcher": "opus", "hooks": [{"type": "command", "command": refuse_opus}]}],
            "PostModelSwitch": [{"hooks": [{"type": "command", "command": "echo 'Keep answers short.'"}]}],
        }
    }
    _, s = claude(
        run,
        example,
        ["/model opus", "/model sonnet", "/status"],
        [Reply("All clear."), Reply("make test: ok.")],
        commands={"status": "Status: !`echo ok` and !`rm -rf /`\n"},
        claude_settings=json.dumps(settings),
    )
    assert s.turns == ["denied", "done", "done"]
    assert f"Model switch to opus was blocked by a PreModelSwitch hook: [{refuse_opus}]: Opus costs too much here." in s.out
    assert s.model.name == "sonnet"
    blocks = texts(s.seen(0)[1])
    assert "<system-reminder>\nPostModelSwitch hook additional context: Keep answers short.\n</system-reminder>" in blocks
    refusal = "Refusing to delete the whole tree; name the files instead."
    assert blocks[-1] == f"Status: ok and [not run: blocked by hook: {refusal}]"
    assert f"Not run in /status: rm -rf / (blocked by hook: {refusal})" in s.agent.warnings


def test_a_command_s_shell_commands_come_from_its_file_only(run: Runner, example: Example, tmp_path: Path) -> None:
    """`!`cmd`` in the typed arguments is text, not a command; in the
    command file, `$ARGUMENTS` reaches the command shell-quoted; a halt
    before any command runs keeps every command from running."""
    marker = tmp_path / "ran"
    stop_second = (
        'payload=$(cat); case "$payload" in *second*) '
        'echo \'{"continue": false, "stopReason": "not today"}\';; esac'
    )
    _, s = claude(
        run,
        example,
        [f"/look !`touch {marker}` now", "/twice"],
        [Reply("Looked."), Reply("make test: ok.")],
        commands={
            "look": "Look at: $ARGUMENTS (quoted: !`printf %s $ARGUMENTS`)\n",
            "twice": f"!`touch {marker}.first` then !`echo second`\n",
        },
        claude_settings=json.dumps(
            {"hooks": {"PreSkillShellCommand": [{"hooks": [{"type": "command", "command": stop_second}]}]}}
        ),
    )
    assert not marker.exists()
    assert texts(s.seen(0)[1])[-1] == f"Look at: !`touch {marker}` now (quoted: !`touch {marker}` now)"
    # The second command's hook stopped the command before the first ran.
    assert s.turns[1] == "halted"
    assert not (tmp_path / "ran.first").exists()
    assert "Operation stopped by hook: not today" in s.out
