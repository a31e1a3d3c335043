"""The chat database's schema, step by step, and how a file is brought up to date.

``MIGRATIONS[i]`` is the SQL script that takes the schema from version ``i`` to ``i + 1``; the
version is ``PRAGMA user_version``, each applied step is also recorded in
``schema_migrations``. All pending steps run in one ``BEGIN IMMEDIATE`` transaction, so a
failed step leaves the file as it was (``store.db`` opens the file and calls ``migrate``).
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path

from tray_app.base.errors import StoreError
from tray_app.history_warnings import StoreProblem

log = logging.getLogger(__name__)

SCHEMA_V1 = """
CREATE TABLE sessions (
    id          TEXT PRIMARY KEY,
    title       TEXT NOT NULL DEFAULT '',
    model       TEXT NOT NULL DEFAULT '',
    workspace   TEXT,
    created_at  REAL NOT NULL,
    updated_at  REAL NOT NULL
);
CREATE INDEX sessions_by_updated ON sessions (updated_at DESC);

CREATE TABLE messages (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,  -- insertion order
    id            TEXT NOT NULL UNIQUE,
    session_id    TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    turn_id       TEXT,
    role          TEXT NOT NULL,
    content       TEXT NOT NULL DEFAULT '',
    thinking      TEXT NOT NULL DEFAULT '',
    images        TEXT NOT NULL DEFAULT '[]',  -- JSON list of base64 strings
    tool_calls    TEXT NOT NULL DEFAULT '[]',  -- JSON list of ToolCall (what the model asked)
    tool_name     TEXT,
    tool_call_id  TEXT,
    model         TEXT,
    created_at    REAL NOT NULL,
    stats         TEXT NOT NULL DEFAULT '{}',  -- JSON; {"streaming": true} while streaming
    stopped       INTEGER NOT NULL DEFAULT 0,
    error         TEXT
);
CREATE INDEX messages_by_session ON messages (session_id, seq);

CREATE TABLE tool_calls (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,  -- insertion order
    session_id   TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    call_id      TEXT NOT NULL,
    message_id   TEXT NOT NULL,  -- no foreign key: a record must never be refused
    provider_id  TEXT,
    name         TEXT NOT NULL,
    arguments    TEXT NOT NULL DEFAULT '{}',
    risk         TEXT,
    preview      TEXT,
    status       TEXT NOT NULL,
    decision     TEXT,
    decided_by   TEXT,
    result       TEXT,
    duration_ms  REAL,
    created_at   REAL NOT NULL,
    undoable     INTEGER NOT NULL DEFAULT 0,
    UNIQUE (session_id, call_id)
);
CREATE INDEX tool_calls_by_message ON tool_calls (message_id);
"""

SCHEMA_V2 = """
-- The process that started an answer (store.owners): the repair at start leaves the answers
-- of a process that still runs alone.
ALTER TABLE messages ADD COLUMN owner TEXT;
"""

SCHEMA_V3 = """
-- Keyset paging of the session list: newest-updated first, the id breaks ties.
CREATE INDEX sessions_by_updated_id ON sessions (updated_at DESC, id);
-- The repair at start (store.recovery) finds unfinished rows through these small partial
-- indexes instead of scanning every message and call.
CREATE INDEX messages_streaming ON messages (session_id)
    WHERE role = 'assistant' AND stopped = 0 AND stats LIKE '%"streaming"%';
CREATE INDEX tool_calls_unfinished ON tool_calls (session_id)
    WHERE status IN ('pending', 'running');
"""

MIGRATIONS: tuple[str, ...] = (SCHEMA_V1, SCHEMA_V2, SCHEMA_V3)
"""Append only. Never edit a released entry: old files were built by it."""


def check_version(conn: sqlite3.Connection, path: Path, known: int) -> None:
    """Refuse a file written by a newer app before writing a single byte to it."""
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if version > known:
        raise StoreError(
            StoreProblem(
                f"The chat history {path} was written by a newer version of Metona Tray "
                f"(schema {version}; this version knows up to {known}). It was left as it is; "
                "update the app to see it.",
                "newer",
                path=path,
                version=version,
                known=known,
            )
        )


def migrate(conn: sqlite3.Connection, path: Path, migrations: Sequence[str]) -> None:
    # BEGIN IMMEDIATE even when nothing is pending: another program holding the write lock
    # is reported now, clearly, rather than on the first message.
    conn.execute("BEGIN IMMEDIATE")
    try:
        check_version(conn, path, len(migrations))  # another process may have migrated
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations "
            "(version INTEGER PRIMARY KEY, applied_at REAL NOT NULL)"
        )
        current = int(conn.execute("PRAGMA user_version").fetchone()[0])
        for version in range(current + 1, len(migrations) + 1):
            for statement in split_statements(migrations[version - 1]):
                conn.execute(statement)
            conn.execute(
                "INSERT OR REPLACE INTO schema_migrations (version, applied_at) VALUES (?, ?)",
                (version, time.time()),
            )
            conn.execute(f"PRAGMA user_version = {int(version)}")
            log.info("chat history %s: migrated to schema %d", path, version)
    except BaseException:
        conn.rollback()
        raise
    conn.commit()


def split_statements(script: str) -> list[str]:
    """Split a script into statements (executescript would commit our transaction)."""
    statements: list[str] = []
    pending = ""
    pieces = script.split(";")
    for index, piece in enumerate(pieces):
        pending += piece if index == len(pieces) - 1 else piece + ";"
        if sqlite3.complete_statement(pending):
            if not _blank(pending):
                statements.append(pending.strip())
            pending = ""
    if not _blank(pending):
        raise ValueError(f"incomplete SQL statement in migration: {pending.strip()[:60]!r}")
    return statements


def _blank(sql: str) -> bool:
    """Only whitespace, semicolons and ``--`` comments."""
    code = "".join(line.split("--", 1)[0] for line in sql.splitlines())
    return not code.strip(" \t\r\n;")
