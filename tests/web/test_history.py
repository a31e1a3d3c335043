"""The change history panel: what the agent changed, newest first, grouped by turn, with Undo
per change and for a whole turn, on the real journal."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama, text_turn, tool_turn
from tests.support.waiting import eventually
from tests.web.conftest import AppFactory
from tray_app.tools.journal.journal import Journal

pytestmark = pytest.mark.web


def test_history_lists_changes_and_undoes_one_or_a_whole_turn(
    make_app: AppFactory, fake_ollama: FakeOllama
) -> None:
    app = make_app(fake_ollama, confirmation_mode="full_auto", viewport=(460, 660))
    ws = app.workspace
    first, second, third = ws / "一.txt", ws / "two 🙂.txt", ws / "\u202etxt.exe"
    fake_ollama.script(
        tool_turn([("write_file", {"path": str(first), "content": "1\n"})]),
        text_turn("One."),
        tool_turn(
            [
                ("write_file", {"path": str(second), "content": "2\n"}),
                ("write_file", {"path": str(third), "content": "3\n"}),
            ]
        ),
        text_turn("Two."),
    )
    page = app.page
    app.send("first")
    expect(page.locator(".msg.assistant .content").last).to_have_text("One.")
    app.send("second")
    expect(page.locator(".msg.assistant .content").last).to_have_text("Two.")
    assert first.exists() and second.exists() and third.exists()

    page.click("#btn-history")
    panel = page.locator("#history")
    expect(panel).to_be_visible()
    expect(page.locator("#history-close")).to_be_focused()
    groups = panel.locator(".hist-group")
    expect(groups).to_have_count(2)
    # Newest first: the second turn's two writes, then the first's.
    newest = groups.nth(0)
    expect(newest.locator(".hist-row")).to_have_count(2)
    expect(newest.locator(".hist-path").first).to_contain_text("⟨U+202E⟩txt.exe")
    assert "\u202e" not in panel.inner_text()
    expect(groups.nth(1).locator(".hist-path")).to_contain_text("一.txt")
    # The turn is named by the question that led to it, with how many changes it made.
    expect(newest.locator(".hist-chat")).to_have_text("second")
    expect(newest.locator(".hist-when")).to_contain_text("2 changes")
    # Undo the newest turn as one, then the single change of the first.
    newest.get_by_role("button", name="Undo this turn: all 2 changes").click()
    eventually(lambda: not second.exists() and not third.exists())
    expect(newest.locator(".tc-undone")).to_have_count(2)
    expect(newest.locator(".hist-report")).to_have_text("Undid all 2 changes of this turn.")
    expect(newest.locator(".hist-report")).to_be_focused()
    assert first.exists()
    groups.nth(1).get_by_role("button", name="Undo").click()
    eventually(lambda: not first.exists())
    expect(groups.nth(1).locator(".tc-undone")).to_have_count(1)
    # The same list as the CLI's: the journal says all three are undone.
    assert all(e["undone"] for e in app.core.changes())
    page.keyboard.press("Escape")
    expect(panel).to_be_hidden()
    expect(page.locator("#prompt")).to_be_focused()  # where the user types next
    assert app.page_errors == []


def test_history_in_chinese_when_empty(make_app: AppFactory, fake_ollama: FakeOllama) -> None:
    app = make_app(fake_ollama, language="zh-CN")
    app.page.click("#btn-history")
    expect(app.page.locator("#history .empty")).to_have_text("助手还没有更改任何文件。")
    expect(app.page.locator("#history-title")).to_have_text("更改记录")


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_settings_list_the_built_in_refusals_read_only(
    make_app: AppFactory, fake_ollama: FakeOllama, lang: str
) -> None:
    from pathlib import Path

    app = make_app(fake_ollama, language=lang, blocked_dirs=["/srv/私人"])
    page = app.page
    page.click("#btn-settings")
    box = page.locator("#settings .builtins")
    expect(box.locator("summary")).to_have_text(
        "Always blocked (built in)" if lang == "en" else "始终禁止（内置）"
    )
    box.locator("summary").click()
    folders = box.locator(".builtin-list").first
    expect(folders).to_contain_text("/etc")
    expect(folders).to_contain_text(str(Path.home() / ".ssh"))
    expect(box.locator(".builtin-list.names")).to_contain_text(".env")
    expect(box.locator(".builtin-list.names")).to_contain_text(".kube/config")
    # Beside the user's own list, which stays editable; the built-ins have no controls.
    expect(page.locator("#settings .dir-path", has_text="/srv/私人")).to_be_visible()
    assert box.locator("button, input").count() == 0
    assert app.page_errors == []


def test_in_chinese_why_a_change_cannot_be_undone_is_chinese(
    make_app: AppFactory, fake_ollama: FakeOllama
) -> None:
    """A change too large for the journal's budget (recorded by another process on the same
    journal) cannot be undone: its tip says why in Chinese by the journal's code, and in English
    after a language switch."""
    app = make_app(fake_ollama, language="zh-CN")
    target = app.workspace / "大文件 📦\u202etxt"
    target.write_text("x" * 3_000_000, encoding="utf-8")
    other = Journal(app.paths.journal_dir, max_bytes=2 * 1024 * 1024)
    entry = other.record(call_id="call-1", tool="write_file", path=target, required=False)
    target.write_text("small", encoding="utf-8")
    assert other.commit(entry)  # "undo is not available: ..."
    app.page.click("#btn-history")
    note = app.page.locator("#history .hist-note")
    expect(note).to_have_text("无法撤销")
    expect(note).to_have_attribute(
        "data-tip", "此更改无法撤销：未保留副本：它的 3.0 MB 超出撤销记录的 2 MB 上限"
    )
    app.page.evaluate("import('./js/lib/i18n.js').then((m) => m.setLanguage('en'))")
    expect(note).to_have_attribute(
        "data-tip",
        "Undo is not available for this change: no copy was kept: its 3.0 MB do not fit in the"
        " journal's 2 MB",
    )
    assert app.page_errors == []


def test_in_chinese_a_history_that_cannot_be_read_says_why_in_chinese(
    make_app: AppFactory, fake_ollama: FakeOllama
) -> None:
    """The journal's folder is a file: the panel says so in Chinese, not the journal's English."""
    app = make_app(fake_ollama, language="zh-CN")
    journal = app.paths.journal_dir
    journal.parent.mkdir(parents=True, exist_ok=True)
    journal.write_text("不是文件夹")
    app.page.click("#btn-history")
    error = app.page.locator("#history .tc-error")
    expect(error).to_have_text(
        f"无法读取更改列表：无法创建撤销记录文件夹 {journal}：该位置已有一个文件"
    )
    assert app.page_errors == []


def test_a_change_says_what_its_undo_copy_takes_and_a_created_file_no_size(
    make_app: AppFactory, fake_ollama: FakeOllama
) -> None:
    """The size on a row is the disk its undo copy takes. It was shown bare, so a created file
    (nothing to keep) read "0 B" under a write of 21 bytes; now it is said in words, only when
    a copy is kept."""
    app = make_app(fake_ollama, language="zh-CN", confirmation_mode="full_auto")
    created = app.workspace / "笔记_😀_\u202etxt.md"
    edited = app.workspace / "旧文件 שלום.txt"
    old = "旧的内容 😀\n" * 300
    edited.write_text(old, encoding="utf-8")
    fake_ollama.script(
        tool_turn(
            [
                ("write_file", {"path": str(created), "content": "你好 שלום 😀\n"}),
                ("write_file", {"path": str(edited), "content": "新\n"}),
            ]
        ),
        text_turn("写好了。"),
    )
    page = app.page
    app.send("写两个文件")
    expect(page.locator(".msg.assistant .content").last).to_have_text("写好了。")
    page.click("#btn-history")
    rows = page.locator("#history .hist-row")
    expect(rows).to_have_count(2)
    created_row = rows.filter(has_text="笔记_")
    edited_row = rows.filter(has_text="旧文件")
    expect(created_row.locator(".hist-size")).to_have_count(0)
    kept = {e["path"]: e["size"] for e in app.core.changes()}[str(edited)]
    assert kept >= len(old.encode("utf-8"))  # the old text is what undo puts back
    shown = page.evaluate(f"import('./js/lib/format.js').then((m) => m.bytes({kept}))")
    expect(edited_row.locator(".hist-size")).to_have_text(f"撤销副本：{shown}")
    assert app.page_errors == []


def test_a_change_undone_from_the_history_stays_undone_on_its_card_when_read_again(
    make_app: AppFactory, fake_ollama: FakeOllama
) -> None:
    """Undone from the history panel, then the chat read again (the popup reopened, the app
    restarted): the card said "Undo" again, and its click could only fail ("already undone")."""
    app = make_app(fake_ollama, language="zh-CN", confirmation_mode="full_auto")
    target = app.workspace / "第二个 😀 \u202etxt.md"
    kept = app.workspace / "שלום.txt"
    fake_ollama.script(
        tool_turn(
            [
                ("write_file", {"path": str(target), "content": "二\n"}),
                ("write_file", {"path": str(kept), "content": "留下\n"}),
            ]
        ),
        text_turn("写好了。"),
    )
    page = app.page
    app.send("写两个文件")
    expect(page.locator(".msg.assistant .content").last).to_have_text("写好了。")
    page.click("#btn-history")
    row = page.locator("#history .hist-row").filter(has_text="第二个")
    row.get_by_role("button").click()
    eventually(lambda: not target.exists())
    expect(row.locator(".tc-undone")).to_be_visible()
    app.reload()
    cards = page.locator(".tool-card")
    expect(cards).to_have_count(2)
    undone, still = cards.filter(has_text="第二个"), cards.filter(has_text="שלום")
    expect(undone.locator(".tc-undone")).to_have_text("已撤销")
    expect(undone.get_by_role("button", name="撤销")).to_have_count(0)
    expect(still.get_by_role("button", name="撤销")).to_have_count(1)
    assert kept.exists()
    assert app.page_errors == []
