"""Scrolling back through a chat in the real popup (WebKitGTK under Xvfb and openbox).

The input is real: X wheel clicks (buttons 4 and 5) and key presses from xdotool, a drag on
the log's scroll bar, all going through GTK into WebKit as a user's do. WebKit's smooth
scrolling moves the view a few pixels a frame, so its first frames are still "near the
bottom": the log used to take itself back to the end there. The page is read through the
test hooks (``eval_js``)."""

from __future__ import annotations

import json

import pytest

from tests.e2e.desktop_env import AppProcess, DesktopEnv, wait_for
from tests.fakes.ollama_server import FakeOllama, slow_turn, text_turn

pytestmark = [pytest.mark.gui, pytest.mark.timeout(180)]

POPUP = "Metona"
LONG = "".join(f"Line {i} of a long answer, 中文 and emoji 😀 שלום.\n\n" for i in range(90))
LOG = "document.querySelector('#log')"
TOP = f"{LOG}.scrollTop"
AT_END = f"({LOG}.scrollHeight - {LOG}.scrollTop - {LOG}.clientHeight < 4)"
FOLLOWING = f"{LOG}.classList.contains('following')"
JUMP_SHOWN = "!document.querySelector('.jump-latest').hidden"
# Counts the page's frames, so a test can wait for "some frames later" rather than a time.
FRAMES = """(function () { if (!window.__frames) { window.__frames = 1;
  const tick = () => { window.__frames += 1; requestAnimationFrame(tick); };
  requestAnimationFrame(tick); } return window.__frames; })()"""


def js(app: AppProcess, script: str) -> object:
    return app.eval_js(script)


def open_popup(desktop: DesktopEnv, app: AppProcess) -> tuple[int, int]:
    """Show the popup and wait for its page; the window's top-left corner on the screen."""
    app.send("show")
    wait_for(lambda: app.state()["visible"] and desktop.visible_windows(POPUP), 15, "the popup")
    wait_for(lambda: js(app, "document.querySelector('#app').dataset.ready || null"), 20,
             "the page to boot")  # fmt: skip
    x, y, _w, _h = desktop.geometry(desktop.visible_windows(POPUP)[0])
    return x, y


def send_from_page(app: AppProcess, text: str) -> None:
    app.eval_js(
        "(function () { const p = document.querySelector('#prompt');"
        f" p.value = {json.dumps(text, ensure_ascii=False)};"
        " document.querySelector('#composer').requestSubmit(); return 1; })()"
    )


def log_point(app: AppProcess, origin: tuple[int, int], *, right: int = 0) -> tuple[str, str]:
    """A screen point in the middle of the log (or ``right`` px from its right edge)."""
    box = js(app, f"(function () {{ const r = {LOG}.getBoundingClientRect();"
                  " return [r.left, r.top, r.width, r.height]; })()")  # fmt: skip
    assert isinstance(box, list)
    left, top, width, height = box
    x = left + width - right if right else left + width / 2
    return str(int(origin[0] + x)), str(int(origin[1] + top + height / 2))


def frames_later(app: AppProcess, count: int = 30) -> None:
    """Wait until the page has drawn ``count`` more frames (a snap back takes one or two)."""
    start = js(app, FRAMES)
    assert isinstance(start, int)
    wait_for(lambda: (js(app, FRAMES) or 0) >= start + count, 15, f"{count} frames")


def wheel(desktop: DesktopEnv, point: tuple[str, str], button: str, times: int) -> None:
    desktop.xdotool("mousemove", *point)
    desktop.xdotool("click", "--repeat", str(times), "--delay", "40", button)


def test_the_wheel_scrolls_back_while_an_answer_streams_and_after_it(
    desktop: DesktopEnv, app: AppProcess, fake: FakeOllama
) -> None:
    fake.script(slow_turn(LONG, delay=0.06, chunk_chars=16), text_turn("短的回答。"))
    origin = open_popup(desktop, app)
    send_from_page(app, "写很多 😀")
    wait_for(lambda: js(app, f"{TOP} > 300 && {AT_END}"), 30, "the answer to fill the log")
    point = log_point(app, origin)

    wheel(desktop, point, "4", 1)  # one notch up, while the text streams in
    wait_for(lambda: js(app, f"!{FOLLOWING} && !{AT_END}"), 10, "the view to leave the end")
    frames_later(app)
    held = js(app, TOP)
    assert js(app, f"!{AT_END}"), "the view snapped back to the end"
    wait_for(lambda: js(app, JUMP_SHOWN), 10, "Jump to latest while text arrives below")
    desktop.screenshot("scroll-back-streaming")
    wait_for(lambda: app.core("status")["state"] == "idle", 40, "the answer to finish")
    frames_later(app)
    assert js(app, TOP) == held, "the view moved while the answer streamed below it"

    # After the answer: more notches up, and it stays there.
    wheel(desktop, point, "4", 3)
    wait_for(lambda: (js(app, TOP) or 0) < held, 10, "the view to go further up")
    frames_later(app)
    assert not js(app, AT_END) and not js(app, FOLLOWING)

    # Back down to the end with the wheel: following again, for the next answer too.
    for _ in range(20):  # a notch is some tens of pixels: turn until the end is reached
        wheel(desktop, point, "5", 10)
        frames_later(app, 10)
        if js(app, AT_END):
            break
    wait_for(lambda: js(app, f"{AT_END} && {FOLLOWING}"), 15, "the log to follow again")
    assert not js(app, JUMP_SHOWN)
    send_from_page(app, "再来")
    messages = "document.querySelector('#messages').textContent"
    wait_for(lambda: "短的回答。" in str(js(app, messages)), 20, "the next answer")
    wait_for(lambda: js(app, AT_END), 10, "the next answer followed to the end")


def test_keys_and_the_scroll_bar_scroll_back_in_the_real_window(
    desktop: DesktopEnv, app: AppProcess, fake: FakeOllama
) -> None:
    fake.script(slow_turn(LONG, delay=0.06, chunk_chars=16))
    origin = open_popup(desktop, app)
    send_from_page(app, "写很多 😀")
    wait_for(lambda: js(app, f"{TOP} > 300 && {AT_END}"), 30, "the answer to fill the log")
    # The keyboard where the user is: the message box (PageUp scrolls the log from there).
    prompt = js(
        app,
        "(function () { const r = document.querySelector('#prompt').getBoundingClientRect();"
        " return [r.left + r.width / 2, r.top + 8]; })()",
    )
    assert isinstance(prompt, list)
    desktop.xdotool("mousemove", str(int(origin[0] + prompt[0])), str(int(origin[1] + prompt[1])),
                    "click", "1")  # fmt: skip
    wait_for(lambda: js(app, "document.activeElement.id === 'prompt'"), 10, "the message box")
    before = js(app, TOP)
    desktop.xdotool("key", "Prior")  # PageUp, while the text streams
    wait_for(lambda: js(app, f"!{FOLLOWING} && {TOP} < {before} - 100"), 10, "PageUp to scroll")
    frames_later(app)
    assert not js(app, AT_END), "the view snapped back to the end"
    assert js(app, "document.activeElement.id === 'prompt'"), "PageUp took the focus away"

    # Home with the focus on the page itself (a click on the text of the log).
    desktop.xdotool("mousemove", *log_point(app, origin), "click", "1")
    wait_for(lambda: js(app, "document.activeElement === document.body"), 10, "the body")
    desktop.xdotool("key", "Home")
    wait_for(lambda: js(app, f"{TOP} === 0"), 10, "Home to reach the top")
    wait_for(lambda: app.core("status")["state"] == "idle", 40, "the answer to finish")
    frames_later(app)
    assert js(app, TOP) == 0, "the view left the top while the answer streamed"

    desktop.xdotool("key", "Next")  # PageDown: further down, still reading
    wait_for(lambda: (js(app, TOP) or 0) > 100, 10, "PageDown to scroll")
    assert not js(app, FOLLOWING)
    desktop.xdotool("key", "End")
    wait_for(lambda: js(app, f"{AT_END} && {FOLLOWING}"), 10, "End to follow again")

    # The scroll bar: press on it near the bottom and drag it up.
    x, y = log_point(app, origin, right=4)
    bottom = int(y) + int(js(app, f"{LOG}.clientHeight / 2 - 20") or 0)  # type: ignore[call-overload]
    desktop.xdotool("mousemove", x, str(bottom), "mousedown", "1")
    desktop.xdotool("mousemove", x, str(bottom - 60))
    desktop.xdotool("mousemove", x, str(bottom - 150))
    desktop.xdotool("mouseup", "1")
    wait_for(lambda: js(app, f"!{FOLLOWING} && !{AT_END}"), 10, "the drag to scroll up")
    frames_later(app)
    assert not js(app, AT_END), "the view snapped back after the drag"
    desktop.screenshot("scroll-back-scroll-bar")
