"""search_files: globs, literal content search, filters and every cap."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tools.attack_helpers import err, ok
from tray_app.tools.base import ToolContext
from tray_app.tools.builtin.search_files import SearchFilesArgs, search_files

# ---- search_files details ---------------------------------------------------------------


def test_a_plain_name_query_matches_part_of_a_name(box, layout, project):
    result = ok(
        box.execute("search_files", {"path": ".", "query": "MAIN", "search_type": "filename"})
    )
    found = sorted(Path(r["path"]).name for r in result["results"])
    assert found == ["main", "main.ts"]


def test_globs_with_folders_in_them(box, layout, project):
    query = {"path": ".", "query": "**/*.md", "search_type": "filename"}
    assert [Path(r["path"]).name for r in ok(box.execute("search_files", query))["results"]] == [
        "README.md"
    ]
    query = {"path": ".", "query": "src/main/*.ts", "search_type": "filename"}
    found = {Path(r["path"]).name for r in ok(box.execute("search_files", query))["results"]}
    assert found == {"main.ts", "ipc.ts"}


def test_content_search_is_literal_not_a_regex(box, layout):
    (layout.work / "r.txt").write_text("a.b\naxb\n(((a+)+)+$\n")
    result = ok(
        box.execute("search_files", {"path": ".", "query": "a.b", "search_type": "content"})
    )
    assert [m["line"] for m in result["results"][0]["matches"]] == [1]
    evil = ok(
        box.execute("search_files", {"path": ".", "query": "(((a+)+)+$", "search_type": "content"})
    )
    assert evil["results"][0]["matches"][0]["line"] == 3


def test_case_sensitivity(box, layout):
    (layout.work / "c.txt").write_text("Hello\nhello\n")
    insensitive = ok(box.execute("search_files", {"path": ".", "query": "HELLO"}))
    assert insensitive["total_matches"] == 2
    sensitive = ok(
        box.execute("search_files", {"path": ".", "query": "hello", "case_sensitive": True})
    )
    assert [m["line"] for m in sensitive["results"][0]["matches"]] == [2]


def test_file_extensions_filter(box, layout, project):
    result = ok(
        box.execute(
            "search_files",
            {"path": ".", "query": "electron", "search_type": "content", "file_extensions": ["js"]},
        )
    )
    assert [Path(r["path"]).name for r in result["results"]] == ["app.js"]


def test_at_most_ten_matches_per_file_and_max_results_overall(box, layout):
    (layout.work / "many.txt").write_text("needle\n" * 50)
    (layout.work / "more.txt").write_text("needle\n" * 50)
    result = ok(
        box.execute("search_files", {"path": ".", "query": "needle", "search_type": "content"})
    )
    assert [len(r["matches"]) for r in result["results"]] == [10, 10]
    capped = ok(
        box.execute(
            "search_files",
            {"path": ".", "query": "needle", "search_type": "content", "max_results": 3},
        )
    )
    assert capped["total_matches"] == 3 and capped["truncated"] is True


def test_files_over_500_kb_and_binary_files_are_skipped(box, layout):
    (layout.work / "big.txt").write_bytes(b"needle\n" + b"x" * (600 * 1024))
    (layout.work / "bin.dat").write_bytes(b"\x00needle")
    (layout.work / "small.txt").write_text("needle")
    result = ok(
        box.execute("search_files", {"path": ".", "query": "needle", "search_type": "content"})
    )
    assert [Path(r["path"]).name for r in result["results"]] == ["small.txt"]


def test_long_lines_are_shown_around_the_match(box, layout):
    (layout.work / "min.js").write_text("x" * 5000 + "needle" + "y" * 5000)
    result = ok(
        box.execute("search_files", {"path": ".", "query": "needle", "search_type": "content"})
    )
    match = result["results"][0]["matches"][0]
    assert "needle" in match["text"] and len(match["text"]) < 260
    assert match["column"] == 5001


def test_the_scan_stops_after_1000_files(box, layout):
    for i in range(1100):
        (layout.work / f"f{i:04}.txt").write_text("nothing")
    result = ok(box.execute("search_files", {"path": ".", "query": "needle"}))
    assert result["files_scanned"] == 1000 and result["truncated"] is True


def test_a_name_only_search_is_not_held_to_the_content_cap(box, layout):
    for i in range(1100):
        (layout.work / f"f{i:04}.txt").write_text("nothing")
    result = ok(
        box.execute("search_files", {"path": ".", "query": "f1099*", "search_type": "filename"})
    )
    assert [Path(r["path"]).name for r in result["results"]] == ["f1099.txt"]
    assert result["truncated"] is False and result["files_scanned"] == 1100


def test_search_can_be_cancelled(layout, policy):
    for i in range(20):
        (layout.work / f"f{i}.txt").write_text("needle")
    context = ToolContext(policy=policy)
    context.cancel.set()
    args = SearchFilesArgs(path=".", query="needle")
    result = search_files(context, args)
    assert result["truncated"] is True and result["results"] == []


def test_search_in_a_single_file(box, layout):
    (layout.work / "one.txt").write_text("alpha\nneedle\n")
    result = ok(box.execute("search_files", {"path": "one.txt", "query": "needle"}))
    assert result["results"][0]["matches"][0]["line"] == 2


def test_queries_too_long_or_empty_fail_validation(box, layout):
    assert "query" in err(box.execute("search_files", {"path": ".", "query": ""}))
    assert "query" in err(box.execute("search_files", {"path": ".", "query": "x" * 501}))


@pytest.mark.timeout(30)
def test_a_pathological_glob_ends(box, layout):
    """A backtracking matcher takes exponential time on this pattern: the test times out."""
    (layout.work / ("a" * 200)).write_text("x")
    result = ok(
        box.execute(
            "search_files", {"path": ".", "query": "*a" * 40 + "b", "search_type": "filename"}
        )
    )
    assert result["results"] == []
