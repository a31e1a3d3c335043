"""Hotkey strings from the settings, and which backend each session gets."""

from __future__ import annotations

import pytest

from tray_app.desktop.hotkey import (
    WAYLAND_HINT,
    HotkeyError,
    HotkeyManager,
    parse_hotkey,
    session_kind,
    support,
)
from tray_app.desktop.hotkey_macos import CMD, CONTROL, OPTION, SHIFT, carbon_codes


@pytest.mark.parametrize(
    ("text", "pynput", "label"),
    [
        ("Ctrl+Alt+Space", "<ctrl>+<alt>+<space>", "Ctrl+Alt+Space"),
        ("ctrl + alt + space", "<ctrl>+<alt>+<space>", "Ctrl+Alt+Space"),
        ("Cmd+Shift+Space", "<shift>+<cmd>+<space>", "Shift+Cmd+Space"),
        ("Control+Option+K", "<ctrl>+<alt>+k", "Ctrl+Alt+K"),
        ("Super+F12", "<cmd>+<f12>", "Cmd+F12"),
        ("Ctrl+Shift+PgUp", "<ctrl>+<shift>+<page_up>", "Ctrl+Shift+PageUp"),
        ("Alt+Escape", "<alt>+<esc>", "Alt+Esc"),
        ("Ctrl+.", "<ctrl>+.", "Ctrl+."),
        ("Ctrl+Alt+7", "<ctrl>+<alt>+7", "Ctrl+Alt+7"),
    ],
)
def test_settings_strings_become_pynput_combinations(text: str, pynput: str, label: str) -> None:
    hotkey = parse_hotkey(text)
    assert hotkey.pynput() == pynput
    assert hotkey.label() == label
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
    info = support({"WAYLAND_DISPLAY": "wayland-0"})
    assert info["supported"] is False
    assert "metona-tray --toggle" in info["hint"]
    assert support({"DISPLAY": ":1"})["supported"] is True


def test_manager_on_wayland_registers_nothing_and_says_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    manager = HotkeyManager(lambda: None)
    assert manager.apply("Ctrl+Alt+Space") == WAYLAND_HINT
    assert manager.current is None
    manager.stop()


def test_manager_reports_a_bad_setting_and_keeps_going() -> None:
    manager = HotkeyManager(lambda: None)
    error = manager.apply("Banana")
    assert error is not None and "Banana" in error
    assert manager.error == error
