"""The real ``metona-tray`` as a subprocess, as a person runs it in a terminal: the set-up the
terminal tests share (their own data folder and home, no colours, no display, a chosen locale).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
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
