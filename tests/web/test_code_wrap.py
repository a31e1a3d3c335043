"""With Wrap on, a long code block's line groups off screen take the height of their wrapped
lines: drawing them (scrolling to them) moves nothing, so the scrollbar does not jump."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import text_turn
from tests.web.conftest import App

pytestmark = pytest.mark.web

BIDI = "\u202eevil\u202c"

# The block's height as drawn (groups off screen at their intrinsic size) and once every group
# is really laid out; how many groups are off screen; and the log's height both ways.
MEASURE = """(pre) => {
  const groups = [...pre.querySelectorAll(':scope > div')];
  const log = pre.closest('.log') || document.scrollingElement;
  const drawn = (g) => g.firstElementChild.checkVisibility({ contentVisibilityAuto: true });
  const skipped = groups.filter((g) => !drawn(g)).length;
  const estimated = pre.getBoundingClientRect().height;
  const scrollEstimated = log.scrollHeight;
  for (const g of groups) g.style.contentVisibility = 'visible';
  const real = pre.getBoundingClientRect().height;
  const scrollReal = log.scrollHeight;
  for (const g of groups) g.style.removeProperty('content-visibility');
  return { groups: groups.length, skipped, estimated, real, scrollEstimated, scrollReal,
           wrapped: getComputedStyle(pre).whiteSpace };
}"""


# Draws every group of the block once, as a reader scrolling through it would: the engine then
# remembers each group's height as drawn.
SCROLL_THROUGH = """async (pre) => {
  const frame = () => new Promise((done) =>
    requestAnimationFrame(() => requestAnimationFrame(done)));
  for (const group of pre.querySelectorAll(':scope > div')) {
    group.scrollIntoView();
    await frame();
  }
}"""


def body() -> str:
    rows = [f"row_{n} = '{'宽字' * 25} {'ascii ' * 15}{BIDI} 😀'  # {n}\n" for n in range(400)]
    return "".join(rows)


def test_wrapped_groups_off_screen_keep_their_wrapped_height(app: App) -> None:
    code = body()
    assert len(code) > 50_000
    app.fake.script(
        text_turn(f"代码：\n\n```python\n{code}```\n\n之后 after 😀\n", chunk_chars=4096)
    )
    app.send("长代码")
    answer = app.page.locator(".msg.assistant").last
    expect(answer).not_to_have_class("msg assistant streaming", timeout=120_000)
    expect(answer.locator(".content")).to_contain_text("之后 after")
    pre = answer.locator(".content pre")
    answer.locator(".code-wrap").click()
    expect(pre).to_have_css("white-space", "pre-wrap")
    seen: dict[str, Any] = pre.evaluate(MEASURE)
    assert seen["groups"] > 20 and seen["skipped"] > 10, seen  # most groups are off screen
    # Off screen, the wrapped groups are as high as when drawn (within a few per cent)
    assert abs(seen["estimated"] - seen["real"]) < 0.05 * seen["real"], seen
    assert abs(seen["scrollEstimated"] - seen["scrollReal"]) < 0.05 * seen["scrollReal"], seen
    # and back unwrapped, as high as their lines again
    answer.locator(".code-wrap").click()
    expect(pre).to_have_css("white-space", "pre")
    again: dict[str, Any] = pre.evaluate(MEASURE)
    assert abs(again["estimated"] - again["real"]) < 1, again
    assert app.page_errors == []


def odd_body() -> str:
    """Lines that wrap other ways: tabs, runs of spaces, words longer than a row (cut anywhere),
    Hangul, full-width forms and emoji next to ASCII, and short lines."""
    url = "https://example.org/" + "路径/" * 3 + "x" * 300
    rows = [
        f"\tcase_{n}:\t\tx = {'한국어 ' * 12}{'ＡＢＣ' * 5}   {url if n % 3 == 0 else 'y' * n}"
        f" 👩‍💻🎉{BIDI}\n{'' if n % 2 else 'short'}\n"
        for n in range(300)
    ]
    return "".join(rows)


def test_scrolled_through_then_unwrapped_and_wrapped_again_keeps_heights(app: App) -> None:
    """After every group was drawn wrapped, unwrapping (and wrapping again) does not leave the
    groups off screen at their old height: the page is as tall as its lines."""
    code = odd_body()
    assert len(code) > 50_000
    app.fake.script(text_turn(f"前\n\n```text\n{code}```\n\n后 😀\n", chunk_chars=4096))
    app.send("奇怪的代码")
    answer = app.page.locator(".msg.assistant").last
    expect(answer).not_to_have_class("msg assistant streaming", timeout=120_000)
    expect(answer.locator(".content")).to_contain_text("后")
    pre = answer.locator(".content pre")
    wrap = answer.locator(".code-wrap")
    wrap.click()
    expect(pre).to_have_css("white-space", "pre-wrap")
    first: dict[str, Any] = pre.evaluate(MEASURE)
    assert first["groups"] > 20 and first["skipped"] > 10, first
    assert abs(first["estimated"] - first["real"]) < 0.05 * first["real"], first
    pre.evaluate(SCROLL_THROUGH)
    wrap.click()
    expect(pre).to_have_css("white-space", "pre")
    pre.evaluate("(pre) => pre.closest('.code-block').scrollIntoView()")
    unwrapped: dict[str, Any] = pre.evaluate(MEASURE)
    assert unwrapped["skipped"] > 10, unwrapped
    assert abs(unwrapped["estimated"] - unwrapped["real"]) < 1, unwrapped
    assert unwrapped["real"] < 0.8 * first["real"], (unwrapped, first)  # wrapping did add rows
    pre.evaluate(SCROLL_THROUGH)
    wrap.click()
    expect(pre).to_have_css("white-space", "pre-wrap")
    pre.evaluate("(pre) => pre.closest('.code-block').scrollIntoView()")
    again: dict[str, Any] = pre.evaluate(MEASURE)
    assert again["skipped"] > 10, again
    assert abs(again["estimated"] - again["real"]) < 0.05 * again["real"], again
    assert app.page_errors == []


# Lines where some characters are lone surrogates (half an emoji, as a cut-off model answer can
# hold), each counted as it is and made well-formed (U+FFFD, a narrow character, in each lone
# surrogate's place).
LONE_SURROGATES = """async () => {
  const { wrappedRows } = await import('./js/markdown/codewrap.js');
  const w = { ch: 10, wide: 20, astral: 20, mark: 30 };
  const high = String.fromCharCode(0xd83d);
  const low = String.fromCharCode(0xde00);
  const lines = [
    high.repeat(35),
    low.repeat(9),
    `x ${high} y ${low} z `.repeat(20),
    `宽字 ${high}😀${low} \u202eevil\u202c `.repeat(12),
    `\t${low}${high}`.repeat(30),
  ];
  return lines.map((line) => [wrappedRows(line, 100, w), wrappedRows(line.toWellFormed(), 100, w)]);
}"""


def test_a_lone_surrogate_counts_as_one_narrow_character(app: App) -> None:
    """A lone surrogate takes a column when Wrap counts rows (codewrap.js says so; it was
    skipped, so a line of them counted as one row however long it was)."""
    counted: list[list[int]] = app.page.evaluate(LONE_SURROGATES)
    for lone, narrow in counted:
        assert lone == narrow, counted
    assert counted[0][0] == 4, counted  # 35 columns at 10 a row
    assert app.page_errors == []
