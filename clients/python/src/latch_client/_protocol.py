"""What the synchronous and the asyncio clients share: finding the binary,
the configuration, JSON-RPC framing and the notifications."""

from __future__ import annotations

import collections
import json
import logging
import os
import shutil
import threading
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from .errors import InvalidRequest, LatchNotFound
from .types import AsyncResult, Config, Diagnostic

logger = logging.getLogger("latch_client")

ASYNC_RESULT = "latch/asyncResult"
"""The method of the notification an ``async`` hook's answer comes with."""
DIAGNOSTICS = "latch/diagnostics"
"""The method of the notification of a configuration loaded after ``initialize``."""


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
    ``reason`` says why, and is ``None`` when nothing is kept.
    ``first_load`` tells a first load (``True``) from a reload."""

    diagnostics: List[Diagnostic]
    cwd: Optional[str] = None
    first_load: bool = False
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
            first_load=bool(params.get("first_load", False)),
            reloaded=bool(params.get("reloaded", True)),
            reason=params.get("reason"),
            kept=[str(k) for k in params.get("kept", [])],
        )
    return OtherNotification(method, params)


# --------------------------------------------------------------------------
# Starting the server
# --------------------------------------------------------------------------


def find_binary(binary: Union[str, "os.PathLike[str]", None], env: Optional[Mapping[str, str]] = None) -> str:
    """The ``latch`` executable to start, as an absolute path.

    ``binary`` when given, else ``$LATCH_BIN``, else ``latch`` on ``PATH``,
    else the binary of the ``latch-bin`` wheel if it is installed. A name
    without a directory is looked up on ``PATH``; a relative path is taken
    from this process's working directory (not the server's ``cwd``).

    ``$LATCH_BIN`` and ``PATH`` are those of ``env``, the server's
    environment, when it is given (without ``PATH`` there, the system's
    default search path, as for starting the process); else this
    process's.

    :raises LatchNotFound: when there is no such executable.
    """
    environ = os.environ if env is None else env
    where = "" if env is None else " of the env argument"
    if binary is not None:
        candidate, origin = os.fspath(binary), "the binary argument"
    elif environ.get("LATCH_BIN"):
        candidate, origin = environ["LATCH_BIN"], f"$LATCH_BIN{where}"
    else:
        candidate, origin = "latch", f"PATH{where}"
    if os.sep in candidate or (os.altsep is not None and os.altsep in candidate):
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
        raise LatchNotFound(f"latch binary not found: {candidate!r} (from {origin}) is not an executable file", candidate)
    found = shutil.which(candidate, path=environ.get("PATH", os.defpath))
    if found is None and binary is None and not environ.get("LATCH_BIN"):
        found = _bundled_binary()
    if found is None:
        raise LatchNotFound(
            f"latch binary not found: no {candidate!r} on PATH (from {origin}); "
            "pass binary=..., set $LATCH_BIN, or install latch",
            candidate,
        )
    return os.path.abspath(found)


def own_process_group() -> Dict[str, Any]:
    """The ``subprocess.Popen`` arguments that start the server in a process
    group of its own.

    A terminal's Ctrl-C sends SIGINT to its whole foreground process group:
    in the harness's group, latch would exit on it (cancelling every hook)
    while the harness, which gets a ``KeyboardInterrupt``, carries on. In a
    group of its own it gets only the ``$/cancelRequest`` the client sends,
    and it still exits when the harness does, at the end of its input.
    """
    return {"process_group": 0}


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
        elif key in ("plugin_dirs", "dialects", "trust") and not isinstance(value, (str, bytes)):
            value = [os.fspath(v) if isinstance(v, os.PathLike) else v for v in value]
        params[key] = value
    return params


MAX_STDERR_LINE = 8192
"""The most bytes kept of one stderr line (the Node client's limit too)."""

STDERR_CHUNK = 65536
"""How much of the server's stderr is read at a time."""


class StderrTail:
    """The last lines the server wrote on stderr, each cut at
    :data:`MAX_STDERR_LINE` bytes.

    It is fed the stream in chunks as they are read (:meth:`feed`), so a
    line without end never sits whole in memory. Each line is logged at
    debug level.
    """

    def __init__(self, max_lines: int = 50, max_line_bytes: int = MAX_STDERR_LINE) -> None:
        self._lines: collections.deque[str] = collections.deque(maxlen=max_lines)
        self._max_line = max_line_bytes
        self._partial = bytearray()
        self._cut = 0
        self._lock = threading.Lock()

    def feed(self, chunk: bytes) -> None:
        """Take the next chunk of the stream."""
        with self._lock:
            start = 0
            while True:
                end = chunk.find(b"\n", start)
                piece = chunk[start:] if end < 0 else chunk[start:end]
                room = self._max_line - len(self._partial)
                if len(piece) > room:
                    self._partial += piece[:room]
                    self._cut += len(piece) - room
                else:
                    self._partial += piece
                if end < 0:
                    return
                self._lines.append(self._finish())
                start = end + 1

    def end(self) -> None:
        """The end of the stream: keep its last line, if it had no newline."""
        with self._lock:
            if self._partial or self._cut:
                self._lines.append(self._finish())

    def _finish(self) -> str:
        text = self._partial.decode("utf-8", "replace")
        if self._cut:
            text += f" [... {self._cut} more bytes]"
        self._partial.clear()
        self._cut = 0
        logger.debug("latch serve stderr: %s", text)
        return text

    def text(self) -> str:
        """The kept lines, joined (with the line still being written, if any)."""
        with self._lock:
            lines = list(self._lines)
            if self._partial:
                lines.append(self._partial.decode("utf-8", "replace"))
        return "\n".join(lines)


class WarningBudget:
    """Logs the first warnings about what the server wrote, then one saying
    that further ones go to debug level: a binary that is not latch (or a
    broken one) can write a line of garbage per microsecond."""

    def __init__(self, limit: int = 10) -> None:
        self._limit = limit
        self._count = 0

    def warning(self, message: str, *args: Any) -> None:
        """Log ``message % args`` as a warning while the budget lasts."""
        self._count += 1
        if self._count <= self._limit:
            logger.warning(message, *args)
            if self._count == self._limit:
                logger.warning("latch serve: further warnings about its output are logged at debug level")
        else:
            logger.debug(message, *args)


# --------------------------------------------------------------------------
# Framing
# --------------------------------------------------------------------------


def _json_value(value: Any) -> Any:
    """A path (``pathlib.Path``, any ``os.PathLike``) is sent as its text;
    anything else JSON cannot hold stays an error."""
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _encode(message: Dict[str, Any]) -> bytes:
    text = json.dumps(message, ensure_ascii=False, allow_nan=False, separators=(",", ":"), default=_json_value)
    return text.encode("utf-8") + b"\n"


def encode_request(request_id: int, method: str, params: Any) -> bytes:
    """One request line. A line over the server's limit is sent too: latch
    skips it unread and answers ``InvalidRequest`` with its id (found in the
    line's first 4 KiB, where ``id`` comes first), as it does for the Node
    client; the limit is the server's to know (``$LATCH_MAX_EVENT_BYTES``).

    :raises TypeError, ValueError: when ``params`` is not JSON.
    """
    message: Dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return _encode(message)


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


def parse_line(line: bytes, warnings: Optional[WarningBudget] = None) -> Union[Response, Notification, None]:
    """Parse one line from the server; ``None`` (logged, through
    ``warnings`` when given) when it is not a JSON-RPC message, which is a
    server bug."""
    warn = logger.warning if warnings is None else warnings.warning
    try:
        message = json.loads(line)
    except ValueError:
        warn("latch serve wrote a line that is not JSON: %r", line[:200])
        return None
    if not isinstance(message, dict):
        warn("latch serve wrote JSON that is not an object: %r", line[:200])
        return None
    if "method" in message and "id" not in message:
        return make_notification(str(message["method"]), message.get("params"))
    if "id" in message and ("result" in message or "error" in message):
        error = message.get("error")
        if error is not None and not isinstance(error, dict):
            error = {"code": -32603, "message": f"malformed error: {error!r}"}
        return Response(message["id"], message.get("result"), error)
    warn("latch serve wrote a message that is neither a response nor a notification: %r", line[:200])
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
