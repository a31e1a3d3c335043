"""Undo journal upkeep: the start-up sweep, the size budget and the entry limit.

The sweep runs under the index's write lock when a journal opens: pending entries of processes
that are gone are settled (kept as a change if the path changed since the copy was taken, else
dropped), and copies no row keeps are removed. Another process inserts its row (under that lock)
before it writes its copy, so a copy without a row seen here is garbage, never work in progress.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import time
from pathlib import Path

from tray_app.tools.journal.journal_index import Entry, Index
from tray_app.tools.journal.journal_owner import owner_alive
from tray_app.tools.journal.journal_undo import settle
from tray_app.tools.journal.snapshot import fingerprint, same_state
from tray_app.undo_reasons import Reason

log = logging.getLogger(__name__)

MAX_ENTRIES = 1000
PENDING_TTL = 3600.0


def adopt_legacy(index: Index, root: Path) -> None:
    """Bring in the entries of the ``index.json`` an earlier version kept."""
    legacy = root / "index.json"
    if not legacy.exists():
        return
    try:
        with index.write():
            count = index.import_legacy(legacy)
    except (OSError, ValueError, TypeError, KeyError) as exc:
        log.warning("journal index %s unreadable (%s); set aside", legacy, exc)
        with contextlib.suppress(OSError):
            legacy.replace(legacy.with_name(f"index.corrupt-{int(time.time())}.json"))
        return
    log.info("journal: %d entries taken over from %s", count, legacy)
    with contextlib.suppress(OSError):
        legacy.replace(legacy.with_name("index.imported.json"))


def sweep(index: Index, root: Path) -> None:
    """Drop pending rows of processes that are gone, and copies no row keeps.

    Runs under the write lock: another process inserts its row (under that lock) before it
    writes its copy, so a copy without a row seen here is garbage, never work in progress.
    """
    cutoff = time.time() - PENDING_TTL
    with index.write():
        for entry in index.read("WHERE state = 'pending'"):
            if entry.time < cutoff or not owner_alive(entry.owner):
                _adopt(index, entry)
        keep = index.kept_ids()
        blobs = root / "blobs"
        if blobs.is_dir():
            for child in blobs.iterdir():
                if child.name not in keep:
                    shutil.rmtree(child, ignore_errors=True)
    for stray in root.glob(".index-*.tmp"):
        with contextlib.suppress(OSError):
            stray.unlink()


def _adopt(index: Index, entry: Entry) -> None:
    """A pending entry whose process is gone (killed between its change and the commit):
    if the path changed since the copy was taken, the change happened and is kept as one,
    so it can be undone like any other; else the entry is dropped."""
    changed = False
    with contextlib.suppress(OSError):
        now = fingerprint(Path(entry.path))
        kind = entry.before.get("kind")
        if kind in ("file", "symlink", "absent"):
            changed = not same_state(now, entry.before)
    if not changed:
        index.delete(entry.id)
        return
    log.warning("journal: %s of %s was cut off after the change; kept", entry.tool, entry.path)
    settle(entry, now)
    entry.seq = index.next_seq()
    index.update(entry)


def make_room(index: Index, needed: int, max_bytes: int) -> list[str]:
    """Give up the oldest saved copies until ``needed`` more bytes fit in the budget."""
    used = index.kept_bytes()
    dropped: list[str] = []
    if used + needed <= max_bytes:
        return dropped
    mb = max_bytes / (1024 * 1024)
    for entry in index.read("WHERE kept = 1 AND state = 'committed' ORDER BY seq"):
        if used + needed <= max_bytes:
            break
        used -= entry.size
        entry.kept, entry.size = False, 0
        entry.reason = Reason(
            f"its saved copy was dropped to keep the journal under {mb:g} MB",
            "copy_dropped",
            budget_mb=f"{mb:g}",
        )
        index.update(entry)
        dropped.append(entry.id)
    return dropped


def trim(index: Index) -> list[str]:
    """Forget the oldest entries past ``MAX_ENTRIES``; returns the copies to remove."""
    old = index.read("WHERE state != 'pending' ORDER BY seq DESC LIMIT -1 OFFSET ?", (MAX_ENTRIES,))
    for entry in old:
        index.delete(entry.id)
    return [e.id for e in old if e.kept]
