"""The X11 grab against a real X server (a private Xvfb): the combination fires in every lock-key
state, a second client grabbing it is told the key is taken, stop releases it, and the thread
blocks on the X socket rather than waking up."""

from __future__ import annotations

import os
import subprocess
import threading

import pytest

from tests.support.waiting import eventually, stays
from tray_app.desktop.hotkey.hotkey import HotkeyManager
from tray_app.desktop.hotkey.hotkey_x11 import X11Hotkey
from tray_app.desktop.hotkey.keys import HotkeyTaken, parse_hotkey

pytest.importorskip("Xlib")


def xdotool(*args: str) -> None:
    subprocess.run(["xdotool", *args], check=True, timeout=10)


class Presses:
    def __init__(self) -> None:
        self.count = 0
        self.changed = threading.Condition()

    def __call__(self) -> None:
        with self.changed:
            self.count += 1
            self.changed.notify_all()

    def wait_for(self, count: int, timeout: float = 5.0) -> int:
        with self.changed:
            self.changed.wait_for(lambda: self.count >= count, timeout)
            return self.count


def test_the_grab_fires_with_and_without_lock_keys(xdisplay: str) -> None:
    presses = Presses()
    hotkey = X11Hotkey(parse_hotkey("Ctrl+Alt+Space"), presses)
    hotkey.start()
    try:
        assert len(hotkey.grabbed) >= 4  # CapsLock x NumLock at least
        xdotool("key", "ctrl+alt+space")
        assert presses.wait_for(1) == 1
        xdotool("key", "Num_Lock")  # NumLock on
        xdotool("key", "Caps_Lock")  # CapsLock on
        xdotool("key", "ctrl+alt+space")
        assert presses.wait_for(2) == 2
        xdotool("key", "ctrl+space", "alt+space", "ctrl+shift+alt+space", "space")
        xdotool("key", "ctrl+alt+space")  # a marker: only this one counts
        assert presses.wait_for(3) == 3
        stays(lambda: presses.count == 3, 0.2, "only the hotkey's own combination fires it")
    finally:
        hotkey.stop()


def test_a_second_client_is_told_the_key_is_taken_and_gets_it_after_stop(xdisplay: str) -> None:
    first = X11Hotkey(parse_hotkey("Ctrl+Alt+Space"), lambda: None)
    first.start()
    second = X11Hotkey(parse_hotkey("ctrl+alt+space"), lambda: None)
    with pytest.raises(HotkeyTaken, match="Ctrl\\+Alt\\+Space is taken by another app"):
        second.start()
    assert second.grabbed == []
    first.stop()
    third = X11Hotkey(parse_hotkey("Ctrl+Alt+Space"), lambda: None)
    third.start()  # nothing of either earlier client is left grabbed
    third.stop()


def test_the_manager_reports_a_taken_key_for_settings_and_doctor(xdisplay: str) -> None:
    holder = X11Hotkey(parse_hotkey("Ctrl+Alt+K"), lambda: None)
    holder.start()
    manager = HotkeyManager(lambda: None)
    try:
        error = manager.apply("Ctrl+Alt+K")
        assert error is not None and "taken by another app" in error
        status = manager.status()
        assert status["taken"] is True and status["registered"] is None
        assert status["backend"] == "X11 XGrabKey"
        assert manager.apply("Ctrl+Alt+J") is None  # another choice works
        assert manager.status() | {"hint": None} == {
            "supported": True, "backend": "X11 XGrabKey", "hint": None, "session": "x11",
            "registered": "Ctrl+Alt+J", "error": None, "taken": False,
        }  # fmt: skip
    finally:
        manager.stop()
        holder.stop()
    assert not any(t.name == "metona-hotkey" for t in threading.enumerate())


def test_the_grab_thread_sleeps_until_a_key_arrives(xdisplay: str) -> None:
    """No polling: over a quiet second the hotkey thread uses (almost) no CPU time."""
    hotkey = X11Hotkey(parse_hotkey("Ctrl+Alt+Space"), lambda: None)
    hotkey.start()
    try:
        thread = next(t for t in threading.enumerate() if t.name == "metona-hotkey")
        tid = thread.native_id
        stat = f"/proc/self/task/{tid}/stat"

        def switches() -> int:
            with open(f"/proc/self/task/{tid}/status") as status:
                for line in status:
                    if line.startswith("voluntary_ctxt_switches"):
                        return int(line.split()[1])
            raise AssertionError("no context switch count")

        assert os.path.exists(stat)
        before = switches()
        stays(lambda: switches() - before <= 1, 1.0, "the hotkey thread sleeps with nothing to do")
    finally:
        hotkey.stop()


def test_holding_the_combination_toggles_once(xdisplay: str) -> None:
    """Xvfb repeats a held key; the repeats (release + press with one time stamp) are not
    new presses, or a held hotkey would flicker the popup."""
    presses = Presses()
    hotkey = X11Hotkey(parse_hotkey("Ctrl+Alt+Space"), presses)
    hotkey.start()
    try:
        xdotool("keydown", "ctrl+alt+space", "sleep", "1.2", "keyup", "ctrl+alt+space")
        xdotool("key", "ctrl+alt+space")  # a marker: the second real press
        assert presses.wait_for(2) == 2
        stays(lambda: presses.count == 2, 0.2, "a held combination toggles once")
    finally:
        hotkey.stop()


def remap(mapping: dict[int, str]) -> None:
    """Change the server's keyboard map (what xmodmap does), from another client."""
    from Xlib import XK
    from Xlib import display as xdisplay

    disp = xdisplay.Display()
    try:
        for code, name in mapping.items():
            keysym = XK.string_to_keysym(name) if name else 0
            disp.change_keyboard_mapping(code, [(keysym,) * 4])
        disp.sync()
    finally:
        disp.close()


def test_a_new_keyboard_map_is_grabbed_again(xdisplay: str) -> None:
    """After the layout moves the key to another key code, the combination still works."""
    remap({200: "F13"})
    presses = Presses()
    hotkey = X11Hotkey(parse_hotkey("Ctrl+Alt+F13"), presses)
    hotkey.start()
    try:
        assert {code for code, _ in hotkey.grabbed} == {200}
        remap({200: "", 201: "F13"})

        def grabbed() -> set[int]:
            return {code for code, _ in hotkey.grabbed}

        eventually(lambda: grabbed() == {201}, message=lambda: f"grabbed {grabbed()}, not {{201}}")
        xdotool("key", "ctrl+alt+F13")
        assert presses.wait_for(1) == 1
    finally:
        hotkey.stop()


def test_scroll_lock_on_its_own_modifier_is_grabbed_too(xdisplay: str) -> None:
    """Xvfb has no ScrollLock modifier; give it Mod3 (as some layouts do): the grab covers
    every CapsLock x NumLock x ScrollLock state and fires with ScrollLock on."""
    from Xlib import XK
    from Xlib import display as xdisplay_mod

    disp = xdisplay_mod.Display()
    try:
        scroll = disp.keysym_to_keycode(XK.string_to_keysym("Scroll_Lock"))
        mapping = [list(row) for row in disp.get_modifier_mapping()]
        mapping[5] = [scroll]  # Mod3
        assert disp.set_modifier_mapping(mapping) == 0  # MappingSuccess
        disp.sync()
    finally:
        disp.close()
    presses = Presses()
    hotkey = X11Hotkey(parse_hotkey("Ctrl+Alt+Space"), presses)
    hotkey.start()
    try:
        assert len(hotkey.grabbed) == 8
        xdotool("keydown", "Scroll_Lock", "key", "ctrl+alt+space", "keyup", "Scroll_Lock")
        assert presses.wait_for(1) == 1
    finally:
        hotkey.stop()
