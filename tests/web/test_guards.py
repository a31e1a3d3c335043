"""The per-turn guards and bound approvals in a real browser against the real tools: a call past a
damage budget asks in full auto and the panel names the budget (zh-CN), and a file changed after
approval is asked about again with the new diff."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import text_turn, tool_turn
from tests.web.conftest import App

pytestmark = pytest.mark.web

APPROVE = "#approval button.btn.primary"


def test_past_the_write_budget_full_auto_asks_and_names_the_budget(
    make_app: Any, fake_ollama: Any
) -> None:
    app = make_app(
        fake_ollama, confirmation_mode="full_auto", budget_written_mb=0.001, language="zh-CN"
    )
    first, second = app.workspace / "一.txt", app.workspace / "二 🙂.txt"
    app.fake.script(
        tool_turn([("write_file", {"path": str(first), "content": "甲" * 300})]),
        tool_turn([("write_file", {"path": str(second), "content": "乙" * 300})]),
        text_turn("写好了"),
    )
    app.send("写两个文件")
    page = app.page
    warning = page.locator("#approval .guard-warning")
    expect(warning).to_contain_text("已超出本次回答写入数据的额度")
    expect(warning).to_contain_text("900 B")  # what the turn wrote so far
    assert first.exists() and not second.exists()
    page.click(APPROVE)
    expect(page.locator(".msg.assistant .content").last).to_have_text("写好了")
    assert second.read_text() == "乙" * 300
    assert app.page_errors == []


def test_a_file_changed_after_approval_is_shown_again_with_the_new_diff(app: App) -> None:
    target = app.workspace / "清单 ✅.txt"
    target.write_text("苹果\n香蕉\n")
    app.fake.script(
        tool_turn(
            [
                (
                    "edit_file",
                    {"path": str(target), "edits": [{"old_text": "苹果", "new_text": "🍎"}]},
                )
            ]
        ),
        text_turn("Edited."),
    )
    app.send("Use an emoji")
    page = app.page
    panel = page.locator("#approval")
    expect(panel.locator(".ap-preview .d-add")).to_have_text("+🍎")
    expect(panel.locator(".guard-warning")).to_have_count(0)
    target.write_text("苹果\n橙子\n")  # changed by hand while the diff is on screen
    page.click(APPROVE)
    expect(panel.locator(".guard-warning")).to_contain_text("The file changed after you approved")
    expect(panel.locator(".ap-preview")).to_contain_text("橙子")
    assert target.read_text() == "苹果\n橙子\n"
    page.click(APPROVE)
    expect(page.locator(".tool-card")).to_have_attribute("data-status", "success")
    assert target.read_text() == "🍎\n橙子\n"
    assert app.page_errors == []
