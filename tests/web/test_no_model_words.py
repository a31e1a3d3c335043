"""Without a model: a send says so once, in the page's language; a download of a name the
server does not know says that in words, without an empty progress bar."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama
from tests.web.conftest import AppFactory

pytestmark = pytest.mark.web

TITLE = {"en": "No model is installed yet", "zh-CN": "还没有安装模型"}
NOT_FOUND = {
    "en": "qwen9:404b was not found on the model server. Check the name (for example qwen3:8b) "
    "and try again.",
    "zh-CN": "模型服务器上没有找到 qwen9:404b。请检查名称（例如 qwen3:8b）后重试。",
}


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


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_a_download_of_an_unknown_name_says_not_found(
    make_app: AppFactory, theme: str, lang: str
) -> None:
    with FakeOllama(models={}) as fake:
        fake.pull_error = "pull model manifest: file does not exist"
        app = make_app(fake, default_model="", language=lang, theme=theme)
        page = app.page
        expect(page.locator("#onboarding .ob-card")).to_be_visible()
        page.fill("#pull-name", "qwen9:404b")
        page.locator("#onboarding .ob-card button.primary, #onboarding .ob-card button").filter(
            has_text="Download" if lang == "en" else "下载"
        ).first.click()
        status = page.locator("#pull-status")
        expect(status).to_have_text(NOT_FOUND[lang])
        expect(page.locator("#onboarding progress")).to_be_hidden()
        assert "file does not exist" not in page.locator("#onboarding").inner_text()
        assert app.page_errors == []


def test_another_failure_keeps_the_server_words(make_app: AppFactory) -> None:
    with FakeOllama(models={}) as fake:
        fake.pull_error = "disk full: 磁盘已满"
        app = make_app(fake, default_model="")
        page = app.page
        page.fill("#pull-name", "qwen3:8b")
        page.get_by_role("button", name="Download").click()
        expect(page.locator("#pull-status")).to_have_text("Could not download qwen3:8b")
        expect(page.locator("#onboarding .ob-detail")).to_have_text("disk full: 磁盘已满")
        expect(page.locator("#onboarding progress")).to_be_hidden()
