"""Every entry of the tray menu, driven with the keyboard like a user would:
right-click the icon, move with the arrow keys, press Return."""

from __future__ import annotations

import pytest

from tests.e2e.desktop_env import AppProcess, DesktopEnv, wait_for

pytestmark = [pytest.mark.gui, pytest.mark.timeout(150)]


def open_menu(desktop: DesktopEnv) -> str:
    x, y, w, h = wait_for(desktop.tray_icons, 20, "the docked icon")[-1][1]
    before = desktop.top_windows()
    desktop.xdotool("mousemove", str(x + w // 2), str(y + h // 2), "click", "3")
    return wait_for(
        lambda: [win for win in desktop.top_windows() - before if desktop.geometry(win)[3] > 100],
        10,
        "the tray menu",
    )[0]


def choose(desktop: DesktopEnv, *keys: str) -> None:
    open_menu(desktop)
    desktop.xdotool("key", "--delay", "60", *keys, "Return")


def visible(desktop: DesktopEnv, app: AppProcess) -> bool:
    return bool(app.state()["visible"] and desktop.visible_windows("Metona"))


def test_menu_entries_do_what_they_say(desktop: DesktopEnv, app: AppProcess) -> None:
    assert app.core("get_settings")["tools_enabled"] is True
    choose(desktop, "Up", "Up", "Up", "Up", "Right", "Down")  # Mode › Read only (from the bottom)
    wait_for(lambda: app.core("get_settings")["confirmation_mode"] == "read_only", 10, "read only")
    choose(desktop, "Up", "Up", "Up", "Up", "Right")  # Mode › Chat only
    wait_for(lambda: app.core("get_settings")["tools_enabled"] is False, 10, "tools off")

    names = [m["name"] for m in app.core("list_models")["models"]]
    open_menu(desktop)
    desktop.xdotool("key", "--delay", "60", "Up", "Up", "Up", "Up", "Up", "Right", "Down")
    desktop.screenshot("09-model-submenu")
    desktop.xdotool("key", "Return")  # the second model
    wait_for(lambda: app.core("get_settings")["default_model"] == names[1], 10, "model chosen")

    sessions = len(app.core("list_sessions"))
    choose(desktop, "Down", "Down")  # New chat
    wait_for(lambda: len(app.core("list_sessions")) == sessions + 1, 10, "a new chat")
    wait_for(lambda: visible(desktop, app), 10, "the popup with the new chat")
    app.send("hide")
    wait_for(lambda: not visible(desktop, app), 10, "hidden")

    choose(desktop, "Up", "Up")  # Settings
    wait_for(lambda: visible(desktop, app), 10, "the popup for settings")
    app.send("hide")
    wait_for(lambda: not visible(desktop, app), 10, "hidden")

    choose(desktop, "Up", "Up", "Up")  # Undo last change, with nothing to undo
    wait_for(
        lambda: [n for n in desktop.notifications() if n["summary"] == "Nothing undone"],
        10,
        "feedback that there was nothing to undo",
    )

    choose(desktop, "Down")  # Open chat
    wait_for(lambda: visible(desktop, app), 10, "the popup")
    open_menu(desktop)
    desktop.screenshot("10-menu-after-changes")  # Mode › Chat only now checked
    desktop.xdotool("key", "Escape")
