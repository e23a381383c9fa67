"""``python -m latch_bin ARGS``: run the bundled ``latch`` with ARGS."""

from __future__ import annotations

import os
import sys

from latch_bin import find_latch_bin


def main() -> None:
    """Replace this process with ``latch``."""
    latch = find_latch_bin()
    os.execv(latch, [latch, *sys.argv[1:]])


if __name__ == "__main__":
    main()
