"""When the approval panel closes under the focus (the user clicked Allow, or pressed Esc to
deny), the focus goes to the composer: before, it fell to the page's body, and what the user
typed next went nowhere (seen in the real popup)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import text_turn, tool_turn
from tests.web.conftest import App

pytestmark = pytest.mark.web

APPROVE = "#approval button.btn.primary"
NAME = "笔记_😀_\u202etxt.md"


def test_typing_after_a_decision_goes_to_the_composer(app: App) -> None:
    first = app.workspace / NAME
    second = app.workspace / "שלום.txt"
    app.fake.script(
        tool_turn([("write_file", {"path": str(first), "content": "你好 😀\n"})], content="好的。"),
        text_turn("写好了。"),
        tool_turn([("write_file", {"path": str(second), "content": "x\n"})], content="好的。"),
        text_turn("不写了。"),
    )
    page = app.page
    app.send("写一个文件")
    expect(page.locator(APPROVE)).to_be_enabled()
    page.click(APPROVE)
    expect(page.locator("#approval")).to_be_hidden()
    expect(page.locator(".msg.assistant .content").last).to_have_text("写好了。")
    assert first.read_text(encoding="utf-8") == "你好 😀\n"
    expect(page.locator("#prompt")).to_be_focused()
    page.keyboard.type("下一个 😀 שלום")
    expect(page.locator("#prompt")).to_have_value("下一个 😀 שלום")
    page.keyboard.press("Enter")
    expect(page.locator(APPROVE)).to_be_enabled()
    page.focus("#approval")
    page.keyboard.press("Escape")
    expect(page.locator("#approval")).to_be_hidden()
    expect(page.locator(".tool-card").last).to_have_attribute("data-status", "cancelled")
    assert not second.exists()
    expect(page.locator("#prompt")).to_be_focused()
