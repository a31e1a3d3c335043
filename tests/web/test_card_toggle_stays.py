"""Opening or closing a tool card keeps its top where it was under the pointer, also at the
end of a chat that follows new output (the log used to jump to the end, ~200 px away)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, expect

from tests.fakes.ollama_server import FakeOllama, text_turn, tool_turn
from tests.web.conftest import AppFactory

pytestmark = pytest.mark.web

SETTLE = """() => new Promise((done) =>
  requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 100))))"""


def top_of(locator: Locator) -> float:
    box = locator.bounding_box()
    assert box is not None
    return float(box["y"])


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_card_opens_and_closes_in_place(
    make_app: AppFactory, fake_ollama: FakeOllama, theme: str
) -> None:
    app = make_app(fake_ollama, theme=theme, viewport=(460, 660))
    notes = app.workspace / "笔记 📝.md"
    notes.write_text("".join(f"第 {n} 行 line {n}\n" for n in range(1, 40)), encoding="utf-8")
    fake_ollama.script(
        tool_turn([("read_file", {"path": str(notes)})]),
        text_turn("Read it. " * 40 + "\n\nShort tail."),
    )
    app.send("read the notes")
    page = app.page
    expect(page.locator(".msg.assistant .content").last).to_contain_text("Short tail.")
    page.evaluate(SETTLE)
    card = page.locator(".tool-card")
    toggle = card.locator(".tc-toggle")
    expect(toggle).to_have_attribute("aria-expanded", "false")
    toggle.scroll_into_view_if_needed()
    before = top_of(card)
    toggle.click()
    expect(card.locator(".excerpt")).to_be_visible()
    page.evaluate(SETTLE)
    assert abs(top_of(card) - before) <= 2, (before, top_of(card))
    toggle.click()
    expect(card.locator(".excerpt")).to_have_count(0)
    page.evaluate(SETTLE)
    assert abs(top_of(card) - before) <= 2, (before, top_of(card))
    assert app.page_errors == []
