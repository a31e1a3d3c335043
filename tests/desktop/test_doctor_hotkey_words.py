"""``metona-tray doctor`` on Wayland, as a user runs it: what to do about the global hotkey in
the terminal's language, both where the desktop offers no GlobalShortcuts portal (bind
``metona-tray --toggle`` yourself) and where it does (the stand-in portal on a private session
bus); the display's name, which the system gives, written out."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.desktop.test_hotkey_portal import Bus, bus  # noqa: F401 - the fixture
from tests.fakes.cli import cli_env, run_cli
from tray_app.cli.doctor_lines import value_words
from tray_app.desktop.hotkey.hotkey import HINTS, PORTAL_HINT, WAYLAND_HINT, support

DISPLAY_NAME = "wayland-例\u202e👋"
SHOWN_NAME = "wayland-例⟨U+202E⟩👋"


def doctor(tmp_path: Path, lang: str, bus_address: str | None) -> str:
    env = cli_env(tmp_path / "metona", tmp_path / "home", lang=lang)
    env.update(WAYLAND_DISPLAY=DISPLAY_NAME, PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    env.pop("DBUS_SESSION_BUS_ADDRESS", None)
    if bus_address is not None:
        env["DBUS_SESSION_BUS_ADDRESS"] = bus_address
    command = [sys.executable, "-m", "tray_app", "doctor", "--endpoint", "http://127.0.0.1:9"]
    result = run_cli(command, env)
    assert "Traceback" not in result.stderr, result.stderr
    assert "\u202e" not in result.stdout
    return result.stdout


def test_without_a_portal_the_toggle_hint_is_in_chinese(tmp_path: Path) -> None:
    lines = doctor(tmp_path, "zh_CN.UTF-8", None).splitlines()
    assert f"[信息] 桌面 显示：Wayland ({SHOWN_NAME})" in lines
    assert "[信息] 桌面 快捷键：不可用" in lines
    assert (
        "[信息] 桌面 快捷键提示：Wayland 不允许应用占用全局快捷键。请在桌面的键盘设置中把命令 "
        "`metona-tray --toggle` 绑定到一个快捷键（GNOME：设置 > 键盘 > 自定义快捷键；"
        "KDE：系统设置 > 快捷键 > 自定义快捷键）。"
    ) in lines, lines
    assert not any("Wayland does not" in line or "Bind the command" in line for line in lines)


def test_without_a_portal_the_toggle_hint_stays_english_under_an_english_locale(
    tmp_path: Path,
) -> None:
    lines = doctor(tmp_path, "en_US.UTF-8", None).splitlines()
    assert f"[info] desktop display: Wayland ({SHOWN_NAME})" in lines
    assert f"[info] desktop hotkey_hint: {WAYLAND_HINT}" in lines, lines


def test_with_a_portal_its_hint_and_the_shortcut_are_in_chinese(tmp_path: Path, bus: Bus) -> None:  # noqa: F811
    bus.portal()
    lines = doctor(tmp_path, "zh_CN.UTF-8", bus.address).splitlines()
    assert "[信息] 桌面 快捷键：xdg-desktop-portal GlobalShortcuts" in lines, lines
    assert (
        "[信息] 桌面 快捷键提示：通过桌面的 GlobalShortcuts 门户（portal）注册：桌面可能会请你"
        "确认一次，之后也可以在它自己的快捷键设置中更改。"
    ) in lines, lines
    assert "[信息] 桌面 快捷键状态：Ctrl+Alt+Space（应用启动时注册它）" in lines, lines
    assert not any("Registered through" in line for line in lines)
    english = doctor(tmp_path, "en_US.UTF-8", bus.address).splitlines()
    assert f"[info] desktop hotkey_hint: {PORTAL_HINT}" in english, english


def test_every_hint_the_hotkey_gives_has_chinese_words() -> None:
    """The hints live in ``hotkey.py`` and their Chinese in the catalogue (``doctor.value.*``):
    a changed hint must not fall back to English unnoticed (macOS's is not reachable here)."""
    assert support(portal=False)["hint"] in HINTS
    assert support({"WAYLAND_DISPLAY": "w"}, portal=True)["hint"] in HINTS
    for hint in HINTS:
        said = value_words(hint, "zh-CN")
        assert said != hint and not said.isascii(), hint


def test_the_running_apps_reason_is_said_in_chinese_inside_its_sentence() -> None:
    said = value_words(f"not registered by the running app: {WAYLAND_HINT}", "zh-CN")
    assert said.startswith("运行中的应用没能注册它：Wayland 不允许应用占用全局快捷键。"), said
    failed = "the hotkey Ctrl+Alt+K could not be registered: the portal's BindShortcuts was refused"
    assert value_words(failed, "zh-CN") == (
        "无法注册快捷键 Ctrl+Alt+K（“the portal's BindShortcuts was refused”）"
    )
