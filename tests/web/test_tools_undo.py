"""A tool card when the undo journal cannot keep a copy, in a real browser with real tools.

The journal's folder is made unusable (a file stands where the folder should be), so no copy
can be kept. By default the write is refused before the file is touched and the card says why;
with "allow changes without undo" on, it runs and the card says undo is not available (and has
no Undo button).
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama, text_turn, tool_turn

pytestmark = pytest.mark.web

APPROVE = "#approval button.btn.primary"


def broken_journal(app_paths: Any) -> None:
    app_paths.journal_dir.parent.mkdir(parents=True, exist_ok=True)
    app_paths.journal_dir.write_text("not a folder")


def write(app: Any, name: str) -> Any:
    target = app.workspace / name
    target.write_text("旧 old", encoding="utf-8")
    app.fake.script(
        tool_turn([("write_file", {"path": str(target), "content": "新 new ✨"})]),
        text_turn("Done."),
    )
    app.send("Rewrite it")
    app.page.click(APPROVE)
    return target


def test_without_undo_the_write_is_refused_and_the_card_says_why(
    make_app: Any, fake_ollama: FakeOllama, app_paths: Any
) -> None:
    broken_journal(app_paths)
    app = make_app(fake_ollama)
    target = write(app, "笔记 📝.txt")
    card = app.page.locator(".tool-card")
    expect(card).to_have_attribute("data-status", "error")
    expect(card).to_contain_text("refused before changing anything")
    expect(card.get_by_role("button", name="Undo")).to_have_count(0)
    assert target.read_text(encoding="utf-8") == "旧 old"
    assert app.page_errors == []


def test_when_allowed_the_write_runs_and_the_card_says_undo_is_not_available(
    make_app: Any, fake_ollama: FakeOllama, app_paths: Any
) -> None:
    broken_journal(app_paths)
    app = make_app(fake_ollama, allow_writes_without_undo=True)
    target = write(app, "报告 📊.txt")
    card = app.page.locator(".tool-card")
    expect(card).to_have_attribute("data-status", "success")
    note = card.locator(".tc-no-undo")
    expect(note).to_have_text("Undo is not available")
    expect(note).to_have_attribute(
        "data-tip", "Undo is not available for this change: " + _why(app_paths)
    )
    expect(card.get_by_role("button", name="Undo")).to_have_count(0)
    assert target.read_text(encoding="utf-8") == "新 new ✨"
    tool_message = app.fake.chat_requests[1]["messages"][-1]
    assert '"undo": "unavailable"' in tool_message["content"]
    assert app.page_errors == []


def _why(app_paths: Any) -> str:
    return (
        f"the undo journal's folder {app_paths.journal_dir} cannot be created: a file is in its way"
    )


def _why_zh(app_paths: Any) -> str:
    return f"无法创建撤销记录文件夹 {app_paths.journal_dir}：该位置已有一个文件"


def test_in_chinese_the_no_undo_tip_is_chinese(
    make_app: Any, fake_ollama: FakeOllama, app_paths: Any
) -> None:
    """The tip says why in the page's language, the journal's reason too (by its code: no
    English left), and a language switch redraws both."""
    broken_journal(app_paths)
    app = make_app(fake_ollama, language="zh-CN", allow_writes_without_undo=True)
    write(app, "报告 📊.txt")
    card = app.page.locator(".tool-card")
    expect(card).to_have_attribute("data-status", "success")
    note = card.locator(".tc-no-undo")
    expect(note).to_have_text("无法撤销")
    expect(note).to_have_attribute("data-tip", "此更改无法撤销：" + _why_zh(app_paths))
    app.page.evaluate("import('./js/lib/i18n.js').then((m) => m.setLanguage('en'))")
    expect(note).to_have_attribute(
        "data-tip", "Undo is not available for this change: " + _why(app_paths)
    )
    assert app.page_errors == []


def test_in_chinese_a_refused_write_says_why_in_chinese(
    make_app: Any, fake_ollama: FakeOllama, app_paths: Any
) -> None:
    """The refusal's reason (the journal's folder) by its code: no English left in the card."""
    broken_journal(app_paths)
    app = make_app(fake_ollama, language="zh-CN")
    target = write(app, "笔记 📝.txt")
    card = app.page.locator(".tool-card")
    expect(card).to_have_attribute("data-status", "error")
    expect(card.locator(".tc-error")).to_have_text(
        f"write_file 在更改任何内容之前被拒绝：无法保留撤销副本（{_why_zh(app_paths)}）"
    )
    assert target.read_text(encoding="utf-8") == "旧 old"
    assert app.page_errors == []
