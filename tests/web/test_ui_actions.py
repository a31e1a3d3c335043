"""What the tray menu and notification clicks ask of the page (desktop/ui_pump.py posts them
into the same ``metona.dispatch`` batches as Core events)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import text_turn
from tests.web.conftest import App

pytestmark = pytest.mark.web


def dispatch(app: App, event: dict[str, str]) -> None:
    app.page.evaluate("(ev) => window.metona.dispatch([ev])", event)


def test_tray_actions_open_settings_and_a_given_chat(app: App) -> None:
    assert app.fake is not None
    app.fake.script(text_turn("First chat answer."))
    app.send("first question")
    expect(app.page.locator(".msg.assistant").last).to_contain_text("First chat answer.")
    first = app.core.list_sessions()[0]["id"]
    second = app.core.new_session()["id"]

    dispatch(app, {"type": "ui_action", "action": "open_settings"})
    expect(app.page.locator("#settings")).to_be_visible()

    dispatch(app, {"type": "ui_action", "action": "open_session", "session_id": second})
    expect(app.page.locator("#settings")).to_be_hidden()
    expect(app.page.locator(".msg.assistant")).to_have_count(0)

    dispatch(app, {"type": "ui_action", "action": "show_pending", "session_id": first})
    expect(app.page.locator(".msg.assistant").last).to_contain_text("First chat answer.")


def test_on_wayland_the_hotkey_setting_says_how_to_bind_toggle(app: App) -> None:
    page = app.page
    page.click("#btn-settings")
    expect(page.locator("#settings")).to_be_visible()
    hotkey_note = page.locator(":has(> #set-hotkey) .note")
    expect(hotkey_note).to_have_count(0)  # X11 or no display: no note
    page.keyboard.press("Escape")
    app.harness.hotkey_environ = {"WAYLAND_DISPLAY": "wayland-0"}
    page.click("#btn-settings")
    note = hotkey_note
    expect(note).to_contain_text("metona-tray --toggle")
    app.core.update_settings({"language": "zh-CN"})
    expect(note).to_contain_text("Wayland")
    expect(note).to_contain_text("键盘设置")


def test_without_a_keyring_the_api_key_field_says_keys_last_the_session(app: App) -> None:
    assert app.core.get_settings()["keyring_usable"] is False  # the harness Core has no keyring
    app.page.click("#btn-settings")
    note = app.page.locator(":has(> #set-api_key) .note")
    expect(note).to_contain_text("kept only until the app quits")
    app.page.fill("#set-api_key", "sk-test")
    app.page.press("#set-api_key", "Enter")
    expect(app.page.locator("#settings")).to_contain_text("the key was not saved")


def test_the_trays_auto_names_the_risk_and_waits_for_a_click(app: App) -> None:
    """The tray's "Auto…" only asks: the page shows the risk, the user's click confirms."""
    dispatch(app, {"type": "ui_action", "action": "confirm_auto"})
    confirm = app.page.locator("#mode-confirm .btn.danger")
    expect(confirm).to_be_enabled()
    assert app.core.get_settings()["confirmation_mode"] == "all_writes"
    confirm.evaluate("(el) => el.click()")  # a script's click does nothing
    assert app.core.get_settings()["confirmation_mode"] == "all_writes"
    confirm.click()
    expect(app.page.locator(".mode-switch")).to_have_attribute("data-mode", "auto")
    assert app.core.get_settings()["confirmation_mode"] == "full_auto"
