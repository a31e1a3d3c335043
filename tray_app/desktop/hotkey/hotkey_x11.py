"""X11 global hotkey: a passive ``XGrabKey`` on the root window (python-xlib).

Why a grab: the X server then delivers only the chosen combination to this app, and it does
not reach the focused window; no other key the user types is seen (a RECORD listener, which
pynput used, sees every key in every app). The server grabs per exact modifier state, so the
combination is grabbed once per combination of the lock keys (CapsLock, NumLock, ScrollLock),
or it would stop working whenever NumLock is on.

A grab that another client already holds fails with ``BadAccess``: the key is taken by another
app (``HotkeyTaken``), and nothing of ours is left grabbed.

Threading: one thread (``metona-hotkey``) owns its own Display connection for its whole life:
it grabs, then blocks in ``select`` on the X socket and a wake-up pipe (no polling), calls the
callback on each press, and ungrabs and closes when ``stop`` writes to the pipe.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import select
import threading
from collections.abc import Callable, Iterable
from typing import Any

from tray_app.desktop.hotkey.keys import Hotkey, HotkeyTaken

log = logging.getLogger(__name__)

START_TIMEOUT = 5.0

# X11 core modifier masks (X.h); the ModN meaning is read from the server's modifier map.
SHIFT_MASK, LOCK_MASK, CONTROL_MASK = 1 << 0, 1 << 1, 1 << 2
MOD_MASKS = (1 << 3, 1 << 4, 1 << 5, 1 << 6, 1 << 7)  # Mod1 .. Mod5
DEFAULT_MASKS = {"alt": 1 << 3, "numlock": 1 << 4, "cmd": 1 << 6, "scrolllock": 0}

# Our key names -> X keysym names (keysymdef.h, without the XK_ prefix).
KEYSYM_NAMES: dict[str, str] = {
    "space": "space", "enter": "Return", "tab": "Tab", "esc": "Escape",
    "backspace": "BackSpace", "delete": "Delete", "insert": "Insert", "home": "Home",
    "end": "End", "page_up": "Prior", "page_down": "Next", "up": "Up", "down": "Down",
    "left": "Left", "right": "Right",
    "`": "grave", "-": "minus", "=": "equal", "[": "bracketleft", "]": "bracketright",
    ";": "semicolon", "'": "apostrophe", ",": "comma", ".": "period", "/": "slash",
    "\\": "backslash",
    **{f"f{n}": f"F{n}" for n in range(1, 21)},
}  # fmt: skip

# Which keysyms make a ModN bit mean what (the modifier map varies between servers).
MODIFIER_KEYSYMS = {
    "alt": ("Alt_L", "Alt_R", "Meta_L", "Meta_R"),
    "cmd": ("Super_L", "Super_R", "Hyper_L", "Hyper_R"),
    "numlock": ("Num_Lock",),
    "scrolllock": ("Scroll_Lock",),
}


def keysym_name(key: str) -> str:
    """The X keysym name of a parsed key: ``space`` -> ``space``, ``page_up`` -> ``Prior``."""
    return KEYSYM_NAMES.get(key, key)


def base_mask(hotkey: Hotkey, masks: dict[str, int]) -> int:
    """The modifier state the combination means, with ``masks`` from ``modifier_masks``."""
    mask = 0
    for modifier in hotkey.modifiers:
        if modifier == "ctrl":
            mask |= CONTROL_MASK
        elif modifier == "shift":
            mask |= SHIFT_MASK
        else:
            mask |= masks[modifier]
    return mask


def lock_masks(masks: dict[str, int]) -> tuple[int, ...]:
    """CapsLock and the ModN bits NumLock and ScrollLock sit on (those the server has)."""
    found = {LOCK_MASK, masks.get("numlock", 0), masks.get("scrolllock", 0)}
    return tuple(sorted(m for m in found if m))


def lock_variants(base: int, locks: Iterable[int]) -> list[int]:
    """``base`` with every combination of the lock bits: each must be grabbed on its own."""
    locks = [m for m in dict.fromkeys(locks) if m and not m & base]
    variants = []
    for count in range(len(locks) + 1):
        for combo in itertools.combinations(locks, count):
            mask = base
            for bit in combo:
                mask |= bit
            variants.append(mask)
    return variants


def modifier_masks(
    mapping: list[list[int]], keysym_of: Callable[[int], str | None]
) -> dict[str, int]:
    """Read which ModN carries Alt, Super, NumLock and ScrollLock from the modifier map
    (eight rows of keycodes: Shift, Lock, Control, Mod1..Mod5); fall back to the usual
    layout for what the map does not say (ScrollLock: none)."""
    found: dict[str, int] = {}
    for row, bit in zip(mapping[3:8], MOD_MASKS, strict=False):
        names = {keysym_of(code) for code in row if code}
        for what, keysyms in MODIFIER_KEYSYMS.items():
            if what not in found and names & set(keysyms):
                found[what] = bit
    return {**DEFAULT_MASKS, **found}


class X11Hotkey:
    """One grabbed combination; ``start`` raises ``HotkeyTaken`` on BadAccess."""

    def __init__(
        self, hotkey: Hotkey, callback: Callable[[], None], display_name: str | None = None
    ) -> None:
        self.hotkey = hotkey
        self._callback = callback
        self._display_name = display_name
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._wake_r, self._wake_w = os.pipe()
        self._thread = threading.Thread(target=self._main, name="metona-hotkey", daemon=True)
        self.grabbed: list[tuple[int, int]] = []  # (keycode, modifier state), for tests

    def start(self) -> None:
        self._thread.start()
        if not self._ready.wait(START_TIMEOUT):
            self.stop()
            raise RuntimeError("the X server did not answer the key grab in time")
        if self._error is not None:
            self._thread.join(START_TIMEOUT)
            self._close_pipe()
            raise self._error

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"x")
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(START_TIMEOUT)
        self._close_pipe()

    def _close_pipe(self) -> None:
        for fd in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._wake_r = self._wake_w = -1

    # ---- the hotkey thread -----------------------------------------------------------------

    def _main(self) -> None:
        from Xlib import display as xdisplay

        disp: Any = None
        try:
            disp = xdisplay.Display(self._display_name)
            keycodes, base, locks = self._grab(disp)
        except BaseException as exc:
            self._error = exc
            self._ready.set()
            if disp is not None:
                with contextlib.suppress(Exception):
                    disp.close()
            return
        self._ready.set()
        log.info("hotkey %s grabbed (%d key states)", self.hotkey.label(), len(self.grabbed))
        try:
            self._serve(disp, keycodes, base, locks)
        except Exception:
            log.exception("the hotkey thread stopped")
        finally:
            with contextlib.suppress(Exception):
                self._ungrab(disp)
                disp.sync()
            with contextlib.suppress(Exception):
                disp.close()

    def _grab(self, disp: Any) -> tuple[set[int], int, int]:
        from Xlib import XK, error

        keysym = XK.string_to_keysym(keysym_name(self.hotkey.key))
        keycodes = {code for code, _index in disp.keysym_to_keycodes(keysym)} if keysym else set()
        if not keycodes:
            raise RuntimeError(f"this keyboard has no key for {self.hotkey.label()}")

        # Names of the modifier keysyms we look for (XK.keysym_to_string only knows Latin-1).
        names = {
            XK.string_to_keysym(name): name for group in MODIFIER_KEYSYMS.values() for name in group
        }

        def keysym_of(code: int) -> str | None:
            return names.get(disp.keycode_to_keysym(code, 0))

        masks = modifier_masks(disp.get_modifier_mapping(), keysym_of)
        base = base_mask(self.hotkey, masks)
        locks = lock_masks(masks)
        root = disp.screen().root
        catchers = []
        grabbed: list[tuple[int, int]] = []
        for code in sorted(keycodes):
            for state in lock_variants(base, locks):
                catcher = error.CatchError(error.BadAccess)
                root.grab_key(code, state, False, 1, 1, onerror=catcher)  # GrabModeAsync = 1
                catchers.append(catcher)
                grabbed.append((code, state))
        disp.sync()  # every grab's error (if any) has arrived after this round trip
        if any(c.get_error() is not None for c in catchers):
            self._ungrab(disp, grabbed)
            disp.sync()
            raise HotkeyTaken(self.hotkey.label())
        self.grabbed = grabbed  # only grabs the server has confirmed
        return keycodes, base, sum(locks)

    def _ungrab(self, disp: Any, grabs: list[tuple[int, int]] | None = None) -> None:
        root = disp.screen().root
        for code, state in self.grabbed if grabs is None else grabs:
            root.ungrab_key(code, state)
        if grabs is None:
            self.grabbed = []

    def _serve(self, disp: Any, keycodes: set[int], base: int, locks: int) -> None:
        from Xlib import X

        released_at: dict[int, int] = {}
        while True:
            readable, _, _ = select.select([disp.fileno(), self._wake_r], [], [])
            if self._wake_r in readable:
                return
            while disp.pending_events():
                event = disp.next_event()
                if event.type == X.MappingNotify:  # a new layout or modifier map: grab again
                    keycodes, base, locks = self._regrab(disp, event, (keycodes, base, locks))
                    continue
                if event.type == X.KeyRelease:
                    released_at[event.detail] = event.time
                    continue
                if event.type != X.KeyPress or event.detail not in keycodes:
                    continue
                if event.state & 0xFF & ~locks != base:
                    continue
                if released_at.get(event.detail) == event.time:
                    continue  # auto-repeat: a release and a press with the same time stamp
                try:
                    self._callback()
                except Exception:  # a failing toggle must not end the grab
                    log.exception("hotkey callback failed")

    def _regrab(
        self, disp: Any, event: Any, current: tuple[set[int], int, int]
    ) -> tuple[set[int], int, int]:
        """The keyboard or modifier map changed: the same combination may now sit on other
        key codes or ModN bits, so release the old grabs and grab anew."""
        from Xlib import X

        if event.request not in (X.MappingKeyboard, X.MappingModifier):
            return current
        disp.refresh_keyboard_mapping(event)
        # Grab the new combinations before releasing the old ones, so a press while the map
        # changes (a layout switch sends several notices) never reaches the focused app.
        old = list(self.grabbed)
        try:
            found = self._grab(disp)
        except Exception as exc:  # taken meanwhile, or the key is gone from the layout
            log.warning("hotkey %s lost after a keyboard change: %s", self.hotkey.label(), exc)
            self._ungrab(disp, old)
            self.grabbed = []
            disp.sync()
            return set(), -1, 0  # matches nothing until the next change
        self._ungrab(disp, [grab for grab in old if grab not in self.grabbed])
        disp.sync()
        log.info("hotkey %s grabbed again after a keyboard change", self.hotkey.label())
        return found
