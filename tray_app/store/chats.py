"""Sessions, messages and tool calls in SQLite: the ChatRepository that survives restarts.

Semantics follow ``MemoryChats`` exactly (the shared tests run both), except that the database
refuses a message for a session that does not exist. Every write is its own short transaction,
committed at once, so a process killed at any moment loses at most the write in flight.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Collection
from typing import Any

from tray_app.base.errors import StoreError
from tray_app.base.messages import ToolCallRecord
from tray_app.store.db import Database
from tray_app.store.owners import OwnerCheck, ProcessMark
from tray_app.store.paged import _IDS_PER_QUERY, _SELECT_MESSAGES, _SELECT_SESSIONS, PagedReads
from tray_app.store.records import (
    PROMPT_SHOWN,
    ChatRepository,
    MemoryChats,
    MessageRecord,
    SessionRecord,
)
from tray_app.store.recovery import INTERRUPTED_CANDIDATES, recover_session
from tray_app.store.rows import (
    _call_update,
    _message,
    _message_value,
    _reject_unknown,
    _session,
    _with_new_ids,
)
from tray_app.store.search import SearchHit, search_database, search_repository
from tray_app.store.unsaved import KeepsUnsaved, Unsaved
from tray_app.store.writes import (
    has_column,
    insert_message,
    upsert_call,
    upsert_session,
    write_session,
)

log = logging.getLogger(__name__)


class SQLiteChats(KeepsUnsaved, PagedReads):
    """ChatRepository over a ``Database``; owned by the core thread like its connection.

    A session whose save fails for a reason that may pass (disk full, read-only, locked) is
    kept and served from memory until a retry saves it (``store.unsaved``).
    """

    def __init__(self, db: Database, *, mark: ProcessMark | None = None) -> None:
        self.db = db
        self.unsaved = Unsaved()
        self.mark = mark  # this process's owner lock; its token goes into the answers it starts
        self._owned_messages = not db.read_only and has_column(db, "messages", "owner")
        self.prepare_reads()

    # ---- sessions ---------------------------------------------------------------------------

    def create_session(
        self, *, model: str, workspace: str | None, title: str = ""
    ) -> SessionRecord:
        record = SessionRecord(model=model, workspace=workspace, title=title)

        def mirror(copy: MemoryChats, session_id: str) -> None:
            copy._sessions[session_id] = record

        self._guarded(record.id, lambda: self._insert_session(record), mirror)
        return record

    def get_session(self, session_id: str) -> SessionRecord | None:
        copy = self.unsaved.get(session_id)
        if copy is not None:
            return copy.get_session(session_id)
        with self.db.errors("read"):
            row = self.db.conn.execute(f"{_SELECT_SESSIONS} WHERE id = ?", (session_id,)).fetchone()
        return None if row is None else _session(row)

    def update_session(self, session_id: str, **fields: Any) -> SessionRecord:
        """Change some fields and bump ``updated_at``; KeyError for an unknown session."""
        current = self.get_session(session_id)
        if current is None:
            raise KeyError(session_id)
        _reject_unknown(fields, SessionRecord.model_fields, "session", frozen={"id"})
        data = {**current.model_dump(), **fields, "updated_at": time.time()}
        updated = SessionRecord.model_validate(data)

        def write() -> None:
            with self.db.transaction() as conn:
                self._upsert_session(conn, updated)

        def mirror(copy: MemoryChats, _: str) -> None:
            copy._sessions[session_id] = updated

        self._guarded(session_id, write, mirror)
        return updated

    def rename_session(self, session_id: str, title: str) -> SessionRecord:
        return self.update_session(session_id, title=" ".join(title.split()))

    def delete_session(self, session_id: str) -> None:
        def write() -> None:
            with self.db.transaction() as conn:
                conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,))  # cascades

        self._guarded(session_id, write, lambda copy, _: copy.delete_session(session_id))

    # ---- messages ---------------------------------------------------------------------------

    def add_message(self, message: MessageRecord) -> None:
        def write() -> None:
            with self.db.transaction() as conn:
                self._insert_message(conn, message)

        self._guarded(message.session_id, write, lambda copy, _: copy.add_message(message))

    def update_message(self, message_id: str, **fields: Any) -> None:
        """Partial update of the given fields; an unknown message id is ignored."""
        if not fields:
            return
        _reject_unknown(fields, MessageRecord.model_fields, "message", frozen={"id", "session_id"})
        if fields.keys() <= _TEXT_FIELDS and all(type(v) is str for v in fields.values()):
            given = dict(fields)  # a streaming save: plain text needs no validation (1 MB: ~0.5 ms)
        else:  # validate only the given fields, with placeholders for the required ones
            checked = MessageRecord.model_validate({"session_id": "", "role": "user", **fields})
            given = {name: getattr(checked, name) for name in fields}
        columns = list(fields)  # checked against the record's field names above
        values = [_message_value(name, given[name]) for name in columns]
        assignments = ", ".join(f"{name} = ?" for name in columns)
        sql = f"UPDATE messages SET {assignments} WHERE id = ?"  # noqa: S608

        def write() -> None:
            with self.db.transaction() as conn:
                conn.execute(sql, (*values, message_id))

        def mirror(copy: MemoryChats, _: str) -> None:
            copy.update_message(message_id, **given)

        self._guarded(
            self.unsaved.session_of_message(message_id) or (lambda: self._session_of(message_id)),
            write,
            mirror,
        )

    def delete_messages_from(self, session_id: str, message_id: str) -> None:
        """Remove a message and everything after it, with the tool calls of those messages."""
        self._guarded(
            session_id,
            lambda: self._delete_messages_from(session_id, message_id),
            lambda copy, _: copy.delete_messages_from(session_id, message_id),
        )

    def _delete_messages_from(self, session_id: str, message_id: str) -> None:
        with self.db.transaction() as conn:
            row = conn.execute(
                "SELECT seq FROM messages WHERE id = ? AND session_id = ?",
                (message_id, session_id),
            ).fetchone()
            if row is None:
                return
            conn.execute(
                "DELETE FROM tool_calls WHERE session_id = ? AND message_id IN "
                "(SELECT id FROM messages WHERE session_id = ? AND seq >= ?)",
                (session_id, session_id, row[0]),
            )
            conn.execute(
                "DELETE FROM messages WHERE session_id = ? AND seq >= ?", (session_id, row[0])
            )

    def messages(self, session_id: str) -> list[MessageRecord]:
        copy = self.unsaved.get(session_id)
        if copy is not None:
            return copy.messages(session_id)
        with self.db.errors("read"):
            rows = self.db.conn.execute(
                f"{_SELECT_MESSAGES} WHERE session_id = ? ORDER BY seq", (session_id,)
            ).fetchall()
        return [_message(row) for row in rows]

    # ---- tool calls -------------------------------------------------------------------------

    def upsert_tool_call(self, record: ToolCallRecord) -> None:
        """Insert or replace by (session, call_id); a replaced call keeps its place and the
        arguments it was first stored with."""

        def write() -> None:
            with self.db.transaction() as conn:
                self._upsert_call(conn, record)

        self._guarded(record.session_id, write, lambda copy, _: copy.upsert_tool_call(record))

    def update_tool_call(self, session_id: str, call_id: str, /, **fields: Any) -> None:
        if not fields:
            return
        sql, values, checked = _call_update(session_id, call_id, fields)

        def write() -> None:
            with self.db.transaction() as conn:
                conn.execute(sql, values)

        def mirror(copy: MemoryChats, _: str) -> None:
            copy.update_tool_call(session_id, call_id, **checked)

        self._guarded(session_id, write, mirror)

    # ---- beyond the protocol ----------------------------------------------------------------

    def call_origins(self, call_ids: Collection[str]) -> dict[str, dict[str, str | None]]:
        """Chat, title, turn and the turn's question (its start) of each stored tool call, for
        the change history's grouping."""
        wanted = list(dict.fromkeys(call_ids))
        found: dict[str, dict[str, str | None]] = {}
        with self.db.errors("read"):
            for start in range(0, len(wanted), _IDS_PER_QUERY):
                chunk = wanted[start : start + _IDS_PER_QUERY]
                marks = ", ".join("?" for _ in chunk)
                rows = self.db.conn.execute(
                    "SELECT c.call_id, c.session_id, m.turn_id, s.title FROM tool_calls c "  # noqa: S608
                    "LEFT JOIN messages m ON m.id = c.message_id "
                    f"LEFT JOIN sessions s ON s.id = c.session_id WHERE c.call_id IN ({marks})",
                    chunk,
                ).fetchall()
                for call_id, session_id, turn_id, title in rows:
                    found[str(call_id)] = {
                        "session_id": session_id,
                        "turn_id": turn_id,
                        "session_title": title,
                    }
            prompts: dict[tuple[str, str], str | None] = {}
            for origin in found.values():
                key = (str(origin["session_id"]), str(origin["turn_id"]))
                if origin["turn_id"] is not None and key not in prompts:
                    row = self.db.conn.execute(
                        "SELECT substr(content, 1, ?) FROM messages WHERE session_id = ?"
                        " AND turn_id = ? AND role = 'user' ORDER BY seq LIMIT 1",
                        (PROMPT_SHOWN, *key),
                    ).fetchone()
                    prompts[key] = row[0] if row else None
                origin["turn_prompt"] = prompts.get(key)
        for copy in self.unsaved.copies.values():  # chats the disk did not take (newer)
            found.update(copy.call_origins(wanted))
        return found

    def search(self, query: str, *, limit: int = 50) -> list[SearchHit]:
        """Sessions whose title or a user/assistant message contains every word of ``query``."""
        with self.db.errors("search"):
            return search_database(self.db.conn, query, fts=self.db.fts, limit=limit)

    def export_markdown(self, session_id: str) -> str:
        from tray_app.store import export as export_mod  # on first use: most runs never export

        return export_mod.export_markdown(self, session_id)

    def export_json(self, session_id: str) -> dict[str, Any]:
        from tray_app.store import export as export_mod

        return export_mod.export_json(self, session_id)

    def import_json(self, data: object) -> SessionRecord:
        """Add an exported session; ids already in use are replaced by new ones."""
        from tray_app.store import export as export_mod

        session, messages, calls = export_mod.parse_export(data)
        with self.db.transaction() as conn:
            taken = conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session.id,)).fetchone()
            for message in messages:
                if taken:
                    break
                taken = conn.execute(
                    "SELECT 1 FROM messages WHERE id = ?", (message.id,)
                ).fetchone()
            if taken:
                session, messages, calls = _with_new_ids(session, messages, calls)
            self._write_session(conn, session)
            for message in messages:
                self._insert_message(conn, message)
            for call in calls:
                self._upsert_call(conn, call)
        return session

    def mark_interrupted(self) -> int:
        """At start: show what a killed run left as stopped/cancelled (``store.recovery``).

        Returns how many records were changed or added. Call it only from the process that
        owns the history: a second process would mark the first one's live answer.
        """
        if self.db.read_only:
            return 0
        try:
            with self.db.errors("read"):
                rows = self.db.conn.execute(INTERRUPTED_CANDIDATES).fetchall()
            live = self.live_answers()
            repaired = sum(recover_session(self, row[0], live=live) for row in rows)
        except StoreError as exc:
            log.warning("could not mark interrupted answers: %s", exc)
            return 0
        if repaired:
            log.info("marked %d records left by an interrupted run", repaired)
        return repaired

    def live_answers(self) -> set[str]:
        """Ids of unfinished assistant messages whose process still runs (``store.owners``)."""
        if not has_column(self.db, "messages", "owner"):
            return set()
        with self.db.errors("read"):
            rows = self.db.conn.execute(
                "SELECT id, owner FROM messages WHERE role = 'assistant' AND stopped = 0 "
                "AND owner IS NOT NULL"
            ).fetchall()
        check = OwnerCheck(self.db.path.parent, mine=self.mark.token if self.mark else None)
        return {row[0] for row in rows if check.alive(row[1])}

    def close(self) -> None:
        for session_id in self.unsaved_sessions():
            if not self.retry_save(session_id, force=True):
                log.error("chat %s could not be saved before closing", session_id)
        self.db.close()
        if self.mark is not None:
            self.mark.release()

    # ---- rows -------------------------------------------------------------------------------

    def _insert_session(self, record: SessionRecord) -> None:
        with self.db.transaction() as conn:
            self._write_session(conn, record)

    def _session_of(self, message_id: str) -> str | None:
        with self.db.errors("read"):
            row = self.db.conn.execute(
                "SELECT session_id FROM messages WHERE id = ?", (message_id,)
            ).fetchone()
        return None if row is None else str(row[0])

    def _stored(
        self, session_id: str
    ) -> tuple[SessionRecord | None, list[MessageRecord], list[ToolCallRecord]]:
        return self.get_session(session_id), self.messages(session_id), self.tool_calls(session_id)

    def _upsert_session(self, conn: sqlite3.Connection, record: SessionRecord) -> None:
        upsert_session(conn, record)

    @staticmethod
    def _write_session(conn: sqlite3.Connection, record: SessionRecord) -> None:
        write_session(conn, record)

    def _insert_message(self, conn: sqlite3.Connection, message: MessageRecord) -> None:
        owner = self.mark.token if self.mark is not None else None
        insert_message(conn, message, owned=self._owned_messages, owner=owner)

    @staticmethod
    def _upsert_call(conn: sqlite3.Connection, record: ToolCallRecord) -> None:
        upsert_call(conn, record)


_TEXT_FIELDS = frozenset({"content", "thinking"})


def search_chats(repo: ChatRepository, query: str, *, limit: int = 50) -> list[SearchHit]:
    """Search whichever store the app has (SQLite, or memory when history is off)."""
    if isinstance(repo, SQLiteChats):
        return repo.search(query, limit=limit)
    return search_repository(repo, query, limit=limit)
