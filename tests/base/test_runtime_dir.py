"""``--toggle`` finds the running app's socket through ``tray_app.base.runtime_dir`` alone; it must
name the very folder the app itself uses (``AppPaths``), with and without ``METONA_HOME``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tray_app.base.paths import AppPaths
from tray_app.base.runtime_dir import runtime_dir


@pytest.mark.parametrize("home", ["~/家 🙂/\u202eeht", "/tmp/metona home"])
def test_the_toggle_and_the_app_agree_under_metona_home(home: str) -> None:
    env = {"METONA_HOME": home, "HOME": "/home/someone"}
    assert runtime_dir(env) == AppPaths.from_env(env).runtime_dir
    assert runtime_dir(env).name == "run"


def test_the_toggle_and_the_app_agree_on_the_per_os_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("METONA_HOME", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "运行"))
    assert runtime_dir() == AppPaths.from_env().runtime_dir
    assert str(tmp_path) in str(runtime_dir())


@pytest.mark.parametrize("command", [("sessions",), ("changes",), ("--toggle",)])
def test_a_terminal_command_prints_no_runtime_dir_warning(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    """A session without XDG_RUNTIME_DIR (cron, ssh, su): platformdirs falls back to a private
    folder and warns; the real CLI must not print that warning on the terminal."""
    home = tmp_path / "家 🏠"
    home.mkdir()
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("XDG_") and key not in ("METONA_HOME", "PYTHONWARNINGS")
    }
    env["HOME"] = str(home)
    env["LANG"] = "C.UTF-8"
    done = subprocess.run(
        [sys.executable, "-m", "tray_app", *command],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "RuntimeDirWarning" not in done.stderr, done.stderr
    assert "XDG_RUNTIME_DIR" not in done.stderr + done.stdout, done.stderr
