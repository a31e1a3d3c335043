"""A process killed with SIGKILL mid-write, and readers during writes (WAL)."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from tests.store.children import Child
from tests.store.crash_writer import CHUNK
from tray_app.base.paths import AppPaths
from tray_app.store.chats import SQLiteChats
from tray_app.store.db import open_database
from tray_app.store.opening import open_chat_store
from tray_app.store.records import MessageRecord
from tray_app.store.recovery import INTERRUPTED_RESULT


def integrity(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        conn.close()


def reports(lines: list[str], word: str) -> list[str]:
    return [line.split(" ", 1)[1] for line in lines if line.startswith(word + " ")]


@pytest.mark.parametrize("after", [1, 40])
def test_every_committed_message_survives_a_kill(app_paths: AppPaths, after: int) -> None:
    path = app_paths.database_file
    child = Child(path, "messages")
    try:
        child.wait_for(lambda line: len(reports(child.lines, "message")) >= after)
        lines = child.kill()
    finally:
        child.close()
    [session_id] = reports(lines, "session")
    committed = reports(lines, "message")
    assert integrity(path) == "ok"
    chats = SQLiteChats(open_database(path))
    try:
        stored = [m.id for m in chats.messages(session_id)]
    finally:
        chats.close()
    assert stored[: len(committed)] == committed
    assert len(stored) - len(committed) <= 1  # at most the one committed but not yet reported


def test_a_kill_mid_stream_keeps_the_text_and_shows_it_stopped(app_paths: AppPaths) -> None:
    path = app_paths.database_file
    child = Child(path, "stream")
    try:
        child.wait_for(lambda line: line.startswith("content ") and int(line.split()[1]) >= 640)
        lines = child.kill()
    finally:
        child.close()
    [session_id] = reports(lines, "session")
    reported = int(reports(lines, "content")[-1])
    assert integrity(path) == "ok"

    chats, warning = open_chat_store(app_paths)
    try:
        assert warning is None
        [message] = chats.messages(session_id)
    finally:
        chats.close()
    assert len(message.content) >= reported
    assert message.content == (CHUNK * (len(message.content) // len(CHUNK)))
    assert message.thinking == "t" * len(message.content)  # both saved in one write
    assert message.stopped and message.stats == {"interrupted": True}


def test_a_kill_mid_tool_call_keeps_the_card_and_cancels_it(app_paths: AppPaths) -> None:
    path = app_paths.database_file
    child = Child(path, "tool")
    try:
        child.wait_for(lambda line: line.startswith("running "))
        lines = child.kill()
    finally:
        child.close()
    [session_id] = reports(lines, "session")
    assert integrity(path) == "ok"
    raw = sqlite3.connect(path)
    try:
        status = raw.execute("SELECT status, decided_by FROM tool_calls").fetchall()
    finally:
        raw.close()
    assert status == [("running", "popup")]  # what the kill left

    chats, _ = open_chat_store(app_paths)
    try:
        [call] = chats.tool_calls(session_id)
        messages = chats.messages(session_id)
    finally:
        chats.close()
    assert (call.status, call.result, call.decision) == (
        "cancelled",
        INTERRUPTED_RESULT,
        "approved",
    )
    assert [m.role for m in messages] == ["user", "assistant", "tool"]
    assert messages[1].stopped and messages[1].content == "Writing it."
    assert messages[2].tool_call_id == "p1" and "interrupted" in messages[2].content


def test_another_process_reads_while_this_one_writes(app_paths: AppPaths) -> None:
    path = app_paths.database_file
    chats = SQLiteChats(open_database(path))
    session = chats.create_session(model="m", workspace=None)
    reader = Child(path, "read")
    try:
        reader.wait_for(lambda line: line.startswith("reads "))
        for index in range(300):
            chats.add_message(MessageRecord(session_id=session.id, role="user", content=str(index)))
        reader.wait_for(lambda line: line.endswith(" max 300"))
        last = reader.finish()[-1]
    finally:
        reader.close()
        chats.close()
    _, reads, _, errors, _, highest = last.split()
    assert int(errors) == 0 and int(reads) > 0 and int(highest) == 300


def test_a_long_read_does_not_block_writes(sqlite_chats: SQLiteChats) -> None:
    """The reader keeps its snapshot; the writer commits without waiting (WAL)."""
    session = sqlite_chats.create_session(model="m", workspace=None)
    sqlite_chats.db.conn.execute("PRAGMA busy_timeout = 100")
    opened = threading.Event()
    wrote = threading.Event()
    seen: list[int] = []
    failures: list[BaseException] = []

    def read_in_a_transaction() -> None:
        try:
            conn = sqlite3.connect(sqlite_chats.db.path, timeout=0, isolation_level=None)
            conn.execute("BEGIN")
            seen.append(conn.execute("SELECT count(*) FROM messages").fetchone()[0])
            opened.set()
            assert wrote.wait(30)
            seen.append(conn.execute("SELECT count(*) FROM messages").fetchone()[0])
            conn.execute("COMMIT")
            seen.append(conn.execute("SELECT count(*) FROM messages").fetchone()[0])
            conn.close()
        except BaseException as exc:
            failures.append(exc)
            opened.set()

    thread = threading.Thread(target=read_in_a_transaction)
    thread.start()
    assert opened.wait(30)
    for index in range(5):
        sqlite_chats.add_message(
            MessageRecord(session_id=session.id, role="user", content=str(index))
        )
    wrote.set()
    thread.join(30)
    assert not failures
    assert seen == [0, 0, 5]


def test_the_store_can_be_handed_to_another_thread(app_paths: AppPaths) -> None:
    """main() opens it, the core thread uses it; a stray second thread must not corrupt it."""
    chats = SQLiteChats(open_database(app_paths.database_file))
    session = chats.create_session(model="m", workspace=None)
    failures: list[BaseException] = []

    def write(tag: str) -> None:
        try:
            for index in range(100):
                chats.add_message(
                    MessageRecord(session_id=session.id, role="user", content=f"{tag}{index}")
                )
                chats.messages(session.id)
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=write, args=(tag,)) for tag in "ab"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    try:
        assert not failures
        contents = [m.content for m in chats.messages(session.id)]
        assert sorted(contents) == sorted(f"{t}{i}" for t in "ab" for i in range(100))
        assert [c for c in contents if c.startswith("a")] == [f"a{i}" for i in range(100)]
    finally:
        chats.close()
    assert integrity(app_paths.database_file) == "ok"
