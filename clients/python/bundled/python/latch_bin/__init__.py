"""The ``latch`` binary installed by the ``latch-bin`` wheel."""

from __future__ import annotations

import os
import sys
import sysconfig

__all__ = ["find_latch_bin"]


def find_latch_bin() -> str:
    """The path of the ``latch`` executable this wheel installed.

    :raises FileNotFoundError: when it is not there.
    """
    name = "latch" + (sysconfig.get_config_var("EXE") or "")
    candidates = [sysconfig.get_path("scripts")]
    user_scheme = f"{os.name}_user"
    if user_scheme in sysconfig.get_scheme_names():
        candidates.append(sysconfig.get_path("scripts", scheme=user_scheme))
    # A `pip install --target` layout: <target>/bin next to <target>/latch_bin.
    candidates.append(os.path.join(os.path.dirname(os.path.dirname(__file__)), "bin"))
    for directory in candidates:
        path = os.path.join(directory, name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    raise FileNotFoundError(f"{name} is not installed beside {sys.executable}")
