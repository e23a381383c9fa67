"""What the synchronous and the asyncio clients share: finding the binary,
the configuration, JSON-RPC framing and the notifications."""

from __future__ import annotations

import collections
import json
import logging
import os
import shutil
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from .errors import InvalidRequest, LatchNotFound
from .types import AsyncResult, Config, Diagnostic

logger = logging.getLogger("latch_client")

ASYNC_RESULT = "latch/asyncResult"
"""The method of the notification an ``async`` hook's answer comes with."""
DIAGNOSTICS = "latch/diagnostics"
"""The method of the notification of a configuration loaded after ``initialize``."""

DEFAULT_EVENT_LIMIT = 16 * 1024 * 1024
LINE_SLACK = 1024 * 1024
MAX_EVENT_VAR = "LATCH_MAX_EVENT_BYTES"

_PATH_KEYS = frozenset(
    {
        "project",
        "home",
        "settings",
        "peen_config_dir",
        "claude_settings",
        "claude_managed_dir",
        "tool_vocabulary",
        "state_dir",
    }
)


# --------------------------------------------------------------------------
# Notifications
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class AsyncResultNotification:
    """``latch/asyncResult``: an ``async`` hook (claude dialect) finished."""

    result: AsyncResult
    method: str = field(default=ASYNC_RESULT, init=False)


@dataclass(frozen=True)
class DiagnosticsNotification:
    """``latch/diagnostics``: load diagnostics of a configuration loaded after
    ``initialize`` (an event from a new working directory) or reloaded after
    an edit on disk.

    ``kept`` lists the files whose new text has errors: each keeps its last
    good version while every other file's edit applies. ``reloaded`` is
    false when the whole configuration loaded before stays in use instead;
    ``reason`` says why, and is ``None`` when nothing is kept."""

    diagnostics: List[Diagnostic]
    cwd: Optional[str] = None
    reloaded: bool = True
    reason: Optional[str] = None
    kept: List[str] = field(default_factory=list)
    method: str = field(default=DIAGNOSTICS, init=False)


@dataclass(frozen=True)
class OtherNotification:
    """A notification this version of the client does not know."""

    method: str
    params: Any


Notification = Union[AsyncResultNotification, DiagnosticsNotification, OtherNotification]
"""Any notification from the server; tell them apart with ``isinstance``."""


def make_notification(method: str, params: Any) -> Notification:
    """Wrap a notification's params in its typed class."""
    if method == ASYNC_RESULT and isinstance(params, dict):
        return AsyncResultNotification(params)  # type: ignore[arg-type]
    if method == DIAGNOSTICS and isinstance(params, dict):
        return DiagnosticsNotification(
            list(params.get("diagnostics", [])),
            cwd=params.get("cwd"),
            reloaded=bool(params.get("reloaded", True)),
            reason=params.get("reason"),
            kept=[str(k) for k in params.get("kept", [])],
        )
    return OtherNotification(method, params)


# --------------------------------------------------------------------------
# Starting the server
# --------------------------------------------------------------------------


def find_binary(binary: Union[str, "os.PathLike[str]", None], env: Optional[Mapping[str, str]] = None) -> str:
    """The ``latch`` executable to start.

    ``binary`` when given, else ``$LATCH_BIN``, else ``latch`` on ``PATH``,
    else the binary of the ``latch-bin`` wheel if it is installed. A name
    without a directory is looked up on ``PATH``.

    :raises LatchNotFound: when there is no such executable.
    """
    environ = os.environ if env is None else env
    if binary is not None:
        candidate, origin = os.fspath(binary), "the binary argument"
    elif environ.get("LATCH_BIN"):
        candidate, origin = environ["LATCH_BIN"], "$LATCH_BIN"
    else:
        candidate, origin = "latch", "PATH"
    if os.sep in candidate or (os.altsep is not None and os.altsep in candidate):
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
        raise LatchNotFound(f"latch binary not found: {candidate!r} (from {origin}) is not an executable file", candidate)
    found = shutil.which(candidate, path=environ.get("PATH"))
    if found is None and binary is None and not environ.get("LATCH_BIN"):
        found = _bundled_binary()
    if found is None:
        raise LatchNotFound(
            f"latch binary not found: no {candidate!r} on PATH (from {origin}); "
            "pass binary=..., set $LATCH_BIN, or install latch",
            candidate,
        )
    return found


def _bundled_binary() -> Optional[str]:
    """The binary of the ``latch-bin`` wheel, when it is installed."""
    try:
        from latch_bin import find_latch_bin  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    try:
        return str(find_latch_bin())
    except FileNotFoundError:
        return None


def initialize_params(config: Union[Config, Mapping[str, Any], None], overrides: Mapping[str, Any]) -> Dict[str, Any]:
    """The params of ``initialize``: ``config`` updated by keyword arguments.

    ``None`` values are left out (latch's default applies) and paths are
    turned into text. Keys are passed on as they are, so a key latch does
    not know is reported by the server, naming it.
    """
    merged: Dict[str, Any] = dict(config or {})
    merged.update(overrides)
    params: Dict[str, Any] = {}
    for key, value in merged.items():
        if value is None:
            continue
        if key in _PATH_KEYS and isinstance(value, os.PathLike):
            value = os.fspath(value)
        elif key in ("plugin_dirs", "dialects") and not isinstance(value, (str, bytes)):
            value = [os.fspath(v) if isinstance(v, os.PathLike) else v for v in value]
        params[key] = value
    return params


def line_limit(env: Optional[Mapping[str, str]]) -> int:
    """The longest line the server reads: the event size limit plus 1 MiB."""
    environ = os.environ if env is None else env
    raw = environ.get(MAX_EVENT_VAR, "").strip()
    try:
        limit = int(raw) if raw else DEFAULT_EVENT_LIMIT
    except ValueError:
        limit = DEFAULT_EVENT_LIMIT
    return (limit if limit > 0 else DEFAULT_EVENT_LIMIT) + LINE_SLACK


class StderrTail:
    """The last lines the server wrote on stderr."""

    def __init__(self, max_lines: int = 50) -> None:
        self._lines: collections.deque[str] = collections.deque(maxlen=max_lines)

    def add(self, line: bytes) -> None:
        """Keep one line (and log it at debug level)."""
        text = line.decode("utf-8", "replace").rstrip("\n")
        logger.debug("latch serve stderr: %s", text)
        self._lines.append(text)

    def text(self) -> str:
        """The kept lines, joined."""
        return "\n".join(self._lines)


# --------------------------------------------------------------------------
# Framing
# --------------------------------------------------------------------------


def _encode(message: Dict[str, Any]) -> bytes:
    return json.dumps(message, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8") + b"\n"


def encode_request(request_id: int, method: str, params: Any, limit: int) -> bytes:
    """One request line.

    :raises InvalidRequest: when the line is over the server's limit (the
        server would answer it with ``"id": null``, which no request can
        be matched with, so it is refused here).
    :raises TypeError, ValueError: when ``params`` is not JSON.
    """
    message: Dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    line = _encode(message)
    if len(line) > limit:
        raise InvalidRequest(
            InvalidRequest.CODE,
            f"the request is {len(line)} bytes, over the server's line limit of {limit} bytes "
            f"(the event size limit plus 1 MiB; see ${MAX_EVENT_VAR})",
            method=method,
        )
    return line


def encode_notification(method: str, params: Any = None) -> bytes:
    """One notification line."""
    message: Dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return _encode(message)


@dataclass(frozen=True)
class Response:
    """A response: ``error`` is set, else ``result`` is the result."""

    id: Any
    result: Any = None
    error: Optional[Dict[str, Any]] = None


def parse_line(line: bytes) -> Union[Response, Notification, None]:
    """Parse one line from the server; ``None`` (logged) when it is not a
    JSON-RPC message, which is a server bug."""
    try:
        message = json.loads(line)
    except ValueError:
        logger.warning("latch serve wrote a line that is not JSON: %r", line[:200])
        return None
    if not isinstance(message, dict):
        logger.warning("latch serve wrote JSON that is not an object: %r", line[:200])
        return None
    if "method" in message and "id" not in message:
        return make_notification(str(message["method"]), message.get("params"))
    if "id" in message and ("result" in message or "error" in message):
        error = message.get("error")
        if error is not None and not isinstance(error, dict):
            error = {"code": -32603, "message": f"malformed error: {error!r}"}
        return Response(message["id"], message.get("result"), error)
    logger.warning("latch serve wrote a message that is neither a response nor a notification: %r", line[:200])
    return None


def drop_none(params: Mapping[str, Any]) -> Dict[str, Any]:
    """A copy of ``params`` without ``None`` values."""
    return {k: v for k, v in params.items() if v is not None}


def check_event(event: Any) -> Dict[str, Any]:
    """The event as a ``dict`` to send (only its type is checked here: latch
    validates the rest and names any bad field)."""
    if not isinstance(event, Mapping):
        raise TypeError(f"an event is a mapping (a dict), not {type(event).__name__}")
    return dict(event)


def server_args(extra: Sequence[str]) -> List[str]:
    """The arguments after the binary."""
    return ["serve", *extra]
