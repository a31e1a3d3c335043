"""The desktop app under Xvfb, as a user meets it.

Each test runs the real app (``python -m tray_app``) in a private X display with a D-Bus
session, trayer as the tray host and a recording notification server, and the fake Ollama
on loopback. Input comes from xdotool (clicks, keys, typing); state is read from the screen
(screenshots, xdotool/xwininfo), from the notification server, from files, and through the
app's test hooks (``METONA_TEST_HOOKS``, see ``tray_app.desktop.app``).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from PIL import Image, ImageStat

from tests.e2e.desktop_env import AppProcess, DesktopEnv, descendants, wait_for
from tests.e2e.test_export_dialog import assert_on_screen
from tests.fakes.ollama_server import FakeOllama, text_turn, tool_turn
from tray_app.desktop.tray.icons import BADGE_COLOURS, BUBBLE

pytestmark = [pytest.mark.gui, pytest.mark.timeout(150)]

POPUP = "Metona"  # the window title xdotool searches for


def colour_pixels(
    image: Image.Image, box: tuple[int, int, int, int], colour: tuple[int, ...]
) -> int:
    """How many pixels in ``box`` are close to ``colour`` (the icon's own paint)."""
    data = image.convert("RGB").crop(box).tobytes()
    r, g, b = colour[:3]
    return sum(
        1
        for i in range(0, len(data), 3)
        if abs(data[i] - r) + abs(data[i + 1] - g) + abs(data[i + 2] - b) < 60
    )


def docked_icon(desktop: DesktopEnv) -> tuple[int, int, int, int]:
    """The geometry of our icon inside trayer, once it is there."""
    icons = wait_for(desktop.tray_icons, 20, "an icon docked in trayer")
    return icons[-1][1]


def popup_visible(desktop: DesktopEnv, app: AppProcess) -> bool:
    return bool(app.state()["visible"] and desktop.visible_windows(POPUP))


def popup_hidden(desktop: DesktopEnv, app: AppProcess) -> bool:
    return not app.state()["visible"] and not desktop.visible_windows(POPUP)


def press_hotkey(desktop: DesktopEnv) -> None:
    desktop.xdotool("key", "--clearmodifiers", "ctrl+alt+space")


def test_icon_docks_click_opens_popup_and_hotkey_toggles(
    desktop: DesktopEnv, app: AppProcess
) -> None:
    x, y, w, h = docked_icon(desktop)
    shot = desktop.screenshot("01-icon-docked")
    assert colour_pixels(shot, (x, y, x + w, y + h), BUBBLE) > w * h // 8, "no icon painted"
    assert popup_hidden(desktop, app), "the popup must start hidden"

    desktop.xdotool("mousemove", str(x + w // 2), str(y + h // 2), "click", "1")
    wait_for(lambda: popup_visible(desktop, app), 15, "the popup after a click on the icon")
    window = desktop.visible_windows(POPUP)[0]
    wx, wy, ww, wh = desktop.geometry(window)
    assert wy < y + h + 60 and wx + ww > 1280 - 60, "the popup opens next to the tray icon"
    wait_for(lambda: app.eval_js("document.querySelector('#prompt') !== null"), 15, "the page")
    shot = desktop.screenshot("02-popup-from-click")
    page = shot.convert("L").crop((wx, wy, wx + ww, wy + wh))
    assert ImageStat.Stat(page).mean[0] > 150, "the popup shows the (light) page"

    press_hotkey(desktop)
    wait_for(lambda: popup_hidden(desktop, app), 15, "the hotkey to hide the popup")
    press_hotkey(desktop)
    wait_for(lambda: popup_visible(desktop, app), 15, "the hotkey to show the popup")
    desktop.screenshot("03-popup-from-hotkey")

    desktop.xdotool("mousemove", str(x + w // 2), str(y + h // 2), "click", "1")
    wait_for(lambda: popup_hidden(desktop, app), 15, "a second click to hide the popup")


def test_approve_a_write_from_the_notification(
    desktop: DesktopEnv, app: AppProcess, fake: FakeOllama, workspace: Path
) -> None:
    # The model streams a sentence slowly, then asks to write a file; then it says it is done.
    fake.script(
        tool_turn(
            [("write_file", {"path": "hello.txt", "content": "hi there\n"})],
            content="Sure, I will write that file for you now.",
            chunk_chars=4,
            delay=0.25,
        ),
        text_turn("Done: hello.txt is written."),
    )
    press_hotkey(desktop)
    wait_for(lambda: popup_visible(desktop, app), 15, "the popup")
    box = wait_for(
        lambda: app.eval_js(
            "(function () { const r = document.querySelector('#prompt').getBoundingClientRect();"
            " return [r.left, r.top, r.width, r.height]; })()"
        ),
        15,
        "the composer",
    )
    wx, wy, _ww, _wh = desktop.geometry(desktop.visible_windows(POPUP)[0])
    desktop.xdotool("mousemove", str(int(wx + box[0] + box[2] / 2)),
                    str(int(wy + box[1] + box[3] / 2)), "click", "1")  # fmt: skip
    desktop.xdotool("type", "--delay", "15", "Please write hello.txt")
    desktop.xdotool("key", "Return")
    wait_for(lambda: fake.chat_requests, 15, "the message to reach the model")
    press_hotkey(desktop)  # hide it while the model is still answering
    wait_for(lambda: popup_hidden(desktop, app), 15, "the popup to hide")

    def approval() -> dict[str, object] | None:
        asks = [n for n in desktop.notifications() if "approve" in n["actions"]]
        return asks[0] if asks else None

    note = wait_for(approval, 30, "a notification asking to approve the write")
    assert note["summary"] == "Allow “Write file”?"
    assert str(workspace / "hello.txt") in str(note["body"])
    assert note["actions"] == {"default": "", "approve": "Approve", "deny": "Deny", "open": "Open"}
    assert app.state()["pending"] == 1
    x, y, w, h = docked_icon(desktop)
    shot = wait_for(
        lambda: (
            (s := desktop.screenshot("04-tray-waiting"))
            and colour_pixels(s, (x, y, x + w, y + h), BADGE_COLOURS["waiting"]) > 10
            and s
        ),
        10,
        "the amber 'waiting' badge on the tray icon",
    )
    assert shot is not None
    assert not (workspace / "hello.txt").exists()

    wait_for(lambda: app.state()["notified"], 15, "the app to wire the notification's buttons")
    desktop.invoke(int(note["id"]), "approve")  # the user clicks Approve
    wait_for(lambda: (workspace / "hello.txt").exists(), 15, "the approved write")
    assert (workspace / "hello.txt").read_text() == "hi there\n"
    session = app.core("list_sessions")[0]
    calls = wait_for(
        lambda: [c for c in app.core("get_session", session["id"])["tool_calls"]
                 if c["status"] == "success"],
        15,
        "the call to succeed",
    )  # fmt: skip
    assert calls[0]["decided_by"] == "notification"
    wait_for(lambda: app.core("status")["state"] == "idle", 15, "the turn to finish")

    press_hotkey(desktop)
    wait_for(lambda: popup_visible(desktop, app), 15, "the popup")
    selector = f'.tool-card[data-call-id="{calls[0]["call_id"]}"]'
    status = wait_for(
        lambda: (
            app.eval_js(
                f"(document.querySelector('{selector}') || {{dataset: {{}}}}).dataset.status"
            )
            == "success"
        ),
        15,
        "the tool card to show success",
    )
    assert status
    desktop.screenshot("05-card-success")


def test_notification_is_withdrawn_when_answered_elsewhere(
    desktop: DesktopEnv, app: AppProcess, fake: FakeOllama, workspace: Path
) -> None:
    fake.script(tool_turn([("write_file", {"path": "no.txt", "content": "x"})]), text_turn("Fine."))
    session = app.core("new_session", workspace=str(workspace))
    app.core("send_message", session["id"], "write no.txt")
    note = wait_for(
        lambda: [n for n in desktop.notifications() if "no.txt" in n["body"]], 30,
        "the approval notification",
    )[0]  # fmt: skip
    pending = app.core("pending_approvals")
    app.core("decide", pending[0]["call_id"], False)  # answered in the popup
    wait_for(
        lambda: (
            next(n for n in desktop.notifications() if n["id"] == note["id"])["closed_by"] == "app"
        ),
        15,
        "the notification to be withdrawn",
    )
    wait_for(lambda: app.core("status")["state"] == "idle", 15, "the turn to finish")
    assert not (workspace / "no.txt").exists()


def test_second_launch_and_toggle_reach_the_first_instance(
    desktop: DesktopEnv, app: AppProcess
) -> None:
    assert popup_hidden(desktop, app)
    second = app.launch()
    assert second.wait(30) == 0, "the second launch exits 0"
    wait_for(lambda: popup_visible(desktop, app), 15, "the first instance's popup")
    desktop.screenshot("06-second-launch")
    assert app.child is not None and app.child.popen.poll() is None

    toggle = app.launch("--toggle")
    assert toggle.wait(30) == 0
    wait_for(lambda: popup_hidden(desktop, app), 15, "--toggle to hide the popup")


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_quit_from_the_tray_menu_stops_everything(desktop: DesktopEnv, app: AppProcess) -> None:
    assert app.child is not None
    popen = app.child.popen
    app.send("show")  # the popup process and WebKit's helpers start with the first show
    wait_for(lambda: popup_visible(desktop, app), 15, "the popup")
    popup_pid = app.state()["popup_pid"]
    helpers = wait_for(lambda: descendants(popup_pid), 15, "WebKit's helper processes")
    helpers |= {popup_pid}
    x, y, w, h = docked_icon(desktop)
    icons_before = len(desktop.tray_icons())

    before = desktop.top_windows()
    desktop.xdotool("mousemove", str(x + w // 2), str(y + h // 2), "click", "3")
    menu = wait_for(
        lambda: [win for win in desktop.top_windows() - before if desktop.geometry(win)[3] > 100],
        10,
        "the tray menu to open",
    )
    mx, my, _mw, _mh = desktop.geometry(menu[0])
    assert abs(mx - x) < 300 and my < y + h + 40, "the menu opens at the icon"
    desktop.screenshot("07-tray-menu")
    desktop.xdotool("key", "Up", "Return")  # the last entry: Quit
    try:
        code = popen.wait(3.0)
    except subprocess.TimeoutExpired:
        pytest.fail("the app did not exit within 3 seconds of Quit")
    assert code == 0
    wait_for(lambda: not any(_alive(p) for p in helpers), 10, "the popup and WebKit to exit")
    wait_for(lambda: len(desktop.tray_icons()) < icons_before, 10, "the icon to leave the tray")


def test_settings_rebind_the_hotkey_and_write_the_login_entry(
    desktop: DesktopEnv, app: AppProcess
) -> None:
    reply = app.core("update_settings", {"hotkey": "Ctrl+Alt+K", "start_at_login": True})
    assert reply["settings"]["hotkey"] == "Ctrl+Alt+K", reply
    wait_for(lambda: app.state()["hotkey"] == "Ctrl+Alt+K", 15, "the new hotkey")
    entry = app.home / "xdg-config" / "autostart" / "metona-tray.desktop"
    wait_for(entry.exists, 15, "the autostart entry")
    assert f"METONA_HOME={app.home}" in entry.read_text()

    press_hotkey(desktop)  # the old combination does nothing now
    desktop.xdotool("key", "--clearmodifiers", "ctrl+alt+k")
    wait_for(lambda: popup_visible(desktop, app), 15, "the new hotkey to show the popup")
    desktop.xdotool("key", "--clearmodifiers", "ctrl+alt+k")
    wait_for(lambda: popup_hidden(desktop, app), 15, "the new hotkey to hide the popup")

    app.core("update_settings", {"start_at_login": False})
    wait_for(lambda: not entry.exists(), 15, "the autostart entry to be removed")


def test_the_workspace_picker_is_the_native_folder_dialog(
    desktop: DesktopEnv, app: AppProcess, tmp_path: Path
) -> None:
    chosen = tmp_path / "picked folder"
    chosen.mkdir()
    app.send("show")
    wait_for(lambda: popup_visible(desktop, app), 15, "the popup")
    # What the page's "Change folder" button does: the bridge's pick_folder.
    app.eval_js(
        "(import(new URL('js/lib/bridge.js', location.href).href)"
        ".then(m => m.call('pick_folder')).then(r => { window.__picked = r; }), 1)"
    )
    dialog = wait_for(lambda: desktop.visible_windows("Choose a folder"), 15, "the folder dialog")
    assert_on_screen(desktop, dialog[0])  # GTK's own 1096x822 ran off the 1280x800 screen
    desktop.xdotool("windowactivate", "--sync", dialog[0])
    desktop.xdotool("key", "ctrl+l")
    desktop.xdotool("type", "--delay", "10", f"{chosen}/")
    desktop.screenshot("08-folder-dialog")
    desktop.xdotool("key", "Return")
    picked = wait_for(lambda: app.eval_js("window.__picked || null"), 15, "the chosen folder")
    assert picked == {"supported": True, "path": str(chosen)}
    assert app.state()["visible"], "focus moved to the dialog: the popup did not hide for that"
