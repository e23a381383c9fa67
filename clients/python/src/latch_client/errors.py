"""The exceptions of latch_client.

Everything the client raises on its own derives from :class:`LatchError`:

- :class:`LatchNotFound`: no ``latch`` binary to start;
- :class:`LatchDied`: the server exited (or closed its output) unexpectedly;
- :class:`LatchTimeout`: the server did not answer in time;
- :class:`LatchClosed`: the client is not open (not started, or closed);
- :class:`LatchRpcError` and its subclasses: the server answered a request
  with a JSON-RPC error.
"""

from __future__ import annotations

from typing import Any, ClassVar, Dict, Optional, Type

__all__ = [
    "InternalError",
    "InvalidParams",
    "InvalidRequest",
    "LatchClosed",
    "LatchDied",
    "LatchError",
    "LatchNotFound",
    "LatchRpcError",
    "LatchTimeout",
    "MethodNotFound",
    "NotInitialized",
    "ParseError",
    "ShuttingDown",
]


class LatchError(Exception):
    """The base of every exception latch_client raises."""


class LatchNotFound(LatchError, FileNotFoundError):
    """No ``latch`` binary: not at the given path, ``$LATCH_BIN`` or on ``PATH``."""

    def __init__(self, message: str, binary: Optional[str] = None) -> None:
        super().__init__(message)
        self.binary = binary
        """The path or name that was looked for, when there was one."""

    def __str__(self) -> str:
        return str(self.args[0])


class LatchDied(LatchError):
    """The ``latch serve`` process exited, or closed its stdout, unexpectedly.

    Every request in flight and every later request raises it.
    """

    def __init__(self, returncode: Optional[int], stderr: str) -> None:
        self.returncode = returncode
        """The exit code (negative: killed by that signal), ``None`` if unknown."""
        self.stderr = stderr
        """The last lines the server wrote on stderr."""
        if returncode is None:
            how = "closed its output"
        elif returncode < 0:
            how = f"was killed by signal {-returncode}"
        else:
            how = f"exited with code {returncode}"
        message = f"latch serve {how}"
        if stderr.strip():
            message += "; the end of its stderr:\n" + stderr.rstrip("\n")
        super().__init__(message)


class LatchTimeout(LatchError, TimeoutError):
    """The server did not answer in time."""


class LatchClosed(LatchError):
    """The client is not running: it was never started, or it was closed."""


class LatchRpcError(LatchError):
    """The server answered a request with a JSON-RPC error.

    :meth:`from_error` picks the subclass for the code, so callers can
    catch :class:`InvalidParams` (a bad event or configuration key) and
    the like.
    """

    code: int
    """The JSON-RPC error code."""
    message: str
    """The server's message (for ``InvalidParams``, it names the field)."""
    data: Any
    """The error's ``data`` member, ``None`` when absent."""

    CODE: ClassVar[Optional[int]] = None
    _BY_CODE: ClassVar[Dict[int, Type[LatchRpcError]]] = {}

    def __init__(self, code: int, message: str, data: Any = None, method: Optional[str] = None) -> None:
        super().__init__(f"{message} (code {code})" if method is None else f"{method}: {message} (code {code})")
        self.code = code
        self.message = message
        self.data = data
        self.method = method
        """The method of the request that failed, when known."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.CODE is not None:
            LatchRpcError._BY_CODE[cls.CODE] = cls

    @staticmethod
    def from_error(error: Dict[str, Any], method: Optional[str] = None) -> LatchRpcError:
        """Build the exception for a JSON-RPC ``error`` object."""
        raw_code = error.get("code")
        code = raw_code if isinstance(raw_code, int) else -32603
        message = str(error.get("message", "unknown error"))
        cls = LatchRpcError._BY_CODE.get(code, LatchRpcError)
        return cls(code, message, error.get("data"), method)


class ParseError(LatchRpcError):
    """-32700: the server could not parse a line as JSON."""

    CODE = -32700


class InvalidRequest(LatchRpcError):
    """-32600: not a request (or a second ``initialize``, or a line too long)."""

    CODE = -32600


class MethodNotFound(LatchRpcError):
    """-32601: the server does not know the method."""

    CODE = -32601


class InvalidParams(LatchRpcError):
    """-32602: invalid params; the message names the field."""

    CODE = -32602


class InternalError(LatchRpcError):
    """-32603: latch could not run the request (a state directory it cannot use)."""

    CODE = -32603


class NotInitialized(LatchRpcError):
    """-32002: a request before ``initialize``."""

    CODE = -32002


class ShuttingDown(LatchRpcError):
    """-32003: a request after ``shutdown``."""

    CODE = -32003
