"""A finished edit's card says what it did ("Edited: 1 replacement, +3 −1 lines"), as a write's
says "Created (39 B)", not just "Done"."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama, text_turn, tool_turn
from tests.web.conftest import AppFactory, open_card

pytestmark = pytest.mark.web

NEW = "一\n二 🎉\n+++ 三"
APPROVE = "#approval button[data-decision=approve]"
SAID = {
    "en": ("Edited: 1 replacement, +3 −1 lines", "Edited: 2 replacements, +2 −2 lines"),
    "zh-CN": ("已编辑：1 处替换，+3 −1 行", "已编辑：2 处替换，+2 −2 行"),
}


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_an_edit_card_says_what_was_edited(
    make_app: AppFactory, fake_ollama: FakeOllama, lang: str
) -> None:
    app = make_app(fake_ollama, language=lang, viewport=(460, 660))
    target = app.workspace / "笔记 📝.md"
    # A line that itself starts with "--" must count as one removed line, not a file header.
    target.write_text("# 标题\n--- 旧的分隔 ---\nkeep\nalpha = 1\nbeta = 2\n", encoding="utf-8")
    fake_ollama.script(
        tool_turn(
            [
                (
                    "edit_file",
                    {
                        "path": str(target),
                        "edits": [
                            {"old_text": "--- 旧的分隔 ---", "new_text": "一\n二 🎉\n+++ 三"}
                        ],
                    },
                )
            ]
        ),
        tool_turn(
            [
                (
                    "edit_file",
                    {
                        "path": str(target),
                        "edits": [
                            {"old_text": "alpha = 1", "new_text": "alpha = 10"},
                            {"old_text": "beta = 2", "new_text": "beta = 20"},
                        ],
                    },
                )
            ]
        ),
        text_turn("OK"),
    )
    app.send("edit it")
    page = app.page
    page.click(APPROVE)
    page.click(APPROVE)
    expect(page.locator(".msg.assistant .content").last).to_have_text("OK")
    cards = page.locator(".tool-card")
    expect(cards.nth(0).locator(".tc-status")).to_have_text(SAID[lang][0])
    expect(cards.nth(1).locator(".tc-status")).to_have_text(SAID[lang][1])
    # Opened in the narrow popup, the long outcome gives way: nothing runs under Undo.
    open_card(cards.nth(1))
    assert cards.nth(1).evaluate(
        """card => { const head = card.querySelector('.tc-head');
          const undo = head.querySelector('.tc-undo').getBoundingClientRect();
          return [...head.querySelectorAll('.tc-status, .tc-time')]
            .every((el) => el.getBoundingClientRect().right <= undo.left + 1); }"""
    )
    tip = cards.nth(1).locator(".tc-status > span").last
    expect(tip).to_have_attribute("data-tip", SAID[lang][1])  # the page tooltip: the whole outcome
    assert app.page_errors == []
