"""Start at login: the ``start_at_login`` setting writes or removes one OS entry.

- Linux: ``$XDG_CONFIG_HOME/autostart/metona-tray.desktop`` (XDG Autostart spec; tested).
- macOS: ``~/Library/LaunchAgents/com.metona.tray.plist`` with ``RunAtLoad`` (untested here).
- Windows: value ``Metona Tray`` under ``HKCU\\...\\CurrentVersion\\Run`` (untested here).

The entry runs the same command that started this process (the frozen executable, or this
Python with ``-m tray_app``), and carries ``METONA_HOME`` when it is set so a relocated
install starts with its own data. Paths are parameters so tests write into a temp folder.
"""

from __future__ import annotations

import contextlib
import os
import plistlib
import sys
from pathlib import Path
from typing import Any

from tray_app.base.atomic import atomic_write

APP_ID = "metona-tray"
MAC_LABEL = "com.metona.tray"
WIN_VALUE = "Metona Tray"
WIN_RUN_KEY = r"Software\Microsoft\Windows\CurrentVersion\Run"


def launch_command() -> list[str]:
    """argv that starts this app again."""
    if getattr(sys, "frozen", False):
        return [sys.executable]
    return [sys.executable, "-m", "tray_app"]


def _environment() -> dict[str, str]:
    home = os.environ.get("METONA_HOME")
    return {"METONA_HOME": home} if home else {}


def _desktop_exec(argv: list[str], env: dict[str, str]) -> str:
    """An ``Exec=`` value: each argument quoted per the Desktop Entry spec."""

    def quote(arg: str) -> str:
        if arg and all(c.isalnum() or c in "-_./:=+,@" for c in arg):
            return arg.replace("%", "%%")
        escaped = arg.replace("\\", "\\\\").replace('"', '\\"').replace("`", "\\`")
        return '"' + escaped.replace("$", "\\$").replace("%", "%%") + '"'

    prefix = ["env", *(f"{k}={v}" for k, v in env.items())] if env else []
    # A desktop file's values are string-unescaped before the Exec quoting is read, so every
    # backslash of the quoting is itself escaped once more (the spec's two levels).
    return " ".join(quote(a) for a in [*prefix, *argv]).replace("\\", "\\\\")


def desktop_entry(argv: list[str], env: dict[str, str] | None = None) -> str:
    return "\n".join(
        [
            "[Desktop Entry]",
            "Type=Application",
            "Name=Metona Tray",
            "Comment=Chat with a local model from the system tray",
            f"Exec={_desktop_exec(argv, env or {})}",
            "Icon=metona-tray",
            "Terminal=false",
            "Categories=Utility;",
            "X-GNOME-Autostart-enabled=true",
            "",
        ]
    )


def launch_agent(argv: list[str], env: dict[str, str] | None = None) -> bytes:
    plist: dict[str, Any] = {
        "Label": MAC_LABEL,
        "ProgramArguments": argv,
        "RunAtLoad": True,
        "ProcessType": "Interactive",
    }
    if env:
        plist["EnvironmentVariables"] = env
    return plistlib.dumps(plist)


def windows_command(argv: list[str]) -> str:
    """A Run value cannot set variables, so METONA_HOME is not carried over on Windows."""
    import subprocess

    return subprocess.list2cmdline(argv)


def _set_windows(enabled: bool, argv: list[str]) -> None:
    if sys.platform == "win32":
        import winreg

        with winreg.OpenKey(winreg.HKEY_CURRENT_USER, WIN_RUN_KEY, 0, winreg.KEY_SET_VALUE) as key:
            if enabled:
                winreg.SetValueEx(key, WIN_VALUE, 0, winreg.REG_SZ, windows_command(argv))
            else:
                with contextlib.suppress(FileNotFoundError):
                    winreg.DeleteValue(key, WIN_VALUE)
        return
    raise OSError("the Run key exists only on Windows")


def _windows_enabled() -> bool:
    if sys.platform == "win32":
        import winreg

        try:
            with winreg.OpenKey(winreg.HKEY_CURRENT_USER, WIN_RUN_KEY) as key:
                winreg.QueryValueEx(key, WIN_VALUE)
        except OSError:
            return False
        return True
    return False


def linux_entry_path(environ: dict[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    config = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME", "~")).expanduser() / ".config")
    return Path(config) / "autostart" / f"{APP_ID}.desktop"


def mac_agent_path(home: Path | None = None) -> Path:
    return (home or Path.home()) / "Library" / "LaunchAgents" / f"{MAC_LABEL}.plist"


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, data)


def set_enabled(
    enabled: bool,
    *,
    platform: str | None = None,
    environ: dict[str, str] | None = None,
    argv: list[str] | None = None,
    home: Path | None = None,
) -> str:
    """Write or remove the entry; returns where (a path, or the registry value name)."""
    platform = platform or sys.platform
    argv = argv or launch_command()
    env = (
        _environment()
        if environ is None
        else {k: v for k, v in environ.items() if k == "METONA_HOME"}
    )
    if platform == "win32":
        _set_windows(enabled, argv)
        return rf"HKCU\{WIN_RUN_KEY}\{WIN_VALUE}"
    if platform == "darwin":
        path = mac_agent_path(home)
        if enabled:
            _write(path, launch_agent(argv, env))
        else:
            path.unlink(missing_ok=True)
        return str(path)
    path = linux_entry_path(environ)
    if enabled:
        _write(path, desktop_entry(argv, env).encode())
    else:
        path.unlink(missing_ok=True)
    return str(path)


def is_enabled(*, platform: str | None = None, environ: dict[str, str] | None = None) -> bool:
    platform = platform or sys.platform
    if platform == "win32":
        return _windows_enabled()
    if platform == "darwin":
        return mac_agent_path().exists()
    return linux_entry_path(environ).exists()
