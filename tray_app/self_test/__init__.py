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
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from tray_app.i18n import section
from tray_app.self_test.files import Missing
from tray_app.self_test.text import WITHOUT_CATALOGUE, padded

Check = tuple[str, Callable[[Path], str]]


def _checks(display: bool) -> list[Check]:
    from tray_app.self_test import agent_turn, files, popup_check
    from tray_app.web_files import web_root

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


def report_language() -> str:
    """The user's language setting (read only; a missing or broken file means "system")."""
    from tray_app.base.paths import AppPaths
    from tray_app.i18n import resolve_language
    from tray_app.store.settings import load_settings

    try:
        with warnings.catch_warnings():  # platformdirs warns about a missing XDG_RUNTIME_DIR
            warnings.simplefilter("ignore")
            paths = AppPaths.from_env()
        setting = load_settings(paths.settings_file).language
    except Exception:  # the report must come out whatever the settings file holds
        setting = "system"
    return resolve_language(setting)  # English when the catalogue itself cannot be read


def run_self_test(*, display: bool, out: TextIO | None = None, language: str | None = None) -> int:
    """``display``: a graphical session is there, so the popup's window can be checked too."""
    out = out or sys.stdout
    lang = language or report_language()
    titles, said = section("self_test.check", lang), section("self_test", lang)
    text = {key: said.get(key, english) for key, english in WITHOUT_CATALOGUE.items()}
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
            mark = "ok  " if ok else "FAIL"
            out.write(f"{mark} {padded(titles.get(name, name))}{detail} ({took:.1f} s)\n")
            out.flush()
    if not display:
        out.write(
            f"skip {padded(titles.get('popup window', 'popup window'))}{text['no_display']}\n"
        )
    out.write((text["whole"] if not failures else text["broken"].format(n=failures)) + "\n")
    return 0 if not failures else 1
