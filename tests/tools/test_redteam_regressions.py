"""Focused regression tests for what the red-team corpus (``test_redteam_corpus.py``) found."""

from __future__ import annotations

from tray_app.tools.base import Toolbox


def test_deeply_nested_json_arguments_are_refused_not_raised(box: Toolbox) -> None:
    # json.loads raises RecursionError (not a ValueError) on "[[[[..." nested 100 000 deep.
    for raw in ("[" * 100_000, '{"path": ' + "[" * 50_000 + "]" * 50_000 + "}"):
        for name in ("read_file", "write_file"):
            result = box.execute(name, raw)
            assert result["success"] is False
            assert "nested too deeply" in result["error"]
            assert box.preview(name, raw)["kind"] == "error"


def test_infinite_numbers_are_clamped_not_raised(box: Toolbox, layout) -> None:
    # JSON "Infinity" and "1e999" parse to float('inf'); int(inf) raised OverflowError.
    (layout.work / "a.txt").write_text("one\ntwo\n")
    result = box.execute(
        "read_file", '{"path": "a.txt", "start_line": -Infinity, "end_line": 1e999}'
    )
    assert result["success"] is True and result["content"] == "one\ntwo\n"
    listing = box.execute("list_directory", {"path": ".", "recursive": True, "max_depth": 1e999})
    assert listing["success"] is True
    found = box.execute("search_files", '{"path": ".", "query": "two", "max_results": Infinity}')
    assert found["success"] is True and found["total_matches"] == 1
    nan = box.execute("read_file", {"path": "a.txt", "start_line": float("nan")})
    assert nan["success"] is False and "finite" in nan["error"]
