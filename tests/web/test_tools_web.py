"""web_fetch's card in a real browser against a real site on 127.0.0.1: the URL the person
wrote runs without asking and its card shows the page's title, address and text; a URL the
model chose waits for approval with the address on the card; the same words in Chinese."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama, text_turn, tool_turn
from tests.fakes.web_site import Page, Site, web_site
from tests.web.conftest import AppFactory, open_card

pytestmark = pytest.mark.web

APPROVE = "#approval button.btn.primary"
TITLE = "页面 😀 \u202eevil"
PAGE = f"<html><head><title>{TITLE}</title></head><body><h1>你好</h1><p>正文</p></body></html>"


@pytest.fixture
def site() -> Iterator[Site]:
    with web_site({"/doc": Page(PAGE.encode()), "/other": Page(b"other text")}) as running:
        yield running


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_the_card_shows_the_page_and_a_model_url_asks(
    make_app: AppFactory, fake_ollama: FakeOllama, site: Site, language: str
) -> None:
    app = make_app(fake_ollama, language=language, web_allowed_hosts=[site.host])
    url, other = f"{site.base}/doc", f"{site.base}/other"
    app.fake.script(
        tool_turn([("web_fetch", {"url": url})]),
        tool_turn([("web_fetch", {"url": other})]),
        text_turn("done"),
    )
    app.send(f"read {url}")
    page = app.page
    panel = page.locator("#approval")
    expect(panel).to_contain_text(other)
    expect(panel).to_contain_text("获取网页" if language == "zh-CN" else "Fetch web page")
    assert site.requests == [("/doc", site.host)]
    page.click(APPROVE)
    cards = page.locator(".tool-card")
    expect(cards).to_have_count(2)
    first = cards.nth(0)
    expect(first).to_have_attribute("data-status", "success")
    open_card(first)
    expect(first.locator(".web-title")).to_have_text(TITLE)
    expect(first.locator(".web-url")).to_have_text(url)
    expect(first.locator(".web-page")).to_contain_text("# 你好")
    chars = "共" if language == "zh-CN" else "Characters 1–"
    expect(first.locator(".web-chars")).to_contain_text(chars)
    expect(cards.nth(1)).to_have_attribute("data-status", "success")
    assert [path for path, _ in site.requests] == ["/doc", "/other"]
    assert app.page_errors == []
