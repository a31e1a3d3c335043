"""The terminal's one-line rows as a user runs them (real ``metona-tray`` subprocesses, in English
and Chinese): a name with a line break, a bidi override, an escape or emoji stays on its row,
written out as ``⟨U+XXXX⟩``, never obeyed and never split in two; an undo's warning line in the
terminal's language.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import pytest

from tests.fakes.cli import chat_args, cli_env, run_cli
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import text_turn
from tray_app.base.paths import AppPaths
from tray_app.tools.journal.journal import Journal

LANGS = ["en_US.UTF-8", "zh_CN.UTF-8"]


def _cli(metona_home: Path, tmp_path: Path, lang: str, *args: str) -> tuple[int, str, str]:
    env = cli_env(metona_home, tmp_path / "user", lang=lang)
    done = run_cli([sys.executable, "-m", "tray_app", *args], env)
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, done.stdout, done.stderr


#: A file the user named with a line break and a bidi override (a model cannot: the tools refuse
#: control characters in the paths they are given), changed by the desktop app.
NAME = "第一行 📄\n\u202eevil.txt"
SHOWN = "第一行 📄⟨U+000A⟩⟨U+202E⟩evil.txt"


@pytest.mark.parametrize("lang", LANGS)
def test_a_line_break_in_a_file_name_stays_on_its_changes_row(
    app_paths: AppPaths, metona_home: Path, tmp_path: Path, lang: str
) -> None:
    target = tmp_path / NAME
    target.write_text("before", encoding="utf-8")
    desktop = Journal(app_paths.journal_dir)  # the desktop app's journal, on the same data
    entry = desktop.record(call_id="desk-1", tool="write_file", path=target)
    target.write_text("after", encoding="utf-8")
    assert desktop.commit(entry) is None
    desktop.close()

    code, out, err = _cli(metona_home, tmp_path, lang, "changes")
    assert code == 0, err
    rows = out.splitlines()
    assert len(rows) == 1, rows  # the name's line break did not start a second row
    assert SHOWN in rows[0] and "\u202e" not in out, rows
    assert ("[可撤销]" if lang.startswith("zh") else "[can undo]") in rows[0], rows

    code, out, err = _cli(metona_home, tmp_path, lang, "changes", "--json")
    assert code == 0, err
    assert json.loads(out)[0]["path"] == str(target)  # the JSON keeps it exact

    code, out, err = _cli(metona_home, tmp_path, lang, "undo", "--last")
    assert code == 0, err
    assert len(out.splitlines()) == 1 and SHOWN in out, out
    assert target.read_text(encoding="utf-8") == "before"


@pytest.mark.parametrize("lang", LANGS)
def test_a_chat_title_with_hidden_characters_stays_on_its_sessions_row(
    fake_ollama: FakeOllama, metona_home: Path, tmp_path: Path, lang: str
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    fake_ollama.script(text_turn("好的 👍"))
    prompt = "报告 📊 \u202eevil \x1b]0;owned\x07 end"
    code, _, err = _cli(metona_home, tmp_path, lang, *chat_args(fake_ollama.url, work, prompt))
    assert code == 0, err

    code, out, err = _cli(metona_home, tmp_path, lang, "sessions")
    assert code == 0, err
    (row,) = out.splitlines()
    assert "报告 📊 ⟨U+202E⟩evil ⟨U+001B⟩]0;owned⟨U+0007⟩ end" in row, row
    assert "\u202e" not in out and "\x1b" not in out and "\x07" not in out


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en_US.UTF-8", "warning: undone, but the undo journal could not record it ("),
        ("zh_CN.UTF-8", "警告：已撤销，但撤销日志无法记下这次撤销（“"),
    ],
)
def test_an_undo_the_journal_could_not_record_warns_in_the_terminals_language(
    app_paths: AppPaths, metona_home: Path, tmp_path: Path, lang: str, said: str
) -> None:
    """The file is put back, but the journal refuses to mark the change undone (here a trigger
    aborts the update with a hostile reason): `undo` says so in the terminal's language, the
    reason written out."""
    target = tmp_path / "笔记 📝.txt"
    target.write_text("before", encoding="utf-8")
    desktop = Journal(app_paths.journal_dir)
    entry = desktop.record(call_id="desk-1", tool="write_file", path=target)
    target.write_text("after", encoding="utf-8")
    assert desktop.commit(entry) is None
    desktop.close()
    with sqlite3.connect(app_paths.journal_dir / "journal.sqlite3") as db:
        db.execute(
            "CREATE TRIGGER refuse BEFORE UPDATE ON entries"
            " BEGIN SELECT RAISE(ABORT, '磁盘 \u202e满了'); END"
        )

    code, _, err = _cli(metona_home, tmp_path, lang, "undo", "--last")
    assert code == 0, err
    assert target.read_text(encoding="utf-8") == "before"
    (line,) = err.splitlines()
    assert line.startswith(said) and "磁盘 ⟨U+202E⟩满了" in line, err
    assert "\u202e" not in err
