"""The synchronous client: :class:`Client`."""

from __future__ import annotations

import queue
import subprocess
import threading
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from types import TracebackType
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Type, Union, cast

from ._common import UNSET, ClientOptions, InitializeInfo, Unset
from ._protocol import (
    AsyncResultNotification,
    DiagnosticsNotification,
    Notification,
    Response,
    StderrTail,
    encode_notification,
    encode_request,
    logger,
    parse_line,
)
from .errors import LatchClientError, LatchClosed, LatchDied, LatchError, LatchNotFound, LatchTimeout
from .types import (
    AsyncResult,
    Config,
    Diagnostic,
    Event,
    ExplainEntry,
    InitializeResult,
    Outcome,
    StrPath,
    TrustedHook,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["Client"]


class Client(InitializeInfo):
    """A ``latch serve`` process, driven synchronously.

    Use it as a context manager: entering starts the server and sends
    ``initialize`` with the configuration (a :class:`~latch_client.Config`
    and/or keyword arguments, which win); leaving sends ``shutdown`` (which
    waits for the fires in flight) and ``exit``, and waits for the process.
    Leaving because of an exception skips ``shutdown``: ``exit`` cancels
    whatever still runs. Every wait is bounded by ``close_timeout``; a
    server that does not exit in time is killed.

    ``fire`` and ``explain`` may be called from several threads at once;
    events of different sessions then run concurrently in the server.

    Notification callbacks run on a thread of the client's own, one at a
    time, in the order the server sent them; they may call :meth:`fire`.

    :param config: the configuration, as a :class:`~latch_client.Config`.
    :param binary: the ``latch`` executable; else ``$LATCH_BIN``, else
        ``latch`` on ``PATH``.
    :param cwd: the server's working directory (``project`` defaults to it).
    :param env: the server's environment (default: this process's).
    :param on_async_result: called with each ``latch/asyncResult``.
    :param on_diagnostics: called with the diagnostics of each
        ``latch/diagnostics``.
    :param timeout: the default ``timeout`` of :meth:`fire` and
        :meth:`explain` (``None``: wait as long as the hooks run).
    :param start_timeout: how long ``initialize`` may take.
    :param close_timeout: how long each step of closing may take.
    :param cancel_grace: after a ``fire`` timed out and was cancelled, how
        long to wait for the outcome of what ran.
    :param options: configuration keys, as in :class:`~latch_client.Config`.
    """

    def __init__(
        self,
        config: Union[Config, Mapping[str, Any], None] = None,
        *,
        binary: Optional[StrPath] = None,
        cwd: Optional[StrPath] = None,
        env: Optional[Mapping[str, str]] = None,
        on_async_result: Optional[Callable[[AsyncResult], object]] = None,
        on_diagnostics: Optional[Callable[[List[Diagnostic]], object]] = None,
        timeout: Optional[float] = None,
        start_timeout: float = 30.0,
        close_timeout: float = 10.0,
        cancel_grace: float = 10.0,
        **options: Unpack[Config],
    ) -> None:
        self._opts = ClientOptions.make(
            config, options, binary, cwd, env, timeout, start_timeout, close_timeout, cancel_grace
        )
        self._on_async_result = on_async_result
        self._on_diagnostics = on_diagnostics
        self._proc: Optional[subprocess.Popen[bytes]] = None
        self._init: Optional[InitializeResult] = None
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._next_id = 0
        self._pending: Dict[int, Tuple[str, Future[Any]]] = {}
        self._failure: Optional[LatchClientError] = None
        self._closing = False
        self._stderr = StderrTail()
        self._notes: queue.SimpleQueue[Optional[Notification]] = queue.SimpleQueue()
        self._threads: List[threading.Thread] = []
        self._stdout_thread = self._stderr_thread = self._notify_thread = threading.Thread()

    # ------------------------------------------------------------------
    # Lifecycle
    # ------------------------------------------------------------------

    def __enter__(self) -> Client:
        self.open()
        return self

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()

    def open(self) -> InitializeResult:
        """Start ``latch serve`` and send ``initialize``; return its result.

        :raises LatchNotFound: no ``latch`` binary.
        :raises InvalidParams: a configuration key latch does not know.
        :raises LatchDied: the server exited during ``initialize``.
        :raises LatchTimeout: ``initialize`` took longer than ``start_timeout``.
        """
        if self._proc is not None:
            raise LatchClosed("this client was already started; make a new one")
        binary = self._opts.find_binary()
        try:
            self._proc = subprocess.Popen(
                [binary, "serve"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=self._opts.cwd,
                env=self._opts.env,
            )
        except (FileNotFoundError, PermissionError) as error:
            raise LatchNotFound(f"latch binary {binary!r} could not be started: {error}", binary) from error
        # The stdout reader starts last: when it sees the end of the output
        # it joins the stderr reader, to report the end of stderr.
        self._stderr_thread, self._notify_thread, self._stdout_thread = self._threads = [
            threading.Thread(target=target, name=f"latch-client-{name}-{self._proc.pid}", daemon=True)
            for target, name in (
                (self._read_stderr, "stderr"),
                (self._dispatch_notifications, "notifications"),
                (self._read_stdout, "stdout"),
            )
        ]
        for thread in self._threads:
            thread.start()
        try:
            result = self._call("initialize", self._opts.params, self._opts.start_timeout)
        except BaseException:
            self.abort()
            raise
        self._init = cast(InitializeResult, result)
        return self._init

    def close(self, timeout: Optional[float] = None) -> None:
        """Send ``shutdown`` (waiting for the fires in flight) and ``exit``,
        then wait for the process; kill it if a step takes longer than
        ``timeout`` (default: ``close_timeout``). Closing twice does nothing."""
        self._stop(graceful=True, timeout=timeout)

    def abort(self, timeout: Optional[float] = None) -> None:
        """Send ``exit`` at once, cancelling whatever still runs, and wait for
        the process (killed after ``timeout``). The fires in flight get the
        outcome of what ran, which latch sends before it exits (else they
        raise :class:`~latch_client.LatchClosed`)."""
        self._stop(graceful=False, timeout=timeout)

    def _stop(self, graceful: bool, timeout: Optional[float]) -> None:
        proc = self._proc
        with self._lock:
            if proc is None or self._closing:
                return
            self._closing = True
        limit = self._opts.close_timeout if timeout is None else timeout
        alive = self._failure is None and proc.poll() is None
        if alive and graceful:
            try:
                self._call("shutdown", None, limit)
            except LatchClientError as error:
                logger.warning("latch serve did not shut down cleanly: %s", error)
        if alive:
            try:
                self._write(encode_notification("exit"))
            except LatchClientError:
                pass
        try:
            assert proc.stdin is not None
            proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(limit)
        except subprocess.TimeoutExpired:
            logger.warning("latch serve did not exit within %ss; killing it", limit)
            proc.kill()
            proc.wait()
        # Read what the server wrote before it exited: after `exit` (or the
        # end of its input) it still answers the fires in flight with the
        # outcome of what ran.
        for thread in (self._stdout_thread, self._stderr_thread):
            if thread is not threading.current_thread():
                thread.join(limit)
        self._fail(LatchClosed("the client was closed"))
        if self._notify_thread is not threading.current_thread():
            self._notify_thread.join(limit)

    # ------------------------------------------------------------------
    # Requests
    # ------------------------------------------------------------------

    def fire(self, event: Union[Event, Mapping[str, Any]], *, timeout: Union[float, None, Unset] = UNSET) -> Outcome:
        """Run the hooks of one event and return the outcome.

        When ``timeout`` (default: the client's ``timeout``) passes, the
        dispatch is cancelled (``$/cancelRequest``: the running hook is
        killed and no further hook starts) and the outcome of what ran is
        returned: it carries the warning ``dispatch cancelled: …`` (see
        :func:`~latch_client.is_cancelled`), and a deny decided before the
        cancel stays. An interrupt (``KeyboardInterrupt``) while waiting
        also cancels the dispatch, then propagates.

        :raises InvalidParams: the event is not valid; the message names the field.
        :raises LatchDied: the server exited.
        :raises LatchTimeout: not even the cancelled outcome came within ``cancel_grace``.
        """
        request_id, future = self._send("fire", self._opts.event(event))
        wait = self._opts.timeout if isinstance(timeout, Unset) else timeout
        try:
            return cast(Outcome, future.result(wait))
        except FutureTimeout:
            self._cancel(request_id)
            try:
                return cast(Outcome, future.result(self._opts.cancel_grace))
            except FutureTimeout:
                self._forget(request_id)
                raise LatchTimeout(
                    f"fire did not answer within {wait}s, nor within {self._opts.cancel_grace}s of its cancel"
                ) from None
        except BaseException:
            if not future.done():
                self._cancel(request_id)
                self._forget(request_id)
            raise

    def explain(
        self, event: Union[Event, Mapping[str, Any]], *, timeout: Union[float, None, Unset] = UNSET
    ) -> List[ExplainEntry]:
        """Every configured hook, whether it would run for ``event``, and why.
        Nothing runs.

        :raises InvalidParams: the event is not valid.
        :raises LatchTimeout: no answer within ``timeout``.
        """
        wait = self._opts.timeout if isinstance(timeout, Unset) else timeout
        return cast(List[ExplainEntry], self._call("explain", self._opts.event(event), wait))

    def trust_list(self, *, timeout: Union[float, None, Unset] = UNSET) -> List[TrustedHook]:
        """Every hook the project's configuration loads, with its trust state
        (``trust/list``; docs/trust.md). A harness shows these in its own
        approval prompt.

        :raises LatchTimeout: no answer within ``timeout``.
        """
        wait = self._opts.timeout if isinstance(timeout, Unset) else timeout
        return cast(List[TrustedHook], self._call("trust/list", None, wait))

    def trust_approve(
        self,
        hooks: Sequence[str] = (),
        *,
        all: bool = False,
        timeout: Union[float, None, Unset] = UNSET,
    ) -> List[Dict[str, str]]:
        """Approves hooks as they are now: those named (by label, or
        ``FILE:LINE``), or every one that needs approval with ``all=True``.
        Returns the approved ones.

        :raises InvalidParams: a name matches no loaded hook, or none is given.
        """
        wait = self._opts.timeout if isinstance(timeout, Unset) else timeout
        result = self._call("trust/approve", {"hooks": list(hooks), "all": all}, wait)
        return cast(List[Dict[str, str]], result["approved"])

    def trust_revoke(
        self,
        hooks: Sequence[str] = (),
        *,
        all: bool = False,
        timeout: Union[float, None, Unset] = UNSET,
    ) -> List[Dict[str, str]]:
        """Withdraws approvals (as :meth:`trust_approve` names hooks).
        Returns the hooks whose approval was withdrawn."""
        wait = self._opts.timeout if isinstance(timeout, Unset) else timeout
        result = self._call("trust/revoke", {"hooks": list(hooks), "all": all}, wait)
        return cast(List[Dict[str, str]], result["revoked"])

    def cancel(self, request_id: int) -> None:
        """Send ``$/cancelRequest`` for a request id (unknown ids are ignored)."""
        self._cancel(request_id)

    # ------------------------------------------------------------------
    # What initialize said, and the process
    # ------------------------------------------------------------------

    @property
    def pid(self) -> Optional[int]:
        """The server's process id, once started."""
        return None if self._proc is None else self._proc.pid

    @property
    def returncode(self) -> Optional[int]:
        """The server's exit code once it exited, else ``None``."""
        return None if self._proc is None else self._proc.poll()

    @property
    def stderr_tail(self) -> str:
        """The last lines the server wrote on stderr."""
        return self._stderr.text()

    # ------------------------------------------------------------------
    # Plumbing
    # ------------------------------------------------------------------

    def _call(self, method: str, params: Any, timeout: Optional[float]) -> Any:
        request_id, future = self._send(method, params, internal=method == "shutdown")
        try:
            return future.result(timeout)
        except FutureTimeout:
            self._forget(request_id)
            raise LatchTimeout(f"{method} did not answer within {timeout}s") from None

    def _send(self, method: str, params: Any, internal: bool = False) -> Tuple[int, Future[Any]]:
        future: Future[Any] = Future()
        with self._lock:
            if self._proc is None:
                raise LatchClosed("the client is not open; use `with Client(...)` or call open()")
            if self._failure is not None:
                raise self._failure
            if self._closing and not internal:
                raise LatchClosed("the client is closing")
            self._next_id += 1
            request_id = self._next_id
            line = encode_request(request_id, method, params, self._opts.line_limit)
            self._pending[request_id] = (method, future)
        try:
            self._write(line)
        except BaseException:
            self._forget(request_id)
            raise
        return request_id, future

    def _cancel(self, request_id: int) -> None:
        try:
            self._write(encode_notification("$/cancelRequest", {"id": request_id}))
        except LatchClientError:
            pass

    def _forget(self, request_id: int) -> None:
        with self._lock:
            self._pending.pop(request_id, None)

    def _write(self, line: bytes) -> None:
        proc = self._proc
        assert proc is not None and proc.stdin is not None
        try:
            with self._write_lock:
                proc.stdin.write(line)
                proc.stdin.flush()
        except (OSError, ValueError):
            # The pipe is closed: the server is gone. Let the reader see the
            # end of its output and say why.
            self._stdout_thread.join(self._opts.close_timeout)
            raise self._failure or LatchDied(proc.poll(), self._stderr.text()) from None

    def _read_stdout(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        for line in iter(proc.stdout.readline, b""):
            message = parse_line(line)
            if isinstance(message, Response):
                self._resolve(message)
            elif message is not None:
                self._notes.put(message)
        proc.stdout.close()
        # The end of the server's output: it exited (or is about to).
        if self._closing:
            error: LatchClientError = LatchClosed("the client was closed")
        else:
            try:
                returncode: Optional[int] = proc.wait(self._opts.close_timeout)
            except subprocess.TimeoutExpired:
                returncode = None
            self._stderr_thread.join(1.0)
            error = LatchDied(returncode, self._stderr.text())
        self._fail(error)

    def _read_stderr(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stderr is not None
        for line in iter(proc.stderr.readline, b""):
            self._stderr.add(line)
        proc.stderr.close()

    def _resolve(self, response: Response) -> None:
        with self._lock:
            entry = self._pending.pop(response.id, None) if isinstance(response.id, int) else None
        if entry is None:
            if response.error is not None:
                logger.warning("latch serve answered an error no request is waiting for: %s", response.error)
            else:
                logger.debug("latch serve answered request %r, which no one waits for any more", response.id)
            return
        method, future = entry
        if response.error is not None:
            future.set_exception(LatchError.from_error(response.error, method))
        else:
            future.set_result(response.result)

    def _fail(self, error: LatchClientError) -> None:
        with self._lock:
            if self._failure is None:
                self._failure = error
            pending, self._pending = self._pending, {}
        for _, future in pending.values():
            if not future.done():
                future.set_exception(error)
        self._notes.put(None)

    def _dispatch_notifications(self) -> None:
        while True:
            note = self._notes.get()
            if note is None:
                return
            try:
                if isinstance(note, AsyncResultNotification):
                    if self._on_async_result is not None:
                        self._on_async_result(note.result)
                elif isinstance(note, DiagnosticsNotification):
                    if self._on_diagnostics is not None:
                        self._on_diagnostics(note.diagnostics)
                else:
                    logger.debug("ignored notification %s", note.method)
            except Exception:
                logger.exception("a latch notification callback raised")

    def __repr__(self) -> str:
        state = "not started" if self._proc is None else ("closed" if self._closing else f"pid {self._proc.pid}")
        return f"<latch_client.Client {state}>"
