"""The chat log follows new output unless the user scrolled up (approvals included), and the
per-frame path never reads the layout to do so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.fakes.ollama_server import slow_turn, text_turn, tool_turn
from tests.web.conftest import App

pytestmark = pytest.mark.web

APPROVE = "#approval button.btn.primary"
LONG = "".join(f"Line {i} of a long answer, 中文 and emoji 😀.\n\n" for i in range(80))

AT_BOTTOM = """() => { const log = document.querySelector('#log');
  return log.scrollHeight - log.scrollTop - log.clientHeight < 4; }"""

# Records every layout read (and scrollTop write) with the stack that made it.
SPY = """() => {
  window.__layoutReads = [];
  const spy = (proto, name) => {
    const desc = Object.getOwnPropertyDescriptor(proto, name);
    Object.defineProperty(proto, name, {
      configurable: true,
      get() {
        window.__layoutReads.push(`${name} ${new Error().stack}`);
        return desc.get.call(this);
      },
      set: desc.set && function (v) {
        window.__layoutReads.push(`set ${name} ${new Error().stack}`); desc.set.call(this, v); },
    });
  };
  for (const name of ['scrollHeight', 'scrollTop', 'clientHeight', 'clientWidth', 'scrollWidth'])
    spy(Element.prototype, name);
  for (const name of ['offsetHeight', 'offsetTop', 'offsetWidth']) spy(HTMLElement.prototype, name);
  const rect = Element.prototype.getBoundingClientRect;
  Element.prototype.getBoundingClientRect = function () {
    window.__layoutReads.push(`rect ${new Error().stack}`); return rect.call(this); };
}"""


def at_bottom(app: App) -> bool:
    return bool(app.page.evaluate(AT_BOTTOM))


def test_the_log_follows_a_long_answer_without_reading_layout_per_frame(app: App) -> None:
    page = app.page
    page.evaluate(SPY)
    app.fake.script(slow_turn(LONG, delay=0.005, chunk_chars=12))
    app.send("Write a lot")
    answer = page.locator(".msg.assistant").last
    expect(answer).not_to_have_class("msg assistant streaming", timeout=30_000)
    page.wait_for_function(AT_BOTTOM)
    reads = page.evaluate("window.__layoutReads")
    per_frame = [r for r in reads if "applyBatch" in r or "refreshText" in r or "setText" in r]
    assert per_frame == [], per_frame[0]


def test_scrolling_up_stops_following_until_the_user_returns(app: App) -> None:
    page = app.page
    app.fake.script(slow_turn(LONG, delay=0.02, chunk_chars=12), text_turn("Short."))
    app.send("Write a lot")
    expect(page.locator(".msg.assistant .content")).to_contain_text("Line 20", timeout=20_000)
    page.mouse.move(200, 200)
    page.mouse.wheel(0, -400)
    page.wait_for_function(f"() => !({AT_BOTTOM})()")
    held = page.evaluate("document.querySelector('#log').scrollTop")
    answer = page.locator(".msg.assistant").last
    expect(answer).not_to_have_class("msg assistant streaming", timeout=30_000)
    # The text kept arriving below; the view stayed where the user put it.
    assert abs(page.evaluate("document.querySelector('#log').scrollTop") - held) < 2
    assert not at_bottom(app)
    # Back at the bottom, the next answer is followed again.
    page.mouse.wheel(0, 100_000)
    page.wait_for_function(AT_BOTTOM)
    app.send("Again")
    expect(page.locator(".msg.assistant .content").last).to_have_text("Short.")
    page.wait_for_function(AT_BOTTOM)


def write_after_text(path: Path) -> Any:
    return tool_turn([("write_file", {"path": str(path), "content": "x\n"})], content=LONG)


def test_an_approval_keeps_the_newest_output_in_view_and_after_approve_too(app: App) -> None:
    page = app.page
    target = app.workspace / "notes.txt"
    app.fake.script(write_after_text(target), text_turn("The file is written. " * 30))
    app.send("Write my notes")
    expect(page.locator("#approval")).to_be_visible()
    # The panel took room from the log: the card that waits is still in view at the bottom.
    page.wait_for_function(AT_BOTTOM)
    expect(page.locator(".tool-card").last).to_be_in_viewport()
    page.click(APPROVE)
    expect(page.locator("#approval")).to_be_hidden()
    answer = page.locator(".msg.assistant .content").last
    expect(answer).to_contain_text("The file is written.")
    expect(page.locator(".msg.assistant").last).not_to_have_class("msg assistant streaming")
    page.wait_for_function(AT_BOTTOM)
    expect(answer).to_be_in_viewport()
    assert target.read_text() == "x\n"


# What WebKit (the popup's engine on Linux, which has no CSS scroll anchoring) did in the real
# window: the first answer of a new chat redrew its message whole when its long code block
# closed, the log was short for a moment, the engine clamped scrollTop to 0, and the scroll
# event came after the text had grown back, so the log took it for the user scrolling up.
CLAMP_AND_REGROW = """() => {
  const log = document.querySelector('#log');
  log.style.overflowAnchor = 'none';
  for (const child of log.querySelectorAll('*')) child.style.overflowAnchor = 'none';
  const content = [...document.querySelectorAll('.msg.assistant .content')].pop();
  const kept = [...content.childNodes];
  content.replaceChildren();
  const clamped = log.scrollTop; // layout now: the engine clamps scrollTop to the short log
  content.append(...kept);
  return clamped;
}"""

HOSTILE = (
    "你好！表格和代码 😀👨‍👩‍👧 עברית שלום مرحبا \u202eevil\u202c\n\n"
    "| 名称 | 数量 |\n|---|---|\n| 苹果 🍎 | 3 |\n\n"
    "```python\n"
    + "\n".join(f"def f{i}(x):  # 第{i}行 🚀\n    return x * {i}" for i in range(150))
    + "\n```\n\n最后一句。"
)


def test_a_scroll_the_layout_made_does_not_stop_following(app: App) -> None:
    page = app.page
    app.fake.script(text_turn(HOSTILE), text_turn("短的回答。"))
    app.send("写一个表格和很长的代码 😀 שלום")
    answer = page.locator(".msg.assistant").last
    expect(answer).to_contain_text("最后一句。", timeout=30_000)
    expect(answer).not_to_have_class("msg assistant streaming", timeout=30_000)
    page.wait_for_function(AT_BOTTOM)
    clamped = page.evaluate(CLAMP_AND_REGROW)
    assert clamped < 100, "the test did not make the engine clamp the log's scroll position"
    # No wheel, key or touch: the log still follows and is back at the end of the answer.
    page.wait_for_function(AT_BOTTOM)
    expect(page.locator("#log")).to_have_class("log following")
    expect(page.get_by_text("最后一句。")).to_be_in_viewport()
    app.send("再来")
    expect(page.locator(".msg.assistant .content").last).to_have_text("短的回答。")
    page.wait_for_function(AT_BOTTOM)


# Text that grows in two frames in a row: the anchor's observer fires when the anchor leaves
# the view, the log scrolls, and the next growth comes before the observer has seen the anchor
# back in view, so it sees no change and does not fire again (a short answer after a long one
# was left 71 px below the fold in the real window).
GROW_IN_TWO_FRAMES = """async () => {
  const log = document.querySelector('#log');  // WebKit has no scroll anchoring: none here
  for (const el of [log, ...log.querySelectorAll('*')]) el.style.overflowAnchor = 'none';
  const content = [...document.querySelectorAll('.msg.assistant .content')].pop();
  const grow = () => { const p = document.createElement('p'); p.textContent = '多一行 😀 שלום';
    p.style.height = '120px'; content.append(p); };
  const frame = () => new Promise((done) => requestAnimationFrame(() => done()));
  await frame(); grow();
  await new Promise((done) => setTimeout(done, 0));
  await frame(); grow();
}"""


def test_growth_in_consecutive_frames_is_followed_to_the_end(app: App) -> None:
    page = app.page
    app.fake.script(text_turn(LONG))
    app.send("写很多 😀")
    answer = page.locator(".msg.assistant").last
    expect(answer).not_to_have_class("msg assistant streaming", timeout=30_000)
    page.wait_for_function(AT_BOTTOM)
    page.evaluate(GROW_IN_TWO_FRAMES)
    page.wait_for_function(AT_BOTTOM, timeout=10_000)
    expect(page.locator("#log")).to_have_class("log following")


# A smooth wheel or key scroll moves the view a few pixels a frame: still "near the bottom" for
# its first frames. Following must end with the input, not when the view is far enough up.
SCROLL_TOP = "document.querySelector('#log').scrollTop"
JUMP = ".jump-latest"


def streaming_long_answer(app: App) -> None:
    app.fake.script(slow_turn(LONG, delay=0.03, chunk_chars=10), text_turn("短的回答 😀"))
    app.send("写很多 😀 שלום")
    expect(app.page.locator(".msg.assistant .content")).to_contain_text("Line 25", timeout=20_000)
    app.page.wait_for_function(f"() => {SCROLL_TOP} > 150 && ({AT_BOTTOM})()")


def test_a_small_wheel_turn_up_stops_following_while_text_streams(app: App) -> None:
    page = app.page
    streaming_long_answer(app)
    page.mouse.move(200, 200)
    page.mouse.wheel(0, -20)  # less than a smooth scroll's first steps in WebKit
    page.wait_for_function(f"() => !({AT_BOTTOM})()")
    expect(page.locator("#log")).not_to_have_class("log following")
    held = page.evaluate(SCROLL_TOP)
    expect(page.locator(JUMP)).to_be_visible()  # more text arrives below what is read
    expect(page.locator(".msg.assistant").last).not_to_have_class(
        "msg assistant streaming", timeout=30_000
    )
    assert abs(page.evaluate(SCROLL_TOP) - held) < 2
    # The button goes to the end and follows again.
    page.click(JUMP)
    page.wait_for_function(AT_BOTTOM)
    expect(page.locator("#log")).to_have_class("log following")
    expect(page.locator(JUMP)).to_be_hidden()
    app.send("再来")
    expect(page.locator(".msg.assistant .content").last).to_have_text("短的回答 😀")
    page.wait_for_function(AT_BOTTOM)


def test_page_up_and_home_scroll_back_from_the_body_and_the_message_box(app: App) -> None:
    page = app.page
    streaming_long_answer(app)
    page.locator("#prompt").focus()
    page.keyboard.press("PageUp")  # the message box: PageUp scrolls the log (chat convention)
    page.wait_for_function(f"() => !({AT_BOTTOM})()")
    expect(page.locator("#log")).not_to_have_class("log following")
    expect(page.locator("#prompt")).to_be_focused()
    page.evaluate("document.activeElement.blur()")  # the focus on the page's body
    page.keyboard.press("Home")
    page.wait_for_function(f"() => {SCROLL_TOP} === 0")
    expect(page.locator(".msg.assistant").last).not_to_have_class(
        "msg assistant streaming", timeout=30_000
    )
    assert page.evaluate(SCROLL_TOP) == 0, "the view left the top while the answer streamed"
    page.keyboard.press("PageDown")
    assert page.evaluate(SCROLL_TOP) > 0
    expect(page.locator("#log")).not_to_have_class("log following")
    page.keyboard.press("End")  # back to the end, following again
    page.wait_for_function(AT_BOTTOM)
    expect(page.locator("#log")).to_have_class("log following")


def test_the_jump_button_speaks_chinese_in_the_dark_theme(make_app: Any, fake_ollama: Any) -> None:
    app = make_app(fake_ollama, language="zh-CN", theme="dark")
    page = app.page
    streaming_long_answer(app)
    page.mouse.move(200, 200)
    page.mouse.wheel(0, -300)
    jump = page.locator(JUMP)
    expect(jump).to_have_text("跳到最新消息")
    colours = jump.evaluate("b => [getComputedStyle(b).color, getComputedStyle(b).backgroundColor]")
    assert colours[0] != colours[1]
    app.screenshot("log-jump-latest-zh-dark")
    jump.click()
    page.wait_for_function(AT_BOTTOM)
    assert app.page_errors == []
