"""Fixtures for the desktop unit tests that need a real X server."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator

import pytest


@pytest.fixture
def xdisplay(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A private Xvfb as DISPLAY (X11 session), stopped after the test."""
    if not shutil.which("Xvfb") or not shutil.which("xdotool"):
        pytest.skip("needs Xvfb and xdotool")
    read_fd, write_fd = os.pipe()
    xvfb = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", "640x480x24", "-nolisten", "tcp",
         "-noreset"],
        pass_fds=(write_fd,), stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    os.close(write_fd)
    with os.fdopen(read_fd) as pipe:
        number = pipe.readline().strip()
    assert number, "Xvfb chose no display"
    monkeypatch.setenv("DISPLAY", f":{number}")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.delenv("XDG_SESSION_TYPE", raising=False)
    try:
        yield f":{number}"
    finally:
        xvfb.terminate()
        xvfb.wait(10)
