"""A page of a longer search on its card, in a real browser against the real search tool: which
matches it shows, and of how many once the last page is reached (English and Chinese)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import text_turn, tool_turn
from tests.web.conftest import open_card

pytestmark = pytest.mark.web


@pytest.mark.parametrize(
    ("language", "first", "last"),
    [
        ("en", "showing matches 1–4", "showing matches 9–9 of 9"),
        ("zh-CN", "显示第 1–4 处匹配", "显示第 9–9 处匹配（共 9 处）"),
    ],
)
def test_a_search_page_card_says_which_matches_it_shows(
    make_app: Any, fake_ollama: Any, language: str, first: str, last: str
) -> None:
    app = make_app(fake_ollama, language=language)
    ws = app.workspace
    for index, name in enumerate(["数据 🙂.txt", "\u202etxt.b", "c.txt"]):
        lines = [f"needle {index}.{k} 数据 \u202e🙂" for k in range(3)]
        (ws / name).write_text("\n".join(["x", *lines]) + "\n")
    query = {"path": str(ws), "query": "needle", "search_type": "content", "max_results": 4}
    app.fake.script(
        tool_turn([("search_files", query)]),
        tool_turn([("search_files", {**query, "offset": 8})]),
        text_turn("Searched."),
    )
    app.send("Find the needles")
    page = app.page
    expect(page.locator(".msg.assistant .content").last).to_have_text("Searched.")
    cards = page.locator(".tool-card")
    expect(cards).to_have_count(2)
    for card in (cards.nth(0), cards.nth(1)):
        open_card(card)
    expect(cards.nth(0).locator(".tc-meta .page")).to_have_text(f" · {first}")
    expect(cards.nth(0).locator(".hit")).to_have_count(4)
    expect(cards.nth(1).locator(".tc-meta .page")).to_have_text(f" · {last}")
    expect(cards.nth(1).locator(".hit")).to_have_count(1)
    # a name or a line with a bidi override cannot pass for another: the control is shown
    hits = cards.nth(0).locator(".hit")
    expect(hits.nth(3).locator(".hit-path")).to_have_text("⟨U+202E⟩txt.b:2")
    expect(hits.nth(3).locator(".hit-text")).to_have_text("needle 1.0 数据 ⟨U+202E⟩🙂")
    assert app.page_errors == []
