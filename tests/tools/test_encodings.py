"""Encodings: read_file detects a BOM and takes codec names; write_file keeps an
existing file's encoding, BOM and CRLF; the codec helpers on their own."""

from __future__ import annotations

import codecs

import pytest

from tests.tools.attack_helpers import err, ok
from tray_app.tools.fs import text_codec

TEXT = "héllo 世界 🌍\r\nline two\r\n"


@pytest.mark.parametrize(
    ("data", "label"),
    [
        (codecs.BOM_UTF8 + TEXT.encode(), "utf-8"),
        (codecs.BOM_UTF16_LE + TEXT.encode("utf-16-le"), "utf-16le"),
        (codecs.BOM_UTF16_BE + TEXT.encode("utf-16-be"), "utf-16be"),
        (codecs.BOM_UTF32_LE + TEXT.encode("utf-32-le"), "utf-32le"),
    ],
)
def test_read_detects_the_bom(box, layout, data, label):
    (layout.work / "bom.txt").write_bytes(data)
    result = ok(box.execute("read_file", {"path": "bom.txt"}))
    assert result["content"] == TEXT and result["encoding"] == label
    assert result["bom"] is True and result["line_endings"] == "crlf" and result["lines"] == 2


@pytest.mark.parametrize(
    ("asked", "data", "expected"),
    [
        ("utf-16", TEXT.encode("utf-16-le"), TEXT),
        ("UTF16", TEXT.encode("utf-16"), TEXT),
        ("latin1", "café".encode("latin-1"), "café"),
        ("cp1252", "“quoted” €".encode("cp1252"), "“quoted” €"),
        ("shift_jis", "日本語".encode("shift_jis"), "日本語"),
    ],
)
def test_read_with_a_named_encoding(box, layout, asked, data, expected):
    (layout.work / "enc.txt").write_bytes(data)
    assert (
        ok(box.execute("read_file", {"path": "enc.txt", "encoding": asked}))["content"] == expected
    )


def test_unknown_or_non_text_encodings_are_refused(box, layout):
    (layout.work / "a.txt").write_text("a")
    for name in ("klingon", "hex", "zlib", "rot13"):
        assert "invalid arguments" in err(
            box.execute("read_file", {"path": "a.txt", "encoding": name})
        )


def test_utf16_asked_for_ascii_bytes_is_refused_not_garbled(box, layout):
    (layout.work / "a.txt").write_text("plain ascii\n")
    assert "not UTF-16" in err(box.execute("read_file", {"path": "a.txt", "encoding": "utf-16"}))


@pytest.mark.parametrize(
    "original",
    [
        codecs.BOM_UTF16_LE + "旧\r\n内容\r\n".encode("utf-16-le"),
        codecs.BOM_UTF8 + "旧\r\n内容\r\n".encode(),
        "旧\r\n内容\r\n".encode(),
    ],
)
def test_write_keeps_encoding_bom_and_crlf(box, layout, original):
    target = layout.work / "keep.txt"
    target.write_bytes(original)
    fmt = text_codec.sniff(original)
    ok(box.execute("write_file", {"path": "keep.txt", "content": "新\n内容 ✓\n"}))
    assert target.read_bytes() == fmt.bom + "新\r\n内容 ✓\r\n".encode(fmt.codec)
    preview = box.preview("write_file", {"path": "keep.txt", "content": "新\n内容 ✓\n"})
    assert "-新\n" not in preview["text"] and "+新\n" not in preview["text"]  # no CR noise


def test_write_with_a_named_encoding_and_new_files_stay_utf8(box, layout):
    ok(box.execute("write_file", {"path": "w16.txt", "content": "a\n", "encoding": "utf-16"}))
    assert (layout.work / "w16.txt").read_bytes() == codecs.BOM_UTF16_LE + "a\n".encode("utf-16-le")
    ok(box.execute("write_file", {"path": "new.txt", "content": "ü\r\n"}))
    assert (layout.work / "new.txt").read_bytes() == "ü\r\n".encode()
    assert "not valid in LATIN1" in err(
        box.execute("write_file", {"path": "l.txt", "content": "日本", "encoding": "latin1"})
    )


def test_newline_detection_and_round_trip():
    assert text_codec.newline_of("a\r\nb\r\nc\n") == "\r\n"
    assert text_codec.newline_of("a\nb\nc\r\n") == "\n"
    text, fmt = text_codec.decode(codecs.BOM_UTF16_BE + "x\r\n".encode("utf-16-be"))
    assert text_codec.encode(text, fmt) == codecs.BOM_UTF16_BE + "x\r\n".encode("utf-16-be")


def test_search_finds_text_in_utf16_files(box, layout):
    (layout.work / "win.log").write_bytes(
        codecs.BOM_UTF16_LE + "ok\r\n错误 E42\r\n".encode("utf-16-le")
    )
    result = ok(
        box.execute("search_files", {"path": ".", "query": "错误", "search_type": "content"})
    )
    assert [m["line"] for m in result["results"][0]["matches"]] == [2]


def test_write_then_undo_restores_a_utf16_crlf_file_byte_for_byte(layout, tmp_path):
    from tray_app.tools.builtin.files import FILE_TOOLS
    from tray_app.tools.journal.journal import Journal
    from tray_app.tools.registry import ToolRegistry
    from tray_app.tools.sandbox.policy import SandboxPolicy
    from tray_app.tools.toolbox import Toolbox

    journal = Journal(tmp_path / "journal")
    policy = SandboxPolicy(allowed_dirs=[layout.work], workspace=layout.work, home=layout.home)
    box = Toolbox(policy, registry=ToolRegistry(FILE_TOOLS), journal=journal)
    target = layout.work / "Windows 文件.txt"
    original = codecs.BOM_UTF16_LE + "第一行\r\nzwei\r\n".encode("utf-16-le")
    target.write_bytes(original)
    ok(box.execute("write_file", {"path": target.name, "content": "新的\n内容\n"}, call_id="w"))
    assert target.read_bytes() == codecs.BOM_UTF16_LE + "新的\r\n内容\r\n".encode("utf-16-le")
    assert journal.undo("w")["success"] is True
    assert target.read_bytes() == original


def test_an_edit_in_a_file_with_mixed_line_endings_keeps_every_other_byte(box, layout):
    target = layout.work / "mixed.txt"
    original = b"crlf line\r\nlf line\nlast crlf\r\n"
    target.write_bytes(original)
    args = {"path": "mixed.txt", "edits": [{"old_text": "lf line\n", "new_text": "LF 行\n"}]}
    ok(box.execute("edit_file", args))
    assert target.read_bytes() == b"crlf line\r\n" + "LF 行\n".encode() + b"last crlf\r\n"
