"""Settings › Web hosts allowed: what the page saves is the list web_fetch's policy reads, in
both UI languages; an entry that is not a host is refused and the setting stays as it was."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.support.waiting import eventually
from tests.web.conftest import REPO, AppFactory

pytestmark = pytest.mark.web


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_allowing_a_local_host_reaches_the_fetch_policy(
    make_app: AppFactory, fake_ollama: Any, language: str
) -> None:
    app = make_app(fake_ollama, language=language)
    words = json.loads((REPO / "web" / "locales" / f"{language}.json").read_text("utf-8"))
    page = app.page
    page.click("#btn-settings")
    expect(page.locator("#settings")).to_have_attribute("data-armed", "true")
    label = page.locator("label[for=set-web_allowed_hosts]")
    expect(label).to_have_text(words["set.web_allowed_hosts"])
    help_text = page.locator("#set-web_allowed_hosts-help")
    expect(help_text).to_have_text(words["set.web_allowed_hosts_help"])
    hosts = page.locator("#set-web_allowed_hosts")
    hosts.click()  # more power for the assistant: only the person's own keys change it
    page.keyboard.type("  Wiki.LAN \n\n127.0.0.1:8080\n")
    hosts.press("Tab")
    eventually(lambda: app.core.settings.web_allowed_hosts == ["wiki.lan", "127.0.0.1:8080"])
    assert app.core.settings.web_allowed_hosts == ["wiki.lan", "127.0.0.1:8080"]
    assert app.page_errors == []
