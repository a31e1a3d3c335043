"""A refused command reaches the user as its code's sentence, in the page's language, with
Core's detail after it: the one failure channel, end to end (real Core, real page)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama
from tests.web.conftest import REPO

pytestmark = pytest.mark.web


def texts(language: str) -> dict[str, str]:
    path = REPO / "web" / "locales" / f"{language}.json"
    return dict(json.loads(path.read_text(encoding="utf-8")))


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_undo_with_nothing_to_undo_says_so_in_the_page_language(
    make_app: Any, fake_ollama: FakeOllama, language: str
) -> None:
    app = make_app(fake_ollama, language=language)
    words = texts(language)
    page = app.page
    page.click("#btn-settings")
    page.get_by_role("button", name=words["settings.undo_last"]).click()
    sentence = words["command_error.undo_failed"].replace("{detail}", "nothing to undo")
    expect(page.locator(".toast.error")).to_have_text(sentence)
    assert app.page_errors == []
