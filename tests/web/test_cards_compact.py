"""Finished tool cards are one line until opened, say what happened in the past tense, and a
failed command shows what it printed; one footer and one Retry per answer."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama, error_turn, text_turn, tool_turn
from tests.support.waiting import eventually
from tests.web.conftest import AppFactory, open_card

pytestmark = pytest.mark.web

APPROVE = "#approval button[data-decision=approve]"


def test_finished_cards_are_one_line_and_open_on_click(
    make_app: AppFactory, fake_ollama: FakeOllama
) -> None:
    app = make_app(fake_ollama, viewport=(460, 660))
    ws = app.workspace
    old = ws / "旧 🗂"
    (old / "sub").mkdir(parents=True)
    for i in range(7):
        (old / "sub" / f"f{i}.txt").write_text("x")
    (ws / "notes.md").write_text("# 笔记\n" * 30)
    fake_ollama.script(
        tool_turn([("read_file", {"path": str(ws / "notes.md")})]),
        tool_turn([("delete_file", {"path": str(old), "recursive": True})]),
        text_turn("Cleaned up."),
    )
    app.send("clean up")
    page = app.page
    expect(page.locator("#approval .ap-preview")).to_contain_text("Will delete 9 items")
    page.click(APPROVE)
    expect(page.locator(".msg.assistant .content").last).to_have_text("Cleaned up.")
    read, delete = page.locator(".tool-card").nth(0), page.locator(".tool-card").nth(1)
    for card in (read, delete):
        expect(card.locator(".tc-toggle")).to_have_attribute("aria-expanded", "false")
        expect(card.locator(".tc-details")).to_be_hidden()
        # One line: the summary row is the whole card.
        box = card.bounding_box()
        assert box is not None and box["height"] < 48, box
    # The friendly name once (the tool's own name only as a tooltip), the key argument.
    expect(read.locator(".tc-name")).to_have_text("Read file")
    assert "read_file" not in read.inner_text()
    expect(read.locator(".tc-arg")).to_contain_text("notes.md")
    expect(read.locator(".tc-time")).to_be_visible()
    # Past tense after the fact, in the line and in the opened card.
    expect(delete.locator(".tc-status")).to_have_text("Deleted 9 items")
    open_card(delete)
    expect(delete.locator(".pv-label")).to_have_text("Deleted 9 items:")
    expect(delete.locator(".plain.tree")).to_contain_text("f0.txt")
    delete.locator(".tc-toggle").click()
    expect(delete.locator(".tc-details")).to_be_hidden()
    assert not old.exists()
    # Keyboard: the summary is a button.
    read.locator(".tc-toggle").focus()
    page.keyboard.press("Enter")
    expect(read.locator(".excerpt")).to_be_visible()
    assert app.page_errors == []


def test_a_failed_command_shows_its_output(make_app: AppFactory, fake_ollama: FakeOllama) -> None:
    app = make_app(fake_ollama, run_command_enabled=True)
    command = "echo 构建开始; echo 'error: 缺少文件 ⚠' >&2; exit 2"
    fake_ollama.script(tool_turn([("run_command", {"command": command})]), text_turn("It failed."))
    app.send("build")
    page = app.page
    page.click(APPROVE)
    card = page.locator(".tool-card")
    expect(card).to_have_attribute("data-status", "error")
    # A failure stays open: the output is the reason.
    expect(card.locator(".tc-toggle")).to_have_attribute("aria-expanded", "true")
    expect(card.locator(".tc-error")).to_contain_text("exited with code 2")
    expect(card.locator(".plain.stdout")).to_have_text("构建开始")
    expect(card.locator(".plain.stderr")).to_have_text("error: 缺少文件 ⚠")
    # The folder it ran in, although the model gave none.
    expect(card.locator(".tc-args")).to_contain_text(str(app.workspace))
    assert card.inner_text().count("exit 2") == 1


def test_one_footer_per_answer_and_one_retry_on_a_failed_turn(
    make_app: AppFactory, fake_ollama: FakeOllama
) -> None:
    app = make_app(fake_ollama)
    (app.workspace / "a.txt").write_text("a\n")
    fake_ollama.script(
        tool_turn([("read_file", {"path": str(app.workspace / "a.txt")})]),
        tool_turn([("read_file", {"path": str(app.workspace / "a.txt")})]),
        text_turn("It says a."),
    )
    app.send("read it twice")
    page = app.page
    expect(page.locator(".msg.assistant .content").last).to_have_text("It says a.")
    expect(page.locator(".msg.assistant")).to_have_count(3)
    expect(page.locator(".msg-foot .model-badge")).to_have_count(1)
    expect(page.locator(".msg.assistant").last.locator(".msg-foot .model-badge")).to_be_visible()
    # The same after reopening the chat.
    app.reload()
    expect(page.locator(".msg.assistant")).to_have_count(3)
    expect(page.locator(".msg-foot .model-badge")).to_have_count(1)

    fake_ollama.script(
        tool_turn([("read_file", {"path": str(app.workspace / "a.txt")})]),
        error_turn(500, "model crashed"),
        text_turn("Recovered."),
    )
    app.send("again")
    notice = page.locator(".notice.error")
    expect(notice).to_contain_text("model crashed")
    expect(page.get_by_role("button", name="Retry")).to_have_count(1)
    expect(page.locator(".badge.warn", has_text="Stopped")).to_have_count(0)
    page.get_by_role("button", name="Retry").click()
    expect(page.locator(".msg.assistant .content").last).to_have_text("Recovered.")
    assert app.page_errors == []


def test_no_change_is_said_in_chinese(make_app: AppFactory, fake_ollama: FakeOllama) -> None:
    app = make_app(fake_ollama, language="zh-CN")
    same = app.workspace / "同.txt"
    same.write_text("一样\n", encoding="utf-8")
    fake_ollama.script(
        tool_turn([("write_file", {"path": str(same), "content": "一样\n"})]), text_turn("好。")
    )
    app.send("写")
    preview = app.page.locator("#approval .ap-preview")
    expect(preview).to_have_text("（无变化）")
    expect(app.page.locator("#approval-title")).to_have_text("是否允许“写入文件”？")
    app.page.click("#approval button[data-decision=deny]")


def test_tool_failures_are_said_in_chinese(make_app: AppFactory, fake_ollama: FakeOllama) -> None:
    app = make_app(fake_ollama, language="zh-CN", run_command_enabled=True)
    fake_ollama.script(
        tool_turn([("run_command", {"command": "exit 3"})]),
        tool_turn([("write_file", {"path": str(app.workspace / "否.txt"), "content": "x"})]),
        text_turn("好。"),
    )
    app.send("运行")
    page = app.page
    page.click(APPROVE)
    failed = page.locator(".tool-card").first
    expect(failed.locator(".tc-error")).to_have_text("命令退出，退出码 3")
    page.click("#approval button[data-decision=deny]")
    denied = page.locator(".tool-card").nth(1)
    expect(denied).to_have_attribute("data-status", "cancelled")
    denied.locator(".tc-toggle").click()
    expect(denied.locator(".tc-cancelled-note")).to_have_text("未执行：你拒绝了此操作")
    # The model still reads the tool's English sentence.
    assert "exited with code 3" in str(fake_ollama.chat_requests[1]["messages"][-1]["content"])
    assert app.page_errors == []


def test_a_closed_card_shows_the_file_name_of_a_long_path(
    make_app: AppFactory, fake_ollama: FakeOllama
) -> None:
    """A regression: the one line kept the start of a long path ("/tmp…")."""
    app = make_app(fake_ollama, language="zh-CN", viewport=(480, 640))
    folder = app.workspace / "项目 📁 很长的文件夹名称" / "second level folder" / "第三层"
    folder.mkdir(parents=True)
    name = "报告🎉\u202etxt.exe"
    (folder / name).write_text("内容")
    fake_ollama.script(tool_turn([("read_file", {"path": str(folder / name)})]), text_turn("好"))
    app.send("读")
    page = app.page
    expect(page.locator(".msg.assistant .content").last).to_have_text("好")
    card = page.locator(".tool-card").first
    expect(card.locator(".tc-toggle")).to_have_attribute("aria-expanded", "false")
    arg = card.locator(".tc-arg")
    shown = "报告🎉⟨U+202E⟩txt.exe"
    expect(arg.locator(".tc-file")).to_have_text(shown)
    # The file name is whole on screen; the folder is what gives way.
    fits = arg.locator(".tc-file").evaluate(
        "el => el.scrollWidth <= el.clientWidth + 1 && el.getBoundingClientRect().right"
        " <= el.closest('.tc-arg').getBoundingClientRect().right + 1"
    )
    assert fits, "the file name is cut"
    dir_cut = arg.locator(".tc-dir").evaluate("el => el.scrollWidth > el.clientWidth")
    assert dir_cut, "the folder is long enough here to be shortened"
    # The whole path, bidi control made visible, in the tooltip and in the opened card.
    full = str(folder / name).replace("\u202e", "⟨U+202E⟩")
    expect(arg).to_have_attribute("data-tip", full)  # the page's tooltip (tooltip.js)
    open_card(card)
    expect(card.locator(".tc-args")).to_contain_text(shown)
    assert "\u202e" not in card.inner_text()
    assert app.page_errors == []


@pytest.mark.parametrize("locale", ["en", "zh-CN"])
def test_an_answer_round_without_stats_spends_no_row_on_copy(
    make_app: AppFactory, fake_ollama: FakeOllama, locale: str
) -> None:
    """A regression: a round before tool calls had a footer row of one Copy button."""
    app = make_app(fake_ollama, language=locale)
    (app.workspace / "笔记.txt").write_text("内容\n")
    said = "先读一下文件 📄 \u202e好"
    fake_ollama.script(
        tool_turn([("read_file", {"path": str(app.workspace / "笔记.txt")})], content=said),
        text_turn("读完了。"),
    )
    page = app.page
    page.evaluate(
        """() => {
          window.__copied = [];
          const clipboard = { writeText: async (text) => { window.__copied.push(text); } };
          Object.defineProperty(navigator, 'clipboard', { value: clipboard });
        }"""
    )
    app.send("读")
    expect(page.locator(".msg.assistant .content").last).to_have_text("读完了。")
    first = page.locator(".msg.assistant").first
    foot = first.locator(".msg-foot")
    # No row below the tool card: the message ends where its card does.
    gap = first.evaluate(
        "m => m.getBoundingClientRect().bottom"
        " - m.querySelector('.calls').getBoundingClientRect().bottom"
    )
    assert gap < 2, f"{gap}px below the card"
    copy = foot.locator("button.act")
    expect(copy).to_have_count(1)
    # Out of sight until wanted (after its fade: the round's footer had a row while it ran).
    eventually(
        lambda: copy.evaluate("b => getComputedStyle(b.closest('.msg-foot')).opacity") == "0"
    )
    # The keyboard reaches it (and then it shows); it copies the round's text.
    page.locator(".msg.user .bubble").first.click()
    for _ in range(12):
        page.keyboard.press("Tab")
        if copy.evaluate("b => b === document.activeElement"):
            break
    assert copy.evaluate("b => b === document.activeElement"), "Copy is reachable by Tab"
    eventually(
        lambda: copy.evaluate("b => getComputedStyle(b.closest('.msg-foot')).opacity") == "1"
    )
    page.keyboard.press("Enter")
    eventually(lambda: page.evaluate("window.__copied") == [said])
    # The answer's last round keeps its footer row with the stats.
    expect(page.locator(".msg.assistant").last.locator(".msg-foot .model-badge")).to_be_visible()
    assert app.page_errors == []
