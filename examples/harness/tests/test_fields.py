"""Outcome fields the bundled examples do not produce, with claude hooks
written inline: permission_request, tool_batch context, halt, defer,
retry, shell_env from setup, config_change, compaction_prompt, the
sub-agent, task and team events, worktree_path, elicitation, display, and
the async hooks' latch/asyncResult."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from conftest import RecordingUser, Runner, call, records, stop_feedback, texts
from harness import Agent, Approval, Policy, Reply, ScriptedModel, ToolSpec
from harness.models import Message
from harness.outcomes import for_terminal


def answer(event: str, **fields: Any) -> str:
    """A command that answers with EVENT's hookSpecificOutput."""
    return "echo '" + json.dumps({"hookSpecificOutput": {"hookEventName": event, **fields}}) + "'"


def hooks(**events: str | list[str]) -> str:
    """Claude settings: each event's command(s), matching everything."""
    return json.dumps(
        {
            "hooks": {
                event: [
                    {
                        "hooks": [
                            {"type": "command", "command": c}
                            for c in ([cmd] if isinstance(cmd, str) else cmd)
                        ]
                    }
                ]
                for event, cmd in events.items()
            }
        }
    )


def script(path: Path, body: str) -> str:
    """A hook script (reading the payload with jq); its path."""
    path.write_text("#!/bin/sh\nset -eu\npayload=$(cat)\n" + body)
    path.chmod(0o755)
    return str(path)


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

    def ask_user(request: Approval) -> bool:
        asked.append(request.action)
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
            Reply("Back again."),  # the next prompt's turn
        ],
        claude_settings=json.dumps(SETTINGS),
        policy=Policy(ask=frozenset({"shell"}), approver=ask_user),
    )
    assert asked == []
    assert s.turns == ["halted", "done"]  # a halt ends the turn; the next prompt is a new one
    assert "[latch] stopped by a hook: enough for today" in s.out  # for the user, never the model
    assert s.agent.halted is None  # cleared when the next turn started
    shell, write = s.seen(1)[-2:]
    assert shell["content"] == "approved by hook\n"
    # PostToolBatch context: at the end of the batch's last tool result.
    assert write["content"] == (
        "wrote 1 bytes to a.txt\n\n"
        "<system-reminder>\nPostToolBatch hook additional context: batch checked\n</system-reminder>"
    )
    assert len(s.model.seen) == 3
    assert "enough for today" not in str(s.model.seen)
    assert texts(s.seen(0)[1]) == ["Go."]
    # The next turn: the halted batch's results, then the new prompt.
    assert s.seen(2)[-2]["content"] == "approved by hook\n"  # `echo halt-now`, as the hook rewrote it
    assert texts(s.seen(2)[-1]) == ["Again."]


def test_permission_updates_allow_a_tool_for_the_session(run: Runner, tmp_path: Path) -> None:
    """A PermissionRequest hook that takes the offered rule (the tool, for the
    session): the next call of that tool is not asked about again."""
    project = tmp_path / "project"
    project.mkdir()
    seen = tmp_path / "asked.jsonl"
    take_offer = script(
        tmp_path / "take-offer.sh",
        f'echo "$payload" >> {seen}\n'
        "echo \"$payload\" | python3 -c 'import json, sys; p = json.load(sys.stdin); "
        'print(json.dumps({"hookSpecificOutput": {"hookEventName": "PermissionRequest", '
        '"decision": {"behavior": "allow", "updatedPermissions": p["permission_suggestions"]}}}))\'\n',
    )
    s = run(
        ["claude"],
        project,
        ["Go."],
        [
            Reply("", [call("shell", cmd="echo one")]),
            Reply("", [call("shell", cmd="echo two")]),
            Reply("Done."),
        ],
        claude_settings=hooks(PermissionRequest=take_offer),
        policy=Policy(ask=frozenset({"shell"}), approver=lambda request: False),
    )
    asked = [json.loads(line) for line in seen.read_text().splitlines()]
    assert len(asked) == 1  # the second call needed no approval
    assert asked[0]["permission_suggestions"] == [
        {"type": "addRules", "rules": [{"toolName": "Bash"}], "behavior": "allow", "destination": "session"}
    ]
    assert [m["content"] for m in s.seen(2)[-1:]] == ["two\n"]


def test_defer_retry_setup_settings_and_compaction(run: Runner, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    log = tmp_path / "events.jsonl"
    defer = answer("PreToolUse", permissionDecision="defer")
    allow = answer("PreToolUse", permissionDecision="allow")
    retry = answer("PermissionDenied", retry=True)
    settings = hooks(
        # Setup exports a variable for the shell tool (shell_env).
        Setup="echo 'export GREETING=hello' >> \"$CLAUDE_ENV_FILE\"",
        # A release waits for a human: the call is deferred. Reading the
        # greeting needs no approval.
        PreToolUse=script(
            tmp_path / "pre.sh",
            f'if echo "$payload" | grep -q "make release"; then {defer}\n'
            f'elif echo "$payload" | grep -q GREETING; then {allow}; fi\n',
        ),
        # The automatic check refused; `make` may be tried again, nothing else.
        PermissionDenied=script(
            tmp_path / "retry.sh",
            f'echo "$payload" >> {log}\necho "$payload" | grep -q make && {retry} || true\n',
        ),
        # The agent may not change its own permission settings.
        ConfigChange="echo 'settings are read-only for the agent' >&2; exit 2",
        # Plain PreCompact output joins the summary request's instructions.
        PreCompact="echo 'Keep the file names.'",
        Stop=f"cat >> {log}",
    )

    def setup(agent: Agent) -> None:
        agent.setup("init")

    s = run(
        ["claude"],
        project,
        ["Build it.", "/compact keep it short", "Release it."],
        [
            Reply(
                "",
                [
                    call("shell", cmd="echo $GREETING"),  # allowed by the hook
                    call("shell", cmd="make build"),  # shell needs approval; no one approves
                    call("shell", cmd="rm -r build"),
                    call("write_file", path=".harness/settings.json", content='{"ask": []}'),
                ],
            ),
            Reply("", [call("shell", cmd="make build"), call("shell", cmd="rm -r build")]),
            Reply("Could not build."),
            Reply("Summary: the build needs approval."),  # /compact
            Reply(
                "", [call("write_file", path="notes.txt", content="go"), call("shell", cmd="make release")]
            ),
            Reply("never sent"),
        ],
        claude_settings=settings,
        before=setup,
        policy=Policy(ask=frozenset({"shell"})),
    )
    assert s.turns == ["done", "done", "deferred"]
    # setup: the init wrote default settings, and its hook's export reached the shell.
    assert s.agent.workspace.env == {"GREETING": "hello"}
    assert json.loads((project / ".harness" / "settings.json").read_text()) == {"ask": []}
    # ... but the agent's rewrite of them was refused: shell still asks.
    assert s.agent.settings == {"ask": []}
    assert "settings are read-only" in s.out
    results = [m["content"] for m in s.seen(1) if m["role"] == "tool"]
    assert results == [
        "hello\n",  # shell_env
        "shell needs the user's approval, and no one can give it in this run.",
        "shell needs the user's approval, and no one can give it in this run.",
        "wrote 11 bytes to .harness/settings.json",
    ]
    # PermissionDenied's retry: the hint follows the results, and the retried
    # `make build` went through the check again; `rm -r build` did not.
    assert texts(s.seen(1)[-1]) == [
        "<system-reminder>\nThe refusal above is not final for this call: the PermissionDenied hook set up for "
        "this session allows one more try, which goes through the same permission check. If the user asked for "
        "what this call does, make it again now. If they did not, leave it, and in your next words to them say "
        "that you made this call without being asked and that it was refused before it ran; then go on with what "
        "they did ask for.\n</system-reminder>"
    ]
    retried = [m["content"] for m in s.seen(2) if m["role"] == "tool"][-2:]
    assert retried == [
        "shell needs the user's approval, and no one can give it in this run.",
        "This call was refused before, and is refused again without asking.",
    ]
    denied = [r["tool_input"]["command"] for r in records(log) if r["hook_event_name"] == "PermissionDenied"]
    assert denied == ["make build", "rm -r build", "make build"]
    # /compact: the summary request has the user's and the hook's instructions.
    request = texts(s.seen(3)[-1])[0]
    assert request.endswith("Additional Instructions:\nkeep it short\nKeep the file names.")
    assert s.model.tools[3] == []  # a summary, not a tool call
    assert [texts(m) for m in s.seen(4)[1:]] == [["Summary: the build needs approval."], ["Release it."]]
    # defer: the write ran, `make release` did not, and the turn ended
    # there: no further model call, no Stop (the first turn's only).
    assert (project / "notes.txt").exists()
    assert s.out.endswith('[tool] shell {"cmd": "make release"}\n')
    assert len(s.model.seen) == 5
    assert [r["hook_event_name"] for r in records(log)].count("Stop") == 1


def test_subagent_tasks_and_team(run: Runner, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    once = tmp_path / "once"
    # The sub-agent's first stop, and the teammate's first idle, go on.
    sub_stop = f"test -e {once}-sub || {{ touch {once}-sub; echo 'Also check the tests.' >&2; exit 2; }}"
    idle = f"test -e {once}-idle || {{ touch {once}-idle; echo 'Take the next task.' >&2; exit 2; }}"
    settings = hooks(
        SubagentStart=answer("SubagentStart", additionalContext="Work read-only."),
        SubagentStop=sub_stop,
        TeammateIdle=idle,
        TaskCreated=script(
            tmp_path / "task.sh",
            'echo "$payload" | jq -e \'.task_subject | test("deploy")\' >/dev/null || exit 0\n'
            "echo 'no deploy tasks' >&2; exit 2\n",
        ),
        TaskCompleted="echo 'the tests are not green yet' >&2; exit 2",
        PostToolUseFailure=f"cat >> {tmp_path / 'failed.jsonl'}",
    )
    s = run(
        ["claude"],
        project,
        ["Plan the work."],
        [
            Reply("", [call("delegate", prompt="Review main.py.")]),
            Reply("main.py is fine."),  # sub-agent: SubagentStop goes on
            Reply("The tests are fine too."),  # sub-agent: settles
            Reply(
                "",
                [
                    call("create_task", subject="Write tests", description="for main.py"),
                    call("create_task", subject="deploy to prod"),
                    call("complete_task", id="1"),
                ],
            ),
            Reply("Planned."),  # Stop; TeammateIdle goes on
            Reply("Nothing else to take."),
        ],
        claude_settings=settings,
        team={"team_name": "core", "teammate_name": "ada"},
    )
    assert s.turns == ["done"]
    # SubagentStart context leads the sub-agent's first message; the
    # sub-agent has no delegate tool.
    assert texts(s.seen(1)[1]) == [
        "<system-reminder>\nSubagentStart hook additional context: Work read-only.\n</system-reminder>",
        "Review main.py.",
    ]
    assert "delegate" in s.model.tools[0] and "delegate" not in s.model.tools[1]
    # SubagentStop's continuation: the sub-agent's next input; its last
    # answer is the delegate tool's result.
    assert texts(s.seen(2)[-1]) == [stop_feedback(f"[{sub_stop}]: Also check the tests.\n")]
    assert s.seen(3)[-1] == {"role": "tool", "tool_call_id": "call_1_0", "content": "The tests are fine too."}
    # TaskCreated deny: no task, the hook's text is the (failed) result;
    # TaskCompleted deny: the task stays open.
    assert [m["content"] for m in s.seen(4)[-3:]] == [
        "created task 1: Write tests",
        f"TaskCreated hook feedback:\n[{tmp_path / 'task.sh'}]: no deploy tasks\n",
        "TaskCompleted hook feedback:\n[echo 'the tests are not green yet' >&2; exit 2]: the tests are not green yet\n",
    ]
    assert list(s.agent.tasks) == ["1"] and s.agent.done == set()
    # Both denied task tools failed (PostToolUseFailure, not PostToolUse).
    failed = records(tmp_path / "failed.jsonl")
    assert [r["tool_use_id"] for r in failed] == ["call_4_1", "call_4_2"]
    # TeammateIdle's continuation: one more round before going idle.
    assert texts(s.seen(5)[-1]) == [f"TeammateIdle hook feedback:\n[{idle}]: Take the next task.\n"]
    assert len(s.model.seen) == 6


def test_worktree_elicitation_and_display(run: Runner, tmp_path: Path) -> None:
    project, worktree = tmp_path / "project", tmp_path / "wt-feature"
    project.mkdir()
    settings = hooks(
        # The hook makes the worktree (its last line is the path), and removes it.
        WorktreeCreate=f"mkdir -p {worktree} && echo made it && echo {worktree}",
        WorktreeRemove=script(tmp_path / "rm.sh", 'rm -r "$(echo "$payload" | jq -r .worktree_path)"\n'),
        # A question about colour is answered by the hook, never the user ...
        Elicitation=script(
            tmp_path / "elicit.sh",
            'echo "$payload" | grep -q colour || exit 0\n'
            + answer("Elicitation", action="accept", content={"answer": "blue"})
            + "\n",
        ),
        # ... and an answer that gives a secret away is declined.
        ElicitationResult=script(
            tmp_path / "result.sh",
            'echo "$payload" | jq -e \'.content.answer == "hunter2"\' >/dev/null || exit 0\n'
            + answer("ElicitationResult", action="decline")
            + "\n",
        ),
        MessageDisplay=answer("MessageDisplay", displayContent="[redacted for the screen]"),
    )
    asked: list[str] = []

    def user(question: str) -> str:
        asked.append(question)
        return "hunter2"

    s = run(
        ["claude"],
        project,
        ["Set it up."],
        [
            Reply(
                "The token is hunter2.",
                [
                    call("ask_user", question="Which colour?"),
                    call("ask_user", question="The password?"),
                    call("write_file", path="colour.txt", content="blue\n"),
                    call("shell", cmd="pwd"),
                ],
            ),
            Reply("Done."),
        ],
        claude_settings=settings,
        before=lambda agent: None if agent.create_worktree("feature") is None else pytest.fail("no worktree"),
        policy=Policy(answerer=user),
    )
    assert s.turns == ["done"]
    # worktree_path: the agent worked in the hook's worktree, which the
    # hook removed again at the end.
    assert f"[latch] working in the worktree {worktree}" in s.out
    assert [m["content"] for m in s.seen(1)[-4:]] == [
        "blue",  # the hook's answer; the user was not asked
        "The user did not answer (decline).",  # the user's answer, declined by the hook
        "wrote 5 bytes to colour.txt",
        f"{worktree}\n",
    ]
    assert asked == ["The password?"]
    assert not worktree.exists() and not (project / "colour.txt").exists()
    # display: the user saw the hook's text, the model keeps its own.
    assert "[assistant] [redacted for the screen]" in s.out and "hunter2." not in s.out
    assert s.seen(1)[2]["content"] == "The token is hunter2."


class WaitsForAsync:
    """A scripted model that, before its second answer, waits until the
    async hook started by the first tool call has reported."""

    name = "scripted"

    def __init__(self, scripted: ScriptedModel, agents: list[Agent]) -> None:
        self.scripted, self.agents = scripted, agents

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> Reply:
        inbox = self.agents[0].inbox
        deadline = time.monotonic() + 10
        while len(self.scripted.seen) == 1 and inbox is not None and inbox.empty():
            assert time.monotonic() < deadline, "no latch/asyncResult"
            time.sleep(0.02)
        return self.scripted.complete(messages, tools)


def test_async_hook_result(run: Runner, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    lint = script(tmp_path / "lint.sh", answer("PostToolUse", additionalContext="lint: 0 problems") + "\n")
    settings = {
        "hooks": {
            "PostToolUse": [
                {"matcher": "Write", "hooks": [{"type": "command", "command": lint, "async": True}]}
            ]
        }
    }
    scripted = ScriptedModel(
        [
            Reply("", [call("write_file", path="a.py", content="x = 1\n")]),
            Reply("", [call("shell", cmd="echo next")]),
            Reply("Done."),
        ]
    )
    agents: list[Agent] = []
    s = run(
        ["claude"],
        project,
        ["Write it."],
        [],
        claude_settings=json.dumps(settings),
        model=WaitsForAsync(scripted, agents),
        before=agents.append,
    )
    assert s.turns == ["done"]
    # The user is told when it finished; the model reads its answer with
    # the next tool result (any tool's), after a blank line.
    assert [(r["hook"], r["event"], r["texts"]) for r in s.agent.async_results] == [
        (lint, "PostToolUse", ["<system-reminder>\nlint: 0 problems\n</system-reminder>"])
    ]
    assert f"[latch] async hook {lint} (PostToolUse) finished" in s.out
    results = [m["content"] for m in scripted.seen[2] if m["role"] == "tool"]
    assert results == [
        "wrote 6 bytes to a.py",
        "next\n\n<system-reminder>\nlint: 0 problems\n</system-reminder>",
    ]


def test_a_prompt_stopped_by_a_hook_stays_in_the_conversation(run: Runner, tmp_path: Path) -> None:
    """claude `continue: false` on UserPromptSubmit: no model call, and the
    prompt and `Operation stopped by hook: …` stay in the conversation, as
    Claude Code keeps them (recorded: r13_ups_continue_false_then_prompt;
    2.1.332 keeps the text in a reminder that says it is a hook's). The
    stop ends that turn only: the next prompt is answered, and the model
    reads the stopped prompt with it."""
    project = tmp_path / "project"
    project.mkdir()
    stop = "grep -q Deploy && echo '" + json.dumps({"continue": False, "stopReason": "quiet hours"}) + "' || true"
    s = run(
        ["claude"],
        project,
        ["Deploy now.", "What time is it?"],
        [Reply("Noon.")],
        claude_settings=hooks(UserPromptSubmit=stop),
    )
    assert s.turns == ["halted", "done"]
    assert len(s.model.seen) == 1  # the second prompt's turn only
    assert "[latch] Operation stopped by hook: quiet hours" in s.out
    users = [texts(m) for m in s.seen(0) if m["role"] == "user"]
    kept = (
        "<system-reminder>\nThe text below is the output of a hook, not a message from the user.\n"
        "Operation stopped by hook: quiet hours\n</system-reminder>"
    )
    assert users == [["Deploy now."], [kept], ["What time is it?"]]
    assert "quiet hours" not in s.seen(0)[0]["content"]  # the reason is not the model's


def test_a_command_stopped_by_a_hook_runs_none_of_its_commands(run: Runner, tmp_path: Path) -> None:
    """claude `continue: false` on UserPromptExpansion: like a stopped
    prompt, and the command's `!`cmd` never run; nothing of the turn
    (SessionStart aside, which came before) fires."""
    project = tmp_path / "project"
    (project / ".harness" / "commands").mkdir(parents=True)
    (project / ".harness" / "commands" / "go.md").write_text("Go to $ARGUMENTS. !`touch ran.txt`\n")
    log = tmp_path / "events.jsonl"
    stop = "echo '" + json.dumps({"continue": False, "stopReason": "not now"}) + "'"
    record = f"cat >> {log}"
    s = run(
        ["claude"],
        project,
        ["/go prod", "Status?"],
        [Reply("All quiet.")],
        claude_settings=hooks(
            UserPromptExpansion=stop, SessionStart=record, PreSkillShellCommand=record, UserPromptSubmit=record
        ),
    )
    assert s.turns == ["halted", "done"]
    assert not (project / "ran.txt").exists()
    assert "[latch] Operation stopped by hook: not now" in s.out
    fired = [r["hook_event_name"] for r in records(log)]
    assert fired == ["SessionStart", "UserPromptSubmit", "UserPromptSubmit"]
    kept = (
        "<system-reminder>\nThe text below is the output of a hook, not a message from the user.\n"
        "Operation stopped by hook: not now\n</system-reminder>"
    )
    # The command is kept as typed (it never expanded), then the hook's text.
    users = [texts(m) for m in s.seen(0) if m["role"] == "user"]
    assert users == [["/go prod"], [kept], ["Status?"]]


def test_session_title_first_message_and_terminal_sequences(run: Runner, tmp_path: Path) -> None:
    """claude `sessionTitle`, `initialUserMessage`, `reloadSkills` and
    `terminalSequence` on SessionStart: the harness keeps the title and
    sends it back with the next prompt, puts the first message before the
    prompt, and writes no sequence to a transcript that is not a terminal."""
    project = tmp_path / "project"
    project.mkdir()
    seen = tmp_path / "ups.jsonl"
    start = (
        "echo '"
        + json.dumps(
            {
                "terminalSequence": "\u001b]0;working\u0007",
                "hookSpecificOutput": {
                    "hookEventName": "SessionStart",
                    "sessionTitle": "Fix the build",
                    "initialUserMessage": "Read NOTES.md first.",
                    "reloadSkills": True,
                },
            }
        )
        + "'"
    )
    s = run(
        ["claude"],
        project,
        ["one", "two"],
        [Reply("Read it."), Reply("first"), Reply("second")],
        claude_settings=hooks(SessionStart=start, UserPromptSubmit=f"cat >> {seen}"),
    )
    assert s.turns == ["done", "done"]
    assert s.agent.title == "Fix the build"
    assert "session titled 'Fix the build'" in s.out
    # SessionStart came first (Claude Code's order): its first message is
    # a prompt of its own, answered before the user's, and every prompt
    # reads the title.
    assert [r["prompt"] for r in records(seen)] == ["Read NOTES.md first.", "one", "two"]
    assert [r.get("session_title") for r in records(seen)] == ["Fix the build"] * 3
    assert [texts(m) for m in s.seen(0) if m["role"] == "user"] == [["Read NOTES.md first."]]
    assert [texts(m) for m in s.seen(1) if m["role"] == "user"] == [["Read NOTES.md first."], ["one"]]
    assert "\u001b]" not in s.out


def test_terminal_sequences_for_the_terminal() -> None:
    """latch gives Claude Code's plain form; the harness adds kitty's OSC
    ending and tmux's and screen's passthrough, as Claude Code does."""
    title, bell = "\u001b]0;working\u0007", "\u0007"
    assert for_terminal(title, {"TERM": "xterm-256color"}) == title
    assert for_terminal(title, {"TERM": "xterm-kitty"}) == "\u001b]0;working\u001b\\"
    assert for_terminal(title, {"TMUX": "/tmp/tmux-0/default,1,0"}) == "\u001bPtmux;\u001b\u001b]0;working\u0007\u001b\\"
    assert for_terminal(title, {"STY": "1.pts-0.host"}) == "\u001bP\u001b]0;working\u0007\u001b\\"
    assert for_terminal(bell, {"TMUX": "/tmp/tmux-0/default,1,0"}) == bell


def test_a_halt_in_a_sub_agent_is_the_users_alone(run: Runner, tmp_path: Path) -> None:
    """claude `continue: false` inside a sub-agent ends the whole turn, as
    a deferred call does: the delegate call reads a neutral result, and
    its `stopReason`, for the user only, reaches neither the model nor a
    hook (no PostToolUseFailure carries it)."""
    project = tmp_path / "project"
    project.mkdir()
    log = tmp_path / "post.jsonl"
    halt = "echo '" + json.dumps({"continue": False, "stopReason": "SECRET-FOR-THE-USER"}) + "'"
    s = run(
        ["claude"],
        project,
        ["Delegate it.", "Next."],
        [
            Reply("", [call("delegate", prompt="Look around."), call("shell", cmd="echo later > later.txt")]),
            Reply("Next done."),
        ],
        claude_settings=hooks(SubagentStart=halt, PostToolUse=f"cat >> {log}", PostToolUseFailure=f"cat >> {log}"),
    )
    assert s.turns == ["halted", "done"]
    assert "[agent-1:latch] stopped by a hook: SECRET-FOR-THE-USER" in s.out
    assert len(s.model.seen) == 2  # the sub-agent's model was never called
    assert [m["content"] for m in s.seen(1) if m["role"] == "tool"] == [
        "not finished: a hook stopped the turn",
        "not run: a hook halted the turn",
    ]
    assert not (project / "later.txt").exists()
    assert "SECRET" not in json.dumps(s.model.seen)
    assert records(log) == []


def test_a_refused_prompt_keeps_what_earlier_events_left(run: Runner, tmp_path: Path) -> None:
    """A refused `/command` drops what its own turn added (its prompt's
    UserPromptSubmit context), not what earlier events left for the next
    message (PostModelSwitch's context)."""
    project = tmp_path / "project"
    (project / ".harness" / "commands").mkdir(parents=True)
    (project / ".harness" / "commands" / "deploy.md").write_text("Deploy to $ARGUMENTS.\n")
    s = run(
        ["claude"],
        project,
        ["/model big", "/deploy prod", "Hello."],
        [Reply("Hi.")],
        claude_settings=hooks(
            PostModelSwitch=answer("PostModelSwitch", additionalContext="switched models"),
            UserPromptSubmit=answer("UserPromptSubmit", additionalContext="for this prompt only"),
            UserPromptExpansion="echo 'no deploys' >&2; exit 2",
        ),
    )
    assert s.turns == ["done", "denied", "done"]
    blocks = texts(s.seen(0)[-1])
    assert blocks[-1] == "Hello."
    assert any("switched models" in b for b in blocks)  # left by /model, two prompts before
    assert len([b for b in blocks if "for this prompt only" in b]) == 1  # "Hello."'s, not /deploy's


@pytest.mark.parametrize("dialects", [["claude"], ["claude", "peen"]])
def test_a_halt_on_session_start_ends_the_first_turn(run: Runner, tmp_path: Path, dialects: list[str]) -> None:
    """claude `continue: false` on SessionStart: the first prompt is not
    run, before (Claude Code's order) or after its user_prompt (with
    peen loaded); the next prompt is."""
    project = tmp_path / "project"
    project.mkdir()
    halt = "echo '" + json.dumps({"continue": False, "stopReason": "maintenance window"}) + "'"
    s = run(dialects, project, ["Hello.", "Again."], [Reply("Answered.")], claude_settings=hooks(SessionStart=halt))
    assert s.turns == ["halted", "done"]
    assert "[latch] stopped by a hook: maintenance window" in s.out
    assert len(s.model.seen) == 1
    assert [texts(m) for m in s.seen(0) if m["role"] == "user"] == [["Again."]]
    assert "maintenance window" not in json.dumps(s.model.seen)


def test_a_stopped_prompt_comes_after_what_earlier_events_left(run: Runner, tmp_path: Path) -> None:
    """A prompt stopped by a hook takes what earlier events left for the
    next user message (PostModelSwitch's context) with it, in order:
    before itself, not after."""
    project = tmp_path / "project"
    project.mkdir()
    stop = "grep -q Deploy && echo '" + json.dumps({"continue": False, "stopReason": "quiet hours"}) + "' || true"
    s = run(
        ["claude"],
        project,
        ["/model big", "Deploy now.", "What now?"],
        [Reply("Wait.")],
        claude_settings=hooks(
            PostModelSwitch=answer("PostModelSwitch", additionalContext="switched models"),
            UserPromptSubmit=stop,
        ),
    )
    assert s.turns == ["done", "halted", "done"]
    users = [texts(m) for m in s.seen(0) if m["role"] == "user"]
    assert len(users) == 3
    assert ["switched models" in b for b in users[0]] == [True, False] and users[0][-1] == "Deploy now."
    assert users[2] == ["What now?"]


PEEN_REFUSE_FIRST_TURN = """\
version: 1
turnStart:
  - name: not-yet
    actions:
      - type: command
        command: /bin/sh
        args: ["-c", "[ -e refused ] || { touch refused; exit 1; }"]
"""


def test_a_refused_first_turn_leaves_nothing_in_peens_order(run: Runner, tmp_path: Path) -> None:
    """With peen loaded, the first turn's session_start comes after its
    user_prompt; when turn_start then refuses the turn, neither that
    prompt's context nor SessionStart's initialUserMessage stays in the
    conversation."""
    project = tmp_path / "project"
    (project / ".agents").mkdir(parents=True)
    (project / ".agents" / "hooks.yaml").write_text(PEEN_REFUSE_FIRST_TURN)
    s = run(
        ["claude", "peen"],
        project,
        ["First.", "Second."],
        [Reply("Answered.")],
        claude_settings=hooks(
            SessionStart=answer("SessionStart", initialUserMessage="Read NOTES."),
            UserPromptSubmit=answer("UserPromptSubmit", additionalContext="for this prompt"),
        ),
    )
    assert s.turns == ["failed", "done"]
    users = [texts(m) for m in s.seen(0) if m["role"] == "user"]
    assert len(users) == 1 and users[0][-1] == "Second."
    assert len([b for b in users[0] if "for this prompt" in b]) == 1
    assert "Read NOTES." not in json.dumps(s.seen(0))


def test_model_asks_the_user_like_a_tool(run: Runner, tmp_path: Path) -> None:
    """A PreModelSwitch `ask`: the user is asked as for a tool, after the
    permission_prompt notification."""
    project = tmp_path / "project"
    project.mkdir()
    log = tmp_path / "notifications.jsonl"
    user = RecordingUser(True)

    s = run(
        ["claude"],
        project,
        ["/model big"],
        [],
        claude_settings=hooks(
            PreModelSwitch=answer("PreModelSwitch", permissionDecision="ask", permissionDecisionReason="it costs more"),
            Notification=f"cat >> {log}",
        ),
        policy=Policy(approver=user),
    )
    assert s.turns == ["done"] and s.model.name == "big"
    assert user.asked == [Approval("/model", {"model": "big"}, ("it costs more",))]
    assert [(r["notification_type"], r["message"]) for r in records(log)] == [
        ("permission_prompt", "The agent needs your permission to use /model: it costs more")
    ]


@pytest.mark.parametrize("dialects", [["claude"], ["claude", "peen"]])
def test_a_setup_halt_is_the_callers_in_either_order(run: Runner, tmp_path: Path, dialects: list[str]) -> None:
    """A Setup hook's halt stops the agent before any turn: the caller
    reads it (`halted`; the CLI then runs no prompt). A caller that runs a
    prompt anyway gets the same turn in either opening order."""
    project = tmp_path / "project"
    project.mkdir()
    halt = "echo '" + json.dumps({"continue": False, "stopReason": "not set up"}) + "'"
    halted: list[str | None] = []

    def set_up(agent: Agent) -> None:
        agent.setup("maintenance")
        halted.append(agent.halted)

    s = run(dialects, project, ["Hello."], [Reply("Hi.")], claude_settings=hooks(Setup=halt), before=set_up)
    assert halted == ["not set up"]
    assert s.turns == ["done"]


def test_ask_shows_the_hooks_reasons_to_the_user(run: Runner, tmp_path: Path) -> None:
    """A PreToolUse `ask`: the user is asked with the hook's reason, in the
    request the approver gets and in the permission_prompt notification."""
    project = tmp_path / "project"
    project.mkdir()
    log = tmp_path / "notifications.jsonl"
    user = RecordingUser(False)

    s = run(
        ["claude"],
        project,
        ["Drop it."],
        [Reply("", [call("shell", cmd="echo drop db")]), Reply("Not dropped.")],
        claude_settings=hooks(
            PreToolUse=answer("PreToolUse", permissionDecision="ask", permissionDecisionReason="check the backup"),
            Notification=f"cat >> {log}",
        ),
        policy=Policy(approver=user),
    )
    assert s.turns == ["done"]
    assert user.asked == [Approval("shell", {"cmd": "echo drop db"}, ("check the backup",))]
    assert [r["message"] for r in records(log)] == ["The agent needs your permission to use shell: check the backup"]
    assert s.tool_results() == ["The user did not allow shell."]
