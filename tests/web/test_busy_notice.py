"""A busy model server on the page: the retry notice with its numbers, in both languages, then
the answer."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama, busy_turn, text_turn
from tests.web.conftest import AppFactory


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "The model server is busy (HTTP 503); trying again in 1 s (retry 1 of 2)…"),
        ("zh-CN", "模型服务器繁忙（HTTP 503），1 秒后重试（第 1 次，共 2 次）…"),
    ],
)
def test_the_retry_notice_shows_status_wait_and_attempt(
    make_app: AppFactory, fake_ollama: FakeOllama, language: str, text: str
) -> None:
    app: Any = make_app(fake_ollama, language=language)
    fake_ollama.script(busy_turn(503, retry_after="1"), text_turn("Back again."))
    app.send("Hello")
    notice = app.page.locator(".notice.warning")
    expect(notice).to_have_text(text)
    expect(app.page.locator(".msg.assistant .content").last).to_have_text("Back again.")
    assert app.page_errors == []
