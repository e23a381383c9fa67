"""The parts that need no server: framing, configuration, errors."""

from __future__ import annotations

import json
import logging
import os
import sys
import types
from pathlib import Path

import pytest

from latch_client import (
    AsyncResultNotification,
    DiagnosticsNotification,
    InvalidParams,
    LatchDied,
    LatchNotFound,
    LatchRpcError,
    OtherNotification,
    ShuttingDown,
    find_binary,
    is_cancelled,
)
from latch_client._protocol import (
    Response,
    StderrTail,
    WarningBudget,
    encode_notification,
    encode_request,
    initialize_params,
    parse_line,
)

pytestmark = pytest.mark.no_latch


def test_request_framing() -> None:
    line = encode_request(7, "fire", {"event": "stop", "reason": "é\n"})
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert json.loads(line) == {"jsonrpc": "2.0", "id": 7, "method": "fire", "params": {"event": "stop", "reason": "é\n"}}
    assert json.loads(encode_request(1, "shutdown", None)) == {"jsonrpc": "2.0", "id": 1, "method": "shutdown"}
    assert json.loads(encode_notification("exit")) == {"jsonrpc": "2.0", "method": "exit"}


def test_not_json_is_refused_locally() -> None:
    with pytest.raises(ValueError):
        encode_request(1, "fire", {"event": "stop", "context_tokens": float("nan")})


def test_parse_messages() -> None:
    assert parse_line(b'{"jsonrpc":"2.0","id":3,"result":null}\n') == Response(3, None, None)
    error = parse_line(b'{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"bad"}}')
    assert isinstance(error, Response) and error.error == {"code": -32602, "message": "bad"}
    note = parse_line(
        b'{"jsonrpc":"2.0","method":"latch/asyncResult","params":{"session_id":"s","dialect":"claude",'
        b'"hook":"h","event":"PostToolUse","texts":["t"]}}'
    )
    assert isinstance(note, AsyncResultNotification) and note.result["texts"] == ["t"]
    diagnostics = parse_line(b'{"jsonrpc":"2.0","method":"latch/diagnostics","params":{"diagnostics":[]}}')
    assert diagnostics == DiagnosticsNotification([])
    reload = parse_line(
        b'{"jsonrpc":"2.0","method":"latch/diagnostics","params":{"cwd":null,"first_load":false,"reloaded":true,'
        b'"reason":"the last good version of /p/s.json is kept","kept":["/p/s.json"],"diagnostics":[]}}'
    )
    assert reload == DiagnosticsNotification(
        [], cwd=None, first_load=False, reloaded=True, reason="the last good version of /p/s.json is kept", kept=["/p/s.json"]
    )
    first = parse_line(
        b'{"jsonrpc":"2.0","method":"latch/diagnostics","params":{"cwd":"/p/sub","first_load":true,'
        b'"reloaded":true,"reason":null,"kept":[],"diagnostics":[]}}'
    )
    assert first == DiagnosticsNotification([], cwd="/p/sub", first_load=True)
    other = parse_line(b'{"jsonrpc":"2.0","method":"latch/new","params":{"a":1}}')
    assert other == OtherNotification("latch/new", {"a": 1})
    assert parse_line(b"not json") is None
    assert parse_line(b"[1]") is None


def test_errors_by_code() -> None:
    error = LatchRpcError.from_error({"code": -32602, "message": "unknown field `x`"}, "fire")
    assert isinstance(error, InvalidParams)
    assert (error.code, error.message, error.method) == (-32602, "unknown field `x`", "fire")
    assert isinstance(LatchRpcError.from_error({"code": -32003, "message": "m"}), ShuttingDown)
    unknown = LatchRpcError.from_error({"code": -1, "message": "m", "data": {"k": 1}})
    assert type(unknown) is LatchRpcError and unknown.data == {"k": 1}


def test_latch_died_message() -> None:
    assert "killed by signal 9" in str(LatchDied(-9, ""))
    died = LatchDied(3, "latch: error: boom\n")
    assert "exited with code 3" in str(died) and "boom" in str(died)


def test_initialize_params(tmp_path: Path) -> None:
    params = initialize_params(
        {"dialects": ["claude"], "project": tmp_path, "home": None},
        {"plugin_dirs": [tmp_path / "p"], "claude_hide_commands": True},
    )
    assert params == {
        "dialects": ["claude"],
        "project": str(tmp_path),
        "plugin_dirs": [str(tmp_path / "p")],
        "claude_hide_commands": True,
    }


def test_find_binary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    latch = tmp_path / "latch"
    latch.write_text("#!/bin/sh\n")
    latch.chmod(0o755)
    assert find_binary(latch) == str(latch)
    monkeypatch.setenv("LATCH_BIN", str(latch))
    assert find_binary(None) == str(latch)
    monkeypatch.delenv("LATCH_BIN")
    monkeypatch.setenv("PATH", str(tmp_path))
    assert find_binary(None) == str(latch)
    with pytest.raises(LatchNotFound):
        find_binary(tmp_path / "missing")
    latch.chmod(0o644)
    with pytest.raises(LatchNotFound):
        find_binary(latch)


def test_find_binary_falls_back_to_the_latch_bin_wheel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With neither an argument, ``$LATCH_BIN`` nor ``latch`` on ``PATH``, the
    binary of an installed ``latch-bin`` wheel (``latch_bin.find_latch_bin``,
    stood in for here by a module of the same shape) is used; never before."""
    bundled = tmp_path / "wheel" / "latch"
    bundled.parent.mkdir()
    bundled.write_text("#!/bin/sh\n")
    bundled.chmod(0o755)
    stand_in = types.ModuleType("latch_bin")
    setattr(stand_in, "find_latch_bin", lambda: str(bundled))
    # Undone after the test, so no other test finds it.
    monkeypatch.setitem(sys.modules, "latch_bin", stand_in)
    monkeypatch.delenv("LATCH_BIN", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert find_binary(None) == str(bundled)
    # A latch on PATH comes first.
    on_path = tmp_path / "empty" / "latch"
    on_path.parent.mkdir()
    on_path.write_text("#!/bin/sh\n")
    on_path.chmod(0o755)
    assert find_binary(None) == str(on_path)
    # So does $LATCH_BIN, even when it names nothing runnable.
    monkeypatch.setenv("LATCH_BIN", str(tmp_path / "missing"))
    with pytest.raises(LatchNotFound):
        find_binary(None)


def test_find_binary_is_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "bin").mkdir()
    latch = tmp_path / "bin" / "latch"
    latch.write_text("#!/bin/sh\n")
    latch.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    assert find_binary(os.path.join("bin", "latch")) == str(latch)
    monkeypatch.setenv("PATH", "bin")
    monkeypatch.delenv("LATCH_BIN", raising=False)
    assert find_binary(None) == str(latch)


def test_find_binary_in_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    latch = tmp_path / "latch"
    latch.write_text("#!/bin/sh\n")
    latch.chmod(0o755)
    monkeypatch.setenv("LATCH_BIN", str(latch))
    # The given environment's variables, not this process's.
    with pytest.raises(LatchNotFound, match="LATCH_BIN of the env argument"):
        find_binary(None, {"LATCH_BIN": str(tmp_path / "other")})
    with pytest.raises(LatchNotFound, match="PATH of the env argument"):
        find_binary(None, {"PATH": str(tmp_path / "empty")})
    assert find_binary(None, {"PATH": str(tmp_path)}) == str(latch)
    assert find_binary(None, {"LATCH_BIN": str(latch)}) == str(latch)
    # An explicit binary wins over both.
    assert find_binary(latch, {"LATCH_BIN": str(tmp_path / "other")}) == str(latch)


def test_stderr_tail() -> None:
    tail = StderrTail(max_lines=3, max_line_bytes=10)
    tail.feed(b"one\ntw")
    assert tail.text() == "one\ntw"
    tail.feed(b"o\n" + b"x" * 25)
    tail.feed(b"y" * 5 + b"\n\xff\xfe bad")
    assert tail.text() == "one\ntwo\nxxxxxxxxxx [... 20 more bytes]\n\ufffd\ufffd bad"
    tail.end()
    assert tail.text() == "two\nxxxxxxxxxx [... 20 more bytes]\n\ufffd\ufffd bad"


def test_warning_budget(caplog: pytest.LogCaptureFixture) -> None:
    budget = WarningBudget(limit=3)
    with caplog.at_level(logging.DEBUG, logger="latch_client"):
        for i in range(100):
            assert parse_line(b"garbage %d" % i, budget) is None
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 4
    assert "garbage 2" in warnings[2] and "further warnings" in warnings[3]
    assert sum(r.levelno == logging.DEBUG for r in caplog.records) == 97


def test_is_cancelled() -> None:
    assert is_cancelled({"event": "stop", "decision": "proceed", "runs": [], "warnings": ["dispatch cancelled: x"]})
    assert not is_cancelled({"event": "stop", "decision": "proceed", "runs": []})
