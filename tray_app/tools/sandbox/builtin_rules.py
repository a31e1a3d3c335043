"""The folders and file names every tool refuses whatever the settings say, as the Settings
page lists them (read-only, beside the user's own blocked folders)."""

from __future__ import annotations

import os
from pathlib import Path

from tray_app.tools.sandbox.path_rules import (
    HOME_SECRET_DIRS,
    POSIX_SYSTEM_DIRS,
    SENSITIVE_PAIRS,
    SENSITIVE_PATTERNS,
    WINDOWS_SYSTEM_DIRS,
)


def built_in_rules(home: Path | None = None) -> dict[str, list[str]]:
    """System and credential folders (absolute, for this user), and the secret-file names."""
    base = home or Path.home()
    system = WINDOWS_SYSTEM_DIRS if os.name == "nt" else POSIX_SYSTEM_DIRS
    return {
        "blocked_dirs": [*system, *(str(base / name) for name in HOME_SECRET_DIRS)],
        "sensitive_names": [*SENSITIVE_PATTERNS, *(f"{d}/{n}" for d, n in SENSITIVE_PAIRS)],
    }
