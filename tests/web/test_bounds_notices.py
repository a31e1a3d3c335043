"""The loop's bounds on the page: a cut answer, a flood of calls, a quiet model, both languages."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama, slow_turn, text_turn, tool_turn
from tests.web.conftest import AppFactory


@pytest.mark.parametrize(
    ("language", "text"),
    [
        (
            "en",
            "The answer reached 1000 characters, the limit set in Settings, so it was stopped. "
            "What arrived is kept.",
        ),
        ("zh-CN", "回答已达到 1000 个字符（设置中的上限），已停止。已收到的内容会保留。"),
    ],
)
def test_a_cut_answer_keeps_its_text_and_says_why(
    make_app: AppFactory, fake_ollama: FakeOllama, language: str, text: str
) -> None:
    app: Any = make_app(fake_ollama, language=language, max_answer_chars=1_000)
    fake_ollama.script(text_turn("字🙂" * 5_000, chunk_chars=50))
    app.send("说个不停")
    expect(app.page.locator(".notice.warning")).to_have_text(text)
    answer = app.page.locator(".msg.assistant .content").last
    expect(answer).to_contain_text("字🙂字🙂")
    assert len(answer.inner_text().strip()) == 1_000
    assert app.page_errors == []


def test_too_many_calls_in_a_round_says_how_many_ran(
    make_app: AppFactory, fake_ollama: FakeOllama
) -> None:
    app: Any = make_app(fake_ollama)
    fake_ollama.script(
        tool_turn([("list_allowed_directories", {}) for _ in range(20)]), text_turn("Done.")
    )
    app.send("Where may you work?")
    expect(app.page.locator(".notice.warning")).to_have_text(
        "The model asked for 20 tool calls in one round; only the first 16 ran "
        "(the limit in Settings). The rest were answered “not run”."
    )
    expect(app.page.locator(".msg.assistant .content").last).to_have_text("Done.")
    assert app.page_errors == []


def test_a_quiet_model_shows_waiting_then_the_answer(
    make_app: AppFactory, fake_ollama: FakeOllama
) -> None:
    app: Any = make_app(fake_ollama, language="zh-CN", waiting_notice_s=0.3)
    fake_ollama.script(slow_turn("慢慢来，但会到。", delay=2.0, chunk_chars=4))
    app.send("在吗？")
    expect(app.page.locator(".notice.info")).to_have_text(
        re.compile(r"正在等待模型… 已有 [0-9.]+ 秒没有收到内容。可以随时停止。")
    )
    expect(app.page.locator(".msg.assistant .content").last).to_have_text("慢慢来，但会到。")
    assert app.page_errors == []
