"""Writes only in encodings that give every byte back: ``unicode_escape`` turned a whole file
into one line of literal ``\\n``, ``utf-7`` and ``iso2022_jp`` rewrote bytes outside the edit,
while the approved diff showed one changed line. Now they are refused for writing (reading with
them still works), a file whose bytes do not survive a read and a write in its encoding is not
edited, and what is written reads back as exactly the text the preview showed."""

from __future__ import annotations

from typing import Any

import pytest

from tests.tools.attack_helpers import err, ok
from tray_app.tools.fs.text_codec import NOT_WRITABLE
from tray_app.tools.toolbox import Toolbox

ESCAPING = ["unicode_escape", "raw_unicode_escape", "utf-7", "UTF7", "iso2022_jp", "hz"]
BODY = "line one: \\u0041 \\n\nline two\nline three\n"


def edit(old: str, new: str) -> dict[str, str]:
    return {"old_text": old, "new_text": new}


@pytest.mark.parametrize("encoding", ESCAPING)
def test_an_encoding_that_rewrites_bytes_is_refused_for_edits(
    box: Toolbox, layout: Any, encoding: str
) -> None:
    target = layout.work / "plain.txt"
    target.write_bytes(BODY.encode("ascii"))
    args = {"path": "plain.txt", "edits": [edit("line two", "line 2")], "encoding": encoding}
    preview = box.preview("edit_file", args)
    assert preview["kind"] == "error" and preview["code"] == "encoding_not_writable", preview
    assert "utf-8" in preview["params"]["encodings"] and "latin1" in preview["params"]["encodings"]
    message = err(box.execute("edit_file", args))
    assert "does not write text back byte for byte" in message and "cp1252" in message
    assert target.read_bytes() == BODY.encode("ascii")
    read = ok(box.execute("read_file", {"path": "plain.txt", "encoding": encoding}))
    assert "line three" in read["content"]  # reading with it is still allowed


@pytest.mark.parametrize("encoding", ESCAPING)
def test_an_encoding_that_rewrites_bytes_is_refused_for_writes(
    box: Toolbox, layout: Any, encoding: str
) -> None:
    args = {"path": "new.txt", "content": "一\n二 ~ +\n", "encoding": encoding}
    assert box.preview("write_file", args)["code"] == "encoding_not_writable"
    assert "does not write text back" in err(box.execute("write_file", args))
    assert not (layout.work / "new.txt").exists()


def test_every_refused_codec_exists() -> None:
    import codecs

    for name in NOT_WRITABLE:
        assert codecs.lookup(name).name.replace("-", "_") == name


def test_a_file_whose_bytes_do_not_survive_its_encoding_is_not_edited(
    box: Toolbox, layout: Any
) -> None:
    """cp932 reads NEC's and JIS's "because" (0x879A, 0x81E6) as one character and writes back
    only JIS's: an edit on the first line would have changed the third."""
    target = layout.work / "memo.txt"
    original = b"total = 1\r\n\x93\xfa\x96\x7b\r\n\x87\x9a ok\r\n"
    target.write_bytes(original)
    args = {"path": "memo.txt", "edits": [edit("total = 1", "total = 2")], "encoding": "cp932"}
    refused = box.preview("edit_file", args)
    assert refused["code"] == "encoding_changes_bytes" and refused["params"]["byte"] == 17
    assert "from byte 17" in err(box.execute("edit_file", args))
    assert target.read_bytes() == original
    ok(box.execute("edit_file", {**args, "encoding": "latin1"}))  # keeps every byte
    assert target.read_bytes() == original.replace(b"total = 1", b"total = 2")


@pytest.mark.parametrize(
    ("encoding", "text"),
    [
        ("shift_jis", "日本語のテキスト\r\n二行目 〜\r\n三行目\r\n"),
        ("gbk", "第一行：中文\n第二行\n第三行 ￥\n"),
        ("big5", "第一行\n第二行\n第三行\n"),
        ("cp1252", "caf\u00e9 \u20ac\nna\u00efve\nend\n"),
        ("euc-kr", "첫째 줄\n둘째 줄\n셋째 줄\n"),
    ],
)
def test_what_is_written_is_exactly_what_the_preview_showed(
    box: Toolbox, layout: Any, encoding: str, text: str
) -> None:
    target = layout.work / "doc.txt"
    original = text.encode(encoding)
    target.write_bytes(original)
    second = text.replace("\r\n", "\n").split("\n")[1]
    args = {"path": "doc.txt", "edits": [edit(second, "改 ✓")], "encoding": encoding}
    preview = box.preview("edit_file", args)
    if preview["kind"] == "error":
        assert preview["code"] == "unencodable_text"  # ✓ has no bytes in this code page
        args = {**args, "edits": [edit(second, "2")]}
        preview = box.preview("edit_file", args)
    assert preview["kind"] == "diff", preview
    new_line = args["edits"][0]["new_text"]
    assert f"-{second}\n+{new_line}\n" in preview["text"]
    ok(box.execute("edit_file", args))
    assert target.read_bytes() == original.replace(
        second.encode(encoding), new_line.encode(encoding)
    )
