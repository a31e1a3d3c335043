"""``metona-tray chat`` as a subprocess against fake Ollama: --yes-all does not answer a call
past a damage budget (issue 11); without a terminal to ask, it is denied and the reason names
the budget, while the calls within the budget ran."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import text_turn, tool_turn
from tray_app.paths import AppPaths
from tray_app.store.settings import Settings, save_settings


def test_yes_all_does_not_approve_a_delete_past_the_budget(
    fake_ollama: FakeOllama, metona_home: Path, tmp_path: Path
) -> None:
    paths = AppPaths.under(metona_home)
    paths.ensure()
    save_settings(Settings(budget_files_removed=2), paths.settings_file)
    workspace = tmp_path / "work"
    workspace.mkdir()
    names = ["甲 🍎.txt", "乙 🍌.txt", "丙 🍒.txt"]
    for name in names:
        (workspace / name).write_text(name)
    fake_ollama.script(
        tool_turn([("delete_file", {"path": name}) for name in names]),
        text_turn("Two of three are gone."),
    )
    env = dict(os.environ, METONA_HOME=str(metona_home), HOME=str(tmp_path / "home"), NO_COLOR="1")
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    (tmp_path / "home").mkdir()
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "tray_app",
            "chat",
            "--model",
            "qwen3:8b",
            "--endpoint",
            fake_ollama.url,
            "--workspace",
            str(workspace),
            "--yes-all",
        ],
        input="clean up\n/exit\n",
        capture_output=True,
        text=True,
        timeout=90,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert "Two of three are gone." in result.stdout
    assert (
        "denied delete_file: no terminal to ask for approval (over this answer's budget for "
        "removed files (2 of 2; this call removes 1); so it is asked whatever the flags)"
    ) in result.stderr
    assert [name for name in names if (workspace / name).exists()] == ["丙 🍒.txt"]
