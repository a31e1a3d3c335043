"""Life cycle of the desktop app: closing the window only hides it, SIGTERM quits cleanly,
and a crash (SIGKILL) leaves nothing that stops the next start (stale lock and socket)."""

from __future__ import annotations

import os
import signal
import subprocess

import pytest

from tests.e2e.desktop_env import AppProcess, DesktopEnv, wait_for

pytestmark = [pytest.mark.gui, pytest.mark.timeout(150)]


def popup_windows(desktop: DesktopEnv) -> list[str]:
    return desktop.visible_windows("Metona")


def send_wm_delete(desktop: DesktopEnv, window: str) -> None:
    """What a window manager sends when the user clicks the close button."""
    from Xlib import X, display, protocol

    disp = display.Display(desktop.display)
    try:
        target = disp.create_resource_object("window", int(window))
        event = protocol.event.ClientMessage(
            window=target,
            client_type=disp.intern_atom("WM_PROTOCOLS"),
            data=(32, [disp.intern_atom("WM_DELETE_WINDOW"), X.CurrentTime, 0, 0, 0]),
        )
        target.send_event(event, event_mask=X.NoEventMask)
        disp.sync()  # a round trip: the server has the event before we disconnect
    finally:
        disp.close()


def test_closing_the_window_hides_it_and_keeps_the_page(
    desktop: DesktopEnv, app: AppProcess
) -> None:
    app.send("show")
    window = wait_for(lambda: popup_windows(desktop), 15, "the popup")[0]
    app.eval_js("(document.querySelector('#prompt').value = 'draft kept', 1)")
    send_wm_delete(desktop, window)
    wait_for(lambda: not popup_windows(desktop) and not app.state()["visible"], 15, "hidden")
    assert app.child is not None and app.child.popen.poll() is None, "the app keeps running"
    app.send("show")
    wait_for(lambda: popup_windows(desktop), 15, "the popup again")
    assert app.eval_js("document.querySelector('#prompt').value") == "draft kept"


def test_sigterm_quits_cleanly(app: AppProcess) -> None:
    assert app.child is not None
    os.kill(app.child.popen.pid, signal.SIGTERM)
    try:
        assert app.child.popen.wait(3.0) == 0
    except subprocess.TimeoutExpired:
        pytest.fail("the app did not exit within 3 seconds of SIGTERM")


def test_a_crash_does_not_block_the_next_start(desktop: DesktopEnv, app: AppProcess) -> None:
    assert app.child is not None
    os.killpg(app.child.popen.pid, signal.SIGKILL)  # no chance to clean up
    app.child.popen.wait(10)
    stale_socket = app.instance.address
    assert os.path.exists(stale_socket) and app.instance.key_path.exists()
    again = AppProcess(desktop, app.home, name="restarted")
    try:
        again.start()
        assert again.send("ping")["pid"] == again.child.popen.pid  # type: ignore[union-attr]
    finally:
        again.stop()
