"""Opening the app's chat store: the SQLite file when it can be used, else a read-only view
or an in-memory store with the sentence that tells the user why (the file is never replaced).
"""

from __future__ import annotations

import logging
import os

from tray_app.base.errors import StoreError
from tray_app.base.paths import AppPaths
from tray_app.history_warnings import HistoryWarning, problem_of
from tray_app.store.chats import SQLiteChats
from tray_app.store.db import DEFAULT_BUSY_TIMEOUT, open_database
from tray_app.store.owners import ProcessMark, repair_lock, sweep_dead_marks
from tray_app.store.records import ChatRepository, MemoryChats

log = logging.getLogger(__name__)


def open_chat_store(
    paths: AppPaths,
    *,
    recover: bool = True,
    busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
    read_only_ok: bool = False,
) -> tuple[ChatRepository, str | None]:
    """The app's chat store, or an in-memory one and the sentence telling the user why.

    Never raises for a bad database file and never replaces it. ``recover`` runs
    ``mark_interrupted`` under the repair lock; it spares answers whose process still runs.
    ``read_only_ok`` (listing, exporting) reads a file whose folder cannot be written instead
    of turning history off; the sentence then says nothing is saved.
    """
    try:
        db = open_database(paths.database_file, busy_timeout=busy_timeout)
    except StoreError as exc:
        # Listing and exporting can still read a file on a read-only disk, or one another
        # program keeps locked for writing (WAL lets readers in).
        locked = "locked by another program" in str(exc)
        if read_only_ok and (locked or not os.access(paths.data_dir, os.W_OK)):
            try:
                db = open_database(paths.database_file, read_only=True)
            except StoreError:
                pass
            else:
                log.warning("chat history read-only: %s", exc)
                why = problem_of(exc) or str(exc)
                return SQLiteChats(db), HistoryWarning(
                    f"History is read-only: {exc}", "history_read_only", why
                )
        log.warning("chat history disabled: %s", exc)
        why = problem_of(exc) or str(exc)
        return MemoryChats(), HistoryWarning(f"History is off: {exc}", "history_off", why)
    chats = SQLiteChats(db, mark=ProcessMark.acquire(paths.data_dir))
    if recover:
        with repair_lock(paths.data_dir) as held:
            if held:
                chats.mark_interrupted()
                sweep_dead_marks(paths.data_dir)
    return chats, None
