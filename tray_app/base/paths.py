"""Where the app keeps its files.

platformdirs gives the per-OS folders; ``METONA_HOME`` puts everything under one folder, which
tests always set so that nothing is written outside it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from tray_app.base.runtime_dir import APP_NAME, RUNTIME_SUBDIR, home_root, runtime_dir


@dataclass(frozen=True)
class AppPaths:
    """The app's own folders. Creating them is explicit (``ensure``): no I/O at import."""

    config_dir: Path
    data_dir: Path
    log_dir: Path
    cache_dir: Path
    runtime_dir: Path

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> AppPaths:
        root = home_root(environ)
        if root is not None:
            return cls.under(root)
        return cls(
            config_dir=Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)),
            data_dir=Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)),
            log_dir=Path(platformdirs.user_log_dir(APP_NAME, appauthor=False)),
            cache_dir=Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False)),
            runtime_dir=runtime_dir(environ),
        )

    @classmethod
    def under(cls, root: Path) -> AppPaths:
        """All folders below one root (``METONA_HOME`` and tests)."""
        return cls(
            config_dir=root / "config",
            data_dir=root / "data",
            log_dir=root / "logs",
            cache_dir=root / "cache",
            runtime_dir=root / RUNTIME_SUBDIR,
        )

    @property
    def settings_file(self) -> Path:
        return self.config_dir / "settings.json"

    @property
    def database_file(self) -> Path:
        return self.data_dir / "chats.sqlite3"

    @property
    def journal_dir(self) -> Path:
        return self.data_dir / "undo"

    def protected_dirs(self) -> list[Path]:
        """Folders the model must never touch: its own settings and data."""
        return [self.config_dir, self.data_dir, self.log_dir, self.cache_dir, self.runtime_dir]

    def ensure(self) -> None:
        for folder in self.protected_dirs():
            folder.mkdir(parents=True, exist_ok=True)
        if os.name == "posix":
            os.chmod(self.runtime_dir, 0o700)
