"""Every undo reason code has its text in both locales and the terminal's table, with the same
placeholders; a stored code that is unknown or damaged falls back to the stored sentence."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tray_app.undo_reasons import (
    REASON_ZH,
    UNDO_REASON_CODES,
    Reason,
    flat,
    from_stored,
    reason_text,
    unflat,
)

LOCALES = Path(__file__).resolve().parents[1] / "web" / "locales"


def _holes(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


def test_every_code_is_said_in_both_locales_and_the_terminal_with_the_same_placeholders() -> None:
    en = json.loads((LOCALES / "en.json").read_text(encoding="utf-8"))
    zh = json.loads((LOCALES / "zh-CN.json").read_text(encoding="utf-8"))
    assert set(REASON_ZH) == UNDO_REASON_CODES
    for code in UNDO_REASON_CODES:
        key = f"undo_reason.{code}"
        assert _holes(en[key]) == _holes(zh[key]) == _holes(REASON_ZH[code]), code
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

    from tray_app.tools.journal import Journal
    from tray_app.tools.journal_index import SCHEMA

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

    from tray_app.tools import journal_index
    from tray_app.tools.journal import Journal
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
