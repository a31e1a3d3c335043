"""An earlier round's Copy sits on the answer's top corner: the first line of the answer ends
before it instead of running under it (narrow popup, CJK and emoji text)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama, text_turn, tool_turn
from tests.web.conftest import AppFactory

pytestmark = pytest.mark.web

FIRST = "好的，我先看一下这个文件夹里面都有哪些文件，然后再告诉你结果 🎉 " * 3

# The first line of the answer's first paragraph and the corner button, as drawn.
GEOMETRY = """(msg) => {
  const p = msg.querySelector('.content p');
  const range = document.createRange();
  range.selectNodeContents(p);
  const line = range.getClientRects()[0];
  const button = msg.querySelector('.msg-foot.bare .act').getBoundingClientRect();
  const box = (r) => ({ left: r.left, right: r.right, top: r.top, bottom: r.bottom });
  return { line: box(line), button: box(button), lines: range.getClientRects().length };
}"""


def _overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (
        a["left"] < b["right"]
        and b["left"] < a["right"]
        and a["top"] < b["bottom"]
        and (b["top"] < a["bottom"])
    )


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_the_corner_copy_does_not_cover_the_first_line(
    make_app: AppFactory, fake_ollama: FakeOllama, lang: str
) -> None:
    fake_ollama.script(
        tool_turn([("list_directory", {"path": "."})], content=FIRST), text_turn("完成。")
    )
    app = make_app(fake_ollama, language=lang, viewport=(280, 560))
    app.send("看看")
    expect(app.page.locator(".msg.assistant .content").last).to_have_text("完成。")
    first = app.page.locator(".msg.assistant", has=app.page.locator(".msg-foot.bare")).first
    expect(first.locator(".msg-foot.bare .act")).to_have_count(1)
    first.hover()
    expect(first.locator(".msg-foot.bare")).to_have_css("opacity", "1")
    seen: dict[str, Any] = first.evaluate(GEOMETRY)
    assert seen["lines"] > 2, seen  # the paragraph wraps: its first line is as wide as it gets
    assert not _overlap(seen["line"], seen["button"]), seen
    app.screenshot(f"corner-copy-280-{lang}")
    assert app.page_errors == []
