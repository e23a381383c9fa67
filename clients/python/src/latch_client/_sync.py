"""The synchronous client: :class:`Client`."""

from __future__ import annotations

import os
import queue
import select
import subprocess
import threading
import time
import warnings
import weakref
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from types import TracebackType
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Type, Union, cast

from ._common import UNSET, ClientOptions, InitializeInfo, Unset, callback_for
from ._protocol import (
    STDERR_CHUNK,
    DiagnosticsNotification,
    Notification,
    Response,
    StderrTail,
    WarningBudget,
    encode_notification,
    encode_request,
    logger,
    own_process_group,
    parse_line,
)
from .errors import LatchClosed, LatchDied, LatchError, LatchNotFound, LatchRpcError, LatchTimeout
from .types import (
    AsyncResult,
    Config,
    Event,
    ExplainEntry,
    InitializeResult,
    Outcome,
    StrPath,
    TrustedHook,
)

if TYPE_CHECKING:
    from typing import Unpack

__all__ = ["Client"]

_PIPE_BUF: int = getattr(select, "PIPE_BUF", 512)
"""A pipe takes a write of at most this many bytes whole, or not at all."""

_EXIT = encode_notification("exit")
"""The ``exit`` notification, as the line written to the server."""


class Client(InitializeInfo):
    """A ``latch serve`` process, driven synchronously.

    Use it as a context manager: entering starts the server and sends
    ``initialize`` with the configuration (a :class:`~latch_client.Config`
    and/or keyword arguments, which win); leaving sends ``shutdown`` (which
    waits for the fires in flight) and ``exit``, and waits for the process.
    Leaving because of an exception skips ``shutdown``: ``exit`` cancels
    whatever still runs. Every wait is bounded by ``close_timeout``; a
    server that does not exit in time gets ``SIGTERM`` (latch then cancels
    what still runs, kills every hook's process group and exits), and is
    killed if it does not exit within ``close_timeout`` more. A client opened and never
    closed is closed when it is garbage collected, with a
    :class:`ResourceWarning`: its server's input ends, and latch exits.

    The server runs in a process group of its own, so that a terminal's
    Ctrl-C reaches only the harness: the ``KeyboardInterrupt`` cancels the
    dispatch it interrupted (see :meth:`fire`) and the client stays usable.

    ``fire`` and ``explain`` may be called from several threads at once;
    events of different sessions then run concurrently in the server.

    Notification callbacks run on a thread of the client's own, one at a
    time, in the order the server sent them; they may call :meth:`fire`.

    :param config: the configuration, as a :class:`~latch_client.Config`.
    :param binary: the ``latch`` executable; else ``$LATCH_BIN``, else
        ``latch`` on ``PATH``. A relative path is taken from this process's
        working directory, not from ``cwd``.
    :param cwd: the server's working directory (``project`` defaults to it).
    :param env: the server's environment (default: this process's). When
        given, ``$LATCH_BIN`` and ``PATH`` are looked up in it to find the
        binary.
    :param on_async_result: called with each ``latch/asyncResult``.
    :param on_diagnostics: called with each ``latch/diagnostics``, a
        :class:`DiagnosticsNotification`: a configuration loaded for a new
        working directory, or reloaded after an edit on disk (its
        ``reloaded``, ``kept`` and ``reason`` say what is in use).
    :param timeout: the default ``timeout`` of :meth:`fire` and
        :meth:`explain` (``None``: wait as long as the hooks run).
    :param start_timeout: how long ``initialize`` may take.
    :param close_timeout: how long each step of closing may take.
    :param cancel_grace: after a ``fire`` timed out and was cancelled, how
        long to wait for the outcome of what ran.

    Every timeout, here and in the methods, is in seconds; ``None`` or
    ``math.inf`` is no limit, and NaN or a negative number raises
    ``ValueError`` before anything is sent.
    :param options: configuration keys, as in :class:`~latch_client.Config`.
    """

    def __init__(
        self,
        config: Optional[Config] = None,
        *,
        binary: Optional[StrPath] = None,
        cwd: Optional[StrPath] = None,
        env: Optional[Mapping[str, str]] = None,
        on_async_result: Optional[Callable[[AsyncResult], object]] = None,
        on_diagnostics: Optional[Callable[[DiagnosticsNotification], object]] = None,
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
        self._channel: Optional[_Channel] = None
        self._finalizer: Optional[weakref.finalize[Any, Client]] = None
        self._init: Optional[InitializeResult] = None

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
        if self._channel is not None:
            raise LatchClosed("this client was already started; make a new one")
        binary = self._opts.find_binary()
        try:
            proc = subprocess.Popen(
                [binary, "serve"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=self._opts.cwd,
                env=self._opts.env,
                **own_process_group(),
            )
        except (FileNotFoundError, PermissionError) as error:
            raise LatchNotFound(f"latch binary {binary!r} could not be started: {error}", binary) from error
        channel = self._channel = _Channel(proc, self._opts, self._on_async_result, self._on_diagnostics)
        # The client's threads hold the channel, never the client, so that
        # a client nobody closed can be collected, and end its server then.
        self._finalizer = weakref.finalize(self, _collected, channel)
        self._finalizer.atexit = False
        channel.start()
        try:
            result = channel.call("initialize", self._opts.params, self._opts.start_timeout)
        except BaseException:
            self.abort()
            raise
        self._init = cast(InitializeResult, result)
        return self._init

    def close(self, timeout: Optional[float] = None) -> None:
        """Send ``shutdown`` (waiting for the fires in flight) and ``exit``,
        then wait for the process. Each step may take ``timeout`` (default:
        ``close_timeout``; ``math.inf``: no limit): a server that does not
        exit in time gets ``SIGTERM``, on which latch cancels what still
        runs, kills every hook's process group and exits; one that does not
        exit within ``timeout`` more is killed (``SIGKILL``, which would
        leave the hooks running). Closing twice does nothing.

        An interrupt (``KeyboardInterrupt``) while the fires in flight finish
        sends ``exit`` at once, as :meth:`abort` does, then propagates:
        latch cancels what still runs, kills every hook's process group and
        exits. A later ``close()`` or ``abort()`` waits for it."""
        self._stop(graceful=True, timeout=timeout)

    def abort(self, timeout: Optional[float] = None) -> None:
        """Send ``exit`` at once, cancelling whatever still runs, and wait for
        the process (stopped as :meth:`close` does after ``timeout``). The fires in flight get the
        outcome of what ran, which latch sends before it exits (else they
        raise :class:`~latch_client.LatchClosed`). During a :meth:`close`
        (in another thread) this cancels the fires it waits for, and that
        close returns too."""
        self._stop(graceful=False, timeout=timeout)

    def _stop(self, graceful: bool, timeout: Optional[float]) -> None:
        if self._channel is None:
            return
        limit = self._opts.close_limit(timeout)
        if self._finalizer is not None:
            self._finalizer.detach()
        self._channel.stop(graceful, limit)

    # ------------------------------------------------------------------
    # Requests
    # ------------------------------------------------------------------

    def fire(
        self,
        event: Event,
        *,
        timeout: Union[float, None, Unset] = UNSET,
        cancel: Optional[threading.Event] = None,
    ) -> Outcome:
        """Run the hooks of one event and return the outcome.

        When ``timeout`` (default: the client's ``timeout``) passes, or
        another thread sets ``cancel``, the dispatch is cancelled
        (``$/cancelRequest``: the running hook is killed and no further
        hook starts) and the outcome of what ran is returned: it carries the
        warning ``dispatch cancelled: …`` (see
        :func:`~latch_client.is_cancelled`), and a deny decided before the
        cancel stays. An interrupt (``KeyboardInterrupt``) while waiting
        also cancels the dispatch, then propagates; the client stays
        usable (an interrupt never leaves a request half written).

        ``timeout`` and ``cancel`` count while the request is written too:
        a server that reads nothing (flow control, docs/serve.md) may hold
        the write. If the request is not written whole when the timeout
        passes or ``cancel`` is set, :class:`~latch_client.LatchTimeout` is
        raised at once: a request not started is dropped, one going out is
        finished and cancelled. A ``cancel`` set before the call sends
        nothing, and raises the same way: no hook runs.

        :raises InvalidParams: the event is not valid; the message names the field.
        :raises LatchDied: the server exited.
        :raises LatchTimeout: not even the cancelled outcome came within
            ``cancel_grace``; or the request was not written whole in time,
            or ``cancel`` was set before it was (see above).
        :raises ValueError: ``timeout`` is NaN or negative (nothing is sent).
        """
        channel = self._open_channel()
        params = self._opts.event(event)
        wait = self._opts.wait(timeout)
        if cancel is not None and cancel.is_set():
            # Sent, the fire would run hooks until its cancel arrived.
            raise LatchTimeout("fire was cancelled before it was sent; nothing ran")
        deadline = _deadline(wait)
        try:
            request_id, future = channel.send("fire", params, deadline=deadline, cancel=cancel)
        except _NotWritten:
            why = "was cancelled" if cancel is not None and cancel.is_set() else f"could not be sent within {wait}s"
            raise LatchTimeout(
                f"fire {why} before its request was written whole (latch reads nothing under flow control, "
                "docs/serve.md): a request not started was dropped, one going out is cancelled"
            ) from None
        try:
            return cast(Outcome, _wait(future, deadline, cancel))
        except FutureTimeout:
            grace = _deadline(self._opts.cancel_grace)
            channel.cancel(request_id, grace)
            try:
                return cast(Outcome, future.result(_remaining(grace)))
            except FutureTimeout:
                channel.forget(request_id)
                why = "was cancelled" if cancel is not None and cancel.is_set() else f"did not answer within {wait}s"
                raise LatchTimeout(
                    f"fire {why}, and latch did not answer within {self._opts.cancel_grace}s of its cancel"
                ) from None
        except BaseException:
            if not future.done():
                channel.cancel(request_id)
                channel.forget(request_id)
            raise

    def explain(
        self, event: Event, *, timeout: Union[float, None, Unset] = UNSET
    ) -> List[ExplainEntry]:
        """Every configured hook, whether it would run for ``event``, and why.
        Nothing runs.

        :raises InvalidParams: the event is not valid.
        :raises LatchTimeout: no answer within ``timeout``.
        """
        wait = self._opts.wait(timeout)
        return cast(List[ExplainEntry], self._call("explain", self._opts.event(event), wait))

    def trust_list(self, *, timeout: Union[float, None, Unset] = UNSET) -> List[TrustedHook]:
        """Every hook the project's configuration loads, with its trust state
        (``trust/list``; docs/trust.md). A harness shows these in its own
        approval prompt.

        :raises LatchTimeout: no answer within ``timeout``.
        """
        wait = self._opts.wait(timeout)
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
        wait = self._opts.wait(timeout)
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
        wait = self._opts.wait(timeout)
        result = self._call("trust/revoke", {"hooks": list(hooks), "all": all}, wait)
        return cast(List[Dict[str, str]], result["revoked"])

    # ------------------------------------------------------------------
    # What initialize said, and the process
    # ------------------------------------------------------------------

    @property
    def pid(self) -> Optional[int]:
        """The server's process id, once started."""
        return None if self._channel is None else self._channel.proc.pid

    @property
    def returncode(self) -> Optional[int]:
        """The server's exit code once it exited, else ``None``."""
        return None if self._channel is None else self._channel.proc.poll()

    @property
    def stderr_tail(self) -> str:
        """The last lines the server wrote on stderr (each cut at 8 KiB)."""
        return "" if self._channel is None else self._channel.stderr.text()

    def _open_channel(self) -> _Channel:
        if self._channel is None:
            raise LatchClosed("the client is not open; use `with Client(...)` or call open()")
        return self._channel

    def _call(self, method: str, params: Any, timeout: Optional[float]) -> Any:
        return self._open_channel().call(method, params, timeout)

    def __repr__(self) -> str:
        channel = self._channel
        state = "not started" if channel is None else ("closed" if channel.closing else f"pid {channel.proc.pid}")
        return f"<latch_client.Client {state}>"


def _collected(channel: _Channel) -> None:
    """A :class:`Client` opened and never closed was garbage collected."""
    if channel.closing:
        return
    warnings.warn(
        f"latch_client.Client was never closed: ending the input of latch serve (pid {channel.proc.pid}); "
        "use `with Client(...) as latch:` or call close()",
        ResourceWarning,
        stacklevel=2,
    )
    channel.abandon()


#: How often a wait looks at a ``cancel`` event (a ``threading.Event``
#: cannot wake a wait on a future, so the wait is cut in slices).
_CANCEL_POLL = 0.01
# How often a writing thread waiting for its turn asks whether its line is
# still wanted.
_LOCK_POLL = 0.05


def _deadline(wait: Optional[float]) -> Optional[float]:
    """The ``time.monotonic()`` at which a wait of ``wait`` seconds ends
    (``None``: never)."""
    return None if wait is None else time.monotonic() + wait


def _remaining(deadline: Optional[float]) -> Optional[float]:
    """The seconds left until ``deadline`` (``None``: no limit)."""
    return None if deadline is None else max(0.0, deadline - time.monotonic())


def _wait(future: Future[Any], deadline: Optional[float], cancel: Optional[threading.Event]) -> Any:
    """``future.result()`` until ``deadline``, ending early with
    ``FutureTimeout`` when ``cancel`` is set."""
    if cancel is None:
        return future.result(_remaining(deadline))
    while True:
        if cancel.is_set():
            raise FutureTimeout()
        step = _CANCEL_POLL if deadline is None else min(_CANCEL_POLL, _remaining(deadline) or 0.0)
        try:
            return future.result(step)
        except FutureTimeout:
            if deadline is not None and time.monotonic() >= deadline:
                raise


def _wait_event(event: threading.Event, deadline: Optional[float], cancel: Optional[threading.Event]) -> bool:
    """``event.wait()`` until ``deadline``, ending early when ``cancel`` is
    set: whether ``event`` was set."""
    if cancel is None:
        return event.wait(_remaining(deadline))
    while not cancel.is_set():
        step = _CANCEL_POLL if deadline is None else min(_CANCEL_POLL, _remaining(deadline) or 0.0)
        if event.wait(step):
            return True
        if deadline is not None and time.monotonic() >= deadline:
            return False
    return event.is_set()


class _Channel:
    """A running ``latch serve`` and what the client's threads share with the
    callers: the requests waiting for an answer, the writing of lines, the
    readers of the server's output.

    The threads hold this object and never the :class:`Client`, so that a
    client nobody closed can be garbage collected (see :func:`_collected`).
    """

    def __init__(
        self,
        proc: subprocess.Popen[bytes],
        opts: ClientOptions,
        on_async_result: Optional[Callable[[AsyncResult], object]],
        on_diagnostics: Optional[Callable[[DiagnosticsNotification], object]],
    ) -> None:
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        self.proc = proc
        self._opts = opts
        self._on_async_result = on_async_result
        self._on_diagnostics = on_diagnostics
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._stdin_fd = proc.stdin.fileno()
        self._stdin_open = True  # guarded by _write_lock
        self._next_id = 0
        self._pending: Dict[int, Tuple[str, Future[Any]]] = {}
        self._cut_lines = 0  # lines cut short, whose parse errors are expected
        self.failure: Optional[LatchError] = None
        self.closing = False  # no new requests (guarded by _lock, as are the next three)
        self._shutdown: Optional[Future[Any]] = None  # the answer to `shutdown`, once sent
        self._exited = False  # `exit` sent and stdin closed, or about to be
        self._stopped = False  # a stop ran to its end
        self.stderr = StderrTail()
        self._warnings = WarningBudget()
        self._notes: queue.SimpleQueue[Optional[Notification]] = queue.SimpleQueue()
        # The stdout reader starts last: when it sees the end of the output
        # it joins the stderr reader, to report the end of stderr.
        self._stderr_thread, self._notify_thread, self._stdout_thread = self._threads = [
            threading.Thread(target=target, name=f"latch-client-{name}-{proc.pid}", daemon=True)
            for target, name in (
                (self._read_stderr, "stderr"),
                (self._dispatch_notifications, "notifications"),
                (self._read_stdout, "stdout"),
            )
        ]

    def start(self) -> None:
        """Start the threads."""
        for thread in self._threads:
            thread.start()

    # ------------------------------------------------------------------
    # Closing
    # ------------------------------------------------------------------

    def stop(self, graceful: bool, limit: Optional[float]) -> None:
        """``Client.close`` (``graceful``) or ``Client.abort``.

        Each call does what is left to do, so that a close that was
        interrupted is finished by the next one, and an abort during a close
        (from another thread) ends the server at once: the close then goes
        on from there. A close while another waits for ``shutdown`` waits
        for the same answer.
        """
        deadline = _deadline(limit)
        with self._lock:
            if self._stopped:
                return
            self.closing = True
            shutdown = self._shutdown
            start = graceful and shutdown is None and not self._exited and self.failure is None
            if start:
                shutdown = self._shutdown = Future()
        try:
            if start:
                assert shutdown is not None
                self._send_shutdown(shutdown, deadline)
            if graceful and shutdown is not None and not self._exited:
                try:
                    shutdown.result(_remaining(deadline))
                except FutureTimeout:
                    logger.warning("latch serve did not shut down cleanly: shutdown did not answer within %ss", limit)
                except LatchError as error:
                    logger.warning("latch serve did not shut down cleanly: %s", error)
        except BaseException:
            # Interrupted (Ctrl-C) while the fires in flight finish: cancel
            # them as abort() does, so that latch kills every hook's process
            # group and exits; the stdout reader reaps it, and a later
            # close() or abort() finishes the job.
            self._end_input(limit)
            raise
        self._end_input(limit)
        self._wait_exit(limit)
        # Read what the server wrote before it exited: after `exit` (or the
        # end of its input) it still answers the fires in flight with the
        # outcome of what ran.
        for thread in (self._stdout_thread, self._stderr_thread):
            if thread is not threading.current_thread():
                thread.join(limit)
        self.fail(LatchClosed("the client was closed"))
        if self._notify_thread is not threading.current_thread():
            self._notify_thread.join(limit)
        with self._lock:
            self._stopped = True

    def _wait_exit(self, limit: Optional[float]) -> None:
        """Wait for the process to exit, after its end of input. After
        ``limit``, ``SIGTERM`` it: latch then cancels what still runs, kills
        every hook's process group and exits (a ``SIGKILL`` would leave the
        hooks running, docs/serve.md). After ``limit`` more, ``SIGKILL`` it."""
        proc = self.proc
        try:
            proc.wait(limit)
            return
        except subprocess.TimeoutExpired:
            pass
        logger.warning("latch serve did not exit within %ss; stopping it (SIGTERM)", limit)
        proc.terminate()
        try:
            proc.wait(limit)
        except subprocess.TimeoutExpired:
            logger.warning("latch serve did not exit within %ss of SIGTERM; killing it", limit)
            proc.kill()
            proc.wait()

    def _send_shutdown(self, future: Future[Any], deadline: Optional[float]) -> None:
        """Send ``shutdown``, whose answer resolves ``future`` (a server gone
        already fails it, as does one that reads nothing until ``deadline``)."""
        # Each outcome sets the future only if nothing did first (the
        # reader fails every pending request when the server goes).
        if self.proc.poll() is not None:
            if not future.done():
                future.set_result(None)
            return
        try:
            self.send("shutdown", None, internal=True, future=future, deadline=deadline)
        except LatchError as error:
            if not future.done():
                future.set_exception(error)
        except _NotWritten:
            if not future.done():
                future.set_exception(LatchTimeout("shutdown could not be sent: latch read no input"))
        except BaseException:
            # Interrupted: the request was dropped, and nothing answers it.
            if not future.done():
                future.set_exception(LatchClosed("the close was interrupted"))
            raise

    def abandon(self) -> None:
        """The client was collected unclosed: end the server's input without
        waiting. latch then exits (cancelling what still runs), and the
        stdout reader reaps it."""
        with self._lock:
            if self.closing:
                return
            self.closing = True
        if self._write_lock.acquire(blocking=False):
            try:
                self._close_stdin()
            finally:
                self._write_lock.release()
            return
        try:  # A notification callback is writing: end the input once it is done.
            threading.Thread(target=self._end_input, args=(self._opts.close_timeout,), daemon=True).start()
        except RuntimeError:  # the interpreter is exiting, which ends the input too
            pass

    def _end_input(self, limit: Optional[float]) -> None:
        """Send ``exit`` and close the server's stdin (once): latch cancels
        whatever still runs, kills every hook's process group and exits."""
        with self._lock:
            self._exited = True
        if not self._write_lock.acquire(timeout=-1 if limit is None else limit):
            # A write is stuck on a server that reads nothing: free it. On
            # SIGTERM latch cancels what still runs, kills every hook's
            # process group and exits, which ends the write; SIGKILL (which
            # would leave the hooks running) only if it does not.
            logger.warning("latch serve read nothing for %ss; stopping it (SIGTERM)", limit)
            self.proc.terminate()
            if not self._write_lock.acquire(timeout=-1 if limit is None else limit):
                logger.warning("latch serve did not exit within %ss of SIGTERM; killing it", limit)
                self.proc.kill()
                self._write_lock.acquire()
        try:
            if self._stdin_open and self.failure is None:
                # A line shorter than PIPE_BUF goes out whole when the pipe
                # has room; when it has none, the end of input says the same.
                # poll(), not select(): a descriptor past 1023 is fine.
                poller = select.poll()
                poller.register(self._stdin_fd, select.POLLOUT)
                if poller.poll(0):
                    try:
                        os.write(self._stdin_fd, _EXIT)
                    except OSError:
                        pass
            self._close_stdin()
        finally:
            self._write_lock.release()

    def _close_stdin(self) -> None:
        # The caller holds the write lock, so the descriptor is not written
        # to (nor reused by another file) as it closes.
        if self._stdin_open:
            self._stdin_open = False
            assert self.proc.stdin is not None
            try:
                self.proc.stdin.close()
            except OSError:
                pass

    # ------------------------------------------------------------------
    # Requests
    # ------------------------------------------------------------------

    def call(self, method: str, params: Any, timeout: Optional[float], internal: bool = False) -> Any:
        """Send a request and wait for its result, ``timeout`` counting from
        the start of the write."""
        deadline = _deadline(timeout)
        try:
            request_id, future = self.send(method, params, internal, deadline=deadline)
        except _NotWritten:
            raise LatchTimeout(f"{method} could not be sent within {timeout}s: latch read no input meanwhile") from None
        try:
            return future.result(_remaining(deadline))
        except FutureTimeout:
            self.forget(request_id)
            raise LatchTimeout(f"{method} did not answer within {timeout}s") from None
        except BaseException:
            if not future.done():
                self.forget(request_id)
            raise

    def send(
        self,
        method: str,
        params: Any,
        internal: bool = False,
        future: Optional[Future[Any]] = None,
        deadline: Optional[float] = None,
        cancel: Optional[threading.Event] = None,
    ) -> Tuple[int, Future[Any]]:
        """Send a request; its id and the future of its result (``future``,
        if given).

        :raises _NotWritten: the request was not written whole by
            ``deadline``, or before ``cancel`` was set (see :meth:`write`);
            no one waits for its answer.
        """
        if future is None:
            future = Future()
        with self._lock:
            if self.failure is not None:
                raise self.failure
            if self.closing and not internal:
                raise LatchClosed("the client is closing")
            self._next_id += 1
            request_id = self._next_id
            line = encode_request(request_id, method, params)
            self._pending[request_id] = (method, future)
        # A fire interrupted as it is written may have gone out: cancel it.
        then = encode_notification("$/cancelRequest", {"id": request_id}) if method == "fire" else None
        try:
            self.write(line, then, deadline, cancel)
        except BaseException:
            self.forget(request_id)
            raise
        return request_id, future

    def cancel(self, request_id: int, deadline: Optional[float] = None) -> None:
        """Send ``$/cancelRequest`` (nothing if the server is gone). With a
        ``deadline``, wait for the write until then at most: a server that
        reads nothing holds it, and it goes out once the server reads."""
        line = encode_notification("$/cancelRequest", {"id": request_id})
        if deadline is None:
            self._write_quietly(line)
            return
        written = threading.Event()

        def run() -> None:
            try:
                self._write_quietly(line)
            finally:
                written.set()

        threading.Thread(target=run, name=f"latch-client-cancel-{self.proc.pid}", daemon=True).start()
        written.wait(_remaining(deadline))

    def _write_quietly(self, line: bytes) -> None:
        try:
            self.write(line)
        except LatchError:
            pass

    def forget(self, request_id: int) -> None:
        """Stop waiting for a request's answer."""
        with self._lock:
            self._pending.pop(request_id, None)

    # ------------------------------------------------------------------
    # Writing
    # ------------------------------------------------------------------

    def write(
        self,
        line: bytes,
        then: Optional[bytes] = None,
        deadline: Optional[float] = None,
        cancel: Optional[threading.Event] = None,
    ) -> None:
        """Write one line to the server's stdin, whole.

        A line cut short would have the next one glued to it, and the server
        would answer neither. Only the main thread gets the exceptions of
        signal handlers (``KeyboardInterrupt``), and a pipe takes a write of
        at most ``PIPE_BUF`` bytes whole or not at all; so the main thread
        hands a longer line to a thread of its own, which finishes it even
        when the caller is interrupted meanwhile. ``then`` is written after
        ``line`` when the caller is interrupted while ``line`` may have gone
        out (a fire's ``$/cancelRequest``).

        With a ``deadline`` (a ``time.monotonic()``) or a ``cancel`` event,
        any line goes to a thread of its own, as a server that reads nothing
        holds the write (flow control, or another thread's line stuck
        before it): when the deadline passes or ``cancel`` is set first, a
        line not started is dropped, one going out is finished and followed
        by ``then``, and :class:`_NotWritten` is raised.

        :raises LatchDied: the server is gone (its stdin is closed).
        :raises _NotWritten: the line was not written whole in time.
        """
        bounded = deadline is not None or cancel is not None
        done = False
        error: Optional[BaseException] = None
        if bounded and len(line) <= _PIPE_BUF:
            # Most lines are short and the pipe has room: written here, at
            # once, without a thread (which would double a fire's cost).
            try:
                done, error = self._write_at_once(line)
            except BaseException:
                if then is not None:
                    self.write_line(then)
                raise
        if not done and (
            bounded or (len(line) > _PIPE_BUF and threading.current_thread() is threading.main_thread())
        ):
            job = _WriteJob(self, line, then)
            threading.Thread(target=job.run, name=f"latch-client-write-{self.proc.pid}", daemon=True).start()
            try:
                written = _wait_event(job.finished, deadline, cancel)
            except BaseException:
                if not job.abandon() and then is not None and job.error is None:
                    self.write_line(then)
                raise
            if not written and job.abandon():
                raise _NotWritten()
            error = job.error
        elif not done:
            try:
                error = self.write_line(line)
            except BaseException:
                if then is not None:
                    self.write_line(then)
                raise
        if error is not None:
            if not isinstance(error, OSError):
                raise error
            # The pipe is closed: the server is gone. Let the reader see the
            # end of its output and say why.
            if self._stdout_thread is not threading.current_thread():
                self._stdout_thread.join(self._opts.close_timeout)
            raise self.failure or LatchDied(self.proc.poll(), self.stderr.text()) from None

    def _write_at_once(self, line: bytes) -> Tuple[bool, Optional[OSError]]:
        """Write ``line`` (at most ``PIPE_BUF`` bytes) only if that needs no
        wait: the write lock is free and the pipe takes it now. Whether it
        was written (or the pipe failed), and the pipe's error if any.

        The write is non-blocking for its duration: a pipe takes a write of
        at most ``PIPE_BUF`` bytes whole or not at all, so the line is never
        cut short."""
        if not self._write_lock.acquire(blocking=False):
            return False, None
        try:
            if not self._stdin_open:
                return True, BrokenPipeError("the server's stdin is closed")
            try:
                # Inside the `try`: an interrupt raised as this returns
                # still finds the pipe blocking again (and `write_line`
                # waits out a pipe left non-blocking all the same).
                os.set_blocking(self._stdin_fd, False)
                os.write(self._stdin_fd, line)
            except BlockingIOError:
                return False, None
            except OSError as error:
                return True, error
            finally:
                os.set_blocking(self._stdin_fd, True)
            return True, None
        finally:
            self._write_lock.release()

    def write_line(
        self,
        line: bytes,
        start: Optional[Callable[[], bool]] = None,
        wanted: Optional[Callable[[], bool]] = None,
    ) -> Optional[OSError]:
        """Write ``line`` whole, holding the write lock; the pipe's error, if
        any (the server is gone). ``start``, called once the lock is held,
        says whether to write it after all; ``wanted``, asked while the lock
        is held by a line stuck behind a server that reads nothing, whether
        to go on waiting (a job its caller gave up on does not: its thread
        ends)."""
        while not self._write_lock.acquire(timeout=-1 if wanted is None else _LOCK_POLL):
            if wanted is not None and not wanted():
                return None
        try:
            if not self._stdin_open:
                return BrokenPipeError("the server's stdin is closed")
            if start is not None and not start():
                return None
            view = memoryview(line)
            try:
                while view:
                    try:
                        view = view[os.write(self._stdin_fd, view) :]
                    except BlockingIOError:  # left non-blocking (see _write_at_once)
                        select.select([], [self._stdin_fd], [])
            except OSError as error:
                return error
            except BaseException:
                # Not a signal handler's exception (see write): one raised
                # into another thread. A long line may be cut short: end it,
                # so that the server refuses it (a parse error) and reads
                # the next line as a line of its own.
                if len(line) > _PIPE_BUF:
                    self._end_cut_line()
                raise
        finally:
            self._write_lock.release()
        return None

    def _end_cut_line(self) -> None:
        # The caller holds the write lock. An empty line (if the line was
        # whole after all) is ignored by the server.
        with self._lock:
            self._cut_lines += 1
        try:
            os.write(self._stdin_fd, b"\n")
        except OSError:
            pass

    # ------------------------------------------------------------------
    # Reading
    # ------------------------------------------------------------------

    def _read_stdout(self) -> None:
        proc = self.proc
        assert proc.stdout is not None
        for line in iter(proc.stdout.readline, b""):
            message = parse_line(line, self._warnings)
            if isinstance(message, Response):
                self._resolve(message)
            elif message is not None:
                self._notes.put(message)
        proc.stdout.close()
        # The end of the server's output: it exited (or is about to).
        try:
            returncode: Optional[int] = proc.wait(self._opts.close_timeout)
        except subprocess.TimeoutExpired:
            returncode = None
        if self.closing:
            error: LatchError = LatchClosed("the client was closed")
        else:
            self._stderr_thread.join(1.0)
            error = LatchDied(returncode, self.stderr.text())
        self.fail(error)

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        stderr = self.proc.stderr
        while True:
            try:
                chunk = os.read(stderr.fileno(), STDERR_CHUNK)
            except OSError:
                break
            if not chunk:
                break
            self.stderr.feed(chunk)
        self.stderr.end()
        stderr.close()

    def _resolve(self, response: Response) -> None:
        with self._lock:
            entry = self._pending.pop(response.id, None) if isinstance(response.id, int) else None
            expected = entry is None and self._cut_lines > 0 and _is_parse_error(response)
            if expected:
                self._cut_lines -= 1
        if entry is None:
            if expected:
                logger.debug("latch serve refused the line that was cut short: %s", response.error)
            elif response.error is not None:
                self._warnings.warning("latch serve answered an error no request is waiting for: %s", response.error)
            else:
                logger.debug("latch serve answered request %r, which no one waits for any more", response.id)
            return
        method, future = entry
        if future.done():  # failed meanwhile (an interrupted close)
            return
        if response.error is not None:
            future.set_exception(LatchRpcError.from_error(response.error, method))
        else:
            future.set_result(response.result)

    def fail(self, error: LatchError) -> None:
        """Fail every request waiting, and every later one, with ``error``
        (the first failure stays)."""
        with self._lock:
            if self.failure is None:
                self.failure = error
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
            target = callback_for(note, self._on_async_result, self._on_diagnostics)
            if target is None:
                logger.debug("notification %s has no callback", note.method)
                continue
            callback, argument = target
            try:
                callback(argument)
            except Exception:
                logger.exception("a latch notification callback raised")


def _is_parse_error(response: Response) -> bool:
    return response.id is None and response.error is not None and response.error.get("code") == -32700


class _NotWritten(Exception):
    """A caller stopped waiting for its line before it was written whole
    (see :meth:`_Channel.write`)."""


class _WriteJob:
    """A line that a caller hands to a thread of its own to write, so that
    it may stop waiting (interrupted, or out of time) without leaving the
    line half written (see :meth:`_Channel.write`)."""

    def __init__(self, channel: _Channel, line: bytes, then: Optional[bytes]) -> None:
        self._channel = channel
        self._line = line
        self._then = then
        self.error: Optional[BaseException] = None
        self.finished = threading.Event()
        self._lock = threading.Lock()
        self._started = False
        self._abandoned = False

    def run(self) -> None:
        """Write the line (unless the caller stopped waiting before it
        started), then ``then`` if the caller stopped waiting meanwhile."""
        try:
            self.error = self._channel.write_line(self._line, self._start, self._wanted)
        except BaseException as error:  # not a signal's (see _Channel.write_line)
            self.error = error
        with self._lock:
            follow = self._abandoned and self._started
            self.finished.set()
        if follow and self._then is not None and self.error is None:
            self._channel.write_line(self._then)

    def _wanted(self) -> bool:
        """Whether the caller still waits for the line (asked while its
        turn to write has not come)."""
        with self._lock:
            return not self._abandoned

    def _start(self) -> bool:
        """Whether to write the line, asked with the write lock held: not
        once the caller stopped waiting."""
        with self._lock:
            self._started = not self._abandoned
            return self._started

    def abandon(self) -> bool:
        """The caller stopped waiting: True when the line was not written
        whole yet (dropped if it had not started, else finished and
        followed by ``then``), False when it was written already."""
        with self._lock:
            if self.finished.is_set():
                return False
            self._abandoned = True
            return True
