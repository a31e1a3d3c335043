"""The end of a turn that changed files, in the chat: one summary card (what was created,
edited, moved, deleted, with +/− lines), each row opening its tool card, and "Undo this turn"
with its report; in real Chromium on the real journal, by keyboard, in both languages."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama
from tests.web.conftest import AppFactory
from tests.web.test_history_turn import EDITED, FOLDER, MOVED_FROM, MOVED_TO, NEW, changed_turn

pytestmark = pytest.mark.web

WORDS = {
    "en": {
        "title": "This turn changed 4 files",
        "verbs": ["Created", "Edited", "Moved", "Deleted"],
        "lines": "+1 −1",
        "button": "Undo this turn: all 4 changes",
        "partial": "Undid 3 of 4 changes. Left as they are:",
        "anyway": "Undo the change to",
        "done": "Every change of this turn is undone now.",
    },
    "zh-CN": {
        "title": "本轮更改了 4 个文件",
        "verbs": ["新建", "编辑", "移动", "删除"],
        "lines": "+1 −1 行",
        "button": "撤销本轮的全部 4 项更改",
        "partial": "已撤销 4 项更改中的 3 项。以下保持原样：",
        "anyway": "仍然撤销对",
        "done": "本轮的所有更改现在都已撤销。",
    },
}


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_a_turn_ends_with_its_changes_and_undoes_them_as_one(
    make_app: AppFactory, fake_ollama: FakeOllama, lang: str
) -> None:
    words = WORDS[lang]
    app = changed_turn(make_app, fake_ollama, lang)  # the user edited EDITED after the turn
    ws, page = app.workspace, app.page
    summary = page.locator(".msg.assistant .turn-summary")
    expect(summary).to_have_count(1)
    expect(summary.locator(".ts-title")).to_have_text(words["title"])
    expect(summary.locator(".ts-verb")).to_have_text(words["verbs"])
    expect(summary.locator(".ts-path").nth(0)).to_contain_text("⟨U+202E⟩evil.txt")
    expect(summary.locator(".ts-lines")).to_have_text([words["lines"]])  # the edit's diff
    assert "\u202e" not in summary.inner_text()
    expect(summary.locator(".ts-path").nth(2)).to_contain_text(f"{MOVED_FROM} → ")

    # A row opens its card (the diff) and takes the focus there.
    summary.locator(".ts-open").nth(1).focus()
    page.keyboard.press("Enter")
    card = page.locator(".tool-card").nth(1)
    expect(card.locator(".tc-toggle")).to_be_focused()
    expect(card.locator(".tc-toggle")).to_have_attribute("aria-expanded", "true")
    expect(card.locator(".diff, .pv-diff, pre").first).to_be_visible()

    # Undo this turn, by keyboard: the file the user edited since is left, and said.
    undo = summary.get_by_role("button", name=words["button"])
    undo.focus()
    page.keyboard.press("Enter")
    report = summary.locator(".hist-report")
    expect(report).to_be_focused()
    expect(report.locator(".hist-report-head")).to_have_text(words["partial"])
    expect(summary.locator(".tc-undone")).to_have_count(3)
    assert not (ws / NEW).exists() and not (ws / MOVED_TO).exists()
    assert (ws / FOLDER / "内层" / "数据 🧾.csv").exists()
    assert (ws / EDITED).read_text(encoding="utf-8") == "the user's own edit ✍️\n"

    # Undo anyway, on the user's word only.
    report.get_by_role("button", name=words["anyway"], exact=False).click()
    expect(report.locator(".hist-report-head")).to_have_text(words["done"])
    expect(summary.locator(".tc-undone")).to_have_count(4)
    assert (ws / EDITED).read_text(encoding="utf-8") == "旧内容 old\n"
    expect(summary.get_by_role("button", name=words["button"])).to_have_count(0)
    app.screenshot(f"turn-summary-{lang}")

    # Reading the chat again shows the same summary, all undone.
    app.reload()
    again = page.locator(".msg.assistant .turn-summary")
    expect(again.locator(".tc-undone")).to_have_count(4)
    assert app.page_errors == []


def test_a_shortened_path_never_shows_a_doubled_separator(
    make_app: AppFactory, fake_ollama: FakeOllama
) -> None:
    """The summary's Moved row showed "…//workspace": a tail cut right at a separator."""
    app = make_app(fake_ollama)
    path = "/tmp/pytest-of-root/a-long-folder-name-here/abcdefgh/ijklm.txt"
    got = app.page.evaluate(f"import('./js/lib/format.js').then((m) => m.middlePath({path!r}, 40))")
    assert got == "/tmp/pytest-of-root/…/abcdefgh/ijklm.txt"
