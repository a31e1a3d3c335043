"""An OS error inside a reason (an undo copy that could not be read) is said in the page's language
by its errno; an errno without words keeps the OS's own text, quoted in Chinese."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama, text_turn, tool_turn
from tests.web.conftest import AppFactory
from tray_app.tools.journal import journal

pytestmark = pytest.mark.web

CASES = {
    # errno, OS text, what the card says in English, in Chinese
    "known": (
        errno.EACCES,
        "Permission denied",
        "no copy was kept (permission denied)",
        "未保留副本（没有权限）",
    ),
    "unknown": (
        errno.EIO,
        "Input/output error",
        "no copy was kept (Input/output error)",
        "未保留副本（“Input/output error”）",
    ),
}


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
@pytest.mark.parametrize("case", list(CASES))
def test_an_unreadable_undo_copy_says_why_in_the_pages_language(
    make_app: AppFactory,
    fake_ollama: FakeOllama,
    monkeypatch: pytest.MonkeyPatch,
    lang: str,
    case: str,
) -> None:
    number, os_text, english, chinese = CASES[case]

    def unreadable(path: Path, *_args: object, **_kw: object) -> None:
        raise OSError(number, os_text, str(path))

    monkeypatch.setattr(journal, "capture", unreadable)
    app = make_app(fake_ollama, language=lang, confirmation_mode="full_auto")
    target = app.workspace / "合同 \u202egpj.exe 📄.txt"
    target.write_text("旧\n", encoding="utf-8")
    fake_ollama.script(
        tool_turn([("write_file", {"path": str(target), "content": "新\n"})]), text_turn("好。")
    )
    app.send("改")
    note = app.page.locator(".tool-card .tc-no-undo").first
    expect(note).to_be_attached()  # in the card's foot, folded while the card is one line
    said = note.get_attribute("data-tip") or ""
    assert (chinese if lang == "zh-CN" else english) in said, said
    if lang == "zh-CN" and case == "known":
        assert os_text not in said
    assert target.read_text(encoding="utf-8") == "新\n"  # the change went ahead without a copy
    assert app.page_errors == []
