"""Calls left in the answer's text and reasoning recognised at the end, on the real page: the
call shows as its card (approved, the file written) and never as markup; an R1 distill's
reasoning before a lone ``</think>`` ends in the thinking section, not the answer."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.fakes.model_shapes import CONTENT
from tests.fakes.ollama_server import FakeOllama, text_turn
from tests.fakes.turns import Turn
from tests.web.conftest import AppFactory

pytestmark = pytest.mark.web

APPROVE = "#approval button.btn.primary"


def test_a_tool_call_tag_in_the_text_becomes_a_card(
    make_app: AppFactory, fake_ollama: FakeOllama
) -> None:
    app: Any = make_app(fake_ollama)
    target = app.workspace / "笔记 ✨.txt"
    call = {"name": "write_file", "arguments": {"path": str(target), "content": CONTENT}}
    shape = f"Writing it now.\n<tool_call>\n{json.dumps(call, ensure_ascii=False)}\n</tool_call>"
    fake_ollama.script(Turn(content=shape, chunk_chars=3), text_turn("Done. 完成"))
    app.send("write my notes")
    page = app.page
    card = page.locator(".tool-card")
    expect(card).to_have_attribute("data-status", "pending")
    first = page.locator(".msg.assistant .content").first
    expect(first).to_have_text("Writing it now.")
    page.click(APPROVE)
    expect(card).to_have_attribute("data-status", "success")
    expect(page.locator(".msg.assistant .content").last).to_have_text("Done. 完成")
    assert target.read_text(encoding="utf-8") == CONTENT
    log = page.locator("#log").inner_text()
    assert "<tool_call>" not in log and '"arguments"' not in log
    assert app.page_errors == []


def test_reasoning_before_a_lone_close_tag_moves_to_the_thinking_section(
    make_app: AppFactory, fake_ollama: FakeOllama
) -> None:
    app: Any = make_app(fake_ollama)
    reasoning = "Okay, the user greets me. I should greet back."
    fake_ollama.script(Turn(content=f"{reasoning}\n</think>\n\nHello! 你好 👋", chunk_chars=3))
    app.send("hi")
    page = app.page
    message = page.locator(".msg.assistant").last
    expect(message).not_to_have_class("streaming")
    expect(message.locator(".content")).to_have_text("Hello! 你好 👋")
    thinking = message.locator("details.thinking")
    expect(thinking).to_be_attached()
    expect(thinking).to_contain_text(reasoning)
    assert "</think>" not in page.locator("#log").inner_text()
    assert app.page_errors == []
