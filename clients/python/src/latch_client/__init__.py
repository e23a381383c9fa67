"""A client for ``latch serve``, latch's JSON-RPC engine for harnesses.

::

    from latch_client import Client

    with Client(dialects=["claude"], project=".") as latch:
        outcome = latch.fire({"event": "tool_before", "session_id": "s1",
                              "tool": {"name": "Bash", "input": {"command": "ls"}}})
        if outcome["decision"] == "deny":
            ...

:class:`Client` is synchronous (and thread-safe); :class:`AsyncClient`
is its asyncio twin. Events and outcomes are plain dictionaries, typed
with the ``TypedDict`` classes of :mod:`latch_client.types`.
:mod:`latch_client.claude` rebuilds the user message Claude Code sends to
the model from tool results and outcomes' ``context`` entries.
"""

from . import claude
from ._async import AsyncClient, NotificationStream
from ._protocol import (
    ASYNC_RESULT,
    DIAGNOSTICS,
    AsyncResultNotification,
    DiagnosticsNotification,
    Notification,
    OtherNotification,
    find_binary,
)
from ._sync import Client
from ._version import __version__
from .errors import (
    InternalError,
    InvalidParams,
    InvalidRequest,
    LatchClosed,
    LatchDied,
    LatchError,
    LatchNotFound,
    LatchRpcError,
    LatchTimeout,
    MethodNotFound,
    NotInitialized,
    ParseError,
    ShuttingDown,
)
from .types import (
    AsyncResult,
    Config,
    Context,
    Continuation,
    Decision,
    Diagnostic,
    Event,
    EventKind,
    ExplainEntry,
    Halt,
    InitializeResult,
    Notice,
    Outcome,
    PermissionUpdates,
    Reason,
    Run,
    ToolCall,
    ToolServer,
    TrustedHook,
    is_cancelled,
)

__all__ = [
    "ASYNC_RESULT",
    "DIAGNOSTICS",
    "AsyncClient",
    "AsyncResult",
    "AsyncResultNotification",
    "Client",
    "Config",
    "Context",
    "Continuation",
    "Decision",
    "Diagnostic",
    "DiagnosticsNotification",
    "Event",
    "EventKind",
    "ExplainEntry",
    "Halt",
    "InitializeResult",
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
    "Notice",
    "Notification",
    "NotificationStream",
    "OtherNotification",
    "Outcome",
    "PermissionUpdates",
    "ParseError",
    "Reason",
    "Run",
    "ShuttingDown",
    "ToolCall",
    "ToolServer",
    "TrustedHook",
    "__version__",
    "claude",
    "find_binary",
    "is_cancelled",
]
