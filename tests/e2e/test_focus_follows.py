"""The keyboard lands in the message box of the real popup (WebKitGTK under Xvfb and openbox):
after it is hidden with Esc and shown again with the hotkey (a button in the chat clicked
before), and after the native folder and save dialogs are cancelled. Typed with xdotool, read
back from the page through the test hooks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.desktop_env import AppProcess, DesktopEnv, wait_for
from tests.fakes.ollama_server import FakeOllama, text_turn, tool_turn

pytestmark = [pytest.mark.gui, pytest.mark.timeout(180)]

POPUP = "Metona"
IN_PROMPT = "document.activeElement && document.activeElement.id === 'prompt'"
PROMPT_VALUE = "document.querySelector('#prompt').value"


def press_hotkey(desktop: DesktopEnv) -> None:
    desktop.xdotool("key", "--clearmodifiers", "ctrl+alt+space")


def shown(desktop: DesktopEnv, app: AppProcess) -> bool:
    return bool(app.state()["visible"] and desktop.visible_windows(POPUP))


def types_into_prompt(desktop: DesktopEnv, app: AppProcess, text: str) -> None:
    """Type as a user does (into whatever X window has the keyboard) and find it in the box."""
    app.eval_js("(function () { document.querySelector('#prompt').value = ''; return 1; })()")
    wait_for(lambda: app.eval_js(IN_PROMPT), 10, "the focus in the message box")
    desktop.xdotool("type", "--delay", "20", text)
    wait_for(lambda: app.eval_js(PROMPT_VALUE) == text, 10, f"{text!r} typed into the message box")


def click_element(desktop: DesktopEnv, app: AppProcess, selector: str) -> None:
    box = app.eval_js(
        f"(function () {{ const r = document.querySelector({json.dumps(selector)})"
        ".getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()"
    )
    assert isinstance(box, list)
    x, y, _w, _h = desktop.geometry(desktop.visible_windows(POPUP)[0])
    desktop.xdotool("mousemove", str(int(x + box[0])), str(int(y + box[1])), "click", "1")


def test_hotkey_after_esc_puts_the_keyboard_in_the_message_box(
    desktop: DesktopEnv, app: AppProcess, fake: FakeOllama, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("你好 😀\n", encoding="utf-8")
    fake.script(
        tool_turn([("read_file", {"path": "notes.txt"})], content="读一下。"),
        text_turn("读好了 😀"),
    )
    press_hotkey(desktop)
    wait_for(lambda: shown(desktop, app), 15, "the popup")
    wait_for(lambda: app.eval_js("document.querySelector('#app').dataset.ready || null"), 20,
             "the page to boot")  # fmt: skip
    types_into_prompt(desktop, app, "read notes")
    desktop.xdotool("key", "Return")
    wait_for(lambda: app.eval_js("document.querySelector('.tool-card .tc-toggle') !== null"), 20,
             "the tool card")  # fmt: skip
    wait_for(lambda: app.core("status")["state"] == "idle", 30, "the answer")
    for button in (".tool-card .tc-toggle", ".msg.assistant .act"):  # expand arrow, Copy
        click_element(desktop, app, button)
        wait_for(lambda: app.eval_js(f"!({IN_PROMPT})"), 10, "the click to take the focus")
        desktop.xdotool("key", "Escape")
        wait_for(lambda: not shown(desktop, app), 15, "Esc to hide the popup")
        press_hotkey(desktop)
        wait_for(lambda: shown(desktop, app), 15, "the hotkey to show the popup")
        types_into_prompt(desktop, app, "next question")
    desktop.screenshot("focus-after-hotkey")


def test_cancelled_native_dialogs_give_the_keyboard_back(
    desktop: DesktopEnv, app: AppProcess, fake: FakeOllama
) -> None:
    fake.script(text_turn("好的 🎉"))
    session = app.core("new_session")
    app.core("send_message", session["id"], "导出我 📊")
    wait_for(lambda: app.core("status")["state"] == "idle", 15, "the answer")
    press_hotkey(desktop)
    wait_for(lambda: shown(desktop, app), 15, "the popup")
    wait_for(lambda: app.eval_js("document.querySelector('#app').dataset.ready || null"), 20,
             "the page to boot")  # fmt: skip

    click_element(desktop, app, "#btn-workspace")  # Change folder: the native folder dialog
    dialog = wait_for(lambda: desktop.visible_windows("Choose a folder"), 15, "the folder dialog")
    desktop.xdotool("windowactivate", "--sync", dialog[0])
    desktop.xdotool("key", "Escape")
    wait_for(lambda: not desktop.visible_windows("Choose a folder"), 15, "the dialog to close")
    assert shown(desktop, app)
    types_into_prompt(desktop, app, "after the folder dialog")

    # What the chat list's Export does: the page's export event (the native save dialog).
    app.eval_js(
        "(document.querySelector('#app').dispatchEvent(new CustomEvent('metona:export',"
        f" {{ detail: {{ sessionId: {json.dumps(session['id'])}, format: 'markdown' }} }})), 1)"
    )
    dialog = wait_for(lambda: desktop.visible_windows("Export chat"), 15, "the save dialog")
    desktop.xdotool("windowactivate", "--sync", dialog[0])
    desktop.xdotool("key", "Escape")
    wait_for(lambda: not desktop.visible_windows("Export chat"), 15, "the save dialog to close")
    assert shown(desktop, app)
    types_into_prompt(desktop, app, "after the save dialog")
    desktop.xdotool("key", "Escape")  # Esc works again too: it hides the popup
    wait_for(lambda: not shown(desktop, app), 15, "Esc to hide the popup")


def test_an_approval_is_answered_from_the_message_box_with_real_keys(
    desktop: DesktopEnv, app: AppProcess, fake: FakeOllama, workspace: Path
) -> None:
    first = workspace / "一.txt"
    second = workspace / "二 😀.txt"
    fake.script(
        tool_turn([("write_file", {"path": str(first), "content": "1\n"})], content="好的。"),
        text_turn("写好了。"),
        tool_turn([("write_file", {"path": str(second), "content": "2\n"})], content="好的。"),
        text_turn("不写了。"),
    )
    press_hotkey(desktop)
    wait_for(lambda: shown(desktop, app), 15, "the popup")
    wait_for(lambda: app.eval_js("document.querySelector('#app').dataset.ready || null"), 20,
             "the page to boot")  # fmt: skip
    approve = "document.querySelector('#approval button.btn.primary')"
    for keys, approves in (("ctrl+Return", True), ("ctrl+shift+BackSpace", False)):
        types_into_prompt(desktop, app, "write a file")
        desktop.xdotool("key", "Return")
        wait_for(lambda: app.eval_js(f"!!{approve} && !{approve}.disabled"), 20, "the approval")
        types_into_prompt(desktop, app, "draft")  # the user goes on typing
        desktop.xdotool("key", keys)
        wait_for(lambda: app.eval_js("document.querySelector('#approval').hidden"), 15,
                 f"{keys} to answer the approval")  # fmt: skip
        assert app.eval_js(PROMPT_VALUE) == "draft", "the chord changed or sent the draft"
        assert app.eval_js(IN_PROMPT)
        wait_for(lambda: app.core("status")["state"] == "idle", 20, "the answer")
        assert (first if approves else second).exists() is approves
    assert first.read_text(encoding="utf-8") == "1\n"
    desktop.screenshot("approval-chords")
