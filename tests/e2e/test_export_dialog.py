"""Export a chat through the real popup: the page's command opens the native GTK save dialog
in the popup process, the user accepts the suggested (CJK, emoji) name in a folder they type,
and the tray process writes the file. Under Xvfb, driven with xdotool."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.e2e.desktop_env import AppProcess, DesktopEnv, wait_for
from tests.fakes.ollama_server import FakeOllama, text_turn

pytestmark = [pytest.mark.gui, pytest.mark.timeout(150)]

QUESTION = "季度报告 📊 整理"
ANSWER = "好的 🎉 已整理三个文件。"


def press_return_until(desktop: DesktopEnv, done: Callable[[], object]) -> None:
    """Press Return in the save dialog; once more if nothing happened, because on a busy
    machine GTK's path completion pops up while the folder is typed and takes the first
    Return for itself (the dialog is then still there with the same name)."""
    desktop.xdotool("key", "Return")
    try:
        wait_for(done, 5, "the dialog to act on Return")
    except AssertionError:
        desktop.xdotool("key", "Return")


def assert_on_screen(desktop: DesktopEnv, window: str) -> None:
    """The dialog comes to lie inside the 1280x800 screen (GTK's own 1096x775, placed under
    the popup, ran off its bottom): it is fitted once GTK has sized it."""

    def inside() -> bool:
        x, y, width, height = desktop.geometry(window)
        return x >= 0 and y >= 0 and x + width <= 1280 and y + height <= 800

    wait_for(inside, 10, f"the dialog inside the screen, not {desktop.geometry(window)}")


def answered_chat(app: AppProcess, fake: FakeOllama) -> tuple[str, str]:
    """A chat with one question answered: its id and its title (the suggested file name)."""
    fake.script(text_turn(ANSWER))
    session = app.core("new_session")
    app.core("send_message", session["id"], QUESTION)
    wait_for(lambda: app.core("status")["state"] == "idle", 15, "the answer")
    return session["id"], app.core("get_session", session["id"])["session"]["title"]


def export_into(
    desktop: DesktopEnv, app: AppProcess, session_id: str, fmt: str, folder: Path
) -> None:
    """Show the popup, ask the page's bridge to export the chat, and type ``folder`` in front
    of the suggested name in the save dialog (not yet confirmed)."""
    app.send("show")
    wait_for(lambda: app.state()["visible"], 15, "the popup")
    payload = json.dumps({"session_id": session_id, "format": fmt})
    app.eval_js(
        "(import(new URL('js/lib/bridge.js', location.href).href)"
        f".then(m => m.call('export_session', {payload}))"
        ".then(r => { window.__exported = r; }, e => { window.__exported = String(e); }), 1)"
    )
    dialog = wait_for(lambda: desktop.visible_windows("Export chat"), 15, "the save dialog")
    assert_on_screen(desktop, dialog[0])
    desktop.xdotool("windowactivate", "--sync", dialog[0])
    # The name field holds the suggested name: put the folder in front of it.
    desktop.xdotool("key", "Home")
    desktop.xdotool("type", "--delay", "10", f"{folder}/")


def test_export_goes_through_the_native_save_dialog(
    desktop: DesktopEnv, app: AppProcess, fake: FakeOllama, tmp_path: Path
) -> None:
    session_id, title = answered_chat(app, fake)
    folder = tmp_path / "exports"
    folder.mkdir()
    export_into(desktop, app, session_id, "json", folder)
    desktop.screenshot("09-save-dialog")
    press_return_until(desktop, lambda: app.eval_js("window.__exported || null"))
    result = wait_for(lambda: app.eval_js("window.__exported || null"), 15, "the export")
    [written] = list(folder.iterdir())
    assert result == {"saved": True, "path": str(written), "format": "json"}
    assert written.name == f"{title}.json" and "📊" in written.name
    saved = json.loads(written.read_text(encoding="utf-8"))
    assert [m["content"] for m in saved["messages"]] == [QUESTION, ANSWER]
    assert app.state()["visible"], "focus moved to the dialog: the popup did not hide for that"


def test_an_existing_file_is_not_replaced_without_asking(
    desktop: DesktopEnv, app: AppProcess, fake: FakeOllama, tmp_path: Path
) -> None:
    session_id, title = answered_chat(app, fake)
    existing = tmp_path / f"{title}.md"  # what an earlier export of this chat wrote
    existing.write_text("old notes 旧笔记\n", encoding="utf-8")
    export_into(desktop, app, session_id, "markdown", tmp_path)
    before = desktop.top_windows()
    press_return_until(desktop, lambda: desktop.top_windows() - before)
    wait_for(lambda: desktop.top_windows() - before, 15, "GTK to ask before replacing the file")
    desktop.screenshot("10-replace-question")
    desktop.xdotool("key", "Escape")  # no: back in the save dialog
    wait_for(lambda: not (desktop.top_windows() - before), 15, "the question to close")
    desktop.xdotool("key", "Escape")  # and cancel the export
    result = wait_for(lambda: app.eval_js("window.__exported || null"), 15, "the export")
    assert result == {"saved": False, "path": None}
    assert existing.read_text(encoding="utf-8") == "old notes 旧笔记\n"
