"""When the approval panel closes under the focus (the user clicked Allow, or pressed Esc to
deny), the focus goes to the composer: before, it fell to the page's body, and what the user
typed next went nowhere (seen in the real popup)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import text_turn, tool_turn
from tests.web.conftest import App

pytestmark = pytest.mark.web

APPROVE = "#approval button.btn.primary"
NAME = "笔记_😀_\u202etxt.md"


def test_typing_after_a_decision_goes_to_the_composer(app: App) -> None:
    first = app.workspace / NAME
    second = app.workspace / "שלום.txt"
    app.fake.script(
        tool_turn([("write_file", {"path": str(first), "content": "你好 😀\n"})], content="好的。"),
        text_turn("写好了。"),
        tool_turn([("write_file", {"path": str(second), "content": "x\n"})], content="好的。"),
        text_turn("不写了。"),
    )
    page = app.page
    app.send("写一个文件")
    expect(page.locator(APPROVE)).to_be_enabled()
    page.click(APPROVE)
    expect(page.locator("#approval")).to_be_hidden()
    expect(page.locator(".msg.assistant .content").last).to_have_text("写好了。")
    assert first.read_text(encoding="utf-8") == "你好 😀\n"
    expect(page.locator("#prompt")).to_be_focused()
    page.keyboard.type("下一个 😀 שלום")
    expect(page.locator("#prompt")).to_have_value("下一个 😀 שלום")
    page.keyboard.press("Enter")
    expect(page.locator(APPROVE)).to_be_enabled()
    page.focus("#approval")
    page.keyboard.press("Escape")
    expect(page.locator("#approval")).to_be_hidden()
    expect(page.locator(".tool-card").last).to_have_attribute("data-status", "cancelled")
    assert not second.exists()
    expect(page.locator("#prompt")).to_be_focused()


DENY = "#approval button[data-decision=deny]"


def test_an_approval_is_answered_from_the_message_box_with_its_chords(app: App) -> None:
    first = app.workspace / "一.txt"
    second = app.workspace / "שני 😀.txt"
    app.fake.script(
        tool_turn([("write_file", {"path": str(first), "content": "1\n"})], content="好的。"),
        text_turn("写好了。"),
        tool_turn([("write_file", {"path": str(second), "content": "2\n"})], content="好的。"),
        text_turn("不写了。"),
    )
    page = app.page
    app.send("写两个文件")
    page.keyboard.type("草稿 😀")  # the user goes on typing while the call waits
    expect(page.locator(APPROVE)).to_be_enabled()
    expect(page.locator("#prompt")).to_be_focused()  # the panel did not take the keyboard
    # The chords are on the buttons and read out with the question.
    expect(page.locator(f"{APPROVE} kbd")).to_have_text("Ctrl+Enter")
    expect(page.locator(f"{DENY} kbd")).to_have_text("Ctrl+Shift+⌫")
    expect(page.locator(APPROVE)).to_have_attribute("aria-keyshortcuts", "Control+Enter Meta+Enter")
    expect(page.locator("#announce-assertive")).to_contain_text(
        "Press Ctrl+Enter to approve, Ctrl+Shift+Backspace to deny."
    )
    page.keyboard.press("Control+Enter")
    expect(page.locator(".msg.assistant .content").last).to_have_text("写好了。")
    assert first.read_text(encoding="utf-8") == "1\n"
    expect(page.locator("#prompt")).to_have_value("草稿 😀")  # not sent, not changed
    expect(page.locator("#prompt")).to_be_focused()

    page.locator("#prompt").fill("")
    page.keyboard.type("again")
    page.keyboard.press("Enter")
    expect(page.locator(APPROVE)).to_be_enabled()
    page.keyboard.type("草稿 2")
    page.keyboard.press("Control+Shift+Backspace")
    expect(page.locator("#approval")).to_be_hidden()
    expect(page.locator(".tool-card").last).to_have_attribute("data-status", "cancelled")
    assert not second.exists()
    expect(page.locator("#prompt")).to_have_value("草稿 2")
    expect(page.locator("#prompt")).to_be_focused()


def test_the_chords_are_announced_in_chinese(make_app: Any, fake_ollama: Any) -> None:
    app = make_app(fake_ollama, language="zh-CN", theme="dark")
    target = app.workspace / "笔记.txt"
    app.fake.script(
        tool_turn([("write_file", {"path": str(target), "content": "x\n"})], content="好的。"),
        text_turn("好了。"),
    )
    page = app.page
    app.send("写")
    expect(page.locator(APPROVE)).to_be_enabled()
    expect(page.locator("#announce-assertive")).to_contain_text(
        "按 Ctrl+Enter 批准，按 Ctrl+Shift+Backspace 拒绝。"
    )
    app.screenshot("approval-chords-zh-dark")
    page.keyboard.press("Control+Enter")
    expect(page.locator(".msg.assistant .content").last).to_have_text("好了。")
    assert target.read_text(encoding="utf-8") == "x\n"
    assert app.page_errors == []


def test_closing_a_panel_or_form_puts_the_focus_in_the_message_box(app: App) -> None:
    page = app.page
    page.click("#btn-history")
    expect(page.locator("#history")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.locator("#prompt")).to_be_focused()
    page.click("#btn-settings")
    expect(page.locator("#settings")).to_be_visible()
    page.click("#settings-close")
    expect(page.locator("#prompt")).to_be_focused()
    # The window got the keyboard back with nothing focused (a native dialog was cancelled).
    page.evaluate("document.activeElement.blur(); window.dispatchEvent(new FocusEvent('focus'))")
    expect(page.locator("#prompt")).to_be_focused()
    assert app.harness.hide_calls == 0


def test_no_chord_approves_an_unsandboxed_command(make_app: Any, fake_ollama: Any) -> None:
    app = make_app(fake_ollama, run_command_enabled=True, sandbox_enabled=False)
    marker = app.workspace / "ran.txt"
    fake_ollama.script(
        tool_turn([("run_command", {"command": f"echo hi > '{marker}'"})]), text_turn("Ok.")
    )
    page = app.page
    app.send("run it")
    page.keyboard.type("草稿")
    risky = page.locator("#approval button.btn.risky")
    expect(risky).to_be_enabled()
    expect(risky.locator("kbd")).to_have_count(0)  # no chord shown on it
    expect(page.locator(f"{DENY} kbd")).to_have_text("Ctrl+Shift+⌫")
    expect(page.locator("#announce-assertive")).to_contain_text(
        "Press Ctrl+Shift+Backspace to deny."
    )
    page.keyboard.press("Control+Enter")
    expect(risky).to_be_focused()  # taken to the button, nothing approved
    expect(page.locator("#approval")).to_be_visible()
    assert not marker.exists()
    expect(page.locator("#prompt")).to_have_value("草稿")
    page.keyboard.press("Control+Shift+Backspace")
    expect(page.locator("#approval")).to_be_hidden()
    assert not marker.exists()
    assert app.page_errors == []


def test_shown_again_the_focus_goes_to_a_waiting_approval(app: App) -> None:
    target = app.workspace / "再见.txt"
    app.fake.script(
        tool_turn([("write_file", {"path": str(target), "content": "x\n"})], content="好的。"),
        text_turn("好了。"),
    )
    page = app.page
    app.send("写")
    expect(page.locator(APPROVE)).to_be_enabled()
    page.locator("#btn-history").focus()  # a button had the focus when the popup hid
    # What the popup's page sees when the window is shown again.
    page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    expect(page.locator("#approval")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator(".msg.assistant .content").last).to_have_text("好了。")
    assert target.read_text(encoding="utf-8") == "x\n"
    expect(page.locator("#prompt")).to_be_focused()


@pytest.mark.parametrize(("width", "closes"), [(420, True), (1000, False)])
def test_choosing_a_chat_in_the_list(
    make_app: Any, fake_ollama: Any, width: int, closes: bool
) -> None:
    """The overlay list closes on a choice: the focus goes to the message box. The docked
    list stays: the focus stays on the chosen row, for the next arrow key."""
    app = make_app(fake_ollama, viewport=(width, 700))
    app.core.new_session()
    app.core.new_session()
    app.reload()
    page = app.page
    if closes:
        page.click("#btn-sidebar")
    row = page.locator(".session-open").nth(1)
    row.focus()
    page.keyboard.press("Enter")
    if closes:
        expect(page.locator("#sidebar")).not_to_have_class("sidebar open")
        expect(page.locator("#prompt")).to_be_focused()
    else:
        expect(page.locator(".session-open").nth(1)).to_be_focused()
    assert app.page_errors == []
