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
            "--init",
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
    # --init: the setup event, and the harness's default settings.
    assert (project / ".harness" / "settings.json").read_text() == '{\n  "ask": []\n}\n'
    assert (project / ".harness" / "commands").is_dir()


def test_cli_worktree_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    refuse = {
        "hooks": {
            "WorktreeCreate": [
                {"hooks": [{"type": "command", "command": "echo 'no worktrees here' >&2; exit 2"}]}
            ]
        }
    }
    (project / ".claude" / "settings.json").write_text(json.dumps(refuse))
    script = tmp_path / "script.json"
    script.write_text("[]")
    args = ["--dialect", "claude", "--project", str(project), "--home", str(tmp_path / "home")]
    args += ["--state-dir", str(tmp_path / "state"), "--script", str(script), "--worktree", "x", "Go."]
    status = main(args)
    out, err = capsys.readouterr()
    # A denied worktree_create: no worktree, and no turn either.
    assert status == 1
    assert out == ""
    assert err.endswith(
        "harness: no worktree: WorktreeCreate hook failed: echo 'no worktrees here' >&2; exit 2: no worktrees here\n"
    )


def test_cli_without_latch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """No latch binary: one line that says where it was looked for, and exit
    status 2, without a traceback; nothing runs."""
    project = tmp_path / "project"
    project.mkdir()
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"calls": [{"name": "shell", "input": {"cmd": "touch ran.txt"}}]}]))
    monkeypatch.setenv("LATCH_BIN", str(tmp_path / "no-such-latch"))
    status = main(["--dialect", "claude", "--project", str(project), "--script", str(script), "Go."])
    out, err = capsys.readouterr()
    assert status == 2
    assert out == ""
    assert len(err.splitlines()) == 1
    assert err.startswith("harness: ") and "no-such-latch" in err and "set LATCH_BIN" in err
    assert not (project / "ran.txt").exists()


def test_cli_setup_halted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """claude `continue: false` on Setup (--init): no prompt runs, exit 1."""
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    halt = json.dumps({"continue": False, "stopReason": "not set up yet"})
    settings = {"hooks": {"Setup": [{"hooks": [{"type": "command", "command": f"echo '{halt}'"}]}]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"calls": [{"name": "shell", "input": {"cmd": "touch ran.txt"}}]}]))
    args = ["--dialect", "claude", "--project", str(project), "--home", str(tmp_path / "home")]
    args += ["--state-dir", str(tmp_path / "state"), "--script", str(script), "--init", "Go."]
    status = main(args)
    out, err = capsys.readouterr()
    assert status == 1
    assert out == "[latch] stopped by a hook: not set up yet\n"
    assert "[turn]" not in err
    assert not (project / "ran.txt").exists()
