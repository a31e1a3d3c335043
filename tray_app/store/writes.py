"""The SQL that writes one session, message or tool call row, inside a caller's transaction.

Kept apart from ``chats`` (the repository: routing, guarding, reads) so each module stays
small and has one job. SQL here is built from the constant column names in ``rows`` only,
never from input.
"""

from __future__ import annotations

import sqlite3

from tray_app.base.errors import StoreError
from tray_app.base.messages import ToolCallRecord
from tray_app.history_warnings import StoreProblem
from tray_app.store.db import Database
from tray_app.store.records import MessageRecord, SessionRecord
from tray_app.store.rows import (
    _CALL_COLUMNS,
    _MESSAGE_COLUMNS,
    _SESSION_COLUMNS,
    _call_value,
    _message_value,
)


def _insert_sql(table: str, columns: tuple[str, ...]) -> str:
    marks = ", ".join("?" for _ in columns)
    return f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})"  # noqa: S608


_INSERT_SESSION = _insert_sql("sessions", _SESSION_COLUMNS)
_UPSERT_SESSION = f"{_INSERT_SESSION} ON CONFLICT (id) DO UPDATE SET " + ", ".join(
    f"{c} = excluded.{c}" for c in _SESSION_COLUMNS if c != "id"
)
_INSERT_MESSAGE = _insert_sql("messages", _MESSAGE_COLUMNS)
_INSERT_OWNED_MESSAGE = _insert_sql("messages", (*_MESSAGE_COLUMNS, "owner"))
_INSERT_CALL = _insert_sql("tool_calls", _CALL_COLUMNS)
# A call's arguments are written once, when it is first stored; a status change rewrites the
# small columns only (a 256 KB argument is not serialised again at pending/running/success).
_CALL_STATE_COLUMNS = tuple(
    c for c in _CALL_COLUMNS if c not in ("session_id", "call_id", "arguments")
)
_UPDATE_CALL = (
    "UPDATE tool_calls SET "  # noqa: S608 (constant column names)
    + ", ".join(f"{c} = ?" for c in _CALL_STATE_COLUMNS)
    + " WHERE session_id = ? AND call_id = ?"
)


def has_column(db: Database, table: str, column: str) -> bool:
    """Whether an (older or newer) database has the column; ``table`` is a constant name."""
    with db.errors("read"):
        rows = db.conn.execute(f"PRAGMA table_info({table})").fetchall()
    return any(row[1] == column for row in rows)


def write_session(conn: sqlite3.Connection, record: SessionRecord) -> None:
    conn.execute(_INSERT_SESSION, tuple(getattr(record, name) for name in _SESSION_COLUMNS))


def upsert_session(conn: sqlite3.Connection, record: SessionRecord) -> None:
    conn.execute(_UPSERT_SESSION, tuple(getattr(record, name) for name in _SESSION_COLUMNS))


def insert_message(
    conn: sqlite3.Connection, message: MessageRecord, *, owned: bool, owner: str | None
) -> None:
    """Insert a message; ``owned`` (the schema has the column) stamps it with ``owner``, the
    token recovery uses to spare answers whose process still runs (``store.owners``)."""
    values = [_message_value(name, getattr(message, name)) for name in _MESSAGE_COLUMNS]
    if owned:
        values.append(owner)
    try:
        conn.execute(_INSERT_OWNED_MESSAGE if owned else _INSERT_MESSAGE, values)
    except sqlite3.IntegrityError as exc:
        said = f"Cannot save message {message.id} in session {message.session_id}: {exc}."
        raise StoreError(StoreProblem(said, "not_saved", detail=str(exc))) from exc


def upsert_call(conn: sqlite3.Connection, record: ToolCallRecord) -> None:
    """Insert or update by (session, call_id); an update keeps the stored arguments."""
    state = {name: _call_value(name, getattr(record, name)) for name in _CALL_STATE_COLUMNS}
    try:
        updated = conn.execute(_UPDATE_CALL, (*state.values(), record.session_id, record.call_id))
        if updated.rowcount:
            return
        values = [  # each value serialised once: the state is reused
            state[name] if name in state else _call_value(name, getattr(record, name))
            for name in _CALL_COLUMNS
        ]
        conn.execute(_INSERT_CALL, values)
    except sqlite3.IntegrityError as exc:
        said = f"Cannot save tool call {record.call_id} in session {record.session_id}: {exc}."
        raise StoreError(StoreProblem(said, "not_saved", detail=str(exc))) from exc
