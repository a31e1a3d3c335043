"""Keyset paging, indexing on finish and the indexed repair, on real SQLite files and memory.

The paging checks run against MemoryChats (the reference) and SQLiteChats with and without
the full-text index; the SQLite-only checks look at what the database really does (rows read,
the index's content, the query plans).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest

from tray_app.base.messages import ToolCallRecord
from tray_app.base.paths import AppPaths
from tray_app.store import paged as chats_module
from tray_app.store.chats import SQLiteChats, search_chats
from tray_app.store.db import open_database
from tray_app.store.records import ChatRepository, MemoryChats, MessageRecord
from tray_app.store.recovery import INTERRUPTED_CANDIDATES, recover_session

HOSTILE = "数据库 🙂 \u202eevil\u202c"


@pytest.fixture(params=["memory", "sqlite", "sqlite-like"])
def chats(request: pytest.FixtureRequest, app_paths: AppPaths) -> Iterator[ChatRepository]:
    repo: ChatRepository
    if request.param == "memory":
        repo = MemoryChats()
    else:
        repo = SQLiteChats(open_database(app_paths.database_file, fts=request.param == "sqlite"))
    yield repo
    repo.close()


def _sessions(chats: ChatRepository, count: int) -> list[str]:
    return [
        chats.create_session(model="m", workspace=None, title=f"{HOSTILE} {i}").id
        for i in range(count)
    ]


def test_session_pages_walk_the_whole_list_once(chats: ChatRepository) -> None:
    _sessions(chats, 23)
    everything = [s.id for s in chats.list_sessions(limit=1000)]
    assert len(everything) == 23
    seen: list[str] = []
    cursor = None
    while True:
        page = chats.list_sessions(limit=5, before=cursor)
        if not page:
            break
        assert len(page) <= 5
        seen += [s.id for s in page]
        cursor = (page[-1].updated_at, page[-1].id)
    assert seen == everything


def test_session_pages_filter_titles_by_casefold(chats: ChatRepository) -> None:
    german = chats.create_session(model="m", workspace=None, title="Straße 数据库 notes")
    chats.create_session(model="m", workspace=None, title="other")
    assert [s.id for s in chats.list_sessions("STRASSE")] == [german.id]
    assert [s.id for s in chats.list_sessions("数据库")] == [german.id]
    assert chats.list_sessions("数据库", before=(german.updated_at, german.id)) == []
    assert chats.list_sessions(limit=0) == []


def test_message_pages_go_back_to_the_first_message(chats: ChatRepository) -> None:
    session = chats.create_session(model="m", workspace=None)
    for i in range(120):
        chats.add_message(
            MessageRecord(session_id=session.id, role="user", content=f"{HOSTILE} {i}")
        )
    everything = chats.messages(session.id)
    last, more = chats.messages_page(session.id, limit=50)
    assert (last, more) == (everything[-50:], True)
    middle, more = chats.messages_page(session.id, before=last[0].id, limit=50)
    assert (middle, more) == (everything[20:70], True)
    first, more = chats.messages_page(session.id, before=middle[0].id, limit=50)
    assert (first, more) == (everything[:20], False)
    assert chats.messages_page(session.id, before=first[0].id) == ([], False)
    with pytest.raises(KeyError):
        chats.messages_page(session.id, before="m_not_here")
    assert chats.messages_page("s_none") == ([], False)


def test_tool_calls_of_some_messages_only(chats: ChatRepository) -> None:
    session = chats.create_session(model="m", workspace=None)
    owners = [MessageRecord(session_id=session.id, role="assistant") for _ in range(3)]
    for message in owners:
        chats.add_message(message)
    for index, message in enumerate(owners * 2):
        chats.upsert_tool_call(
            ToolCallRecord(
                call_id=f"c_{index}", session_id=session.id, message_id=message.id, name="x"
            )
        )
    wanted = [owners[2].id, owners[0].id]
    picked = chats.tool_calls(session.id, wanted)
    assert [c.call_id for c in picked] == ["c_0", "c_2", "c_3", "c_5"]  # in stored order
    assert chats.tool_calls(session.id, []) == []
    assert len(chats.tool_calls(session.id)) == 6


def test_a_streaming_answer_is_searchable_once_it_is_finished(chats: ChatRepository) -> None:
    session = chats.create_session(model="m", workspace=None)
    answer = MessageRecord(session_id=session.id, role="assistant", stats={"streaming": True})
    chats.add_message(answer)
    for text in ("draft ephemeral", "draft ephemeral 数据库迁移 half"):
        chats.update_message(answer.id, content=text)
    chats.update_message(answer.id, content="最终 数据库迁移 完成", stats={"eval_count": 3})
    found = search_chats(chats, "数据库迁移")
    assert [(h["session_id"], h["message_id"]) for h in found] == [(session.id, answer.id)]
    assert "数据库迁移" in found[0]["snippet"]
    assert search_chats(chats, "ephemeral") == []  # what was streamed and replaced is gone


def test_an_interrupted_answer_is_searchable_after_the_repair(chats: ChatRepository) -> None:
    session = chats.create_session(model="m", workspace=None)
    answer = MessageRecord(
        session_id=session.id,
        role="assistant",
        content="半截 回答 alpaca",
        stats={"streaming": True},
    )
    chats.add_message(answer)
    assert recover_session(chats, session.id) == 1
    assert [h["message_id"] for h in search_chats(chats, "alpaca")] == [answer.id]


# ---- SQLite only: what the database really does --------------------------------------------


def _indexed(chats: SQLiteChats, word: str) -> int:
    return int(
        chats.db.conn.execute(
            "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?", [f'"{word}"']
        ).fetchone()[0]
    )


def test_streaming_saves_leave_the_index_alone(sqlite_chats: SQLiteChats) -> None:
    session = sqlite_chats.create_session(model="m", workspace=None)
    answer = MessageRecord(session_id=session.id, role="assistant", stats={"streaming": True})
    sqlite_chats.add_message(answer)
    sqlite_chats.update_message(answer.id, content="partial words " * 10_000)
    assert _indexed(sqlite_chats, "partial") == 0
    sqlite_chats.update_message(answer.id, content="finished words", stats={})
    assert (_indexed(sqlite_chats, "partial"), _indexed(sqlite_chats, "finished")) == (0, 1)
    sqlite_chats.delete_session(session.id)
    assert _indexed(sqlite_chats, "finished") == 0


def test_a_rebuilt_index_leaves_streaming_rows_out(app_paths: AppPaths) -> None:
    chats = SQLiteChats(open_database(app_paths.database_file))
    session = chats.create_session(model="m", workspace=None)
    live = MessageRecord(
        session_id=session.id, role="assistant", content="livetext", stats={"streaming": True}
    )
    chats.add_message(live)
    chats.db.conn.execute("DROP TRIGGER messages_fts_update_v2")  # an older file: rebuilt
    chats.close()
    chats = SQLiteChats(open_database(app_paths.database_file))
    try:
        assert _indexed(chats, "livetext") == 0
        chats.update_message(live.id, content="donetext", stats={})
        assert (_indexed(chats, "livetext"), _indexed(chats, "donetext")) == (0, 1)
    finally:
        chats.close()


def test_a_page_of_sessions_reads_only_its_rows(
    sqlite_chats: SQLiteChats, monkeypatch: pytest.MonkeyPatch
) -> None:
    with sqlite_chats.db.transaction() as conn:
        conn.executemany(
            "INSERT INTO sessions (id, title, model, created_at, updated_at) "
            "VALUES (?, ?, '', ?, ?)",
            [(f"s_{i:04}", HOSTILE, float(i), float(i // 3)) for i in range(1000)],
        )
    built: list[object] = []
    real = chats_module._session
    monkeypatch.setattr(chats_module, "_session", lambda row: built.append(row) or real(row))
    page = sqlite_chats.list_sessions(limit=10)
    assert len(built) == 10
    # Ties on updated_at are broken by the id, so the cursor never skips or repeats one.
    assert [s.id for s in page[:4]] == ["s_0999", "s_0996", "s_0997", "s_0998"]
    rest = sqlite_chats.list_sessions(limit=1000, before=(page[-1].updated_at, page[-1].id))
    ids = [s.id for s in page + rest]
    assert len(ids) == len(set(ids)) == 1000
    assert ids == [s.id for s in sorted(page + rest, key=lambda s: (-s.updated_at, s.id))]


def _plan(conn: sqlite3.Connection, sql: str, params: tuple[object, ...] = ()) -> list[str]:
    return [str(row[3]) for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}", params)]


def _full_scans(plan: list[str]) -> list[str]:
    return [step for step in plan if step.startswith("SCAN") and "INDEX" not in step]


def test_the_repair_at_start_does_not_scan_the_tables(sqlite_chats: SQLiteChats) -> None:
    plan = _plan(sqlite_chats.db.conn, INTERRUPTED_CANDIDATES)
    assert _full_scans(plan) == [], plan
    assert any("messages_streaming" in step for step in plan), plan
    assert any("tool_calls_unfinished" in step for step in plan), plan


def test_paging_queries_use_the_indexes(sqlite_chats: SQLiteChats) -> None:
    conn = sqlite_chats.db.conn
    sessions = _plan(
        conn,
        "SELECT id FROM sessions WHERE updated_at <= ? AND (updated_at < ? OR id > ?) "
        "ORDER BY updated_at DESC, id LIMIT 5",
        (1.0, 1.0, "s"),
    )
    assert _full_scans(sessions) == [] and not any("TEMP B-TREE" in s for s in sessions), sessions
    messages = _plan(
        conn,
        "SELECT id FROM messages WHERE session_id = ? AND seq < ? ORDER BY seq DESC LIMIT 5",
        ("s", 10),
    )
    assert _full_scans(messages) == [] and not any("TEMP B-TREE" in s for s in messages)
