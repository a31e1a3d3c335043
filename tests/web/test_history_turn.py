"""Undo a whole turn from the change history, by keyboard, in real Chromium on the real journal.

One turn creates a file, edits one, moves one and deletes a folder (CJK, emoji and a bidi
override in the names); the user then edits the edited file by hand. "Undo this turn" puts
everything else back, newest first, reports exactly what was left and why, and offers for the
hand-edited file "Undo anyway" (replacing the user's edit) or "Keep"; nothing the user wrote is
overwritten without that word.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama, text_turn, tool_turn
from tests.support.waiting import eventually
from tests.web.conftest import App, AppFactory

pytestmark = pytest.mark.web

NEW = "报告 📊 \u202eevil.txt"
EDITED = "笔记 📝.txt"
MOVED_FROM, MOVED_TO = "草稿 ✏️.md", "定稿 ✅.md"
FOLDER = "旧资料 🗂"
ASKED = "整理我的文件 🗂 \u202e please"

WORDS = {
    "en": {
        "changes": "4 changes",
        "button": "Undo this turn: all 4 changes",
        "partial": "Undid 3 of 4 changes. Left as they are:",
        "why": "was modified after the agent's change",
        "anyway": "Undo anyway",
        "keep": "Keep",
        "kept": "Kept as it is now.",
        "done": "Every change of this turn is undone now.",
    },
    "zh-CN": {
        "changes": "4 项更改",
        "button": "撤销本轮的全部 4 项更改",
        "partial": "已撤销 4 项更改中的 3 项。以下保持原样：",
        "why": "又被修改过",
        "anyway": "仍然撤销",
        "keep": "保留",
        "kept": "已保留现在的样子。",
        "done": "本轮的所有更改现在都已撤销。",
    },
}


def changed_turn(make_app: AppFactory, fake: FakeOllama, lang: str) -> App:
    app = make_app(fake, confirmation_mode="full_auto", viewport=(460, 720), language=lang)
    ws = app.workspace
    (ws / EDITED).write_text("旧内容 old\n", encoding="utf-8")
    (ws / MOVED_FROM).write_text("# 草稿\n", encoding="utf-8")
    (ws / FOLDER / "内层").mkdir(parents=True)
    (ws / FOLDER / "内层" / "数据 🧾.csv").write_text("a,b\n", encoding="utf-8")
    fake.script(
        tool_turn(
            [
                ("write_file", {"path": str(ws / NEW), "content": "新文件 ✨\n"}),
                ("write_file", {"path": str(ws / EDITED), "content": "新内容\n"}),
            ]
        ),
        tool_turn(
            [("move_file", {"source": str(ws / MOVED_FROM), "destination": str(ws / MOVED_TO)})]
        ),
        tool_turn([("delete_file", {"path": str(ws / FOLDER), "recursive": True})]),
        text_turn("完成 ✅"),
    )
    app.send(ASKED)
    # Deleting a folder still asks (a damage budget) even in full auto: the user approves.
    app.page.get_by_role("alertdialog").get_by_role("button", name="Approve", exact=True).or_(
        app.page.get_by_role("alertdialog").get_by_role("button", name="允许", exact=True)
    ).click()
    expect(app.page.locator(".msg.assistant .content").last).to_have_text("完成 ✅")
    assert not (ws / FOLDER).exists() and (ws / MOVED_TO).exists() and (ws / NEW).exists()
    (ws / EDITED).write_text("the user's own edit ✍️\n", encoding="utf-8")
    return app


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_undo_this_turn_reports_what_was_left_and_undoes_it_anyway_on_the_users_word(
    make_app: AppFactory, fake_ollama: FakeOllama, lang: str
) -> None:
    words = WORDS[lang]
    app = changed_turn(make_app, fake_ollama, lang)
    ws, page = app.workspace, app.page
    page.click("#btn-history")
    group = page.locator("#history .hist-group[data-turn]").first
    expect(group.locator(".hist-chat")).to_have_text("整理我的文件 🗂 ⟨U+202E⟩ please")
    expect(group.locator(".hist-when")).to_contain_text(words["changes"])
    assert "\u202e" not in page.locator("#history").inner_text()

    # By keyboard: the turn's button is the first stop after Close.
    expect(page.locator("#history-close")).to_be_focused()
    page.keyboard.press("Tab")
    expect(group.get_by_role("button", name=words["button"])).to_be_focused()
    page.keyboard.press("Enter")

    report = group.locator(".hist-report")
    expect(report).to_be_focused()
    expect(report.locator(".hist-report-head")).to_have_text(words["partial"])
    left = report.locator(".hist-left")
    expect(left).to_have_count(1)
    expect(left.locator(".hist-path")).to_have_attribute("data-tip", str(ws / EDITED))
    expect(left.locator(".tc-error")).to_contain_text(words["why"])
    eventually(lambda: not (ws / NEW).exists())
    assert not (ws / MOVED_TO).exists()
    assert (ws / MOVED_FROM).read_text(encoding="utf-8") == "# 草稿\n"
    assert (ws / FOLDER / "内层" / "数据 🧾.csv").read_text(encoding="utf-8") == "a,b\n"
    assert (ws / EDITED).read_text(encoding="utf-8") == "the user's own edit ✍️\n"

    # Keep first: nothing changes on disk, and the choice is said.
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    keep = left.get_by_role("button", name=words["keep"], exact=False)
    expect(keep).to_be_focused()
    page.keyboard.press("Enter")
    expect(left.locator(".hist-kept")).to_have_text(words["kept"])
    assert (ws / EDITED).read_text(encoding="utf-8") == "the user's own edit ✍️\n"
    app.screenshot(f"history-turn-kept-{lang}")
    assert app.page_errors == []


def test_undo_anyway_replaces_the_users_edit_only_when_asked(
    make_app: AppFactory, fake_ollama: FakeOllama
) -> None:
    app = changed_turn(make_app, fake_ollama, "en")
    ws, page = app.workspace, app.page
    page.click("#btn-history")
    group = page.locator("#history .hist-group[data-turn]").first
    group.get_by_role("button", name=WORDS["en"]["button"]).click()
    report = group.locator(".hist-report")
    expect(report.locator(".hist-report-head")).to_have_text(WORDS["en"]["partial"])
    anyway = report.get_by_role("button", name="Undo the change to", exact=False)
    expect(anyway).to_have_accessible_name(
        f"Undo the change to {ws / EDITED} anyway, replacing what changed since"
    )
    app.screenshot("history-turn-left-en")
    anyway.focus()
    page.keyboard.press("Enter")
    expect(report.locator(".hist-report-head")).to_have_text(WORDS["en"]["done"])
    expect(report).to_be_focused()
    assert (ws / EDITED).read_text(encoding="utf-8") == "旧内容 old\n"
    expect(group.locator(".tc-undone")).to_have_count(4)
    # The user's version was kept first, as a change of its own: undone, it comes back.
    newest, *turn = app.core.changes()
    assert newest["tool"] == "undo_anyway" and all(e["undone"] for e in turn)
    kept = page.locator("#history .hist-group").first
    expect(kept.locator(".hist-chat")).to_have_text(
        "Your version, kept before “Undo anyway” replaced it"
    )
    expect(kept.locator(".hist-tool")).to_have_text("Undo anyway (your version kept)")
    kept.get_by_role("button", name="Undo the change to", exact=False).click()
    expect(kept.locator(".tc-undone")).to_have_count(1)
    assert (ws / EDITED).read_text(encoding="utf-8") == "the user's own edit ✍️\n"
    assert app.page_errors == []
