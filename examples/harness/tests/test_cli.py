"""``python -m harness`` with a scripted model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import Example
from harness.__main__ import main


def test_cli_prints_the_transcript(
    example: Example, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = example("poolside")
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            [
                {"text": "Trying.", "calls": [{"name": "shell", "input": {"cmd": "sudo true"}}]},
                {"text": "Done."},
                {
                    "text": "Summary written.",
                    "calls": [{"name": "write_file", "input": {"path": "SUMMARY.md", "content": "ok"}}],
                },
                {"text": "Now done."},
            ]
        )
    )
    monkeypatch.setenv("LOG_PAYLOAD_FILE", str(tmp_path / "payload.json"))
    status = main(
        [
            "--dialect",
            "poolside",
            "--project",
            str(project),
            "--home",
            str(tmp_path / "home"),
            "--state-dir",
            str(tmp_path / "state"),
            "--script",
            str(script),
            "Install it.",
        ]
    )
    out, err = capsys.readouterr()
    assert status == 0
    assert out.splitlines()[:4] == [
        "[user] Install it.",
        "[assistant] Trying.",
        '[tool] shell {"cmd": "sudo true"}',
        '[result] <hook name="block-sudo" event="PreToolUse">Blocked this tool call: '
        "sudo is forbidden in this workspace (blocked by block-sudo hook)</hook>",
    ]
    assert "[latch] continue: You stopped early." in out
    assert err.endswith("[turn] done\n")
