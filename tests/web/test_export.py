"""Export a chat from the page: the sidebar's Export (Markdown / JSON) and the "Export…"
button of the not-saved notice, through the real bridge to a real file (the harness fakes
only the native save dialog)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import text_turn
from tests.support.waiting import eventually
from tests.web.conftest import App
from tray_app.core.bootstrap import save_notices

pytestmark = pytest.mark.web

QUESTION = "整理 📁 报告 \u202eevil/..\u202c"  # CJK, emoji, bidi controls and a slash
ANSWER = "好的 🎉 — 三个文件已整理。"


def chat(app: App) -> str:
    app.fake.script(text_turn(ANSWER))
    app.send(QUESTION)
    expect(app.page.locator(".msg.assistant")).not_to_have_class("msg assistant streaming")
    expect(app.page.locator(".msg.assistant .content")).to_contain_text("三个文件已整理")
    [session] = app.core.list_sessions()
    return str(session["id"])


def test_the_sidebar_exports_a_chat_as_json_and_markdown(app: App, tmp_path: Path) -> None:
    session_id = chat(app)
    page = app.page
    target = tmp_path / "导出 📤" / "chat.json"
    target.parent.mkdir()
    app.harness.save_to = target
    page.locator("#btn-sidebar").click()
    row = page.locator(f'.session[data-session-id="{session_id}"]')
    # Keyboard: focus the row's Export button, Enter opens the choice, the first choice has focus.
    row.locator(".session-export").focus()
    page.keyboard.press("Enter")
    expect(row.locator("button", has_text="JSON")).to_be_visible()
    expect(row.locator("button", has_text="Markdown")).to_be_focused()
    row.locator("button", has_text="JSON").click()
    expect(page.locator(".toast")).to_contain_text(f"Saved to {target}")
    saved = json.loads(target.read_text(encoding="utf-8"))
    assert saved["format"] == "metona-tray/session"
    assert [m["content"] for m in saved["messages"]] == [QUESTION, ANSWER]
    # The suggested name: the title with the slash and bidi controls gone, CJK and emoji kept.
    name = app.harness.save_requests[-1]
    assert name.endswith(".json") and "整理 📁 报告" in name
    assert "/" not in name and "\u202e" not in name and "\u202c" not in name

    markdown = tmp_path / "chat.md"
    app.harness.save_to = markdown
    row.locator(".session-export").click()
    row.locator("button", has_text="Markdown").click()
    expect(page.locator(".toast").last).to_contain_text(str(markdown))
    text = markdown.read_text(encoding="utf-8")
    assert ANSWER in text and "整理 📁 报告" in text
    assert app.harness.save_requests[-1].endswith(".md")
    assert not list(tmp_path.glob("**/.*.tmp")), "the atomic write left its temp file"


def test_escape_and_a_cancelled_dialog_write_nothing(app: App, tmp_path: Path) -> None:
    session_id = chat(app)
    page = app.page
    page.locator("#btn-sidebar").click()
    row = page.locator(f'.session[data-session-id="{session_id}"]')
    row.locator(".session-export").click()
    expect(row.locator("button", has_text="Markdown")).to_be_focused()
    page.keyboard.press("Escape")
    expect(row.locator(".session-export")).to_be_focused()
    assert app.harness.save_requests == []
    app.harness.save_to = None  # the user cancels the dialog
    row.locator(".session-export").click()
    row.locator("button", has_text="Markdown").click()
    eventually(lambda: len(app.harness.save_requests) == 1)
    expect(page.locator(".toast")).to_have_count(0)


def test_a_file_that_cannot_be_written_is_a_one_line_error(app: App, tmp_path: Path) -> None:
    session_id = chat(app)
    app.harness.save_to = tmp_path / "missing folder" / "chat.md"
    page = app.page
    page.locator("#btn-sidebar").click()
    row = page.locator(f'.session[data-session-id="{session_id}"]')
    row.locator(".session-export").click()
    row.locator("button", has_text="Markdown").click()
    toast = page.locator(".toast.error")
    expect(toast).to_contain_text("The chat could not be saved there: Folder not found: ")
    expect(toast).to_contain_text("missing folder")
    assert "\n" not in toast.inner_text().strip()
    assert not (tmp_path / "missing folder").exists()


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_why_an_export_cannot_be_written_is_said_in_the_pages_language(
    make_app: object, fake_ollama: object, tmp_path: Path, lang: str
) -> None:
    """Onto a folder (EISDIR): the OS's reason in words, the folder's bidi control written out."""
    app: App = make_app(fake_ollama, language=lang)  # type: ignore[operator]
    session_id = chat(app)
    folder = tmp_path / "导出 \u202efdp.md 📁"
    folder.mkdir()
    app.harness.save_to = folder
    page = app.page
    page.locator("#btn-sidebar").click()
    row = page.locator(f'.session[data-session-id="{session_id}"]')
    row.locator(".session-export").click()
    row.locator("button.btn.small").first.click()  # Markdown
    said = {
        "en": f"The chat could not be saved there: {tmp_path}/导出 ⟨U+202E⟩fdp.md 📁 is a folder",
        "zh-CN": f"无法将对话保存到该位置：{tmp_path}/导出 ⟨U+202E⟩fdp.md 📁 是文件夹",
    }[lang]
    expect(page.locator(".toast.error")).to_contain_text(said)
    assert "Is a directory" not in page.locator(".toast.error").inner_text()
    assert app.page_errors == []


def test_the_not_saved_notice_offers_export_in_chinese(
    make_app: object, fake_ollama: object, tmp_path: Path
) -> None:
    app: App = make_app(fake_ollama, language="zh-CN", locale="zh-CN")  # type: ignore[operator]
    session_id = chat(app)
    save_notices(app.core)(session_id, "磁盘已满")
    notice = app.page.locator(".notice.warning")
    expect(notice).to_contain_text("此对话无法保存")
    target = tmp_path / "备份.md"
    app.harness.save_to = target
    button = notice.get_by_role("button", name="导出…")
    button.focus()
    app.page.keyboard.press("Enter")
    expect(app.page.locator(".toast")).to_contain_text(f"已保存到 {target}")
    assert ANSWER in target.read_text(encoding="utf-8")
    assert app.page_errors == []
