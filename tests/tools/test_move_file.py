"""move_file through Toolbox.execute/preview, T-table style M01-M10, then undo with
the real journal (byte for byte, folders too) and red-team patterns: symlinked destinations,
moves into blocked folders, secrets, files appearing between the check and the rename."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.tools.attack_helpers import err, ok
from tray_app.tools.builtin import move_file as move_module
from tray_app.tools.builtin.files import FILE_TOOLS
from tray_app.tools.journal.journal import Journal
from tray_app.tools.registry import ToolRegistry
from tray_app.tools.sandbox.policy import SandboxPolicy
from tray_app.tools.toolbox import Toolbox

NAME = "報告 📊.txt"
BODY = "第一行\r\n🎉 second\r\n".encode() + b"\x00\xff raw tail"


def test_m01_rename_a_file(box, layout, journal):
    (layout.work / NAME).write_bytes(BODY)
    result = ok(box.execute("move_file", {"source": NAME, "destination": "renamed 名.txt"}))
    assert not (layout.work / NAME).exists()
    assert (layout.work / "renamed 名.txt").read_bytes() == BODY
    assert result["destination"] == str(layout.work / "renamed 名.txt")
    assert result["type"] == "file" and result["replaced"] is False
    assert journal.kinds() == ["record_move", "commit"]


def test_m02_move_into_an_existing_folder_keeps_the_name(box, layout):
    (layout.work / NAME).write_bytes(BODY)
    (layout.work / "归档").mkdir()
    ok(box.execute("move_file", {"source": NAME, "destination": "归档"}))
    assert (layout.work / "归档" / NAME).read_bytes() == BODY


def test_m03_missing_parent_folders_are_created(box, layout):
    (layout.work / "a.txt").write_text("a")
    ok(box.execute("move_file", {"source": "a.txt", "destination": "x/y/z.txt"}))
    assert (layout.work / "x" / "y" / "z.txt").read_text() == "a"


def test_m04_never_over_an_existing_file_without_overwrite(box, layout):
    (layout.work / "a.txt").write_text("new")
    (layout.work / "b.txt").write_text("precious")
    args = {"source": "a.txt", "destination": "b.txt"}
    assert "overwrite=true" in err(box.execute("move_file", args))
    assert box.preview("move_file", args)["kind"] == "error"
    assert (layout.work / "b.txt").read_text() == "precious"
    assert (layout.work / "a.txt").read_text() == "new"


def test_m05_overwrite_asks_as_a_delete_and_replaces(box, layout):
    (layout.work / "a.txt").write_text("new")
    (layout.work / "b.txt").write_text("old")
    args = {"source": "a.txt", "destination": "b.txt", "overwrite": True}
    preview = box.preview("move_file", args)
    assert preview["kind"] == "move" and preview["deletes"] is True
    assert preview["replaced_size"] == 3 and "it is deleted" in preview["text"]
    result = ok(box.execute("move_file", args))
    assert result["replaced"] is True and (layout.work / "b.txt").read_text() == "new"
    assert not (layout.work / "a.txt").exists()


def test_m06_a_folder_is_never_replaced(box, layout):
    (layout.work / "a.txt").write_text("a")
    (layout.work / "d").mkdir()
    (layout.work / "d" / "a.txt").mkdir()
    message = err(
        box.execute("move_file", {"source": "a.txt", "destination": "d", "overwrite": True})
    )
    assert "never replaces" in message


def test_m07_a_folder_cannot_move_into_itself(box, layout):
    (layout.work / "p" / "q").mkdir(parents=True)
    assert "into itself" in err(box.execute("move_file", {"source": "p", "destination": "p/q/p"}))


def test_m08_the_workspace_and_allowed_folders_cannot_move(box, layout):
    message = err(box.execute("move_file", {"source": ".", "destination": "elsewhere"}))
    assert "cannot be moved" in message


def test_m09_a_missing_source(box, layout):
    assert "not found" in err(box.execute("move_file", {"source": "nope", "destination": "x"}))


def test_m10_a_symlink_moves_as_a_link(box, layout):
    (layout.outside / "target.txt").write_text("outside")
    (layout.work / "link").symlink_to(layout.outside / "target.txt")
    ok(box.execute("move_file", {"source": "link", "destination": "moved-link"}))
    assert os.readlink(layout.work / "moved-link") == str(layout.outside / "target.txt")
    assert (layout.outside / "target.txt").read_text() == "outside"


# ---- undo with the real journal --------------------------------------------------------------


@pytest.fixture
def real(tmp_path: Path, layout) -> tuple[Toolbox, Journal]:
    journal = Journal(tmp_path / "journal")
    policy = SandboxPolicy(allowed_dirs=[layout.work], workspace=layout.work, home=layout.home)
    return Toolbox(policy, registry=ToolRegistry(FILE_TOOLS), journal=journal), journal


def test_undo_moves_a_file_back_byte_for_byte(real, layout):
    toolbox, journal = real
    source = layout.work / NAME
    source.write_bytes(BODY)
    source.chmod(0o640)
    inode = source.stat().st_ino
    assert toolbox.execute("move_file", {"source": NAME, "destination": "d/x"}, call_id="m")[
        "success"
    ]
    assert journal.can_undo("m")
    undone = journal.undo("m")
    assert undone["success"] is True and undone["action"] == "moved back"
    assert source.read_bytes() == BODY and source.stat().st_ino == inode  # renamed, not copied
    assert source.stat().st_mode & 0o777 == 0o640
    assert not (layout.work / "d" / "x").exists()


def test_undo_moves_a_folder_back(real, layout):
    toolbox, journal = real
    tree = layout.work / "项目"
    (tree / "src").mkdir(parents=True)
    (tree / "src" / "a.py").write_text("print('a')\n")
    (tree / "README.md").write_bytes(BODY)
    ok(toolbox.execute("move_file", {"source": "项目", "destination": "renamed"}, call_id="f"))
    assert (layout.work / "renamed" / "src" / "a.py").exists()
    assert journal.undo("f")["success"] is True
    assert (tree / "README.md").read_bytes() == BODY and (tree / "src" / "a.py").exists()
    assert not (layout.work / "renamed").exists()


def test_undo_of_an_overwrite_brings_back_the_replaced_file(real, layout):
    toolbox, journal = real
    (layout.work / "a.txt").write_bytes(b"moved \xe2\x9c\x93")
    (layout.work / "b.txt").write_bytes(BODY)
    args = {"source": "a.txt", "destination": "b.txt", "overwrite": True}
    ok(toolbox.execute("move_file", args, call_id="o"))
    assert journal.undo("o")["success"] is True
    assert (layout.work / "a.txt").read_bytes() == b"moved \xe2\x9c\x93"
    assert (layout.work / "b.txt").read_bytes() == BODY


def test_undo_refuses_when_something_took_the_old_name(real, layout):
    toolbox, journal = real
    (layout.work / "a.txt").write_text("mine")
    ok(toolbox.execute("move_file", {"source": "a.txt", "destination": "b.txt"}, call_id="t"))
    (layout.work / "a.txt").write_text("the user's new file")
    result = journal.undo("t")
    assert result["success"] is False and "changed since" in result["error"]
    assert (layout.work / "a.txt").read_text() == "the user's new file"
    assert (layout.work / "b.txt").read_text() == "mine"


# ---- red team -------------------------------------------------------------------------------


def test_a_symlinked_destination_folder_leading_outside_is_outside(box, layout):
    (layout.work / "a.txt").write_text("a")
    (layout.work / "drop").symlink_to(layout.outside)
    for dest in ("drop", "drop/a.txt", "drop/new/a.txt", str(layout.outside / "a.txt")):
        message = err(box.execute("move_file", {"source": "a.txt", "destination": dest}))
        assert "outside the allowed folders" in message, (dest, message)
    assert (layout.work / "a.txt").read_text() == "a" and os.listdir(layout.outside) == []


def test_a_source_outside_is_refused(box, layout):
    (layout.outside / "o.txt").write_text("o")
    (layout.work / "in").symlink_to(layout.outside)
    for source in (str(layout.outside / "o.txt"), "in/o.txt", "../outside/o.txt"):
        assert "outside" in err(box.execute("move_file", {"source": source, "destination": "x"}))
    assert (layout.outside / "o.txt").read_text() == "o"


def test_moves_into_blocked_folders_are_refused(box, layout, policy_for):
    blocked = layout.work / "vault"
    blocked.mkdir()
    (layout.work / "a.txt").write_text("a")
    box.policy = policy_for(blocked_dirs=[blocked])
    for dest in ("vault/a.txt", "vault", ".git/hooks/pre-commit"):
        assert "not allowed" in err(
            box.execute("move_file", {"source": "a.txt", "destination": dest})
        )
    assert (layout.work / "a.txt").exists() and os.listdir(blocked) == []


@pytest.mark.parametrize(
    ("source", "dest"), [("a.txt", ".env"), ("a.txt", "k/id_rsa"), (".npmrc", "npm.txt")]
)
def test_secrets_cannot_be_created_or_moved_out(box, layout, source, dest):
    (layout.work / source).write_text("TOKEN=1")
    assert "secret" in err(box.execute("move_file", {"source": source, "destination": dest}))
    assert (layout.work / source).read_text() == "TOKEN=1"


def test_a_file_appearing_at_the_destination_is_not_clobbered(box, layout, monkeypatch):
    (layout.work / "a.txt").write_text("a")
    real_plan = move_module.plan_move

    def plan_then_plant(policy, args):
        plan = real_plan(policy, args)
        (layout.work / "b.txt").write_text("planted meanwhile")
        return plan

    monkeypatch.setattr(move_module, "plan_move", plan_then_plant)
    message = err(box.execute("move_file", {"source": "a.txt", "destination": "b.txt"}))
    assert "appeared meanwhile" in message
    assert (layout.work / "b.txt").read_text() == "planted meanwhile"
    assert (layout.work / "a.txt").read_text() == "a"


def test_a_hard_linked_file_is_not_moved(box, layout):
    (layout.work / "a.txt").write_text("a")
    os.link(layout.work / "a.txt", layout.work / "twin.txt")
    assert "hard links" in err(box.execute("move_file", {"source": "a.txt", "destination": "b"}))


def test_undo_removes_the_folders_the_move_created_while_empty(real, layout):
    toolbox, journal = real
    (layout.work / "a.txt").write_text("a")
    (layout.work / "b.txt").write_text("b")
    ok(toolbox.execute("move_file", {"source": "a.txt", "destination": "新/深/a.txt"}, call_id="1"))
    ok(toolbox.execute("move_file", {"source": "b.txt", "destination": "x/y/b.txt"}, call_id="2"))
    (layout.work / "x" / "keep.txt").write_text("the user's file")
    assert journal.undo("1")["success"] and journal.undo("2")["success"]
    assert not (layout.work / "新").exists()
    assert sorted(os.listdir(layout.work / "x")) == ["keep.txt"]  # in use: kept, y removed
    assert (layout.work / "a.txt").read_text() == "a" and (layout.work / "b.txt").read_text() == "b"
