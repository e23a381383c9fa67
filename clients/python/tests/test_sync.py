"""The synchronous client against the real ``latch serve``."""

from __future__ import annotations

import gc
import json
import logging
import math
import os
import queue
import shlex
import signal
import threading
import time
from pathlib import Path
from typing import Callable, List, Tuple, Union

import pytest

from conftest import (
    Project,
    bash,
    bash_after,
    fake_server,
    hook_pid,
    interrupt_harness,
    make_project,
    process_gone,
    spy_writes,
    stalling_fire,
    touching,
)
from latch_client import (
    AsyncResult,
    Client,
    DiagnosticsNotification,
    Event,
    InvalidParams,
    InvalidRequest,
    LatchClosed,
    LatchDied,
    LatchError,
    LatchNotFound,
    LatchTimeout,
    Outcome,
    is_cancelled,
)


def test_initialize_result(project: Project) -> None:
    with Client(**project.config()) as latch:
        result = latch.initialize_result
        assert result["server"]["name"] == "latch"
        assert result["dialects"] == ["claude"]
        assert latch.dialects == ["claude"]
        assert latch.diagnostics == []
        assert latch.pid is not None
    assert latch.returncode == 0


def test_config_object_and_keywords(project: Project) -> None:
    config = project.config()
    config["dialects"] = ["poolside"]
    # Keywords win over the Config.
    with Client(config, dialects=["claude"]) as latch:
        assert latch.dialects == ["claude"]


def test_paths_and_tuples_are_accepted_in_the_config_and_in_events(project: Project) -> None:
    # ``Config``'s lists are sequences (a tuple of paths will do), and a
    # path in an event is sent as its text.
    config = project.config(dialects=("claude",), plugin_dirs=(project.root / "no-plugins-here",))
    with Client(**config) as latch:
        assert latch.dialects == ["claude"]
        event = bash("rm -rf /")
        event["cwd"] = project.root
        outcome = latch.fire(event)
    assert outcome["decision"] == "deny"


def test_initialize_diagnostics(tmp_path: Path) -> None:
    broken = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "bogus", "command": "x"}]}]}}
    project = make_project(tmp_path, broken)
    with Client(**project.config()) as latch:
        severities = [d["severity"] for d in latch.diagnostics]
        assert "error" in severities
        assert any("bogus" in d["message"] for d in latch.diagnostics)
        assert all(d.get("file", "").endswith("settings.json") for d in latch.diagnostics)


def test_fire_deny(project: Project) -> None:
    with Client(**project.config()) as latch:
        outcome = latch.fire(bash("rm -rf /"))
    assert outcome["event"] == "tool_before"
    assert outcome["decision"] == "deny"
    assert "Refusing to delete" in outcome["reasons"][0]["text"]
    blocks = [n for n in outcome.get("notices", []) if n["kind"] == "block"]
    assert len(blocks) == 1 and "Refusing to delete" in blocks[0]["text"]
    assert outcome["runs"][0]["status"] == "blocked"


def test_fire_allow_and_rewrite(project: Project) -> None:
    with Client(**project.config()) as latch:
        outcome = latch.fire(bash("npm test"))
    assert outcome["decision"] == "allow"
    assert outcome["tool_input"] == {"command": "make test"}


def test_fire_proceed(project: Project) -> None:
    with Client(**project.config()) as latch:
        outcome = latch.fire(bash("ls"))
        other = latch.fire({"event": "tool_before", "tool": {"name": "Read", "input": {"file_path": "x"}}})
    assert outcome["decision"] == "proceed"
    assert "tool_input" not in outcome
    assert len(outcome["runs"]) == 1
    assert dict(other) == {"event": "tool_before", "decision": "proceed", "runs": []}


def test_explain(project: Project) -> None:
    with Client(**project.config()) as latch:
        entries = latch.explain(bash("ls"))
    by_event = {e["event"]: e for e in entries}
    assert by_event["PreToolUse"]["runs"] is True
    assert by_event["PostToolUse"]["runs"] is False
    source = by_event["PreToolUse"]["source"]
    assert source is not None and source["file"].endswith("settings.json")


def test_invalid_event_names_the_field(project: Project) -> None:
    with Client(**project.config()) as latch:
        with pytest.raises(InvalidParams) as misspelled:
            latch.fire({"event": "stop", "sesion_id": "x"})  # type: ignore[typeddict-unknown-key]
        with pytest.raises(InvalidParams) as missing:
            latch.fire({"event": "tool_before"})
        # The server goes on.
        assert latch.fire({"event": "stop"})["decision"] == "proceed"
    assert misspelled.value.code == -32602
    assert "sesion_id" in misspelled.value.message
    assert misspelled.value.method == "fire"
    assert "`tool` object" in missing.value.message


def test_over_long_event_and_line(project: Project) -> None:
    """An event over latch's size limit is refused by name; a line over
    the line limit (the event limit plus 1 MiB) is skipped unread and
    refused with its id. The server goes on after both."""
    env = {**os.environ, "LATCH_MAX_EVENT_BYTES": "1000"}
    with Client(**project.config(), env=env) as latch:
        with pytest.raises(InvalidParams, match="over the limit of 1000 bytes"):
            latch.fire({"event": "user_prompt", "session_id": "s", "prompt": "x" * 2000})
        with pytest.raises(InvalidRequest) as over_long:
            latch.fire({"event": "user_prompt", "session_id": "s", "prompt": "x" * (2 << 20)})
        assert over_long.value.code == -32600
        assert over_long.value.method == "fire"
        assert latch.fire({"event": "stop", "session_id": "s"})["decision"] == "proceed"


def test_unknown_config_key(project: Project) -> None:
    client = Client(**project.config(dialectz=["claude"]))  # type: ignore[call-arg]
    with pytest.raises(InvalidParams, match="dialectz"):
        client.open()
    # The server was stopped.
    assert client.returncode is not None


def test_event_must_be_a_mapping(project: Project) -> None:
    with Client(**project.config()) as latch:
        with pytest.raises(TypeError):
            latch.fire('{"event": "stop"}')  # type: ignore[arg-type]


def test_timeout_cancels_and_returns_what_ran(project: Project) -> None:
    with Client(**project.config()) as latch:
        started = time.monotonic()
        outcome = latch.fire(bash("hang"), timeout=0.5)
        elapsed = time.monotonic() - started
        assert elapsed < 5
        assert is_cancelled(outcome)
        assert outcome["decision"] == "proceed"
        assert outcome["runs"][0]["status"] == "failed"
        # The session is free again at once.
        started = time.monotonic()
        assert latch.fire(bash("ls"))["decision"] == "proceed"
        assert time.monotonic() - started < 5


def test_another_thread_cancels_a_fire(project: Project) -> None:
    """``cancel=``: a harness's other thread (the user pressed Stop) ends
    one fire; the outcome of what ran comes back, and the others go on."""
    with Client(**project.config()) as latch:
        stop = threading.Event()
        threading.Timer(0.3, stop.set).start()
        # `hang` sleeps 30 s and there is no timeout: only the cancel ends it.
        outcome = latch.fire(bash("hang"), cancel=stop)
        assert is_cancelled(outcome)
        assert outcome["runs"][0]["status"] == "failed"
        # An event never set changes nothing.
        assert not is_cancelled(latch.fire(bash("ls"), cancel=threading.Event()))


def test_threads_share_a_client(project: Project) -> None:
    results: dict[str, str] = {}

    def one(session: str) -> None:
        outcome = latch.fire(bash("sleep 0.4", session=session))
        results[session] = outcome["tool_input"]["command"]

    with Client(**project.config()) as latch:
        started = time.monotonic()
        threads = [threading.Thread(target=one, args=(f"t{i}",)) for i in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.monotonic() - started
    assert results == {f"t{i}": f"echo t{i}" for i in range(4)}
    assert elapsed < 1.6  # 4 x 0.4 s run at once


def test_async_result_callback(project: Project) -> None:
    received: List[AsyncResult] = []
    arrived = threading.Event()

    def on_async_result(result: AsyncResult) -> None:
        received.append(result)
        arrived.set()

    with Client(**project.config(), on_async_result=on_async_result) as latch:
        outcome = latch.fire(bash_after("ls", "a b"))
        assert outcome["runs"][0]["status"] == "ok"
        assert arrived.wait(10), "no latch/asyncResult arrived"
        # The answer also comes with the session's next tool result.
        after = latch.fire(bash_after("ls", "c"))
    assert received[0]["session_id"] == "s1"
    assert received[0]["event"] == "PostToolUse"
    assert received[0]["texts"] == ["<system-reminder>\nX\n</system-reminder>"]
    assert [c["placement"] for c in after.get("context", [])] == ["append_to_tool_result"]


def test_diagnostics_callback(tmp_path: Path, project: Project) -> None:
    received: List[DiagnosticsNotification] = []
    arrived = threading.Event()
    broken = make_project(tmp_path / "broken", {"hooks": {"Nope": []}})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    def on_diagnostics(note: DiagnosticsNotification) -> None:
        received.append(note)
        arrived.set()

    with Client(**broken.config(), on_diagnostics=on_diagnostics) as latch:
        assert latch.diagnostics  # the unknown event
        latch.fire({"event": "stop", "cwd": str(elsewhere)})
        assert arrived.wait(10)
    assert received[0].cwd == str(elsewhere)
    assert received[0].first_load is True
    assert any("Nope" in d["message"] for d in received[0].diagnostics)


def test_a_broken_edit_on_disk_keeps_the_last_good_file(project: Project) -> None:
    """A reload after an edit reaches the callback whole: which files keep
    their last good version, and why; the guard still denies."""
    received: "queue.Queue[DiagnosticsNotification]" = queue.Queue()
    settings = project.root / ".claude" / "settings.json"
    with Client(**project.config(), on_diagnostics=received.put) as latch:
        assert latch.fire(bash("rm -rf /"))["decision"] == "deny"
        settings.write_text("{ not json")
        note = received.get(timeout=10)
        assert note.reloaded is True
        assert note.first_load is False
        assert note.kept == [str(settings)]
        assert note.reason, note
        assert any(d.get("file") == str(settings) for d in note.diagnostics), note
        # The last good version is still in use.
        assert latch.fire(bash("rm -rf /"))["decision"] == "deny"


@pytest.mark.no_latch
def test_binary_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(LatchNotFound, match="not an executable"):
        Client(binary=tmp_path / "no-such-latch").open()
    monkeypatch.setenv("LATCH_BIN", str(tmp_path / "nope"))
    with pytest.raises(LatchNotFound, match="LATCH_BIN"):
        with Client():
            pass
    monkeypatch.delenv("LATCH_BIN")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(LatchNotFound, match="PATH"):
        with Client():
            pass


def test_server_killed(project: Project) -> None:
    with Client(**project.config()) as latch:
        assert latch.pid is not None

        def kill() -> None:
            time.sleep(0.3)
            os.kill(latch.pid or 0, signal.SIGKILL)

        threading.Thread(target=kill).start()
        started = time.monotonic()
        with pytest.raises(LatchDied) as died:
            latch.fire(bash("hang", session="k"))
        assert time.monotonic() - started < 5
        assert died.value.returncode == -signal.SIGKILL
        assert "signal 9" in str(died.value)
        with pytest.raises(LatchDied):
            latch.fire({"event": "stop"})
    # Leaving the block after the death does not hang.


@pytest.mark.no_latch
def test_server_dies_at_start(tmp_path: Path) -> None:
    binary = fake_server(tmp_path, "echo 'latch: error: something broke' >&2; exit 3")
    with pytest.raises(LatchDied) as died:
        with Client(binary=binary):
            pass
    assert died.value.returncode == 3
    assert "something broke" in died.value.stderr


@pytest.mark.no_latch
def test_hung_server_does_not_hang(tmp_path: Path) -> None:
    binary = fake_server(tmp_path, "trap '' TERM; exec sleep 60")
    started = time.monotonic()
    client = Client(binary=binary, start_timeout=0.5, close_timeout=0.5)
    with pytest.raises(LatchTimeout):
        client.open()
    assert time.monotonic() - started < 5
    assert client.returncode is not None


@pytest.mark.no_latch
def test_fire_timeout_on_hung_server(tmp_path: Path) -> None:
    # Answers initialize and shutdown, but never a fire, and ignores cancels.
    script = (
        "read line; echo '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":"
        "{\"server\":{\"name\":\"fake\",\"version\":\"0\"},\"dialects\":[],\"diagnostics\":[]}}'; "
        "exec sleep 60"
    )
    client = Client(binary=fake_server(tmp_path, script), cancel_grace=0.3, close_timeout=0.5)
    started = time.monotonic()
    with client:
        with pytest.raises(LatchTimeout):
            client.fire({"event": "stop"}, timeout=0.3)
    assert time.monotonic() - started < 5


def test_requests_after_close(project: Project) -> None:
    client = Client(**project.config())
    with pytest.raises(LatchClosed):
        client.fire({"event": "stop"})
    with client:
        pass
    with pytest.raises(LatchClosed):
        client.fire({"event": "stop"})
    client.close()  # twice is fine


def test_abort_on_exception(project: Project) -> None:
    outcomes: List[Outcome] = []
    started = time.monotonic()
    with pytest.raises(RuntimeError):
        with Client(**project.config()) as latch:
            firing = threading.Thread(target=lambda: outcomes.append(latch.fire(bash("hang", session="abort"))))
            firing.start()
            time.sleep(0.3)
            raise RuntimeError("the harness failed")
    firing.join(5)
    # exit cancelled the hanging hook instead of waiting 30 s for it, and
    # latch answered the fire in flight with the outcome of what ran.
    assert time.monotonic() - started < 5
    assert len(outcomes) == 1 and is_cancelled(outcomes[0])


def test_close_waits_for_fires_in_flight(project: Project) -> None:
    outcomes: List[Outcome] = []
    with Client(**project.config()) as latch:
        firing = threading.Thread(target=lambda: outcomes.append(latch.fire(bash("sleep 0.5", session="w"))))
        firing.start()
        time.sleep(0.2)
    firing.join(5)
    assert outcomes[0]["tool_input"] == {"command": "echo w"}


def _interrupt_soon() -> None:
    """Ctrl-C in half a second: a KeyboardInterrupt in the main thread."""
    threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()


@pytest.mark.parametrize("how", ["close", "with"])
def test_ctrl_c_during_close_ends_the_hooks_and_the_server(hanging: Project, how: str) -> None:
    """An interrupt while close() waits for a fire in flight sends ``exit``:
    latch kills the hook's process group and exits, the fire gets what ran,
    and a later close() finishes."""
    outcomes: List[Outcome] = []
    latch = Client(**hanging.config(), close_timeout=20)

    def fire() -> None:
        outcomes.append(latch.fire(bash("x", session="i")))

    firing = threading.Thread(target=fire, daemon=True)
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        if how == "close":
            latch.open()
            firing.start()
            hook = hook_pid(hanging)
            _interrupt_soon()
            latch.close()
        else:
            with latch:
                firing.start()
                hook = hook_pid(hanging)
                _interrupt_soon()
    assert process_gone(hook)
    assert process_gone(latch.pid or 0)
    firing.join(10)
    assert len(outcomes) == 1 and is_cancelled(outcomes[0]), outcomes
    assert time.monotonic() - started < 15  # neither the hook's 30 s nor close_timeout
    latch.close()
    latch.abort()
    assert latch.returncode == 0
    with pytest.raises(LatchClosed):
        latch.fire({"event": "stop"})


def test_abort_during_close_cancels_the_fires_at_once(hanging: Project) -> None:
    outcomes: List[Outcome] = []
    latch = Client(**hanging.config(), close_timeout=20)
    latch.open()
    firing = threading.Thread(target=lambda: outcomes.append(latch.fire(bash("x", session="a"))), daemon=True)
    firing.start()
    hook = hook_pid(hanging)
    closing = threading.Thread(target=latch.close, daemon=True)
    closing.start()
    time.sleep(0.5)  # close() waits for the fire
    assert closing.is_alive()
    started = time.monotonic()
    latch.abort()
    assert latch.returncode == 0
    closing.join(10)
    assert not closing.is_alive()
    assert time.monotonic() - started < 10  # neither the hook's 30 s nor close_timeout
    assert process_gone(hook)
    firing.join(10)
    assert len(outcomes) == 1 and is_cancelled(outcomes[0]), outcomes


def _stall(
    latch: Client, project: Project, fires: int
) -> Tuple[int, List[threading.Thread], List[Union[Outcome, LatchError]]]:
    """Stall latch with ``fires`` fires of :func:`stalling_fire`, each from
    a thread of its own: the hook's process id, the threads, and what each
    fire returned or raised."""
    results: List[Union[Outcome, LatchError]] = []

    def fire() -> None:
        try:
            results.append(latch.fire(stalling_fire()))
        except LatchError as error:
            results.append(error)

    threads = [threading.Thread(target=fire, daemon=True) for _ in range(fires)]
    for thread in threads:
        thread.start()
    hook = hook_pid(project)
    time.sleep(2)  # latch reads the fires until it stalls
    return hook, threads, results


@pytest.mark.parametrize("how, fires", [("close", 5), ("close", 6), ("abort", 6)])
def test_a_server_that_reads_nothing_gets_sigterm_before_sigkill(hanging: Project, how: str, fires: int) -> None:
    """latch, stalled by flow control, reads neither ``exit`` nor the end of
    its input (and with six fires, one is stuck half written, holding the
    write). After ``timeout`` the client sends SIGTERM, on which latch
    cancels the fires, kills the hook's process group and exits; a SIGKILL
    would leave the hook running and lose the outcomes."""
    latch = Client(**hanging.config())
    latch.open()
    hook, threads, results = _stall(latch, hanging, fires)
    started = time.monotonic()
    getattr(latch, how)(timeout=1)
    assert time.monotonic() - started < 15  # not the hook's 30 s
    assert latch.returncode is not None and latch.returncode != -signal.SIGKILL
    assert process_gone(hook, within=5)
    for thread in threads:
        thread.join(10)
    outcomes = [r for r in results if not isinstance(r, LatchError)]
    assert len(outcomes) == 5 and all(is_cancelled(o) for o in outcomes), results  # those latch read
    assert all(isinstance(r, LatchClosed) for r in results if isinstance(r, LatchError)), results


def test_a_timeout_counts_while_the_request_is_written(hanging: Project) -> None:
    """latch, stalled by flow control, reads no request: a fire's
    ``timeout`` (or ``cancel``) ends the wait for the write too, long
    before the hook that holds latch ends."""
    latch = Client(**hanging.config())
    latch.open()
    try:
        _stall(latch, hanging, 5)
        other: Event = {"event": "tool_before", "session_id": "other", "tool": {"name": "Read", "input": {"pad": "x" * (1 << 20)}}}
        started = time.monotonic()
        with pytest.raises(LatchTimeout, match="could not be sent within 1"):
            latch.fire(other, timeout=1)
        assert time.monotonic() - started < 10  # not the hook's 30 s
        stop = threading.Event()
        threading.Timer(0.5, stop.set).start()
        started = time.monotonic()
        with pytest.raises(LatchTimeout, match="was cancelled"):
            latch.fire(bash("ls", session="another"), cancel=stop)
        assert time.monotonic() - started < 10
    finally:
        latch.abort(timeout=1)


def test_a_write_given_up_on_ends_its_thread(hanging: Project) -> None:
    """Fires that time out while another line is stuck in latch's input
    leave no thread behind waiting for their turn to write."""
    latch = Client(**hanging.config())
    latch.open()
    try:
        _stall(latch, hanging, 6)  # the sixth holds the write, half written
        for n in range(30):
            with pytest.raises(LatchTimeout, match="could not be sent"):
                latch.fire(bash("ls", session=f"s{n}"), timeout=0.02)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and _writers():
            time.sleep(0.05)
        assert _writers() == []
    finally:
        latch.abort(timeout=1)


def _writers() -> List[str]:
    """The client's threads that write a line."""
    return [t.name for t in threading.enumerate() if t.name.startswith("latch-client-write")]


def test_a_pipe_left_non_blocking_still_takes_a_long_line(project: Project) -> None:
    """A short request is written non-blocking for a moment; were the pipe
    left so (an interrupt at the wrong instant), a long line is still
    written whole, waiting for room, rather than cut and taken for a
    closed pipe."""
    with Client(**project.config()) as latch:
        channel = latch._channel
        assert channel is not None
        os.set_blocking(channel._stdin_fd, False)
        big = bash("ls")
        big["tool"]["input"]["pad"] = "x" * (4 << 20)
        assert latch.fire(big)["decision"] == "proceed"
        assert latch.fire(bash("ls"), timeout=5)["decision"] == "proceed"


def test_infinite_and_invalid_timeouts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``math.inf`` is no limit; NaN and negative timeouts are refused
    before anything is sent."""
    project = touching(tmp_path)
    with pytest.raises(ValueError):
        Client(**project.config(), close_timeout=math.nan)
    latch = Client(**project.config(), timeout=math.inf, start_timeout=math.inf, cancel_grace=math.inf)
    latch.open()
    written = spy_writes(monkeypatch)
    for bad in (math.nan, -1.0):
        with pytest.raises(ValueError):
            latch.fire(bash("ls"), timeout=bad)
        with pytest.raises(ValueError):
            latch.explain(bash("ls"), timeout=bad)
        with pytest.raises(ValueError):
            latch.close(timeout=bad)
        with pytest.raises(ValueError):
            latch.abort(timeout=bad)
    monkeypatch.undo()
    assert written == []
    assert not (project.root / "hook.ran").exists()
    assert latch.fire(bash("ls"))["decision"] == "proceed"
    assert latch.fire(bash("ls"), timeout=math.inf)["decision"] == "proceed"
    assert latch.explain(bash("ls"), timeout=math.inf)[0]["runs"]
    latch.close(timeout=math.inf)
    assert latch.returncode == 0


def test_a_cancel_set_before_the_fire_sends_nothing(tmp_path: Path) -> None:
    """Sent, then cancelled, a fire may start its hooks; a ``cancel``
    already set sends nothing, and raises as a cancel answered by nothing
    does."""
    project = touching(tmp_path)
    with Client(**project.config()) as latch:
        stop = threading.Event()
        stop.set()
        for i in range(20):
            with pytest.raises(LatchTimeout, match="cancelled before it was sent"):
                latch.fire(bash("ls", session=f"s{i}"), cancel=stop)
        latch.explain(bash("ls"))  # a round trip
        assert not (project.root / "hook.ran").exists()
        # The hook does write the file when it runs.
        assert not is_cancelled(latch.fire(bash("ls"), cancel=threading.Event()))
        assert (project.root / "hook.ran").exists()


def test_outcome_keeps_unknown_fields(project: Project) -> None:
    with Client(**project.config()) as latch:
        outcome = latch.fire(bash("rm -rf /"))
    # The outcome is the server's JSON, as parsed: nothing dropped.
    assert json.loads(json.dumps(outcome)) == outcome


def test_cancelling_a_queued_fire_answers_at_once(project: Project) -> None:
    with Client(**project.config(), cancel_grace=1.0) as latch:
        first = threading.Thread(target=lambda: _quietly(lambda: latch.fire(bash("hang", session="q"))), daemon=True)
        first.start()
        time.sleep(0.3)
        try:
            outcome = latch.fire(bash("ls", session="q"), timeout=0.3)
            assert is_cancelled(outcome)
        finally:
            latch.abort()


def _quietly(call: Callable[[], object]) -> None:
    try:
        call()
    except LatchClosed:
        pass


def test_trust_policy_list_and_approve(project: Project) -> None:
    with Client(**project.config(trust=["require"])) as latch:
        held = latch.fire(bash("rm -rf /"))
        assert held["decision"] == "proceed"
        assert held["runs"][0]["status"] == "untrusted"
        assert held["runs"][0]["trust"] == "new"
        hooks = latch.trust_list()
        assert [(h["event"], h["trust"]) for h in hooks] == [
            ("PreToolUse", {"state": "new"}),
            ("PostToolUse", {"state": "new"}),
        ]
        guard = hooks[0]
        assert guard["needs_approval"] is True
        assert guard["scripts"] == [str(project.root / ".claude" / "hooks" / "guard.py")]
        with pytest.raises(InvalidParams):
            latch.trust_approve(["no-such-hook"])
        approved = latch.trust_approve([guard["hook"]])
        assert [a["event"] for a in approved] == ["PreToolUse"]
        assert latch.trust_list()[0]["trust"] == {"state": "approved"}
        revoked = latch.trust_revoke([guard["hook"]])
        assert len(revoked) == 1


CTRL_C_HARNESS = r"""
import json, signal, sys
from latch_client import Client

signal.signal(signal.SIGINT, signal.default_int_handler)  # even if started with SIGINT ignored
hang = {"event": "tool_before", "session_id": "c", "tool": {"name": "Bash", "input": {"command": "hang"}}}
ls = {"event": "tool_before", "session_id": "c", "tool": {"name": "Bash", "input": {"command": "ls"}}}
with Client(**json.loads(sys.argv[1])) as latch:
    print("ready", flush=True)
    try:
        latch.fire(hang)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    # The interrupt cancelled the hanging dispatch: the next event of the
    # session runs at once.
    print(latch.fire(ls, timeout=10)["decision"], flush=True)
"""


def test_ctrl_c_interrupts_the_fire_and_spares_the_server(project: Project, tmp_path: Path) -> None:
    returncode, out, err = interrupt_harness(tmp_path, CTRL_C_HARNESS, project.config())
    assert (returncode, out) == (0, "interrupted\nproceed\n"), err


def test_an_interrupted_long_write_leaves_the_client_usable(project: Project) -> None:
    # latch is stopped, so the pipe fills and the write of a 4 MiB event
    # blocks; a signal handler raises KeyboardInterrupt in the middle of it,
    # as Ctrl-C does. No half line may stay in the pipe.
    big: Event = {"event": "user_prompt", "session_id": "big", "prompt": "x" * (4 << 20)}
    with Client(**project.config(), cancel_grace=1.0) as latch:
        pid = latch.pid or 0

        def interrupt(signum: int, frame: object) -> None:
            os.kill(pid, signal.SIGCONT)
            raise KeyboardInterrupt

        previous = signal.signal(signal.SIGALRM, interrupt)
        try:
            os.kill(pid, signal.SIGSTOP)
            signal.setitimer(signal.ITIMER_REAL, 0.5)
            with pytest.raises(KeyboardInterrupt):
                latch.fire(big)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
            os.kill(pid, signal.SIGCONT)
        outcome = latch.fire(bash("ls", session="after"), timeout=5)
        assert outcome["decision"] == "proceed" and not is_cancelled(outcome)


def test_a_line_cut_short_is_ended_and_the_client_goes_on(
    project: Project, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # An exception no signal handler raised (one raised into a thread) cuts
    # a long line short. The client ends the line, so that the server
    # refuses it and reads the next request as a line of its own.
    real_write = os.write

    def cut(fd: int, data: bytes) -> int:
        if len(data) > 1 << 20:
            real_write(fd, bytes(data[:1000]))
            raise RuntimeError("raised into the thread")
        return real_write(fd, data)

    with Client(**project.config(), cancel_grace=1.0) as latch:
        errors: List[BaseException] = []

        def fire_big() -> None:
            try:
                latch.fire({"event": "user_prompt", "session_id": "big", "prompt": "x" * (2 << 20)})
            except BaseException as error:
                errors.append(error)

        monkeypatch.setattr(os, "write", cut)
        worker = threading.Thread(target=fire_big)
        worker.start()
        worker.join(10)
        monkeypatch.undo()
        assert [type(e) for e in errors] == [RuntimeError]
        with caplog.at_level(logging.WARNING, logger="latch_client"):
            outcome = latch.fire(bash("ls"), timeout=5)
            assert outcome["decision"] == "proceed" and not is_cancelled(outcome)
            latch.explain(bash("ls"))  # the parse error came before this answer
    assert caplog.records == []


def test_a_relative_binary_is_found_from_here_not_from_cwd(
    project: Project, latch_bin: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "latch").symlink_to(os.path.abspath(latch_bin))
    monkeypatch.chdir(tmp_path)
    with Client(binary=os.path.join("bin", "latch"), cwd=project.root, **project.config()) as latch:
        assert latch.dialects == ["claude"]


def test_env_is_where_the_binary_is_looked_up(project: Project, latch_bin: str, tmp_path: Path) -> None:
    # This process's $LATCH_BIN (set by the fixture) is a good binary; the
    # server's environment names another one, which wins.
    with pytest.raises(LatchNotFound, match="env"):
        Client(env={**os.environ, "LATCH_BIN": str(tmp_path / "nope")}, **project.config()).open()
    # No $LATCH_BIN in the server's environment: its PATH is searched.
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "latch").symlink_to(os.path.abspath(latch_bin))
    env = {k: v for k, v in os.environ.items() if k != "LATCH_BIN"}
    env["PATH"] = str(tmp_path / "bin") + os.pathsep + os.defpath
    with Client(env=env, **project.config()) as latch:
        assert latch.dialects == ["claude"]
    with pytest.raises(LatchNotFound, match="PATH"):
        Client(env={"PATH": os.defpath}, **project.config()).open()


def test_stderr_tail_cuts_long_lines(project: Project, latch_bin: str, tmp_path: Path) -> None:
    # 3 MB of stderr without a newline, then latch itself.
    wrapper = fake_server(
        tmp_path,
        "head -c 3000000 /dev/zero | tr '\\0' e >&2; printf '\\nafter\\n' >&2; "
        f'exec {shlex.quote(os.path.abspath(latch_bin))} "$@"',
    )
    with Client(binary=wrapper, **project.config()) as latch:
        assert latch.fire(bash("ls"))["decision"] == "proceed"
        deadline = time.monotonic() + 10
        while "after" not in latch.stderr_tail and time.monotonic() < deadline:
            time.sleep(0.05)
        lines = latch.stderr_tail.splitlines()
    assert lines[:2] == ["e" * 8192 + " [... 2991808 more bytes]", "after"]


@pytest.mark.no_latch
def test_warnings_about_garbage_output_are_capped(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    # Not latch: a line that is not JSON, as fast as it can.
    client = Client(binary=fake_server(tmp_path, "exec yes serve"), start_timeout=1.0, close_timeout=1.0)
    with caplog.at_level(logging.WARNING, logger="latch_client"):
        with pytest.raises(LatchTimeout):
            client.open()
    garbage = [r for r in caplog.records if "not JSON" in r.getMessage()]
    assert 1 <= len(garbage) <= 10
    assert len(caplog.records) <= 15


def test_an_unclosed_client_is_closed_when_collected(project: Project) -> None:
    latch = Client(**project.config())
    latch.open()
    pid = latch.pid or 0
    with pytest.warns(ResourceWarning, match="never closed"):
        del latch
        gc.collect()
    # latch exits at the end of its input, and the client's reader reaps it.
    assert process_gone(pid)


def test_close_with_descriptors_past_1023(project: Project) -> None:
    """A harness with many files open: latch's stdin is a descriptor past
    1023, which ``select()`` cannot take; closing still sends ``exit`` and
    ends the server."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 1200
    if hard != resource.RLIM_INFINITY and hard < want:
        pytest.skip(f"the hard limit of open files is {hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, want), hard))
    held: List[int] = []
    try:
        while not held or held[-1] < 1030:
            held.append(os.dup(0))
        with Client(**project.config()) as latch:
            assert latch.fire(bash("rm -rf /"))["decision"] == "deny"
            channel = latch._channel
            assert channel is not None and channel._stdin_fd > 1023  # what this test is about
    finally:
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert latch.returncode == 0
