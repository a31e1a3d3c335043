"""The real ``metona-tray chat``: an answer that claims a change nothing made ends with a quiet
line saying no files were changed, in the terminal's language, on both wires."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.cli import chat_command, cli_env, run_cli
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.turns import text_turn

CASES = {
    "en_US.UTF-8": ("I have saved the file `notes.txt`.", "No files were changed in this turn."),
    "zh_CN.UTF-8": ("已写入 笔记.txt 🙂", "本轮没有更改任何文件。"),
}


@pytest.mark.parametrize("lang", list(CASES))
@pytest.mark.parametrize("wire", ["ollama", "openai"])
def test_the_terminal_says_no_files_were_changed(
    wire: str, lang: str, metona_home: Path, tmp_path: Path
) -> None:
    answer, note = CASES[lang]
    with FakeOpenAI() if wire == "openai" else FakeOllama() as fake:
        fake.script(text_turn(answer))
        command = chat_command(fake.url, tmp_path, "--provider", wire, "save my notes")
        result = run_cli(command, cli_env(metona_home, tmp_path / "home", lang=lang))
    assert result.returncode == 0, result.stderr
    assert answer in result.stdout
    assert f"({note})" in result.stderr
    assert "[info]" not in result.stderr and "[warning]" not in result.stderr  # quiet


def test_no_note_when_nothing_is_claimed(
    fake_ollama: FakeOllama, metona_home: Path, tmp_path: Path
) -> None:
    fake_ollama.script(text_turn("Here is what you could write into notes.txt: hello"))
    command = chat_command(fake_ollama.url, tmp_path, "what should I write?")
    result = run_cli(command, cli_env(metona_home, tmp_path / "home", lang="en_US.UTF-8"))
    assert result.returncode == 0, result.stderr
    assert "No files were changed" not in result.stderr
