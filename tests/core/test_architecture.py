"""The core and everything below it run headless: no GUI toolkit is imported."""

from __future__ import annotations

import subprocess
import sys

GUI_MODULES = ("webview", "pystray", "pynput", "desktop_notifier", "gi", "PIL.ImageTk", "tkinter")


def test_importing_the_core_loads_no_gui_toolkit() -> None:
    code = (
        "import sys\n"
        "import tray_app.core.service, tray_app.cli.terminal, tray_app.cli.doctor\n"
        "import tray_app.cli.cli\n"
        "import tray_app.tools.base, tray_app.store.settings\n"
        f"bad = [m for m in {GUI_MODULES!r} if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == ""
