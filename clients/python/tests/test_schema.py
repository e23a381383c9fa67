"""Every kind of message the real server writes, and every request the
clients send, is valid against the committed ``schemas/serve.schema.json``
(``$LATCH_SERVE_SCHEMA``; ``run-tests.sh`` sets it)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from pathlib import Path
from typing import Any, Dict, List, Set

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


def errors_of(schema: Dict[str, Any], name: str, instance: Any) -> List[str]:
    """What is wrong with ``instance`` against the definition ``name``."""
    assert name in schema["$defs"], name
    validator = jsonschema.Draft202012Validator({**schema, "$ref": f"#/$defs/{name}"})
    errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path))
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors]


def check(schema: Dict[str, Any], name: str, instance: Any) -> None:
    """Validates ``instance`` against the definition ``name``."""
    errors = errors_of(schema, name, instance)
    assert not errors, f"{name}: " + "; ".join(errors[:5])


# A response names no method: its result is checked against the definition
# of its request's. (Requests and notifications tie params to the method
# in the schema itself.)
RESULTS = {
    "initialize": "InitializeResult",
    "fire": "FireResult",
    "explain": "ExplainResult",
    "trust/list": "TrustListResult",
    "trust/approve": "TrustApproveResult",
    "trust/revoke": "TrustRevokeResult",
    "shutdown": "ShutdownResult",
}


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
        check(self.schema, "Request", request)  # its params too
        self.send_line(json.dumps(request).encode())
        answer = self.answer(request["id"])
        if "result" in answer:
            check(self.schema, RESULTS[method], answer["result"])
        return answer

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
        init = raw.call("initialize", project.config())
        assert init["result"]["dialects"] == ["claude"], init

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
            fired = raw.call("fire", event)
            assert "result" in fired, fired
            outcomes.append(fired["result"])
        assert outcomes[0]["decision"] == "deny", outcomes[0]
        assert outcomes[1]["tool_input"] == {"command": "make test"}, outcomes[1]

        # The async PostToolUse hook's answer comes as a notification
        # (`read` checked it, its params with it).
        assert raw.notification("latch/asyncResult")["params"]["texts"]

        for event in (bash("ls"), {"event": "notification", "session_id": "s1", "message": "hi"}):
            assert "result" in raw.call("explain", event)

        assert "result" in raw.call("trust/list")

        # An edit on disk: the server reloads and says so.
        settings = project.root / ".claude" / "settings.json"
        settings.write_text(settings.read_text().replace("guard.py", "guard.py "))
        assert raw.notification("latch/diagnostics")["params"]["reloaded"] is True

        # Approving and revoking every hook: each answer lists what changed.
        approved = raw.call("trust/approve", {"all": True})["result"]["approved"]
        assert approved, approved
        revoked = raw.call("trust/revoke", {"all": True})["result"]["revoked"]
        assert revoked == approved, (approved, revoked)

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
        raw.send_line(json.dumps(cancel).encode())

        # Any JSON number is an id: the server echoes it as written.
        raw.send_line(b'{"jsonrpc":"2.0","id":1.5,"method":"fire","params":{"event":"stop","session_id":"s1"}}')
        assert raw.answer(1.5)["result"]["decision"] == "proceed"
        check(schema, "Request", {"jsonrpc": "2.0", "id": 1.5, "method": "fire", "params": bash("ls")})

        shutdown = raw.call("shutdown")
        assert shutdown["result"] is None
    finally:
        if raw.proc.stdin is not None:
            raw.proc.stdin.close()
        raw.proc.wait(timeout=10)


def test_the_schema_checks_each_methods_params(schema: Dict[str, Any]) -> None:
    """A message's params are checked against its method's definition."""

    def request(method: str, **rest: Any) -> Dict[str, Any]:
        return {"jsonrpc": "2.0", "id": "r1", "method": method, **rest}

    def notification(method: str, **rest: Any) -> Dict[str, Any]:
        return {"jsonrpc": "2.0", "method": method, **rest}

    valid = [
        ("Request", request("initialize")),
        ("Request", request("initialize", params={"dialects": ["claude"], "state_dir": "/s"})),
        ("Request", request("fire", params=bash("ls"))),
        ("Request", request("explain", params={"event": "stop"})),
        ("Request", request("trust/list")),
        ("Request", request("trust/list", params=None)),
        ("Request", request("trust/approve", params={"all": True})),
        ("Request", request("shutdown")),
        # Params of a method that reads none are ignored, by the server too.
        ("Request", request("shutdown", params={"now": True})),
        ("Request", request("trust/list", params={"all": True})),
        ("Notification", notification("exit")),
        ("Notification", notification("$/cancelRequest", params={"id": "r1"})),
        ("Notification", notification("$/cancelRequest", params={"id": 2})),
        ("Notification", notification("latch/somethingNew", params=[1, 2])),
    ]
    for name, message in valid:
        assert errors_of(schema, name, message) == [], message
    invalid = [
        ("Request", request("fire")),  # no event
        ("Request", request("fire", params={"event": "tool_before", "sesion_id": "x"})),
        ("Request", request("fire", params={"event": "no_such_event"})),
        ("Request", request("initialize", params={"dialect": ["claude"]})),
        ("Request", request("explain", params=[])),
        ("Request", request("trust/approve", params={"hooks": "x"})),
        ("Request", {**request("fire", params={"event": "stop"}), "id": None}),
        ("Request", {**request("fire", params={"event": "stop"}), "id": [1]}),
        ("Notification", notification("$/cancelRequest")),
        ("Notification", notification("$/cancelRequest", params={"id": None})),
        ("Notification", notification("latch/diagnostics", params={"diagnostics": []})),
        ("Notification", notification("latch/asyncResult", params={"session_id": "s1"})),
    ]
    for name, message in invalid:
        assert errors_of(schema, name, message) != [], message


# Each typed dict and the schema definition it types.
TYPED = {
    "Config": "InitializeParams",
    "ToolCall": "ToolCall",
    "Compaction": "Compaction",
    "Expansion": "Expansion",
    "Instructions": "Instructions",
    "Worktree": "Worktree",
    "Task": "Task",
    "Team": "Team",
    "ElicitationRequest": "Elicitation",
    "Event": "Event",
    "Source": "SourceRef",
    "Reason": "Reason",
    "Context": "Injection",
    "Notice": "Notice",
    "PublishedEvent": "PublishedEvent",
    "Continuation": "Continuation",
    "Halt": "Halt",
    "ElicitationAnswer": "ElicitationAnswer",
    "PermissionUpdates": "PermissionUpdates",
    "Run": "HookRun",
    "Outcome": "Outcome",
    "ExplainIgnored": "IgnoredKey",
    "TrustedHook": "Listed",
    "ExplainEntry": "Explanation",
    "Diagnostic": "Diagnostic",
    "InitializeResult": "InitializeResult",
    "AsyncResult": "AsyncResultParams",
}


@pytest.mark.no_latch
@pytest.mark.parametrize("typed, definition", sorted(TYPED.items()))
def test_each_typed_dict_has_its_definitions_fields(schema: Dict[str, Any], typed: str, definition: str) -> None:
    """A typed dict has every field the server may send (so a harness reads
    it under mypy), and requires just those the server always sends; its
    hints evaluate at run time (pydantic, typeguard)."""
    import typing

    from latch_client import types

    cls = getattr(types, typed)
    hints = typing.get_type_hints(cls)
    shape = schema["$defs"][definition]
    while "$ref" in shape:
        shape = schema["$defs"][shape["$ref"].rsplit("/", 1)[-1]]
    properties = set(shape.get("properties", {}))
    assert properties <= set(hints), f"{typed} lacks {sorted(properties - set(hints))}"
    required = set(shape.get("required", []))
    typed_required = required_keys(cls)
    assert typed_required <= required, f"{typed} requires {sorted(typed_required - required)}"
    assert required <= typed_required, f"{typed} does not require {sorted(required - typed_required)}"


def required_keys(cls: Any) -> Set[str]:
    """The keys a typed dict requires, read from its hints (under ``from
    __future__ import annotations`` Python 3.11's ``__required_keys__``
    misses those marked ``Required``)."""
    import typing

    required = set()
    for key, hint in typing.get_type_hints(cls, include_extras=True).items():
        origin = typing.get_origin(hint)
        if origin is typing.Required or (cls.__total__ and origin is not typing.NotRequired):
            required.add(key)
    return required


@pytest.mark.no_latch
def test_event_kinds_are_the_schemas(schema: Dict[str, Any]) -> None:
    """``EventKind`` has every kind of the schema, and its docstring does
    not miscount them."""
    import ast
    import typing

    from latch_client import types

    kinds = typing.get_args(types.EventKind)
    assert sorted(kinds) == sorted(k["const"] for k in schema["$defs"]["EventKind"]["oneOf"])
    source = ast.parse(Path(types.__file__).read_text())
    body = source.body
    for node, after in zip(body, body[1:]):
        if isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == ["EventKind"]:
            assert isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
            docstring = after.value.value
            assert isinstance(docstring, str)
            counts = re.findall(r"\b(\d+) event kinds", docstring)
            assert all(int(count) == len(kinds) for count in counts), docstring
            break
    else:
        raise AssertionError("no EventKind in latch_client/types.py")
