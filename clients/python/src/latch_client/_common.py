"""Options both clients take."""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple, Union

from . import _protocol
from .errors import LatchClosed
from .types import Config, Diagnostic, InitializeResult, StrPath


class Unset(enum.Enum):
    """The type of :data:`UNSET`."""

    UNSET = enum.auto()


UNSET = Unset.UNSET
"""An argument left out (a ``timeout`` of ``None`` means "no limit")."""


@dataclass(frozen=True)
class ClientOptions:
    """A client's settings, checked once."""

    params: Dict[str, Any]
    binary: Optional[StrPath]
    cwd: Optional[str]
    env: Optional[Dict[str, str]]
    timeout: Optional[float]
    start_timeout: float
    close_timeout: float
    cancel_grace: float
    line_limit: int

    @classmethod
    def make(
        cls,
        config: Union[Config, Mapping[str, Any], None],
        options: Mapping[str, Any],
        binary: Optional[StrPath],
        cwd: Optional[StrPath],
        env: Optional[Mapping[str, str]],
        timeout: Optional[float],
        start_timeout: float,
        close_timeout: float,
        cancel_grace: float,
    ) -> ClientOptions:
        """Merge the configuration and check the options."""
        for name, value in (
            ("timeout", timeout),
            ("start_timeout", start_timeout),
            ("close_timeout", close_timeout),
            ("cancel_grace", cancel_grace),
        ):
            if value is not None and value < 0:
                raise ValueError(f"{name} must not be negative, got {value}")
        environment = None if env is None else dict(env)
        return cls(
            params=_protocol.initialize_params(config, options),
            binary=binary,
            cwd=None if cwd is None else os.fspath(cwd),
            env=environment,
            timeout=timeout,
            start_timeout=start_timeout,
            close_timeout=close_timeout,
            cancel_grace=cancel_grace,
            line_limit=_protocol.line_limit(environment),
        )

    def find_binary(self) -> str:
        """The executable to start, as an absolute path (see
        :func:`_protocol.find_binary`): ``$LATCH_BIN`` and ``PATH`` are
        those of ``env`` when it is given."""
        return _protocol.find_binary(self.binary, self.env)

    @staticmethod
    def event(event: Any) -> Dict[str, Any]:
        """The event as params."""
        return _protocol.check_event(event)


class InitializeInfo:
    """What ``initialize`` said, for both clients."""

    _init: Optional[InitializeResult]

    @property
    def initialize_result(self) -> InitializeResult:
        """The result of ``initialize``.

        :raises LatchClosed: before :meth:`open`.
        """
        if self._init is None:
            raise LatchClosed("the client is not open")
        return self._init

    @property
    def dialects(self) -> List[str]:
        """The dialects the server loaded."""
        return self.initialize_result["dialects"]

    @property
    def diagnostics(self) -> List[Diagnostic]:
        """The load diagnostics ``initialize`` reported."""
        return self.initialize_result["diagnostics"]


def callback_for(
    note: _protocol.Notification,
    on_async_result: Optional[Callable[[Any], Any]],
    on_diagnostics: Optional[Callable[[Any], Any]],
) -> Optional[Tuple[Callable[[Any], Any], Any]]:
    """The callback a notification goes to, and its argument: an async
    hook's answer, or the diagnostics notification itself; ``None`` when
    no callback takes it."""
    if isinstance(note, _protocol.AsyncResultNotification):
        return (on_async_result, note.result) if on_async_result is not None else None
    if isinstance(note, _protocol.DiagnosticsNotification):
        return (on_diagnostics, note) if on_diagnostics is not None else None
    return None
