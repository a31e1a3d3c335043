"""doctor's desktop section works (and says why) without a display or a session bus."""

from __future__ import annotations

from pathlib import Path

import pytest

from tray_app.desktop.checks import desktop_report, hotkey_state


def test_report_without_display_or_bus(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XDG_SESSION_TYPE"):
        monkeypatch.delenv(name, raising=False)
    report = desktop_report()
    assert report["available"] is True
    assert "metona-tray chat" in report["display"]
    assert report["hotkey"] == "not available"
    assert "notifications" in report and "gui_backend" in report and "tray" in report
    assert report["start_at_login"] in ("on", "off")


def test_wayland_report_explains_the_toggle_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)
    report = desktop_report()
    assert report["display"].startswith("Wayland")
    assert "metona-tray --toggle" in report["hotkey_hint"]


def test_gnome_without_a_tray_host_gets_the_extension_hint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("XDG_CURRENT_DESKTOP", "ubuntu:GNOME")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)
    report = desktop_report()
    assert "AppIndicator" in report.get("tray_hint", "")


def test_doctor_says_whether_the_hotkey_is_free_or_taken(xdisplay: str, tmp_path: Path) -> None:
    from tray_app.desktop.hotkey.hotkey_x11 import X11Hotkey
    from tray_app.desktop.hotkey.keys import parse_hotkey

    assert (
        hotkey_state("Ctrl+Alt+Space", tmp_path)
        == "Ctrl+Alt+Space is free (the app grabs it at start)"
    )
    holder = X11Hotkey(parse_hotkey("Ctrl+Alt+Space"), lambda: None)
    holder.start()
    try:
        report = desktop_report("ctrl+alt+space", tmp_path)
        assert report["hotkey"] == "X11 XGrabKey"
        assert report["hotkey_state"] == (
            "Ctrl+Alt+Space is taken by another app; choose another shortcut"
        )
    finally:
        holder.stop()
    assert hotkey_state("Banana", tmp_path).startswith("unusable setting")


def test_doctor_says_the_hotkey_state_in_chinese(xdisplay: str, tmp_path: Path) -> None:
    """The real ``metona-tray doctor`` under a Chinese locale on an X display: the shortcut's
    state (taken by another app here) in Chinese, the shortcut's name as the user wrote it."""
    import json
    import sys

    from tests.fakes.cli import cli_env, run_cli
    from tray_app.desktop.hotkey.hotkey_x11 import X11Hotkey
    from tray_app.desktop.hotkey.keys import parse_hotkey

    settings = tmp_path / "metona" / "config" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"hotkey": "Ctrl+Alt+Space"}), encoding="utf-8")
    env = dict(
        cli_env(tmp_path / "metona", tmp_path / "home", lang="zh_CN.UTF-8"), DISPLAY=xdisplay
    )
    command = [sys.executable, "-m", "tray_app", "doctor", "--endpoint", "http://127.0.0.1:9"]
    holder = X11Hotkey(parse_hotkey("Ctrl+Alt+Space"), lambda: None)
    holder.start()
    try:
        taken = run_cli(command, env)
    finally:
        holder.stop()
    assert (
        "[信息] 桌面 快捷键状态：Ctrl+Alt+Space 已被其他应用占用；请换一个快捷键" in taken.stdout
    ), taken.stdout + taken.stderr
    free = run_cli(command, env)
    assert "[信息] 桌面 快捷键状态：Ctrl+Alt+Space 未被占用（应用启动时占用它）" in free.stdout, (
        free.stdout + free.stderr
    )
    assert "is free" not in free.stdout and "taken by" not in taken.stdout
