"""A long answer stays busy (aria-busy, not read, not "done" for the tests and the bench) until
all of it is drawn, not only received: a burst is drawn over several frames (drawqueue.js), and
the moment the flag goes the message's DOM is the one-pass render of the whole text."""

from __future__ import annotations

import pytest

from tests.fakes.ollama_server import text_turn
from tests.web.conftest import App
from tests.web.test_markdown_stream import BIDI, ONE_RENDER

pytestmark = pytest.mark.web

# Records the answer's DOM at the moment it stops being busy (in the task that cleared it).
WATCH_JS = """() => {
  window.__drawnAtIdle = null;
  new MutationObserver(() => {
    const msg = document.querySelector('.msg.assistant:not(.streaming):not([aria-busy])');
    if (msg && window.__drawnAtIdle === null) {
      window.__drawnAtIdle = msg.querySelector('.content').innerHTML;
    }
  }).observe(document.querySelector('#messages'), {
    subtree: true, attributes: true, attributeFilter: ['aria-busy', 'class'],
  });
}"""

ONCE_JS = (
    """async (text) => {"""
    + ONE_RENDER
    + """
  const { MarkdownStream } = await import(
    new URL('js/markdown/mdstream.js', document.baseURI).href
  );
  const once = document.createElement('div');
  oneRender(MarkdownStream, once, text);
  return once.innerHTML;
}"""
)


def long_answer() -> str:
    parts = []
    for i in range(200):
        parts.append(f"Paragraph {i}: 中文段落 😀 {BIDI} with `code` and **bold**.\n\n")
        parts.append("".join(f"{n}. step {n} 第{n}步 🧑🏽‍💻\n" for n in range(1, 12)) + "\n")
        parts.append(f"> quote {i} עברית\n> - inside\n\n")
    return "".join(parts)


def test_a_long_answer_is_busy_until_all_of_it_is_drawn(app: App) -> None:
    text = long_answer()
    assert len(text) > 60_000  # more than a frame's drawing: a burst takes several frames
    app.page.evaluate(WATCH_JS)
    app.fake.script(text_turn(text, chunk_chars=len(text)))  # one burst
    app.send("A long one, please")
    app.page.wait_for_function("() => window.__drawnAtIdle !== null", timeout=120_000)
    drawn = app.page.evaluate("() => window.__drawnAtIdle")
    assert drawn == app.page.evaluate(ONCE_JS, text)
