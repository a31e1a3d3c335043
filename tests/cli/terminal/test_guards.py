"""``metona-tray chat`` as a subprocess against fake Ollama (the per-turn guards): the third
identical call is shown as not run; --yes-all does not answer a call past a damage budget, so
without a terminal to ask it is denied with the budget named, while the calls within it ran."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.fakes.cli import chat_command, cli_env, run_cli
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import text_turn, tool_turn
from tray_app.base.paths import AppPaths
from tray_app.store.settings import Settings, save_settings


def _chat(
    fake: FakeOllama, metona_home: Path, tmp_path: Path, workspace: Path, stdin: str
) -> subprocess.CompletedProcess[str]:
    env = cli_env(metona_home, tmp_path / "home")
    return run_cli(chat_command(fake.url, workspace, "--yes-all"), env, stdin)


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
    result = _chat(fake_ollama, metona_home, tmp_path, workspace, "clean up\n/exit\n")
    assert result.returncode == 0, result.stderr
    assert "Two of three are gone." in result.stdout
    assert (
        "denied delete_file: no terminal to ask for approval (over this answer's budget for "
        "removed files (2 of 2; this call removes 1); so it is asked whatever the flags)"
    ) in result.stderr
    assert [name for name in names if (workspace / name).exists()] == ["丙 🍒.txt"]


def test_the_third_identical_call_is_shown_as_not_run(
    fake_ollama: FakeOllama, metona_home: Path, tmp_path: Path
) -> None:
    workspace = tmp_path / "work"
    workspace.mkdir()
    (workspace / "说明 📖.txt").write_text("内容\n")
    call = ("read_file", {"path": "说明 📖.txt"})
    fake_ollama.script(
        tool_turn([call]), tool_turn([call]), tool_turn([call]), text_turn("Read it thrice.")
    )
    result = _chat(fake_ollama, metona_home, tmp_path, workspace, "read\n/exit\n")
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("[tool] ✓ read_file success") == 2
    assert (
        "[tool] ⊘ read_file cancelled this call was already made twice in this turn; "
        "its result has not changed"
    ) in result.stderr
