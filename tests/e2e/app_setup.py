"""A desktop test's app: its private data folder with a settings file, and a fixture's start
and stop around the test."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.e2e.desktop_env import AppProcess


def app_home(tmp_path: Path, settings: dict[str, Any]) -> Path:
    """A private METONA_HOME whose settings file holds ``settings``."""
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    (home / "config" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    return home


def app_settings(endpoint: str, workspace: Path, **more: Any) -> dict[str, Any]:
    """The tests' usual settings: the fake model server, no thinking, ``workspace`` allowed,
    English unless ``more`` says otherwise."""
    settings: dict[str, Any] = {
        "endpoint": endpoint,
        "default_model": "qwen3:8b",
        "think": False,
        "allowed_dirs": [str(workspace)],
        "language": "en",
    }
    return {**settings, **more}


def running(process: AppProcess) -> Iterator[AppProcess]:
    """For a fixture: ``process`` started, then stopped however the test ended."""
    try:
        process.start()
        yield process
    finally:
        process.stop()
