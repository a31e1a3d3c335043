"""The chat store's paged reads: the session list and a chat's messages, a page at a time.

Keyset paging (the page carries where it stopped, never an offset), one indexed ``LIMIT`` query
per page, so a page costs the same however long the list is; see docs/architecture.md, "Paged
reads". A mixin of ``SQLiteChats`` (kept apart so each module stays small); it uses only the
attributes declared below.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from tray_app.base.messages import ToolCallRecord
from tray_app.store.db import Database
from tray_app.store.records import (
    MessageRecord,
    SessionCursor,
    SessionRecord,
    after_cursor,
)
from tray_app.store.rows import (
    _CALL_COLUMNS,
    _MESSAGE_COLUMNS,
    _SESSION_COLUMNS,
    _call,
    _message,
    _session,
)
from tray_app.store.unsaved import Unsaved

# SQL built from the constant column names only, never from input.
_SELECT_SESSIONS = f"SELECT {', '.join(_SESSION_COLUMNS)} FROM sessions"  # noqa: S608
_SELECT_MESSAGES = f"SELECT {', '.join(_MESSAGE_COLUMNS)} FROM messages"  # noqa: S608
_SELECT_CALLS = f"SELECT {', '.join(_CALL_COLUMNS)} FROM tool_calls"  # noqa: S608
_SESSIONS_REMEMBERED = 4096  # rows of the session list kept validated (bounded memory)
_IDS_PER_QUERY = 500  # message ids per IN (...) list, well under SQLite's variable limit


def _fold(value: object) -> str | None:
    return value.casefold() if isinstance(value, str) else None


class PagedReads:
    db: Database
    unsaved: Unsaved

    def _with_unsaved(self, stored: list[SessionRecord]) -> list[SessionRecord]:
        raise NotImplementedError

    def prepare_reads(self) -> None:
        # Validated sessions by their whole row: a list read again validates only what changed.
        self._sessions_seen: dict[tuple[Any, ...], SessionRecord] = {}
        # Python's casefold in SQL, so a title filter matches exactly as MemoryChats does.
        self.db.conn.create_function("metona_fold", 1, _fold, deterministic=True)

    def list_sessions(
        self, query: str | None = None, limit: int = 200, before: SessionCursor | None = None
    ) -> list[SessionRecord]:
        """Newest-updated first, the id breaking ties; ``query`` filters titles
        (case-insensitive substring); ``before`` continues after that cursor. One indexed
        ``LIMIT`` query: only the rows returned are read and validated."""
        limit = max(limit, 0)
        where: list[str] = []
        params: list[object] = []
        if before is not None:
            # The first term is the index range; the second breaks the tie on the id.
            where.append("updated_at <= ? AND (updated_at < ? OR id > ?)")
            params += [before[0], before[0], before[1]]
        needle = query.casefold() if query else ""
        if needle:
            where.append("instr(metona_fold(title), ?) > 0")
            params.append(needle)
        # Sessions kept in memory (store.unsaved) replace their rows: read that many more.
        params.append(limit + len(self.unsaved.copies))
        sql = (
            _SELECT_SESSIONS
            + (" WHERE " + " AND ".join(where) if where else "")
            + " ORDER BY updated_at DESC, id LIMIT ?"
        )
        with self.db.errors("read"):
            rows = self.db.conn.execute(sql, params).fetchall()
        items = [self._session_record(row) for row in rows]
        if self.unsaved.copies:
            items = [
                s
                for s in self._with_unsaved(items)
                if after_cursor(s, before) and needle in s.title.casefold()
            ]
        return items[:limit]

    def _session_record(self, row: tuple[Any, ...]) -> SessionRecord:
        """The record of a row, validated once per distinct row (like MemoryChats, the
        records handed out are shared: callers copy before changing one)."""
        record = self._sessions_seen.get(row)
        if record is None:
            if len(self._sessions_seen) >= _SESSIONS_REMEMBERED:
                self._sessions_seen.clear()
            record = self._sessions_seen[row] = _session(row)
        return record

    def messages_page(
        self, session_id: str, *, before: str | None = None, limit: int = 50
    ) -> tuple[list[MessageRecord], bool]:
        """The last ``limit`` messages before ``before`` (keyset on ``seq``), oldest first."""
        copy = self.unsaved.get(session_id)
        if copy is not None:
            return copy.messages_page(session_id, before=before, limit=limit)
        limit = max(limit, 0)
        with self.db.errors("read"):
            end: int | None = None
            if before is not None:
                row = self.db.conn.execute(
                    "SELECT seq FROM messages WHERE id = ? AND session_id = ?",
                    (before, session_id),
                ).fetchone()
                if row is None:
                    raise KeyError(f"no message {before!r} in session {session_id!r}")
                end = int(row[0])
            rows = self.db.conn.execute(
                f"{_SELECT_MESSAGES} WHERE session_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?",
                (session_id, end if end is not None else 1 << 62, limit + 1),
            ).fetchall()
        more = len(rows) > limit
        return [_message(row) for row in reversed(rows[:limit])], more

    def tool_calls(
        self, session_id: str, message_ids: Collection[str] | None = None
    ) -> list[ToolCallRecord]:
        copy = self.unsaved.get(session_id)
        if copy is not None:
            return copy.tool_calls(session_id, message_ids)
        if message_ids is None:
            with self.db.errors("read"):
                rows = self.db.conn.execute(
                    f"{_SELECT_CALLS} WHERE session_id = ? ORDER BY seq", (session_id,)
                ).fetchall()
            return [_call(row) for row in rows]
        wanted = list(dict.fromkeys(message_ids))
        found: list[tuple[Any, ...]] = []
        with self.db.errors("read"):
            for start in range(0, len(wanted), _IDS_PER_QUERY):
                chunk = wanted[start : start + _IDS_PER_QUERY]
                marks = ", ".join("?" for _ in chunk)
                found += self.db.conn.execute(
                    f"SELECT seq, {', '.join(_CALL_COLUMNS)} FROM tool_calls "  # noqa: S608
                    f"WHERE session_id = ? AND message_id IN ({marks})",
                    (session_id, *chunk),
                ).fetchall()
        found.sort(key=lambda row: int(row[0]))
        return [_call(row[1:]) for row in found]
