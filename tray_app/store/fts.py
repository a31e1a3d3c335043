"""The full-text index of messages (FTS5, trigram tokenizer, so substrings and CJK match).

Not a migration: it depends on how the local SQLite was built. ``prepare_fts`` creates it at
open where FTS5 is available, kept in step by triggers, and rebuilds it if it was left without
triggers; where FTS5 is missing the triggers are dropped so writes never depend on it.

Only finished messages are indexed: an answer is saved every second while it streams (its
``stats`` say ``"streaming"``), and re-indexing the whole answer at each save cost ~100 ms at
1 MB. The triggers index a message when it stops streaming (finished, stopped, failed or
repaired at start), so a save costs the same whatever the answer's length. The invariant the
external-content table needs (the index holds exactly the content of the non-streaming rows)
is kept by deleting only what was indexed.
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
_STREAMING = "{row}.stats LIKE '%\"streaming\"%'"
_INDEX_NEW = (
    "INSERT INTO messages_fts (rowid, content) SELECT new.seq, new.content "
    f"WHERE NOT ({_STREAMING.format(row='new')});"
)
_UNINDEX_OLD = (
    "INSERT INTO messages_fts (messages_fts, rowid, content) "
    f"SELECT 'delete', old.seq, old.content WHERE NOT ({_STREAMING.format(row='old')});"
)
# Versioned names: a file whose triggers have another name gets these and a rebuild.
_FTS_TRIGGERS = {
    "messages_fts_insert_v2": f"""
        CREATE TRIGGER messages_fts_insert_v2 AFTER INSERT ON messages BEGIN
            {_INDEX_NEW}
        END""",
    "messages_fts_delete_v2": f"""
        CREATE TRIGGER messages_fts_delete_v2 AFTER DELETE ON messages BEGIN
            {_UNINDEX_OLD}
        END""",
    "messages_fts_update_v2": f"""
        CREATE TRIGGER messages_fts_update_v2 AFTER UPDATE OF content, stats ON messages BEGIN
            {_UNINDEX_OLD}
            {_INDEX_NEW}
        END""",
}
# After a rebuild (which indexes every row) the streaming ones are taken out again.
_STREAMING_ROWS = _STREAMING.format(row="messages")
_UNINDEX_STREAMING = f"INSERT INTO messages_fts (messages_fts, rowid, content) SELECT 'delete', seq, content FROM messages WHERE {_STREAMING_ROWS}"  # noqa: S608, E501 (constant SQL)


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
            for name in existing - set(_FTS_TRIGGERS):  # an older version's triggers
                conn.execute(f'DROP TRIGGER IF EXISTS "{name}"')
            conn.execute(_FTS_TABLE)
            for name in missing:
                conn.execute(_FTS_TRIGGERS[name])
            # Built fresh, or left stale while triggers were missing: index every row again.
            conn.execute("INSERT INTO messages_fts (messages_fts) VALUES ('rebuild')")
            conn.execute(_UNINDEX_STREAMING)
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
