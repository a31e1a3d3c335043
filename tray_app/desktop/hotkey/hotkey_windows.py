"""Windows global hotkey through ``RegisterHotKey`` (user32, ctypes; no extra dependency).

UNTESTED: written from the Win32 documentation (RegisterHotKey, GetMessageW, WM_HOTKEY,
PostThreadMessageW); it must be proven on Windows. A hot key belongs to the thread that
registered it and arrives as ``WM_HOTKEY`` in that thread's message queue, so one thread
(``metona-hotkey``) registers, runs ``GetMessageW`` (blocking, no polling), and unregisters
when ``stop`` posts ``WM_QUIT`` to it. ``MOD_NOREPEAT`` keeps a held key from toggling again.
A combination another app registered fails with ``ERROR_HOTKEY_ALREADY_REGISTERED``.
"""

from __future__ import annotations

import ctypes
import logging
import threading
from collections.abc import Callable
from ctypes import wintypes
from typing import Any

from tray_app.desktop.hotkey.keys import Hotkey, HotkeyTaken

log = logging.getLogger(__name__)

MOD_ALT, MOD_CONTROL, MOD_SHIFT, MOD_WIN, MOD_NOREPEAT = 0x1, 0x2, 0x4, 0x8, 0x4000
MODIFIER_BITS = {"alt": MOD_ALT, "ctrl": MOD_CONTROL, "shift": MOD_SHIFT, "cmd": MOD_WIN}
WM_HOTKEY, WM_QUIT = 0x0312, 0x0012
ERROR_HOTKEY_ALREADY_REGISTERED = 1409
HOTKEY_ID = 0x4D54  # any id in 0x0000..0xBFFF, unique within this thread
START_TIMEOUT = 5.0

# Virtual-key codes (WinUser.h). Letters and digits are their upper-case ASCII codes;
# punctuation depends on the layout and is looked up with VkKeyScanW.
VIRTUAL_KEYS: dict[str, int] = {
    "space": 0x20, "enter": 0x0D, "tab": 0x09, "esc": 0x1B, "backspace": 0x08,
    "delete": 0x2E, "insert": 0x2D, "home": 0x24, "end": 0x23, "page_up": 0x21,
    "page_down": 0x22, "left": 0x25, "up": 0x26, "right": 0x27, "down": 0x28,
    **{f"f{n}": 0x6F + n for n in range(1, 21)},  # VK_F1 = 0x70
}  # fmt: skip


def windows_codes(hotkey: Hotkey, vk_scan: Callable[[str], int] | None = None) -> tuple[int, int]:
    """(``fsModifiers`` with ``MOD_NOREPEAT``, virtual-key code) for ``RegisterHotKey``."""
    mods = MOD_NOREPEAT
    for modifier in hotkey.modifiers:
        mods |= MODIFIER_BITS[modifier]
    key = hotkey.key
    if key in VIRTUAL_KEYS:
        return mods, VIRTUAL_KEYS[key]
    if len(key) == 1 and key.isascii() and key.isalnum():
        return mods, ord(key.upper())
    code = vk_scan(key) if vk_scan is not None else -1
    if code == -1 or code & 0xFF == 0xFF:
        raise ValueError(f"{hotkey.label()} has no key on this keyboard layout")
    return mods, code & 0xFF  # the low byte is the virtual key, the high byte its shift state


class _Msg(ctypes.Structure):
    _fields_ = [
        ("hwnd", wintypes.HWND), ("message", wintypes.UINT), ("wParam", wintypes.WPARAM),
        ("lParam", wintypes.LPARAM), ("time", wintypes.DWORD), ("pt", wintypes.POINT),
    ]  # fmt: skip


class WindowsHotkey:
    """One registered hot key; ``start`` raises ``HotkeyTaken`` when another app has it."""

    def __init__(self, hotkey: Hotkey, callback: Callable[[], None]) -> None:
        self.hotkey = hotkey
        self._callback = callback
        self._user32: Any = getattr(ctypes, "WinDLL")("user32", use_last_error=True)  # noqa: B009
        self._kernel32: Any = getattr(ctypes, "WinDLL")("kernel32", use_last_error=True)  # noqa: B009
        self._user32.VkKeyScanW.restype = ctypes.c_short
        self._codes = windows_codes(hotkey, lambda ch: int(self._user32.VkKeyScanW(ord(ch))))
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._thread_id = 0
        self._thread = threading.Thread(target=self._main, name="metona-hotkey", daemon=True)

    def start(self) -> None:
        self._thread.start()
        if not self._ready.wait(START_TIMEOUT):
            raise RuntimeError("RegisterHotKey did not answer in time")
        if self._error is not None:
            raise self._error

    def stop(self) -> None:
        if self._thread_id:
            self._user32.PostThreadMessageW(self._thread_id, WM_QUIT, 0, 0)
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(START_TIMEOUT)

    def _main(self) -> None:
        mods, vk = self._codes
        self._thread_id = int(self._kernel32.GetCurrentThreadId())
        if not self._user32.RegisterHotKey(None, HOTKEY_ID, mods, vk):
            code = ctypes.get_last_error()  # type: ignore[attr-defined, unused-ignore]
            if code == ERROR_HOTKEY_ALREADY_REGISTERED:
                self._error = HotkeyTaken(self.hotkey.label())
            else:
                self._error = OSError(code, f"RegisterHotKey failed (error {code})")
            self._ready.set()
            return
        self._ready.set()
        msg = _Msg()
        try:
            # GetMessageW: >0 a message, 0 WM_QUIT, -1 an error. It blocks: no polling.
            while self._user32.GetMessageW(ctypes.byref(msg), None, 0, 0) > 0:
                if msg.message == WM_HOTKEY and msg.wParam == HOTKEY_ID:
                    try:
                        self._callback()
                    except Exception:
                        log.exception("hotkey callback failed")
        finally:
            self._user32.UnregisterHotKey(None, HOTKEY_ID)
