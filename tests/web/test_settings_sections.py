"""Settings in sections (General, Model server, Tools & safety, Tool servers, Appearance,
Advanced) with the internals under Advanced, and a row of section names the keyboard reaches."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama
from tests.web.conftest import AppFactory

pytestmark = pytest.mark.web

NAMES = {
    "en": [
        "General",
        "Model server",
        "Tools & safety",
        "Tool servers (MCP)",
        "Appearance",
        "Advanced",
    ],
    "zh-CN": ["常规", "模型服务", "工具与安全", "工具服务器（MCP）", "外观", "高级"],
}
INTERNALS = [
    "num_ctx",
    "max_rounds",
    "max_answer_chars",
    "keep_alive",
    "max_tool_calls_per_round",
    "tool_result_limit",
    "budget_files_removed",
    "budget_written_mb",
    "budget_commands",
]


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_settings_are_in_sections_with_internals_under_advanced(
    make_app: AppFactory, fake_ollama: FakeOllama, theme: str, lang: str
) -> None:
    app = make_app(fake_ollama, theme=theme, language=lang, viewport=(460, 660))
    page = app.page
    page.click("#btn-settings")
    expect(page.locator("#settings")).to_have_attribute("data-armed", "true")
    expect(page.locator("#settings .set-section > h3")).to_have_text(NAMES[lang])
    expect(page.locator("#settings .set-nav-item")).to_have_text(NAMES[lang])
    advanced = page.locator("#set-group-advanced")
    for name in INTERNALS:
        expect(advanced.locator(f"#set-{name}")).to_have_count(1)
    # The first section holds what a new user sets, not the model's context length.
    general = page.locator("#set-group-general")
    expect(general.locator("#set-language")).to_have_count(1)
    expect(page.locator("#set-group-appearance #set-theme")).to_have_count(1)
    expect(page.locator("#set-group-server #set-endpoint")).to_have_count(1)
    expect(page.locator("#set-group-tools #set-confirmation_mode")).to_have_count(1)
    # The keyboard: from the close button, Tab reaches the section names; Enter on Advanced
    # puts the focus on its title, in view under the row of names.
    page.locator("#settings-close").focus()
    page.keyboard.press("Tab")
    expect(page.locator(".set-nav-item").first).to_be_focused()
    for _ in range(5):
        page.keyboard.press("Tab")
    expect(page.locator(".set-nav-item").last).to_be_focused()
    page.keyboard.press("Enter")
    heading = page.locator("#set-group-advanced-title")
    expect(heading).to_be_focused()
    nav = page.locator(".set-nav").bounding_box()
    box = heading.bounding_box()
    assert nav is not None and box is not None
    assert box["y"] >= nav["y"] + nav["height"] - 1, (box, nav)  # not under the row
    assert box["y"] + box["height"] <= 660
    page.keyboard.press("Tab")
    expect(page.locator("#set-num_ctx")).to_be_focused()
    assert app.page_errors == []
