"""What the listing tools say is true: ``list_allowed_directories`` names only folders the
tools can use (a configured folder that is blocked is refused for every access, so naming it
only makes the model try), and ``directory_tree`` says "truncated" on every folder it cut,
where a sub-folder past a cap used to show as empty."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest

from tests.tools.attack_helpers import err, ok
from tray_app.tools.builtin import dir_tree
from tray_app.tools.builtin.files import FILE_TOOLS
from tray_app.tools.registry import ToolRegistry
from tray_app.tools.toolbox import Toolbox


def test_blocked_roots_are_not_listed(layout: Any, policy_for: Any, tmp_path: Path) -> None:
    ssh = layout.home / ".ssh"
    ssh.mkdir()
    (layout.work / "钥匙 🔑").symlink_to(ssh)
    app = tmp_path / "app-data"
    app.mkdir()
    usable = layout.work / "项目"
    usable.mkdir()
    policy = policy_for(
        allowed_dirs=[ssh, layout.work / "钥匙 🔑", app, usable],
        workspace=usable,
        protected_dirs=[app],
    )
    box = Toolbox(policy, registry=ToolRegistry(FILE_TOOLS))
    result = ok(box.execute("list_allowed_directories", {}))
    assert result["directories"] == [str(usable)]
    assert result["workspace"] == str(usable)
    for root in (ssh, app):  # and indeed unusable
        assert "not allowed" in err(box.execute("list_directory", {"path": str(root)}))


def _tree(box: Toolbox, **args: Any) -> dict[str, Any]:
    return ok(box.execute("directory_tree", {"path": ".", **args}))


def _node(nodes: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return next(n for n in nodes if n["name"] == name)


def test_a_folder_past_the_per_folder_cap_and_those_after_it_say_truncated(
    box: Toolbox, layout: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dir_tree, "Walk", functools.partial(dir_tree.Walk, max_dir_entries=5))
    for n in range(9):
        (layout.work / "a 大" / f"{n}.txt").parent.mkdir(exist_ok=True)
        (layout.work / "a 大" / f"{n}.txt").write_text("x")
    (layout.work / "b").mkdir()
    (layout.work / "b" / "inside.txt").write_text("x")
    result = _tree(box)
    assert result["truncated"] is True
    big, after = _node(result["tree"], "a 大"), _node(result["tree"], "b")
    assert big["truncated"] is True and big["children"] == []
    assert after["truncated"] is True and after["children"] == []  # not opened: not "empty"


def test_folders_past_the_entry_cap_say_truncated(
    box: Toolbox, layout: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dir_tree, "MAX_TREE_ENTRIES", 5)
    for folder in ("d1", "d2", "d3"):
        for n in range(3):
            (layout.work / folder).mkdir(exist_ok=True)
            (layout.work / folder / f"{n}.txt").write_text("x")
    (layout.work / "empty").mkdir()
    result = _tree(box)
    assert result["truncated"] is True and result["total"] == 5
    d1, d2 = _node(result["tree"], "d1"), _node(result["tree"], "d2")
    assert d1["truncated"] is True and len(d1["children"]) == 1
    assert d2["truncated"] is True and d2["children"] == []
    assert _node(result["tree"], "empty")["truncated"] is True  # not known to be empty


def test_a_whole_tree_has_no_marks(box: Toolbox, layout: Any) -> None:
    (layout.work / "full" / "deeper").mkdir(parents=True)
    (layout.work / "full" / "deeper" / "x.txt").write_text("x")
    (layout.work / "empty").mkdir()
    result = _tree(box, max_depth=2)
    full = _node(result["tree"], "full")
    assert result["truncated"] is False
    assert "truncated" not in full and full["children"][0].get("not_listed") is True
    assert _node(result["tree"], "empty") == {"name": "empty", "type": "directory", "children": []}
