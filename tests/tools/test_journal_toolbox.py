"""Undo round-trips through the real file tools: Toolbox.execute, then Journal.undo."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tray_app.tools.builtin.files import FILE_TOOLS
from tray_app.tools.journal.journal import Journal
from tray_app.tools.registry import ToolRegistry
from tray_app.tools.sandbox.policy import SandboxPolicy
from tray_app.tools.toolbox import Toolbox

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes and symlinks")


@pytest.fixture
def work(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir(exist_ok=True)
    return folder


@pytest.fixture
def undo_journal(tmp_path: Path) -> Journal:
    return Journal(tmp_path / "journal")


@pytest.fixture
def toolbox(tmp_path: Path, work: Path, undo_journal: Journal) -> Toolbox:
    policy = SandboxPolicy(allowed_dirs=[work], workspace=work, home=tmp_path / "home")
    return Toolbox(policy, registry=ToolRegistry(FILE_TOOLS), journal=undo_journal)


def test_write_new_file_round_trip(toolbox: Toolbox, undo_journal: Journal, work: Path) -> None:
    result = toolbox.execute("write_file", {"path": "a/new.txt", "content": "hi"}, call_id="w1")
    assert result["success"] is True and result["created"] is True
    assert undo_journal.can_undo("w1")
    undone = undo_journal.undo("w1")
    assert undone["success"] is True and undone["action"] == "removed"
    assert not (work / "a" / "new.txt").exists()


def test_overwrite_round_trip(toolbox: Toolbox, undo_journal: Journal, work: Path) -> None:
    target = work / "notes.md"
    target.write_text("original\n")
    target.chmod(0o640)
    result = toolbox.execute(
        "write_file", {"path": "notes.md", "content": "rewritten"}, call_id="w2"
    )
    assert result["success"] is True and result["created"] is False
    assert undo_journal.undo_last()["action"] == "restored"
    assert target.read_text() == "original\n"
    assert target.stat().st_mode & 0o777 == 0o640


def test_create_directory_round_trip(toolbox: Toolbox, undo_journal: Journal, work: Path) -> None:
    result = toolbox.execute("create_directory", {"path": "x/y/z"}, call_id="d1")
    assert result["success"] is True
    assert (work / "x" / "y" / "z").is_dir()
    assert undo_journal.undo("d1")["success"] is True
    assert not (work / "x").exists()


def test_delete_file_round_trip(toolbox: Toolbox, undo_journal: Journal, work: Path) -> None:
    (work / "gone.txt").write_text("keep me")
    result = toolbox.execute("delete_file", {"path": "gone.txt"}, call_id="r1")
    assert result["success"] is True and not (work / "gone.txt").exists()
    undone = undo_journal.undo("r1")
    assert undone["success"] is True and undone["action"] == "recreated"
    assert (work / "gone.txt").read_text() == "keep me"


def test_recursive_delete_round_trip(toolbox: Toolbox, undo_journal: Journal, work: Path) -> None:
    (work / "proj" / "src").mkdir(parents=True)
    (work / "proj" / "src" / "main.py").write_text("print(1)\n")
    (work / "proj" / "README").write_text("readme")
    (work / "proj" / "link").symlink_to("README")
    result = toolbox.execute("delete_file", {"path": "proj", "recursive": True}, call_id="r2")
    assert result["success"] is True and not (work / "proj").exists()
    assert undo_journal.undo("r2")["success"] is True
    assert (work / "proj" / "src" / "main.py").read_text() == "print(1)\n"
    assert (work / "proj" / "README").read_text() == "readme"
    assert (work / "proj" / "link").is_symlink()


def test_refused_call_leaves_nothing_to_undo(toolbox: Toolbox, undo_journal: Journal) -> None:
    result = toolbox.execute("write_file", {"path": "/etc/x", "content": "x"}, call_id="bad")
    assert result["success"] is False
    assert undo_journal.entries() == []
    assert undo_journal.undo_last()["success"] is False


def test_user_edit_after_the_agent_blocks_undo(
    toolbox: Toolbox, undo_journal: Journal, work: Path
) -> None:
    toolbox.execute("write_file", {"path": "f.txt", "content": "agent"}, call_id="w3")
    (work / "f.txt").write_text("user")
    result = undo_journal.undo("w3")
    assert result["success"] is False
    assert "changed since" in result["error"] and str(work / "f.txt") in result["error"]
    assert (work / "f.txt").read_text() == "user"
