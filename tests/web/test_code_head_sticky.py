"""A long code block's header stays at the very top of the chat log while the block scrolls
past. It stuck below the log's padding, and the code showed through the strip above it (seen
in the real popup)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import text_turn
from tests.web.conftest import App

pytestmark = pytest.mark.web

CODE = "\n".join(f"def f{i}(x):  # 第{i}行 🚀 שלום\n    return x * {i}" for i in range(150))
ANSWER = f"代码如下 😀：\n\n```python\n{CODE}\n```\n\n最后一句。"

# Scroll so the block's head would have left the view, then where head and log start.
SCROLL_INTO_BLOCK = """() => {
  const log = document.querySelector('#log');
  const head = document.querySelector('.code-head');
  log.scrollTop += head.getBoundingClientRect().top - log.getBoundingClientRect().top + 600;
  return new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done())));
}"""
EDGES = """() => [document.querySelector('#log').getBoundingClientRect().top,
  document.querySelector('.code-head').getBoundingClientRect().top]"""


@pytest.mark.parametrize("viewport", [(460, 660), (360, 480)])
def test_a_code_blocks_header_sticks_at_the_top_of_the_log(
    make_app: object, fake_ollama: object, viewport: tuple[int, int]
) -> None:
    app: App = make_app(fake_ollama, language="zh-CN", viewport=viewport)  # type: ignore[operator]
    app.fake.script(text_turn(ANSWER))  # type: ignore[union-attr]
    app.send("写很长的代码 😀")
    answer = app.page.locator(".msg.assistant").last
    expect(answer).to_contain_text("最后一句。", timeout=30_000)
    expect(answer).not_to_have_attribute("aria-busy", "true", timeout=30_000)
    app.page.evaluate(SCROLL_INTO_BLOCK)
    log_top, head_top = app.page.evaluate(EDGES)
    assert abs(head_top - log_top) < 1, f"the header sticks {head_top - log_top:.1f}px low"
