"""A long chat's summary on the page: a quiet marker where it was made, that opens to the
summary; it is stored, so it is there again after a reload. Both languages."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama, text_turn
from tests.web.conftest import AppFactory

pytestmark = pytest.mark.web

SUMMARY = "SUMMARY: 用户在整理 notes.md 🙂 \u202eRTL"


def answer(n: int) -> str:
    return f"ANSWER{n} " + "lorem ipsum " * 370  # ~1,100 tokens: three fill a 4,096 context


@pytest.mark.parametrize(
    ("language", "marker"),
    [
        (
            "en",
            "The 4 oldest messages were summarised to fit the model’s context. Show the summary",
        ),
        ("zh-CN", "最早的 4 条消息已被总结，以适应模型的上下文。查看总结"),
    ],
)
def test_the_summary_marker_opens_to_the_summary_and_survives_a_reload(
    make_app: AppFactory, fake_ollama: FakeOllama, language: str, marker: str
) -> None:
    app: Any = make_app(fake_ollama, language=language, num_ctx=4096)
    fake_ollama.script(
        *(text_turn(answer(n), chunk_chars=800) for n in (1, 2, 3)),
        text_turn(SUMMARY),
        text_turn("Fourth answer."),
    )
    page = app.page
    answers = page.locator(".msg.assistant .content")
    for n in (1, 2, 3):
        app.send(f"question {n}")
        expect(answers.nth(n - 1)).to_contain_text(f"ANSWER{n}")
    app.send("question 4")
    expect(answers.last).to_have_text("Fourth answer.")
    shown = page.locator(".summary-marker")
    expect(shown).to_have_count(1)
    expect(shown.locator("summary")).to_have_text(marker)
    expect(shown.locator(".summary-text")).to_be_hidden()
    shown.locator("summary").click()
    expect(shown.locator(".summary-text")).to_have_text(
        "SUMMARY: 用户在整理 notes.md 🙂 ⟨U+202E⟩RTL"
    )
    app.reload()
    again = page.locator(".summary-marker")
    expect(again).to_have_count(1)
    expect(again.locator("summary")).to_have_text(marker)
    # Stored where it was made: after the fourth question, before its answer.
    order = page.evaluate(
        """() => {
          const marker = document.querySelector('.summary-marker');
          const users = [...document.querySelectorAll('.msg.user')];
          const last = [...document.querySelectorAll('.msg.assistant')].pop();
          return [
            Boolean(users.pop().compareDocumentPosition(marker) & Node.DOCUMENT_POSITION_FOLLOWING),
            Boolean(marker.compareDocumentPosition(last) & Node.DOCUMENT_POSITION_FOLLOWING),
          ];
        }"""
    )
    assert order == [True, True]
    assert app.page_errors == []
