"""The export file's default name and its atomic write."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tray_app.base.errors import ExportFailed
from tray_app.desktop.popup.export_file import default_name, export_text, write_export


def test_the_default_name_keeps_cjk_and_emoji_and_drops_what_a_path_cannot_hold() -> None:
    title = "季度\u202e报告/草稿\x00 🎉:*?\u200f  final "
    assert default_name(title, "markdown") == "季度报告草稿 🎉 final.md"
    assert default_name(title, "json").endswith(".json")


@pytest.mark.parametrize("title", [None, "", "///", " . ", "\u202e\u202c"])
def test_a_title_with_nothing_usable_gives_chat(title: str | None) -> None:
    assert default_name(title, "markdown") == "chat.md"


def test_a_long_title_is_cut() -> None:
    assert len(default_name("长" * 1000, "json")) == 80 + len(".json")


def test_the_write_replaces_a_file_whole_and_leaves_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "对话 💬.json"
    target.write_text("old", encoding="utf-8")
    write_export(target, export_text({"title": "你好 👋", "n": 1}))
    assert target.read_text(encoding="utf-8") == '{\n  "title": "你好 👋",\n  "n": 1\n}\n'
    assert [p.name for p in tmp_path.iterdir()] == [target.name]
    assert os.stat(target).st_mode & 0o077 == 0, "a chat export is private to the user"


def test_a_folder_that_is_not_there_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(ExportFailed) as caught:
        write_export(tmp_path / "nope" / "a.md", "x")
    assert str(caught.value).startswith("cannot write ") and "\n" not in str(caught.value)


def test_a_read_only_folder_is_one_line_and_the_old_file_stays(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root writes into read-only folders")
    target = tmp_path / "a.md"
    target.write_text("old", encoding="utf-8")
    tmp_path.chmod(0o500)
    try:
        with pytest.raises(ExportFailed, match="cannot write"):
            write_export(target, "new")
    finally:
        tmp_path.chmod(0o700)
    assert target.read_text(encoding="utf-8") == "old"
