"""The fonts for CJK, emoji and right-to-left text are found while the page is idle.

The first such character laid out in a font costs the engine a search for a fallback font
(20-70 ms once, measured); without the warm-up that search fell in the first frames of the
first answer using them, as a long task (bench/page_speed.py). This checks in the real page
that every kind of text is laid out once, hidden from sight and from screen readers, and that
nothing of it is left behind."""

from __future__ import annotations

import pytest

from tests.web.conftest import App

pytestmark = pytest.mark.web

# Records each warm-up box as it is added (it is laid out and removed in the same task).
RECORD = """
window.__warm = [];
new MutationObserver((records) => {
  for (const record of records) for (const node of record.addedNodes) {
    if (node.classList?.contains('font-warm')) {
      window.__warm.push({ kind: node.firstElementChild.tagName,
        code: Boolean(node.querySelector('pre code')), text: node.textContent,
        hidden: node.getAttribute('aria-hidden') });
    }
  }
}).observe(document, { childList: true, subtree: true });
"""


def test_fonts_for_cjk_emoji_and_rtl_are_laid_out_while_idle(app: App) -> None:
    page = app.page
    page.add_init_script(script=RECORD)
    app.reload()
    page.wait_for_function("() => window.__warm.length >= 5", timeout=60_000)
    samples = page.evaluate("window.__warm")
    assert [s["kind"] for s in samples] == ["P", "P", "H3", "P", "DIV"]
    assert samples[-1]["code"]  # a code block's font, too
    for sample in samples:
        assert sample["hidden"] == "true"
        for needle in ("中文", "かな", "한국어", "😀", "עברית", "العربية", "\u202e"):
            assert needle in sample["text"]
    assert page.locator(".font-warm").count() == 0
    assert not app.page_errors


# A message being drawn from the start (aria-busy), and a count of idle callbacks asked for.
BUSY = """
window.__idleAsked = 0;
const ask = window.requestIdleCallback.bind(window);
window.requestIdleCallback = (fn, options) => { window.__idleAsked += 1; return ask(fn, options); };
document.addEventListener('DOMContentLoaded', () => {
  const busy = document.createElement('div');
  busy.className = 'msg';
  busy.id = 'busy-msg';
  busy.setAttribute('aria-busy', 'true');
  document.body.append(busy);
});
"""


def test_fonts_wait_while_an_answer_is_being_drawn(app: App) -> None:
    """Laying out a sample forces the page's pending style and layout into its task: not while an
    answer is drawn, so the frame and the font search do not add up to one long task."""
    page = app.page
    page.add_init_script(script=RECORD)
    page.add_init_script(script=BUSY)
    app.reload()
    # The warm-up went past its 7 renderer samples and asked again at the fonts' turn, a second
    # apart (or, wrongly, laid a font sample out).
    page.wait_for_function("() => window.__idleAsked >= 10 || window.__warm.length", timeout=60_000)
    assert page.evaluate("window.__warm") == []
    page.evaluate("document.getElementById('busy-msg').remove()")
    page.wait_for_function("() => window.__warm.length >= 5", timeout=60_000)
    assert [s["kind"] for s in page.evaluate("window.__warm")] == ["P", "P", "H3", "P", "DIV"]
    assert not app.page_errors
