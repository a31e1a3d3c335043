"""The chat search: a search that finds nothing says so (not "No chats yet"), and Ctrl+K puts
the search box above whatever panel was open, in both languages."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama, text_turn
from tests.web.conftest import AppFactory

pytestmark = pytest.mark.web

NO_MATCH = {"en": "No chat matches “{q}”", "zh-CN": "没有与“{q}”匹配的对话"}
NO_CHATS = {"en": "No chats yet", "zh-CN": "还没有对话"}


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_a_search_without_a_match_says_nothing_matched(
    make_app: AppFactory, fake_ollama: FakeOllama, lang: str
) -> None:
    app = make_app(fake_ollama, language=lang, viewport=(460, 660))
    page = app.page
    fake_ollama.script(text_turn("好的 👍"))
    app.send("第一个对话 🙂")
    expect(page.locator(".msg.assistant .content").last).to_have_text("好的 👍")
    page.keyboard.press("Control+k")
    search = page.locator("#session-search")
    expect(search).to_be_focused()
    expect(page.locator(".session")).to_have_count(1)
    query = "不存在的 \u202eword"
    search.fill(query)
    empty = page.locator("#session-empty")
    shown = NO_MATCH[lang].format(q="不存在的 ⟨U+202E⟩word")
    expect(empty).to_have_text(shown)
    expect(page.locator(".session")).to_have_count(0)
    search.fill("")
    expect(page.locator(".session")).to_have_count(1)
    expect(empty).to_be_hidden()
    assert app.page_errors == []


def test_no_chats_at_all_still_says_none_yet(make_app: AppFactory, fake_ollama: FakeOllama) -> None:
    app = make_app(fake_ollama, language="zh-CN", viewport=(460, 660))
    app.page.click("#btn-sidebar")
    expect(app.page.locator("#session-empty")).to_have_text(NO_CHATS["zh-CN"])


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("panel", ["#btn-history", "#btn-settings"])
def test_ctrl_k_closes_the_panel_over_the_search_box(
    make_app: AppFactory, fake_ollama: FakeOllama, theme: str, panel: str
) -> None:
    app = make_app(fake_ollama, theme=theme, viewport=(460, 660))
    page = app.page
    page.click(panel)
    expect(page.locator("#history, #settings").locator("visible=true")).to_have_count(1)
    page.keyboard.press("Control+k")
    search = page.locator("#session-search")
    expect(search).to_be_focused()
    expect(page.locator("#history")).to_be_hidden()
    expect(page.locator("#settings")).to_be_hidden()
    # Nothing lies over the box once the drawer has slid in: a click on its middle reaches it.
    page.wait_for_function(
        """() => { const el = document.querySelector('#session-search');
          const r = el.getBoundingClientRect();
          return el === document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2); }"""
    )
    assert app.page_errors == []
