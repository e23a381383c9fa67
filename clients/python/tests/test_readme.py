"""The README's examples run as written: the harness (with ``TOOLS``, the
harness's own) and the asyncio one."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Dict, List

import pytest

from conftest import Project

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
