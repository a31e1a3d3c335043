"""A settings file that cannot be written: the page says so in its language, the OS's reason
in words by its errno (not "chat history", not the OS's English), and the change still applies."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama
from tests.web.conftest import AppFactory

pytestmark = pytest.mark.web

SAID = {
    "en": ("The settings could not be saved to ", "(it is a folder); they apply until the app"),
    "zh-CN": ("设置无法保存到 ", "（它是文件夹）；在应用退出前仍然有效。"),
}


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_settings_that_cannot_be_saved_say_why_in_the_pages_language(
    make_app: AppFactory, fake_ollama: FakeOllama, lang: str
) -> None:
    app = make_app(fake_ollama, language=lang)
    target = app.paths.settings_file
    if target.exists():
        target.unlink()
    target.mkdir(parents=True)  # a folder where the file goes: EISDIR
    page = app.page
    page.click("#btn-settings")
    page.locator("[role=radio]", has_text="Dark" if lang == "en" else "深色").click()
    toast = page.locator(".toast.error")
    expect(toast).to_have_count(1)
    start, end = SAID[lang]
    text = toast.inner_text()
    assert text.startswith(start) and end in text and str(target) in text, text
    assert "Is a directory" not in text and "聊天记录" not in text
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    assert app.core.settings.theme == "dark"
    assert app.page_errors == []
