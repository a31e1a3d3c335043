"""Without a model: a send says so once, in the page's language."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama
from tests.web.conftest import AppFactory

pytestmark = pytest.mark.web

TITLE = {"en": "No model is installed yet", "zh-CN": "还没有安装模型"}


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_sending_without_a_model_says_it_once(make_app: AppFactory, lang: str) -> None:
    with FakeOllama(models={}) as fake:
        app = make_app(fake, default_model="", language=lang)
        page = app.page
        expect(page.locator("#onboarding .ob-card")).to_be_visible()
        page.fill("#prompt", "你好")
        page.press("#prompt", "Enter")
        notice = page.locator(".notice.error")
        expect(notice.locator("strong")).to_have_text(TITLE[lang])
        text = notice.locator(".notice-text").inner_text()
        # Once: the detail says what to do, not the headline again (nor in English).
        assert text.count("No model is installed") <= 1, text
        assert "Pull one first" not in text, text
        expect(notice.locator(".notice-detail code")).to_have_text("ollama pull qwen3:8b")
        assert app.page_errors == []
