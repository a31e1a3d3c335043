"""The Wayland path: a shortcut bound through a GlobalShortcuts portal (a stand-in service on a
private D-Bus session bus; no compositor with the real portal runs here)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tray_app.desktop.hotkey.hotkey import HotkeyManager, support
from tray_app.desktop.hotkey.hotkey_portal import (
    PortalError,
    PortalHotkey,
    offers_global_shortcuts,
    preferred_trigger,
)
from tray_app.desktop.hotkey.keys import parse_hotkey

pytest.importorskip("dbus_fast")
FAKE_PORTAL = Path(__file__).with_name("fake_portal.py")


class Bus:
    """A private dbus-daemon; ``portal()`` starts the stand-in portal on it."""

    def __init__(self) -> None:
        self.children: list[subprocess.Popen[bytes]] = []
        daemon = self._spawn(["dbus-daemon", "--session", "--nofork", "--print-address=1"])
        assert daemon.stdout is not None
        self.address = daemon.stdout.readline().decode().strip()
        assert self.address

    def _spawn(self, argv: list[str], **kwargs: object) -> subprocess.Popen[bytes]:
        popen = subprocess.Popen(
            argv,
            stdout=subprocess.PIPE,
            start_new_session=True,
            **kwargs,  # type: ignore[call-overload]
        )
        self.children.append(popen)
        return popen

    def portal(self, *args: str) -> None:
        env = {**os.environ, "DBUS_SESSION_BUS_ADDRESS": self.address}
        popen = self._spawn([sys.executable, str(FAKE_PORTAL), *args], env=env)
        assert popen.stdout is not None
        assert popen.stdout.readline().decode().strip() == "ready"

    def control(self, method: str, *args: str) -> str:
        out = subprocess.run(
            ["dbus-send", "--session", "--print-reply=literal",
             "--dest=org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop",
             f"org.metona.TestPortal.{method}",
             *(f"string:{a}" for a in args)],
            env={**os.environ, "DBUS_SESSION_BUS_ADDRESS": self.address},
            capture_output=True, text=True, timeout=10, check=True,
        )  # fmt: skip
        return out.stdout.strip()

    def stop(self) -> None:
        for popen in reversed(self.children):
            popen.terminate()
            try:
                popen.wait(5)
            except subprocess.TimeoutExpired:
                popen.kill()
                popen.wait(5)
            if popen.stdout is not None:
                popen.stdout.close()


@pytest.fixture
def bus(monkeypatch: pytest.MonkeyPatch) -> Iterator[Bus]:
    if not shutil.which("dbus-daemon") or not shutil.which("dbus-send"):
        pytest.skip("needs dbus-daemon and dbus-send")
    running = Bus()
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", running.address)
    try:
        yield running
    finally:
        running.stop()


def test_triggers_use_the_shortcuts_spec_syntax() -> None:
    assert preferred_trigger(parse_hotkey("Ctrl+Alt+Space")) == "CTRL+ALT+space"
    assert preferred_trigger(parse_hotkey("Super+Shift+PgUp")) == "SHIFT+LOGO+Prior"
    assert preferred_trigger(parse_hotkey("Ctrl+.")) == "CTRL+period"


def test_without_a_portal_wayland_gets_the_toggle_hint(
    bus: Bus, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert offers_global_shortcuts() is False
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    info = support()
    assert info["supported"] is False and "metona-tray --toggle" in info["hint"]


def test_the_portal_binds_the_shortcut_and_its_activation_toggles(
    bus: Bus, monkeypatch: pytest.MonkeyPatch
) -> None:
    bus.portal()
    assert offers_global_shortcuts() is True
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    monkeypatch.delenv("DISPLAY", raising=False)
    assert support()["backend"] == "xdg-desktop-portal GlobalShortcuts"
    pressed = threading.Event()
    manager = HotkeyManager(pressed.set)
    assert manager.apply("Ctrl+Alt+Space") is None
    status = manager.status()
    assert status["registered"] == "Ctrl+Alt+Space" and status["supported"] is True
    recorded = json.loads(bus.control("Recorded"))
    assert recorded["bound"] == [
        {"id": "toggle-popup", "description": "Open or hide Metona Tray",
         "preferred_trigger": "CTRL+ALT+space"}
    ]  # fmt: skip
    bus.control("Press", "some-other-shortcut")
    bus.control("Press", "toggle-popup")
    assert pressed.wait(10), "the Activated signal did not reach the callback"
    manager.stop()
    assert json.loads(bus.control("Recorded"))["closed"] == recorded["sessions"]


def test_a_refused_bind_is_an_error_not_a_hang(bus: Bus) -> None:
    bus.portal("--refuse")
    backend = PortalHotkey(parse_hotkey("Ctrl+Alt+K"), lambda: None)
    with pytest.raises(PortalError, match="cancelled by the user"):
        backend.start()
    assert not any(t.name == "metona-hotkey" and t.is_alive() for t in threading.enumerate())
