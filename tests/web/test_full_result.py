"""The card offers the rest of a result the model got shortened: "Show all" fetches the whole
result Core kept (real browser, real Bridge and Core, fake model server), in zh-CN."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import text_turn, tool_turn

pytestmark = pytest.mark.web


def test_show_all_shows_what_the_model_did_not_get(make_app: Any, fake_ollama: Any) -> None:
    app = make_app(fake_ollama, language="zh-CN", tool_result_limit=2_000)
    root = app.workspace / "树 🌳"
    for d in range(3):
        for i in range(60):
            (root / f"目录 {d}" / f"笔记 {i:03d} 🙂 \u202eevil").mkdir(parents=True)
    fake_ollama.script(tool_turn([("directory_tree", {"path": str(root)})]), text_turn("好。"))
    app.send("看看")
    page = app.page
    expect(page.locator(".msg.assistant .content").last).to_have_text("好。")
    card = page.locator(".tool-card").first
    if card.locator(".tc-show-all").count() == 0:
        card.locator(".tc-toggle").click()
    expect(card.locator(".tc-full .tc-meta")).to_have_text("模型收到的是缩短后的结果。")
    last = "笔记 059 🙂 \u202eevil"
    card.locator(".tc-show-all").click()
    whole = card.locator(".tc-full pre.tree")
    expect(whole).to_contain_text("目录 2/")
    expect(whole).to_contain_text(last)
    expect(card.locator(".tc-show-all")).to_have_count(0)
    assert app.page_errors == []
