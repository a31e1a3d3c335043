"""edit_file through Toolbox.execute and Toolbox.preview, T-table style: E01-E14,
then encodings kept byte for byte (with the real undo journal) and red-team patterns."""

from __future__ import annotations

import codecs
import os
from pathlib import Path

import pytest

from tests.tools.attack_helpers import err, ok
from tray_app.tools.builtin import edit_file as edit_module
from tray_app.tools.builtin.files import FILE_TOOLS
from tray_app.tools.journal.journal import Journal
from tray_app.tools.registry import ToolRegistry
from tray_app.tools.sandbox.policy import SandboxPolicy
from tray_app.tools.toolbox import Toolbox


def edit(old: str, new: str) -> dict[str, str]:
    return {"old_text": old, "new_text": new}


# ---- T-table --------------------------------------------------------------------------------


def test_e01_one_exact_edit(box, layout, journal):
    target = layout.work / "app.py"
    target.write_text("def main():\n    print('hi')\n    return 0\n")
    result = ok(
        box.execute(
            "edit_file", {"path": "app.py", "edits": [edit("print('hi')", "print('你好 🌏')")]}
        )
    )
    assert target.read_text() == "def main():\n    print('你好 🌏')\n    return 0\n"
    assert result["edits"] == [{"line": 2, "matched": "exact"}]
    assert "-    print('hi')\n+    print('你好 🌏')\n" in result["diff"]
    assert result["dry_run"] is False and result["bytesWritten"] == len(target.read_bytes())
    assert journal.kinds() == ["record", "commit"]
    assert journal.events[0][1][1:3] == ("edit_file", target)


def test_e02_old_text_matching_twice_is_refused_with_the_lines(box, layout):
    target = layout.work / "twice.txt"
    body = "x = 1\ny = 2\nx = 1\n"
    target.write_text(body)
    message = err(box.execute("edit_file", {"path": "twice.txt", "edits": [edit("x = 1", "x")]}))
    assert "matches 2 places (lines 1, 3)" in message and "exactly one" in message
    assert target.read_text() == body


def test_e03_overlapping_matches_count(box, layout):
    (layout.work / "aaa.txt").write_text("aaa\n")
    message = err(box.execute("edit_file", {"path": "aaa.txt", "edits": [edit("aa", "b")]}))
    assert "matches 2 places" in message


def test_e04_no_match_shows_the_nearest_lines(box, layout):
    lines = [f"line {n}: value = {n * 7}" for n in range(1, 60)]
    target = layout.work / "many.txt"
    target.write_text("\n".join(lines) + "\n")
    message = err(
        box.execute("edit_file", {"path": "many.txt", "edits": [edit("line 30: valeu = 210", "")]})
    )
    assert "not found" in message
    assert "30: line 30: value = 210" in message  # numbered, the nearest line itself
    assert "28: " in message and "32: " in message  # with context


def test_e05_whitespace_tolerant_match_keeps_the_file_indentation(box, layout):
    target = layout.work / "deep.py"
    target.write_text("class A:\n\tdef f(self):\n\t\tif x:\n\t\t\treturn  1\n\t\treturn 2\n")
    result = ok(
        box.execute(
            "edit_file",
            {
                "path": "deep.py",
                "edits": [edit("if x:\n    return 1", "if x:\n    log('é')\n    return 1")],
            },
        )
    )
    assert result["edits"][0]["matched"] == "whitespace"
    assert target.read_text() == (
        "class A:\n\tdef f(self):\n\t\tif x:\n\t\t    log('é')\n\t\t    return 1\n\t\treturn 2\n"
    )


def test_e06_all_edits_or_none(box, layout):
    target = layout.work / "both.txt"
    target.write_text("alpha\nbeta\n")
    message = err(
        box.execute(
            "edit_file",
            {"path": "both.txt", "edits": [edit("alpha", "ALPHA"), edit("gamma", "GAMMA")]},
        )
    )
    assert message.count("edit 2 of 2") == 1
    assert target.read_text() == "alpha\nbeta\n"


def test_e07_edits_apply_in_order(box, layout):
    target = layout.work / "order.txt"
    target.write_text("one\n")
    ok(
        box.execute(
            "edit_file",
            {"path": "order.txt", "edits": [edit("one", "two"), edit("two", "three")]},
        )
    )
    assert target.read_text() == "three\n"


def test_e08_dry_run_returns_the_diff_and_writes_nothing(box, layout, journal):
    target = layout.work / "dry.txt"
    target.write_text("keep\n")
    before = os.stat(target)
    args = {"path": "dry.txt", "edits": [edit("keep", "changed")], "dry_run": True}
    result = ok(box.execute("edit_file", args))
    assert result["dry_run"] is True and "+changed" in result["diff"]
    assert target.read_text() == "keep\n" and os.stat(target).st_mtime_ns == before.st_mtime_ns
    assert journal.events == []
    preview = box.preview("edit_file", args)
    assert preview["changes"] is False and preview["kind"] == "diff"


def test_e09_preview_is_the_unified_diff(box, layout):
    target = layout.work / "p.txt"
    target.write_text("a\nb\nc\n")
    preview = box.preview("edit_file", {"path": "p.txt", "edits": [edit("b", "B")]})
    assert preview["kind"] == "diff" and preview["exists"] is True
    assert preview["overwrites"] is True and preview["changes"] is True
    assert preview["text"].endswith("@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n")
    assert target.read_text() == "a\nb\nc\n"


def test_e10_a_missing_file_is_refused(box, layout):
    message = err(box.execute("edit_file", {"path": "nope.txt", "edits": [edit("a", "b")]}))
    assert message == f"file not found: {layout.work / 'nope.txt'}"
    assert box.preview("edit_file", {"path": "nope.txt", "edits": [edit("a", "b")]})["kind"] == (
        "error"
    )


def test_e11_binary_and_folders_are_refused(box, layout):
    (layout.work / "b.bin").write_bytes(b"\x00\x01abc")
    assert "binary" in err(box.execute("edit_file", {"path": "b.bin", "edits": [edit("a", "")]}))
    (layout.work / "d").mkdir()
    assert "folder" in err(box.execute("edit_file", {"path": "d", "edits": [edit("a", "")]}))


def test_e12_no_change_is_refused(box, layout):
    (layout.work / "same.txt").write_text("x\n")
    message = err(box.execute("edit_file", {"path": "same.txt", "edits": [edit("x", "x")]}))
    assert "leave the text as it is" in message


def test_e13_small_model_slips_are_mended(box, layout):
    target = layout.work / "slip.txt"
    target.write_text("foo\n")
    ok(box.execute("edit_file", {"path": "slip.txt", "edits": {"oldText": "foo", "newText": "b"}}))
    assert target.read_text() == "b\n"
    assert "invalid arguments" in err(box.execute("edit_file", {"path": "slip.txt", "edits": []}))


def test_e14_one_line_of_a_2000_line_file(box, layout):
    lines = [f"{n:04d} 行 {'x' * (n % 50)}\n" for n in range(2000)]
    target = layout.work / "long.txt"
    target.write_text("".join(lines))
    args = {"path": "long.txt", "edits": [edit("1234 行", "1234 LINE ✓")]}
    preview = box.preview("edit_file", args)
    body = preview["text"].splitlines()[2:]  # after the --- and +++ lines
    assert [row[0] for row in body].count("-") == 1 and [row[0] for row in body].count("+") == 1
    assert "@@ -1232,7 +1232,7 @@" in preview["text"]  # numbered like the whole file
    ok(box.execute("edit_file", args))
    got = target.read_text().splitlines(keepends=True)
    assert got[1234].startswith("1234 LINE ✓") and got[:1234] + got[1235:] == (
        lines[:1234] + lines[1235:]
    )


# ---- encodings and undo, byte for byte --------------------------------------------------------


@pytest.fixture
def real(tmp_path: Path, layout) -> tuple[Toolbox, Journal]:
    journal = Journal(tmp_path / "journal")
    policy = SandboxPolicy(allowed_dirs=[layout.work], workspace=layout.work, home=layout.home)
    return Toolbox(policy, registry=ToolRegistry(FILE_TOOLS), journal=journal), journal


ENCODED = {
    "utf-8 BOM CRLF": codecs.BOM_UTF8 + "名前 = 1\r\nvalue = 2\r\nend 🎉\r\n".encode(),
    "utf-16le BOM CRLF": codecs.BOM_UTF16_LE
    + "名前 = 1\r\nvalue = 2\r\nend 🎉\r\n".encode("utf-16-le"),
    "utf-16be BOM LF": codecs.BOM_UTF16_BE + "名前 = 1\nvalue = 2\nend 🎉\n".encode("utf-16-be"),
    "plain CRLF": "名前 = 1\r\nvalue = 2\r\nend 🎉\r\n".encode(),
}


@pytest.mark.parametrize("name", list(ENCODED))
def test_encoding_bom_and_crlf_kept_after_edit_and_undo(real, layout, name):
    toolbox, journal = real
    original = ENCODED[name]
    target = layout.work / "ファイル 📄.txt"
    target.write_bytes(original)
    result = toolbox.execute(
        "edit_file", {"path": target.name, "edits": [edit("value = 2", "value = 3")]}, call_id="e"
    )
    assert result["success"] is True, result
    expected = original.replace("2".encode(_codec(name)), "3".encode(_codec(name)))
    assert target.read_bytes() == expected  # only the edited character changed
    assert journal.undo("e")["action"] == "restored"
    assert target.read_bytes() == original


def _codec(name: str) -> str:
    return {"utf-16le": "utf-16-le", "utf-16be": "utf-16-be"}.get(name.split()[0], "utf-8")


def test_a_multi_line_edit_in_a_crlf_file_writes_crlf(box, layout):
    target = layout.work / "win.txt"
    target.write_bytes(b"a\r\nb\r\nc\r\n")
    ok(box.execute("edit_file", {"path": "win.txt", "edits": [edit("b\n", "b1\nb2\n")]}))
    assert target.read_bytes() == b"a\r\nb1\r\nb2\r\nc\r\n"


def test_characters_the_encoding_cannot_hold_are_refused(box, layout):
    target = layout.work / "latin.txt"
    target.write_bytes("café\n".encode("utf-16"))
    ok(box.execute("edit_file", {"path": "latin.txt", "edits": [edit("café", "café ☕")]}))
    assert target.read_bytes().decode("utf-16") == "café ☕\n"


def test_mode_is_kept(box, layout):
    target = layout.work / "run.sh"
    target.write_text("echo a\n")
    target.chmod(0o750)
    ok(box.execute("edit_file", {"path": "run.sh", "edits": [edit("a", "b")]}))
    assert target.stat().st_mode & 0o777 == 0o750


# ---- red team -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [".env", ".npmrc", "prod.tfstate", "id_rsa", ".pgpass"])
def test_edits_of_sensitive_files_are_refused(box, layout, name):
    target = layout.work / name
    target.write_text("TOKEN=abc\n")
    args = {"path": name, "edits": [edit("abc", "xyz")]}
    assert "secret" in err(box.execute("edit_file", args))
    assert box.preview("edit_file", args)["kind"] == "error"
    assert target.read_text() == "TOKEN=abc\n"


def test_an_edit_through_a_link_outside_is_refused(box, layout):
    outside = layout.outside / "victim.txt"
    outside.write_text("safe\n")
    (layout.work / "link.txt").symlink_to(outside)
    (layout.work / "dir_link").symlink_to(layout.outside)
    for raw in ("link.txt", "dir_link/victim.txt", str(outside)):
        assert "outside" in err(
            box.execute("edit_file", {"path": raw, "edits": [edit("safe", "pwned")]})
        )
    assert outside.read_text() == "safe\n"


def test_an_edit_inside_git_is_refused(box, layout):
    hook = layout.work / ".git" / "config"
    hook.parent.mkdir()
    hook.write_text("[core]\n")
    message = err(box.execute("edit_file", {"path": ".git/config", "edits": [edit("core", "x")]}))
    assert ".git" in message and hook.read_text() == "[core]\n"


def test_the_file_changing_after_the_preview(box, layout):
    """The plan is made again at run time: the user's later change is never overwritten."""
    target = layout.work / "race.txt"
    target.write_text("version = 1\n")
    args = {"path": "race.txt", "edits": [edit("version = 1", "version = 2")]}
    assert "+version = 2" in box.preview("edit_file", args)["text"]
    target.write_text("version = 7  # the user's own edit\n")
    assert "not found" in err(box.execute("edit_file", args))
    assert target.read_text() == "version = 7  # the user's own edit\n"


def test_the_file_changing_while_the_edit_runs(box, layout, monkeypatch):
    target = layout.work / "race2.txt"
    target.write_text("a = 1\n")
    real_plan = edit_module.plan_edit

    def plan_then_change(policy, args, **options):
        plan = real_plan(policy, args, **options)
        target.write_text("a = 1\nb = 2  # written meanwhile\n")
        return plan

    monkeypatch.setattr(edit_module, "plan_edit", plan_then_change)
    message = err(box.execute("edit_file", {"path": "race2.txt", "edits": [edit("a = 1", "a")]}))
    assert "changed while it was being edited" in message
    assert target.read_text() == "a = 1\nb = 2  # written meanwhile\n"


def test_a_huge_old_text_is_only_refused(box, layout):
    (layout.work / "h.txt").write_text("small\n")
    message = err(
        box.execute("edit_file", {"path": "h.txt", "edits": [edit("\u202e" * 200_000, "x")]})
    )
    assert "not found" in message and len(message) < 2000


def test_a_latin1_file_is_edited_when_its_encoding_is_named(box, layout):
    target = layout.work / "alt.txt"
    original = "Größe: 1\r\nstraße\r\n".encode("latin-1")
    target.write_bytes(original)
    args = {"path": "alt.txt", "edits": [edit("Größe: 1", "Größe: 2")]}
    assert "name its encoding" in err(box.execute("edit_file", args))
    ok(box.execute("edit_file", {**args, "encoding": "latin1"}))
    assert target.read_bytes() == original.replace(b"1", b"2")
    assert "invalid arguments" in err(box.execute("edit_file", {**args, "encoding": "base64"}))
