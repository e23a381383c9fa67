"""The tools when things go wrong: what the system refuses is the tool's
failure (tool_failure fires), a removed working directory, a timed-out
shell's processes, and a turn that ends in the middle of a batch (a
deferred call, a Ctrl-C) leaving a conversation a model accepts; a Ctrl-C
during the session's start, before the model is called, while a tool or
its hooks run, or in the initial message's turn; a timeout per dialect;
a command's `!`cmd`` (hooks first, no `cd` kept); the shell's environment."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import Runner, call, records, texts
from harness import Agent, Approval, Policy, Reply
from harness.models import Message


def hooks(**events: str) -> str:
    """Claude settings: each event's command, matching everything."""
    groups = {event: [{"hooks": [{"type": "command", "command": cmd}]}] for event, cmd in events.items()}
    return json.dumps({"hooks": groups})


def unanswered(conversation: list[Message]) -> list[str]:
    """The ids of tool calls with no tool message (an OpenAI endpoint
    refuses such a conversation)."""
    answered = {m["tool_call_id"] for m in conversation if m["role"] == "tool"}
    calls = [c["id"] for m in conversation if m["role"] == "assistant" for c in m.get("tool_calls") or []]
    return [c for c in calls if c not in answered]


def results(conversation: list[Message]) -> list[Any]:
    return [m["content"] for m in conversation if m["role"] == "tool"]


def test_os_errors_are_tool_failures(run: Runner, tmp_path: Path) -> None:
    """A write onto a directory, and a shell whose directory was removed:
    the tool fails (tool_failure fires) or the shell goes back to the
    workspace, and the turn goes on."""
    project = tmp_path / "project"
    (project / "docs").mkdir(parents=True)
    log = tmp_path / "events.jsonl"
    s = run(
        ["claude"],
        project,
        ["Tidy up."],
        [
            Reply("", [call("write_file", path="docs", content="x")]),
            Reply("", [call("shell", cmd="mkdir -p build && cd build")]),
            Reply("", [call("shell", cmd="rm -r ../build")]),
            Reply("", [call("shell", cmd="pwd")]),
            Reply("", [call("write_file", path="a\u0000b", content="x")]),
            Reply("Tidy."),
        ],
        claude_settings=hooks(PostToolUseFailure=f"cat >> {log}"),
    )
    assert s.turns == ["done"]
    root = project.resolve()
    failed = records(log)
    # A NUL byte in a path is a ValueError, not an OSError: a failure too.
    assert [(r["tool_name"], r["tool_input"]["file_path"]) for r in failed] == [
        ("Write", str(root / "docs")),
        ("Write", f"{root}/a\u0000b"),
    ]
    assert "Is a directory" in failed[0]["error"]
    assert "Is a directory" in results(s.seen(1))[0]
    # The removed directory: the next call runs in the workspace's root, and says so.
    assert results(s.seen(4))[-1] == f"[{root / 'build'} no longer exists; back in {root}]\n{root}\n"


def alive(pid: int) -> bool:
    """Whether process PID runs (a zombie waiting to be reaped does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_a_timed_out_shell_leaves_no_process(run: Runner, tmp_path: Path) -> None:
    """On a timeout, the whole process group of the shell call is killed:
    what it started in the background too."""
    project = tmp_path / "project"
    project.mkdir()

    def short_timeout(agent: Agent) -> None:
        agent.workspace.shell_timeout = 2

    s = run(
        ["claude"],
        project,
        ["Wait for it."],
        [Reply("", [call("shell", cmd="sleep 300 & echo $! > sleeper.pid; sleep 301")]), Reply("Gave up.")],
        before=short_timeout,
    )
    assert s.turns == ["done"]
    assert results(s.seen(1)) == ["timed out after 2s"]
    sleeper = int((project / "sleeper.pid").read_text())
    deadline = time.monotonic() + 20
    while alive(sleeper):
        assert time.monotonic() < deadline, f"the shell's background process {sleeper} still runs"
        time.sleep(0.1)


def test_a_deferred_call_leaves_a_valid_conversation(run: Runner, tmp_path: Path) -> None:
    """A deferred call ends the turn in the middle of its batch: it and the
    calls after it get a result saying they did not run."""
    project = tmp_path / "project"
    project.mkdir()
    defer = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "defer"}})
    s = run(
        ["claude"],
        project,
        ["Release it.", "What now?"],
        [
            Reply(
                "",
                [
                    call("shell", cmd="echo before"),
                    call("shell", cmd="make release"),
                    call("shell", cmd="echo after > after.txt"),
                ],
            ),
            Reply("Waiting for the release."),
        ],
        claude_settings=hooks(PreToolUse=f"grep -q release && echo '{defer}' || true"),
    )
    assert s.turns == ["deferred", "done"]
    assert not (project / "after.txt").exists()
    assert unanswered(s.seen(1)) == []
    assert results(s.seen(1)) == [
        "before\n",
        "not run: a hook deferred this call, which ended the turn",
        "not run: a hook deferred an earlier call, which ended the turn",
    ]


def test_a_halt_after_a_call_leaves_a_valid_conversation(run: Runner, tmp_path: Path) -> None:
    """A hook halts the turn after the first call of a batch (claude
    ``continue: false`` on PostToolUse): the calls after it get a result
    saying they did not run, and the next prompt's conversation is one a
    model accepts."""
    project = tmp_path / "project"
    project.mkdir()
    halt = json.dumps({"continue": False, "stopReason": "Enough."})
    s = run(
        ["claude"],
        project,
        ["Release it.", "What now?"],
        [
            Reply("", [call("shell", cmd="echo first"), call("shell", cmd="echo second > second.txt")]),
            Reply("Halted."),
        ],
        claude_settings=hooks(PostToolUse=f"grep -q first && echo '{halt}' || true"),
    )
    assert s.turns == ["halted", "done"]
    assert not (project / "second.txt").exists()
    assert unanswered(s.seen(1)) == []
    assert results(s.seen(1)) == ["first\n", "not run: a hook halted the turn"]


def test_a_cancelled_turn_leaves_a_valid_conversation(run: Runner, tmp_path: Path) -> None:
    """Ctrl-C at a permission prompt in the middle of a batch: the turn is
    cancelled, and the calls left get a result saying so."""
    project = tmp_path / "project"
    project.mkdir()

    def ctrl_c(request: Approval) -> bool:
        raise KeyboardInterrupt

    s = run(
        ["claude"],
        project,
        ["Write the notes.", "Never mind."],
        [
            Reply(
                "",
                [
                    call("shell", cmd="echo first"),
                    call("write_file", path="notes.txt", content="notes"),
                    call("shell", cmd="echo last > last.txt"),
                ],
            ),
            Reply("All right."),
        ],
        policy=Policy(ask=frozenset({"write_file"}), approver=ctrl_c),
    )
    assert s.turns == ["cancelled", "done"]
    assert not (project / "notes.txt").exists() and not (project / "last.txt").exists()
    assert unanswered(s.seen(1)) == []
    assert results(s.seen(1)) == ["first\n", *["not run: the user cancelled the turn"] * 2]


PEEN_CANCELLED = """\
version: 1
turnCancelled:
  - name: log-cancel
    actions:
      - type: command
        command: /bin/sh
        args: ["-c", "cat > cancelled.json"]
"""


def peen_config(tmp_path: Path) -> Path:
    """A peen configuration layer whose turnCancelled hook writes
    cancelled.json in the workspace."""
    config = tmp_path / "peen-config"
    (config / ".agents").mkdir(parents=True)
    (config / ".agents" / "hooks.yaml").write_text(PEEN_CANCELLED)
    return config


def test_a_ctrl_c_before_the_model_cancels_the_turn(run: Runner, tmp_path: Path) -> None:
    """Ctrl-C at the permission prompt of a command's `!`cmd`` (before any
    model call): the turn is cancelled (turn_cancelled: peen's
    turnCancelled runs), and the next prompt is a new turn."""
    project = tmp_path / "project"
    (project / ".harness" / "commands").mkdir(parents=True)
    (project / ".harness" / "commands" / "look.md").write_text("Look: !`touch ran.txt`\n")

    def ctrl_c(request: Approval) -> bool:
        raise KeyboardInterrupt

    s = run(
        ["peen"],
        project,
        ["/look", "Never mind."],
        [Reply("All right.")],
        tools="peen",
        peen_config_dir=peen_config(tmp_path),
        policy=Policy(ask=frozenset({"runCommand"}), approver=ctrl_c),
    )
    assert s.turns == ["cancelled", "done"]
    assert not (project / "ran.txt").exists()
    cancelled = json.loads((project / "cancelled.json").read_text())
    assert cancelled["event"] == "turnCancelled"
    assert [texts(m) for m in s.seen(0) if m["role"] == "user"] == [["Never mind."]]


@pytest.fixture
def sigint_raises() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt, as a terminal's Ctrl-C does (a
    process started as a background job may have SIGINT ignored)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.mark.usefixtures("sigint_raises")
@pytest.mark.parametrize("dialects", [["claude"], ["claude", "peen"]])
def test_a_ctrl_c_while_a_tool_runs(run: Runner, tmp_path: Path, dialects: list[str]) -> None:
    """Ctrl-C while the shell runs (the command sends the harness SIGINT):
    the call's result says it was interrupted, the calls after it did not
    run, and tool_failure (claude: PostToolUseFailure with `is_interrupt`)
    tells the hooks, unless peen is loaded (Peen runs no failure hooks
    after an interruption); turn_cancelled follows."""
    project = tmp_path / "project"
    project.mkdir()
    log = tmp_path / "failed.jsonl"
    s = run(
        dialects,
        project,
        ["Wait.", "Never mind."],
        [
            Reply("", [call("shell", cmd="kill -INT $PPID; sleep 10"), call("shell", cmd="touch after.txt")]),
            Reply("All right."),
        ],
        peen_config_dir=peen_config(tmp_path),
        claude_settings=json.dumps(
            {"hooks": {"PostToolUseFailure": [{"hooks": [{"type": "command", "command": f"cat >> {log}"}]}]}}
        ),
    )
    assert s.turns == ["cancelled", "done"]
    assert not (project / "after.txt").exists()
    assert unanswered(s.seen(1)) == []
    assert results(s.seen(1)) == [
        "interrupted: the user cancelled the turn while this call ran",
        "not run: the user cancelled the turn",
    ]
    failed = [(r["tool_input"], r["is_interrupt"]) for r in records(log)]
    if "peen" in dialects:
        assert failed == []
        assert json.loads((project / "cancelled.json").read_text())["event"] == "turnCancelled"
    else:
        assert failed == [({"command": "kill -INT $PPID; sleep 10"}, True)]


def ctrl_c_once(flag: Path) -> str:
    """A hook command that presses Ctrl-C (SIGINT to the harness, this
    process) the first time it runs, and waits to be cancelled."""
    return f"[ -e {flag} ] || {{ touch {flag}; kill -INT {os.getpid()}; sleep 10; }}"


@pytest.mark.usefixtures("sigint_raises")
@pytest.mark.parametrize("dialects", [["claude"], ["claude", "peen"]])
@pytest.mark.parametrize("pressed", ["in SessionStart", "after AGENTS.md"])
def test_a_ctrl_c_during_the_start_starts_the_session_again(
    run: Runner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dialects: list[str], pressed: str
) -> None:
    """Ctrl-C while a SessionStart hook runs, or once AGENTS.md is loaded
    (InstructionsLoaded hooks run in the background: a Ctrl-C then is the
    harness's own): the turn is cancelled, and the next prompt starts the
    session again (SessionStart fires again, AGENTS.md is loaded), each
    text placed once, before (Claude Code's order) or after its
    user_prompt (peen's)."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "AGENTS.md").write_text("Always answer in French.")
    log = tmp_path / "started.jsonl"
    context = json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "START-CTX"}})
    start = f"cat >> {log}; echo '{context}'"
    presses: list[str] = []

    def press_once_after_loading(agent: Agent) -> None:
        load = agent.load_instructions

        def load_then_press() -> None:
            load()
            if not presses:
                presses.append("pressed")
                raise KeyboardInterrupt

        monkeypatch.setattr(agent, "load_instructions", load_then_press)

    if pressed == "in SessionStart":
        start = f"{ctrl_c_once(tmp_path / 'pressed')}; {start}"
    s = run(
        dialects,
        project,
        ["Hello.", "Again."],
        [Reply("Bonjour.")],
        claude_settings=hooks(SessionStart=start),
        before=press_once_after_loading if pressed == "after AGENTS.md" else None,
    )
    assert s.turns == ["cancelled", "done"]
    assert len(records(log)) == (1 if pressed == "in SessionStart" else 2)  # the first got no further
    system = s.seen(0)[0]["content"]
    assert system.count("Instructions from AGENTS.md:\n\nAlways answer in French.") == 1
    assert json.dumps(s.seen(0)).count("START-CTX") == 1
    assert [texts(m)[-1] for m in s.seen(0) if m["role"] == "user"] == ["Again."]


@pytest.mark.usefixtures("sigint_raises")
@pytest.mark.parametrize("slow", ["PostToolUse", "CwdChanged"])
def test_a_ctrl_c_during_a_calls_hooks_keeps_its_result(run: Runner, tmp_path: Path, slow: str) -> None:
    """Ctrl-C while a call's PostToolUse or CwdChanged hook runs: the call
    ran, so the model reads its output, then that the turn was cancelled
    before its hooks finished; the calls after it did not run."""
    project = tmp_path / "project"
    project.mkdir()
    s = run(
        ["claude"],
        project,
        ["Move.", "Where are we?"],
        [
            Reply("", [call("shell", cmd="mkdir sub && cd sub && echo moved"), call("shell", cmd="touch after")]),
            Reply("In sub."),
        ],
        claude_settings=hooks(**{slow: ctrl_c_once(tmp_path / "pressed")}),
    )
    assert s.turns == ["cancelled", "done"]
    assert (project / "sub").is_dir() and not (project / "sub" / "after").exists()
    assert unanswered(s.seen(1)) == []
    assert results(s.seen(1)) == [
        "moved\n\ncancelled: the user cancelled the turn after this call ran, before its hooks finished",
        "not run: the user cancelled the turn",
    ]


@pytest.mark.usefixtures("sigint_raises")
@pytest.mark.parametrize("presses", [1, 2])
def test_an_interrupted_calls_failure_context_goes_with_its_result(run: Runner, tmp_path: Path, presses: int) -> None:
    """Ctrl-C while the shell runs: PostToolUseFailure's context is
    appended to that call's result (not left for the next user message).
    A second Ctrl-C during that hook leaves the result without it."""
    project = tmp_path / "project"
    project.mkdir()
    context = json.dumps(
        {"hookSpecificOutput": {"hookEventName": "PostToolUseFailure", "additionalContext": "FAIL-CTX"}}
    )
    failure = f"echo '{context}'" if presses == 1 else f"kill -INT {os.getpid()}; sleep 10"
    s = run(
        ["claude"],
        project,
        ["Wait.", "Never mind."],
        [Reply("", [call("shell", cmd="kill -INT $PPID; sleep 10")]), Reply("All right.")],
        claude_settings=hooks(PostToolUseFailure=failure),
    )
    assert s.turns == ["cancelled", "done"]
    interrupted = "interrupted: the user cancelled the turn while this call ran"
    if presses == 1:
        assert results(s.seen(1)) == [
            f"{interrupted}\n\n<system-reminder>\nPostToolUseFailure:Bash hook additional context: FAIL-CTX\n"
            "</system-reminder>"
        ]
    else:
        assert results(s.seen(1)) == [interrupted]
    assert [texts(m) for m in s.seen(1) if m["role"] == "user"] == [["Wait."], ["Never mind."]]


@pytest.mark.usefixtures("sigint_raises")
def test_a_ctrl_c_in_the_initial_messages_turn_still_runs_the_prompt(run: Runner, tmp_path: Path) -> None:
    """Ctrl-C in the turn of SessionStart's initialUserMessage (Claude
    Code's order: a prompt of its own): that turn is cancelled, and the
    user's prompt, the next, still runs."""
    project = tmp_path / "project"
    project.mkdir()
    first = json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart", "initialUserMessage": "Read NOTES."}})
    s = run(
        ["claude"],
        project,
        ["Hello."],
        [Reply("", [call("shell", cmd="kill -INT $PPID; sleep 10")]), Reply("Hi.")],
        claude_settings=hooks(SessionStart=f"echo '{first}'"),
    )
    assert s.turns == ["done"]
    assert [texts(m)[-1] for m in s.seen(1) if m["role"] == "user"] == ["Read NOTES.", "Hello."]
    assert "[assistant] Hi." in s.out


@pytest.mark.parametrize("dialects", [["claude"], ["claude", "peen"]])
def test_a_timeout_is_a_failure_unless_peen_is_loaded(run: Runner, tmp_path: Path, dialects: list[str]) -> None:
    """A shell call out of time fails; hooks hear of it (PostToolUseFailure)
    unless peen is loaded, which runs no post or failure hooks after one."""
    project = tmp_path / "project"
    project.mkdir()
    log = tmp_path / "failed.jsonl"

    def short_timeout(agent: Agent) -> None:
        agent.workspace.shell_timeout = 1

    s = run(
        dialects,
        project,
        ["Wait."],
        [Reply("", [call("shell", cmd="sleep 30")]), Reply("Gave up.")],
        claude_settings=json.dumps(
            {"hooks": {"PostToolUseFailure": [{"hooks": [{"type": "command", "command": f"cat >> {log}"}]}]}}
        ),
        before=short_timeout,
    )
    assert s.turns == ["done"]
    assert s.tool_results() == ["timed out after 1s"]
    failed = [(r["error"], r["is_interrupt"]) for r in records(log)]
    assert failed == ([] if "peen" in dialects else [("timed out after 1s", False)])


def test_a_commands_shell_lines_hooks_first_and_no_cd(run: Runner, tmp_path: Path) -> None:
    """A command's `!`cmd``: PreSkillShellCommand hooks decide before the
    user is asked (as PreToolUse comes before a tool's prompt), and its
    `cd` does not move the shell (no CwdChanged)."""
    project = tmp_path / "project"
    (project / ".harness" / "commands").mkdir(parents=True)
    (project / ".harness" / "commands" / "where.md").write_text("Here: !`cd sub && pwd`\n")
    (project / "sub").mkdir()
    log = tmp_path / "events.jsonl"
    asked: list[list[str]] = []

    def user(request: Approval) -> bool:
        asked.append([r["hook_event_name"] for r in records(log)])  # what hooks saw by then
        return True

    record = [{"hooks": [{"type": "command", "command": f"cat >> {log}"}]}]
    s = run(
        ["claude"],
        project,
        ["/where"],
        [Reply("", [call("shell", cmd="pwd")]), Reply("Done.")],
        claude_settings=json.dumps({"hooks": {"PreSkillShellCommand": record, "CwdChanged": record}}),
        policy=Policy(ask=frozenset({"shell"}), approver=user),
    )
    assert s.turns == ["done"]
    root = project.resolve()
    assert asked == [["PreSkillShellCommand"], ["PreSkillShellCommand"]]  # the `!`cmd``, then the model's shell call
    assert texts(s.seen(0)[-1]) == [f"Here: {root}/sub"]
    assert s.tool_results() == [f"{root}\n"]
    assert [r["hook_event_name"] for r in records(log)] == ["PreSkillShellCommand"]


def test_the_shell_gets_no_api_key(run: Runner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """OPENAI_API_KEY, the harness's own secret, is not inherited by the
    shell that runs the commands the model writes (a courtesy, not
    isolation: see tools.SECRETS)."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-harness")
    monkeypatch.setenv("HARNESS_TEST_GREETING", "hello")  # the rest of the environment is kept
    project = tmp_path / "project"
    project.mkdir()
    s = run(
        ["claude"],
        project,
        ["Show me."],
        [Reply("", [call("shell", cmd="echo ${OPENAI_API_KEY:-unset} $HARNESS_TEST_GREETING")]), Reply("Shown.")],
    )
    assert s.tool_results() == ["unset hello\n"]
