"""When history is off this run (a damaged database), the page says so once, in its language,
with the path's direction control written out."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama
from tests.i18n.test_history_warnings import damaged_history
from tests.web.conftest import AppFactory
from tray_app.store.opening import open_chat_store

pytestmark = pytest.mark.web

SAID = {
    "en": ("History is off: The chat history ", "is damaged or is not a database"),
    "zh-CN": ("本次不保存聊天记录：聊天记录 ", "已损坏或不是数据库（“file is not a database”）"),
}


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_a_damaged_history_is_said_in_the_pages_language(
    make_app: AppFactory, fake_ollama: FakeOllama, tmp_path: Path, lang: str
) -> None:
    paths = damaged_history(tmp_path / "历史 \u202egpj")
    _chats, warning = open_chat_store(paths, recover=False)
    assert warning
    app = make_app(fake_ollama, language=lang, history_warning=warning)
    note = app.page.locator(".toast.warning")
    expect(note).to_have_count(1)
    text = note.inner_text()
    start, middle = SAID[lang]
    assert text.startswith(start) and middle in text, text
    assert "⟨U+202E⟩gpj" in text and "\u202e" not in text
    if lang == "zh-CN":
        assert "History" not in text
    app.screenshot(f"history-warning-{lang}")
    assert app.page_errors == []
