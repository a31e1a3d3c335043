"""A save that fails (here: another program holds the write lock) keeps the chat in memory.

Reads see everything written; every later write retries; once the lock is gone the whole
session lands in the file, and the viewers are told both moments.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from tray_app.base.errors import StoreError
from tray_app.base.messages import ToolCallRecord
from tray_app.store import unsaved
from tray_app.store.chats import SQLiteChats
from tray_app.store.db import open_database
from tray_app.store.records import MessageRecord

TEXT = "流式回答 🌊 \u202eRTL\u202c "


class Holder:
    """Another connection holding the write lock until ``release``."""

    def __init__(self, path: Path) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.conn.execute("BEGIN IMMEDIATE")

    def release(self) -> None:
        self.conn.rollback()
        self.conn.close()


@pytest.fixture
def chats(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SQLiteChats]:
    monkeypatch.setattr(unsaved, "RETRY_INTERVAL", 0.0)  # retry on every write
    store = SQLiteChats(open_database(tmp_path / "chats.sqlite3", busy_timeout=0.05))
    yield store
    store.close()


def stored(path: Path, sql: str) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def test_a_refused_save_is_kept_read_back_and_saved_once_possible(chats: SQLiteChats) -> None:
    reports: list[tuple[str, str | None]] = []
    chats.unsaved.report = lambda sid, problem: reports.append((sid, problem))
    session = chats.create_session(model="m", workspace=None, title="t")
    chats.add_message(MessageRecord(session_id=session.id, role="user", content="问"))
    answer = MessageRecord(session_id=session.id, role="assistant", stats={"streaming": True})
    chats.add_message(answer)

    holder = Holder(chats.db.path)
    try:
        chats.update_message(answer.id, content=TEXT)  # refused: locked
        chats.update_message(answer.id, content=TEXT * 2)
        call = ToolCallRecord(call_id="c1", session_id=session.id, message_id=answer.id, name="x")
        chats.upsert_tool_call(call)
        chats.update_session(session.id, title="新标题")
        assert [m.content for m in chats.messages(session.id)] == ["问", TEXT * 2]
        assert [c.call_id for c in chats.tool_calls(session.id)] == ["c1"]
        assert chats.get_session(session.id).title == "新标题"  # type: ignore[union-attr]
        assert [s.title for s in chats.list_sessions()] == ["新标题"]
        assert chats.unsaved_sessions() == [session.id]
        [(sid, reason)] = reports
        assert sid == session.id and reason and "locked by another program" in reason
        assert stored(chats.db.path, "SELECT content FROM messages") == [("问",), ("",)]
    finally:
        holder.release()

    chats.update_message(answer.id, content=TEXT * 3, stats={})  # retried: all of it lands
    assert chats.unsaved_sessions() == []
    assert reports[-1] == (session.id, None)
    assert stored(chats.db.path, "SELECT content FROM messages ORDER BY seq") == [
        ("问",),
        (TEXT * 3,),
    ]
    assert stored(chats.db.path, "SELECT title FROM sessions") == [("新标题",)]
    assert stored(chats.db.path, "SELECT call_id FROM tool_calls") == [("c1",)]
    assert [h["session_id"] for h in chats.search("RTL")] == [session.id]  # index kept in step


def test_close_retries_and_a_session_still_unsaved_is_named(tmp_path: Path) -> None:
    chats = SQLiteChats(open_database(tmp_path / "chats.sqlite3", busy_timeout=0.05))
    session = chats.create_session(model="m", workspace=None)
    holder = Holder(chats.db.path)
    chats.add_message(MessageRecord(session_id=session.id, role="user", content=TEXT))
    chats.close()  # still locked: the close cannot save it either
    assert chats.unsaved_sessions() == [session.id]
    holder.release()

    again = SQLiteChats(open_database(tmp_path / "chats.sqlite3", busy_timeout=0.05))
    holder = Holder(again.db.path)
    try:
        again.add_message(MessageRecord(session_id=session.id, role="user", content="later"))
    finally:
        holder.release()
    again.close()  # the lock is gone: the close saves it
    assert again.unsaved_sessions() == []
    assert stored(tmp_path / "chats.sqlite3", "SELECT content FROM messages") == [("later",)]


def test_a_session_created_while_locked_is_kept_and_saved(chats: SQLiteChats) -> None:
    holder = Holder(chats.db.path)
    try:
        session = chats.create_session(model="m", workspace=None, title="新")
        chats.add_message(MessageRecord(session_id=session.id, role="user", content="a"))
        assert chats.get_session(session.id) is not None
    finally:
        holder.release()
    chats.add_message(MessageRecord(session_id=session.id, role="user", content="b"))
    assert stored(chats.db.path, "SELECT title FROM sessions") == [("新",)]
    assert [m.content for m in chats.messages(session.id)] == ["a", "b"]


def test_a_refused_write_that_retrying_cannot_fix_still_raises(chats: SQLiteChats) -> None:
    with pytest.raises(StoreError, match="Cannot save message"):
        chats.add_message(MessageRecord(session_id="s_missing", role="user"))
    assert chats.unsaved_sessions() == []


def test_a_write_to_another_chat_saves_the_waiting_one(chats: SQLiteChats) -> None:
    waiting = chats.create_session(model="m", workspace=None, title="等待")
    other = chats.create_session(model="m", workspace=None, title="other")
    holder = Holder(chats.db.path)
    try:
        chats.add_message(MessageRecord(session_id=waiting.id, role="user", content=TEXT))
    finally:
        holder.release()
    assert chats.unsaved_sessions() == [waiting.id]
    chats.add_message(MessageRecord(session_id=other.id, role="user", content="x"))
    assert chats.unsaved_sessions() == []
    assert (TEXT,) in stored(chats.db.path, "SELECT content FROM messages")
