"""The tool-server form uses the page's own controls, as the rest of Settings does: themed
selects (no native grey menus), number fields with − / + (no engine spinners), a switch (no bare
checkbox); they work by keyboard and save what they show. A screenshot of the form in both
themes and languages goes to test-artifacts/web/."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama
from tests.support.waiting import eventually
from tests.web.conftest import AppFactory

pytestmark = pytest.mark.web


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_the_server_form_uses_the_page_controls(
    make_app: AppFactory, fake_ollama: FakeOllama, theme: str, lang: str
) -> None:
    app = make_app(fake_ollama, theme=theme, language=lang, viewport=(460, 660))
    page = app.page
    page.click("#btn-settings")
    expect(page.locator("#settings")).to_have_attribute("data-armed", "true")
    page.click("#mcp-add")
    form = page.locator(".mcp-form")
    expect(form).to_be_visible()
    assert form.locator("select").count() == 0
    assert form.locator('input[type="number"]').count() == 0
    assert form.locator('input[type="checkbox"]:not([role="switch"])').count() == 0
    # The same look as Settings' own select (the provider).
    style = """el => { const s = getComputedStyle(el);
      return [s.backgroundColor, s.color, s.borderTopColor, s.borderRadius, s.height]
        .join(' '); }"""
    assert page.locator("#mcp-f-kind").evaluate(style) == page.locator("#set-provider").evaluate(
        style
    )
    expect(form.locator(".mcp-f-timeout_s .step-btn")).to_have_count(2)
    expect(form.locator("label.switch .track")).to_have_count(1)
    page.fill("#mcp-f-name", "远程 remote")
    page.locator(".mcp-f-enabled, #mcp-save").last.scroll_into_view_if_needed()
    page.mouse.move(4, 300)
    app.screenshot(f"{theme}-{lang}-settings-mcp-form")
    # By keyboard: open the kind list, pick "HTTP"; the address field shows instead of the command.
    page.locator("#mcp-f-kind").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#mcp-f-kind-list")).to_be_visible()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    expect(page.locator("#mcp-f-url")).to_be_visible()
    expect(page.locator("#mcp-f-command")).to_be_hidden()
    page.fill("#mcp-f-url", "http://127.0.0.1:9/mcp")
    page.locator("#mcp-f-timeout_s").focus()
    page.keyboard.press("ArrowUp")
    expect(page.locator("#mcp-f-timeout_s")).to_have_value("61")
    form.locator(".mcp-f-ping_s .step-btn").last.click()
    expect(page.locator("#mcp-f-ping_s")).to_have_value("31")
    page.click("#mcp-f-trust")
    page.click('#mcp-f-trust-list [data-value="trust_read_only"]')
    page.locator("label[for=mcp-f-enabled]").click()
    expect(page.locator("#mcp-f-enabled")).not_to_be_checked()
    page.click("#mcp-save")
    eventually(lambda: "远程 remote" in app.core.settings.mcp_servers, 15)
    saved = dict(app.core.settings.mcp_servers["远程 remote"])
    assert saved["url"] == "http://127.0.0.1:9/mcp"
    assert (saved["timeout_s"], saved["ping_s"]) == (61, 31)
    assert saved["trust"] == "trust_read_only" and saved["enabled"] is False
    assert app.page_errors == []
