"""What the terminal-mode tests share: ``metona-tray`` run as a real subprocess with this
test's METONA_HOME, HOME and working folder (``run``), a workspace, and a reader that checks
every ``--json`` line against the wire contract. The test modules bind the fixtures by name
(``run = terminal_mode_rig.run``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.cli import chat_args
from tests.fakes.ollama_server import FakeOllama
from tray_app.base.events import parse_event

Run = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    return folder


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


@pytest.fixture
def run(metona_home: Path, home: Path, tmp_path: Path) -> Run:
    cwd = tmp_path / "cwd"
    cwd.mkdir()

    def go(*args: str, stdin: str | None = None, timeout: float = 60) -> Any:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "COV_"))}
        env.update(
            METONA_HOME=str(metona_home),
            HOME=str(home),
            XDG_DATA_HOME=str(home / ".local" / "share"),
            NO_COLOR="1",
        )
        env.pop("DISPLAY", None)
        env.pop("WAYLAND_DISPLAY", None)
        return subprocess.run(
            [sys.executable, "-m", "tray_app", *args],
            input=stdin if stdin is not None else "",
            capture_output=True,
            text=True,
            env=env,
            cwd=cwd,
            timeout=timeout,
        )

    return go


def events(stdout: str) -> list[dict[str, Any]]:
    """Every stdout line of ``--json`` is one event of the wire contract
    (tray_app/base/events.py)."""
    lines = [line for line in stdout.splitlines() if line.strip()]
    for line in lines:
        parse_event(line)  # raises on anything that is not a known event
    return [json.loads(line) for line in lines]


def chat(run: Run, fake: FakeOllama, workspace: Path, prompt: str, *flags: str) -> Any:
    return run(*chat_args(fake.url, workspace, "--json", *flags, prompt))
