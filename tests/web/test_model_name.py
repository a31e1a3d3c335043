"""At 280 px (the popup at 150% zoom) the header keeps what identifies the model: a short name
whole, a long one cut before its tag (the registry and owner left to the tooltip), CJK too."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama
from tests.web.conftest import AppFactory

pytestmark = pytest.mark.web

# What the header shows of the model's name: each part's drawn and full width, and whether the
# header's buttons still fit beside the chat's title.
MEASURE = """() => {
  const part = (sel) => {
    const el = document.querySelector(sel);
    return el ? { text: el.textContent, shown: el.clientWidth, full: el.scrollWidth } : null;
  };
  const button = document.querySelector('#btn-model').getBoundingClientRect();
  const settings = document.querySelector('#btn-settings').getBoundingClientRect();
  const title = document.querySelector('#session-title').getBoundingClientRect();
  const bar = document.querySelector('.topbar');
  return {
    base: part('#model-name .model-base'), tag: part('#model-name .model-tag'),
    tip: document.querySelector('#btn-model').dataset.tip,
    fits: button.right <= settings.left + 0.5, titleWidth: title.width,
    headerOverflow: bar.scrollWidth - bar.clientWidth,
  };
}"""

CASES = {
    "short": ("qwen3:8b", "qwen3", ":8b"),
    "long": (
        "hf.co/bartowski/Qwen2.5-Coder-14B-Instruct-GGUF:Q4_K_M",
        "Qwen2.5-Coder-14B-Instruct-GGUF",
        ":Q4_K_M",
    ),
    "cjk": ("通义千问-编程大模型-超长版本:7b-中文", "通义千问-编程大模型-超长版本", ":7b-中文"),
}


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
@pytest.mark.parametrize("case", list(CASES))
def test_the_model_name_keeps_what_identifies_it_at_280px(
    make_app: AppFactory, fake_ollama: FakeOllama, lang: str, case: str
) -> None:
    name, base, tag = CASES[case]
    app = make_app(fake_ollama, language=lang, viewport=(280, 560), default_model=name)
    expect(app.page.locator("#model-name .model-tag")).to_have_text(tag)
    seen: dict[str, Any] = app.page.evaluate(MEASURE)
    assert seen["base"]["text"] == base and seen["tip"] == name, seen
    assert seen["tag"]["full"] <= seen["tag"]["shown"], seen  # the tag is never cut here
    assert seen["base"]["shown"] >= 28, seen  # and some letters of the name show beside it
    if case == "short":
        assert seen["base"]["full"] <= seen["base"]["shown"], seen  # whole: "qwen3:8b"
    assert seen["fits"] and seen["headerOverflow"] <= 0 and seen["titleWidth"] >= 40, seen
    app.screenshot(f"model-name-280-{case}-{lang}")
    assert app.page_errors == []
