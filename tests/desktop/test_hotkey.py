"""Hotkey strings from the settings, their codes for each OS, and which backend each session
gets. The real X11 grab is in test_hotkey_x11.py, the portal in test_hotkey_portal.py."""

from __future__ import annotations

import pytest

from tray_app.desktop.hotkey.hotkey import WAYLAND_HINT, HotkeyManager, session_kind, support
from tray_app.desktop.hotkey.hotkey_macos import CMD, CONTROL, OPTION, SHIFT, carbon_codes
from tray_app.desktop.hotkey.hotkey_windows import (
    MOD_ALT,
    MOD_CONTROL,
    MOD_NOREPEAT,
    MOD_SHIFT,
    MOD_WIN,
    windows_codes,
)
from tray_app.desktop.hotkey.hotkey_x11 import (
    CONTROL_MASK,
    LOCK_MASK,
    SHIFT_MASK,
    base_mask,
    keysym_name,
    lock_masks,
    lock_variants,
    modifier_masks,
)
from tray_app.desktop.hotkey.keys import HotkeyError, parse_hotkey


@pytest.mark.parametrize(
    ("text", "label", "keysym"),
    [
        ("Ctrl+Alt+Space", "Ctrl+Alt+Space", "space"),
        ("ctrl + alt + space", "Ctrl+Alt+Space", "space"),
        ("Cmd+Shift+Space", "Shift+Cmd+Space", "space"),
        ("Control+Option+K", "Ctrl+Alt+K", "k"),
        ("Super+F12", "Cmd+F12", "F12"),
        ("Ctrl+Shift+PgUp", "Ctrl+Shift+PageUp", "Prior"),
        ("Alt+Escape", "Alt+Esc", "Escape"),
        ("Ctrl+.", "Ctrl+.", "period"),
        ("Ctrl+Alt+7", "Ctrl+Alt+7", "7"),
        ("Ctrl+Alt+\\", "Ctrl+Alt+\\", "backslash"),
    ],
)
def test_settings_strings_parse_to_labels_and_x11_keysyms(
    text: str, label: str, keysym: str
) -> None:
    hotkey = parse_hotkey(text)
    assert hotkey.label() == label
    assert keysym_name(hotkey.key) == keysym
    assert parse_hotkey(hotkey.label()) == hotkey


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "not a key combination"),
        ("Space", "needs Ctrl, Alt or Cmd"),
        ("Shift+A", "needs Ctrl, Alt or Cmd"),
        ("Ctrl+Alt", "exactly one key"),
        ("Ctrl+A+B", "exactly one key"),
        ("Ctrl+Banana", "unknown key"),
        ("Ctrl++", "not a key combination"),
    ],
)
def test_unusable_hotkeys_are_refused_with_a_reason(text: str, reason: str) -> None:
    with pytest.raises(HotkeyError, match=reason):
        parse_hotkey(text)


def test_carbon_codes_for_the_macos_default() -> None:
    assert carbon_codes(parse_hotkey("Cmd+Shift+Space")) == (49, CMD | SHIFT)
    assert carbon_codes(parse_hotkey("Ctrl+Alt+K")) == (40, CONTROL | OPTION)


@pytest.mark.parametrize(
    ("environ", "kind"),
    [
        ({"DISPLAY": ":0"}, "x11"),
        ({"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"}, "wayland"),
        ({"XDG_SESSION_TYPE": "wayland"}, "wayland"),
        ({}, "none"),
    ],
)
def test_session_kind(environ: dict[str, str], kind: str) -> None:
    assert session_kind(environ) == kind


def test_wayland_explains_binding_the_toggle_command() -> None:
    info = support({"WAYLAND_DISPLAY": "wayland-0"}, portal=False)
    assert info["supported"] is False
    assert "metona-tray --toggle" in info["hint"]
    assert support({"DISPLAY": ":1"})["supported"] is True


def test_manager_on_wayland_registers_nothing_and_says_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)  # so no portal either
    manager = HotkeyManager(lambda: None)
    assert manager.apply("Ctrl+Alt+Space") == WAYLAND_HINT
    assert manager.current is None
    status = manager.status()
    assert status["supported"] is False and status["error"] == WAYLAND_HINT
    assert status["taken"] is False and status["registered"] is None
    manager.stop()


def test_manager_reports_a_bad_setting_and_keeps_going() -> None:
    manager = HotkeyManager(lambda: None)
    error = manager.apply("Banana")
    assert error is not None and "Banana" in error
    assert manager.error == error


# ---- X11: modifiers and the lock-key states ----------------------------------------------------

MOD1, MOD2, MOD3, MOD4, MOD5 = (1 << n for n in range(3, 8))
NAMES = {10: "Alt_L", 11: "Num_Lock", 12: "Super_L", 13: "Scroll_Lock", 14: "ISO_Level3_Shift"}


def test_modifier_bits_come_from_the_servers_map() -> None:
    # An unusual map: NumLock on Mod3, ScrollLock on Mod5, Super on Mod2, Alt on Mod1.
    mapping = [[50], [66], [37], [10], [12], [11], [14], [13]]
    masks = modifier_masks(mapping, NAMES.get)
    assert masks == {"alt": MOD1, "cmd": MOD2, "numlock": MOD3, "scrolllock": MOD5}
    assert base_mask(parse_hotkey("Ctrl+Alt+Space"), masks) == CONTROL_MASK | MOD1
    assert base_mask(parse_hotkey("Super+Shift+K"), masks) == MOD2 | SHIFT_MASK
    # A map that says nothing: the usual layout, and no ScrollLock bit.
    assert modifier_masks([[], [], [], [], [], [], [], []], NAMES.get) == {
        "alt": MOD1, "numlock": MOD2, "cmd": MOD4, "scrolllock": 0
    }  # fmt: skip


def test_every_lock_key_combination_is_grabbed() -> None:
    masks = {"alt": MOD1, "cmd": MOD4, "numlock": MOD2, "scrolllock": MOD5}
    base = base_mask(parse_hotkey("Ctrl+Alt+Space"), masks)
    locks = lock_masks(masks)
    assert set(locks) == {LOCK_MASK, MOD2, MOD5}
    variants = lock_variants(base, locks)
    assert len(variants) == 8 == len(set(variants))
    assert base in variants
    assert base | LOCK_MASK | MOD2 | MOD5 in variants  # CapsLock + NumLock + ScrollLock
    assert all(v & ~(LOCK_MASK | MOD2 | MOD5) == base for v in variants)
    # Without a ScrollLock modifier: CapsLock x NumLock only.
    assert len(lock_variants(base, lock_masks({**masks, "scrolllock": 0}))) == 4


def test_a_lock_bit_that_is_part_of_the_combination_is_not_doubled() -> None:
    assert lock_variants(MOD2 | CONTROL_MASK, [LOCK_MASK, MOD2]) == [
        MOD2 | CONTROL_MASK, MOD2 | CONTROL_MASK | LOCK_MASK
    ]  # fmt: skip


# ---- Windows (RegisterHotKey arguments; the calls themselves cannot run here) -----------------


def test_windows_codes() -> None:
    assert windows_codes(parse_hotkey("Ctrl+Alt+Space")) == (
        MOD_NOREPEAT | MOD_CONTROL | MOD_ALT, 0x20
    )  # fmt: skip
    assert windows_codes(parse_hotkey("Win+Shift+K")) == (MOD_NOREPEAT | MOD_WIN | MOD_SHIFT, 0x4B)
    assert windows_codes(parse_hotkey("Ctrl+F12"))[1] == 0x7B
    assert windows_codes(parse_hotkey("Ctrl+7"))[1] == 0x37
    # Punctuation is layout-dependent: VkKeyScanW's low byte is the key.
    assert windows_codes(parse_hotkey("Ctrl+."), lambda ch: 0x01BE)[1] == 0xBE
    with pytest.raises(ValueError, match="no key"):
        windows_codes(parse_hotkey("Ctrl+."), lambda ch: -1)
