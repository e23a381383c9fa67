"""The synchronous client's cost per ``fire``, with and without a timeout.

Usage: python3 clients/python/bench/fire_rate.py [LATCH_BINARY] [FIRES]

Starts ``latch serve`` (default: ``$LATCH_BIN``, else ``latch`` on PATH)
with the poolside dialect in an empty temporary project, so no hook runs,
and times FIRES (default 3000) back-to-back fires after 200 warm-up ones,
twice each way, alternating. What it measures is the round trip the client
adds to the server's: encoding, the write, the reader thread's hand-over.
"""

import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from latch_client import Client  # noqa: E402


def main() -> None:
    binary = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("LATCH_BIN", "latch")
    fires = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
    with tempfile.TemporaryDirectory() as root:
        event = {"event": "tool_before", "session_id": "s", "tool": {"name": "x", "input": {"a": 1}}}
        with Client(binary=binary, dialects=["poolside"], project=root, home=root, state_dir=f"{root}/state") as latch:
            timeouts: list[Optional[float]] = [None, 30.0, None, 30.0]
            for timeout in timeouts:
                for _ in range(200):
                    latch.fire(event, timeout=timeout)
                started = time.perf_counter()
                for _ in range(fires):
                    latch.fire(event, timeout=timeout)
                each = (time.perf_counter() - started) / fires
                print(f"timeout {timeout}: {each * 1e6:.1f} µs a fire")


if __name__ == "__main__":
    main()
