"""The chat list keeps the keyboard focus when it refreshes under the user (a title or a time
changes while they are tabbing through the rows)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.web.conftest import App

pytestmark = pytest.mark.web


def test_a_refresh_of_the_chat_list_keeps_the_focused_control(app: App) -> None:
    first = app.core.new_session()
    app.core.update_session(first["id"], title="第一 📁 chat")
    second = app.core.new_session()
    app.core.update_session(second["id"], title="second")
    page = app.page
    page.locator("#btn-sidebar").click()
    row = page.locator(f'.session[data-session-id="{first["id"]}"]')
    expect(row).to_be_visible()
    row.locator(".session-export").focus()
    expect(row.locator(".session-export")).to_be_focused()
    # Another chat's title changes: the list is rebuilt from Core's new snapshot.
    app.core.update_session(second["id"], title="renamed ‮ 改名")
    expect(page.locator(".session", has_text="改名")).to_be_visible()
    expect(row.locator(".session-export")).to_be_focused()
    # The focus is still usable: Enter opens the export choice on the right row.
    page.keyboard.press("Enter")
    expect(row.locator("button", has_text="JSON")).to_be_visible()
