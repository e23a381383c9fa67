"""Options both clients take."""

from __future__ import annotations

import enum
import math
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


def check_timeout(name: str, value: Optional[float]) -> Optional[float]:
    """A timeout as given, checked before anything is sent: ``None`` or
    ``math.inf`` is no limit (``None``); NaN or a negative number is
    refused (``ValueError``)."""
    if value is None:
        return None
    if math.isnan(value) or value < 0:
        raise ValueError(f"{name} must be a number of seconds, not negative nor NaN, got {value}")
    return None if math.isinf(value) else value


@dataclass(frozen=True)
class ClientOptions:
    """A client's settings, checked once."""

    params: Dict[str, Any]
    binary: Optional[StrPath]
    cwd: Optional[str]
    env: Optional[Dict[str, str]]
    timeout: Optional[float]  # each of these four: None is no limit
    start_timeout: Optional[float]
    close_timeout: Optional[float]
    cancel_grace: Optional[float]

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
        return cls(
            params=_protocol.initialize_params(config, options),
            binary=binary,
            cwd=None if cwd is None else os.fspath(cwd),
            env=None if env is None else dict(env),
            timeout=check_timeout("timeout", timeout),
            start_timeout=check_timeout("start_timeout", start_timeout),
            close_timeout=check_timeout("close_timeout", close_timeout),
            cancel_grace=check_timeout("cancel_grace", cancel_grace),
        )

    def wait(self, timeout: Union[float, None, Unset]) -> Optional[float]:
        """A request's ``timeout``, checked (see :func:`check_timeout`):
        the client's ``timeout`` when left out."""
        return self.timeout if isinstance(timeout, Unset) else check_timeout("timeout", timeout)

    def close_limit(self, timeout: Optional[float]) -> Optional[float]:
        """The ``timeout`` of a close or abort, checked: ``close_timeout``
        when ``None``."""
        return self.close_timeout if timeout is None else check_timeout("timeout", timeout)

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
