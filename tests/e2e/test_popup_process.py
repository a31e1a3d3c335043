"""The popup as a child process that behaves like a popup.

The real app under Xvfb with openbox: the popup process starts on the first show, is unloaded
after ``popup_unload_after_s`` hidden and comes back with the chat; a popup killed with SIGKILL
is restarted on the next show with a pending approval still approvable by a real click; the
window is frameless, above others, out of the taskbar and fully on an 800 px screen; it hides
when another app takes the focus, but not while an approval waits.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.desktop_env import AppProcess, DesktopEnv, descendants, wait_for
from tests.fakes.ollama_server import FakeOllama, text_turn, tool_turn

pytestmark = [pytest.mark.gui, pytest.mark.timeout(150)]

READY = "document.querySelector('#app') && document.querySelector('#app').dataset.ready || null"


def popup_window(desktop: DesktopEnv) -> str:
    return wait_for(lambda: desktop.visible_windows("Metona"), 15, "the popup window")[0]


def shown(desktop: DesktopEnv, app: AppProcess) -> str:
    app.send("show")
    wait_for(lambda: app.state()["visible"], 20, "the popup to show")
    wait_for(lambda: app.eval_js(READY), 20, "the page to boot")
    return popup_window(desktop)


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def click_in_page(desktop: DesktopEnv, app: AppProcess, selector: str) -> None:
    """A real (trusted) click on an element of the page, through the X server."""
    box = wait_for(
        lambda: app.eval_js(
            f"(function () {{ const e = document.querySelector({json.dumps(selector)});"
            " if (!e || e.disabled) return null; const r = e.getBoundingClientRect();"
            " return [r.left, r.top, r.width, r.height]; })()"
        ),
        15,
        f"{selector} to be clickable",
    )
    x, y, _w, _h = desktop.geometry(popup_window(desktop))
    desktop.xdotool("mousemove", str(int(x + box[0] + box[2] / 2)),
                    str(int(y + box[1] + box[3] / 2)), "click", "1")  # fmt: skip


@pytest.fixture
def other_window(desktop: DesktopEnv) -> Iterator[str]:
    """Another application's window (xmessage), for the focus to move to."""
    popen = subprocess.Popen(
        ["xmessage", "-geometry", "300x100+40+600", "another app"], env=desktop.env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    try:
        yield wait_for(lambda: desktop.visible_windows("xmessage", min_width=50), 15, "xmessage")[0]
    finally:
        popen.kill()
        popen.wait(5)


def test_no_popup_process_until_first_shown_then_unloaded_and_back(
    desktop: DesktopEnv, app: AppProcess, fake: FakeOllama, workspace: Path
) -> None:
    state = app.state()
    assert state["popup_pid"] is None and state["popup_starts"] == 0, "started lazily"
    fake.script(text_turn("你好 — the answer survives an unload."))
    session = app.core("new_session", workspace=str(workspace))
    app.core("send_message", session["id"], "hello")
    wait_for(lambda: app.core("status")["state"] == "idle", 20, "the answer")
    assert (
        app.core("update_settings", {"popup_unload_after_s": 1})["settings"]["popup_unload_after_s"]
        == 1
    )

    shown(desktop, app)
    first = app.state()["popup_pid"]
    assert first and alive(first)
    app.send("hide")
    wait_for(lambda: app.state()["popup_pid"] is None, 20, "the hidden popup to be unloaded")
    wait_for(lambda: not alive(first), 10, "the popup process to end")
    assert app.state()["visible"] is False

    shown(desktop, app)  # opens again: a new process whose page reads Core's snapshots
    second = app.state()["popup_pid"]
    assert second != first and app.state()["popup_starts"] == 2
    text = wait_for(
        lambda: "survives an unload" in (t := str(app.eval_js(
            "Array.from(document.querySelectorAll('.msg.assistant')).map(e => e.textContent).join()"
        ))) and t,
        20, "the chat after the reload",
    )  # fmt: skip
    assert "你好 — the answer survives an unload." in text


def test_a_killed_popup_comes_back_with_the_pending_approval(
    desktop: DesktopEnv, app: AppProcess, fake: FakeOllama, workspace: Path
) -> None:
    fake.script(
        tool_turn([("write_file", {"path": "kept.txt", "content": "still here\n"})]),
        text_turn("Written."),
    )
    shown(desktop, app)
    session = app.core("new_session", workspace=str(workspace))
    app.core("send_message", session["id"], "write kept.txt")
    wait_for(lambda: app.core("pending_approvals"), 20, "the approval request")
    victim = app.state()["popup_pid"]
    os.kill(victim, signal.SIGKILL)
    wait_for(lambda: app.state()["popup_pid"] is None, 15, "the tray to notice the crash")
    assert app.core("pending_approvals"), "the approval waits in Core, not in the popup"

    shown(desktop, app)
    assert app.state()["popup_pid"] not in (None, victim)
    wait_for(lambda: app.eval_js("!document.querySelector('#approval').hidden || null"), 20,
             "the approval panel in the new popup")  # fmt: skip
    click_in_page(desktop, app, "#approval .btn.primary")
    wait_for(lambda: (workspace / "kept.txt").exists(), 20, "the approved write")
    assert (workspace / "kept.txt").read_text() == "still here\n"
    wait_for(lambda: app.core("status")["state"] == "idle", 20, "the turn to finish")


def test_frameless_on_top_out_of_the_taskbar_and_on_screen(
    desktop: DesktopEnv, app: AppProcess
) -> None:
    # A size remembered from a bigger screen: the popup must still fit this 1280x800 one.
    (app.home / "config" / "popup.json").write_text(json.dumps({"size": [520, 1100]}))
    app.stop()
    app.start()
    window = shown(desktop, app)
    x, y, w, h = desktop.geometry(window)
    assert x >= 0 and y >= 0 and x + w <= 1280 and y + h <= 800, (x, y, w, h)
    assert w == 520, "the remembered width is kept"
    extents = desktop.xprop("-id", window, "_NET_FRAME_EXTENTS")
    assert "0, 0, 0, 0" in extents or "not found" in extents, f"decorated: {extents}"
    states = desktop.xprop("-id", window, "_NET_WM_STATE")
    assert "_NET_WM_STATE_SKIP_TASKBAR" in states and "_NET_WM_STATE_ABOVE" in states, states
    desktop.screenshot("popup-frameless")


def test_hides_when_another_app_takes_the_focus_but_not_while_an_approval_waits(
    desktop: DesktopEnv, app: AppProcess, fake: FakeOllama, workspace: Path, other_window: str
) -> None:
    shown(desktop, app)
    desktop.xdotool("windowactivate", "--sync", other_window)
    wait_for(lambda: not app.state()["visible"], 15, "the popup to hide on focus loss")
    assert not desktop.visible_windows("Metona")

    fake.script(tool_turn([("write_file", {"path": "w.txt", "content": "x"})]), text_turn("ok"))
    session = app.core("new_session", workspace=str(workspace))
    app.core("send_message", session["id"], "write w.txt")
    wait_for(lambda: app.core("pending_approvals"), 20, "the approval request")
    wait_for(lambda: app.state()["pending"] == 1, 10, "the tray to know")
    shown(desktop, app)
    wait_for(lambda: app.state()["active"], 10, "the popup to have the focus again")
    losses = app.state()["focus_losses"]
    desktop.xdotool("windowactivate", "--sync", other_window)
    wait_for(lambda: app.state()["focus_losses"] > losses, 10, "the popup to notice the loss")
    assert app.state()["visible"], "an approval waits: the popup stays"
    assert desktop.visible_windows("Metona")
    app.core("decide", app.core("pending_approvals")[0]["call_id"], False)


def test_a_killed_tray_leaves_no_popup_behind(desktop: DesktopEnv, app: AppProcess) -> None:
    shown(desktop, app)
    popup = app.state()["popup_pid"]
    helpers = descendants(popup) | {popup}
    assert len(helpers) > 1, "WebKit's helper processes run under the popup"
    assert app.child is not None
    os.kill(app.child.popen.pid, signal.SIGKILL)  # the tray alone, not its process group
    app.child.popen.wait(10)
    wait_for(lambda: not any(alive(p) for p in helpers), 15, "the popup and WebKit to end")


def test_dragged_by_its_header_and_back_in_place_when_shown_again(
    desktop: DesktopEnv, app: AppProcess
) -> None:
    window = shown(desktop, app)
    x0, y0, _w, _h = desktop.geometry(window)
    box = wait_for(
        lambda: app.eval_js(
            "(function () { const e = document.querySelector('.titlebox.pywebview-drag-region');"
            " if (!e) return null; const r = e.getBoundingClientRect();"
            " return [r.left, r.top, r.width, r.height]; })()"
        ),
        15,
        "the header's drag region",
    )
    gx, gy = int(x0 + box[0] + 4), int(y0 + box[1] + box[3] / 2)
    desktop.xdotool("mousemove", str(gx), str(gy), "mousedown", "1")
    for step in range(1, 11):
        desktop.xdotool("mousemove", str(gx - 30 * step), str(gy + 20 * step))
    desktop.xdotool("mouseup", "1")
    moved = wait_for(
        lambda: (g := desktop.geometry(window))[:2] != (x0, y0) and g, 10, "the window to move"
    )
    assert moved[0] < x0 and moved[1] > y0, (x0, y0, moved)
    app.send("hide")
    wait_for(lambda: not app.state()["visible"], 10, "hidden")
    window = shown(desktop, app)
    wait_for(lambda: desktop.geometry(window)[:2] == (x0, y0), 10, "the same place as before")
