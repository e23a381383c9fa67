"""The asyncio client: :class:`AsyncClient`."""

from __future__ import annotations

import asyncio
import inspect
import select
import signal
import warnings
import weakref
from types import TracebackType
from typing import (
    TYPE_CHECKING,
    Any,
    AsyncIterator,
    Callable,
    Dict,
    List,
    Mapping,
    Optional,
    Sequence,
    Set,
    Tuple,
    Type,
    Union,
    cast,
)

from ._common import UNSET, ClientOptions, InitializeInfo, Unset, callback_for
from ._protocol import (
    STDERR_CHUNK,
    AsyncResultNotification,
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

__all__ = ["AsyncClient", "NotificationStream"]

_READ_LIMIT = 1 << 30
"""The longest line read from the server (asyncio's default is 64 KiB)."""

_PIPE_BUF: int = getattr(select, "PIPE_BUF", 512)
"""A pipe takes a write of at most this many bytes whole, or not at all."""


class NotificationStream(AsyncIterator[Notification]):
    """The server's notifications, from the moment it was made (see
    :meth:`AsyncClient.notifications`).

    Iteration ends when the stream or the client closes, and raises
    :class:`~latch_client.LatchDied` if the server died.
    """

    def __init__(self, streams: Set[NotificationStream]) -> None:
        self._streams = streams
        self._queue: asyncio.Queue[Union[Notification, LatchError]] = asyncio.Queue()
        self._done = False

    def _put(self, item: Union[Notification, LatchError]) -> None:
        self._queue.put_nowait(item)

    def __aiter__(self) -> NotificationStream:
        return self

    async def __anext__(self) -> Notification:
        if self._done:
            raise StopAsyncIteration
        item = await self._queue.get()
        if isinstance(item, LatchError):
            self._done = True
            self._streams.discard(self)
            # Every other reader waiting ends the same way.
            self._queue.put_nowait(item)
            if isinstance(item, LatchClosed):
                raise StopAsyncIteration
            raise item
        return item

    def close(self) -> None:
        """Stop receiving notifications. A reader waiting for one (``async
        for``) ends, as iteration does when the client closes."""
        if self._done:
            return
        self._done = True
        self._streams.discard(self)
        self._queue.put_nowait(LatchClosed("the notification stream was closed"))

    async def aclose(self) -> None:
        """:meth:`close`, for ``contextlib.aclosing``::

            async with contextlib.aclosing(client.notifications()) as notes:
                async for note in notes:
                    ...
        """
        self.close()


class AsyncClient(InitializeInfo):
    """A ``latch serve`` process, driven from asyncio.

    Use it as an async context manager: entering starts the server and
    sends ``initialize`` with the configuration (a
    :class:`~latch_client.Config` and/or keyword arguments, which win);
    leaving sends ``shutdown`` (which waits for the fires in flight) and
    ``exit``, and waits for the process. Leaving because of an exception
    (a cancellation included) skips ``shutdown``: ``exit`` cancels whatever
    still runs. Every wait is bounded by ``close_timeout``; a server that
    does not exit in time gets ``SIGTERM`` (latch then cancels what still
    runs, kills every hook's process group and exits), and is killed if it
    does not exit within ``close_timeout`` more. A client opened and never closed ends
    its server's input, with a :class:`ResourceWarning`, when it is
    garbage collected or when its event loop ends (``asyncio.run``
    returns).

    Any number of :meth:`fire` calls may run at once (``asyncio.gather``,
    task groups); responses are matched to them by id.

    Notification callbacks run in the event loop, from the task that reads
    the server's output: a plain function must not block; a coroutine
    function is started as a task.

    The parameters are :class:`~latch_client.Client`'s.
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
        self._channel: Optional[_AsyncChannel] = None
        self._finalizer: Optional[weakref.finalize[Any, AsyncClient]] = None
        self._init: Optional[InitializeResult] = None
        self._streams: Set[NotificationStream] = set()

    # ------------------------------------------------------------------
    # Lifecycle
    # ------------------------------------------------------------------

    async def __aenter__(self) -> AsyncClient:
        await self.open()
        return self

    async def __aexit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        if exc_type is None:
            await self.aclose()
        else:
            await self.abort()

    async def open(self) -> InitializeResult:
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
            proc = await asyncio.create_subprocess_exec(
                binary,
                "serve",
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=self._opts.cwd,
                env=self._opts.env,
                limit=_READ_LIMIT,
                **own_process_group(),
            )
        except (FileNotFoundError, PermissionError) as error:
            raise LatchNotFound(f"latch binary {binary!r} could not be started: {error}", binary) from error
        channel = self._channel = _AsyncChannel(
            proc, self._opts, self._on_async_result, self._on_diagnostics, self._streams
        )
        # The channel's tasks hold the channel, never the client, so that a
        # client nobody closed can be collected, and end its server then.
        self._finalizer = weakref.finalize(self, _collected, channel)
        self._finalizer.atexit = False
        channel.start()
        try:
            result = await channel.call("initialize", self._opts.params, self._opts.start_timeout)
        except BaseException:
            await self.abort()
            raise
        self._init = cast(InitializeResult, result)
        return self._init

    async def aclose(self, timeout: Optional[float] = None) -> None:
        """Send ``shutdown`` (waiting for the fires in flight) and ``exit``,
        then wait for the process. Each step may take ``timeout`` (default:
        ``close_timeout``; ``math.inf``: no limit): a server that does not
        exit in time gets ``SIGTERM``, on which latch cancels what still
        runs, kills every hook's process group and exits; one that does not
        exit within ``timeout`` more is killed (``SIGKILL``, which would
        leave the hooks running). Closing twice does nothing.

        Cancelled while the fires in flight finish (as Ctrl-C under
        ``asyncio.run`` cancels the task in ``async with``), it sends
        ``exit`` at once, as :meth:`abort` does: latch cancels what still
        runs (the fires get the outcome of what ran), kills every hook's
        process group and exits. It waits for that (stopping the server as
        above only after ``timeout``), then raises
        :class:`asyncio.CancelledError`; cancelled again meanwhile, it sends
        ``SIGTERM`` at once (and ``SIGKILL`` after ``timeout``, if the event
        loop still runs)."""
        await self._stop(graceful=True, timeout=timeout)

    async def abort(self, timeout: Optional[float] = None) -> None:
        """Send ``exit`` at once, cancelling whatever still runs, and wait for
        the process (stopped as :meth:`aclose` does after ``timeout``). The fires in flight get the
        outcome of what ran, which latch sends before it exits (else they
        raise :class:`~latch_client.LatchClosed`). During an :meth:`aclose`
        (in another task) this cancels the fires it waits for, and that
        close returns too."""
        await self._stop(graceful=False, timeout=timeout)

    async def _stop(self, graceful: bool, timeout: Optional[float]) -> None:
        if self._channel is None:
            return
        limit = self._opts.close_limit(timeout)
        if self._finalizer is not None:
            self._finalizer.detach()
        await self._channel.stop(graceful, limit)

    # ------------------------------------------------------------------
    # Requests
    # ------------------------------------------------------------------

    async def fire(
        self, event: Event, *, timeout: Union[float, None, Unset] = UNSET
    ) -> Outcome:
        """Run the hooks of one event and return the outcome.

        Cancelling the task that awaits ``fire`` sends ``$/cancelRequest``
        (the running hook is killed, no further hook starts) and raises
        :class:`asyncio.CancelledError` at once, as asyncio expects; the
        outcome the server still sends for it is dropped.

        When ``timeout`` (default: the client's ``timeout``) passes, the
        dispatch is cancelled the same way, but the outcome of what ran is
        awaited and returned: it carries the warning ``dispatch cancelled:
        …`` (see :func:`~latch_client.is_cancelled`), and a deny decided
        before the cancel stays.

        ``timeout`` counts while the request is written too: a server that
        reads nothing (flow control, docs/serve.md) may hold the write. If
        the request is not written whole when the timeout passes, it is
        cancelled (it goes out whole, then its ``$/cancelRequest``) and
        :class:`~latch_client.LatchTimeout` is raised at once.

        :raises InvalidParams: the event is not valid; the message names the field.
        :raises LatchDied: the server exited.
        :raises LatchTimeout: not even the cancelled outcome came within
            ``cancel_grace``, or the request was not written whole in time.
        :raises ValueError: ``timeout`` is NaN or negative (nothing is sent).
        """
        channel = self._open_channel()
        params = self._opts.event(event)
        wait = self._opts.wait(timeout)
        deadline = channel.deadline(wait)
        try:
            request_id, future = await channel.send("fire", params, deadline=deadline)
        except _NotWritten:
            raise LatchTimeout(
                f"fire could not be sent within {wait}s: latch read no input meanwhile "
                "(flow control, docs/serve.md); it is cancelled"
            ) from None
        try:
            try:
                return cast(Outcome, await asyncio.wait_for(asyncio.shield(future), channel.remaining(deadline)))
            except asyncio.TimeoutError:
                channel.cancel(request_id)
                try:
                    return cast(Outcome, await asyncio.wait_for(future, self._opts.cancel_grace))
                except asyncio.TimeoutError:
                    raise LatchTimeout(
                        f"fire did not answer within {wait}s, and latch did not answer within {self._opts.cancel_grace}s of its cancel"
                    ) from None
        except asyncio.CancelledError:
            if not future.done():
                channel.cancel(request_id)
            raise
        finally:
            channel.forget(request_id)

    async def explain(
        self, event: Event, *, timeout: Union[float, None, Unset] = UNSET
    ) -> List[ExplainEntry]:
        """Every configured hook, whether it would run for ``event``, and why.
        Nothing runs.

        :raises InvalidParams: the event is not valid.
        :raises LatchTimeout: no answer within ``timeout``.
        """
        wait = self._opts.wait(timeout)
        return cast(List[ExplainEntry], await self._call("explain", self._opts.event(event), wait))

    async def trust_list(self, *, timeout: Union[float, None, Unset] = UNSET) -> List[TrustedHook]:
        """Every hook the project's configuration loads, with its trust state
        (``trust/list``; docs/trust.md). A harness shows these in its own
        approval prompt.

        :raises LatchTimeout: no answer within ``timeout``.
        """
        wait = self._opts.wait(timeout)
        return cast(List[TrustedHook], await self._call("trust/list", None, wait))

    async def trust_approve(
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
        result = await self._call("trust/approve", {"hooks": list(hooks), "all": all}, wait)
        return cast(List[Dict[str, str]], result["approved"])

    async def trust_revoke(
        self,
        hooks: Sequence[str] = (),
        *,
        all: bool = False,
        timeout: Union[float, None, Unset] = UNSET,
    ) -> List[Dict[str, str]]:
        """Withdraws approvals (as :meth:`trust_approve` names hooks).
        Returns the hooks whose approval was withdrawn."""
        wait = self._opts.wait(timeout)
        result = await self._call("trust/revoke", {"hooks": list(hooks), "all": all}, wait)
        return cast(List[Dict[str, str]], result["revoked"])

    def notifications(self) -> NotificationStream:
        """An async iterator over the notifications that arrive from now on::

            async for note in client.notifications():
                if isinstance(note, AsyncResultNotification):
                    ...

        Make it before firing the events whose notifications it should see.
        Each stream gets every notification; ``close()`` it when done.
        """
        stream = NotificationStream(self._streams)
        failure = None if self._channel is None else self._channel.failure
        if failure is not None:
            stream._put(failure)
        else:
            self._streams.add(stream)
        return stream

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
        return None if self._channel is None else self._channel.proc.returncode

    @property
    def stderr_tail(self) -> str:
        """The last lines the server wrote on stderr (each cut at 8 KiB)."""
        return "" if self._channel is None else self._channel.stderr.text()

    def _open_channel(self) -> _AsyncChannel:
        if self._channel is None:
            raise LatchClosed("the client is not open; use `async with AsyncClient(...)` or await open()")
        return self._channel

    async def _call(self, method: str, params: Any, timeout: Optional[float]) -> Any:
        return await self._open_channel().call(method, params, timeout)

    def __repr__(self) -> str:
        channel = self._channel
        state = "not started" if channel is None else ("closed" if channel.closing else f"pid {channel.proc.pid}")
        return f"<latch_client.AsyncClient {state}>"


def _collected(channel: _AsyncChannel) -> None:
    """An :class:`AsyncClient` opened and never closed was garbage collected."""
    if channel.closing:
        return
    warnings.warn(
        f"latch_client.AsyncClient was never closed: ending the input of latch serve (pid {channel.proc.pid}); "
        "use `async with AsyncClient(...) as latch:` or await aclose()",
        ResourceWarning,
        stacklevel=2,
    )
    channel.abandon()


class _AsyncChannel:
    """A running ``latch serve`` and what the client's tasks share with the
    callers: the requests waiting for an answer and the readers of the
    server's output.

    The tasks hold this object and never the :class:`AsyncClient`, so that
    a client nobody closed can be garbage collected (see :func:`_collected`).
    """

    def __init__(
        self,
        proc: asyncio.subprocess.Process,
        opts: ClientOptions,
        on_async_result: Optional[Callable[[AsyncResult], object]],
        on_diagnostics: Optional[Callable[[DiagnosticsNotification], object]],
        streams: Set[NotificationStream],
    ) -> None:
        self.proc = proc
        self._opts = opts
        self._on_async_result = on_async_result
        self._on_diagnostics = on_diagnostics
        self._streams = streams
        self._loop = asyncio.get_running_loop()
        self._next_id = 0
        self._pending: Dict[int, Tuple[str, asyncio.Future[Any]]] = {}
        self._cut_lines = 0  # lines cut short, whose parse errors are expected
        self.failure: Optional[LatchError] = None
        self.closing = False  # no new requests
        self._stopping = False
        self._shutdown: Optional[asyncio.Future[None]] = None  # the `shutdown` sent, until answered
        self._exited = False  # `exit` sent and stdin closed
        self._stopped = False  # a stop ran to its end
        self.stderr = StderrTail()
        self._warnings = WarningBudget()
        self._tasks: Set[asyncio.Task[Any]] = set()
        self._reader: Optional[asyncio.Task[None]] = None
        self._stderr_reader: Optional[asyncio.Task[None]] = None
        self._drain_lock = asyncio.Lock()

    def start(self) -> None:
        """Start reading the server's output."""
        self._reader = asyncio.ensure_future(self._read_stdout())
        self._stderr_reader = asyncio.ensure_future(self._read_stderr())

    # ------------------------------------------------------------------
    # Closing
    # ------------------------------------------------------------------

    async def stop(self, graceful: bool, limit: Optional[float]) -> None:
        """``AsyncClient.aclose`` (``graceful``) or ``AsyncClient.abort``.

        Each call does what is left to do: an abort during a close (from
        another task) ends the server at once, and the close then goes on
        from there; a close while another waits for ``shutdown`` waits for
        the same answer.
        """
        if self._stopped:
            return
        self.closing = self._stopping = True
        if graceful and self._shutdown is None and not self._exited and self.failure is None:
            self._shutdown = asyncio.ensure_future(self._send_shutdown(limit))
        try:
            if graceful and self._shutdown is not None and not self._exited:
                await asyncio.wait([self._shutdown])
        except asyncio.CancelledError:
            # Cancelled (Ctrl-C under asyncio.run) while the fires in flight
            # finish: cancel them as abort() does, so that latch kills every
            # hook's process group and exits (a SIGKILL would leave the
            # hooks running), finish, and then be cancelled.
            await self._finish(limit)
            raise
        await self._finish(limit)

    async def _send_shutdown(self, limit: Optional[float]) -> None:
        """Send ``shutdown`` and wait for its answer (the fires in flight)."""
        try:
            await self.call("shutdown", None, limit, internal=True)
        except LatchError as error:
            logger.warning("latch serve did not shut down cleanly: %s", error)

    async def _finish(self, limit: Optional[float]) -> None:
        """Send ``exit``, close stdin and wait for the process (stopped after
        ``limit``, see :meth:`_wait_exit`), then for what it wrote before it
        exited."""
        proc = self.proc
        self._end_input()
        try:
            await self._wait_exit(limit)
        except asyncio.CancelledError:
            # Cancelled again while latch exits: `exit` went out, so a
            # latch that still runs is stuck; no one will wait for it now.
            # SIGTERM still has it end its hooks; SIGKILL (which would leave
            # them running) only if it outlives ``limit`` with the loop.
            if proc.returncode is None:
                _terminate(proc)
                if limit is not None:
                    self._loop.call_later(limit, _kill, proc)
            raise
        # Read what the server wrote before it exited: after `exit` (or the
        # end of its input) it still answers the fires in flight with the
        # outcome of what ran.
        readers = [t for t in (self._reader, self._stderr_reader) if t is not None]
        if readers:
            _, late = await asyncio.wait(readers, timeout=limit)
            for task in late:
                task.cancel()
        self.fail(LatchClosed("the client was closed"))
        self._stopped = True

    async def _wait_exit(self, limit: Optional[float]) -> None:
        """Wait for the process to exit, after its end of input. After
        ``limit``, ``SIGTERM`` it: latch then cancels what still runs, kills
        every hook's process group and exits (a ``SIGKILL`` would leave the
        hooks running, docs/serve.md). After ``limit`` more, ``SIGKILL`` it."""
        proc = self.proc
        try:
            await asyncio.wait_for(proc.wait(), limit)
            return
        except asyncio.TimeoutError:
            pass
        logger.warning("latch serve did not exit within %ss; stopping it (SIGTERM)", limit)
        _terminate(proc)
        try:
            await asyncio.wait_for(proc.wait(), limit)
        except asyncio.TimeoutError:
            logger.warning("latch serve did not exit within %ss of SIGTERM; killing it", limit)
            _kill(proc)
            await proc.wait()

    def _end_input(self) -> None:
        """Send ``exit`` and close the server's stdin (once): latch cancels
        whatever still runs, kills every hook's process group and exits."""
        if self._exited:
            return
        self._exited = True
        if self.failure is None and self.proc.returncode is None:
            self._write_nowait(encode_notification("exit"))
        self._close_stdin()

    def abandon(self) -> None:
        """The client was collected unclosed: end the server's input. latch
        then exits (cancelling what still runs), and the stdout reader
        reaps it."""
        if self.closing:
            return
        self.closing = True
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        try:
            if running is self._loop:
                self._close_stdin()
            elif not self._loop.is_closed():
                self._loop.call_soon_threadsafe(self._close_stdin)
        except RuntimeError:  # the loop closed meanwhile, and the process exits with this one
            pass

    def _close_stdin(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()

    # ------------------------------------------------------------------
    # Requests
    # ------------------------------------------------------------------

    def deadline(self, wait: Optional[float]) -> Optional[float]:
        """The loop's time at which a wait of ``wait`` seconds ends
        (``None``: never)."""
        return None if wait is None else self._loop.time() + wait

    def remaining(self, deadline: Optional[float]) -> Optional[float]:
        """The seconds left until ``deadline`` (``None``: no limit)."""
        return None if deadline is None else max(0.0, deadline - self._loop.time())

    async def call(self, method: str, params: Any, timeout: Optional[float], internal: bool = False) -> Any:
        """Send a request and wait for its result, ``timeout`` counting from
        the start of the write."""
        deadline = self.deadline(timeout)
        try:
            request_id, future = await self.send(method, params, internal, deadline)
        except _NotWritten:
            raise LatchTimeout(f"{method} could not be sent within {timeout}s: latch read no input meanwhile") from None
        try:
            return await asyncio.wait_for(future, self.remaining(deadline))
        except asyncio.TimeoutError:
            raise LatchTimeout(f"{method} did not answer within {timeout}s") from None
        finally:
            self.forget(request_id)

    async def send(
        self, method: str, params: Any, internal: bool = False, deadline: Optional[float] = None
    ) -> Tuple[int, asyncio.Future[Any]]:
        """Send a request; its id and the future of its result.

        :raises _NotWritten: the request was not written whole by
            ``deadline`` (the loop's time): it goes out whole later (a
            fire's ``$/cancelRequest`` after it), and no one waits for its
            answer.
        """
        proc = self.proc
        if self.failure is not None:
            raise self.failure
        if self.closing and not internal:
            raise LatchClosed("the client is closing")
        self._next_id += 1
        request_id = self._next_id
        line = encode_request(request_id, method, params)
        future: asyncio.Future[Any] = self._loop.create_future()
        self._pending[request_id] = (method, future)
        assert proc.stdin is not None
        try:
            proc.stdin.write(line)
        except (ConnectionError, RuntimeError):
            self.forget(request_id)
            raise await self._died() from None
        except BaseException:
            # Only a signal handler's exception (KeyboardInterrupt) gets into
            # the transport's write, and it may cut a long line short (a
            # pipe takes at most PIPE_BUF bytes whole or not at all), which
            # would have the next line glued to it: end it, so that the
            # server refuses it (a parse error) and reads on.
            self.forget(request_id)
            if len(line) > _PIPE_BUF:
                self._cut_lines += 1
                self._write_nowait(b"\n")
            if method == "fire":
                self.cancel(request_id)
            raise
        try:
            # A server that reads nothing (flow control) holds the drain: a
            # line still in the buffer at the deadline is given up on.
            async with asyncio.timeout_at(deadline):
                async with self._drain_lock:
                    await proc.stdin.drain()
        except (ConnectionError, RuntimeError):
            # The server is gone. The line may have gone out before the
            # lines after it got stuck (flow control), and been answered
            # before latch exited (on SIGTERM, or at the end of its input).
            failure = await self._died()
            if future.done() and not future.cancelled():
                answer = future.exception()
                if answer is None or isinstance(answer, LatchRpcError):
                    return request_id, future
            self.forget(request_id)
            raise failure from None
        except BaseException as error:
            # Cancelled (or out of time) while the line was being written:
            # it is whole in the transport's buffer, and goes out.
            self.forget(request_id)
            if method == "fire":
                self.cancel(request_id)
            if isinstance(error, TimeoutError):
                raise _NotWritten() from None
            raise
        return request_id, future

    def cancel(self, request_id: int) -> None:
        """Send ``$/cancelRequest`` (nothing if the server is gone)."""
        self._write_nowait(encode_notification("$/cancelRequest", {"id": request_id}))

    def forget(self, request_id: int) -> None:
        """Stop waiting for a request's answer."""
        self._pending.pop(request_id, None)

    def _write_nowait(self, line: bytes) -> None:
        proc = self.proc
        if proc.stdin is None or proc.stdin.is_closing():
            return
        try:
            proc.stdin.write(line)
        except (ConnectionError, RuntimeError):
            pass

    async def _died(self) -> LatchError:
        """The failure once the server's output ended (waiting for it a little)."""
        if self._reader is not None and self.failure is None:
            await asyncio.wait([self._reader], timeout=self._opts.close_timeout)
        return self.failure or LatchDied(self.proc.returncode, self.stderr.text())

    # ------------------------------------------------------------------
    # Reading
    # ------------------------------------------------------------------

    async def _read_stdout(self) -> None:
        proc = self.proc
        assert proc.stdout is not None
        try:
            while True:
                try:
                    line = await proc.stdout.readline()
                except (ValueError, asyncio.LimitOverrunError) as overrun:  # a line over _READ_LIMIT
                    logger.error("latch serve wrote a line too long to read: %s", overrun)
                    break
                if not line:
                    break
                message = parse_line(line, self._warnings)
                if isinstance(message, Response):
                    self._resolve(message)
                elif message is not None:
                    self._notify(message)
        except asyncio.CancelledError:
            if not self._stopping:
                await self._loop_ending()
            raise
        # The end of the server's output: it exited (or is about to).
        try:
            returncode: Optional[int] = await asyncio.wait_for(proc.wait(), self._opts.close_timeout)
        except asyncio.TimeoutError:
            returncode = None
        if self.closing:
            error: LatchError = LatchClosed("the client was closed")
        else:
            if self._stderr_reader is not None:
                await asyncio.wait([self._stderr_reader], timeout=1.0)
            error = LatchDied(returncode, self.stderr.text())
        self.fail(error)

    async def _loop_ending(self) -> None:
        """The reader was cancelled while the client is open (or was collected
        unclosed): the event loop is ending, as ``asyncio.run`` cancels the
        tasks left. End the server, which would otherwise outlive the loop,
        and wait for it while the loop still runs."""
        if not self.closing:
            warnings.warn(
                f"latch_client.AsyncClient was not closed before its event loop ended: "
                f"ending the input of latch serve (pid {self.proc.pid})",
                ResourceWarning,
                stacklevel=1,
            )
            self.closing = True
        self._close_stdin()
        try:
            await self._wait_exit(self._opts.close_timeout)
        except asyncio.CancelledError:
            _terminate(self.proc)
        self.fail(LatchClosed("the client's event loop ended"))

    async def _read_stderr(self) -> None:
        proc = self.proc
        assert proc.stderr is not None
        while True:
            chunk = await proc.stderr.read(STDERR_CHUNK)
            if not chunk:
                break
            self.stderr.feed(chunk)
        self.stderr.end()

    def _resolve(self, response: Response) -> None:
        entry = self._pending.pop(response.id, None) if isinstance(response.id, int) else None
        if entry is None:
            if self._cut_lines > 0 and response.id is None and (response.error or {}).get("code") == -32700:
                self._cut_lines -= 1
                logger.debug("latch serve refused the line that was cut short: %s", response.error)
            elif response.error is not None:
                self._warnings.warning("latch serve answered an error no request is waiting for: %s", response.error)
            else:
                logger.debug("latch serve answered request %r, which no one waits for any more", response.id)
            return
        method, future = entry
        if future.done():
            return
        if response.error is not None:
            future.set_exception(LatchRpcError.from_error(response.error, method))
        else:
            future.set_result(response.result)

    def fail(self, error: LatchError) -> None:
        """Fail every request waiting, and every later one, with ``error``
        (the first failure stays)."""
        if self.failure is None:
            self.failure = error
        pending, self._pending = self._pending, {}
        for _, future in pending.values():
            if not future.done():
                future.set_exception(error)
        for stream in list(self._streams):
            stream._put(error)
        self._streams.clear()

    def _notify(self, note: Notification) -> None:
        for stream in self._streams:
            stream._put(note)
        target = callback_for(note, self._on_async_result, self._on_diagnostics)
        if target is None:
            logger.debug("notification %s has no callback", note.method)
            return
        callback, argument = target
        try:
            result = callback(argument)
        except Exception:
            logger.exception("a latch notification callback raised")
            return
        if inspect.isawaitable(result):
            task = asyncio.ensure_future(result)
            self._tasks.add(task)
            task.add_done_callback(self._callback_done)

    def _callback_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            logger.error("a latch notification callback raised", exc_info=task.exception())


class _NotWritten(Exception):
    """A request was not written whole by its deadline (see
    :meth:`_AsyncChannel.send`)."""


def _terminate(proc: asyncio.subprocess.Process) -> None:
    _signal(proc, signal.SIGTERM)


def _kill(proc: asyncio.subprocess.Process) -> None:
    _signal(proc, signal.SIGKILL)


def _signal(proc: asyncio.subprocess.Process, sig: signal.Signals) -> None:
    """Sends ``sig`` to the server, unless it has exited."""
    if proc.returncode is not None:
        return
    try:
        proc.send_signal(sig)
    except ProcessLookupError:  # it exited meanwhile
        pass
