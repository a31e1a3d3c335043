"""Settings › Models that can see images: the list an OpenAI-compatible server cannot report
itself. What the page saves is what Core's provider then claims (the vision badge, images sent),
in both UI languages, with hostile names kept as typed."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.support.waiting import eventually
from tests.web.conftest import REPO, AppFactory

pytestmark = pytest.mark.web

HOSTILE = "视觉-模型 🙂 \u202eexe"


def vision_of(app: Any) -> dict[str, bool]:
    return {m["name"]: "vision" in m["capabilities"] for m in app.core.list_models()["models"]}


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_naming_vision_models_makes_the_server_show_them_images(
    make_app: AppFactory, fake_openai: Any, language: str
) -> None:
    fake_openai.add_model(HOSTILE, ["completion", "tools"])
    app = make_app(fake_openai, provider="openai", default_model="gpt-4o-mini", language=language)
    words = json.loads((REPO / "web" / "locales" / f"{language}.json").read_text("utf-8"))
    assert vision_of(app) == {"gpt-4o-mini": False, "qwen3:8b": False, "gemma3:4b": False,
                              "llama3.2": False, HOSTILE: False}  # fmt: skip
    page = app.page
    attach = page.locator("#btn-attach")
    expect(attach).to_be_disabled()  # gpt-4o-mini is not assumed to see images
    page.click("#btn-settings")
    expect(page.locator("#settings")).to_have_attribute("data-armed", "true")
    expect(page.locator("label[for=set-vision_models]")).to_have_text(words["set.vision_models"])
    expect(page.locator("#set-vision_models-help")).to_have_text(words["set.vision_models_help"])
    names = page.locator("#set-vision_models")
    names.fill(f"  gpt-4o-mini \n\n{HOSTILE}\n")
    names.press("Tab")
    eventually(lambda: app.core.settings.vision_models == ["gpt-4o-mini", HOSTILE])
    # The page asks for the models again by itself (vision_of below would make Core tell it).
    expect(attach).to_be_enabled()  # the chat's model now takes images
    assert vision_of(app)["gpt-4o-mini"] and vision_of(app)[HOSTILE]
    assert not vision_of(app)["llama3.2"]

    # Changed elsewhere: the open panel shows it once the field is left.
    page.locator("#settings-close").focus()
    app.core.update_settings({"vision_models": ["llama3.2"]})
    expect(names).to_have_value("llama3.2")
    expect(attach).to_be_disabled()
    assert vision_of(app)["llama3.2"] and not vision_of(app)["gpt-4o-mini"]
    assert app.page_errors == []
