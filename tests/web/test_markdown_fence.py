"""An open fenced code block that a burst makes long is drawn a few KB a frame, never between
the two halves of a surrogate pair, and ends as the same DOM as a one-pass render."""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.conftest import App
from tests.web.test_markdown_stream import BIDI, ONE_RENDER

pytestmark = pytest.mark.web

# Feeds `head` (the fence's opening and first line), then the whole burst `head + body` until it
# is drawn, with a generous frame budget each call, then the closing `tail`.
BURST_JS = (
    """
async ({ head, body, tail }) => {
"""
    + ONE_RENDER
    + """
  const { MarkdownStream } = await import(
    new URL('js/markdown/mdstream.js', document.baseURI).href
  );
  const el = document.createElement('div');
  const stream = new MarkdownStream(el);
  stream.setText(head);
  const text = head + body;
  const lone = /[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]/;
  const steps = [];
  let splitPair = false;
  let before = stream.text.length;
  for (;;) {
    const more = stream.setText(text, { until: performance.now() + 1000 });
    steps.push(stream.text.length - before);
    before = stream.text.length;
    const drawn = [...el.querySelectorAll('pre code')].map((code) => code.textContent).join('');
    splitPair = splitPair || lone.test(drawn);
    if (!more) break;
  }
  const whole = text + tail;
  while (stream.setText(whole, { final: true }));
  const once = document.createElement('div');
  oneRender(MarkdownStream, once, whole);
  await settled(el, once);
  return { steps, splitPair, same: el.innerHTML === once.innerHTML, repairs: stream.repairs };
}
"""
)


@pytest.mark.parametrize("odd", [0, 1])
def test_a_burst_of_an_open_code_block_is_drawn_a_few_kb_a_frame(app: App, odd: int) -> None:
    head = "Intro 中文\n\n```text\nfirst line 😀\n"
    lines = "".join(f"row {n} 漢字 👩‍👩‍👧‍👦 {BIDI}\n" for n in range(1500))
    one_line = "x" * odd + "😀" * 12_000 + "\n"  # a step ends inside it: never mid-pair
    body = lines + one_line + lines[: len(lines) // 2]
    result: dict[str, Any] = app.page.evaluate(
        BURST_JS, {"head": head, "body": body, "tail": "```\n\nAfter 完.\n"}
    )
    steps: list[int] = result["steps"]
    assert len(steps) > 20, steps  # the ~130 KB burst took many frames, not one
    assert max(steps) <= 4097, steps
    assert not result["splitPair"]
    assert result["same"]
    assert result["repairs"] == 0
