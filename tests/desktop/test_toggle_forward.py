"""`metona-tray --toggle` and a second launch talk to the running app over the instance socket
only: the real CLI in a subprocess, a real first instance here, and the subprocess's own list of
imported modules shows nothing of the core or the GUI was loaded."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tray_app.base.paths import AppPaths
from tray_app.desktop.instance.instance import SingleInstance, forward_if_running

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="Unix socket protocol")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home 家 🙂"


@pytest.fixture
def running(home: Path) -> Iterator[list[dict[str, Any]]]:
    instance = SingleInstance(AppPaths.under(home).runtime_dir)
    assert instance.acquire()
    received: list[dict[str, Any]] = []

    def handler(request: dict[str, Any]) -> dict[str, Any]:
        received.append(request)
        return {"ok": True}

    instance.serve(handler)
    yield received
    instance.release()


def launch(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "METONA_HOME": str(home), "DISPLAY": os.environ.get("DISPLAY", ":0")}
    return subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "tray_app", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def imported(stderr: str) -> set[str]:
    return {line.split("|")[-1].strip() for line in stderr.splitlines() if "import time" in line}


@pytest.mark.parametrize(("args", "command"), [(("--toggle",), "toggle"), ((), "show")])
def test_the_forward_imports_nothing_of_the_core(
    home: Path, running: list[dict[str, Any]], args: tuple[str, ...], command: str
) -> None:
    done = launch(home, *args)
    assert done.returncode == 0, done.stderr[-2000:]
    assert running == [{"command": command}]
    modules = imported(done.stderr)
    assert "tray_app.desktop.instance.instance" in modules  # the list is real
    heavy = {m for m in modules if m.startswith(("tray_app.core", "tray_app.store", "httpx"))}
    heavy |= {m for m in modules if m in ("tray_app.desktop.app", "pydantic", "webview", "gi")}
    assert heavy == set()
    # Nor what only the first instance or the other commands use: the path stays this short so
    # that a busy machine does not make the hotkey's --toggle slow (``make bench`` times it).
    light = {"argparse", "logging", "dataclasses", "inspect", "secrets", "tray_app.base.paths"}
    assert modules & light == set()
    assert "platformdirs" not in modules  # METONA_HOME names the folder: no per-OS lookup


def test_with_no_app_running_nothing_is_forwarded(home: Path) -> None:
    runtime = AppPaths.under(home).runtime_dir
    assert forward_if_running(runtime, "show") is None  # no lock file yet
    runtime.mkdir(parents=True)
    (runtime / "instance.lock").write_text("12345\n")  # left by a crash: nobody holds it
    assert forward_if_running(runtime, "show") is None
    assert SingleInstance(runtime).acquire()  # the lock was let go again
