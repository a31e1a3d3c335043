"""A language added as one file in web/locales/ is offered by Settings and speaks on the page."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.web.conftest import choose

ROOT = Path(__file__).resolve().parents[2]


def _pseudo(text: str) -> str:
    return f"⟦{text}⟧"


def test_a_new_locale_file_is_a_language_in_settings(
    make_app: Any, fake_ollama: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tray_app.i18n import forget

    web = tmp_path / "web"
    shutil.copytree(ROOT / "web", web)
    english = json.loads((web / "locales" / "en.json").read_text(encoding="utf-8"))
    pseudo = {key: _pseudo(value) for key, value in english.items()}
    pseudo["set.language.xx-PS"] = "Pseudo"
    (web / "locales" / "xx-PS.json").write_text(json.dumps(pseudo, ensure_ascii=False), "utf-8")
    monkeypatch.setenv("METONA_WEB_DIR", str(web))
    forget()
    try:
        app = make_app(fake_ollama, web_root=web)
        page = app.page
        page.click("#btn-settings")
        choose(page, "#set-language", "xx-PS")  # offered, under its own name
        expect(page.locator("html")).to_have_attribute("lang", "xx-PS")
        expect(page.locator("#settings-title")).to_have_text(_pseudo(english["settings.title"]))
        assert app.core.settings.language == "xx-PS"
        assert app.page_errors == []
    finally:
        forget()
