"""A long code block is highlighted off the main thread.

highlight.js took one 40-80 ms task on the page's thread when an 8-50 KB fenced block closed.
Now a module worker (web/js/markdown/hlworker.js) highlights it and the page builds the nodes in
slices: the block shows its plain text meanwhile, Copy gives the exact text throughout, and it
ends as highlight.js's own highlightElement's highlighting (each character under the same
classes), in line groups, hostile text included."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import text_turn
from tests.web.conftest import App

pytestmark = pytest.mark.web

HOSTILE = (
    "漢字かなカナ한국어 🧑🏽‍💻👨‍👩‍👧‍👦 \u202eevil.exe\u202c \u2066iso\u2069 "
    "</script><script>alert(1)</script> <img src=x onerror=alert(1)> "
    '<span class="hljs-keyword">fake</span> &amp; &lt; "q" \'s\''
)


def long_body(lines: int) -> str:
    return "".join(f"const v{n} = '{HOSTILE}'; // {n} 第{n}行\n" for n in range(lines))


# Streams the text into a MarkdownStream in the page, closes the block and reports the block
# right after the close (plain, Copy exact) and once highlighted, with highlight.js's own
# rendering of the same text on the page's thread as the reference.
CLOSE_JS = """
async ({ head, body, tail }) => {
  const { MarkdownStream } = await import(
    new URL('js/markdown/mdstream.js', document.baseURI).href
  );
  const { markBidi } = await import(new URL('js/markdown/bidimark.js', document.baseURI).href);
  const hljs = (await import(new URL('vendor/highlight.min.js', document.baseURI).href)).default;
  const el = document.createElement('div');
  el.className = 'md content';
  document.querySelector('#messages').append(el);
  const stream = new MarkdownStream(el);
  let text = head;
  for (let at = 0; at < body.length; at += 997) {
    stream.setText(head + body.slice(0, at));
  }
  text = head + body + tail;
  stream.setText(text);
  while (stream.finish());
  let copied = null;
  Object.defineProperty(navigator, 'clipboard', {
    value: { writeText: async (value) => { copied = value; } }, configurable: true });
  const pre = () => el.querySelector('pre');
  const code = () => el.querySelector('pre code');
  const pendingAtClose = pre().hasAttribute('data-hl-pending');
  const plainAtClose = !code().classList.contains('hljs');
  el.querySelector('.code-copy').click();
  while (copied === null) await new Promise((resolve) => { setTimeout(resolve, 10); });
  const copiedAtClose = copied;
  while (pre().hasAttribute('data-hl-pending')) {
    await new Promise((resolve) => { setTimeout(resolve, 20); });
  }
  copied = null;
  el.querySelector('.code-copy').click();
  while (copied === null) await new Promise((resolve) => { setTimeout(resolve, 10); });
  const reference = document.createElement('code');
  reference.className = code().className.split(' ')[0];
  reference.textContent = body;
  hljs.highlightElement(reference);
  markBidi(reference);
  // Each character but line ends with the classes of the elements around it, in runs.
  const runs = (roots) => {
    const out = [];
    for (const root of roots) {
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const path = [];
        for (let e = node.parentNode; e !== root; e = e.parentNode) path.unshift(e.className);
        const key = path.join('/');
        for (const ch of node.data.replaceAll('\\n', '')) {
          if (out.length && out.at(-1)[1] === key) out.at(-1)[0] += ch;
          else out.push([ch, key]);
        }
      }
    }
    return JSON.stringify(out);
  };
  const codes = [...pre().querySelectorAll('code')];
  const result = {
    pendingAtClose, plainAtClose, copiedAtClose, copiedAfter: copied,
    highlighter: document.documentElement.dataset.highlighter || null,
    outer: code().outerHTML, reference: reference.outerHTML,
    runs: runs(codes), referenceRuns: runs([reference]),
    classes: [...new Set(codes.map((c) => c.className))], referenceClass: reference.className,
    groups: codes.length, allMarked: codes.every((c) => c.dataset.highlighted === 'yes'),
    scripts: el.querySelectorAll('script, img').length,
    spans: el.querySelectorAll('pre code span[class^="hljs-"]').length,
  };
  el.remove();
  return result;
}
"""


def close_block(app: App, lang: str, body: str) -> dict[str, Any]:
    result: dict[str, Any] = app.page.evaluate(
        CLOSE_JS, {"head": f"Intro 中文.\n\n```{lang}\n", "body": body, "tail": "```\n\nAfter.\n"}
    )
    return result


@pytest.mark.parametrize("lang", ["js", "html", "python"])
def test_a_closed_long_block_is_highlighted_by_the_worker_as_in_one_pass(
    app: App, lang: str
) -> None:
    body = long_body(160)  # ~30 KB: under the 50 KB highlighting limit
    result = close_block(app, lang, body)
    assert result["highlighter"] == "worker", "the block was not highlighted by the worker"
    assert result["pendingAtClose"] and result["plainAtClose"], "highlighted on the main thread"
    assert result["copiedAtClose"] == body
    assert result["copiedAfter"] == body
    assert result["spans"] > 100
    assert result["scripts"] == 0, "markup in the code became elements"
    assert result["groups"] > 10, "a long block is drawn in line groups"
    assert result["allMarked"] and result["classes"] == [result["referenceClass"]]
    assert result["runs"] == result["referenceRuns"]


def test_without_workers_the_page_highlights_the_same_itself(app: App) -> None:
    app.page.evaluate("window.Worker = undefined")  # a browser where no worker can start
    body = long_body(60)
    result = close_block(app, "js", body)
    assert result["highlighter"] == "main"
    assert result["copiedAtClose"] == body and result["copiedAfter"] == body
    assert result["runs"] == result["referenceRuns"]
    assert result["allMarked"] and result["scripts"] == 0


def test_a_short_block_is_still_highlighted_at_once(app: App) -> None:
    result = close_block(app, "python", "x = '中文 😀 \u202e'\n")
    assert not result["pendingAtClose"] and not result["plainAtClose"]
    assert result["outer"] == result["reference"]


def test_a_long_block_in_a_streamed_answer_ends_highlighted_with_exact_copy(app: App) -> None:
    body = long_body(120)
    text = f"Here:\n\n```javascript\n{body}```\n\nDone 完成.\n"
    app.fake.script(text_turn(text, chunk_chars=400))
    app.send("Long code please")
    answer = app.page.locator(".msg.assistant").last
    expect(answer.locator(".content")).to_contain_text("Done 完成.", timeout=30_000)
    expect(answer.locator(".content pre code.hljs").first).to_be_visible(timeout=30_000)
    expect(answer.locator("[data-hl-pending]")).to_have_count(0, timeout=30_000)
    text = answer.locator(".content pre").evaluate(
        "(pre) => [...pre.children].map((group) => group.textContent).join('\\n')"
    )
    assert text == body
    expect(answer.locator(".content pre code:not(.hljs)")).to_have_count(0)
    assert app.page.evaluate("document.documentElement.dataset.highlighter") == "worker"
    assert answer.locator(".content pre code script, .content pre code img").count() == 0
    assert answer.locator(".content pre code .bidi-mark").count() == 120 * 4  # four controls a line
