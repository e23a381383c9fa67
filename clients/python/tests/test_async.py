"""The asyncio client against the real ``latch serve``."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import math
import os
import signal
import time
from pathlib import Path
from typing import Any, Awaitable, Callable, List, Tuple, TypeVar

import pytest

from conftest import (
    Project,
    bash,
    bash_after,
    fake_server,
    hook_pid,
    interrupt_harness,
    process_gone,
    spy_writes,
    stalling_fire,
    touching,
)
from latch_client import (
    AsyncClient,
    AsyncResult,
    AsyncResultNotification,
    DiagnosticsNotification,
    Event,
    InvalidParams,
    LatchClosed,
    LatchDied,
    LatchNotFound,
    LatchTimeout,
    Notification,
    Outcome,
    is_cancelled,
)

T = TypeVar("T")


def run(main: Callable[[], Awaitable[T]]) -> T:
    """Run a coroutine with a deadline, so a bug cannot hang the suite."""

    async def bounded() -> T:
        return await asyncio.wait_for(main(), 20)

    return asyncio.run(bounded())


def test_initialize_and_fire(project: Project) -> None:
    async def main() -> None:
        async with AsyncClient(**project.config()) as latch:
            assert latch.dialects == ["claude"]
            assert latch.initialize_result["server"]["name"] == "latch"
            denied = await latch.fire(bash("rm -rf /"))
            assert denied["decision"] == "deny"
            rewritten = await latch.fire(bash("npm test"))
            assert rewritten["decision"] == "allow"
            assert rewritten["tool_input"] == {"command": "make test"}
            entries = await latch.explain(bash("ls"))
            assert any(e["runs"] for e in entries)
        assert latch.returncode == 0

    run(main)


def test_invalid_event(project: Project) -> None:
    async def main() -> None:
        async with AsyncClient(**project.config()) as latch:
            with pytest.raises(InvalidParams, match="sesion_id"):
                await latch.fire({"event": "stop", "sesion_id": "x"})  # type: ignore[typeddict-unknown-key]

    run(main)


def test_concurrent_fires_of_different_sessions(project: Project) -> None:
    async def main() -> None:
        async with AsyncClient(**project.config()) as latch:
            # The first sleeps longest, so the answers come in reverse order.
            delays = [0.8, 0.6, 0.4, 0.2, 0.1]
            started = time.monotonic()
            outcomes = await asyncio.gather(
                *(latch.fire(bash(f"sleep {d}", session=f"s{i}")) for i, d in enumerate(delays))
            )
            elapsed = time.monotonic() - started
        assert [o["tool_input"]["command"] for o in outcomes] == [f"echo s{i}" for i in range(len(delays))]
        assert elapsed < sum(delays)

    run(main)


def test_events_of_one_session_run_in_order(project: Project) -> None:
    async def main() -> None:
        async with AsyncClient(**project.config()) as latch:
            started = time.monotonic()
            await asyncio.gather(*(latch.fire(bash("sleep 0.3", session="same")) for _ in range(3)))
            assert time.monotonic() - started >= 0.9

    run(main)


def test_cancelling_the_task_cancels_the_dispatch(project: Project) -> None:
    async def main() -> None:
        async with AsyncClient(**project.config()) as latch:
            task = asyncio.ensure_future(latch.fire(bash("hang", session="c")))
            await asyncio.sleep(0.5)
            started = time.monotonic()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert time.monotonic() - started < 1
            # The server got $/cancelRequest: the next event of the same
            # session (which waits for the one before it) runs at once.
            outcome = await asyncio.wait_for(latch.fire(bash("ls", session="c")), 5)
            assert outcome["decision"] == "proceed"

    run(main)


def test_timeout_returns_what_ran(project: Project) -> None:
    async def main() -> None:
        async with AsyncClient(**project.config(), timeout=0.5) as latch:
            started = time.monotonic()
            outcome = await latch.fire(bash("hang"))
            assert time.monotonic() - started < 5
            assert is_cancelled(outcome)
            assert any("dispatch cancelled" in w for w in outcome.get("warnings", []))

    run(main)


def test_async_results_by_callback_and_iterator(project: Project) -> None:
    async def main() -> None:
        by_callback: List[AsyncResult] = []
        by_coroutine: List[AsyncResult] = []

        async def on_async_result(result: AsyncResult) -> None:
            by_coroutine.append(result)

        async with AsyncClient(**project.config(), on_async_result=on_async_result) as latch:
            stream = latch.notifications()
            await latch.fire(bash_after("ls", "out"))
            note = await asyncio.wait_for(stream.__anext__(), 10)
            assert isinstance(note, AsyncResultNotification)
            assert note.method == "latch/asyncResult"
            by_callback.append(note.result)
            stream.close()
        assert by_callback[0]["texts"] == ["<system-reminder>\nX\n</system-reminder>"]
        assert by_coroutine == by_callback

    run(main)


def test_diagnostics_by_callback_and_iterator(project: Project) -> None:
    """A broken edit on disk reaches an ``on_diagnostics`` coroutine and an
    open notification stream alike, whole; the last good file stays in use."""

    async def main() -> None:
        by_coroutine: List[DiagnosticsNotification] = []

        async def on_diagnostics(note: DiagnosticsNotification) -> None:
            by_coroutine.append(note)

        settings = project.root / ".claude" / "settings.json"
        async with AsyncClient(**project.config(), on_diagnostics=on_diagnostics) as latch:
            stream = latch.notifications()
            assert (await latch.fire(bash("rm -rf /")))["decision"] == "deny"
            settings.write_text("{ not json")
            note = await asyncio.wait_for(stream.__anext__(), 10)
            assert isinstance(note, DiagnosticsNotification)
            assert note.method == "latch/diagnostics"
            assert (note.reloaded, note.first_load, note.kept) == (True, False, [str(settings)])
            assert note.reason, note
            assert any(d.get("file") == str(settings) for d in note.diagnostics), note
            assert (await latch.fire(bash("rm -rf /")))["decision"] == "deny"
            stream.close()
            for _ in range(100):
                if by_coroutine:
                    break
                await asyncio.sleep(0.05)
        assert by_coroutine == [note]

    run(main)


def test_notification_stream_ends_on_close(project: Project) -> None:
    async def main() -> None:
        seen: List[Notification] = []
        async with AsyncClient(**project.config()) as latch:
            stream = latch.notifications()

            async def consume() -> None:
                async for note in stream:
                    seen.append(note)

            consumer = asyncio.ensure_future(consume())
            await latch.fire(bash_after("ls", "out", session="n"))
            for _ in range(100):
                if seen:
                    break
                await asyncio.sleep(0.05)
        await asyncio.wait_for(consumer, 5)
        assert len(seen) >= 1

    run(main)


def test_closing_a_notification_stream_ends_its_reader(project: Project) -> None:
    async def main() -> None:
        async with AsyncClient(**project.config()) as latch:
            stream = latch.notifications()
            seen: List[Notification] = []

            async def consume() -> None:
                async for note in stream:
                    seen.append(note)

            consumer = asyncio.ensure_future(consume())
            await asyncio.sleep(0.2)  # the consumer waits for a notification
            stream.close()
            await asyncio.wait_for(consumer, 5)
            assert seen == []

            # contextlib.aclosing closes it, and wakes its reader.
            async with contextlib.aclosing(latch.notifications()) as notes:
                await latch.fire(bash_after("ls", "out", session="a"))
                note = await asyncio.wait_for(notes.__anext__(), 10)
                assert isinstance(note, AsyncResultNotification)
                waiting = asyncio.ensure_future(notes.__anext__())
                await asyncio.sleep(0.2)
            with pytest.raises(StopAsyncIteration):
                await asyncio.wait_for(waiting, 5)

    run(main)


async def _hook_pid(project: Project) -> int:
    """:func:`hook_pid`, without blocking the event loop."""
    for _ in range(500):
        if (project.root / "hook.pid").exists():
            break
        await asyncio.sleep(0.02)
    return hook_pid(project)


async def _closing_during_a_fire(
    hanging: Project, session: str
) -> Tuple[AsyncClient, "asyncio.Future[Outcome]", int, "asyncio.Future[None]"]:
    """A client whose aclose() waits for a fire in flight in ``session``:
    the client, the fire, its hook's pid and the aclose()."""
    latch = AsyncClient(**hanging.config(), close_timeout=15)
    await latch.open()
    fire = asyncio.ensure_future(latch.fire(bash("x", session=session)))
    hook = await _hook_pid(hanging)
    closing = asyncio.ensure_future(latch.aclose())
    await asyncio.sleep(0.5)  # aclose() waits for the fire
    assert not closing.done()
    return latch, fire, hook, closing


def test_cancelling_aclose_ends_the_hooks_and_the_server(hanging: Project) -> None:
    """Cancelling aclose() while it waits for a fire in flight sends
    ``exit`` (a SIGKILL would leave the hook running): latch kills the
    hook's process group and exits, the fire gets what ran, and the
    CancelledError follows."""

    async def main() -> int:
        latch, fire, hook, closing = await _closing_during_a_fire(hanging, "i")
        closing.cancel()
        with pytest.raises(asyncio.CancelledError):
            await closing
        assert latch.returncode == 0  # it exited, and was not killed
        outcome = await asyncio.wait_for(fire, 5)
        assert is_cancelled(outcome), outcome
        await latch.aclose()  # nothing left to do
        return hook

    started = time.monotonic()
    hook = run(main)
    assert process_gone(hook)
    assert time.monotonic() - started < 15  # neither the hook's 30 s nor close_timeout


def test_abort_during_aclose_cancels_the_fires_at_once(hanging: Project) -> None:
    async def main() -> int:
        latch, fire, hook, closing = await _closing_during_a_fire(hanging, "a")
        started = time.monotonic()
        await latch.abort()
        assert latch.returncode == 0
        await asyncio.wait_for(closing, 5)
        assert time.monotonic() - started < 10  # neither the hook's 30 s nor close_timeout
        assert is_cancelled(await asyncio.wait_for(fire, 5))
        return hook

    assert process_gone(run(main))


async def _stall(latch: AsyncClient, project: Project, fires: int) -> Tuple[int, List["asyncio.Task[Outcome]"]]:
    """Stall latch with ``fires`` fires of :func:`stalling_fire`: the hook's
    process id and the fires."""
    tasks = [asyncio.ensure_future(latch.fire(stalling_fire())) for _ in range(fires)]
    hook = await asyncio.to_thread(hook_pid, project)
    await asyncio.sleep(2)  # latch reads the fires until it stalls
    return hook, tasks


@pytest.mark.parametrize("how, fires", [("aclose", 5), ("aclose", 6), ("abort", 6)])
def test_a_server_that_reads_nothing_gets_sigterm_before_sigkill(hanging: Project, how: str, fires: int) -> None:
    """latch, stalled by flow control, reads neither ``exit`` nor the end of
    its input. After ``timeout`` the client sends SIGTERM, on which latch
    cancels the fires, kills the hook's process group and exits; a SIGKILL
    would leave the hook running and lose the outcomes."""

    async def main() -> int:
        latch = AsyncClient(**hanging.config())
        await latch.open()
        hook, tasks = await _stall(latch, hanging, fires)
        await getattr(latch, how)(timeout=1)
        assert latch.returncode is not None and latch.returncode != -signal.SIGKILL
        results = await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 5)
        outcomes = [r for r in results if not isinstance(r, BaseException)]
        assert len(outcomes) == 5 and all(is_cancelled(o) for o in outcomes), results  # those latch read
        assert all(isinstance(r, LatchClosed) for r in results if isinstance(r, BaseException)), results
        return hook

    started = time.monotonic()
    hook = run(main)
    assert time.monotonic() - started < 15  # not the hook's 30 s
    assert process_gone(hook, within=5)


def test_a_timeout_counts_while_the_request_is_written(hanging: Project) -> None:
    """latch, stalled by flow control, reads no request: a fire's
    ``timeout`` ends the wait for the write too, long before the hook that
    holds latch ends."""

    async def main() -> None:
        latch = AsyncClient(**hanging.config())
        await latch.open()
        try:
            await _stall(latch, hanging, 5)
            other: Event = {"event": "tool_before", "session_id": "o", "tool": {"name": "Read", "input": {"pad": "x" * (1 << 20)}}}
            started = time.monotonic()
            with pytest.raises(LatchTimeout, match="could not be sent within 1"):
                await latch.fire(other, timeout=1)
            assert time.monotonic() - started < 10  # not the hook's 30 s
        finally:
            await latch.abort(timeout=1)

    run(main)


def test_infinite_and_invalid_timeouts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``math.inf`` is no limit; NaN and negative timeouts are refused
    before anything is sent."""
    project = touching(tmp_path)
    with pytest.raises(ValueError):
        AsyncClient(**project.config(), cancel_grace=-1.0)

    async def main() -> None:
        latch = AsyncClient(**project.config(), timeout=math.inf, start_timeout=math.inf, close_timeout=math.inf)
        await latch.open()
        written = spy_writes(monkeypatch)
        for bad in (math.nan, -1.0):
            with pytest.raises(ValueError):
                await latch.fire(bash("ls"), timeout=bad)
            with pytest.raises(ValueError):
                await latch.explain(bash("ls"), timeout=bad)
            with pytest.raises(ValueError):
                await latch.aclose(timeout=bad)
            with pytest.raises(ValueError):
                await latch.abort(timeout=bad)
        monkeypatch.undo()
        assert written == []
        assert not (project.root / "hook.ran").exists()
        assert (await latch.fire(bash("ls")))["decision"] == "proceed"
        assert (await latch.fire(bash("ls"), timeout=math.inf))["decision"] == "proceed"
        await latch.aclose(timeout=math.inf)
        assert latch.returncode == 0

    run(main)


CTRL_C_CLOSE_HARNESS = r"""
import asyncio, json, os, sys, time
from latch_client import AsyncClient

config = json.loads(sys.argv[1])
pid_file = os.path.join(config["project"], "hook.pid")
hang = {"event": "tool_before", "session_id": "c", "tool": {"name": "Bash", "input": {"command": "x"}}}
clients = []

async def main() -> None:
    async with AsyncClient(**config) as latch:
        clients.append(latch)
        asyncio.ensure_future(latch.fire(hang))
        while not os.path.exists(pid_file):
            await asyncio.sleep(0.02)
        print("ready", flush=True)
        # Leaving the block waits for the fire, until Ctrl-C.

try:
    asyncio.run(main())
except KeyboardInterrupt:
    print(json.dumps({"returncode": clients[0].returncode}), flush=True)
"""


def test_ctrl_c_while_leaving_async_with_ends_the_hooks_and_the_server(hanging: Project, tmp_path: Path) -> None:
    returncode, out, err = interrupt_harness(tmp_path, CTRL_C_CLOSE_HARNESS, hanging.config())
    assert returncode == 0 and json.loads(out) == {"returncode": 0}, (out, err)
    assert process_gone(hook_pid(hanging))


def test_server_killed(project: Project) -> None:
    async def main() -> None:
        async with AsyncClient(**project.config()) as latch:
            stream = latch.notifications()
            pending = asyncio.ensure_future(latch.fire(bash("hang", session="k")))
            await asyncio.sleep(0.3)
            os.kill(latch.pid or 0, signal.SIGKILL)
            with pytest.raises(LatchDied) as died:
                await pending
            assert died.value.returncode == -signal.SIGKILL
            with pytest.raises(LatchDied):
                await latch.fire({"event": "stop"})
            with pytest.raises(LatchDied):
                await stream.__anext__()

    run(main)


@pytest.mark.no_latch
def test_binary_missing(tmp_path: Path) -> None:
    async def main() -> None:
        with pytest.raises(LatchNotFound):
            async with AsyncClient(binary=tmp_path / "missing"):
                pass

    run(main)


@pytest.mark.no_latch
def test_hung_server(tmp_path: Path) -> None:
    async def main() -> None:
        client = AsyncClient(binary=fake_server(tmp_path, "exec sleep 60"), start_timeout=0.5, close_timeout=0.5)
        with pytest.raises(LatchTimeout):
            await client.open()
        assert client.returncode is not None

    started = time.monotonic()
    run(main)
    assert time.monotonic() - started < 5


def test_requests_after_close(project: Project) -> None:
    async def main() -> Any:
        client = AsyncClient(**project.config())
        async with client:
            pass
        with pytest.raises(LatchClosed):
            await client.fire({"event": "stop"})

    run(main)


def test_trust_methods(project: Project) -> None:
    async def main() -> None:
        async with AsyncClient(**project.config(trust=["warn"])) as latch:
            hooks = await latch.trust_list()
            assert hooks[0]["trust"] == {"state": "new"}
            approved = await latch.trust_approve(all=True)
            assert len(approved) == len(hooks) == 2
            assert all(h["trust"] == {"state": "approved"} for h in await latch.trust_list())
            assert len(await latch.trust_revoke(all=True)) == 2

    run(main)


CTRL_C_HARNESS = r"""
import asyncio, json, signal, sys
from latch_client import AsyncClient

hang = {"event": "tool_before", "session_id": "c", "tool": {"name": "Bash", "input": {"command": "hang"}}}
ls = {"event": "tool_before", "session_id": "c", "tool": {"name": "Bash", "input": {"command": "ls"}}}

async def main() -> None:
    async with AsyncClient(**json.loads(sys.argv[1])) as latch:
        fire = asyncio.ensure_future(latch.fire(hang))
        # The harness's Ctrl-C cancels the tool call and keeps the session.
        asyncio.get_running_loop().add_signal_handler(signal.SIGINT, fire.cancel)
        print("ready", flush=True)
        try:
            await fire
        except asyncio.CancelledError:
            print("interrupted", flush=True)
        print((await latch.fire(ls, timeout=10))["decision"], flush=True)

asyncio.run(main())
"""


def test_ctrl_c_interrupts_the_fire_and_spares_the_server(project: Project, tmp_path: Path) -> None:
    returncode, out, err = interrupt_harness(tmp_path, CTRL_C_HARNESS, project.config())
    assert (returncode, out) == (0, "interrupted\nproceed\n"), err


def test_a_line_cut_short_is_ended_and_the_client_goes_on(
    project: Project, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # A signal handler's KeyboardInterrupt raised right after the transport
    # wrote part of a long line. The client ends the line, so that the
    # server refuses it and reads the next request as a line of its own.
    real_write = os.write

    def cut(fd: int, data: bytes) -> int:
        if len(data) > 1 << 20:
            real_write(fd, bytes(data[:1000]))
            raise KeyboardInterrupt
        return real_write(fd, data)

    async def main() -> None:
        async with AsyncClient(**project.config(), cancel_grace=1.0) as latch:
            monkeypatch.setattr(os, "write", cut)
            with pytest.raises(KeyboardInterrupt):
                await latch.explain({"event": "user_prompt", "session_id": "big", "prompt": "x" * (2 << 20)})
            monkeypatch.undo()
            with caplog.at_level(logging.WARNING, logger="latch_client"):
                outcome = await latch.fire(bash("ls"), timeout=5)
                assert outcome["decision"] == "proceed" and not is_cancelled(outcome)
                await latch.explain(bash("ls"))  # the parse error came before this answer
        assert caplog.records == []

    run(main)


def test_an_unclosed_client_is_closed_when_collected(project: Project) -> None:
    async def main() -> None:
        latch = AsyncClient(**project.config())
        await latch.open()
        pid = latch.pid or 0
        with pytest.warns(ResourceWarning, match="never closed"):
            del latch
            gc.collect()
        # latch exits at the end of its input, and is reaped.
        for _ in range(200):
            if process_gone(pid, within=0):
                break
            await asyncio.sleep(0.05)
        assert process_gone(pid, within=0)

    run(main)


def test_a_client_left_open_ends_with_its_event_loop(project: Project) -> None:
    kept: List[AsyncClient] = []

    async def main() -> None:
        latch = AsyncClient(**project.config())
        await latch.open()
        kept.append(latch)

    with pytest.warns(ResourceWarning, match="event loop ended"):
        asyncio.run(main())
    # The server was ended, and waited for, while the loop still ran.
    assert kept[0].returncode == 0
