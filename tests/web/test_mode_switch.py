"""The mode at a glance in the real page: the header's switch shows the mode in force, Read
only refuses a write with a card that says so, a step up takes the user's own pick (Auto a
second click too), a turn keeps the mode it started in, and both languages."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama, text_turn, tool_turn
from tests.support.waiting import eventually
from tests.web.conftest import AppFactory, choose

pytestmark = pytest.mark.web

SWITCH = "#mode-switch"
MODE = ".mode-switch"
APPROVE = "#approval button[data-decision=approve]"


def test_read_only_refuses_a_write_with_a_clear_card(
    make_app: AppFactory, fake_ollama: FakeOllama
) -> None:
    app = make_app(fake_ollama)
    page = app.page
    switch = page.locator(SWITCH)
    expect(page.locator(MODE)).to_have_attribute("data-mode", "ask")
    expect(switch).to_have_text("Ask")
    choose(page, SWITCH, "read")  # a step down
    eventually(lambda: app.core.get_settings()["confirmation_mode"] == "read_only")
    expect(page.locator(MODE)).to_have_attribute("data-mode", "read")
    expect(switch).to_have_text("Read only")
    fake_ollama.script(
        tool_turn([("write_file", {"path": "x.txt", "content": "x"})]), text_turn("Ok.")
    )
    app.send("write")
    card = page.locator(".tool-card").first
    expect(card).to_have_attribute("data-status", "error")
    expect(card).to_contain_text("Not run: Read only mode refuses every change")
    assert not (app.workspace / "x.txt").exists()
    expect(page.locator("#approval")).to_be_hidden()
    # A script's pick cannot step back up.
    page.locator(f"{SWITCH}-list [data-value=ask]").evaluate("(el) => el.click()")
    expect(page.locator(MODE)).to_have_attribute("data-mode", "read")
    expect(switch).to_have_text("Read only")
    assert app.core.get_settings()["confirmation_mode"] == "read_only"
    assert app.page_errors == []


def test_a_step_up_takes_the_users_pick_and_auto_a_second_click(
    make_app: AppFactory, fake_ollama: FakeOllama
) -> None:
    app = make_app(fake_ollama, tools_enabled=False)
    page = app.page
    switch = page.locator(SWITCH)
    mode = page.locator(MODE)
    expect(mode).to_have_attribute("data-mode", "chat")
    switch.focus()
    page.wait_for_timeout(500)  # the switch arms a moment after the page is up

    def next_mode() -> None:
        """Open the list, move one down, choose: the user's own pick."""
        page.keyboard.press("ArrowDown")
        expect(page.locator(f"{SWITCH}-list")).to_be_visible()
        page.keyboard.press("ArrowDown")
        page.keyboard.press("Enter")

    next_mode()  # Read only
    eventually(lambda: app.core.get_settings()["tools_enabled"] is True)
    assert app.core.get_settings()["confirmation_mode"] == "read_only"
    expect(mode).to_have_attribute("data-mode", "read")  # the page has heard it too
    expect(switch).to_be_focused()
    next_mode()
    eventually(lambda: app.core.get_settings()["confirmation_mode"] == "all_writes")
    expect(mode).to_have_attribute("data-mode", "ask")
    next_mode()  # Auto: says the risk, waits for a second click
    confirm = page.locator("#mode-confirm .btn.danger")
    expect(confirm).to_be_enabled()
    assert app.core.get_settings()["confirmation_mode"] == "all_writes"
    confirm.click()
    eventually(lambda: app.core.get_settings()["confirmation_mode"] == "full_auto")
    expect(mode).to_have_attribute("data-mode", "auto")
    expect(page.locator("#mode-confirm")).to_be_hidden()


def test_a_turn_keeps_the_mode_it_started_in(make_app: AppFactory, fake_ollama: FakeOllama) -> None:
    app = make_app(fake_ollama)
    page = app.page
    fake_ollama.script(
        tool_turn([("write_file", {"path": "a.txt", "content": "a"})]),
        tool_turn([("write_file", {"path": "b.txt", "content": "b"})]),
        text_turn("Done."),
    )
    app.send("write two")
    expect(page.locator(APPROVE)).to_be_enabled()
    choose(page, SWITCH, "read")  # mid-turn
    eventually(lambda: app.core.get_settings()["confirmation_mode"] == "read_only")
    page.locator(APPROVE).click()
    # The second write of the same turn still asks (Ask), it is not refused (Read only).
    expect(page.locator(".tool-card")).to_have_count(2)
    expect(page.locator(APPROVE)).to_be_enabled()
    page.locator(APPROVE).click()
    expect(page.locator(".tool-card").nth(1)).to_have_attribute("data-status", "success")
    assert (app.workspace / "b.txt").read_text() == "b"


def test_the_switch_in_chinese(make_app: AppFactory, fake_ollama: FakeOllama) -> None:
    app = make_app(fake_ollama, language="zh-CN", confirmation_mode="full_auto")
    switch = app.page.locator(SWITCH)
    expect(switch).to_have_text("自动")
    options = app.page.locator(f"{SWITCH}-list [role=option]")
    assert [text.strip() for text in options.all_text_contents()] == [
        "仅聊天",
        "只读",
        "询问",
        "自动",
    ]
    expect(app.page.locator("#mode-switch-label")).to_have_text("模式：助手可以做什么")
    expect(switch).to_have_attribute("aria-labelledby", "mode-switch-label mode-switch")
