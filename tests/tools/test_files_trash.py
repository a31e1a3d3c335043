"""delete_file with the real send2trash (freedesktop implementation), kept inside tmp.

send2trash's freedesktop module reads XDG_DATA_HOME once, at import: the test points its
module-level trash location and HOME at the test folder, so nothing reaches the real trash.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tray_app.tools.builtin import delete_file as delete_module

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="freedesktop trash is the Linux implementation"
)


@pytest.fixture
def real_trash(layout, monkeypatch) -> Path:
    from send2trash import plat_other

    data_home = layout.home / ".local" / "share"
    data_home.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(layout.home))
    monkeypatch.setenv("XDG_DATA_HOME", str(data_home))
    monkeypatch.setattr(plat_other, "XDG_DATA_HOME", bytes(data_home))
    monkeypatch.setattr(plat_other, "HOMETRASH_B", bytes(data_home / "Trash"))
    monkeypatch.setattr(plat_other, "HOMETRASH", str(data_home / "Trash"))
    monkeypatch.setattr(delete_module, "trash", plat_other.send2trash)
    return data_home / "Trash"


def test_a_deleted_file_goes_to_the_trash(box, layout, real_trash):
    (layout.work / "old notes.txt").write_text("remember")
    result = box.execute("delete_file", {"path": "old notes.txt"})
    assert result["success"] is True and result["trashed"] is True
    assert not (layout.work / "old notes.txt").exists()
    assert (real_trash / "files" / "old notes.txt").read_text() == "remember"
    info = (real_trash / "info" / "old notes.txt.trashinfo").read_text()
    assert "Path=" in info and "DeletionDate=" in info


def test_a_deleted_tree_goes_to_the_trash_with_its_links_as_links(box, layout, real_trash):
    tree = layout.work / "build"
    (tree / "obj").mkdir(parents=True)
    (tree / "obj" / "a.o").write_bytes(b"\x7fELF")
    (layout.outside / "keep.txt").write_text("keep")
    (tree / "link").symlink_to(layout.outside / "keep.txt")
    result = box.execute("delete_file", {"path": "build", "recursive": True})
    assert result["success"] is True and result["trashed"] is True
    moved = real_trash / "files" / "build"
    assert (moved / "obj" / "a.o").read_bytes() == b"\x7fELF"
    assert (moved / "link").is_symlink()
    assert (layout.outside / "keep.txt").read_text() == "keep"


def test_the_default_trash_is_send2trash(monkeypatch):
    import send2trash

    seen: list[str] = []
    monkeypatch.setattr(send2trash, "send2trash", seen.append)
    delete_module._default_trash("/some/path")
    assert seen == ["/some/path"]


def test_a_trash_failure_falls_back_to_a_plain_delete(box, layout, monkeypatch):
    def broken(path: str) -> None:
        raise OSError("Couldn't find mount point")

    monkeypatch.setattr(delete_module, "trash", broken)
    (layout.work / "x.txt").write_text("x")
    result = box.execute("delete_file", {"path": "x.txt"})
    assert result["success"] is True and result["trashed"] is False
    assert not (layout.work / "x.txt").exists()
