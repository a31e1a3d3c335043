"""The approval panel: its facts line up in two columns, and the change it asks about is shown
once (in the panel), not again on the card in the chat."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama, text_turn, tool_turn
from tests.web.conftest import AppFactory, open_card

pytestmark = pytest.mark.web

APPROVE = "#approval button[data-decision=approve]"


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_the_facts_line_up_and_the_preview_is_shown_once(
    make_app: AppFactory, fake_ollama: FakeOllama, theme: str, lang: str
) -> None:
    app = make_app(fake_ollama, theme=theme, language=lang, viewport=(460, 660))
    target = app.workspace / "配置 ⚙ settings.ini"
    target.write_text("port = 3000\n", encoding="utf-8")
    fake_ollama.script(
        tool_turn([("write_file", {"path": str(target), "content": "port = 3001\n调试 = 开\n"})]),
        text_turn("OK"),
    )
    app.send("change the port")
    page = app.page
    expect(page.locator(APPROVE)).to_be_enabled()
    facts = page.locator("#approval .ap-facts")
    # Path, effect, size change: labels of different widths, values at one edge.
    lefts = facts.evaluate(
        """dl => [...dl.querySelectorAll('dd')].filter((dd) => dd.offsetParent)
          .map((dd) => Math.round(dd.getBoundingClientRect().left))"""
    )
    assert len(lefts) >= 3 and len(set(lefts)) == 1, lefts
    labels = facts.evaluate(
        """dl => [...dl.querySelectorAll('dt')].filter((dt) => dt.offsetParent)
          .map((dt) => Math.round(dt.getBoundingClientRect().left))"""
    )
    assert len(set(labels)) == 1, labels
    # Every value sits on its label's line.
    assert facts.evaluate(
        """dl => [...dl.querySelectorAll('dt')].filter((dt) => dt.offsetParent).every((dt) =>
          Math.abs(dt.getBoundingClientRect().top
            - dt.nextElementSibling.getBoundingClientRect().top) < 4)"""
    )
    # The diff once: in the panel, not on the card waiting for it.
    expect(page.locator("#approval .ap-preview .diff")).to_have_count(1)
    card = page.locator(".tool-card")
    expect(card.locator(".diff")).to_have_count(0)
    expect(card.locator(".tc-foot button")).to_be_visible()  # Review: where the diff is
    page.click(APPROVE)
    expect(page.locator(".msg.assistant .content").last).to_have_text("OK")
    open_card(card)
    expect(card.locator(".diff")).to_have_count(1)  # after the fact the card keeps it
    assert app.page_errors == []
