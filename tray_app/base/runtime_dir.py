"""The runtime folder (instance socket, key and lock) on its own, without the rest of
``tray_app.base.paths``: ``metona-tray --toggle`` and a second launch need this one folder, and must
stay fast when the machine is busy, so they load neither dataclasses nor the other folders."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

APP_NAME = "metona-tray"
HOME_ENV = "METONA_HOME"
RUNTIME_SUBDIR = "run"


def home_root(environ: Mapping[str, str] | None = None) -> Path | None:
    """The one folder ``METONA_HOME`` puts everything under, or None (the per-OS folders)."""
    home = (os.environ if environ is None else environ).get(HOME_ENV)
    return Path(home).expanduser().absolute() if home else None


def runtime_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Where the running app keeps its instance socket: the same folder ``AppPaths`` names."""
    root = home_root(environ)
    if root is not None:
        return root / RUNTIME_SUBDIR
    import warnings

    import platformdirs

    # Without XDG_RUNTIME_DIR (a cron job, ssh, su) platformdirs falls back to a checked private
    # folder and says so with a RuntimeDirWarning, which Python prints on every terminal
    # command: the fallback is what the app wants, so the warning is not the user's business.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", getattr(platformdirs, "RuntimeDirWarning", UserWarning))
        return Path(platformdirs.user_runtime_dir(APP_NAME, appauthor=False))
