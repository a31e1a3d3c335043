"""One drawing budget a frame: the frame's animation-frame callbacks (the draw queue and the
events' flush) share it, so a burst costs at most 8 ms of drawing a frame, not 8 ms a callback
(web/js/chat/drawqueue.js; bench/page_speed.py measures the frames)."""

from __future__ import annotations

import pytest

from tests.web.conftest import App

pytestmark = pytest.mark.web


# Two animation-frame callbacks of one frame (the draw queue and the events' flush), then a
# later task: the deadline each is given.
BUDGET_JS = """async () => {
  const { frameDeadline } = await import(new URL('js/chat/drawqueue.js', document.baseURI).href);
  return new Promise((done) => {
    const got = [];
    requestAnimationFrame(() => {
      got.push(frameDeadline());
      const t = performance.now();
      while (performance.now() < t + 2); // the first callback draws for a while
    });
    requestAnimationFrame(() => {
      got.push(frameDeadline());
      setTimeout(() => {
        const t = performance.now();
        while (performance.now() < t + 2);
        got.push(frameDeadline());
        done(got);
      }, 0);
    });
  });
}"""


def test_the_callbacks_of_one_frame_share_one_drawing_budget(app: App) -> None:
    first, second, later = app.page.evaluate(BUDGET_JS)
    assert first == second  # not 8 ms each: one frame draws 8 ms of messages at most
    assert later > first  # a later task has a budget of its own
