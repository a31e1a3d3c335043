"""A code block too long to highlight is drawn in groups of lines, streamed and stored alike.

Only the groups in view are laid out (content-visibility), so a 100 KB block that closes while
an answer streams, or a stored one that opens, costs the lines on screen instead of one long
task (bench/page_speed.py measures it). These tests stream such a block with CJK, emoji and
bidi controls through the fake Ollama, Core and the real page, and check what the user sees:
the text whole and in order (Copy copies it), groups off screen skipped, a page height that does
not jump when they are drawn, long lines still scrolling sideways."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import text_turn
from tests.web.conftest import App

pytestmark = pytest.mark.web

BIDI = "\u202eevil\u202c \u2066iso\u2069"
WIDE = "宽" * 600  # a line far wider than the popup, at the end (in view when it finishes)

# What the block shows: its groups, which of them are drawn, its height before and after all of
# them are drawn, whether it scrolls sideways, and what its Copy button copies.
INSPECT = """async (pre) => {
  const groups = [...pre.querySelectorAll(':scope > div')];
  const shown = { contentVisibilityAuto: true };
  const drawn = groups.map((g) => g.firstElementChild.checkVisibility(shown));
  const codes = pre.querySelectorAll('code').length;
  const estimated = pre.getBoundingClientRect().height;
  const sideways = pre.scrollWidth > pre.clientWidth + 50;
  for (const g of groups) g.style.contentVisibility = 'visible';
  const real = pre.getBoundingClientRect().height;
  for (const g of groups) g.style.removeProperty('content-visibility');
  const copied = new Promise((resolve) => {
    const clipboard = { writeText: async (text) => resolve(text) };
    Object.defineProperty(navigator, 'clipboard', { value: clipboard, configurable: true });
  });
  pre.closest('.code-block').querySelector('.code-copy').click();
  return { groups: groups.length, codes, drawn, estimated, real, sideways, copied: await copied,
           highlighted: Boolean(pre.querySelector('.hljs')) };
}"""


def code_body() -> str:
    lines = [f"row_{n} = '第{n}行 😀 👩‍👩‍👧‍👦 {BIDI}'  # {n}\n" for n in range(2500)]
    return "".join(lines) + f"end = '{WIDE}'\n"


# The log has followed the answer to its end (the observers scroll after layout, a frame or
# more after the last piece is drawn).
AT_END = """() => {
  const log = document.querySelector('#log');
  return log.scrollHeight - log.scrollTop - log.clientHeight < 2;
}"""


def inspect(app: App) -> dict[str, Any]:
    answer = app.page.locator(".msg.assistant").last
    expect(answer.locator(".content")).to_contain_text("之后 after 😀")
    expect(answer).not_to_have_attribute("aria-busy", "true", timeout=120_000)  # all drawn
    app.page.wait_for_function(AT_END, timeout=30_000)
    # content-visibility's skipped state is updated at the next rendering: two frames later.
    app.page.evaluate(
        "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"
    )
    result: dict[str, Any] = answer.locator(".content pre").evaluate(INSPECT)
    return result


def check_groups(result: dict[str, Any], body: str) -> None:
    assert result["groups"] > 20  # ~100 KB in groups of about 2 KB
    assert result["codes"] == result["groups"]
    assert result["copied"] == body
    assert not result["highlighted"]  # too long to highlight in one task
    # The last groups (in view, the chat follows the end) are drawn; the first ones are not.
    assert result["drawn"][-1]
    assert not result["drawn"][0]
    # Off screen each group keeps the height of its lines: drawing them moves nothing.
    assert abs(result["estimated"] - result["real"]) < 1, result
    assert result["sideways"]


def test_a_long_code_block_is_drawn_in_groups_streamed_and_reopened(app: App) -> None:
    body = code_body()
    assert len(body) > 100_000
    text = f"The code:\n\n```python\n{body}```\n\n之后 after 😀 {BIDI}\n"
    app.fake.script(text_turn(text, chunk_chars=512))
    app.send("One very long code block")
    answer = app.page.locator(".msg.assistant").last
    expect(answer).not_to_have_class("msg assistant streaming", timeout=120_000)
    expect(answer.locator(".md-tail")).to_have_count(0)
    check_groups(inspect(app), body)
    # Wrapping long lines still works on a block in groups: the wide line no longer scrolls.
    answer.locator(".code-wrap").click()
    pre = answer.locator(".content pre")
    expect(pre).to_have_css("white-space", "pre-wrap")
    assert pre.evaluate("(p) => p.scrollWidth <= p.clientWidth + 1")
    # Opened again from the stored chat: drawn in one pass, the same way.
    app.reload()
    check_groups(inspect(app), body)
