"""The terminal commands as a user runs them: ``python -m tray_app`` as a real subprocess with
this test's METONA_HOME, HOME and working folder (the ``cli`` fixture), and what those tests
share. Read-only data folders are real read-only bind mounts in a private mount namespace
(``unshare -m``; root only, skipped otherwise: root ignores file permissions)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.ollama_server import FakeOllama

REPO = Path(__file__).resolve().parents[2]
CAN_MOUNT = (
    sys.platform == "linux"
    and os.geteuid() == 0
    and shutil.which("unshare") is not None
    and subprocess.run(["unshare", "-m", "true"], capture_output=True, check=False).returncode == 0
)
needs_mounts = pytest.mark.skipif(not CAN_MOUNT, reason="needs root and mount namespaces")
ANSWER = "答案：一切正常 ✅ \u202eok\u202c"


class Cli:
    """Runs ``python -m tray_app ...`` with this test's METONA_HOME, HOME and working folder."""

    def __init__(self, metona_home: Path, tmp_path: Path) -> None:
        self.home = metona_home
        self.cwd = tmp_path / "cwd"
        self.cwd.mkdir()
        user_home = tmp_path / "user"
        user_home.mkdir()
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "COV_"))}
        self.env.update(METONA_HOME=str(metona_home), HOME=str(user_home), NO_COLOR="1")
        self.env["PYTHONPATH"] = str(REPO)
        self.env.pop("DISPLAY", None)
        self.env.pop("WAYLAND_DISPLAY", None)

    def argv(self, args: tuple[str, ...], read_only: bool) -> list[str]:
        command = [sys.executable, "-m", "tray_app", *args]
        if not read_only:
            return command
        # The whole METONA_HOME read-only, for this process only.
        script = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" "$0" && exec "$@"'
        namespace = ["unshare", "-m", "--propagation", "private", "sh", "-c", script]
        return [*namespace, str(self.home), *command]

    def run(self, *args: str, read_only: bool = False, timeout: float = 60) -> Any:
        result = subprocess.run(
            self.argv(args, read_only),
            input="",
            capture_output=True,
            text=True,
            env=self.env,
            cwd=self.cwd,
            timeout=timeout,
        )
        assert "Traceback" not in result.stderr, result.stderr
        return result

    def start(self, *args: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            self.argv(args, False),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=self.env,
            cwd=self.cwd,
        )


@pytest.fixture
def cli(metona_home: Path, tmp_path: Path) -> Iterator[Cli]:
    yield Cli(metona_home, tmp_path)


def ask(cli: Cli, fake: FakeOllama, prompt: str, *flags: str, read_only: bool = False) -> Any:
    return cli.run(
        "chat", "--model", "qwen3:8b", "--endpoint", fake.url, *flags, prompt, read_only=read_only
    )


def rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    if not db.exists():
        return []
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
    try:
        return conn.execute(sql).fetchall()
    except sqlite3.OperationalError:
        return []
    finally:
        conn.close()


def one_line(stderr: str, needle: str) -> str:
    lines = [line for line in stderr.splitlines() if needle in line]
    assert len(lines) == 1, stderr
    return lines[0]
