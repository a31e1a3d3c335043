"""write_file, create_directory, delete_file and their previews (T04–T06,
T12–T14), with the journal protocol and the trash."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from tray_app.tools.builtin import write_file as write_module
from tray_app.tools.fs import fs_write


def ok(result: dict) -> dict:
    assert result["success"] is True, result
    json.dumps(result)
    return result


def err(result: dict) -> str:
    assert result["success"] is False, result
    return str(result["error"])


def temp_files(folder: Path) -> list[Path]:
    return sorted(folder.glob(f"{fs_write.TEMP_PREFIX}*{fs_write.TEMP_SUFFIX}"))


# ---- the reference cases --------------------------------------------------------


def test_t04_write_a_new_file(box, layout):
    result = ok(box.execute("write_file", {"path": "test.txt", "content": "hello"}))
    assert result == {
        "success": True,
        "path": str(layout.work / "test.txt"),
        "bytesWritten": 5,
        "created": True,
    }
    assert (layout.work / "test.txt").read_text() == "hello"


def test_t05_overwrite_an_existing_file(box, layout):
    ok(box.execute("write_file", {"path": "test.txt", "content": "hello"}))
    result = ok(box.execute("write_file", {"path": "test.txt", "content": "world"}))
    assert result["created"] is False and result["bytesWritten"] == 5
    assert (layout.work / "test.txt").read_text() == "world"


def test_t06_write_into_a_forbidden_folder(box, policy_for, layout):
    message = err(box.execute("write_file", {"path": "/etc/test", "content": "x"}))
    assert "/etc" in message
    assert not Path("/etc/test").exists()


def test_t12_create_nested_directories(box, layout):
    result = ok(box.execute("create_directory", {"path": "newdir/sub"}))
    assert result == {"success": True, "path": str(layout.work / "newdir" / "sub"), "created": True}
    assert (layout.work / "newdir" / "sub").is_dir()
    again = ok(box.execute("create_directory", {"path": "newdir/sub"}))
    assert again["created"] is False


def test_t13_delete_a_file(box, layout, test_trash):
    (layout.work / "test.txt").write_text("bye")
    result = ok(box.execute("delete_file", {"path": "test.txt"}))
    assert result == {
        "success": True,
        "path": str(layout.work / "test.txt"),
        "deleted": True,
        "trashed": True,
    }
    assert not (layout.work / "test.txt").exists()
    assert [p.read_text() for p in test_trash.items] == ["bye"]


def test_t14_delete_a_forbidden_path(box, policy_for, layout):
    message = err(box.execute("delete_file", {"path": "/etc/passwd"}))
    assert "/etc" in message
    assert Path("/etc/passwd").exists()


# ---- write_file -------------------------------------------------------------------------


def test_parents_are_created(box, layout):
    ok(box.execute("write_file", {"path": "a/b/c/d.txt", "content": "x"}))
    assert (layout.work / "a" / "b" / "c" / "d.txt").read_text() == "x"


def test_utf8_bytes_are_counted(box, layout):
    result = ok(box.execute("write_file", {"path": "u.txt", "content": "日本"}))
    assert result["bytesWritten"] == 6
    assert (layout.work / "u.txt").read_bytes() == "日本".encode()


def test_content_over_5_mb_is_refused_and_nothing_is_written(box, layout):
    message = err(
        box.execute("write_file", {"path": "big.txt", "content": "é" * (3 * 1024 * 1024)})
    )
    assert "5 MB" in message and "6.0 MB" in message
    assert not (layout.work / "big.txt").exists()


def test_the_old_mode_is_kept(box, layout):
    script = layout.work / "run.sh"
    script.write_text("echo 1\n")
    script.chmod(0o751)
    ok(box.execute("write_file", {"path": "run.sh", "content": "echo 2\n"}))
    assert stat.S_IMODE(script.stat().st_mode) == 0o751


def test_a_new_file_gets_the_umask_mode_not_0600(box, layout):
    old = os.umask(0o022)
    try:
        ok(box.execute("write_file", {"path": "n.txt", "content": "x"}))
    finally:
        os.umask(old)
    assert stat.S_IMODE((layout.work / "n.txt").stat().st_mode) == 0o644


def test_writing_a_folder_is_refused(box, layout):
    (layout.work / "d").mkdir()
    assert "a folder" in err(box.execute("write_file", {"path": "d", "content": "x"}))


def test_a_path_ending_in_a_separator_is_not_written_as_a_file(box, layout):
    assert "separator" in err(box.execute("write_file", {"path": "newdir/", "content": "x"}))
    assert not (layout.work / "newdir").exists()


def test_writing_under_a_file_is_explained(box, layout):
    (layout.work / "f.txt").write_text("x")
    message = err(box.execute("write_file", {"path": "f.txt/x.txt", "content": "x"}))
    assert "not a folder" in message


def test_writing_through_a_link_inside_keeps_the_link(box, layout):
    (layout.work / "real.txt").write_text("old")
    (layout.work / "alias.txt").symlink_to("real.txt")
    ok(box.execute("write_file", {"path": "alias.txt", "content": "new"}))
    assert (layout.work / "alias.txt").is_symlink()
    assert (layout.work / "real.txt").read_text() == "new"


def test_a_failed_write_leaves_the_old_file_and_no_temp(box, layout, monkeypatch):
    target = layout.work / "keep.txt"
    target.write_text("old")

    def broken_replace(src: str, dst: str, **dir_fds: object) -> None:
        raise OSError(28, "No space left on device", str(dst))

    monkeypatch.setattr(fs_write.os, "replace", broken_replace)
    message = err(box.execute("write_file", {"path": "keep.txt", "content": "new"}))
    monkeypatch.undo()
    assert "no space left" in message
    assert target.read_text() == "old"
    assert temp_files(layout.work) == []


def test_the_journal_records_before_and_commits_after(box, layout, journal):
    (layout.work / "j.txt").write_text("before")
    ok(box.execute("write_file", {"path": "j.txt", "content": "after"}, call_id="c1"))
    assert journal.kinds() == ["record", "commit"]
    call_id, tool, path, existed, content = journal.events[0][1]
    assert (call_id, tool, path, existed, content) == (
        "c1",
        "write_file",
        layout.work / "j.txt",
        True,
        b"before",
    )


def test_nothing_is_recorded_for_a_refused_write(box, layout, journal):
    err(box.execute("write_file", {"path": ".env", "content": "x"}))
    assert journal.events == []


def test_a_failed_write_is_recorded_then_discarded(box, layout, journal, monkeypatch):
    monkeypatch.setattr(write_module, "atomic_write", _raise_oserror)
    err(box.execute("write_file", {"path": "x.txt", "content": "x"}))
    assert journal.kinds() == ["record", "discard"]


def _raise_oserror(*_: object, **__: object) -> None:
    raise PermissionError(13, "Permission denied", "x")


# ---- create_directory -------------------------------------------------------------------


def test_create_directory_is_journaled_before_it_exists(box, layout, journal):
    ok(box.execute("create_directory", {"path": "made"}, call_id="c2"))
    assert journal.kinds() == ["record", "commit"]
    assert journal.events[0][1][:4] == ("c2", "create_directory", layout.work / "made", False)


def test_an_existing_folder_is_not_journaled(box, layout, journal):
    (layout.work / "there").mkdir()
    assert ok(box.execute("create_directory", {"path": "there"}))["created"] is False
    assert journal.events == []


def test_create_directory_over_a_file_fails(box, layout):
    (layout.work / "f").write_text("x")
    assert "not a folder" in err(box.execute("create_directory", {"path": "f"}))


# ---- delete_file ------------------------------------------------------------------------


def test_a_non_empty_folder_needs_recursive(box, layout):
    (layout.work / "d").mkdir()
    (layout.work / "d" / "x.txt").write_text("x")
    assert "recursive=true" in err(box.execute("delete_file", {"path": "d"}))
    assert (layout.work / "d" / "x.txt").exists()
    ok(box.execute("delete_file", {"path": "d", "recursive": True}))
    assert not (layout.work / "d").exists()


def test_an_empty_folder_needs_no_recursive(box, layout):
    (layout.work / "empty").mkdir()
    ok(box.execute("delete_file", {"path": "empty"}))
    assert not (layout.work / "empty").exists()


def test_without_a_trash_the_item_is_deleted(box, layout, test_trash):
    test_trash.fail = True
    (layout.work / "d" / "e").mkdir(parents=True)
    (layout.work / "d" / "e" / "f.txt").write_text("x")
    result = ok(box.execute("delete_file", {"path": "d", "recursive": True}))
    assert result["trashed"] is False and not (layout.work / "d").exists()


def test_a_missing_item_is_explained(box, layout):
    message = err(box.execute("delete_file", {"path": "ghost.txt"}))
    assert message == f"file or folder not found: {layout.work / 'ghost.txt'}"


def test_a_symlink_is_removed_as_a_link(box, layout, test_trash):
    (layout.outside / "target.txt").write_text("keep me")
    (layout.work / "link").symlink_to(layout.outside / "target.txt")
    result = ok(box.execute("delete_file", {"path": "link"}))
    assert result["trashed"] is False and test_trash.items == []
    assert not os.path.lexists(layout.work / "link")
    assert (layout.outside / "target.txt").read_text() == "keep me"


def test_a_dangling_symlink_can_be_deleted(box, layout):
    (layout.work / "dangling").symlink_to(layout.outside / "nothing")
    ok(box.execute("delete_file", {"path": "dangling"}))
    assert not os.path.lexists(layout.work / "dangling")


def test_delete_is_journaled(box, layout, journal):
    (layout.work / "gone.txt").write_text("data")
    ok(box.execute("delete_file", {"path": "gone.txt"}, call_id="c3"))
    assert journal.kinds() == ["record", "commit"]
    assert journal.events[0][1] == ("c3", "delete_file", layout.work / "gone.txt", True, b"data")


@pytest.mark.parametrize("raw", [".", "", "~", "..", "/"])
def test_roots_home_and_ancestors_are_never_deleted(box, policy_for, layout, raw):
    (layout.work / "x.txt").write_text("x")
    result = box.execute("delete_file", {"path": raw or str(layout.work), "recursive": True})
    assert result["success"] is False
    assert (layout.work / "x.txt").exists()


def test_the_home_folder_is_never_deleted_even_when_allowed(policy_for, layout, journal):
    from tray_app.tools.builtin.files import FILE_TOOLS
    from tray_app.tools.registry import ToolRegistry
    from tray_app.tools.toolbox import Toolbox

    inner_home = layout.work / "me"
    inner_home.mkdir()
    policy = policy_for(home=inner_home)
    box = Toolbox(policy, registry=ToolRegistry(FILE_TOOLS), journal=journal)
    assert "cannot be deleted" in err(box.execute("delete_file", {"path": "me", "recursive": True}))
    assert inner_home.is_dir()


# ---- previews ---------------------------------------------------------------------------


def test_write_preview_of_a_change_is_a_diff(box, layout):
    (layout.work / "p.txt").write_text("one\ntwo\nthree\n")
    preview = box.preview("write_file", {"path": "p.txt", "content": "one\n2\nthree\n"})
    assert preview["kind"] == "diff" and preview["exists"] is True
    assert preview["size_before"] == 14 and preview["size_after"] == 12
    assert "-two\n+2\n" in preview["text"] and preview["truncated"] is False
    assert (layout.work / "p.txt").read_text() == "one\ntwo\nthree\n"


def test_write_preview_of_a_new_file_shows_its_first_lines(box, layout):
    content = "".join(f"row {i}\n" for i in range(100))
    preview = box.preview("write_file", {"path": "new.txt", "content": content})
    assert preview["kind"] == "new_file" and preview["exists"] is False
    assert preview["size_before"] is None and preview["size_after"] == len(content)
    assert preview["text"].count("\n") == 40 and preview["truncated"] is True
    assert not (layout.work / "new.txt").exists()


def test_write_preview_is_bounded(box, layout):
    (layout.work / "big.txt").write_text("".join(f"old {i}\n" for i in range(20000)))
    content = "".join(f"new {i}\n" for i in range(20000))
    preview = box.preview("write_file", {"path": "big.txt", "content": content})
    assert len(preview["text"]) <= 20_000 and preview["truncated"] is True


def test_write_preview_of_a_binary_file_does_not_diff(box, layout):
    (layout.work / "b.bin").write_bytes(b"\x00\x01" * 100)
    preview = box.preview("write_file", {"path": "b.bin", "content": "text"})
    assert preview["kind"] == "diff" and "binary" in preview["text"]


def test_previews_refuse_what_the_tool_would_refuse(box, layout):
    assert box.preview("write_file", {"path": "/etc/x", "content": "x"})["kind"] == "error"
    assert box.preview("delete_file", {"path": "ghost"})["kind"] == "error"
    (layout.work / "full").mkdir()
    (layout.work / "full" / "x").write_text("x")
    assert box.preview("delete_file", {"path": "full"})["kind"] == "error"


def test_delete_preview_of_a_tree(box, layout):
    root = layout.work / "build"
    (root / "lib").mkdir(parents=True)
    (root / "lib" / "a.o").write_bytes(b"1234")
    (root / "out.txt").write_text("xy")
    preview = box.preview("delete_file", {"path": "build", "recursive": True})
    assert preview["kind"] == "tree" and preview["exists"] is True
    assert preview["count"] == 4 and preview["size"] == 6
    lines = preview["text"].splitlines()
    assert lines[0] == f"{root}{os.sep}"
    assert "  lib/" in lines and "    a.o  (4 bytes)" in lines
    assert root.exists()


def test_delete_preview_of_a_big_tree_is_bounded(box, layout):
    root = layout.work / "many"
    root.mkdir()
    for i in range(300):
        (root / f"f{i:03}").write_text("")
    preview = box.preview("delete_file", {"path": "many", "recursive": True})
    assert preview["count"] == 301 and preview["text"].count("\n") <= 202


def test_delete_preview_of_a_file_and_a_link(box, layout):
    (layout.work / "f.txt").write_text("abc")
    preview = box.preview("delete_file", {"path": "f.txt"})
    assert (preview["kind"], preview["exists"], preview["size"], preview["count"]) == (
        "file",
        True,
        3,
        1,
    )
    (layout.work / "l").symlink_to(layout.outside)
    assert "only the link" in box.preview("delete_file", {"path": "l"})["text"]


def test_create_preview(box, layout):
    assert box.preview("create_directory", {"path": "x/y"}) == {
        "tool": "create_directory",
        "kind": "path",
        "path": str(layout.work / "x" / "y"),
        "exists": False,
    }


def test_read_tools_have_no_preview(box, layout):
    assert box.preview("read_file", {"path": "x"})["kind"] == "none"


# ---- JSON data given as the content ---------------------------------------------


@pytest.mark.parametrize(
    ("content", "kind"),
    [
        ({"名前": "値 🙂", "n": [1, 2.5, None, True], "nested": {"a": {}}}, "object"),
        ([{"id": 1}, "\u202etxt.exe"], "array"),
    ],
)
def test_json_data_as_content_is_written_as_formatted_json_text(box, layout, content, kind):
    """Models writing JSON files pass the object itself (issue threads: qwen2.5-coder and
    llama3.x with write_file); it is written formatted, and both the model and the user are
    told, instead of the call being refused."""
    expected = json.dumps(content, indent=2, ensure_ascii=False)
    preview = box.preview("write_file", {"path": "data.json", "content": content})
    assert preview["kind"] == "new_file" and preview["json_content"] == kind
    assert preview["text"] == expected  # the approval shows exactly what is written
    assert preview["size_after"] == len(expected.encode())
    result = ok(box.execute("write_file", {"path": "data.json", "content": content}))
    assert (layout.work / "data.json").read_text(encoding="utf-8") == expected
    assert result["json_content"] == kind
    assert result["note"].startswith(f"content was given as a JSON {kind}, not a string")
    assert result["bytesWritten"] == len(expected.encode())


def test_json_content_over_an_existing_file_shows_the_diff_of_the_formatted_text(box, layout):
    ok(box.execute("write_file", {"path": "cfg.json", "content": '{"a": 1}'}))
    preview = box.preview("write_file", {"path": "cfg.json", "content": {"a": 2}})
    assert preview["kind"] == "diff" and preview["json_content"] == "object"
    assert '+  "a": 2' in preview["text"]


def test_a_plain_string_content_says_nothing_about_json(box, layout):
    result = ok(box.execute("write_file", {"path": "t.json", "content": "{}"}))
    assert "json_content" not in result and "note" not in result


def test_a_number_as_content_is_still_refused(box):
    assert "content" in err(box.execute("write_file", {"path": "w.txt", "content": 5}))
