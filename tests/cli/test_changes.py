"""``metona-tray changes`` and ``metona-tray undo`` as a user runs them: real subprocesses.

The changes are made by a real ``metona-tray chat`` run against the fake Ollama server (and one
by a journal in this process, as the desktop app would make it, on the same data folder); then
the commands list and undo them. Exit codes: 0 done, 1 failed, 2 usage.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.cli import app_runner
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import text_turn, tool_turn
from tray_app.base.paths import AppPaths
from tray_app.store.settings import Settings, save_settings
from tray_app.tools.journal.journal import Journal

NEW_NAME = "报告 📊 \u202eevil.txt"  # CJK, emoji and a bidi override in the name
OLD_NAME = "笔记 📝.txt"


@pytest.fixture
def cli(metona_home: Path, tmp_path: Path) -> Any:
    return app_runner(metona_home, tmp_path)


@pytest.fixture
def changed(cli: Any, fake_ollama: FakeOllama, app_paths: AppPaths, tmp_path: Path) -> Path:
    """A chat that created one file, rewrote another and deleted a third."""
    work = tmp_path / "work"
    work.mkdir()
    (work / OLD_NAME).write_text("旧内容 old\n", encoding="utf-8")
    (work / "gone 🗑️.md").write_text("# 保留我\n", encoding="utf-8")
    save_settings(Settings(allowed_dirs=[str(work)]), app_paths.settings_file)
    fake_ollama.script(
        tool_turn(
            [
                ("write_file", {"path": NEW_NAME, "content": "新文件 ✨\n"}),
                ("write_file", {"path": OLD_NAME, "content": "新内容 new\n"}),
            ]
        ),
        tool_turn([("delete_file", {"path": "gone 🗑️.md"})]),
        text_turn("完成 ✅"),
    )
    done = cli(
        "chat",
        "--json",
        "--yes-all",
        "--model",
        "qwen3:8b",
        "--endpoint",
        fake_ollama.url,
        "--workspace",
        str(work),
        "change my files",
    )
    assert done.returncode == 0, done.stderr
    assert (work / NEW_NAME).exists() and not (work / "gone 🗑️.md").exists()
    return work


def listed(cli: Any) -> list[dict[str, Any]]:
    done = cli("changes", "--json")
    assert done.returncode == 0, done.stderr
    result: list[dict[str, Any]] = json.loads(done.stdout)
    return result


def test_changes_lists_newest_first_with_what_can_be_undone(cli: Any, changed: Path) -> None:
    entries = listed(cli)
    assert [(e["id"], e["tool"], Path(e["path"]).name) for e in entries] == [
        (3, "delete_file", "gone 🗑️.md"),
        (2, "write_file", OLD_NAME),
        (1, "write_file", NEW_NAME),
    ]
    assert all(e["undoable"] and not e["undone"] and e["call_id"] for e in entries)
    assert entries[0]["time"] >= entries[2]["time"]

    text = cli("changes")
    assert text.returncode == 0
    lines = text.stdout.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith("#3 ") and "delete_file" in lines[0] and "[can undo]" in lines[0]
    # The bidi override is shown, not obeyed: the name cannot read backwards in the terminal.
    assert NEW_NAME.replace("\u202e", "⟨U+202E⟩") in lines[2] and "\u202e" not in text.stdout


@pytest.mark.parametrize(
    ("lang", "removed"), [("en_US.UTF-8", "removed "), ("zh_CN.UTF-8", "已删除 ")]
)
def test_a_hidden_character_in_a_name_is_written_out_one_way_in_changes_and_undo(
    cli: Any, changed: Path, lang: str, removed: str
) -> None:
    """`changes` lists, and `undo` reports, a bidi override in a name as the rest of the
    terminal (and the page, the cards) show it: ⟨U+202E⟩, never a Python escape."""
    shown = NEW_NAME.replace("\u202e", "⟨U+202E⟩")
    listing = cli("changes", lang=lang)
    assert listing.returncode == 0, listing.stderr
    (line,) = [x for x in listing.stdout.splitlines() if x.startswith("#1 ")]
    assert shown in line and "\\u202e" not in listing.stdout, line
    assert "\u202e" not in listing.stdout
    undone = cli("undo", "1", lang=lang)
    assert undone.returncode == 0, undone.stderr
    assert shown in undone.stdout and "\\u202e" not in undone.stdout, undone.stdout
    assert undone.stdout.startswith(removed) and "write_file" in undone.stdout, undone.stdout
    assert "\u202e" not in undone.stdout
    assert not (changed / NEW_NAME).exists()
    again = cli("undo", "1", lang=lang)
    assert again.returncode == 1 and "\\u" not in again.stderr, again.stderr


def test_undo_by_number_then_last_then_by_call_id(cli: Any, changed: Path) -> None:
    work = changed
    calls = {e["id"]: e["call_id"] for e in listed(cli)}

    first = cli("undo", "2")
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith("restored ") and OLD_NAME in first.stdout
    assert (work / OLD_NAME).read_text(encoding="utf-8") == "旧内容 old\n"

    again = cli("undo", "#2")
    assert again.returncode == 1
    assert again.stderr.strip() == "metona-tray undo: change 2 was already undone"

    last = cli("undo", "--last")
    assert last.returncode == 0 and last.stdout.startswith("recreated "), last.stderr
    assert (work / "gone 🗑️.md").read_text(encoding="utf-8") == "# 保留我\n"

    by_call = cli("undo", calls[1])
    assert by_call.returncode == 0 and by_call.stdout.startswith("removed "), by_call.stderr
    assert not (work / NEW_NAME).exists()

    assert [e["undone"] for e in listed(cli)] == [True, True, True]
    nothing = cli("undo", "--last")
    assert nothing.returncode == 1
    assert nothing.stderr.strip() == "metona-tray undo: nothing to undo"


def test_a_change_edited_since_is_refused_and_left_alone(cli: Any, changed: Path) -> None:
    (changed / OLD_NAME).write_text("the user's own edit", encoding="utf-8")
    refused = cli("undo", "2")
    assert refused.returncode == 1
    assert "changed since" in refused.stderr and len(refused.stderr.splitlines()) == 1
    assert (changed / OLD_NAME).read_text(encoding="utf-8") == "the user's own edit"
    assert listed(cli)[1]["undone"] is False


def test_in_chinese_a_refused_undo_says_why_in_chinese(cli: Any, changed: Path) -> None:
    """LANG=zh_CN: the journal's English sentence stays for logs; the user reads Chinese, with
    the hostile name's direction control written out."""
    (changed / NEW_NAME).write_text("用户自己的修改", encoding="utf-8")
    refused = cli("undo", "1", lang="zh_CN.UTF-8")
    assert refused.returncode == 1
    line = refused.stderr.strip()
    assert line.startswith("metona-tray undo: 无法撤销：在智能体更改之后，"), line
    assert line.endswith("evil.txt 又被修改过"), line
    assert "⟨U+202E⟩" in line and "\u202e" not in line and "changed since" not in line, line
    assert (changed / NEW_NAME).read_text(encoding="utf-8") == "用户自己的修改"
    listing = cli("changes", lang="zh_CN.UTF-8")
    assert listing.returncode == 0 and "[可撤销]" in listing.stdout, listing.stdout
    missing = cli("undo", "报告\u202e🎉", lang="zh_CN.UTF-8")
    assert missing.returncode == 2
    assert missing.stderr.strip() == (
        "metona-tray undo: 无法撤销：撤销日志中没有更改 报告⟨U+202E⟩🎉"
    ), missing.stderr


def test_usage_errors(cli: Any) -> None:
    neither = cli("undo")
    assert neither.returncode == 2 and "ID --last" in neither.stderr
    both = cli("undo", "3", "--last")
    assert both.returncode == 2
    missing = cli("undo", "41")
    assert missing.returncode == 2
    assert missing.stderr.strip() == "metona-tray undo: no change 41 in the journal"
    empty = cli("changes")
    assert empty.returncode == 0 and empty.stdout == "No changes recorded.\n"


def test_a_change_another_process_made_is_listed_and_undone_here(
    cli: Any, app_paths: AppPaths, tmp_path: Path
) -> None:
    """The desktop app keeps its journal open; the terminal sees and undoes its changes."""
    target = tmp_path / "桌面 🖥️.txt"
    target.write_text("before", encoding="utf-8")
    desktop = Journal(app_paths.journal_dir)
    entry = desktop.record(call_id="desk-1", tool="write_file", path=target)
    target.write_text("after", encoding="utf-8")
    assert desktop.commit(entry) is None
    (only,) = listed(cli)
    assert only["call_id"] == "desk-1" and only["undoable"] is True
    assert cli("undo", "--last").returncode == 0
    assert target.read_text(encoding="utf-8") == "before"
    assert desktop.can_undo("desk-1") is False
    assert desktop.entries()[0]["undone"] is True


def test_in_chinese_why_a_change_cannot_be_undone_is_chinese(
    cli: Any, app_paths: AppPaths, tmp_path: Path
) -> None:
    """The journal keeps a reason's code beside its sentence: `changes` and `undo` say it in
    Chinese; an entry from before codes (its sentence only) keeps the sentence."""
    big = tmp_path / "大文件 \u202e📦.txt"
    big.write_text("x" * 3_000_000, encoding="utf-8")
    journal = Journal(app_paths.journal_dir, max_bytes=2 * 1024 * 1024)
    for call in ("call-old", "call-new"):
        entry = journal.record(call_id=call, tool="write_file", path=big, required=False)
        big.write_text(f"{call}\n", encoding="utf-8")
        assert journal.commit(entry)
        big.write_text("x" * 3_000_000, encoding="utf-8")
    journal.close()
    with sqlite3.connect(app_paths.journal_dir / "journal.sqlite3") as db:  # an older entry
        db.execute("UPDATE entries SET reason_info = NULL WHERE call_id = ?", (b"call-old",))
    listing = cli("changes", lang="zh_CN.UTF-8")
    assert listing.returncode == 0, listing.stderr
    lines = listing.stdout.splitlines()
    assert any(
        "[无法撤销: 未保留副本：它的 3.0 MB 超出撤销记录的 2 MB 上限]" in x for x in lines
    ), lines
    assert any("no copy was kept (its 3.0 MB do not fit" in x for x in lines), lines
    refused = cli("undo", "2", lang="zh_CN.UTF-8")
    assert refused.returncode == 1
    assert refused.stderr.strip().endswith(
        "无法撤销：未保留副本：它的 3.0 MB 超出撤销记录的 2 MB 上限"
    ), refused.stderr
    assert "⟨U+202E⟩" in refused.stderr and "no copy" not in refused.stderr, refused.stderr
    english = cli("undo", "2", lang="en_US.UTF-8")
    assert "no copy was kept (its 3.0 MB do not fit in the journal's 2 MB)" in english.stderr
