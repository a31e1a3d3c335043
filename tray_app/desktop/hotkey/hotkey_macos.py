"""macOS global hotkey through Carbon's ``RegisterEventHotKey`` (ctypes, no extra dependency).

UNTESTED: written from Apple's Carbon Event Manager reference; it must be proven on a Mac.
Why Carbon: pynput's keyboard listener crashes GUI processes on recent macOS, and Carbon hot
keys need no Accessibility permission. Registration and the handler live on the main thread
(the Cocoa run loop that pywebview runs delivers the events); the callback is handed to a
short-lived thread so the main thread never waits on the app. ``eventHotKeyExistsErr`` is
reported as taken by another app; whether macOS returns it for another app's hot key (and not
only for our own) is not proven.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import threading
from collections.abc import Callable
from typing import Any

from tray_app.desktop.hotkey.keys import Hotkey, HotkeyTaken

log = logging.getLogger(__name__)

CMD, SHIFT, OPTION, CONTROL = 1 << 8, 1 << 9, 1 << 11, 1 << 12
MODIFIER_BITS = {"cmd": CMD, "shift": SHIFT, "alt": OPTION, "ctrl": CONTROL}
K_EVENT_CLASS_KEYBOARD = int.from_bytes(b"keyb", "big")
K_EVENT_HOTKEY_PRESSED = 5
SIGNATURE = int.from_bytes(b"MTNA", "big")
EVENT_HOTKEY_EXISTS_ERR = -9878  # another app registered the combination

# Virtual key codes of the ANSI layout (HIToolbox/Events.h).
KEY_CODES: dict[str, int] = {
    **dict(zip("asdfhgzxcv", (0, 1, 2, 3, 4, 5, 6, 7, 8, 9), strict=True)),
    "b": 11, "q": 12, "w": 13, "e": 14, "r": 15, "y": 16, "t": 17,
    "1": 18, "2": 19, "3": 20, "4": 21, "6": 22, "5": 23, "=": 24, "9": 25, "7": 26,
    "-": 27, "8": 28, "0": 29, "]": 30, "o": 31, "u": 32, "[": 33, "i": 34, "p": 35,
    "enter": 36, "l": 37, "j": 38, "'": 39, "k": 40, ";": 41, "\\": 42, ",": 43, "/": 44,
    "n": 45, "m": 46, ".": 47, "tab": 48, "space": 49, "`": 50, "backspace": 51, "esc": 53,
    "f5": 96, "f6": 97, "f7": 98, "f3": 99, "f8": 100, "f9": 101, "f11": 103, "f13": 105,
    "f16": 106, "f14": 107, "f10": 109, "f12": 111, "f15": 113, "insert": 114, "home": 115,
    "page_up": 116, "delete": 117, "f4": 118, "end": 119, "f2": 120, "page_down": 121,
    "f1": 122, "left": 123, "right": 124, "down": 125, "up": 126, "f17": 64, "f18": 79,
    "f19": 80, "f20": 90,
}  # fmt: skip


class _EventTypeSpec(ctypes.Structure):
    _fields_ = [("eventClass", ctypes.c_uint32), ("eventKind", ctypes.c_uint32)]


class _EventHotKeyID(ctypes.Structure):
    _fields_ = [("signature", ctypes.c_uint32), ("id", ctypes.c_uint32)]


_HANDLER = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)


def carbon_codes(hotkey: Hotkey) -> tuple[int, int]:
    """(virtual key code, Carbon modifier mask) for a parsed hotkey."""
    if hotkey.key not in KEY_CODES:
        raise ValueError(f"{hotkey.label()} has no macOS key code")
    mask = 0
    for modifier in hotkey.modifiers:
        mask |= MODIFIER_BITS[modifier]
    return KEY_CODES[hotkey.key], mask


def _on_main_thread(fn: Callable[[], None]) -> None:
    from PyObjCTools import AppHelper  # type: ignore[import-not-found]

    AppHelper.callAfter(fn)


class CarbonHotkey:
    """One registered hot key; ``start``/``stop`` may be called from any thread."""

    def __init__(self, hotkey: Hotkey, callback: Callable[[], None]) -> None:
        self._code, self._mask = carbon_codes(hotkey)
        self._label = hotkey.label()
        self._callback = callback
        path = ctypes.util.find_library("Carbon")
        if not path:
            raise RuntimeError("the Carbon framework was not found")
        self._carbon: Any = ctypes.CDLL(path)
        self._carbon.GetApplicationEventTarget.restype = ctypes.c_void_p
        self._handler_ref = ctypes.c_void_p()
        self._hotkey_ref = ctypes.c_void_p()
        self._c_handler = _HANDLER(self._on_event)  # kept alive as long as self

    def _on_event(self, _call_ref: int, _event: int, _user: int) -> int:
        threading.Thread(target=self._callback, name="metona-hotkey", daemon=True).start()
        return 0  # noErr

    def _register(self, done: threading.Event, errors: list[Exception]) -> None:
        try:
            target = ctypes.c_void_p(self._carbon.GetApplicationEventTarget())
            spec = _EventTypeSpec(K_EVENT_CLASS_KEYBOARD, K_EVENT_HOTKEY_PRESSED)
            status = self._carbon.InstallEventHandler(
                target, self._c_handler, 1, ctypes.byref(spec), None,
                ctypes.byref(self._handler_ref),
            )  # fmt: skip
            if status != 0:
                raise OSError(f"InstallEventHandler failed ({status})")
            status = self._carbon.RegisterEventHotKey(
                ctypes.c_uint32(self._code), ctypes.c_uint32(self._mask),
                _EventHotKeyID(SIGNATURE, 1), target, ctypes.c_uint32(0),
                ctypes.byref(self._hotkey_ref),
            )  # fmt: skip
            if status == EVENT_HOTKEY_EXISTS_ERR:
                raise HotkeyTaken(self._label)
            if status != 0:
                raise OSError(f"RegisterEventHotKey failed ({status})")
        except Exception as exc:
            errors.append(exc)
        finally:
            done.set()

    def start(self) -> None:
        done = threading.Event()
        errors: list[Exception] = []
        _on_main_thread(lambda: self._register(done, errors))
        if not done.wait(3.0):
            raise RuntimeError("the main thread did not register the hot key in time")
        if errors:
            raise errors[0]

    def stop(self) -> None:
        def unregister() -> None:
            if self._hotkey_ref.value:
                self._carbon.UnregisterEventHotKey(self._hotkey_ref)
                self._hotkey_ref = ctypes.c_void_p()
            if self._handler_ref.value:
                self._carbon.RemoveEventHandler(self._handler_ref)
                self._handler_ref = ctypes.c_void_p()

        _on_main_thread(unregister)
