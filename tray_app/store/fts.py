"""The full-text index of messages (FTS5, trigram tokenizer, so substrings and CJK match).

Not a migration: it depends on how the local SQLite was built. ``prepare_fts`` creates it at
open where FTS5 is available, kept in step by triggers, and rebuilds it if it was left without
triggers; where FTS5 is missing the triggers are dropped so writes never depend on it.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator

_FTS_TABLE = """
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(
    content, content='messages', content_rowid='seq', tokenize='trigram'
)
"""
_FTS_TRIGGERS = {
    "messages_fts_insert": """
        CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
            INSERT INTO messages_fts (rowid, content) VALUES (new.seq, new.content);
        END""",
    "messages_fts_delete": """
        CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
            INSERT INTO messages_fts (messages_fts, rowid, content)
            VALUES ('delete', old.seq, old.content);
        END""",
    "messages_fts_update": """
        CREATE TRIGGER messages_fts_update AFTER UPDATE OF content ON messages BEGIN
            INSERT INTO messages_fts (messages_fts, rowid, content)
            VALUES ('delete', old.seq, old.content);
            INSERT INTO messages_fts (rowid, content) VALUES (new.seq, new.content);
        END""",
}


def fts5_available(conn: sqlite3.Connection) -> bool:
    """Whether this SQLite has FTS5 with the trigram tokenizer (SQLite >= 3.34)."""
    try:
        conn.execute("CREATE VIRTUAL TABLE temp._fts_probe USING fts5(x, tokenize='trigram')")
        conn.execute("DROP TABLE temp._fts_probe")
    except sqlite3.OperationalError:
        return False
    return True


def prepare_fts(conn: sqlite3.Connection) -> bool:
    """Create or repair the full-text index; return whether it is usable."""
    available = fts5_available(conn)
    existing = {
        row[0]
        for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'messages_fts_%'"
        )
    }
    with _immediate(conn):
        if not available:
            for name in existing:  # writes must never depend on a module we lack
                conn.execute(f'DROP TRIGGER IF EXISTS "{name}"')
            return False
        missing = [name for name in _FTS_TRIGGERS if name not in existing]
        if missing:
            conn.execute(_FTS_TABLE)
            for name in missing:
                conn.execute(_FTS_TRIGGERS[name])
            # Built fresh, or left stale while triggers were missing: index every row again.
            conn.execute("INSERT INTO messages_fts (messages_fts) VALUES ('rebuild')")
    return True


@contextlib.contextmanager
def _immediate(conn: sqlite3.Connection) -> Iterator[None]:
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        conn.rollback()
        raise
    conn.commit()
