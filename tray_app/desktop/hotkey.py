"""The global hotkey that toggles the popup: parsing the setting, and one backend per platform.

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

The setting is a human string such as ``Ctrl+Alt+Space``; ``parse_hotkey`` turns it into a
``Hotkey`` and rejects what would steal ordinary typing (no modifier, or Shift alone).
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

log = logging.getLogger(__name__)

MODIFIERS: dict[str, str] = {
    "ctrl": "ctrl",
    "control": "ctrl",
    "ctl": "ctrl",
    "alt": "alt",
    "option": "alt",
    "opt": "alt",
    "shift": "shift",
    "cmd": "cmd",
    "command": "cmd",
    "super": "cmd",
    "win": "cmd",
    "windows": "cmd",
    "meta": "cmd",
}
MODIFIER_ORDER = ("ctrl", "alt", "shift", "cmd")
MODIFIER_LABELS = {"ctrl": "Ctrl", "alt": "Alt", "shift": "Shift", "cmd": "Cmd"}
NAMED_KEYS: dict[str, str] = {
    "space": "space",
    "spacebar": "space",
    "enter": "enter",
    "return": "enter",
    "tab": "tab",
    "esc": "esc",
    "escape": "esc",
    "backspace": "backspace",
    "delete": "delete",
    "del": "delete",
    "insert": "insert",
    "ins": "insert",
    "home": "home",
    "end": "end",
    "pageup": "page_up",
    "pgup": "page_up",
    "page_up": "page_up",
    "pagedown": "page_down",
    "pgdn": "page_down",
    "page_down": "page_down",
    "up": "up",
    "down": "down",
    "left": "left",
    "right": "right",
    **{f"f{n}": f"f{n}" for n in range(1, 21)},
}
PUNCTUATION = set("`-=[];',./\\")
KEY_LABELS = {"page_up": "PageUp", "page_down": "PageDown", "esc": "Esc"} | {
    value: value.upper() if value[0] == "f" and value[1:].isdigit() else value.title()
    for value in NAMED_KEYS.values()
    if value not in ("page_up", "page_down", "esc")
}


class HotkeyError(ValueError):
    """The hotkey setting cannot be used; the message says why, for the settings page."""


class HotkeyTaken(RuntimeError):
    """Another app holds the combination (X11 BadAccess, Windows ERROR_HOTKEY_ALREADY_REGISTERED,
    Carbon eventHotKeyExistsErr)."""

    def __init__(self, label: str) -> None:
        super().__init__(f"{label} is taken by another app; choose another shortcut")
        self.label = label


@dataclass(frozen=True)
class Hotkey:
    modifiers: frozenset[str]
    key: str  # a NAMED_KEYS value, or one lower-case character

    def label(self) -> str:
        """The canonical human spelling, ``Ctrl+Alt+Space``."""
        parts = [MODIFIER_LABELS[m] for m in MODIFIER_ORDER if m in self.modifiers]
        parts.append(KEY_LABELS.get(self.key, self.key.upper()))
        return "+".join(parts)


def parse_hotkey(text: str) -> Hotkey:
    """``"Ctrl+Alt+Space"`` -> ``Hotkey``. Case and spaces do not matter."""
    raw = [part.strip().lower() for part in text.replace(" ", "").split("+")]
    if not text.strip() or any(not part for part in raw):
        raise HotkeyError(f"{text!r} is not a key combination like Ctrl+Alt+Space")
    modifiers: set[str] = set()
    keys: list[str] = []
    for part in raw:
        if part in MODIFIERS:
            modifiers.add(MODIFIERS[part])
        elif part in NAMED_KEYS:
            keys.append(NAMED_KEYS[part])
        elif len(part) == 1 and (part.isalnum() or part in PUNCTUATION):
            keys.append(part)
        else:
            raise HotkeyError(f"unknown key {part!r} in {text!r}")
    if len(keys) != 1:
        raise HotkeyError(f"{text!r} must name exactly one key besides the modifiers")
    if not modifiers - {"shift"}:
        raise HotkeyError(
            f"{text!r} needs Ctrl, Alt or Cmd: a key without them would steal ordinary typing"
        )
    return Hotkey(frozenset(modifiers), keys[0])


# ---- which backend ---------------------------------------------------------------------------


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
        from tray_app.desktop.hotkey_portal import offers_global_shortcuts
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
            from tray_app.desktop.hotkey_x11 import X11Hotkey

            return X11Hotkey(hotkey, self._fire)
        if kind == "win32":
            from tray_app.desktop.hotkey_windows import WindowsHotkey

            return WindowsHotkey(hotkey, self._fire)
        if kind == "darwin":
            from tray_app.desktop.hotkey_macos import CarbonHotkey

            return CarbonHotkey(hotkey, self._fire)
        if kind == "wayland":
            if self._portal is None:
                self._portal = portal_offered()
            if self._portal:
                from tray_app.desktop.hotkey_portal import PortalHotkey

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
