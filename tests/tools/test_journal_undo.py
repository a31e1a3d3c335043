"""The undo journal, driven the way the file tools drive it: record, change, commit, undo;
each kind of change undone, refused when the file changed since, never through a symlink."""

from __future__ import annotations

import os
import shutil
import stat
import sys
import threading
from pathlib import Path

import pytest

from tests.tools import journal_helpers
from tests.tools.journal_helpers import NOTHING, change, tree_state, write
from tray_app.tools.journal.journal import Journal

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes and symlinks")

ws = journal_helpers.ws
journal = journal_helpers.journal


# -- write_file -------------------------------------------------------------------------------


def test_write_over_existing_file_restores_content_and_mode(journal: Journal, ws: Path) -> None:
    target = ws / "notes.txt"
    target.write_bytes(b"old content\n")
    target.chmod(0o640)
    write(journal, target, b"new content\n")
    target.chmod(0o600)  # a tool that does not keep the mode; undo must still bring it back
    journal.entries()  # listing must not disturb anything
    # The mode alone changed since: content is what the agent wrote, so undo proceeds.
    result = journal.undo_last()
    assert result == {
        "success": True,
        "path": str(target),
        "action": "restored",
        "call_id": "c1",
        "tool": "write_file",
    }
    assert target.read_bytes() == b"old content\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert journal.undo_last() == NOTHING


def test_write_that_created_a_file_is_undone_by_removing_only_it(
    journal: Journal, ws: Path
) -> None:
    (ws / "keep.txt").write_text("keep")
    target = ws / "new" / "sub" / "file.txt"
    write(journal, target, b"hello")
    result = journal.undo_last()
    assert result["success"] is True and result["action"] == "removed"
    assert not target.exists()
    assert (ws / "new" / "sub").is_dir()  # "and nothing else"
    assert (ws / "keep.txt").read_text() == "keep"


def test_undo_refuses_when_the_file_changed_since(journal: Journal, ws: Path) -> None:
    target = ws / "a.txt"
    target.write_text("v1")
    write(journal, target, b"v2")
    target.write_text("the user's edit")
    result = journal.undo_last()
    assert result["success"] is False
    assert "changed since" in result["error"] and str(target) in result["error"]
    # the code and params Core's UndoFailed carries, for the page and terminal to translate
    assert result["code"] == "undo_changed_modified"
    assert result["params"] == {"path": str(target)}
    assert target.read_text() == "the user's edit"
    assert journal.entries()[0]["undone"] is False


def test_undo_refuses_when_a_created_file_was_edited(journal: Journal, ws: Path) -> None:
    target = ws / "new.txt"
    write(journal, target, b"agent")
    target.write_text("user")
    result = journal.undo_last()
    assert result["success"] is False and "changed since" in result["error"]
    assert target.read_text() == "user"


def test_undo_never_follows_a_symlink_that_appeared_at_the_path(
    journal: Journal, ws: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("outside")
    target = ws / "a.txt"
    target.write_text("old")
    write(journal, target, b"new")
    target.unlink()
    target.symlink_to(outside)
    result = journal.undo_last()
    assert result["success"] is False
    assert "link" in result["error"] and str(target) in result["error"]
    assert outside.read_text() == "outside"
    assert target.is_symlink()


def test_undo_never_follows_a_symlinked_parent(journal: Journal, ws: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (ws / "d").mkdir()
    target = ws / "d" / "a.txt"
    target.write_text("old")
    write(journal, target, b"new")
    # Swap the folder for a link to a look-alike outside: same name, same content.
    shutil.rmtree(ws / "d")
    (outside / "a.txt").write_bytes(b"new")
    (ws / "d").symlink_to(outside)
    result = journal.undo_last()
    assert result["success"] is False
    assert "link" in result["error"]
    assert (outside / "a.txt").read_bytes() == b"new"


# -- create_directory -------------------------------------------------------------------------


def test_create_directory_undo_removes_created_folders(journal: Journal, ws: Path) -> None:
    target = ws / "a" / "b" / "c"
    change(journal, "create_directory", target, lambda: target.mkdir(parents=True))
    result = journal.undo_last()
    assert result["success"] is True and result["action"] == "removed"
    assert not (ws / "a").exists()
    assert ws.is_dir()


def test_create_directory_undo_keeps_parents_that_hold_other_things(
    journal: Journal, ws: Path
) -> None:
    target = ws / "a" / "b" / "c"
    change(journal, "create_directory", target, lambda: target.mkdir(parents=True))
    (ws / "a" / "user.txt").write_text("mine")
    assert journal.undo_last()["success"] is True
    assert not (ws / "a" / "b").exists()
    assert (ws / "a" / "user.txt").read_text() == "mine"


def test_create_directory_undo_refuses_when_no_longer_empty(journal: Journal, ws: Path) -> None:
    target = ws / "made"
    change(journal, "create_directory", target, target.mkdir)
    (target / "file.txt").write_text("x")
    result = journal.undo_last()
    assert result["success"] is False
    assert "changed since" in result["error"] and str(target) in result["error"]
    assert (target / "file.txt").exists()


def test_create_directory_that_existed_is_not_an_undoable_change(
    journal: Journal, ws: Path
) -> None:
    (ws / "there").mkdir()
    (ws / "there" / "f").write_text("x")
    change(journal, "create_directory", ws / "there", lambda: None, call_id="c9")
    assert journal.can_undo("c9") is False
    assert journal.undo_last() == NOTHING
    assert (ws / "there" / "f").exists()


# -- delete_file ------------------------------------------------------------------------------


def test_delete_file_undo_recreates_it(journal: Journal, ws: Path) -> None:
    target = ws / "gone.bin"
    target.write_bytes(bytes(range(256)) * 10)
    target.chmod(0o751)
    change(journal, "delete_file", target, target.unlink)
    result = journal.undo_last()
    assert result["success"] is True and result["action"] == "recreated"
    assert target.read_bytes() == bytes(range(256)) * 10
    assert stat.S_IMODE(target.stat().st_mode) == 0o751


def test_delete_tree_undo_recreates_the_whole_tree(journal: Journal, ws: Path) -> None:
    root = ws / "project"
    (root / "src" / "deep" / "er").mkdir(parents=True)
    (root / "empty").mkdir()
    (root / "README.md").write_text("# hi\n")
    (root / "src" / "main.py").write_text("print('x')\n")
    (root / "src" / "run.sh").write_text("#!/bin/sh\n")
    (root / "src" / "run.sh").chmod(0o755)
    (root / "src" / "deep" / "er" / "blob.bin").write_bytes(os.urandom(5000))
    (root / "src" / "zero").write_bytes(b"")
    (root / "link-to-readme").symlink_to("README.md")
    (root / "dangling").symlink_to("nowhere/at/all")
    (root / "abs-link").symlink_to("/etc/hostname")
    (root / "src" / "deep").chmod(0o750)
    before = tree_state(root)
    change(journal, "delete_file", root, lambda: shutil.rmtree(root))
    assert not root.exists()
    result = journal.undo_last()
    assert result["success"] is True and result["action"] == "recreated"
    assert tree_state(root) == before
    assert not list(ws.glob(".metona-undo-*"))


def test_delete_of_a_symlink_brings_back_the_link(journal: Journal, ws: Path) -> None:
    (ws / "real.txt").write_text("real")
    link = ws / "link"
    link.symlink_to("real.txt")
    change(journal, "delete_file", link, link.unlink)
    assert journal.undo_last()["success"] is True
    assert link.is_symlink() and os.readlink(link) == "real.txt"


def test_delete_undo_refuses_when_something_is_there_again(journal: Journal, ws: Path) -> None:
    target = ws / "f.txt"
    target.write_text("old")
    change(journal, "delete_file", target, target.unlink)
    target.write_text("new by user")
    result = journal.undo_last()
    assert result["success"] is False
    assert "changed since" in result["error"] and str(target) in result["error"]
    assert target.read_text() == "new by user"


def test_failed_tool_call_leaves_nothing_to_undo(journal: Journal, ws: Path) -> None:
    target = ws / "f.txt"
    target.write_text("x")
    journal.record(call_id="c1", tool="delete_file", path=target)  # the tool then failed
    assert journal.undo_last() == NOTHING
    assert journal.entries() == []
    assert journal.can_undo("c1") is False


def test_undo_by_call_id(journal: Journal, ws: Path) -> None:
    one, two = ws / "one.txt", ws / "two.txt"
    one.write_text("1")
    two.write_text("2")
    write(journal, one, b"one changed", call_id="first")
    write(journal, two, b"two changed", call_id="second")
    assert journal.can_undo("first") and journal.can_undo("second")
    result = journal.undo("first")
    assert result["success"] is True and result["call_id"] == "first"
    assert one.read_text() == "1" and two.read_text() == "two changed"
    assert journal.can_undo("first") is False
    again = journal.undo("first")
    assert again["success"] is False and "already undone" in again["error"]
    assert journal.undo("nope")["success"] is False
    listed = journal.entries()
    assert [e["call_id"] for e in listed] == ["second", "first"]
    assert [e["undone"] for e in listed] == [False, True]
    assert journal.undo_last()["call_id"] == "second"


def test_concurrent_calls(journal: Journal, ws: Path) -> None:
    paths = [ws / f"f{i}.txt" for i in range(16)]
    for path in paths:
        path.write_text(f"old {path.name}")
    threads = [
        threading.Thread(target=write, args=(journal, p, b"new", f"c{i}"))
        for i, p in enumerate(paths)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert len(journal.entries()) == 16
    for _ in paths:
        assert journal.undo_last()["success"] is True
    assert all(p.read_text() == f"old {p.name}" for p in paths)


def test_relative_paths_are_rejected(journal: Journal) -> None:
    with pytest.raises(ValueError):
        journal.record(call_id=None, tool="write_file", path=Path("relative.txt"))


def test_an_os_error_while_undoing_is_coded_by_its_errno(
    journal: Journal, ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not the OS's English words as the reason: the errno's code (permission_denied), which
    the page and the terminal say in the user's language; an errno without a code keeps them."""
    import errno

    from tray_app.terminal_errors import failure_text
    from tray_app.tools.journal import journal_undo

    target = ws / "新 📝\u202e.txt"
    write(journal, target, b"hello")

    def denied(*_args: object, **_kw: object) -> None:
        raise PermissionError(errno.EACCES, "Permission denied", str(target))

    monkeypatch.setattr(journal_undo, "remove_file", denied)
    result = journal.undo_last()
    assert result["success"] is False and "Permission denied" in result["error"]
    assert (result["code"], result["params"]) == ("permission_denied", {"path": str(target)})
    assert failure_text(result, "zh-CN") == "没有权限：" + str(target).replace("\u202e", "⟨U+202E⟩")

    def odd(*_args: object, **_kw: object) -> None:
        raise OSError(errno.EPROTO, "Protocol error")

    monkeypatch.setattr(journal_undo, "remove_file", odd)
    result = journal.undo_last()
    assert (result["code"], result["params"]["reason"]) == ("undo_os_error", "Protocol error")
    assert target.exists()
