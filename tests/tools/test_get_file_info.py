"""get_file_info and list_allowed_directories."""

from __future__ import annotations

import codecs

from tests.tools.attack_helpers import err, ok


def test_i01_a_text_file(box, layout):
    target = layout.work / "說明 📘.txt"
    target.write_bytes(codecs.BOM_UTF16_LE + "一\r\n二\r\n三".encode("utf-16-le"))
    target.chmod(0o640)
    info = ok(box.execute("get_file_info", {"path": target.name}))
    assert info["type"] == "file" and info["size"] == len(target.read_bytes())
    assert info["permissions"] == "-rw-r-----" and info["mode"] == "0o640"
    assert info["text"] is True and info["lines"] == 3
    assert (info["encoding"], info["bom"], info["line_endings"]) == ("utf-16le", True, "crlf")
    assert info["modified"].endswith("Z")


def test_i02_binary_folder_and_link(box, layout):
    (layout.work / "b.bin").write_bytes(b"\x00\x01\x02")
    assert ok(box.execute("get_file_info", {"path": "b.bin"}))["text"] is False
    (layout.work / "d").mkdir()
    (layout.work / "d" / "x").write_text("")
    folder = ok(box.execute("get_file_info", {"path": "d"}))
    assert folder["type"] == "directory" and folder["entries"] == 1


def test_i03_refusals(box, layout):
    (layout.work / ".env").write_text("x")
    assert "secret" in err(box.execute("get_file_info", {"path": ".env"}))
    assert "not found" in err(box.execute("get_file_info", {"path": "nope"}))
    assert "outside" in err(box.execute("get_file_info", {"path": str(layout.outside)}))


def test_l01_allowed_directories(box, layout):
    result = ok(box.execute("list_allowed_directories", {}))
    assert result["directories"] == [str(layout.work)]
    assert result["workspace"] == str(layout.work)
    assert ok(box.execute("list_allowed_directories", None))["directories"] == [str(layout.work)]
