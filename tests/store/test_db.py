"""Opening the chat database: migrations, refusals that leave the file alone, locks."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import time
from pathlib import Path

import pytest

from tray_app.base.errors import StoreError
from tray_app.base.paths import AppPaths
from tray_app.store.chats import SQLiteChats
from tray_app.store.db import open_database
from tray_app.store.migrations import MIGRATIONS, split_statements
from tray_app.store.opening import open_chat_store
from tray_app.store.records import MemoryChats, MessageRecord

# Released migrations are never edited: old files were built by them.
SCHEMA_V1_SHA256 = "8b56dc542c817ff847f0e226c0b0cf1e04869f3e887a80eb869723d905d58eeb"

V2_FOR_TEST = """
ALTER TABLE sessions ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;
CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL);
"""


def raw(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path, isolation_level=None)


def test_schema_v1_is_frozen() -> None:
    assert hashlib.sha256(MIGRATIONS[0].encode()).hexdigest() == SCHEMA_V1_SHA256


def test_a_new_database_gets_every_migration_wal_and_foreign_keys(app_paths: AppPaths) -> None:
    db = open_database(app_paths.database_file)
    try:
        assert db.schema_version == len(MIGRATIONS)
        versions = [r[0] for r in db.conn.execute("SELECT version FROM schema_migrations")]
        assert versions == list(range(1, len(MIGRATIONS) + 1))
        assert db.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        # NORMAL: kept across a kill or crash (test_crash.py), one fsync per checkpoint (README)
        assert db.conn.execute("PRAGMA synchronous").fetchone()[0] == 1
        assert db.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        tables = {r[0] for r in db.conn.execute("SELECT name FROM sqlite_master")}
        assert {"sessions", "messages", "tool_calls", "messages_fts"} <= tables
        assert db.fts
    finally:
        db.close()


def test_reopening_is_idempotent_and_keeps_data(app_paths: AppPaths) -> None:
    chats = SQLiteChats(open_database(app_paths.database_file))
    session = chats.create_session(model="m", workspace=None, title="kept")
    chats.close()
    for _ in range(2):
        db = open_database(app_paths.database_file)
        rows = db.conn.execute("SELECT version FROM schema_migrations").fetchall()
        assert db.schema_version == len(MIGRATIONS) and len(rows) == len(MIGRATIONS)
        assert SQLiteChats(db).get_session(session.id) == session
        db.close()


def test_an_old_database_is_migrated_forward_with_its_data(app_paths: AppPaths) -> None:
    path = app_paths.database_file
    chats = SQLiteChats(open_database(path, migrations=MIGRATIONS[:1]))
    session = chats.create_session(model="m", workspace=None, title="from v1")
    chats.add_message(MessageRecord(session_id=session.id, role="user", content="old words"))
    chats.close()

    db = open_database(path, migrations=(*MIGRATIONS, V2_FOR_TEST))
    try:
        assert db.schema_version == len(MIGRATIONS) + 1
        versions = [r[0] for r in db.conn.execute("SELECT version FROM schema_migrations")]
        assert versions == list(range(1, len(MIGRATIONS) + 2))
        assert db.conn.execute("SELECT title, pinned FROM sessions").fetchall() == [("from v1", 0)]
        assert [h["session_id"] for h in SQLiteChats(db).search("old words")] == [session.id]
    finally:
        db.close()


def test_a_failing_migration_changes_nothing(app_paths: AppPaths) -> None:
    path = app_paths.database_file
    open_database(path).close()
    broken = "CREATE TABLE half_done (a);\nINSERT INTO no_such_table VALUES (1);"
    with pytest.raises(StoreError, match="no such table"):
        open_database(path, migrations=(*MIGRATIONS, broken))
    with raw(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert "half_done" not in names


def test_a_newer_database_is_refused_and_left_byte_for_byte(app_paths: AppPaths) -> None:
    path = app_paths.database_file
    open_database(path).close()
    with raw(path) as conn:
        conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 5}")
    conn.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match="newer version of Metona Tray"):
        open_database(path)
    assert path.read_bytes() == before
    chats, warning = open_chat_store(app_paths)
    assert isinstance(chats, MemoryChats)
    assert warning is not None and warning.startswith("History is off: ")
    assert "newer version" in warning
    assert path.read_bytes() == before


def test_a_file_that_is_not_a_database_is_refused_and_left_alone(app_paths: AppPaths) -> None:
    path = app_paths.database_file
    garbage = os.urandom(8192)
    path.write_bytes(garbage)
    with pytest.raises(StoreError, match="damaged or is not a database"):
        open_database(path)
    chats, warning = open_chat_store(app_paths)
    assert isinstance(chats, MemoryChats) and warning and "damaged" in warning
    assert path.read_bytes() == garbage


def test_a_data_folder_that_cannot_exist_is_a_store_error(app_paths: AppPaths) -> None:
    blocker = app_paths.data_dir / "file"
    blocker.write_text("x")
    with pytest.raises(StoreError, match="Cannot create the folder"):
        open_database(blocker / "chats.sqlite3")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads anything")
def test_an_unreadable_database_is_refused(app_paths: AppPaths) -> None:
    path = app_paths.database_file
    open_database(path).close()
    path.chmod(0)
    try:
        with pytest.raises(StoreError):
            open_database(path)
    finally:
        path.chmod(0o600)


@pytest.mark.parametrize("how", ["write-lock", "exclusive-mode"])
def test_a_locked_database_fails_within_the_busy_timeout(app_paths: AppPaths, how: str) -> None:
    path = app_paths.database_file
    open_database(path).close()
    holder = raw(path)
    if how == "exclusive-mode":
        holder.execute("PRAGMA locking_mode = EXCLUSIVE")
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("INSERT INTO schema_migrations VALUES (999, 0)")
    try:
        started = time.monotonic()
        with pytest.raises(StoreError, match="locked by another program"):
            open_database(path, busy_timeout=0.3)
        # It waited for the lock before giving up (a lower bound only: no claim on speed).
        assert time.monotonic() - started >= 0.25
        chats, warning = open_chat_store(app_paths, busy_timeout=0.1)
        assert isinstance(chats, MemoryChats) and warning and "locked" in warning
    finally:
        holder.rollback()
        holder.close()
    open_database(path, busy_timeout=0.3).close()  # usable again once released


def test_a_lock_taken_after_open_keeps_writes_until_it_is_gone(sqlite_chats: SQLiteChats) -> None:
    session = sqlite_chats.create_session(model="m", workspace=None)
    sqlite_chats.db.conn.execute("PRAGMA busy_timeout = 200")
    holder = raw(sqlite_chats.db.path)
    holder.execute("BEGIN IMMEDIATE")
    try:
        sqlite_chats.add_message(MessageRecord(session_id=session.id, role="user", content="1"))
        assert sqlite_chats.unsaved_sessions() == [session.id]  # kept (store/unsaved.py)
    finally:
        holder.rollback()
        holder.close()
    sqlite_chats.retry_save(session.id, force=True)
    sqlite_chats.add_message(MessageRecord(session_id=session.id, role="user", content="ok"))
    assert [m.content for m in sqlite_chats.messages(session.id)] == ["1", "ok"]
    assert sqlite_chats.unsaved_sessions() == []
    with raw(sqlite_chats.db.path) as conn:
        assert [r[0] for r in conn.execute("SELECT content FROM messages")] == ["1", "ok"]


def test_open_chat_store_gives_the_sqlite_store(app_paths: AppPaths) -> None:
    chats, warning = open_chat_store(app_paths)
    try:
        assert isinstance(chats, SQLiteChats) and warning is None
        assert app_paths.database_file.exists()
    finally:
        chats.close()


def test_split_statements_keeps_triggers_and_strings_whole() -> None:
    script = """
    CREATE TABLE a (x TEXT DEFAULT 'semi;colon');
    CREATE TRIGGER t AFTER INSERT ON a BEGIN
        INSERT INTO a VALUES ('one;'); DELETE FROM a WHERE x = ';';
    END;
    -- a comment; with a semicolon
    """
    statements = split_statements(script)
    assert len(statements) == 2
    assert statements[1].startswith("CREATE TRIGGER") and statements[1].endswith("END;")
    with pytest.raises(ValueError, match="incomplete"):
        split_statements("CREATE TABLE b (x")


def _many_messages(path: Path) -> None:
    chats = SQLiteChats(open_database(path))
    session = chats.create_session(model="m", workspace=None, title="长 chat")
    for i in range(200):
        text = f"第{i}条 ⚠️ \u202eevil\u202c " + "词" * 300
        chats.add_message(MessageRecord(session_id=session.id, role="user", content=text))
    chats.close()


@pytest.mark.parametrize("where", ["second", "middle", "last"])
def test_one_damaged_page_is_found_at_open_and_the_file_is_left_alone(
    app_paths: AppPaths, where: str
) -> None:
    path = app_paths.database_file
    _many_messages(path)
    pages = path.stat().st_size // 4096
    page = {"second": 2, "middle": pages // 2, "last": pages}[where]
    data = bytearray(path.read_bytes())
    data[(page - 1) * 4096 : page * 4096] = os.urandom(4096)
    path.write_bytes(bytes(data))
    before = sorted(p.name for p in path.parent.iterdir())
    with pytest.raises(StoreError, match="damaged") as caught:
        open_database(path)
    assert "\n" not in str(caught.value)  # one line for the user
    chats, warning = open_chat_store(app_paths)
    assert isinstance(chats, MemoryChats) and warning and "damaged" in warning
    assert path.read_bytes() == bytes(data)  # byte for byte
    assert sorted(p.name for p in path.parent.iterdir()) == before  # no -wal/-shm left


def test_a_read_only_open_reads_and_refuses_writes(app_paths: AppPaths) -> None:
    path = app_paths.database_file
    _many_messages(path)
    db = open_database(path, read_only=True)
    chats = SQLiteChats(db)
    try:
        [session] = chats.list_sessions()
        assert len(chats.messages(session.id)) == 200
        with pytest.raises(StoreError, match="read-only"):
            chats.create_session(model="m", workspace=None)
        assert chats.mark_interrupted() == 0
    finally:
        chats.close()
