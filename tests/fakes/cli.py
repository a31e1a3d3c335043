"""The real ``metona-tray`` as a subprocess, as a person runs it in a terminal: the set-up the
terminal tests share (their own data folder and home, no colours, no display, a chosen locale).
"""

from __future__ import annotations

import contextlib
import os
import select
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MODEL = "qwen3:8b"


def cli_env(metona_home: Path, home: Path, *, lang: str | None = None) -> dict[str, str]:
    """The environment of one run: no display, so ``chat`` stays in the terminal; with
    ``lang``, the locale says that language and nothing else overrides it."""
    home.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, METONA_HOME=str(metona_home), HOME=str(home), NO_COLOR="1")
    for name in ("DISPLAY", "WAYLAND_DISPLAY"):
        env.pop(name, None)
    if lang is not None:
        for name in ("LC_ALL", "LC_MESSAGES", "LANGUAGE"):
            env.pop(name, None)
        env["LANG"] = lang
    return env


def chat_args(endpoint: str, workspace: Path, *args: str, model: str = MODEL) -> list[str]:
    """``chat``'s arguments after ``metona-tray``: against a fake model server, in
    ``workspace``, then ``args`` (flags, a prompt)."""
    return ["chat", "--model", model, "--endpoint", endpoint, "--workspace", str(workspace), *args]


def chat_command(endpoint: str, workspace: Path, *args: str) -> list[str]:
    """``metona-tray chat`` as a command line (see ``chat_args``)."""
    return [sys.executable, "-m", "tray_app", *chat_args(endpoint, workspace, *args)]


def run_cli(
    command: list[str], env: dict[str, str], stdin: str = "", **options: Any
) -> subprocess.CompletedProcess[str]:
    """Run to the end with ``stdin`` typed in; text both ways in UTF-8 (the tests' CJK, emoji
    and direction controls must reach the assertions unchanged)."""
    options.setdefault("timeout", 90)
    return subprocess.run(
        command,
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        check=False,
        **options,
    )


def app_runner(
    metona_home: Path, workdir: Path, *, default_lang: str = "en_US.UTF-8"
) -> Callable[..., subprocess.CompletedProcess[str]]:
    """``run(*args, lang=...)``: ``metona-tray ARGS`` run to the end in ``workdir`` with its
    own home under it, the locale saying ``lang``, nothing typed in, and no traceback on
    stderr. The tree under test comes first on the path, whatever the venv installed."""
    repo = Path(__file__).resolve().parents[2]

    def run(*args: str, lang: str = default_lang) -> subprocess.CompletedProcess[str]:
        env = cli_env(metona_home, workdir / "user", lang=lang)
        env["PYTHONPATH"] = str(repo)
        done = run_cli([sys.executable, "-m", "tray_app", *args], env, cwd=workdir)
        assert "Traceback" not in done.stderr, done.stderr
        return done

    return run


@dataclass
class Terminal:
    """A command whose stdin and stderr are a pseudo-terminal (so it asks, as for a person) and
    whose stdout is a pipe; ``master`` is the person's side of the terminal."""

    proc: subprocess.Popen[bytes]
    master: int

    def read_until(self, needle: bytes, timeout: float = 20) -> bytes:
        """What the terminal showed up to and including ``needle``; fails with the tail seen."""
        seen = b""
        deadline = time.monotonic() + timeout
        while needle not in seen:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"{needle!r} not seen; got {seen[-500:]!r}")
            ready, _, _ = select.select([self.master], [], [], remaining)
            if ready:
                try:
                    chunk = os.read(self.master, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                seen += chunk
        return seen

    def type(self, text: str) -> None:
        os.write(self.master, text.encode("utf-8"))


@contextlib.contextmanager
def on_a_terminal(command: list[str], env: dict[str, str]) -> Iterator[Terminal]:
    """Run ``command`` on a pseudo-terminal; killed and closed on the way out."""
    master, slave = os.openpty()
    proc = subprocess.Popen(command, stdin=slave, stdout=subprocess.PIPE, stderr=slave, env=env)
    os.close(slave)
    try:
        yield Terminal(proc, master)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
