"""What only the SQLite store does: survive a restart, search, repair at start, refuse misuse."""

from __future__ import annotations

import pytest

from tray_app.base.errors import StoreError
from tray_app.base.messages import ToolCall, ToolCallRecord
from tray_app.base.paths import AppPaths
from tray_app.store import rows as rows_module
from tray_app.store.chats import SQLiteChats
from tray_app.store.db import open_database
from tray_app.store.opening import open_chat_store
from tray_app.store.records import MessageRecord
from tray_app.store.recovery import INTERRUPTED_RESULT
from tray_app.store.search import fts_expression, query_terms


def reopen(app_paths: AppPaths, *, fts: bool | None = None) -> SQLiteChats:
    return SQLiteChats(open_database(app_paths.database_file, fts=fts))


def test_columns_cover_every_record_field() -> None:
    assert set(rows_module._MESSAGE_COLUMNS) == set(MessageRecord.model_fields)
    assert set(rows_module._CALL_COLUMNS) == set(ToolCallRecord.model_fields)


def test_a_chat_with_its_tool_cards_comes_back_after_a_restart(app_paths: AppPaths) -> None:
    chats = reopen(app_paths)
    session = chats.create_session(model="qwen3", workspace="/home/u", title="Files")
    user = MessageRecord(session_id=session.id, role="user", content="list /tmp", images=["aQ=="])
    answer = MessageRecord(
        session_id=session.id,
        role="assistant",
        thinking="list it",
        tool_calls=[ToolCall(id="x1", name="list_directory", arguments={"path": "/tmp"})],
        stats={"prompt_tokens": 10},
    )
    call = ToolCallRecord(
        call_id="c_1",
        session_id=session.id,
        message_id=answer.id,
        name="list_directory",
        arguments={"path": "/tmp"},
        status="success",
        decision="approved",
        decided_by="rule",
        result={"success": True, "entries": [{"name": "a", "size": 3}]},
        duration_ms=4.5,
    )
    chats.add_message(user)
    chats.add_message(answer)
    chats.upsert_tool_call(call)
    chats.close()

    again = reopen(app_paths)
    try:
        assert again.get_session(session.id) == session
        assert again.messages(session.id) == [user, answer]
        assert again.tool_calls(session.id) == [call]
    finally:
        again.close()


def test_misuse_is_refused_clearly(sqlite_chats: SQLiteChats) -> None:
    session = sqlite_chats.create_session(model="m", workspace=None)
    with pytest.raises(StoreError, match="Cannot save message"):
        sqlite_chats.add_message(MessageRecord(session_id="s_nope", role="user"))
    message = MessageRecord(session_id=session.id, role="user")
    sqlite_chats.add_message(message)
    with pytest.raises(StoreError, match="UNIQUE"):
        sqlite_chats.add_message(message)
    with pytest.raises(ValueError, match="bogus"):
        sqlite_chats.update_message(message.id, bogus=1)
    with pytest.raises(ValueError, match="session_id"):
        sqlite_chats.update_message(message.id, session_id="s_other")
    with pytest.raises(ValueError, match="id"):
        sqlite_chats.update_session(session.id, id="s_other")
    with pytest.raises(Exception, match="validation error"):
        sqlite_chats.update_message(message.id, stopped="not a bool")
    assert sqlite_chats.messages(session.id) == [message]


def test_rename_trims_and_bumps_the_session(sqlite_chats: SQLiteChats) -> None:
    session = sqlite_chats.create_session(model="m", workspace=None, title="old")
    renamed = sqlite_chats.rename_session(session.id, "  New\n name  ")
    assert renamed.title == "New name" and renamed.updated_at >= session.updated_at
    assert sqlite_chats.get_session(session.id) == renamed


@pytest.mark.parametrize("fts", [True, False], ids=["fts", "like"])
def test_search_treats_every_character_as_plain_text(app_paths: AppPaths, fts: bool) -> None:
    chats = reopen(app_paths, fts=fts)
    try:
        assert chats.db.fts is fts
        session = chats.create_session(model="m", workspace=None, title="Odd input")
        text = 'He said "NEAR(a b)" AND col:val -x foo* 100% a_b back\\slash it\'s'
        chats.add_message(MessageRecord(session_id=session.id, role="user", content=text))
        other = chats.create_session(model="m", workspace=None, title="decoy")
        chats.add_message(MessageRecord(session_id=other.id, role="user", content="100 abxb"))
        for query in [
            '"',
            '"NEAR(a',
            "AND",
            "col:val",
            "-x",
            "foo*",
            "100%",
            "a_b",
            "back\\slash",
            "it's",
            "*",
            "(",
            "NOT OR",
            "^",
            "zz*",
        ]:
            hits = chats.search(query)
            ids = [h["session_id"] for h in hits]
            if query in ("NOT OR", "^", "zz*"):
                assert session.id not in ids, query
            else:
                assert ids == [session.id], query
    finally:
        chats.close()


@pytest.mark.parametrize("fts", [True, False], ids=["fts", "like"])
def test_search_matches_substrings_in_any_script(app_paths: AppPaths, fts: bool) -> None:
    chats = reopen(app_paths, fts=fts)
    try:
        session = chats.create_session(model="m", workspace=None, title="中文")
        chats.add_message(
            MessageRecord(session_id=session.id, role="assistant", content="请读取文件 config.yaml")
        )
        for query in ["读取文件", "文件", "config", "CONFIG.YAML", "onfi"]:
            assert [h["session_id"] for h in chats.search(query)] == [session.id], query
        assert chats.search("读取 missing") == []
    finally:
        chats.close()


def test_search_follows_edits_and_deletions(sqlite_chats: SQLiteChats) -> None:
    session = sqlite_chats.create_session(model="m", workspace=None)
    message = MessageRecord(session_id=session.id, role="assistant", content="draft about llamas")
    sqlite_chats.add_message(message)
    assert sqlite_chats.search("llamas")
    sqlite_chats.update_message(message.id, content="final about alpacas")
    assert sqlite_chats.search("llamas") == []
    assert [h["message_id"] for h in sqlite_chats.search("alpacas")] == [message.id]
    sqlite_chats.delete_session(session.id)
    assert sqlite_chats.search("alpacas") == []
    count = sqlite_chats.db.conn.execute(
        "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?", ['"alpacas"']
    ).fetchone()[0]
    assert count == 0


def test_the_full_text_index_is_rebuilt_when_it_fell_behind(app_paths: AppPaths) -> None:
    chats = reopen(app_paths)
    session = chats.create_session(model="m", workspace=None)
    chats.db.conn.execute("DROP TRIGGER messages_fts_insert_v2")  # as a build without FTS5 does
    chats.add_message(MessageRecord(session_id=session.id, role="user", content="unindexed"))
    assert chats.search("unindexed") == []  # the stale index misses it
    chats.close()
    chats = reopen(app_paths)
    try:
        assert [h["session_id"] for h in chats.search("unindexed")] == [session.id]
    finally:
        chats.close()


def test_query_words_become_quoted_fts_strings() -> None:
    assert query_terms("  a  B b  c ") == ["a", "B", "c"]
    assert fts_expression(['say "hi"', "x"]) == '"say ""hi""" "x"'


def test_open_chat_store_repairs_an_interrupted_run(app_paths: AppPaths) -> None:
    chats = reopen(app_paths)
    session = chats.create_session(model="m", workspace=None)
    done = MessageRecord(session_id=session.id, role="assistant", content="ok", stats={"x": 1})
    user_stopped = MessageRecord(
        session_id=session.id, role="assistant", content="cut", stopped=True, stats={}
    )
    streaming = MessageRecord(
        session_id=session.id, role="assistant", content="half", stats={"streaming": True}
    )
    for message in (done, user_stopped, streaming):
        chats.add_message(message)
    pending = ToolCallRecord(
        call_id="c_1", session_id=session.id, message_id=done.id, name="delete_file"
    )
    chats.upsert_tool_call(pending)
    chats.close()

    untouched, _ = open_chat_store(app_paths, recover=False)
    assert untouched.messages(session.id)[2].stats == {"streaming": True}
    untouched.close()

    repaired, warning = open_chat_store(app_paths)
    try:
        assert warning is None
        first, second, third = repaired.messages(session.id)
        assert (first.stopped, first.stats) == (True, {"x": 1, "interrupted": True})
        assert (second.stopped, second.stats) == (True, {})
        assert (third.stopped, third.stats, third.content) == (True, {"interrupted": True}, "half")
        [call] = repaired.tool_calls(session.id)
        assert (call.status, call.result) == ("cancelled", INTERRUPTED_RESULT)
        assert isinstance(repaired, SQLiteChats) and repaired.mark_interrupted() == 0
    finally:
        repaired.close()


def test_a_missing_tool_answer_is_filled_from_the_finished_record(
    sqlite_chats: SQLiteChats,
) -> None:
    """Killed after the call finished but before its tool message was written."""
    session = sqlite_chats.create_session(model="m", workspace=None)
    asked = MessageRecord(
        session_id=session.id,
        role="assistant",
        tool_calls=[ToolCall(id="p1", name="read_file", arguments={"path": "/a"})],
    )
    sqlite_chats.add_message(asked)
    result = {"success": True, "content": "héllo"}
    sqlite_chats.upsert_tool_call(
        ToolCallRecord(
            call_id="c_1",
            session_id=session.id,
            message_id=asked.id,
            provider_id="p1",
            name="read_file",
            status="success",
            result=result,
        )
    )
    assert sqlite_chats.mark_interrupted() == 2
    answer = sqlite_chats.messages(session.id)[-1]
    assert (answer.role, answer.tool_call_id, answer.content) == (
        "tool",
        "p1",
        '{"success": true, "content": "héllo"}',
    )
    assert sqlite_chats.tool_calls(session.id)[0].status == "success"
    assert sqlite_chats.mark_interrupted() == 0
