"""The installed distribution carries what it declares."""

from __future__ import annotations

import importlib.metadata


def test_the_license_files_are_shipped() -> None:
    dist = importlib.metadata.distribution("latch-client")
    assert dist.metadata["License-Expression"] == "MIT OR Apache-2.0"
    assert sorted(dist.metadata.get_all("License-File") or []) == ["LICENSE-APACHE", "LICENSE-MIT"]
    shipped = {f.name: f for f in dist.files or [] if f.name.startswith("LICENSE-")}
    assert sorted(shipped) == ["LICENSE-APACHE", "LICENSE-MIT"]
    assert "Permission is hereby granted" in shipped["LICENSE-MIT"].read_text()
    assert "Apache License" in shipped["LICENSE-APACHE"].read_text()
