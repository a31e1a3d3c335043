"""Chats the database refused to save (disk full, folder turned read-only, locked too long).

When a write of session S fails for such a reason, S is copied into memory (what the database
has, plus the write that failed) and from then on S is read from and written to that copy, so
the answer the user is watching keeps growing and the agent still sees its whole history.
Every later write (of S about once a second while an answer streams, or of any other chat) and
the close retry the save: the session's rows are replaced by the copy in one transaction, and
the copy is dropped. Until then the chat can be exported from memory. ``report`` tells the
user both moments.

A write refused for a reason retrying cannot fix (a constraint, a read-only open) still raises.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable
from typing import TypeVar

from tray_app.base.errors import StoreError
from tray_app.base.messages import ToolCallRecord
from tray_app.store.db import Database
from tray_app.store.records import MemoryChats, MessageRecord, SessionRecord, session_order

log = logging.getLogger(__name__)

T = TypeVar("T")
RETRY_INTERVAL = 1.0  # seconds between retries of one session's save
Report = Callable[[str, str | None], None]
"""``report(session_id, reason)`` when a save fails; ``report(session_id, None)`` once saved."""


def retryable(exc: StoreError) -> bool:
    """A failure of the disk or of a lock, which may pass; not a refused or impossible write."""
    cause = exc.__cause__
    return isinstance(cause, sqlite3.Error) and not isinstance(cause, sqlite3.IntegrityError)


def unsaved_sentence(reason: str) -> str:
    return (
        f"This chat could not be saved: {reason} Everything shown is kept in memory and saving "
        "is retried; export the chat to keep a copy."
    )


class Unsaved:
    """The in-memory copies, by session id, and when each was last retried."""

    def __init__(self) -> None:
        self.copies: dict[str, MemoryChats] = {}
        self._tried: dict[str, float] = {}
        self.report: Report | None = None

    def get(self, session_id: str) -> MemoryChats | None:
        return self.copies.get(session_id)

    def session_of_message(self, message_id: str) -> str | None:
        for session_id, copy in self.copies.items():
            if any(m.id == message_id for m in copy.messages(session_id)):
                return session_id
        return None

    def keep(
        self,
        session_id: str,
        exc: StoreError,
        session: SessionRecord | None,
        messages: list[MessageRecord],
        calls: list[ToolCallRecord],
    ) -> MemoryChats:
        """Start keeping ``session_id`` in memory, from what the database holds."""
        copy = MemoryChats()
        if session is not None:
            copy._sessions[session_id] = session
        copy._messages[session_id] = list(messages)
        copy._calls[session_id] = {c.call_id: c for c in calls}
        self.copies[session_id] = copy
        self._tried[session_id] = time.monotonic()
        log.warning("chat %s kept in memory: %s", session_id, exc)
        if self.report is not None:
            self.report(session_id, str(exc))
        return copy

    def due(self, session_id: str, *, force: bool = False) -> bool:
        if session_id not in self.copies:
            return False
        now = time.monotonic()
        if not force and now - self._tried.get(session_id, 0.0) < RETRY_INTERVAL:
            return False
        self._tried[session_id] = now
        return True

    def saved(self, session_id: str) -> None:
        self.copies.pop(session_id, None)
        self._tried.pop(session_id, None)
        log.info("chat %s saved again", session_id)
        if self.report is not None:
            self.report(session_id, None)


class KeepsUnsaved:
    """The SQLiteChats side: route a session's writes to its copy, and retry saving it.

    A mixin so ``chats.py`` keeps to the rows; it uses only the attributes declared here.
    """

    unsaved: Unsaved
    db: Database

    def _insert_message(self, conn: sqlite3.Connection, message: MessageRecord) -> None:
        raise NotImplementedError

    def _upsert_call(self, conn: sqlite3.Connection, record: ToolCallRecord) -> None:
        raise NotImplementedError

    def _upsert_session(self, conn: sqlite3.Connection, record: SessionRecord) -> None:
        raise NotImplementedError

    def _stored(
        self, session_id: str
    ) -> tuple[SessionRecord | None, list[MessageRecord], list[ToolCallRecord]]:
        raise NotImplementedError

    def _guarded(
        self,
        session_id: str | Callable[[], str | None],
        write: Callable[[], T],
        mirror: Callable[[MemoryChats, str], T],
    ) -> T:
        """Run ``write`` on the database, or ``mirror`` on the session's in-memory copy."""
        known = session_id if isinstance(session_id, str) else None
        copy = self.unsaved.get(known) if known else None
        if known and copy is not None:
            result = mirror(copy, known)
            self.retry_save(known)
            return result
        try:
            result = write()
        except StoreError as exc:
            if not retryable(exc):
                raise
            found = known or (session_id() if callable(session_id) else None)
            if not found:
                raise
            copy = self.unsaved.get(found)
            if copy is None:
                try:
                    stored = self._stored(found)
                except StoreError:
                    raise exc from None
                copy = self.unsaved.keep(found, exc, *stored)
            return mirror(copy, found)
        for waiting in list(self.unsaved.copies):  # the disk works again: save the others too
            self.retry_save(waiting)
        return result

    def retry_save(self, session_id: str, *, force: bool = False) -> bool:
        """Try to save the session's copy now (at most once a second unless ``force``)."""
        if not self.unsaved.due(session_id, force=force):
            return session_id not in self.unsaved.copies
        copy = self.unsaved.copies[session_id]
        try:
            with self.db.transaction() as conn:
                self._replace_session(conn, session_id, copy)
        except StoreError as exc:
            log.info("chat %s still not saved: %s", session_id, exc)
            return False
        self.unsaved.saved(session_id)
        return True

    def _replace_session(
        self, conn: sqlite3.Connection, session_id: str, copy: MemoryChats
    ) -> None:
        session = copy.get_session(session_id)
        conn.execute("DELETE FROM tool_calls WHERE session_id = ?", (session_id,))
        conn.execute("DELETE FROM messages WHERE session_id = ?", (session_id,))
        if session is None:  # deleted while unsaved
            conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
            return
        self._upsert_session(conn, session)
        for message in copy.messages(session_id):
            self._insert_message(conn, message)
        for call in copy.tool_calls(session_id):
            self._upsert_call(conn, call)

    def unsaved_sessions(self) -> list[str]:
        """Sessions whose latest state is only in memory (after ``close``: lost at exit)."""
        return list(self.unsaved.copies)

    def _with_unsaved(self, stored: list[SessionRecord]) -> list[SessionRecord]:
        """Stored sessions with the in-memory copies put over them, newest first."""
        by_id = {s.id: s for s in stored}
        for session_id, copy in self.unsaved.copies.items():
            session = copy.get_session(session_id)
            if session is None:
                by_id.pop(session_id, None)
            else:
                by_id[session_id] = session
        return sorted(by_id.values(), key=session_order)
