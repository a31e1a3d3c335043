"""search_files pages: ``offset`` skips matches, ``next_offset`` says where the next page
starts, and the pages together are the whole search, each match once, in the walk's order."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.tools.attack_helpers import ok
from tray_app.cli.terminal_render import result_summary
from tray_app.tools.base import ToolContext
from tray_app.tools.builtin.search_files import SearchFilesArgs, search_files

LINES = ["needle 数据 {n}", "🙂 needle {n}", "\u202eeldeen needle {n}", "x" * 300 + " needle {n}"]


def build(root: Path) -> None:
    for index, folder in enumerate(["", "深", "b/🙂"]):
        where = root / folder
        where.mkdir(parents=True, exist_ok=True)
        for f in range(3):
            text = "\n".join(line.format(n=f"{index}.{f}.{k}") for k, line in enumerate(LINES))
            (where / f"needle {f} 数据.txt").write_text("other\n" + text + "\n")
        (where / ".env").write_text("needle=secret\n")


def flat(result: dict[str, Any]) -> list[tuple[str, int]]:
    return [(r["path"], m["line"]) for r in result["results"] for m in r["matches"]]


def pages(box: Any, query: dict[str, Any]) -> tuple[list[tuple[str, int]], list[dict[str, Any]]]:
    seen: list[tuple[str, int]] = []
    answers = []
    offset = 0
    for _ in range(200):
        answer = ok(box.execute("search_files", {**query, "offset": offset}))
        answers.append(answer)
        seen += flat(answer)
        if "next_offset" not in answer:
            return seen, answers
        assert answer["next_offset"] > offset, answer
        offset = answer["next_offset"]
    raise AssertionError("the pages never ended")


def test_pages_of_a_search_are_the_whole_search_once(box: Any, layout: Any) -> None:
    build(layout.work)
    for search_type in ("content", "filename", "both"):
        query = {"path": ".", "query": "needle", "search_type": search_type}
        whole = ok(box.execute("search_files", {**query, "max_results": 200}))
        assert not whole["truncated"] and "next_offset" not in whole
        for size in (1, 2, 5, 7):
            seen, answers = pages(box, {**query, "max_results": size})
            assert seen == flat(whole), (search_type, size)
            assert all(a["total_matches"] <= size for a in answers)
            assert answers[-1].get("offset", 0) == sum(a["total_matches"] for a in answers[:-1])
        assert all(".env" not in path for path, _ in flat(whole))


def test_a_page_that_does_not_fit_goes_on_where_it_was_cut(layout: Any, policy: Any) -> None:
    build(layout.work)
    ctx = ToolContext(policy=policy, result_chars=1500)
    query = {"path": str(layout.work), "query": "needle", "search_type": "content"}
    whole = search_files(ToolContext(policy=policy), SearchFilesArgs(**query, max_results=200))
    seen: list[tuple[str, int]] = []
    offset, cut = 0, False
    for _ in range(200):
        answer = search_files(ctx, SearchFilesArgs(**query, max_results=20, offset=offset))
        cut = cut or bool(answer.get("matches_omitted"))
        seen += flat(answer)
        if "next_offset" not in answer:
            break
        offset = answer["next_offset"]
    assert cut  # the room really cut pages short
    assert seen == flat(whole)


def test_an_offset_past_the_end_is_an_empty_last_page(box: Any, layout: Any) -> None:
    build(layout.work)
    query = {"path": ".", "query": "needle", "search_type": "content", "offset": 999}
    answer = ok(box.execute("search_files", query))
    assert answer["results"] == [] and answer["total_matches"] == 0
    assert "next_offset" not in answer and answer["offset"] == 999


def test_the_terminal_says_which_matches_a_page_shows() -> None:
    page = {
        "success": True,
        "results": [{"path": "/w/a 数据.txt", "matches": [{"line": 1}, {"line": 2}]}],
        "total_matches": 2,
        "offset": 3,
        "next_offset": 5,
        "truncated": True,
    }
    assert result_summary(page) == "matches 4-5; next from offset 5"
    assert result_summary(page, "zh-CN") == "第 4-5 处匹配；下一页从 offset 5 开始"
    last = {**page, "truncated": False}
    del last["next_offset"]
    assert result_summary(last) == "matches 4-5 of 5"
    assert result_summary(last, "zh-CN") == "第 4-5 处匹配（共 5 处）"
    assert result_summary({**last, "results": [], "total_matches": 0}) == "no matches after 3"
