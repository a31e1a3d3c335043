"""``metona-tray --self-test``: is this installation whole?

Meant for installers and CI: run on a fresh bundle it names what is missing (a module, a
library, ``rg``, a page file) instead of failing later in front of a user. Everything runs in a
temporary folder: the user's settings, chats and running app are never touched. Prints one line
per check and exits 0 when all pass, 1 otherwise.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from tray_app.self_test.files import Missing

Check = tuple[str, Callable[[Path], str]]


def _checks(display: bool) -> list[Check]:
    from tray_app.desktop.app import web_root
    from tray_app.self_test import agent_turn, files, popup_check

    checks: list[Check] = [
        ("modules", lambda _root: files.check_modules()),
        ("dependencies", lambda _root: files.check_dependencies(display=display)),
        ("desktop libraries", lambda _root: files.check_desktop_libraries()),
        ("ripgrep", lambda _root: files.check_ripgrep()),
        ("web page", lambda _root: files.check_web(web_root())),
        ("settings and store", agent_turn.check_store),
        ("agent turn", agent_turn.check_agent_turn),
        ("popup process", lambda _root: popup_check.check_spawn()),
    ]
    if display:
        checks.append(("popup window", popup_check.check_popup_window))
    return checks


def run_self_test(*, display: bool, out: TextIO | None = None) -> int:
    """``display``: a graphical session is there, so the popup's window can be checked too."""
    out = out or sys.stdout
    failures = 0
    with tempfile.TemporaryDirectory(prefix="metona-self-test-") as tmp:
        root = Path(os.path.realpath(tmp))
        for number, (name, check) in enumerate(_checks(display)):
            folder = root / str(number)
            folder.mkdir()
            start = time.monotonic()
            try:
                detail, ok = check(folder), True
            except Missing as exc:
                detail, ok = str(exc), False
            except Exception as exc:  # a bug or a broken library: still name it, keep going
                detail, ok = f"{type(exc).__name__}: {exc}", False
            failures += not ok
            took = time.monotonic() - start
            out.write(f"{'ok  ' if ok else 'FAIL'} {name:<19} {detail} ({took:.1f} s)\n")
            out.flush()
    if not display:
        out.write("skip popup window        no display (DISPLAY / WAYLAND_DISPLAY unset)\n")
    verdict = "whole" if not failures else f"broken: {failures} check(s) failed"
    out.write(f"metona-tray self-test: {verdict}\n")
    return 0 if not failures else 1
