"""A message the chat database refuses to store (here a trigger aborts the insert with a hostile
reason) as the real ``metona-tray chat`` says it, in English and Chinese: one line with the
store's reason in the terminal's language (``store_problem.not_saved``), no traceback, exit 1."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest

from tests.fakes.cli import chat_args, cli_env, run_cli
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import text_turn
from tray_app.base.paths import AppPaths


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en_US.UTF-8", "metona-tray chat: The chat could not be saved (磁盘 ⟨U+202E⟩坏了 🙈)."),
        ("zh_CN.UTF-8", "metona-tray chat: 无法保存此对话（“磁盘 ⟨U+202E⟩坏了 🙈”）。"),
    ],
)
def test_a_message_the_database_refuses_is_said_in_the_terminals_language(
    fake_ollama: FakeOllama, metona_home: Path, tmp_path: Path, lang: str, said: str
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    env = cli_env(metona_home, tmp_path / "user", lang=lang)
    command = [sys.executable, "-m", "tray_app"]
    assert run_cli([*command, "sessions"], env).returncode == 0  # the database exists now
    database = AppPaths.under(metona_home).database_file
    with sqlite3.connect(database) as db:
        db.execute(
            "CREATE TRIGGER refuse BEFORE INSERT ON messages"
            " BEGIN SELECT RAISE(ABORT, '磁盘 \u202e坏了 🙈'); END"
        )
    fake_ollama.script(text_turn("不会到这里"))
    done = run_cli([*command, *chat_args(fake_ollama.url, work, "你好 👋")], env)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert said in done.stderr.splitlines(), done.stderr
    assert "\u202e" not in done.stderr
