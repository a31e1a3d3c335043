"""``fs.opened``: a checked path reached folder by folder, never through a link; and the path
strings Windows keeps (no ``dir_fd`` there), run here with the descriptors switched off."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest

from tests.tools.attack_helpers import ok
from tray_app.tools.fs import fs_walk, opened
from tray_app.tools.toolbox import Toolbox


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_a_link_anywhere_on_the_path_stops_the_walk(tmp_path: Path) -> None:
    (tmp_path / "real" / "a" / "b").mkdir(parents=True)
    (tmp_path / "real" / "a" / "b" / "f.txt").write_text("文")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    before = _open_fds()
    with opened.opened(tmp_path / "real" / "a" / "b" / "f.txt") as here:
        assert here.lstat().st_size == len("文".encode())
    for through in (tmp_path / "link" / "a" / "b" / "f.txt", tmp_path / "link" / "a"):
        with pytest.raises(OSError) as caught, opened.opened(through):
            pass
        assert caught.value.errno in (errno.ENOTDIR, errno.ELOOP)
        assert caught.value.filename == str(tmp_path / "link")  # the whole path, not a name
    assert _open_fds() == before


def test_a_missing_folder_on_the_way_names_the_path_asked_for(box: Toolbox, layout: Any) -> None:
    """A file under a folder that does not exist is the file not found, said with the whole
    path the model asked for (as a path-string open says it), not the first missing folder."""
    asked = layout.work / "报告\u202egpj <b>粗</b> 🎉.txt"  # "</b>" makes "报告… <b>粗<" a folder
    with pytest.raises(OSError) as caught, opened.opened(asked):
        pass
    assert caught.value.errno == errno.ENOENT and caught.value.filename == str(asked)
    result = box.execute("read_file", {"path": str(asked)})
    assert result["success"] is False and result["code"] == "file_not_found"
    assert result["params"]["path"] == str(asked)


def test_deep_paths_keep_two_descriptors_at_most(tmp_path: Path) -> None:
    deep = tmp_path.joinpath(*[f"d{n}" for n in range(200)])
    deep.mkdir(parents=True)
    before = _open_fds()
    with opened.opened(deep / "x") as here:
        assert _open_fds() == before + 1
        assert here.name == "x"
    assert _open_fds() == before


@pytest.fixture
def by_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """What Windows runs: no descriptors, the checked path strings as before."""
    monkeypatch.setattr(opened, "BY_DESCRIPTOR", False)
    monkeypatch.setattr(fs_walk, "BY_DESCRIPTOR", False)


def test_without_descriptors_every_tool_works_as_before(
    by_path: None, box: Toolbox, layout: Any, test_trash: Any
) -> None:
    work = layout.work
    (work / "d").mkdir()
    (work / "d" / "a.txt").write_text("alpha 🎈\n")
    assert ok(box.execute("read_file", {"path": "d/a.txt"}))["content"] == "alpha 🎈\n"
    info = ok(box.execute("get_file_info", {"path": "d"}))
    assert info["entries"] == 1
    ok(box.execute("write_file", {"path": "d/new/b.txt", "content": "写\n"}))
    edit = {"old_text": "写", "new_text": "書"}
    ok(box.execute("edit_file", {"path": "d/new/b.txt", "edits": [edit]}))
    assert (work / "d" / "new" / "b.txt").read_text() == "書\n"
    ok(box.execute("move_file", {"source": "d/a.txt", "destination": "d/new/a.txt"}))
    listed = ok(box.execute("list_directory", {"path": "d", "recursive": True}))
    assert {e["name"] for e in listed["entries"]} >= {"new", "new/a.txt", "new/b.txt"}
    found = ok(box.execute("search_files", {"path": "d", "query": "alpha"}))
    assert [Path(r["path"]).name for r in found["results"]] == ["a.txt"]
    ok(box.execute("directory_tree", {"path": "d"}))
    ok(box.execute("delete_file", {"path": "d/new", "recursive": True}))
    assert not (work / "d" / "new").exists() and test_trash.items


@pytest.mark.parametrize("trash_fails", [False, True])
def test_a_delete_is_staged_beside_the_entry_and_leaves_nothing_behind(
    box: Toolbox, layout: Any, test_trash: Any, trash_fails: bool
) -> None:
    folder = layout.work / "p 文"
    (folder / "inner").mkdir(parents=True)
    (folder / "inner" / "f.txt").write_text("x")
    test_trash.fail = trash_fails
    result = ok(box.execute("delete_file", {"path": "p 文", "recursive": True}))
    assert result["trashed"] is not trash_fails
    assert os.listdir(layout.work) == []  # no staging folder left
    if not trash_fails:  # the trash got it under its own name, from the staging folder
        (item,) = test_trash.items
        assert item.name.endswith("p 文") and (item / "inner" / "f.txt").read_text() == "x"
