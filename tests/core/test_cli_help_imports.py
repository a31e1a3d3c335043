"""Help and version answer without loading the core: the real CLI in a subprocess, its own
``-X importtime`` list says which modules it loaded (``--toggle``: tests/desktop)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("tray_app.core", "tray_app.agent", "tray_app.store", "tray_app.tools",
         "tray_app.providers", "pydantic", "httpx", "sqlite3", "keyring", "webview",
         "ssl")  # fmt: skip


def imported(args: list[str], home: Path) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    env = {**os.environ, "METONA_HOME": str(home)}
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "tray_app", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    names = [
        line.rsplit("|", 1)[1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:") and line.count("|") == 2
    ]
    return done, names


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["--version"],
        ["chat", "--help"],
        ["changes", "--help"],
        ["doctor", "--help"],
        ["models", "check", "--help"],
    ],
)
def test_help_and_version_load_nothing_heavy(args: list[str], tmp_path: Path) -> None:
    done, names = imported(args, tmp_path / "家 home")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip()  # it answered
    assert "tray_app.cli.cli" in names  # the list is real
    assert [n for n in names if n.startswith(HEAVY)] == []
