"""The application log: ``log_dir/metona-tray.log``, rotated by size.

Set up explicitly by the entry point (never at import), on the root logger so library warnings
land there too. The audit log is separate (``store.audit``).
"""

from __future__ import annotations

import logging
import logging.handlers

from tray_app.base.paths import AppPaths

LOG_FILE = "metona-tray.log"
FORMAT = "%(asctime)s %(levelname)s %(name)s [%(threadName)s] %(message)s"


def setup_logging(
    paths: AppPaths,
    *,
    level: int | str = logging.INFO,
    max_bytes: int = 2_000_000,
    backup_count: int = 3,
) -> logging.Handler:
    """Attach the rotating file handler (once per file) and return it, for removal in tests."""
    path = paths.log_dir / LOG_FILE
    root = logging.getLogger()
    for handler in root.handlers:
        if getattr(handler, "baseFilename", None) == str(path.absolute()):
            handler.setLevel(level)
            return handler
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.handlers.RotatingFileHandler(
        path, maxBytes=max_bytes, backupCount=backup_count, encoding="utf-8"
    )
    handler.setFormatter(logging.Formatter(FORMAT))
    handler.setLevel(level)
    root.addHandler(handler)
    if root.level == logging.NOTSET or root.level > handler.level:
        root.setLevel(handler.level)
    return handler
