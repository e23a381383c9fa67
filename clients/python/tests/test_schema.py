"""Every kind of message the real server writes, and every request the
clients send, is valid against the committed ``schemas/serve.schema.json``
(``$LATCH_SERVE_SCHEMA``; ``run-tests.sh`` sets it)."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any, Dict, List

import pytest

from conftest import Project, bash, bash_after

jsonschema = pytest.importorskip("jsonschema")


@pytest.fixture(scope="module")
def schema() -> Dict[str, Any]:
    path = os.environ.get("LATCH_SERVE_SCHEMA")
    if not path:
        pytest.skip("no schema: set LATCH_SERVE_SCHEMA")
    loaded: Dict[str, Any] = json.loads(Path(path).read_text())
    return loaded


def check(schema: Dict[str, Any], name: str, instance: Any) -> None:
    """Validates ``instance`` against the definition ``name``."""
    assert name in schema["$defs"], name
    validator = jsonschema.Draft202012Validator({**schema, "$ref": f"#/$defs/{name}"})
    errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path))
    assert not errors, f"{name}: " + "; ".join(
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:5]
    )


class Raw:
    """``latch serve`` spoken to line by line, with no client in between."""

    def __init__(self, binary: str, schema: Dict[str, Any]) -> None:
        self.schema = schema
        self.proc = subprocess.Popen(
            [binary, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.notifications: List[Dict[str, Any]] = []
        self.next_id = 1

    def send_line(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def read(self) -> Dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line, "the server closed its output"
        message: Dict[str, Any] = json.loads(line)
        check(self.schema, "Response" if "id" in message else "Notification", message)
        return message

    def call(self, method: str, params: Any = None) -> Dict[str, Any]:
        request: Dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            request["params"] = params
        self.next_id += 1
        check(self.schema, "Request", request)
        self.send_line(json.dumps(request).encode())
        return self.answer(request["id"])

    def answer(self, id: Any) -> Dict[str, Any]:
        while True:
            message = self.read()
            if "id" in message and message["id"] == id:
                return message
            self.notifications.append(message)

    def notification(self, method: str, within: float = 10.0) -> Dict[str, Any]:
        """The next notification ``method``, waiting for the server to send one."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            for n in self.notifications:
                if n.get("method") == method:
                    self.notifications.remove(n)
                    return n
            # A request in between carries the notifications the server
            # wrote before its answer.
            self.call("fire", {"event": "stop", "session_id": "poll"})
            time.sleep(0.05)
        raise AssertionError(f"no {method} within {within} s")


def test_every_message_matches_the_committed_schema(
    latch_bin: str, project: Project, schema: Dict[str, Any]
) -> None:
    raw = Raw(latch_bin, schema)
    try:
        config = project.config()
        check(schema, "InitializeParams", config)
        init = raw.call("initialize", config)
        check(schema, "InitializeResult", init["result"])

        events = [
            bash("rm -rf /"),
            bash("npm test"),
            bash("ls", call_id="t1"),
            bash_after("ls", "a\nb\n"),
            {"event": "session_start", "session_id": "s1", "source": "startup"},
            {"event": "user_prompt", "session_id": "s1", "prompt": "hello"},
            {"event": "stop", "session_id": "s1"},
        ]
        outcomes = []
        for event in events:
            check(schema, "FireParams", event)
            fired = raw.call("fire", event)
            assert "result" in fired, fired
            check(schema, "FireResult", fired["result"])
            outcomes.append(fired["result"])
        assert outcomes[0]["decision"] == "deny", outcomes[0]
        assert outcomes[1]["tool_input"] == {"command": "make test"}, outcomes[1]

        # The async PostToolUse hook's answer comes as a notification.
        check(schema, "AsyncResultParams", raw.notification("latch/asyncResult")["params"])

        for event in (bash("ls"), {"event": "notification", "session_id": "s1", "message": "hi"}):
            check(schema, "ExplainParams", event)
            explained = raw.call("explain", event)
            check(schema, "ExplainResult", explained["result"])

        listed = raw.call("trust/list")
        check(schema, "TrustListResult", listed["result"])

        # An edit on disk: the server reloads and says so.
        settings = project.root / ".claude" / "settings.json"
        settings.write_text(settings.read_text().replace("guard.py", "guard.py "))
        check(schema, "DiagnosticsParams", raw.notification("latch/diagnostics")["params"])

        # Every error: not JSON, not a request, no such method, bad params.
        raw.send_line(b"{not json")
        parse_error = raw.answer(None)
        raw.send_line(b'{"jsonrpc":"2.0","id":90,"method":7}')
        invalid = raw.answer(90)
        raw.send_line(b'{"jsonrpc":"2.0","id":91,"method":"nope"}')
        unknown = raw.answer(91)
        bad_params = raw.call("fire", {"event": "tool_before"})
        for response, code in ((parse_error, -32700), (invalid, -32600), (unknown, -32601), (bad_params, -32602)):
            assert response["error"]["code"] == code, response
            check(schema, "Error", response["error"])

        cancel = {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 12345}}
        check(schema, "Notification", cancel)
        check(schema, "CancelRequestParams", cancel["params"])
        raw.send_line(json.dumps(cancel).encode())

        shutdown = raw.call("shutdown")
        check(schema, "ShutdownResult", shutdown["result"])
    finally:
        if raw.proc.stdin is not None:
            raw.proc.stdin.close()
        raw.proc.wait(timeout=10)
