"""The global hotkey is a grab, not a listener, with the real app under Xvfb.

- ``xdotool key ctrl+alt+space`` toggles the popup, also with NumLock/CapsLock on;
- ordinary keys typed into another app's window (a Tk entry the test starts) reach that window,
  and the hotkey itself does not: the X server hands it to the app alone;
- a second app that wants the same combination is told it is taken by another app (test hook
  state, the settings page's note, and ``metona-tray doctor``).
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.desktop_env import ROOT, AppProcess, Child, DesktopEnv, wait_for
from tests.e2e.other_window import TypingTarget

pytestmark = [pytest.mark.gui, pytest.mark.timeout(180)]


@pytest.fixture
def target(desktop: DesktopEnv) -> Iterator[TypingTarget]:
    window = TypingTarget(desktop)
    try:
        yield window
    finally:
        window.stop()


def visible(app: AppProcess) -> bool:
    return bool(app.state()["visible"])


def test_typing_elsewhere_reaches_that_window_and_the_hotkey_reaches_only_the_app(
    desktop: DesktopEnv, app: AppProcess, target: TypingTarget
) -> None:
    assert app.state()["hotkey"] == "Ctrl+Alt+Space"
    assert not visible(app)
    target.focus()
    desktop.xdotool("type", "--delay", "20", "hello world")
    desktop.xdotool("key", "Return")
    keys = wait_for(lambda: "Return" in target.received() and target.received(), 15,
                    "the typed keys to reach the other window")  # fmt: skip
    typed = [k for k in keys if k not in ("Return", "space")]
    assert "".join(typed) == "helloworld"
    assert not visible(app), "ordinary typing toggled the popup"

    target.focus()
    desktop.xdotool("key", "--clearmodifiers", "ctrl+alt+space")
    wait_for(lambda: visible(app), 15, "the hotkey to show the popup")
    desktop.xdotool("key", "--clearmodifiers", "ctrl+alt+space")
    wait_for(lambda: not visible(app), 15, "the hotkey to hide the popup")
    # With NumLock and CapsLock on the grab still matches (every lock state is grabbed).
    desktop.xdotool("key", "Num_Lock", "Caps_Lock")
    desktop.xdotool("key", "--clearmodifiers", "ctrl+alt+space")
    wait_for(lambda: visible(app), 15, "the hotkey to show the popup with NumLock+CapsLock")
    desktop.xdotool("key", "Num_Lock", "Caps_Lock")
    desktop.xdotool("key", "--clearmodifiers", "ctrl+alt+space")
    wait_for(lambda: not visible(app), 15, "the hotkey to hide the popup again")
    # A marker typed after: everything before it has arrived, and the grabbed space never did.
    target.focus()
    desktop.xdotool("key", "x")
    wait_for(lambda: target.received()[-1:] == ["x"], 15, "the marker key")
    received = target.received()
    assert received.count("space") == 1, f"the hotkey's space reached the other window: {received}"


def test_a_second_app_is_told_the_hotkey_is_taken(
    desktop: DesktopEnv, app: AppProcess, tmp_path: Path
) -> None:
    assert app.state()["hotkey"] == "Ctrl+Alt+Space"
    home = tmp_path / "second-home"
    (home / "config").mkdir(parents=True)
    settings = json.loads((app.home / "config" / "settings.json").read_text())
    (home / "config" / "settings.json").write_text(json.dumps(settings))
    second = AppProcess(desktop, home, name="second-app")
    second.child = Child(second.name, second.launch())
    try:
        state = wait_for(
            lambda: (s := second.state())["tray_ready"] and s["hotkey_error"] and s, 90,
            "the second app to start and report its hotkey",
        )  # fmt: skip
        assert state["hotkey"] is None
        assert state["hotkey_error"] == (
            "Ctrl+Alt+Space is taken by another app; choose another shortcut"
        )
        # The settings page says so, in the page's language.
        second.send("show")
        # (Clicked until it opens: the page loads its settings shortly after it is shown.)
        note = wait_for(
            lambda: second.eval_js(
                "(function () { const f = document.querySelector('#settings input.hotkey');"
                " const n = f && f.closest('.field').querySelector('.note');"
                " if (n) return n.textContent;"
                " if (document.querySelector('#settings').hidden)"
                "   document.querySelector('#btn-settings').click();"
                " return null; })()"
            ),
            15,
            "the settings page's note about the taken shortcut",
        )
        assert "Another app already uses this shortcut" in note
        # doctor asks the running app, which says the same.
        doctor = subprocess.run(
            [sys.executable, "-m", "tray_app", "doctor", "--json"], cwd=ROOT, env=second.env,
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        report = json.loads(doctor.stdout)
        assert "taken by another app" in report["desktop"]["hotkey_state"]
        assert report["desktop"]["notification_buttons"] == "yes"
        assert "Approve/Deny/Open buttons" in report["desktop"]["notifications"]
        first = subprocess.run(
            [sys.executable, "-m", "tray_app", "doctor", "--json"], cwd=ROOT, env=app.env,
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert json.loads(first.stdout)["desktop"]["hotkey_state"] == (
            "Ctrl+Alt+Space registered by the running app"
        )
    finally:
        with contextlib.suppress(Exception):
            second.stop()
        if second.child is not None:
            second.child.stop()
    # The first app still has it.
    desktop.xdotool("key", "--clearmodifiers", "ctrl+alt+space")
    wait_for(lambda: visible(app), 15, "the first app's hotkey to still work")
