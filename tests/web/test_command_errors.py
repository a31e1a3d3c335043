"""A refused command reaches the user as its code's sentence, in the page's language, with
Core's detail after it: the one failure channel, end to end (real Core, real page)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama, text_turn, tool_turn
from tests.web.conftest import REPO, open_card

pytestmark = pytest.mark.web


def texts(language: str) -> dict[str, str]:
    path = REPO / "web" / "locales" / f"{language}.json"
    return dict(json.loads(path.read_text(encoding="utf-8")))


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_undo_with_nothing_to_undo_says_so_in_the_page_language(
    make_app: Any, fake_ollama: FakeOllama, language: str
) -> None:
    app = make_app(fake_ollama, language=language)
    words = texts(language)
    page = app.page
    page.click("#btn-settings")
    page.get_by_role("button", name=words["settings.undo_last"]).click()
    detail = words["tool_error.undo_nothing"]
    sentence = words["command_error.undo_failed"].replace("{detail}", detail)
    expect(page.locator(".toast.error")).to_have_text(sentence)
    assert app.page_errors == []


def test_an_undo_refused_because_the_file_changed_says_why_in_chinese(
    make_app: Any, fake_ollama: FakeOllama
) -> None:
    """The card's Undo after the user edited the file: the journal refuses, and the toast says
    why in Chinese (the hostile name as text, its direction control written out), not the
    journal's English sentence."""
    app = make_app(fake_ollama, language="zh-CN")
    target = app.workspace / "报告\u202egpj.exe <b>粗</b> 🎉.txt"
    fake_ollama.script(
        tool_turn([("write_file", {"path": str(target), "content": "新内容\n"})]),
        text_turn("好的。"),
    )
    app.send("写一个文件")
    page = app.page
    page.click("#approval button.btn.primary")
    card = page.locator(".tool-card")
    expect(card).to_have_attribute("data-status", "success")
    target.write_text("用户后来改过\n", encoding="utf-8")  # the user's own edit since
    open_card(card)
    card.locator(".tc-undo").click()
    toast = page.locator(".toast.error")
    expect(toast).to_contain_text("无法撤销：在智能体更改之后，")
    said = toast.inner_text()
    assert said.endswith("又被修改过"), said
    assert "⟨U+202E⟩" in said and "\u202e" not in said and "<b>粗</b>" in said, said
    assert "changed since" not in said and "not undone" not in said, said
    assert toast.locator("b").count() == 0
    assert target.read_text(encoding="utf-8") == "用户后来改过\n"  # the user's edit is kept
    assert app.page_errors == []
