"""What the undo journal keeps and for how long: its size budget, entries across restarts,
copies of killed processes swept, damaged or older indexes and copies set aside or refused."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tools import journal_helpers
from tests.tools.journal_helpers import blob_bytes, write
from tray_app.tools.journal.journal import Journal

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes and symlinks")

ws = journal_helpers.ws


def test_size_bound_drops_oldest_copies_first(tmp_path: Path, ws: Path) -> None:
    journal = Journal(tmp_path / "j", max_bytes=1000)
    for i in range(3):
        path = ws / f"f{i}.txt"
        path.write_bytes(b"x" * 400)
        write(journal, path, b"new", call_id=f"c{i}")
        assert blob_bytes(tmp_path / "j") <= 1000
    assert journal.can_undo("c0") is False
    assert journal.can_undo("c2") is True
    dropped = journal.undo("c0")
    assert dropped["success"] is False and "dropped" in dropped["error"]
    assert journal.undo("c2")["success"] is True
    assert (ws / "f2.txt").read_bytes() == b"x" * 400
    assert journal.undo("c1")["success"] is True


def test_snapshot_larger_than_the_budget_is_not_kept(tmp_path: Path, ws: Path) -> None:
    journal = Journal(tmp_path / "j", max_bytes=1000)
    big = ws / "big.txt"
    big.write_bytes(b"y" * 2000)
    entry = write(journal, big, b"small", call_id="big")
    assert isinstance(entry, str) and entry
    assert big.read_bytes() == b"small"
    assert journal.can_undo("big") is False
    result = journal.undo_last()
    assert result["success"] is False
    assert str(big) in result["error"] and "no copy was kept" in result["error"]
    assert blob_bytes(tmp_path / "j") == 0


def test_entries_survive_a_restart(tmp_path: Path, ws: Path) -> None:
    root = tmp_path / "j"
    target = ws / "a.txt"
    target.write_text("before")
    first = Journal(root)
    write(first, target, b"after", call_id="persist")
    first.close()
    reopened = Journal(root)
    (entry,) = reopened.entries()
    assert entry["call_id"] == "persist" and entry["tool"] == "write_file"
    assert entry["path"] == str(target) and entry["undone"] is False and entry["size"] == 6
    assert entry["seq"] == 1
    assert reopened.undo_last()["success"] is True
    assert target.read_text() == "before"
    assert Journal(root).entries()[0]["undone"] is True


def test_copies_of_a_killed_process_are_cleaned_at_the_next_start(tmp_path: Path, ws: Path) -> None:
    root = tmp_path / "j"
    target = ws / "a.txt"
    target.write_text("x" * 100)
    code = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from tray_app.tools.journal.journal import Journal\n"
        "j = Journal(Path(sys.argv[1]))\n"
        "j.record(call_id='c', tool='delete_file', path=Path(sys.argv[2]))\n"
        "os._exit(0)  # gone before the commit, as after a kill -9\n"
    )
    subprocess.run([sys.executable, "-c", code, str(root), str(target)], check=True, timeout=60)
    assert blob_bytes(root) == 100
    assert Journal(root).entries() == []
    assert blob_bytes(root) == 0


def test_a_live_process_keeps_its_uncommitted_copy(tmp_path: Path, ws: Path) -> None:
    """Another journal on the same folder (here: in this live process) never takes it."""
    root = tmp_path / "j"
    target = ws / "a.txt"
    target.write_text("y" * 100)
    first = Journal(root)
    entry = first.record(call_id="c", tool="delete_file", path=target)
    Journal(root)  # a second process starting up sweeps the folder
    assert blob_bytes(root) == 100
    target.unlink()
    assert first.commit(entry) is None
    assert Journal(root).undo("c")["success"] is True
    assert target.read_text() == "y" * 100


def test_corrupt_legacy_index_is_set_aside(tmp_path: Path) -> None:
    root = tmp_path / "j"
    root.mkdir()
    (root / "index.json").write_text("{not json")
    assert Journal(root).entries() == []
    assert list(root.glob("index.corrupt-*.json"))


def test_damaged_database_is_set_aside_and_a_new_one_started(tmp_path: Path, ws: Path) -> None:
    root = tmp_path / "j"
    root.mkdir()
    (root / "journal.sqlite3").write_bytes(b"this is not a database" * 100)
    journal = Journal(root)
    assert journal.entries() == []
    assert list(root.glob("journal.damaged-*.sqlite3"))
    target = ws / "n.txt"
    write(journal, target, b"new")
    assert journal.undo_last()["success"] is True


def test_entries_of_the_earlier_json_index_are_taken_over(tmp_path: Path, ws: Path) -> None:
    """An earlier version kept ``index.json``; its undoable changes stay undoable."""
    root = tmp_path / "j"
    target = ws / "old.txt"
    target.write_text("v1")
    journal = Journal(root)
    write(journal, target, b"v2", call_id="legacy")
    (row,) = journal._open().read("")
    journal.close()
    (root / "journal.sqlite3").unlink()
    legacy = {
        "version": 1,
        "next_seq": 2,
        "entries": [
            {
                "id": row.id,
                "seq": 1,
                "call_id": "legacy",
                "tool": "write_file",
                "path": row.path,
                "time": row.time,
                "before": row.before,
                "after": row.after,
                "state": "committed",
                "size": row.size,
                "reason": None,
                "noop": False,
            }
        ],
    }
    (root / "index.json").write_text(json.dumps(legacy))
    adopted = Journal(root)
    assert [e["call_id"] for e in adopted.entries()] == ["legacy"]
    assert (root / "index.imported.json").exists() and not (root / "index.json").exists()
    assert adopted.undo("legacy")["success"] is True
    assert target.read_text() == "v1"


def test_damaged_copy_is_refused(tmp_path: Path, ws: Path) -> None:
    root = tmp_path / "j"
    journal = Journal(root)
    target = ws / "a.txt"
    target.write_text("original")
    write(journal, target, b"new")
    (blob,) = (p for p in (root / "blobs").rglob("*") if p.is_file())
    blob.write_text("tampered")
    result = journal.undo_last()
    assert result["success"] is False and "damaged" in result["error"]
    assert target.read_bytes() == b"new"
    assert not list(ws.glob(".metona-undo-*"))
