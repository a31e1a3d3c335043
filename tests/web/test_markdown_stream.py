"""Markdown streamed in random pieces ends as the same DOM as the whole text rendered once.

The renderer runs in real Chromium (the page's own modules): each document of a hostile
corpus (CJK, emoji, bidi controls, lists that restart numbering, nested lists with code,
aligned and wide tables, references defined after use) is fed to a MarkdownStream in random
piece sizes, then finished, and compared with a one-pass render of the same text."""

from __future__ import annotations

import difflib
import random
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import slow_turn, text_turn
from tests.web.conftest import App

pytestmark = pytest.mark.web

BIDI = "\u202eevil\u202c \u2066iso\u2069 \u200b"

CORPUS = [
    "1. one\n2. two\n3. three\n\nAfter the list.\n",
    "3. three\n4. four\n5. five\n\n7) seven\n8) eight\n",
    "1. one\n\n2. two\n\n3. three\n",
    "- a\n- b\n\n- c\n- d\n",
    "- [ ] todo\n- [x] done\n\n- [ ] later\n",
    "- a\n* b\n+ c\n- d\n",
    "1. First\n   - nested one\n   - nested two\n     1. deeper\n2. Second\n\n"
    "   ```python\n   def f():\n       return 1\n   ```\n3. Third\n",
    "- item with code:\n\n  ```js\n  const x = 1;\n  ```\n- next item\n- last `inline` item\n",
    "| Left | Centre | Right |\n|:-----|:------:|------:|\n| a | b | c |\n"
    "| 中文 | 😀 | 1 |\n| long | row | 22 |\n\nAfter.\n",
    "| a | b |\n|---|---|\n| 1 | 2 |\nlazy row\n\n# Heading\n",
    "| "
    + " | ".join(f"column{i}" for i in range(14))
    + " |\n|"
    + "---|" * 14
    + "\n"
    + "".join(
        "| " + " | ".join(f"cell_{r}_{c}_supercalifragilistic" for c in range(14)) + " |\n"
        for r in range(12)
    ),
    "See [the docs][docs] and [later] and [Mixed Case].\n\nMore text.\n\n"
    '[docs]: https://example.com/docs "Docs"\n[later]: https://example.com/later\n'
    "[mixed case]: https://example.com/mixed\n",
    "> quote with [ref]\n>\n> - list in quote\n> - two\n\n[ref]: https://example.com/r\n",
    "Title\n=====\n\nSub\n---\n\nfoo\n# not a paragraph end\n#nohash\n\n***\n\n***bold italic***\n",
    "中文段落，含有**粗体**和`代码`。\n\n1. 第一\n2. 第二\n\n"
    "| 名称 | 值 |\n|:--:|--:|\n| 苹果 | 三 |\n",
    f"Bidi {BIDI} text\n\n- {BIDI} item\n- 👩‍👩‍👧‍👦 family\n\n`{BIDI}` code\n",
    "<script>alert(1)</script>\n\n<b>bold?</b> and <img src=x onerror=alert(1)>\n\n- <i>x</i>\n",
    "```\nunclosed fence\n- not a list\n| not | a table |\n",
    "    indented code\n\n    more code\n\nparagraph\n\n    code again\n",
    "Para\n- list interrupts\n- two\nlazy\n\n1. ordered\n1. same\n1. numbers\n",
    "- a\n\n  second paragraph of a\n- b\n- c\n\n\n- after two blank lines\n",
    "Text with ![img](https://example.com/x.png) and ![ok](data:image/png;base64,iVBOR).\n",
    "* * *\n- - -\n- a\n- - b\n---\nend\n",
    "1. a\n2.\n3. c\n\n10. ten\n11. eleven\n",
    "A line  \nwith a hard break\\\nand another\n\n~~strike~~ ~sub~ <kbd>k</kbd>\n",
    "- item\n\n      indented code in item\n- next\n\n> q\n> > nested quote\n> - li\n",
    "| one |\n|---|\n\n| two | cols |\n|:-|:-|\n| x | y |\n",
    "Emoji 🧑🏽‍💻 and CJK 漢字かなカナ한국어 and RTL עברית العربية mixed.\n\n" * 3,
    # Fenced code: the open block grows as text; its end (or what comes before it) is final.
    "Intro paragraph\n```python\n"
    + "".join(f"x_{n} = '中文 😀 {BIDI}'  # {n}\n" for n in range(400))
    + "```\nAfter the code.\n",
    "- item\n- two\n```js\n" + "const a = 1; // émoji 🎉\n" * 200 + "```\n\n| a |\n|---|\n| 1 |\n",
    "> quote\n```\n" + "\u202e mirrored \u202c line\n" * 150 + "```\n> next quote\n",
    "| h |\n|---|\n| r |\n~~~~ text\n" + "~~~ not the end\n```\n" * 60 + "~~~~~  \nend\n",
    "````md\n```\ninner fence\n```\n" + "漢字かな\n" * 300 + "```` x\n````\n\n# After\n",
    "  ```\n  indented fence\n" + "    deeper 한국어\n" * 200 + "  ```\ntext\n",
    "Para\n\n```\n" + "unclosed until the very end 👩‍👩‍👧‍👦\n" * 300,
    "1. step\n\n   ```sh\n" + "   echo 'in a list item'\n" * 150 + "   ```\n2. next\n",
    "```\n```\n``` x\n" + "`" * 70 + "\n" + "a\n" * 100 + "```\n",
    # Long quotes are committed child by child while they grow (mdquote.js).
    "".join(
        f"> Para {n}: 中文段落 😀 {BIDI} see [later] and **bold** `code`.\n>\n"
        + (f"> - item {n} 第一\n> - item {n} 👩‍👩‍👧‍👦\n>\n" if n % 3 == 0 else "")
        + (f"> ```py\n> x = {n}  # {BIDI}\n>\n> y = 'עברית'\n> ```\n>\n" if n % 5 == 0 else "")
        + (f"> > nested {n} 한국어\n> > two\n>\n" if n % 7 == 0 else "")
        for n in range(40)
    )
    + "\nAfter the quote.\n\n[later]: https://example.com/later\n",
    "".join(
        f"> Line {n} 漢字 with a lazy\ncontinuation {n} 😀\n> ===\n>\n"
        f"> # H{n}\n> text\n> ---\n>  \n"
        for n in range(32)
    )
    + "\n- after\n- list\n",
    "Intro.\n\n"
    + "".join(f"> {n}. 第{n}步 {BIDI}\n>\n" for n in range(1, 90))
    + "> [ref]: https://example.com/r\n\nUses [ref].\n",
    # Long list items are committed child by child while they grow (mdlistitem.js).
    "Intro.\n\n3. First 第一 😀 see [later].\n\n"
    + "".join(
        f"   Para {n}: 中文段落 👩‍👩‍👧‍👦 {BIDI} **bold** `code` [later].\n"
        + (f"lazy continuation {n} 漢字\n" if n % 4 == 1 else "")
        + "\n"
        + (f"   - nested {n} 한국어\n   - two\n\n     deeper para {n}\n\n" if n % 3 == 0 else "")
        + (f"   ```py\n   x = {n}  # {BIDI}\n\n   y = 'עברית'\n   ```\n\n" if n % 5 == 0 else "")
        + (f"   > quoted {n} العربية\n   > two\n\n" if n % 7 == 0 else "")
        + (f"       indented code {n}\n\n" if n % 11 == 0 else "")
        for n in range(45)
    )
    + "4. next\n5. last\n\nAfter the list.\n\n[later]: https://example.com/later\n",
    "".join(
        f"- [{'x' if n % 2 else ' '}] task {n} 😀\n\n"
        + "".join(
            f"  [x] not a box {n}.{k}\n\n  [link](https://example.com/{k}) 中文 {BIDI}\n\n"
            f"  Title {k}\n  ===\n\n  | a | 表 |\n  |---|---|\n  | {k} | 😀 |\n\n"
            for k in range(30 if n == 1 else 1)
        )
        for n in range(3)
    )
    + "after the tasks, no blank line\n",
    "*   wide marker 漢字\n\n"
    + "".join(f"    para {n} with four spaces {BIDI}\n\n" for n in range(70))
    + "  less indented: the list ends 😀\n\n10) ten\n\n"
    + "".join(f"    ten {n} 中文\n\n" for n in range(60))
    + "11) eleven\n",
    "- tight long item 中文 😀\n"
    + "".join(f"  line {n} {BIDI} 한국어\nlazy {n}\n" for n in range(120))
    + "- second\n",
    "1. " + "长" * 3000 + "\n\n   " + "😀 " * 1200 + "\n\n   tail " + BIDI + "\n2. b\n",
    # A long item: a heading line and a long nested list (committed inner item by inner item).
    "1. **Setup** 中文 😀\n"
    + "".join(f"   - step {n} {BIDI} 한국어 `code` **b**\n" for n in range(140))
    + "2. **Run** 👩‍👩‍👧‍👦\n"
    + "".join(f"   {n + 1}. run {n} עברית\n" for n in range(120))
    + "3. done\n\nAfter the list.\n",
    "- **Build** 漢字\n"
    + "".join(
        f"  {n + 1}) part {n} 漢字 {BIDI} 😀\n"
        + (f"{pad}- third level {n}\n{pad}  - fourth {n} 中文\n" if n % 3 == 0 else "")
        + (f"lazy continuation {n}\n" if n % 4 == 1 else "")
        + (f"{pad}```js\n{pad}let x = '{n} עברית';\n\n{pad}```\n" if n % 5 == 0 else "")
        + (f"{pad}> quoted {n} العربية\n{pad}> two\n" if n % 7 == 0 else "")
        + (f"{pad}- [x] task {n}\n" if n % 9 == 0 else "")
        for n in range(90)
        for pad in [" " * len(f"  {n + 1}) ")]
    )
    + "- next\n",
    "- **Build**: code and quotes in tight inner items 漢字\n"
    + "".join(
        f"  - part {n} {BIDI} 😀\n"
        + (f"    ```js\n    let x = '{n} עברית';\n    ```\n" if n % 5 == 0 else "")
        + (f"    > quoted {n} العربية\n" if n % 7 == 0 else "")
        + (f"    1. third {n}\n       - fourth {n} 中文\n" if n % 3 == 0 else "")
        for n in range(100)
    )
    + "- next\n",
    "* Tight, then loose 😀\n"
    + "".join(f"  + inner {n} {BIDI} 中文\n" + ("\n" if n == 70 else "") for n in range(110))
    + "  - another marker 한국어\n  - two\n* after\n",
    "1. Intro [ref] 中文\n\n   para 😀\n\n"
    + "".join(f"   - inner {n} [ref] {BIDI}\n" for n in range(120))
    + "\n   Trailing paragraph 漢字\n\n2. next\n\n[ref]: https://example.com/ref\n",
    "- Head 😀\n"
    + "".join(f"  - inner {n} {'长' * (n % 13)} {BIDI}\n" for n in range(130))
    + "  text after the inner list, lazy\n- tail [late]\n\n[late]: https://example.com/late\n",
    # Too long to highlight: drawn in groups of lines (codegroups.js), open and closed alike.
    "Long:\n\n```rust\n"
    + "".join(f'let v{n} = "漢字 😀 {BIDI}"; // {"x" * (n % 97)}\n' for n in range(1100))
    + "```\n\n- after\n- 完\n",
    # A long block that a line closes keeps the groups it streamed in (mdfence.js): a group cut
    # at the line end before the closing line, a closing line that is indented, longer and
    # spaced, blank lines and bidi controls before it, references used in the code.
    "```\n" + ("x" * 63 + "\n") * 33 + "```\nafter\n",
    "~~~~ info 中文\n"
    + "".join(f"  ~~~ not yet {n} 😀 {BIDI}\n" for n in range(90))
    + "   ~~~~~~   \nText right after 😀\n",
    "```js\n"
    + "".join(f"let s{n} = '{BIDI}';\n" for n in range(150))
    + "\n\n\u202e\n```\n\n# 完\n",
    "```\n" + "see [ref] 中文\n" * 200 + "```\n\nUses [ref].\n\n[ref]: https://example.com/r\n",
]

# The reference: the whole text lexed and drawn in one pass (what a short finished message gets).
ONE_RENDER = """
  const oneRender = (MarkdownStream, el, text) => {
    const whole = new MarkdownStream(el);
    whole.text = text;
    whole.renderWhole();
  };
  // A long code block is highlighted off the main thread (hloffthread.js): wait for it.
  const settled = async (...els) => {
    while (els.some((el) => el.querySelector('[data-hl-pending]'))) {
      await new Promise((resolve) => { setTimeout(resolve, 20); });
    }
  };
"""

STREAM_JS = (
    """
async ({ docs, cuts }) => {
"""
    + ONE_RENDER
    + """
  const { MarkdownStream } = await import(
    new URL('js/markdown/mdstream.js', document.baseURI).href
  );
  const out = [];
  for (const [d, text] of docs.entries()) {
    const streamed = document.createElement('div');
    const once = document.createElement('div');
    const stream = new MarkdownStream(streamed);
    for (const cut of cuts[d]) stream.setText(text.slice(0, cut));
    while (stream.finish());
    oneRender(MarkdownStream, once, text);
    await settled(streamed, once);
    out.push({ same: streamed.innerHTML === once.innerHTML, repairs: stream.repairs,
               streamed: streamed.innerHTML, once: once.innerHTML });
  }
  return out;
}
"""
)


def pieces(text: str, rng: random.Random, biggest: int) -> list[int]:
    cuts: list[int] = []
    at = 0
    while at < len(text):
        at = min(len(text), at + rng.randint(1, biggest))
        cuts.append(len(text[:at].encode("utf-16-le")) // 2)  # an index in JavaScript's string
    return cuts


def stream_corpus(page: Any, docs: list[str], seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    # One-character pieces on the short documents; the long ones (a wide table) in more.
    cuts = [
        pieces(text, rng, rng.choice([1, 3, 7, 20, 60] if len(text) < 1500 else [7, 20, 60, 900]))
        for text in docs
    ]
    result: list[dict[str, Any]] = page.evaluate(STREAM_JS, {"docs": docs, "cuts": cuts})
    return result


SEEDS_PER_TEST = 2  # the same twelve seeds as ever, in cases short enough for a loaded machine


@pytest.mark.parametrize("first_seed", range(0, 12, SEEDS_PER_TEST))
def test_streaming_in_random_pieces_equals_one_render(app: App, first_seed: int) -> None:
    failures = []
    for seed in range(first_seed, first_seed + SEEDS_PER_TEST):
        for text, result in zip(CORPUS, stream_corpus(app.page, CORPUS, seed), strict=True):
            if not result["same"] or result["repairs"]:
                failures.append((seed, text, result))
    if failures:
        seed, text, result = failures[0]
        diff = "\n".join(
            difflib.unified_diff(
                result["once"].splitlines(),
                result["streamed"].splitlines(),
                "once",
                "streamed",
                lineterm="",
            )
        )
        raise AssertionError(
            f"{len(failures)} differ; first (seed {seed}, repairs {result['repairs']}):"
            f"\n{text!r}\n{diff}"
        )


def test_numbering_alignment_and_later_references_survive_the_sanitiser(app: App) -> None:
    text = CORPUS[1] + "\n" + CORPUS[8] + "\n" + CORPUS[11]
    html = stream_corpus(app.page, [text], 1)[0]["streamed"]
    assert '<ol start="3">' in html
    assert '<ol start="7">' in html
    assert '<th align="left">Left</th>' in html
    assert '<td align="center">b</td>' in html
    assert '<td align="right">c</td>' in html
    assert 'href="https://example.com/docs"' in html
    assert 'href="https://example.com/later"' in html
    assert 'href="https://example.com/mixed"' in html


def test_a_list_streamed_into_the_chat_numbers_its_items_while_it_grows(app: App) -> None:
    items = "".join(f"{n}. step number {n}\n" for n in range(1, 9))
    text = f"Intro.\n\n{items}\nThen:\n\n5. restarts at five\n6. six\n\nDone."
    app.fake.script(slow_turn(text, delay=0.03, chunk_chars=4))
    app.send("Steps please")
    page = app.page
    # While it streams, finished items are committed into one list (not one list per item).
    growing = page.locator(".msg.assistant.streaming .content > .md-block:not(.md-tail) > ol > li")
    expect(growing.nth(2)).to_be_attached()
    answer = page.locator(".msg.assistant").last
    expect(answer).not_to_have_class("msg assistant streaming")
    lists = answer.locator(".content ol")
    expect(lists).to_have_count(2)
    expect(lists.first.locator("> li")).to_have_count(8)
    assert lists.first.get_attribute("start") is None
    assert lists.nth(1).get_attribute("start") == "5"
    assert lists.nth(1).evaluate("ol => ol.start") == 5


def test_a_wide_table_scrolls_instead_of_breaking_words(app: App) -> None:
    app.fake.script(slow_turn(CORPUS[10], delay=0.005, chunk_chars=25))
    app.send("Table")
    page = app.page
    answer = page.locator(".msg.assistant").last
    expect(answer).not_to_have_class("msg assistant streaming")
    wrap = answer.locator(".table-wrap")
    expect(wrap.locator("tbody tr")).to_have_count(12)
    sizes = wrap.evaluate(
        """w => ({ scroll: w.scrollWidth, client: w.clientWidth,
                   overflow: getComputedStyle(w).overflowX,
                   cellWrap: getComputedStyle(w.querySelector('td')).overflowWrap,
                   pageScroll: document.querySelector('#log').scrollWidth
                               - document.querySelector('#log').clientWidth })"""
    )
    assert sizes["overflow"] == "auto"
    assert sizes["scroll"] > sizes["client"]  # the table is wider than the popup: it scrolls
    assert sizes["cellWrap"] != "anywhere"
    assert sizes["pageScroll"] <= 0  # and only the table scrolls, not the chat


GROW_JS = (
    """
async ({ head, lines, tail }) => {
"""
    + ONE_RENDER
    + """
  const { MarkdownStream } = await import(
    new URL('js/markdown/mdstream.js', document.baseURI).href
  );
  const el = document.createElement('div');
  el.className = 'md content';
  document.querySelector('#messages').append(el); // laid out with the page's styles
  const stream = new MarkdownStream(el);
  let text = head;
  stream.setText(text);
  const first = el.querySelector('.md-tail pre code');
  let kept = true;
  let painted = false;
  for (const line of lines) {
    text += line;
    stream.setText(text);
    kept = kept && el.querySelector('.md-tail pre code') === first;
    painted = painted || Boolean(el.querySelector('.md-tail .hljs'));
  }
  // The open block is shown in line groups; its Copy button copies the lines as they are.
  const copied = new Promise((resolve) => {
    const clipboard = { writeText: async (copiedText) => resolve(copiedText) };
    Object.defineProperty(navigator, 'clipboard', { value: clipboard });
  });
  el.querySelector('.md-tail .code-copy').click();
  const openText = await copied;
  const openHeight = el.querySelector('pre').getBoundingClientRect().height;
  text += tail;
  stream.setText(text);
  while (stream.finish());
  const once = document.createElement('div');
  oneRender(MarkdownStream, once, text);
  // The closed block keeps the buttons it had open: the page's tooltips have moved their titles
  // (tooltip.js) and Copy flashed; the rest is the same as a one-pass render.
  const drawn = (node) => {
    const copy = node.cloneNode(true);
    for (const b of copy.querySelectorAll('[title], [data-tip]')) b.removeAttribute('title');
    for (const b of copy.querySelectorAll('[data-tip]')) delete b.dataset.tip;
    for (const b of copy.querySelectorAll('.code-copy.done')) b.classList.remove('done');
    return copy.innerHTML;
  };
  const sameAtClose = drawn(el) === drawn(once);
  await settled(el, once);
  const samePre = el.querySelector('pre').outerHTML === once.querySelector('pre').outerHTML;
  const closedHeight = el.querySelector('pre').getBoundingClientRect().height;
  return { kept, painted, openText, same: sameAtClose && samePre,
           sameHeight: openHeight === closedHeight,
           highlighted: Boolean(el.querySelector('pre code.hljs')),
           tailLeft: Boolean(el.querySelector('.md-tail')) };
}
"""
)


def test_an_open_code_block_grows_in_place_and_is_highlighted_once_closed(app: App) -> None:
    lines = [f"value_{n} = '第{n}行 😀 {BIDI}'\n" for n in range(300)]
    result = app.page.evaluate(
        GROW_JS,
        {"head": "Intro.\n\n```python\n", "lines": lines, "tail": "```\n\nAfter.\n"},
    )
    assert result["kept"], "the open code block was drawn again instead of grown"
    assert not result["painted"], "an open block is highlighted only once it closes"
    assert result["openText"] == "".join(lines)
    assert result["sameHeight"], "the open block's lines are as high as the closed block's"
    assert result["highlighted"]
    assert not result["tailLeft"]
    assert result["same"]


def test_a_code_block_longer_than_a_frame_streams_whole_into_the_chat(app: App) -> None:
    body = "".join(f"line_{n} = '漢字 🧑🏽‍💻 {n}'\n" for n in range(700))  # ~20 KB
    text = f"Here it is:\n\n```python\n{body}```\n\nAfter the code: 完成.\n"
    app.fake.script(text_turn(text, chunk_chars=64))
    app.send("Long code please")
    page = app.page
    answer = page.locator(".msg.assistant").last
    expect(answer).not_to_have_class("msg assistant streaming")
    expect(answer.locator(".content")).to_contain_text("After the code: 完成.")
    pre = answer.locator(".content pre")
    expect(pre).to_have_count(1)
    assert pre.evaluate(BLOCK_TEXT) == body
    # Opened again from the stored chat (a finished message over 8 KB, drawn over frames).
    app.reload()
    answer = page.locator(".msg.assistant").last
    expect(answer.locator(".content")).to_contain_text("After the code: 完成.")
    # Drawn in line groups, each highlighted (off the page's thread: hloffthread.js).
    expect(answer.locator(".content pre[data-hl-pending]")).to_have_count(0)
    expect(answer.locator(".content pre > div > code.hljs").first).to_be_visible()
    expect(answer.locator(".content pre code:not(.hljs)")).to_have_count(0)
    assert answer.locator(".content pre").evaluate(BLOCK_TEXT) == body


# A code block's text, drawn whole or in groups of lines (the line end between groups is theirs).
BLOCK_TEXT = (
    "(pre) => [...pre.querySelectorAll(':scope > div')].map((g) => g.textContent).join('\\n')"
)


QUOTE_JS = (
    """
async ({ text, step }) => {
"""
    + ONE_RENDER
    + """
  const { MarkdownStream } = await import(
    new URL('js/markdown/mdstream.js', document.baseURI).href
  );
  const el = document.createElement('div');
  const stream = new MarkdownStream(el);
  let early = null;
  for (let at = step; at < text.length; at += step) {
    stream.setText(text.slice(0, at));
    if (!early && at > text.length / 2) early = el.querySelector('blockquote > p');
  }
  while (stream.setText(text, { final: true }));
  const once = document.createElement('div');
  oneRender(MarkdownStream, once, text);
  return { kept: Boolean(early) && el.querySelector('blockquote > p') === early,
           same: el.innerHTML === once.innerHTML, repairs: stream.repairs };
}
"""
)


def test_a_long_quote_is_committed_child_by_child_while_it_grows(app: App) -> None:
    text = "".join(
        f"> 第{n}段 😀 {BIDI} **bold** `code` and a [link](https://example.com/{n}).\n>\n"
        + (f"> - item {n}\n> - עברית\n>\n" if n % 4 == 0 else "")
        for n in range(120)
    )
    text += "\nAfter the quote.\n"
    result = app.page.evaluate(QUOTE_JS, {"text": text, "step": 48})
    assert result["kept"], "the quote's first paragraph was drawn again as the quote grew"
    assert result["same"]
    assert result["repairs"] == 0


ITEM_JS = QUOTE_JS.replace("blockquote > p", "li > p")


def test_a_long_list_item_is_committed_child_by_child_while_it_grows(app: App) -> None:
    text = (
        "1. 第一段 😀 "
        + BIDI
        + " **bold** `code`.\n\n"
        + "".join(
            f"   第{n}段 😀 {BIDI} a [link](https://example.com/{n}) עברית.\n\n"
            + (f"   - nested {n}\n   - 二\n\n" if n % 4 == 0 else "")
            for n in range(120)
        )
    )
    text += "2. next item\n\nAfter the list.\n"
    result = app.page.evaluate(ITEM_JS, {"text": text, "step": 48})
    assert result["kept"], "the item's first paragraph was drawn again as the item grew"
    assert result["same"]
    assert result["repairs"] == 0


def test_a_long_list_item_streamed_into_the_chat_keeps_its_first_paragraph(app: App) -> None:
    body = "".join(f"   第{n}段 😀 {BIDI} עברית paragraph {n}.\n\n" for n in range(120))
    text = f"1. First 第一 paragraph.\n\n{body}2. 完成 next\n"
    app.fake.script(slow_turn(text, delay=0.03, chunk_chars=64))
    app.send("A long item")
    page = app.page
    paragraphs = page.locator(".msg.assistant.streaming .content ol > li > p")
    expect(paragraphs.nth(60)).to_be_attached()  # the item is over 2 KB: it is being committed
    expect(paragraphs.first).to_contain_text("First 第一")
    held = paragraphs.first.element_handle()
    answer = page.locator(".msg.assistant").last
    expect(answer).not_to_have_class("msg assistant streaming")
    items = answer.locator(".content ol > li")
    expect(items).to_have_count(2)
    expect(items.first.locator("> p")).to_have_count(121)
    expect(items.first.locator("> p").last).to_contain_text("paragraph 119.")
    # The paragraph drawn while the item was growing is the one the finished answer shows.
    assert held.evaluate("p => p.isConnected && p.closest('.msg') !== null")


NESTED_JS = QUOTE_JS.replace("blockquote > p", "ol > li > ul > li")


def test_a_long_items_nested_list_keeps_its_early_inner_items(app: App) -> None:
    text = (
        "1. **Setup** 中文 😀\n"
        + "".join(
            f"   - step {n} {BIDI} 한국어 `code` [link](https://example.com/{n}) עברית\n"
            for n in range(160)
        )
        + "2. **Run**\n\nAfter the list.\n"
    )
    result = app.page.evaluate(NESTED_JS, {"text": text, "step": 64})
    assert result["kept"], "the nested list's first item was drawn again as the item grew"
    assert result["same"]
    assert result["repairs"] == 0


def test_a_long_items_nested_list_streamed_into_the_chat_keeps_its_first_step(app: App) -> None:
    steps = "".join(f"   - step {n} 😀 {BIDI} 한국어 `x` עברית {n}.\n" for n in range(160))
    text = f"1. **Setup** 第一\n{steps}2. 完成 next\n"
    app.fake.script(slow_turn(text, delay=0.03, chunk_chars=64))
    app.send("A long nested list")
    page = app.page
    steps_drawn = page.locator(".msg.assistant.streaming .content ol > li > ul > li")
    expect(steps_drawn.nth(80)).to_be_attached()  # the item is over 2 KB: it is being committed
    expect(steps_drawn.first).to_contain_text("step 0 ")
    held = steps_drawn.first.element_handle()
    answer = page.locator(".msg.assistant").last
    expect(answer).not_to_have_class("msg assistant streaming")
    expect(answer.locator(".content ol > li")).to_have_count(2)
    expect(answer.locator(".content ol > li > ul > li")).to_have_count(160)
    # The step drawn while the item was growing is the one the finished answer shows.
    assert held.evaluate("li => li.isConnected && li.closest('.msg') !== null")
