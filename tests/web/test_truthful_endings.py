"""The quiet "No files were changed in this turn" note under an answer that claims a change."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama, text_turn
from tests.web.conftest import AppFactory

pytestmark = pytest.mark.web


@pytest.mark.parametrize(
    ("language", "answer", "note"),
    [
        ("en", "I've created **notes.md** for you 🙂", "No files were changed in this turn."),
        ("zh-CN", "好的，已写入 `笔记.md`。", "本轮没有更改任何文件。"),
    ],
)
def test_the_note_sits_quietly_under_the_answer(
    make_app: AppFactory, fake_ollama: FakeOllama, language: str, answer: str, note: str
) -> None:
    app: Any = make_app(fake_ollama, language=language)
    fake_ollama.script(text_turn(answer))
    app.send("write my notes")
    page = app.page
    shown = page.locator(".notice.quiet")
    expect(shown).to_have_text(note)
    expect(shown).to_have_attribute("role", "note")
    expect(page.locator(".notice.warning, .notice.error")).to_have_count(0)
    # Under the answer: the answer's element comes before the note in the log.
    after = page.evaluate(
        """() => {
          const answer = [...document.querySelectorAll('.msg.assistant')].pop();
          const note = document.querySelector('.notice.quiet');
          return Boolean(answer.compareDocumentPosition(note) & Node.DOCUMENT_POSITION_FOLLOWING);
        }"""
    )
    assert after is True
    assert app.page_errors == []


def test_no_note_for_an_answer_without_a_claim(
    make_app: AppFactory, fake_ollama: FakeOllama
) -> None:
    app: Any = make_app(fake_ollama)
    fake_ollama.script(text_turn("Blue, because of Rayleigh scattering."), text_turn("Saved it."))
    app.send("why is the sky blue?")
    expect(app.page.locator(".msg.assistant .content").last).to_have_text(
        "Blue, because of Rayleigh scattering."
    )
    app.send("now save it")  # the second answer claims a save: the note comes only then
    expect(app.page.locator(".notice.quiet")).to_have_count(1)
    assert app.page_errors == []
