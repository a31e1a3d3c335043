"""What the undo journal's tests share: a workspace, a journal, and a file tool's way of
driving it (record, change, commit). The test modules bind the fixtures by name
(``ws = journal_helpers.ws``)."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from tray_app.tools.journal.journal import Journal
from tray_app.tools.registry import default_registry

NOTHING = {"success": False, "error": "nothing to undo", "code": "undo_nothing", "params": {}}


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    return Journal(tmp_path / "journal")


def change(
    journal: Journal, tool: str, path: Path, action: Callable[[], object], call_id: str = "c1"
) -> str:
    """What a file tool does: record before (as deep as its declaration says), act, commit
    after success."""
    declared = default_registry().get(tool)
    deep = declared is None or not declared.shallow_undo
    entry = journal.record(call_id=call_id, tool=tool, path=path, deep=deep)
    action()
    journal.commit(entry)
    return entry


def write(journal: Journal, path: Path, data: bytes, call_id: str = "c1") -> str:
    def act() -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)

    return change(journal, "write_file", path, act, call_id)


def tree_state(root: Path) -> dict[str, tuple[str, object, int]]:
    """Everything below ``root``: kind, content or link target, and mode."""
    found: dict[str, tuple[str, object, int]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            st = path.lstat()
            rel = str(path.relative_to(root))
            if stat.S_ISLNK(st.st_mode):
                found[rel] = ("link", os.readlink(path), 0)
            elif stat.S_ISDIR(st.st_mode):
                found[rel] = ("dir", None, stat.S_IMODE(st.st_mode))
            else:
                found[rel] = ("file", path.read_bytes(), stat.S_IMODE(st.st_mode))
    return found


def blob_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in (root / "blobs").rglob("*") if p.is_file())
