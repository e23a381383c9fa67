"""Every transcript in ``docs/serve.md`` is true: each is replayed against
a real ``latch serve`` and every message it shows the server writing is
checked against what the server wrote.

``docs/serve.md`` is found through ``$LATCH_DOCS_DIR`` (``run-tests.sh``
sets it, as the tests run from a copy), else in the source tree.

A transcript is a fenced block with lines starting ``→`` (the harness
wrote it) or ``←`` (latch wrote it). The HTML comment just before the
block names the project it needs, one of ``SETUPS`` below::

    <!-- transcript: guard -->

or says why it cannot be replayed::

    <!-- transcript not replayable: the reason -->

Replaying a transcript:

* ``→`` lines are sent as written, after every ``←`` line above them has
  arrived (the order of a transcript is the order of cause and effect; the
  answers between two ``→`` lines may come in any order: responses are
  matched by ``id``, notifications by ``method``). Before a
  ``$/cancelRequest``, the hook to cancel is waited for (its ``started``
  file), so that the cancel finds it running.
* ``$ cd …`` and ``$ latch serve`` lines are what the setup does; any other
  ``$`` line is a shell command run in the project directory while the
  server runs (an edit of the configuration, say).
* A transcript whose first request is not ``initialize`` starts after
  ``INITIALIZE`` (the doc says so), unless its setup is not initialized.
* In the doc, ``/p`` stands for the project directory and ``/s`` for the
  state directory; ``duration_ms`` and the server's ``version`` are
  compared by shape only; ``…`` in a string stands for any text.
* Every message the server writes must be in the transcript, and the
  server must exit 0 at the end of its input.
"""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, NoReturn, Optional, Tuple

import pytest

#: How long any one expected message, or a hook's start, is waited for.
PATIENCE = 30.0

#: The `initialize` a transcript comes after when it starts with another
#: request (its answer as in the doc's first transcript).
INITIALIZE = (
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"dialects":["claude"],'
    '"project":"/p","home":"/nonexistent","claude_managed_dir":"/nonexistent","state_dir":"/s"}}'
)
INITIALIZED = '{"jsonrpc":"2.0","id":1,"result":{"server":{"name":"latch","version":"0.1.0"},"dialects":["claude"],"diagnostics":[]}}'


def docs_dir() -> Optional[Path]:
    """The directory of ``serve.md``: ``$LATCH_DOCS_DIR``, else the source tree's."""
    given = os.environ.get("LATCH_DOCS_DIR")
    if given:
        return Path(given)
    in_tree = Path(__file__).resolve().parent.parent.parent.parent / "docs"
    return in_tree if (in_tree / "serve.md").is_file() else None


# --- The projects the transcripts need ------------------------------------

GUARD = (
    '{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"echo no >&2; exit 2"}]}],'
    '"Stop":[{"hooks":[{"type":"command","command":"echo done"}]}]}}\n'
)


@dataclass
class Setup:
    """A project for a transcript."""

    #: Files of the project, by path relative to it (``.sh`` files executable).
    files: Dict[str, str] = field(default_factory=dict)
    #: Copy this directory (relative to the repository) as the project.
    example: Optional[str] = None
    #: The state directory: "dir" (empty), "file" (a regular file) or
    #: "none" (none at all: no $HOME for the server either).
    state: str = "dir"
    #: Whether the transcript starts after `INITIALIZE` (when its first
    #: request is not an `initialize`).
    initialized: bool = True
    #: A file a hook creates when it starts: a `$/cancelRequest` is sent
    #: once it exists.
    started: Optional[str] = None


SETUPS: Dict[str, Setup] = {
    # The repository's Claude Code example project.
    "example": Setup(example="examples/claude/project"),
    # A PreToolUse hook for Bash that denies, a Stop hook that says done.
    "guard": Setup(files={".claude/settings.json": GUARD}),
    # The same with a misspelt event.
    "typo": Setup(files={".claude/settings.json": GUARD.replace('"Stop"', '"Stopp"')}),
    # A PreToolUse hook for Bash that marks that it started and hangs.
    "slow": Setup(
        files={
            ".claude/settings.json": '{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":'
            '[{"type":"command","command":"touch started; sleep 30"}]}]}}\n'
        },
        started="started",
    ),
    # An async PostToolUse hook for Bash whose script adds context.
    "async": Setup(
        files={
            ".claude/settings.json": '{"hooks":{"PostToolUse":[{"matcher":"Bash","hooks":[{"type":"command",'
            '"async":true,"command":"\\"$CLAUDE_PROJECT_DIR\\"/.claude/hooks/report.sh"}]}]}}\n',
            ".claude/hooks/report.sh": "#!/bin/sh\n"
            "echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PostToolUse\",\"additionalContext\":\"3 tests failed\"}}'\n",
        }
    ),
    # `guard`, with a state directory that is a regular file.
    "state-file": Setup(files={".claude/settings.json": GUARD}, state="file"),
    # `guard`, with no state directory at all.
    "no-state": Setup(files={".claude/settings.json": GUARD}, state="none", initialized=False),
    # A plugin `q` in the project whose manifest names the hooks file
    # `extra.json`, with a PreToolUse hook for Bash that denies; the
    # transcript gives its own `initialize` (with `plugin_dirs`).
    "plugin": Setup(
        files={
            "q/.claude-plugin/plugin.json": '{"name": "q", "hooks": "extra.json"}\n',
            "q/extra.json": GUARD,
        },
        initialized=False,
    ),
    # Nothing, and no `initialize`.
    "bare": Setup(initialized=False),
}


# --- Reading the doc --------------------------------------------------------


@dataclass
class Step:
    kind: str  # "send", "expect" or "shell"
    text: str
    line: int  # in the doc, 1-based


@dataclass
class Transcript:
    line: int  # of the opening fence
    setup: Optional[str]
    not_replayable: Optional[str]
    steps: List[Step]

    @property
    def name(self) -> str:
        return f"serve.md:{self.line}:{self.setup or 'not-replayable'}"


ANNOTATION = re.compile(r"<!--\s*transcript(?P<not>\s+not\s+replayable)?\s*:\s*(?P<value>.*?)\s*-->", re.S)


def read_transcripts(text: str) -> List[Transcript]:
    """Every transcript block of ``text``, with its annotation."""
    lines = text.split("\n")
    found: List[Transcript] = []
    i = 0
    while i < len(lines):
        if not lines[i].startswith("```"):
            i += 1
            continue
        start = i
        i += 1
        body: List[Tuple[int, str]] = []
        while i < len(lines) and not lines[i].startswith("```"):
            body.append((i + 1, lines[i]))
            i += 1
        i += 1
        if not any(line.startswith(("→ ", "← ")) for _, line in body):
            continue
        steps = []
        for number, line in body:
            if line.startswith("→ "):
                steps.append(Step("send", line[2:], number))
            elif line.startswith("← "):
                steps.append(Step("expect", line[2:], number))
            elif line.startswith("$ "):
                command = line[2:]
                if not (command.startswith("cd ") or command == "latch serve"):
                    steps.append(Step("shell", command, number))
            elif line.strip():
                raise AssertionError(f"serve.md:{number}: a transcript line must start with →, ← or $: {line!r}")
        # The HTML comment that ends just before the block, if any.
        before = "\n".join(lines[:start]).rstrip()
        match = ANNOTATION.fullmatch(before[before.rfind("<!--") :]) if before.endswith("-->") else None
        setup = reason = None
        if match:
            if match.group("not"):
                reason = match.group("value")
            else:
                setup = match.group("value")
        found.append(Transcript(start + 1, setup, reason, steps))
    return found


def load_transcripts() -> List[Transcript]:
    directory = docs_dir()
    if directory is None:
        return []
    return read_transcripts((directory / "serve.md").read_text(encoding="utf-8"))


TRANSCRIPTS = load_transcripts()
REPLAYED = [t for t in TRANSCRIPTS if t.setup is not None]


# --- Comparing --------------------------------------------------------------

VERSION = re.compile(r"\d+\.\d+\.\d+([-+][0-9A-Za-z.+-]*)?")


def difference(expected: Any, actual: Any, where: str = "") -> Optional[str]:
    """Where ``actual`` differs from ``expected``, or ``None``."""
    key = where.rsplit("/", 1)[-1]
    if key == "duration_ms":
        ok = all(isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 for v in (expected, actual))
        return None if ok else f"{where}: {expected!r} and {actual!r} are not both durations"
    if key == "version":
        ok = all(isinstance(v, str) and VERSION.fullmatch(v) for v in (expected, actual))
        return None if ok else f"{where}: {expected!r} and {actual!r} are not both versions"
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{where or '/'}: expected an object, got {json.dumps(actual)}"
        if set(expected) != set(actual):
            return (
                f"{where or '/'}: members differ: missing {sorted(set(expected) - set(actual))}, "
                f"unexpected {sorted(set(actual) - set(expected))}"
            )
        for k in expected:
            found = difference(expected[k], actual[k], f"{where}/{k}")
            if found:
                return found
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return f"{where or '/'}: expected {json.dumps(expected)}, got {json.dumps(actual)}"
        for n, (e, a) in enumerate(zip(expected, actual)):
            found = difference(e, a, f"{where}/{n}")
            if found:
                return found
        return None
    if isinstance(expected, str) and "…" in expected and isinstance(actual, str):
        pattern = ".*?".join(re.escape(part) for part in expected.split("…"))
        return None if re.fullmatch(pattern, actual, re.S) else f"{where}: {actual!r} does not match {expected!r}"
    if type(expected) is not type(actual) and not (
        isinstance(expected, (int, float)) and isinstance(actual, (int, float)) and not isinstance(actual, bool)
    ):
        return f"{where or '/'}: expected {json.dumps(expected)}, got {json.dumps(actual)}"
    return None if expected == actual else f"{where or '/'}: expected {json.dumps(expected)}, got {json.dumps(actual)}"


def replace_strings(value: Any, replacements: List[Tuple[str, str]]) -> Any:
    """``value`` with each replacement made in every string."""
    if isinstance(value, str):
        for old, new in replacements:
            value = value.replace(old, new)
        return value
    if isinstance(value, list):
        return [replace_strings(v, replacements) for v in value]
    if isinstance(value, dict):
        return {k: replace_strings(v, replacements) for k, v in value.items()}
    return value


def compact(value: Any) -> str:
    """``value`` as the server writes JSON."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def match_key(message: Any) -> Tuple[str, str]:
    """What an answer is matched by: a response by its id, a notification by its method."""
    if isinstance(message, dict) and "id" in message:
        return ("id", json.dumps(message["id"]))
    if isinstance(message, dict) and "method" in message:
        return ("method", str(message["method"]))
    return ("other", json.dumps(message))


# --- Replaying --------------------------------------------------------------


class Replay:
    """One transcript's server and project."""

    def __init__(self, binary: str, transcript: Transcript, base: Path) -> None:
        self.transcript = transcript
        assert transcript.setup in SETUPS, f"{transcript.name}: no setup named {transcript.setup!r}"
        self.setup = SETUPS[transcript.setup]
        self.project = base / "p"
        state = base / "s"
        home = base / "home"
        home.mkdir()
        if self.setup.example:
            directory = docs_dir()
            assert directory is not None
            source = directory.parent / self.setup.example
            assert source.is_dir(), f"{transcript.name}: no {source} (set LATCH_DOCS_DIR to the repository's docs)"
            shutil.copytree(source, self.project, symlinks=True)
        else:
            self.project.mkdir()
        for name, content in self.setup.files.items():
            path = self.project / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content)
            if name.endswith(".sh"):
                path.chmod(0o755)
        if self.setup.state == "file":
            state.write_text("not a directory\n")
        self.env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("LATCH_", "OTEL_", "CLAUDE_")) and k != "XDG_STATE_HOME"
        }
        if self.setup.state == "none":
            self.env.pop("HOME", None)
        else:
            self.env["HOME"] = str(home)
        # Real paths to placeholders, the longest first.
        pairs = {str(self.project): "/p", str(state): "/s"}
        for real, placeholder in list(pairs.items()):
            pairs[os.path.realpath(real)] = placeholder
        self.to_placeholders = sorted(pairs.items(), key=lambda p: -len(p[0]))
        self.from_placeholders = {"/p": str(self.project), "/s": str(state)}
        self.stderr = open(base / "stderr", "w+b")
        self.proc = subprocess.Popen(
            [binary, "serve"],
            cwd=self.project,
            env=self.env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
        )
        self.lines: "queue.Queue[Optional[bytes]]" = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        #: Expected messages not yet seen: (message, doc line, text).
        self.pending: List[Tuple[Any, int, str]] = []

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def fail(self, why: str) -> NoReturn:
        self.stderr.flush()
        self.stderr.seek(0)
        err = self.stderr.read().decode(errors="replace")[-2000:]
        pytest.fail(f"{self.transcript.name}: {why}" + (f"\nserver stderr:\n{err}" if err else ""), pytrace=False)

    def to_real(self, text: str) -> str:
        """``text`` with the placeholders (as JSON strings' starts) made real."""
        return re.sub(r'(?<=")/([ps])(?=["/])', lambda m: self.from_placeholders["/" + m.group(1)], text)

    def shell_to_real(self, command: str) -> str:
        return re.sub(
            r"(?<![\w./-])/([ps])(?=[/\s'\"]|$)", lambda m: self.from_placeholders["/" + m.group(1)], command
        )

    def send(self, text: str, line: int) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(self.to_real(text).encode() + b"\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            self.fail(f"line {line}: the server closed its input before {text}")

    def expect(self, text: str, line: int) -> None:
        try:
            message = json.loads(text)
        except ValueError as e:
            raise AssertionError(f"serve.md:{line}: not JSON ({e}): {text}") from None
        self.pending.append((message, line, text))

    def receive(self) -> None:
        """Takes messages until every pending one has arrived, each as expected."""
        while self.pending:
            try:
                raw = self.lines.get(timeout=PATIENCE)
            except queue.Empty:
                raw = b""
            if not raw:
                waiting = "\n".join(f"  serve.md:{line}: {text}" for _, line, text in self.pending)
                gone = "the server closed its output" if raw is None else f"nothing came in {PATIENCE:.0f} s"
                self.fail(f"{gone}; still expected:\n{waiting}")
            self.check(raw)

    def check(self, raw: bytes) -> None:
        try:
            actual = replace_strings(json.loads(raw), self.to_placeholders)
        except ValueError:
            self.fail(f"the server wrote a line that is not JSON: {raw!r}")
        key = match_key(actual)
        for n, (expected, line, text) in enumerate(self.pending):
            if match_key(expected) == key:
                found = difference(expected, actual)
                if found:
                    self.fail(
                        f"line {line}: the server's answer differs at {found}\n"
                        f"  expected: {text}\n  actual:   {compact(actual)}"
                    )
                del self.pending[n]
                return
        waiting = "\n".join(f"  serve.md:{line}: {text}" for _, line, text in self.pending) or "  nothing"
        self.fail(
            f"the server wrote a message the transcript does not show:\n  {compact(actual)}\n"
            f"expected:\n{waiting}"
        )

    def wait_started(self, line: int) -> None:
        if not self.setup.started:
            return
        marker = self.project / self.setup.started
        deadline = time.monotonic() + PATIENCE
        while not marker.exists():
            if time.monotonic() > deadline:
                self.fail(f"line {line}: the hook to cancel never started")
            time.sleep(0.02)

    def shell(self, command: str, line: int) -> None:
        # The watcher takes its first look at the configuration just after
        # `initialize`; an edit before that look would go unseen.
        time.sleep(1.0)
        done = subprocess.run(
            ["sh", "-c", self.shell_to_real(command)], cwd=self.project, env=self.env, capture_output=True, text=True
        )
        if done.returncode != 0:
            self.fail(f"line {line}: `{command}` failed: {done.stderr}")

    def run(self) -> None:
        steps = self.transcript.steps
        first = next((s for s in steps if s.kind == "send"), None)
        if self.setup.initialized and (first is None or method_of(first.text) != "initialize"):
            self.send(INITIALIZE, 0)
            self.expect(INITIALIZED, 0)
        for step in steps:
            if step.kind == "expect":
                self.expect(step.text, step.line)
                continue
            self.receive()
            if step.kind == "shell":
                self.shell(step.text, step.line)
            else:
                if method_of(step.text) == "$/cancelRequest":
                    self.wait_started(step.line)
                self.send(step.text, step.line)
        self.receive()
        self.finish()

    def finish(self) -> None:
        """Closes the server's input: it must exit 0, having written nothing more."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        try:
            code = self.proc.wait(timeout=PATIENCE)
        except subprocess.TimeoutExpired:
            self.fail(f"the server did not exit within {PATIENCE:.0f} s of the end of its input")
        while True:
            try:
                raw = self.lines.get(timeout=PATIENCE)
            except queue.Empty:
                break
            if raw is None:
                break
            self.check(raw)
        if code != 0:
            self.fail(f"the server exited {code}")

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        self.stderr.close()


def method_of(text: str) -> Optional[str]:
    try:
        message = json.loads(text)
    except ValueError:
        return None
    method = message.get("method") if isinstance(message, dict) else None
    return method if isinstance(method, str) else None


# --- The tests --------------------------------------------------------------


@pytest.mark.no_latch
def test_the_doc_has_transcripts() -> None:
    if docs_dir() is None:
        pytest.skip("no docs/serve.md: set LATCH_DOCS_DIR")
    assert REPLAYED, "docs/serve.md has no replayable transcript"
    # The `initialize` the others come after is the doc's own.
    steps = [(s.kind, s.text) for t in REPLAYED for s in t.steps]
    assert ("send", INITIALIZE) in steps and ("expect", INITIALIZED) in steps, (
        "docs/serve.md no longer shows the `initialize` that transcripts come after; update INITIALIZE"
    )


@pytest.mark.no_latch
@pytest.mark.parametrize("transcript", TRANSCRIPTS, ids=lambda t: t.name)
def test_every_transcript_is_replayed_or_says_why_not(transcript: Transcript) -> None:
    if transcript.setup is None:
        assert transcript.not_replayable, (
            f"{transcript.name}: the transcript needs `<!-- transcript: SETUP -->` "
            f"(one of {sorted(SETUPS)}) or `<!-- transcript not replayable: REASON -->` just before it"
        )
    else:
        assert transcript.setup in SETUPS, f"{transcript.name}: no setup {transcript.setup!r} in {sorted(SETUPS)}"


@pytest.mark.no_latch
def test_every_method_notification_and_error_code_has_a_replayed_transcript() -> None:
    if docs_dir() is None:
        pytest.skip("no docs/serve.md: set LATCH_DOCS_DIR")
    sent, written, codes = set(), set(), set()
    for t in REPLAYED:
        for step in t.steps:
            if step.kind == "send":
                sent.add(method_of(step.text))
            elif step.kind == "expect":
                message = json.loads(step.text)
                if "method" in message:
                    written.add(message["method"])
                if isinstance(message.get("error"), dict):
                    codes.add(message["error"].get("code"))
    methods = {"initialize", "fire", "explain", "trust/list", "trust/approve", "trust/revoke", "shutdown"}
    assert methods | {"exit", "$/cancelRequest"} <= sent, sorted(methods | {"exit", "$/cancelRequest"} - sent)
    assert {"latch/asyncResult", "latch/diagnostics"} <= written
    assert {-32700, -32600, -32601, -32602, -32603, -32002, -32003} <= codes, sorted(codes)


@pytest.mark.parametrize("transcript", REPLAYED, ids=lambda t: t.name)
def test_transcript(transcript: Transcript, latch_bin: str, tmp_path: Path) -> None:
    replay = Replay(latch_bin, transcript, tmp_path)
    try:
        replay.run()
    finally:
        replay.close()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
