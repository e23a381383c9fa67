"""The README's examples run as written: the harness (with ``TOOLS``, the
harness's own), the asyncio one, the notification stream and the Claude Code
message."""

from __future__ import annotations

import asyncio
import re
import textwrap
from pathlib import Path
from typing import Any, Dict, List

import pytest

from conftest import ASYNC_HOOK, Project, bash_after
from latch_client import AsyncClient, AsyncResultNotification

README = Path(__file__).resolve().parent.parent / "README.md"


def blocks() -> List[str]:
    """The README's ``python`` blocks."""
    return re.findall(r"^```python\n(.*?)^```$", README.read_text(), re.S | re.M)


def test_readme_harness(project: Project, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code = blocks()[0]
    assert len(code.strip().splitlines()) < 20
    monkeypatch.chdir(project.root)
    monkeypatch.setenv("HOME", str(project.home))
    ran = []

    def bash(command: str) -> str:
        ran.append(command)
        return f"ran {command}"

    namespace: Dict[str, Any] = {"TOOLS": {"Bash": bash}}
    exec(compile(code, str(README), "exec"), namespace)
    assert capsys.readouterr().out == "ran ls\n"

    # The same function on a denied call and on a rewritten one.
    from latch_client import Client

    run_tool = namespace["run_tool"]
    with Client(**project.config()) as latch:
        denied = run_tool(latch, "s2", {"name": "Bash", "input": {"command": "rm -rf /"}, "call_id": "c2"}, {"Bash": bash})
        rewritten = run_tool(latch, "s2", {"name": "Bash", "input": {"command": "npm test"}, "call_id": "c3"}, {"Bash": bash})
    assert "Refusing to delete" in denied
    assert rewritten.startswith("ran make test")
    assert ran == ["ls", "make test"]


def test_readme_asyncio(project: Project, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code = blocks()[1]
    assert "asyncio.run(main())" in code
    monkeypatch.chdir(project.root)
    monkeypatch.setenv("HOME", str(project.home))
    exec(compile(code, str(README), "exec"), {"__name__": "readme"})
    assert capsys.readouterr().out == str(["proceed"] * 8) + "\n"


@pytest.mark.no_latch
def test_readme_claude_message() -> None:
    (code,) = [b for b in blocks() if "latch_client.claude" in b]
    post = "<system-reminder>\nPostToolUse:Bash hook additional context: POST\n</system-reminder>"
    batch = "<system-reminder>\nPostToolBatch hook additional context: BATCH\n</system-reminder>"
    messages: List[Any] = []
    namespace: Dict[str, Any] = {
        "before": {"event": "tool_before", "decision": "proceed", "runs": []},
        "output": "hi\n",
        "after": {"context": [{"hook": "h", "placement": "after_tool_result", "text": post}]},
        "batch": {"context": [{"hook": "h", "placement": "append_to_tool_result", "text": batch}]},
        "request": {"messages": messages},
    }
    exec(compile(code, str(README), "exec"), namespace)
    assert messages == [
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": f"hi\n\n{post}\n\n{batch}", "is_error": False},
            ],
        }
    ]


def test_readme_notifications(project: Project) -> None:
    (code,) = [b for b in blocks() if "latch.notifications()" in b]
    # The block is the body of a harness's coroutine that holds `latch`.
    namespace: Dict[str, Any] = {"AsyncResultNotification": AsyncResultNotification}
    exec(compile("async def snippet(latch):\n" + textwrap.indent(code, "    "), str(README), "exec"), namespace)
    printed: List[Any] = []
    namespace["print"] = lambda *args: printed.append(args)

    async def main() -> None:
        async with AsyncClient(**project.config()) as latch:
            reading = asyncio.ensure_future(namespace["snippet"](latch))
            await asyncio.sleep(0)  # the stream exists before the event
            await latch.fire(bash_after("ls", "out"))
            for _ in range(200):
                if printed:
                    break
                await asyncio.sleep(0.05)
        # Closing the client ends the stream, and with it the loop.
        await asyncio.wait_for(reading, 10)

    asyncio.run(main())
    # The hook's label: its command, cut with an ellipsis.
    ((hook, texts),) = printed
    assert hook.endswith("…") and ASYNC_HOOK.startswith(hook[:-1])
    assert texts == ["<system-reminder>\nX\n</system-reminder>"]
