"""directory_tree: nested JSON, depth, exclude globs, secrets left out, capped."""

from __future__ import annotations

import os

from tests.tools.attack_helpers import err, ok
from tray_app.tools.builtin import dir_tree


def names(nodes):
    return [n["name"] for n in nodes]


def test_d01_a_nested_tree(box, layout, project):
    result = ok(box.execute("directory_tree", {"path": "src"}))
    tree = result["tree"]
    assert names(tree) == ["main", "README.md", "renderer"]
    main = tree[0]
    assert main["type"] == "directory" and names(main["children"]) == ["ipc.ts", "main.ts"]
    assert tree[1] == {"name": "README.md", "type": "file", "size": 5}
    assert result["total"] == 6 and result["truncated"] is False


def test_d02_max_depth_marks_unopened_folders(box, layout):
    (layout.work / "a" / "b" / "c").mkdir(parents=True)
    (layout.work / "a" / "b" / "c" / "deep.txt").write_text("x")
    result = ok(box.execute("directory_tree", {"path": ".", "max_depth": 2}))
    a = result["tree"][0]
    assert a["name"] == "a" and a["children"][0] == {
        "name": "b",
        "type": "directory",
        "not_listed": True,
    }


def test_d03_exclude_globs_by_name_and_path(box, layout, project):
    (layout.work / "node_modules" / "pkg").mkdir(parents=True)
    (layout.work / "cache.pyc").write_text("x")
    args = {"path": ".", "exclude": ["node_modules", "*.pyc", "src/main"]}
    result = ok(box.execute("directory_tree", args))
    top = names(result["tree"])
    assert "node_modules" not in top and "cache.pyc" not in top
    src = next(n for n in result["tree"] if n["name"] == "src")
    assert "main" not in names(src["children"])


def test_d04_secrets_hidden_and_blocked_folders_are_left_out(box, layout):
    (layout.work / ".env").write_text("x")
    (layout.work / "id_rsa").write_text("x")
    (layout.work / "秘密").mkdir()
    (layout.work / "秘密" / "server.key").write_text("x")
    hidden = ok(box.execute("directory_tree", {"path": ".", "include_hidden": True}))
    assert names(hidden["tree"]) == ["秘密"] and hidden["tree"][0]["children"] == []


def test_d05_links_are_not_followed(box, layout):
    (layout.outside / "out.txt").write_text("x")
    (layout.work / "link").symlink_to(layout.outside)
    result = ok(box.execute("directory_tree", {"path": "."}))
    assert result["tree"] == [{"name": "link", "type": "symlink"}]
    assert "outside" in err(box.execute("directory_tree", {"path": "link"}))


def test_d06_capped_like_listings(box, layout, monkeypatch):
    monkeypatch.setattr(dir_tree, "MAX_TREE_ENTRIES", 25)
    for n in range(40):
        (layout.work / f"f{n:02d}.txt").write_text("")
    result = ok(box.execute("directory_tree", {"path": "."}))
    assert result["total"] == 25 and result["truncated"] is True


def test_d07_a_file_is_not_a_folder(box, layout):
    (layout.work / "a.txt").write_text("")
    assert "not a folder" in err(box.execute("directory_tree", {"path": "a.txt"}))
    assert os.path.exists(layout.work / "a.txt")
