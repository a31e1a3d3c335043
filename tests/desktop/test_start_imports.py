"""The tray icon comes before Core (start to icon ready <= 0.5 s): what the desktop app
imports before it builds the icon holds none of Core, pydantic, the HTTP client or the popup's
webview. Checked in a fresh interpreter, whose module list cannot lie."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("tray_app.core", "tray_app.agent", "tray_app.store", "tray_app.tools",
         "tray_app.providers", "pydantic", "httpx", "webview", "sqlite3")  # fmt: skip


def loaded_after(code: str) -> list[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    return list(json.loads(done.stdout.strip().splitlines()[-1]))


def test_the_app_and_tray_modules_import_nothing_of_core() -> None:
    # what tray_app.desktop.app.main and DesktopApp._run import before the icon is shown
    modules = loaded_after(
        "import tray_app.cli.cli, tray_app.base.logs, tray_app.desktop.app\n"
        "import tray_app.desktop.tray.tray"
    )
    assert "tray_app.desktop.tray.tray" in modules and "PIL.Image" in modules  # the probe ran
    assert [m for m in modules if m.startswith(HEAVY)] == []


def test_folding_events_loads_the_event_union_when_first_needed() -> None:
    modules = loaded_after(
        "from tray_app.desktop.tray.tray import TrayState, reduce_state\n"
        "reduce_state(TrayState(), [])"
    )
    assert "tray_app.base.events" in modules
