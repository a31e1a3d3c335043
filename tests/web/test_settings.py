"""The settings panel, languages and themes."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import text_turn, tool_turn
from tests.web.conftest import EN, App, choose

pytestmark = pytest.mark.web

# Words that are the same in every language.
BRANDS = {"Ollama", "Metona", "English", "简体中文"}


def test_settings_change_validate_and_persist(app: App) -> None:
    page = app.page
    page.click("#btn-settings")
    panel = page.locator("#settings")
    expect(panel).to_be_visible()
    page.fill("#set-temperature", "1.2")
    page.press("#set-temperature", "Tab")
    expect(page.locator("#settings-saved")).to_contain_text("Saved")
    expect(panel).to_have_attribute("data-armed", "true")
    page.locator("[role=radio]", has_text="Overwrites and deletes only").click()
    page.locator("[role=radio]", has_text="Dark").click()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    page.locator("label[for=set-run_command_enabled]").click()
    page.locator("label[for=tool-delete_file]").click()
    page.fill("#add-allowed_dirs", str(app.workspace / "more"))
    page.press("#add-allowed_dirs", "Enter")
    expect(panel.locator(".dir-path", has_text="more")).to_be_visible()
    # Invalid input is refused with a message and not saved.
    page.fill("#set-num_ctx", "100")
    page.press("#set-num_ctx", "Tab")
    expect(panel.locator(".field.invalid .field-error")).to_contain_text("512")
    page.fill("#set-endpoint", "ftp://nowhere")
    page.press("#set-endpoint", "Tab")
    expect(panel.locator(".field.invalid")).to_have_count(2)

    def saved() -> dict[str, object]:
        return json.loads(app.paths.settings_file.read_text())

    expect(page.locator("#add-allowed_dirs")).to_have_value("")
    settings = app.core.settings
    assert settings.temperature == 1.2
    assert settings.confirmation_mode == "delete_only"
    assert settings.theme == "dark"
    assert settings.run_command_enabled is True
    assert settings.disabled_tools == ["delete_file"]
    assert settings.num_ctx == 24576
    assert str(app.workspace / "more") in settings.allowed_dirs
    assert saved()["temperature"] == 1.2 and saved()["theme"] == "dark"

    app.reload()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    page.click("#btn-settings")
    expect(page.locator("#set-temperature")).to_have_value("1.2")
    expect(page.locator("#set-run_command_enabled")).to_be_checked()
    expect(page.locator("#tool-delete_file")).not_to_be_checked()
    expect(page.locator("#tool-write_file")).to_be_checked()
    expect(page.locator("#set-confirmation_mode-delete_only")).to_have_attribute(
        "aria-checked", "true"
    )
    page.keyboard.press("Escape")
    expect(page.locator("#settings")).to_be_hidden()


def test_a_change_made_elsewhere_shows_up(app: App) -> None:
    page = app.page
    page.click("#btn-settings")
    expect(page.locator("#set-tools_enabled")).to_be_checked()
    app.core.update_settings({"tools_enabled": False, "theme": "dark"})
    expect(page.locator("#set-tools_enabled")).not_to_be_checked()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")


def visible_english(page: object) -> list[str]:
    """UI strings from en.json that are visible on the page right now."""
    texts: list[str] = page.evaluate(  # type: ignore[attr-defined]
        """() => {
      const out = [];
      const shown = (el) => el.checkVisibility({ visibilityProperty: true });
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      while (walker.nextNode()) {
        const node = walker.currentNode;
        const el = node.parentElement;
        if (!el || !node.textContent.trim() || !shown(el)) continue;
        if (el.closest('.md, .bubble')) continue;  // what the model or the user wrote
        out.push(node.textContent.trim());
      }
      const named = '[title], [data-tip], [aria-label], [placeholder]';
      for (const el of document.querySelectorAll(named)) {
        if (!shown(el)) continue;
        for (const a of ['title', 'data-tip', 'aria-label', 'placeholder']) {
          const v = el.getAttribute(a);
          if (v && v.trim()) out.push(v.trim());
        }
      }
      return out;
    }"""
    )
    patterns = []
    for key, value in EN.items():
        # a value made only of placeholders and punctuation ("{path}: {reason}") says nothing
        if value in BRANDS or not re.search("[A-Za-z]{2}", re.sub(r"\{\w+\}", "", value)):
            continue
        parts = [re.escape(p) for p in re.split(r"\{\w+\}", value.strip())]
        patterns.append((key, re.compile("^" + "(.+?)".join(parts) + "$", re.S)))
    found = []
    for text in texts:
        for key, pattern in patterns:
            if pattern.match(text):
                found.append(f"{key}: {text!r}")
    return found


def test_the_language_switch_changes_every_visible_string(app: App) -> None:
    page = app.page
    target = app.workspace / "doc.txt"
    app.fake.script(
        text_turn("好的。", thinking="想一想"),
        tool_turn([("write_file", {"path": str(target), "content": "x\n"})]),
    )
    app.send("你好")
    expect(page.locator(".msg.assistant .msg-foot .stat").first).to_be_visible()
    app.send("写文件")
    expect(page.locator("#approval button.btn.primary")).to_be_enabled()

    page.click("#btn-settings")
    choose(page, "#set-language", "zh-CN")
    expect(page.locator("html")).to_have_attribute("lang", "zh-CN")
    expect(page.locator("#settings-title")).to_have_text("设置")
    assert visible_english(page) == []  # the settings panel, every section
    page.keyboard.press("Escape")
    assert visible_english(page) == []  # the chat, a tool card, the approval panel
    page.click("#btn-sidebar")
    expect(page.locator("#session-list .session")).to_have_count(1)
    assert visible_english(page) == []  # the session list
    page.keyboard.press("Escape")
    page.click("#btn-model")
    expect(page.locator("#model-menu .cap").first).to_be_visible()
    assert visible_english(page) == []  # the model menu
    page.keyboard.press("Escape")
    # Answer the approval, so the finished card is checked too.
    page.click("#approval button.btn.primary")
    expect(page.locator(".tool-card")).to_have_attribute("data-status", "success")
    assert visible_english(page) == []
    # Persisted, and back to English on request.
    assert app.core.settings.language == "zh-CN"
    page.click("#btn-settings")
    choose(page, "#set-language", "en")
    expect(page.locator("#settings-title")).to_have_text("Settings")


def test_system_language_is_followed_unless_set(
    make_app: object, fake_ollama: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The system's language is Core's reading of the locale variables (as the tray's), not
    # the engine's list: here the browser says English and the environment Chinese.
    monkeypatch.setenv("LC_ALL", "zh_CN.UTF-8")
    app = make_app(fake_ollama, language="system", locale="en-US")  # type: ignore[operator]
    expect(app.page.locator("html")).to_have_attribute("lang", "zh-CN")
    expect(app.page.locator(".hello")).to_have_text("今天要做点什么？")


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_no_setting_shows_a_raw_locale_key(make_app: Any, fake_ollama: Any, language: str) -> None:
    app = make_app(fake_ollama, language=language)
    app.page.click("#btn-settings")
    expect(app.page.locator("#settings")).to_be_visible()
    raw = app.page.evaluate(
        r"""() => [...document.querySelectorAll('#settings *')]
        .filter((el) => el.children.length === 0 && el.checkVisibility())
        .map((el) => el.textContent.trim())
        .filter((text) => /^[a-z_]+(\.[A-Za-z_-]+)+$/.test(text))"""
    )
    assert raw == []
