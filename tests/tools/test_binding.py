"""Approvals bound to what was shown, at the tool: a preview's ``binding`` passed to
``Toolbox.execute`` as ``bound`` makes write_file, edit_file, delete_file and move_file change
nothing when the target they find is not the one the preview described (the race between the
agent loop's last check and the tool's own read)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.tools.attack_helpers import ok
from tray_app.tools.toolbox import Toolbox

NAME = "草稿 ✍️.txt"
BODY = "第一行\n🎉 second\n"

CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "write": ("write_file", {"path": NAME, "content": "全部重写 🔁\n"}),
    "edit": ("edit_file", {"path": NAME, "edits": [{"old_text": "第一行", "new_text": "一"}]}),
    "delete": ("delete_file", {"path": NAME}),
    "move": ("move_file", {"source": NAME, "destination": "moved.txt"}),
}


def _append(path: Path) -> None:
    with open(path, "a", encoding="utf-8") as handle:
        handle.write("added by hand 手\n")


def _same_size_same_mtime(path: Path) -> None:
    """Content changed in place: same inode, same size, the old mtime put back."""
    info = path.stat()
    path.write_bytes(path.read_bytes().replace(b"second", b"SECOND"))
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))


def _replaced(path: Path) -> None:
    """Another file of the same content under the name (a new inode)."""
    other = path.with_name("other")
    other.write_text(BODY, encoding="utf-8")
    os.replace(other, path)


CHANGES: dict[str, Callable[[Path], None]] = {
    "appended": _append,
    "in_place": _same_size_same_mtime,
    "replaced": _replaced,
}


@pytest.mark.parametrize("change", CHANGES)
@pytest.mark.parametrize("kind", CALLS)
def test_a_target_changed_after_the_preview_is_not_touched(
    box: Toolbox, layout: Any, kind: str, change: str
) -> None:
    target = layout.work / NAME
    target.write_text(BODY, encoding="utf-8")
    name, args = CALLS[kind]
    preview = box.preview(name, args)
    assert preview["kind"] != "error", preview
    CHANGES[change](target)
    before = target.read_bytes()
    result = box.execute(name, args, bound=preview["binding"])
    assert result["success"] is False and result["changed_since_approval"] is True, result
    assert "changed after the user approved" in result["error"]
    assert target.read_bytes() == before
    assert not (layout.work / "moved.txt").exists()


@pytest.mark.parametrize("kind", CALLS)
def test_an_unchanged_target_runs_as_approved(box: Toolbox, layout: Any, kind: str) -> None:
    target = layout.work / NAME
    target.write_text(BODY, encoding="utf-8")
    name, args = CALLS[kind]
    preview = box.preview(name, args)
    ok(box.execute(name, args, bound=preview["binding"]))


def test_a_new_file_bound_as_absent_is_not_written_over_one_that_appeared(
    box: Toolbox, layout: Any
) -> None:
    name, args = CALLS["write"]
    preview = box.preview(name, args)
    assert preview["binding"] == {"exists": False}
    (layout.work / NAME).write_text("appeared 🆕\n", encoding="utf-8")
    result = box.execute(name, args, bound=preview["binding"])
    assert result["changed_since_approval"] is True
    assert (layout.work / NAME).read_text(encoding="utf-8") == "appeared 🆕\n"


def test_a_folder_delete_is_bound_to_every_entry_below_it(box: Toolbox, layout: Any) -> None:
    folder = layout.work / "项目"
    (folder / "深" / "更深").mkdir(parents=True)
    (folder / "深" / "更深" / "a.txt").write_text("a")
    preview = box.preview("delete_file", {"path": "项目", "recursive": True})
    (folder / "深" / "更深" / "b.txt").write_text("b")  # added deep inside after the preview
    result = box.execute(
        "delete_file", {"path": "项目", "recursive": True}, bound=preview["binding"]
    )
    assert result["changed_since_approval"] is True
    assert (folder / "深" / "更深" / "b.txt").exists()
