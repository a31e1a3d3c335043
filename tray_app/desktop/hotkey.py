"""The global hotkey that toggles the popup: parsing the setting, and one backend per platform.

- X11 and Windows: pynput's ``GlobalHotKeys`` (verified on X11 under Xvfb; Windows from source).
  Its listener thread is the app's "hotkey" thread; the callback runs there.
- macOS: Carbon ``RegisterEventHotKey`` (``hotkey_macos``), because pynput's keyboard listener
  crashes GUI processes on recent macOS. Written from Apple's API docs, untested here.
- Wayland: no client may grab global keys. Nothing is registered; ``support()`` explains how
  to bind ``metona-tray --toggle`` in the desktop's own keyboard settings.

The setting is a human string such as ``Ctrl+Alt+Space``; ``parse_hotkey`` turns it into a
``Hotkey`` and rejects what would steal ordinary typing (no modifier, or Shift alone).
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
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


@dataclass(frozen=True)
class Hotkey:
    modifiers: frozenset[str]
    key: str  # a NAMED_KEYS value, or one lower-case character

    def pynput(self) -> str:
        """pynput's ``GlobalHotKeys`` syntax: ``<ctrl>+<alt>+<space>``."""
        parts = [f"<{m}>" for m in MODIFIER_ORDER if m in self.modifiers]
        parts.append(f"<{self.key}>" if len(self.key) > 1 else self.key)
        return "+".join(parts)

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


def support(environ: dict[str, str] | None = None) -> dict[str, Any]:
    """What the hotkey can do here, for doctor and the settings page."""
    kind = session_kind(environ)
    if kind == "x11":
        found = {"supported": True, "backend": "pynput (X11 RECORD)", "hint": None}
    elif kind == "win32":
        found = {"supported": True, "backend": "pynput (Windows hook)", "hint": None}
    elif kind == "darwin":
        found = {
            "supported": True,
            "backend": "Carbon RegisterEventHotKey",
            "hint": "Needs a modifier other than Shift/Option; no Accessibility permission "
            "is required for Carbon hot keys.",
        }
    elif kind == "wayland":
        found = {"supported": False, "backend": None, "hint": WAYLAND_HINT}
    else:
        found = {"supported": False, "backend": None, "hint": "no display"}
    return {**found, "session": kind}


# ---- backends --------------------------------------------------------------------------------


class _Backend(Protocol):
    def start(self) -> None: ...
    def stop(self) -> None: ...


class _PynputBackend:
    """pynput's listener runs its own thread (named ``metona-hotkey``)."""

    def __init__(self, hotkey: Hotkey, callback: Callable[[], None]) -> None:
        from pynput import keyboard

        self._listener: Any = keyboard.GlobalHotKeys({hotkey.pynput(): callback})
        self._listener.name = "metona-hotkey"
        self._listener.daemon = True

    def start(self) -> None:
        self._listener.start()
        # Ready means the X RECORD context is live; a listener that died starting never is.
        deadline = time.monotonic() + 3.0
        while not getattr(self._listener, "_ready", True) and time.monotonic() < deadline:
            if not self._listener.is_alive():
                raise RuntimeError("the keyboard listener stopped while starting")
            time.sleep(0.01)

    def stop(self) -> None:
        self._listener.stop()
        if self._listener.is_alive() and threading.current_thread() is not self._listener:
            self._listener.join(1.0)


class HotkeyManager:
    """Keeps one registration in sync with the setting; ``apply`` again after each change."""

    def __init__(self, callback: Callable[[], None]) -> None:
        self._callback = callback
        self._lock = threading.Lock()
        self._backend: _Backend | None = None
        self._current: Hotkey | None = None
        self.error: str | None = None

    @property
    def current(self) -> str | None:
        return self._current.label() if self._current else None

    def _fire(self) -> None:
        try:
            self._callback()
        except Exception:  # a failing toggle must not kill the listener thread
            log.exception("hotkey callback failed")

    def apply(self, text: str) -> str | None:
        """Register ``text`` (replacing the previous key); returns an error sentence or None."""
        with self._lock:
            try:
                hotkey = parse_hotkey(text)
            except HotkeyError as exc:
                self.error = str(exc)
                log.warning("hotkey not registered: %s", exc)
                return self.error
            if hotkey == self._current and self._backend is not None:
                return None
            self._stop_locked()
            kind = session_kind()
            try:
                if kind in ("x11", "win32"):
                    self._backend = _PynputBackend(hotkey, self._fire)
                elif kind == "darwin":
                    from tray_app.desktop.hotkey_macos import CarbonHotkey

                    self._backend = CarbonHotkey(hotkey, self._fire)
                else:
                    self.error = support()["hint"]
                    log.info("no global hotkey: %s", self.error)
                    return self.error
                self._backend.start()
            except Exception as exc:  # a missing X RECORD extension, a taken key, ...
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
                log.exception("stopping the hotkey listener failed")
        self._backend = None
        self._current = None

    def stop(self) -> None:
        with self._lock:
            self._stop_locked()
