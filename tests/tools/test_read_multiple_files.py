"""read_multiple_files: each file answered on its own, one budget for all."""

from __future__ import annotations

import codecs
import json

from tests.tools.attack_helpers import SECRET, err, ok
from tray_app.tools.builtin import read_many


def test_r01_several_files_each_with_its_result(box, layout):
    (layout.work / "一.txt").write_text("第一\n")
    (layout.work / "two.md").write_bytes(codecs.BOM_UTF16_LE + "two 🎈\r\n".encode("utf-16-le"))
    result = ok(box.execute("read_multiple_files", {"paths": ["一.txt", "two.md"]}))
    first, second = result["files"]
    assert first["content"] == "第一\n" and first["path"] == str(layout.work / "一.txt")
    assert second["content"] == "two 🎈\r\n" and second["encoding"] == "utf-16le"
    assert result["read"] == 2 and result["failed"] == 0


def test_r02_one_failure_does_not_stop_the_rest(box, layout):
    (layout.work / "ok.txt").write_text("fine\n")
    (layout.work / ".env").write_text(f"KEY={SECRET}\n")
    (layout.work / "bin").write_bytes(b"\x00\x01")
    paths = ["missing.txt", ".env", "ok.txt", "bin", "../outside/x", "ok.txt"]
    result = ok(box.execute("read_multiple_files", {"paths": paths}))
    outcomes = [f["success"] for f in result["files"]]
    assert outcomes == [False, False, True, False, False, True]
    assert "not found" in result["files"][0]["error"]
    assert "secret" in result["files"][1]["error"]
    assert "binary" in result["files"][3]["error"]
    assert SECRET not in json.dumps(result)
    assert result["read"] == 2 and result["failed"] == 4


def test_r03_all_failing_is_a_failure(box, layout):
    result = box.execute("read_multiple_files", {"paths": ["a", "b"]})
    assert "none of the files" in err(result) and len(result["files"]) == 2


def test_r04_the_total_is_bounded_and_says_where_to_continue(box, layout):
    line = "漢字かな 🎌 " * 5 + "\n"
    for n in range(4):
        (layout.work / f"big{n}.txt").write_text(line * 400)
    result = ok(box.execute("read_multiple_files", {"paths": [f"big{n}.txt" for n in range(4)]}))
    total = sum(len(json.dumps(f["content"], ensure_ascii=False)) - 2 for f in result["files"])
    assert total <= read_many.CONTENT_BUDGET
    assert len(json.dumps(result, ensure_ascii=False)) < 16_000  # the default tool_result_limit
    for entry in result["files"]:
        assert entry["truncated"] is True and entry["content"].endswith("\n")  # whole lines
        kept = entry["content"].count("\n")
        assert entry["line_range"] == [1, kept] and entry["next_start_line"] == kept + 1
        assert kept > 0


def test_r05_a_single_string_is_mended_and_the_count_is_capped(box, layout):
    (layout.work / "a.txt").write_text("a")
    assert ok(box.execute("read_multiple_files", {"paths": "a.txt"}))["read"] == 1
    too_many = {"paths": ["a.txt"] * (read_many.MAX_FILES + 1)}
    assert "invalid arguments" in err(box.execute("read_multiple_files", too_many))


def test_r06_escapes_count_against_the_budget(box, layout):
    (layout.work / "tabs.txt").write_text(("\t" * 20 + "\n") * 400)  # 8,400 characters
    result = ok(box.execute("read_multiple_files", {"paths": ["tabs.txt"]}))
    entry = result["files"][0]
    assert len(json.dumps(entry["content"])) - 2 <= read_many.CONTENT_BUDGET  # 16,800 as JSON
    assert entry["truncated"] is True and 250 < entry["next_start_line"] < 400
