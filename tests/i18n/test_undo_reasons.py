"""Every undo reason code has its text in both locales with the same placeholders, and the
terminal and the tray say the page's own Chinese (read from web/locales, never a copy); a stored
code that is unknown or damaged, or a locale file that cannot be read, falls back to the stored
sentence."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from tests.fakes.cli import cli_env, run_cli
from tray_app.base.paths import AppPaths
from tray_app.tools.journal.journal import Journal
from tray_app.undo_reasons import (
    UNDO_REASON_CODES,
    Reason,
    flat,
    from_stored,
    reason_template,
    reason_text,
    unflat,
)
from tray_app.web_files import locale_texts

LOCALES = Path(__file__).resolve().parents[2] / "web" / "locales"


def _holes(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


def test_every_code_is_in_both_locales_alike_and_the_terminal_says_the_page_chinese() -> None:
    en = json.loads((LOCALES / "en.json").read_text(encoding="utf-8"))
    zh = json.loads((LOCALES / "zh-CN.json").read_text(encoding="utf-8"))
    for code in UNDO_REASON_CODES:
        key = f"undo_reason.{code}"
        assert _holes(en[key]) == _holes(zh[key]) and zh[key] != en[key], code
        assert reason_template(code, "zh-CN") == zh[key], code  # the terminal's and the tray's
    assert reason_template("rm -rf", "zh-CN") is None
    assert reason_template("undo_reason.journal_full", "zh-CN") is None
    assert {k for k in en if k.startswith("undo_reason.")} == {
        f"undo_reason.{c}" for c in UNDO_REASON_CODES
    }


def test_a_reason_survives_storage_and_flattening_and_bad_codes_keep_the_sentence() -> None:
    why = Reason(
        "the undo journal's folder /d/撤销\u202e is full", "journal_full", folder="/d/撤销\u202e"
    )
    again = from_stored(str(why), {"code": why.code, "params": why.params})
    assert isinstance(again, Reason) and (again.code, again.params) == (why.code, why.params)
    assert unflat(flat(why)) == ("journal_full", {"folder": "/d/撤销\u202e"})
    said = reason_text(
        why.code, why.params, str(why), "zh-CN", lambda v: str(v).replace("\u202e", "?")
    )
    assert said == "撤销记录所在的文件夹 /d/撤销? 已满"
    assert reason_text(why.code, why.params, str(why), "en") == str(why)
    for info in ({"code": "rm -rf", "params": {}}, {"code": "journal_full"}, None):
        kept = from_stored("a sentence", info)
        assert kept == "a sentence" and not isinstance(kept, Reason)
    # params that do not fit the text (an entry from another version): the sentence
    assert reason_text("journal_full", {"path": "/x"}, "english", "zh-CN") == "english"


def test_an_index_from_before_reason_codes_gets_the_column_and_keeps_its_sentences(
    tmp_path: Path,
) -> None:
    """A journal written by an older version (no ``reason_info`` column) opens, lists its entry
    with its English sentence, and gets the column for the codes from then on."""
    import sqlite3

    from tray_app.tools.journal.journal import Journal
    from tray_app.tools.journal.journal_index import SCHEMA

    root = tmp_path / "undo"
    root.mkdir()
    # The schema as it was: ``owner`` was the last column.
    old_schema = re.sub(r"owner   TEXT,(.*)\n\s*reason_info TEXT[^\n]*", r"owner   TEXT \1", SCHEMA)
    assert "reason_info" not in old_schema
    with sqlite3.connect(root / "journal.sqlite3") as db:
        db.executescript(old_schema)
        db.execute(
            "INSERT INTO entries (id, seq, tool, path, time, before, after, state, reason)"
            ' VALUES (?, 1, ?, ?, 0, \'{"kind": "absent"}\', \'{"kind": "absent"}\','
            " 'committed', ?)",
            (b"old", b"write_file", "/w/旧 \u202e.txt".encode(), b"an old English reason"),
        )
    entries = Journal(root).entries()
    assert [(e["reason"], e["reason_info"]) for e in entries] == [("an old English reason", None)]
    with sqlite3.connect(root / "journal.sqlite3") as db:
        columns = {row[1] for row in db.execute("PRAGMA table_info(entries)")}
    assert "reason_info" in columns
    big = tmp_path / "大 📦.bin"
    big.write_bytes(b"x" * 3_000_000)
    journal = Journal(root, max_bytes=2 * 1024 * 1024)
    entry = journal.record(call_id="new", tool="write_file", path=big, required=False)
    big.write_bytes(b"y")
    assert journal.commit(entry)
    newest = journal.entries()[0]
    assert newest["reason_info"] == {
        "code": "copy_too_large",
        "params": {"size_mb": "3.0", "budget_mb": "2"},
    }
    assert newest["reason"] == "no copy was kept (its 3.0 MB do not fit in the journal's 2 MB)"


def test_a_journal_that_fills_up_after_the_change_says_so_by_its_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The change was made but its entry could not be stored: the note keeps the storage
    problem's code (journal_full), so the card and terminal say it in Chinese."""
    import sqlite3

    from tray_app.tools.journal import journal_index
    from tray_app.tools.journal.journal import Journal
    from tray_app.undo_reasons import Reason

    journal = Journal(tmp_path / "undo")
    target = tmp_path / "笔记 📝.txt"
    entry = journal.record(call_id="c", tool="write_file", path=target, required=False)
    target.write_text("新", encoding="utf-8")

    def full(_self: object) -> int:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(journal_index.Index, "next_seq", full)
    note = journal.commit(entry)
    assert note is not None and note.startswith("undo is not available: the change was made, but")
    assert isinstance(note, Reason) and note.code == "journal_full"
    assert reason_text(note.code, note.params, note, "zh-CN") == (
        f"撤销记录所在的文件夹 {tmp_path / 'undo'} 已满"
    )


def _web_copy(tmp_path: Path, zh_edit: dict[str, str] | None, raw: bytes | None = None) -> Path:
    web = tmp_path / "web 网页"
    (web / "locales").mkdir(parents=True)
    for name in ("en.json", "zh-CN.json"):
        (web / "locales" / name).write_bytes((LOCALES / name).read_bytes())
    target = web / "locales" / "zh-CN.json"
    if raw is not None:
        target.write_bytes(raw)
    elif zh_edit:
        data = json.loads(target.read_text(encoding="utf-8"))
        data.update(zh_edit)
        target.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return web


@pytest.mark.usefixtures("fresh_locales")
def test_the_terminal_says_what_the_locale_file_says_so_they_cannot_drift(
    metona_home: Path, tmp_path: Path
) -> None:
    """Through the real ``metona-tray changes`` in a Chinese terminal: a translator's edit of
    ``undo_reason.copy_too_large`` in zh-CN.json is what the terminal shows, hostile text kept
    out of the terminal's control."""
    edited = "副本过大 🐘：{size_mb} MB ＞ {budget_mb} MB"
    web = _web_copy(tmp_path, {"undo_reason.copy_too_large": edited})
    big = tmp_path / "大文件 \u202e📦.txt"
    big.write_text("x" * 3_000_000, encoding="utf-8")
    journal = Journal(AppPaths.under(metona_home).journal_dir, max_bytes=2 * 1024 * 1024)
    entry = journal.record(call_id="c-大", tool="write_file", path=big, required=False)
    big.write_text("新\n", encoding="utf-8")
    assert journal.commit(entry)
    journal.close()
    env = cli_env(metona_home, tmp_path / "home", lang="zh_CN.UTF-8")
    command = [sys.executable, "-m", "tray_app", "changes"]
    shown = run_cli(command, {**env, "METONA_WEB_DIR": str(web)})
    assert shown.returncode == 0, shown.stderr
    assert "[无法撤销: 副本过大 🐘：3.0 MB ＞ 2 MB]" in shown.stdout, shown.stdout
    assert "\u202e" not in shown.stdout and "未保留副本" not in shown.stdout
    usual = run_cli(command, env)  # the app's own web/: its own Chinese
    assert "未保留副本：它的 3.0 MB 超出撤销记录的 2 MB 上限" in usual.stdout, usual.stdout


@pytest.mark.usefixtures("fresh_locales")
@pytest.mark.parametrize(
    "raw",
    [b"\xff\xfe not utf-8", b"[1, 2]", b"{", b" " * (5 * 1024 * 1024)],
    ids=["not-utf8", "not-an-object", "cut", "too-large"],
)
def test_a_damaged_locale_file_leaves_the_english_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, raw: bytes
) -> None:
    monkeypatch.setenv("METONA_WEB_DIR", str(_web_copy(tmp_path, None, raw)))
    why = Reason("the undo journal's folder /d is full", "journal_full", folder="/d")
    assert reason_text(why.code, why.params, str(why), "zh-CN") == str(why)


@pytest.mark.usefixtures("fresh_locales")
def test_a_missing_locale_folder_leaves_the_english_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("METONA_WEB_DIR", str(tmp_path / "nowhere"))
    assert reason_text("journal_lost_track", {}, "lost", "zh-CN") == "lost"
    monkeypatch.delenv("METONA_WEB_DIR")
    locale_texts.cache_clear()
    assert reason_text("journal_lost_track", {}, "lost", "zh-CN") == "撤销记录丢失了这次更改"
