"""The global hotkey that toggles the popup: one backend per platform, chosen and kept here.

Every backend registers the one combination with the OS; none listens to the keyboard (a
listener sees every key typed in every app, and the key still reaches the focused window).

- X11: ``XGrabKey`` on the root window (``hotkey_x11``), in every lock-key state.
- Windows: ``RegisterHotKey`` on a message-loop thread (``hotkey_windows``; not run here).
- macOS: Carbon ``RegisterEventHotKey`` (``hotkey_macos``; not run here).
- Wayland: the xdg-desktop-portal ``GlobalShortcuts`` interface where the portal offers it
  (``hotkey_portal``); else nothing is registered and the hint says how to bind
  ``metona-tray --toggle`` in the desktop's own keyboard settings.

A combination another app holds is reported as taken (``HotkeyTaken``): ``status()`` carries it
to the settings page and ``doctor``.

The setting is parsed by ``keys.parse_hotkey``.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Callable
from typing import Any, Protocol

from tray_app.desktop.hotkey.keys import Hotkey, HotkeyError, HotkeyTaken, parse_hotkey

log = logging.getLogger(__name__)


def session_kind(environ: dict[str, str] | None = None) -> str:
    """``x11``, ``wayland``, ``darwin``, ``win32`` or ``none`` (no display)."""
    if sys.platform in ("darwin", "win32"):
        return sys.platform
    env = os.environ if environ is None else environ
    if env.get("XDG_SESSION_TYPE", "").lower() == "wayland" or env.get("WAYLAND_DISPLAY"):
        return "wayland"
    if env.get("DISPLAY"):
        return "x11"
    return "none"


WAYLAND_HINT = (
    "Wayland does not let apps grab global keys. Bind the command `metona-tray --toggle` to "
    "a shortcut in your desktop's keyboard settings (GNOME: Settings > Keyboard > Custom "
    "Shortcuts; KDE: System Settings > Shortcuts > Custom Shortcuts)."
)
PORTAL_HINT = (
    "Registered through the desktop's GlobalShortcuts portal: the desktop may ask once to "
    "confirm it, and can change it in its own shortcut settings."
)

CARBON_HINT = (
    "Needs a modifier other than Shift/Option; no Accessibility permission is required for "
    "Carbon hot keys."
)
#: Every hint ``support`` gives; the catalogue's ``doctor.value.*`` says each one.
HINTS = (WAYLAND_HINT, PORTAL_HINT, CARBON_HINT, "no display")


def portal_offered() -> bool:
    """Does the session's xdg-desktop-portal offer GlobalShortcuts? (a bounded D-Bus call)"""
    try:
        from tray_app.desktop.hotkey.hotkey_portal import offers_global_shortcuts
    except ImportError:  # no D-Bus library
        return False
    return offers_global_shortcuts()


def support(environ: dict[str, str] | None = None, *, portal: bool | None = None) -> dict[str, Any]:
    """What the hotkey can do here, for doctor and the settings page. ``portal``: whether the
    GlobalShortcuts portal is there (None: ask it, on Wayland only)."""
    kind = session_kind(environ)
    if kind == "x11":
        found = {"supported": True, "backend": "X11 XGrabKey", "hint": None}
    elif kind == "win32":
        found = {"supported": True, "backend": "Windows RegisterHotKey", "hint": None}
    elif kind == "darwin":
        found = {
            "supported": True,
            "backend": "Carbon RegisterEventHotKey",
            "hint": CARBON_HINT,
        }
    elif kind == "wayland":
        if portal is None:
            portal = portal_offered()
        if portal:
            found = {
                "supported": True,
                "backend": "xdg-desktop-portal GlobalShortcuts",
                "hint": PORTAL_HINT,
            }
        else:
            found = {"supported": False, "backend": None, "hint": WAYLAND_HINT}
    else:
        found = {"supported": False, "backend": None, "hint": "no display"}
    return {**found, "session": kind}


# ---- the registration ------------------------------------------------------------------------


class _Backend(Protocol):
    def start(self) -> None: ...
    def stop(self) -> None: ...


class HotkeyManager:
    """Keeps one registration in sync with the setting; ``apply`` again after each change."""

    def __init__(self, callback: Callable[[], None]) -> None:
        self._callback = callback
        self._lock = threading.Lock()
        self._backend: _Backend | None = None
        self._current: Hotkey | None = None
        self._portal: bool | None = None
        self.error: str | None = None
        self.taken = False  # the last combination asked for is held by another app

    @property
    def current(self) -> str | None:
        return self._current.label() if self._current else None

    def status(self) -> dict[str, Any]:
        """For the settings page (``bridge.hotkey_status``) and the test hooks."""
        kind = session_kind()
        portal = self._portal if kind == "wayland" else False
        return {
            **support(portal=portal),
            "registered": self.current,
            "error": self.error,
            "taken": self.taken,
        }

    def _fire(self) -> None:
        try:
            self._callback()
        except Exception:  # a failing toggle must not end the hotkey thread
            log.exception("hotkey callback failed")

    def _backend_for(self, hotkey: Hotkey) -> _Backend | None:
        kind = session_kind()
        if kind == "x11":
            from tray_app.desktop.hotkey.hotkey_x11 import X11Hotkey

            return X11Hotkey(hotkey, self._fire)
        if kind == "win32":
            from tray_app.desktop.hotkey.hotkey_windows import WindowsHotkey

            return WindowsHotkey(hotkey, self._fire)
        if kind == "darwin":
            from tray_app.desktop.hotkey.hotkey_macos import CarbonHotkey

            return CarbonHotkey(hotkey, self._fire)
        if kind == "wayland":
            if self._portal is None:
                self._portal = portal_offered()
            if self._portal:
                from tray_app.desktop.hotkey.hotkey_portal import PortalHotkey

                return PortalHotkey(hotkey, self._fire)
        return None

    def apply(self, text: str) -> str | None:
        """Register ``text`` (replacing the previous key); returns an error sentence or None."""
        with self._lock:
            try:
                hotkey = parse_hotkey(text)
            except HotkeyError as exc:
                self.error, self.taken = str(exc), False
                log.warning("hotkey not registered: %s", exc)
                return self.error
            if hotkey == self._current and self._backend is not None:
                return None
            self._stop_locked()
            self.taken = False
            try:
                self._backend = self._backend_for(hotkey)
                if self._backend is None:
                    self.error = support(portal=False)["hint"]
                    log.info("no global hotkey: %s", self.error)
                    return self.error
                self._backend.start()
            except HotkeyTaken as exc:
                self._backend = None
                self.error, self.taken = str(exc), True
                log.warning("hotkey not registered: %s", exc)
                return self.error
            except Exception as exc:  # no X server, a portal that refused, ...
                self._backend = None
                self.error = f"the hotkey {hotkey.label()} could not be registered: {exc}"
                log.warning("%s", self.error, exc_info=True)
                return self.error
            self._current = hotkey
            self.error = None
            log.info("global hotkey %s registered", hotkey.label())
            return None

    def _stop_locked(self) -> None:
        if self._backend is not None:
            try:
                self._backend.stop()
            except Exception:
                log.exception("stopping the hotkey registration failed")
        self._backend = None
        self._current = None

    def stop(self) -> None:
        with self._lock:
            self._stop_locked()
