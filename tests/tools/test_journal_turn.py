"""A whole turn's undo on the real journal and real files: "undo anyway" keeps the user's
version first, and refuses when it cannot keep it."""

from __future__ import annotations

from pathlib import Path

from tray_app.tools.journal.journal import UNDO_ANYWAY, Journal


def made(journal: Journal, call_id: str, path: Path, text: str) -> None:
    entry = journal.record(call_id=call_id, tool="write_file", path=path)
    path.write_text(text, encoding="utf-8")
    assert journal.commit(entry) is None


def test_undo_anyway_keeps_the_users_version_as_a_change_of_its_own(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal")
    target = tmp_path / "报告 📊 \u202eevil.txt"
    made(journal, "c1", target, "agent\n")
    target.write_text("用户的版本 ✍️\n", encoding="utf-8")

    left = journal.undo_calls(["c1"])
    (outcome,) = left["outcomes"]
    assert outcome["code"] == "undo_changed_modified" and outcome["forceable"] is True
    assert target.read_text(encoding="utf-8") == "用户的版本 ✍️\n"

    forced = journal.undo_calls(["c1"], force=[outcome["id"]])
    assert forced["outcomes"][0]["success"] is True and not target.exists()
    newest = journal.entries()[0]
    assert (newest["tool"], newest["path"], newest["undoable"]) == (UNDO_ANYWAY, str(target), True)
    assert journal.undo_last()["action"] == "recreated"
    assert target.read_text(encoding="utf-8") == "用户的版本 ✍️\n"


def test_undo_anyway_refuses_when_the_users_version_cannot_be_kept(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal", max_bytes=64)
    target = tmp_path / "大 📦.txt"
    made(journal, "c1", target, "small\n")
    target.write_text("x" * 1000, encoding="utf-8")  # larger than the whole journal
    (outcome,) = journal.undo_calls(["c1"], force=True)["outcomes"]
    assert outcome["success"] is False and outcome["code"] == "undo_anyway_no_copy"
    assert target.read_text(encoding="utf-8") == "x" * 1000
    assert [e["tool"] for e in journal.entries()] == ["write_file"]
    assert not [p for p in (tmp_path / "journal" / "blobs").glob("*") if any(p.iterdir())]
