"""The popup's own settings: "hide when another window gets the focus" and "free the
popup after it was hidden for" show in the Settings panel with working controls, in both UI
languages, and what they save is what the desktop app reads (Core's Settings)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.support.waiting import eventually
from tests.web.conftest import REPO, AppFactory

pytestmark = pytest.mark.web


def locale(language: str) -> dict[str, str]:
    return json.loads((REPO / "web" / "locales" / f"{language}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_focus_loss_and_unload_settings_work(
    make_app: AppFactory, fake_ollama: object, language: str
) -> None:
    app = make_app(fake_ollama, language=language)
    words = locale(language)
    page = app.page
    page.click("#btn-settings")
    panel = page.locator("#settings")
    expect(panel).to_have_attribute("data-armed", "true")

    switch = page.locator("#set-hide_on_focus_loss")
    expect(page.locator("label[for=set-hide_on_focus_loss]")).to_contain_text(
        words["set.hide_on_focus_loss"]
    )
    expect(panel).to_contain_text(words["set.hide_on_focus_loss_help"])
    expect(switch).to_be_checked()  # on by default
    page.locator("label[for=set-hide_on_focus_loss]").click()
    expect(switch).not_to_be_checked()
    eventually(lambda: app.core.settings.hide_on_focus_loss is False)

    unload = page.locator("#set-popup_unload_after_s")
    expect(page.locator("label[for=set-popup_unload_after_s]")).to_have_text(
        words["set.popup_unload_after_s"]
    )
    expect(unload).to_have_value("900")
    unload.fill("60")
    unload.press("Tab")
    expect(page.locator("#settings-saved")).to_contain_text(words["settings.saved"])
    # out of range: refused with a message, nothing saved
    unload.fill("-5")
    unload.press("Tab")
    expect(panel.locator(".field.invalid .field-error")).to_be_visible()
    # two days: within the Settings model's range (up to a week), so the page accepts it too
    unload.fill("172800")
    unload.press("Tab")
    eventually(lambda: app.core.settings.popup_unload_after_s == 172800)
    expect(panel.locator(".field.invalid")).to_have_count(0)
    unload.fill("0")  # 0 keeps the popup process loaded
    unload.press("Tab")

    eventually(lambda: app.core.settings.popup_unload_after_s == 0)
    settings = app.core.settings
    assert settings.hide_on_focus_loss is False
    assert settings.popup_unload_after_s == 0

    def saved() -> dict[str, object]:
        return dict(json.loads(Path(app.paths.settings_file).read_text(encoding="utf-8")))

    eventually(lambda: saved().get("popup_unload_after_s") == 0)  # written after the update
    assert saved()["hide_on_focus_loss"] is False

    # a change made elsewhere (the tray, another window) shows up in the open panel, once the
    # focus has left the field (Tab stopped on its own step buttons: still being edited)
    page.locator("#settings-close").focus()
    app.core.update_settings({"hide_on_focus_loss": True, "popup_unload_after_s": 3600})
    expect(switch).to_be_checked()
    expect(unload).to_have_value("3600")


def test_a_late_reply_does_not_undo_a_newer_change(
    make_app: AppFactory, fake_ollama: object
) -> None:
    """The page saves a switch; before Core's reply reaches the page, the tray changes the same
    setting. The reply (older) lands after the event (newer): the panel keeps the newer value."""
    app = make_app(fake_ollama)
    page = app.page
    page.click("#btn-settings")
    expect(page.locator("#settings")).to_have_attribute("data-armed", "true")
    switch = page.locator("#set-hide_on_focus_loss")
    expect(switch).to_be_checked()

    def late_reply(route: Any) -> None:
        answer = route.fetch()  # Core has saved the page's change (switch off)
        app.core.update_settings({"hide_on_focus_loss": True})  # then the tray turns it back on
        expect(switch).to_be_checked()  # the tray's change has reached the page
        route.fulfill(response=answer)  # only now does the page hear its own, older, reply

    page.route("**/api/update_settings", late_reply)
    page.locator("label[for=set-hide_on_focus_loss]").click()
    expect(page.locator("#settings-saved")).to_be_visible()
    expect(switch).to_be_checked()
    assert app.core.settings.hide_on_focus_loss is True


def test_settings_asked_for_while_the_page_loads_open_once_it_has_them(
    make_app: AppFactory, fake_ollama: object
) -> None:
    """A click on Settings (or the tray's "Settings…") while the page still waits for Core opens
    the panel once the settings and the language are there, in that language, never with keys."""
    held: list[Any] = []
    app = make_app(fake_ollama, language="zh-CN", wait=False)
    page = app.page
    page.route("**/api/get_settings", lambda route: held.append(route))
    with page.expect_request("**/api/get_settings"):
        page.reload()
    expect(page.locator("#btn-settings")).to_be_attached()
    assert held, "the page asks Core for its settings"
    page.locator("#btn-settings").dispatch_event("click")
    expect(page.locator("#settings")).to_be_hidden()
    for route in held:
        route.continue_()
    page.unroute("**/api/get_settings")
    expect(page.locator("#settings-title")).to_have_text("设置")
    expect(page.locator("#settings")).to_be_visible()
    expect(page.locator("label[for=set-hide_on_focus_loss]")).to_contain_text(
        locale("zh-CN")["set.hide_on_focus_loss"]
    )
    assert app.page_errors == []
