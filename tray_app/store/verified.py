"""Whether the chat database is byte for byte as this app last closed it, so ``open_database``
can skip ``PRAGMA quick_check``, which reads the whole file and so made every start slower as
the history grew.

A clean close writes ``<db>.verified``: the file's size, inode, modification and change times.
At open the check is skipped only when all of them still match and no write-ahead log is left
beside it (a crash, or another process still writing). Anything else that wrote the file (a
crash mid-checkpoint, a copy, a tool, a damaged sync) changed its times, so the file is checked
in full as before. Damage that changes neither size nor times (the disk failing under an
untouched file) is found when SQLite reads that page, as in any SQLite app.

Timestamps are only as fine as the file system's clock: a write in the same clock tick as the
close would keep the recorded time. So the stamp is trusted only when it was written at least
``TICK_NS`` after the file's last change (``stamp`` waits out the rest of that tick, at most
``TICK_NS``, at close), and never on a file system that keeps whole seconds. Files under
``STAMP_FROM_BYTES`` get no stamp: checking them is cheaper than that wait.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path

from tray_app.base.atomic import atomic_write

TICK_NS = 20_000_000  # twice the coarsest kernel clock tick (10 ms at HZ=100)
#: Smaller files are checked at every open: reading a few MB costs less than waiting out a tick
#: at close (the whole check runs at ~1 ms per MB from the page cache, far slower from disk).
STAMP_FROM_BYTES = 8 * 1024 * 1024
_FIELDS = ("size", "ino", "mtime_ns", "ctime_ns")


def stamp_path(db: Path) -> Path:
    return db.with_name(db.name + ".verified")


def _wal_in_use(db: Path) -> bool:
    try:
        return db.with_name(db.name + "-wal").stat().st_size > 0
    except FileNotFoundError:
        return False


def _facts(info: os.stat_result) -> dict[str, int]:
    return {
        "size": info.st_size,
        "ino": info.st_ino,
        "mtime_ns": info.st_mtime_ns,
        "ctime_ns": info.st_ctime_ns,
    }


def unchanged_since_close(db: Path) -> bool:
    """True when ``db`` is exactly as this app's last clean close left it."""
    try:
        recorded = json.loads(stamp_path(db).read_bytes())
        now = _facts(db.stat())
    except (OSError, ValueError):
        return False
    if not isinstance(recorded, dict) or _wal_in_use(db):
        return False
    if any(recorded.get(field) != now[field] for field in _FIELDS):
        return False
    stamped = recorded.get("stamped_ns")
    return isinstance(stamped, int) and stamped - now["mtime_ns"] >= TICK_NS


def forget(db: Path) -> None:
    """Drop the stamp (the file is about to change outside a clean close)."""
    with contextlib.suppress(OSError):
        stamp_path(db).unlink()


def stamp(db: Path) -> None:
    """Record ``db`` as closed cleanly; call after its last connection closed. Never raises:
    without a stamp the next open simply checks the whole file."""
    try:
        if _wal_in_use(db):  # another process still has it open: its state is not ours
            forget(db)
            return
        info = db.stat()
        if info.st_size < STAMP_FROM_BYTES:
            forget(db)
            return
        if info.st_mtime_ns % 1_000_000_000 == 0:  # a file system of whole seconds: no stamp
            forget(db)
            return
        wait = info.st_mtime_ns + TICK_NS - time.time_ns()
        if wait > TICK_NS:  # the file's clock is ahead of ours: do not trust either
            forget(db)
            return
        if wait > 0:
            time.sleep(wait / 1e9)  # a later write must fall in a later clock tick
        facts = {**_facts(info), "stamped_ns": time.time_ns()}
        if db.stat().st_mtime_ns != info.st_mtime_ns:  # written meanwhile
            forget(db)
            return
        atomic_write(stamp_path(db), json.dumps(facts).encode(), private=True)
    except OSError:
        forget(db)
