"""A direction override in an answer's body (a paragraph, a code block, a link) is written out
and reorders nothing, as paths and commands are elsewhere; Copy still gives the original."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import FakeOllama, text_turn
from tests.fakes.turns import slow_turn
from tests.web.conftest import AppFactory

pytestmark = pytest.mark.web

RLO = "\u202e"
ANSWER = (
    f"打开 report{RLO}gpj.exe 吧 🎉\n\n"
    f"```python\nname = 'photo{RLO}gnp.exe'\n```\n\n"
    f'[invoice{RLO}fdp.exe](https://example.com/a "see{RLO}txt.exe")\n\n'
    "Isolate \u2067abc\u2069 too.\n"
)

# For each spoofed name: whether its first letter is drawn left of its last (not reversed), the
# visible marks and what they say, and what the code block's Copy and the message's Copy give.
INSPECT = """async (content) => {
  const drawnInOrder = (word) => {
    const walker = document.createTreeWalker(content, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const at = n.data.indexOf(word);
      if (at < 0) continue;
      const rect = (i) => { const r = document.createRange(); r.setStart(n, i); r.setEnd(n, i + 1);
                            return r.getBoundingClientRect(); };
      return rect(at).left < rect(at + word.length - 1).left;
    }
    return null;
  };
  const marks = [...content.querySelectorAll('.bidi-mark')].map((m) => ({
    where: m.closest('p, pre, a')?.tagName,
    shows: getComputedStyle(m, '::before').content,
  }));
  const copies = [];
  Object.defineProperty(navigator, 'clipboard', {
    value: { writeText: async (text) => { copies.push(text); } }, configurable: true });
  content.querySelector('.code-copy').click();
  content.closest('.msg').querySelector('.msg-actions .act, .msg-actions button').click();
  const deadline = Date.now() + 10000;
  while (copies.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  return {
    order: ['gpj.exe', 'gnp.exe', 'fdp.exe'].map(drawnInOrder),
    marks,
    title: content.querySelector('a').dataset.tip,
    copies,
  };
}"""


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_an_override_in_an_answer_is_written_out_and_reorders_nothing(
    make_app: AppFactory, fake_ollama: FakeOllama, lang: str
) -> None:
    fake_ollama.script(text_turn(ANSWER))
    app = make_app(fake_ollama, language=lang)
    app.send("名字")
    answer = app.page.locator(".msg.assistant").last
    expect(answer).not_to_have_class("streaming")
    content = answer.locator(".content")
    expect(content.locator("a")).to_contain_text("fdp.exe")
    seen: dict[str, Any] = content.evaluate(INSPECT)
    assert seen["order"] == [True, True, True], seen
    where = [mark["where"] for mark in seen["marks"]]
    assert where.count("P") == 3 and where.count("PRE") == 1 and where.count("A") == 1, seen
    shows = {mark["shows"] for mark in seen["marks"]}
    assert shows == {'"⟨U+202E⟩"', '"⟨U+2067⟩"', '"⟨U+2069⟩"'}, shows
    assert seen["title"] == "see⟨U+202E⟩txt.exe"
    assert seen["copies"][0] == f"name = 'photo{RLO}gnp.exe'\n", seen["copies"]
    assert seen["copies"][1] == ANSWER.strip() or seen["copies"][1] == ANSWER, seen["copies"]
    app.screenshot(f"answer-bidi-{lang}")
    assert app.page_errors == []


# Installed before the answer streams: after every change to the answer's DOM (before the engine
# paints it), whether any text outside a marked span holds a direction control.
WATCH_UNMARKED = """() => {
  window.__unmarked = [];
  window.__checks = 0;
  const check = () => {
    window.__checks += 1;
    for (const content of document.querySelectorAll('.msg.assistant .content')) {
      const walker = document.createTreeWalker(content, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const marked = n.parentElement.closest('.bidi-mark');
        if (/[\\u202a-\\u202e\\u2066-\\u2069]/.test(n.data) && !marked) {
          window.__unmarked.push(n.data.slice(0, 80));
        }
      }
    }
  };
  new MutationObserver(check).observe(document.querySelector('#log') || document.body,
    { subtree: true, childList: true, characterData: true });
}"""


def test_an_override_in_a_code_block_still_streaming_is_marked_too(
    make_app: AppFactory, fake_ollama: FakeOllama
) -> None:
    """The open code block grows as text (mdfence.js): its controls are marked as it grows,
    not only once it closes."""
    lines = "".join(f"name_{n} = 'photo{RLO}gnp.exe' # 第{n}行 😀\n" for n in range(40))
    fake_ollama.script(
        slow_turn(f"代码：\n\n```python\n{lines}```\n\n完。\n", delay=0.01, chunk_chars=24)
    )
    app = make_app(fake_ollama)
    app.page.evaluate(WATCH_UNMARKED)
    app.send("code")
    answer = app.page.locator(".msg.assistant").last
    expect(answer).not_to_have_class("msg assistant streaming", timeout=60_000)
    expect(answer.locator(".content")).to_contain_text("完。")
    assert app.page.evaluate("window.__checks") > 20
    assert app.page.evaluate("window.__unmarked") == []
    assert answer.locator(".content pre .bidi-mark").count() == 40
    assert app.page_errors == []
