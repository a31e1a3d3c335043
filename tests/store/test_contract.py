"""The same behaviour checks against MemoryChats (the reference) and SQLiteChats."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tray_app.base.messages import ToolCall, ToolCallRecord
from tray_app.base.paths import AppPaths
from tray_app.store.chats import SQLiteChats, search_chats
from tray_app.store.db import open_database
from tray_app.store.export import export_json, export_markdown
from tray_app.store.records import ChatRepository, MemoryChats, MessageRecord
from tray_app.store.recovery import INTERRUPTED_RESULT, recover_session


@pytest.fixture(params=["memory", "sqlite", "sqlite-like"])
def chats(request: pytest.FixtureRequest, app_paths: AppPaths) -> Iterator[ChatRepository]:
    repo: ChatRepository
    if request.param == "memory":
        repo = MemoryChats()
    else:
        db = open_database(app_paths.database_file, fts=request.param == "sqlite")
        repo = SQLiteChats(db)
    yield repo
    repo.close()


def tick() -> None:
    """Wait until the clock moves, so 'newest first' has one right answer."""
    start = time.time()
    deadline = time.monotonic() + 1
    while time.time() <= start and time.monotonic() < deadline:
        pass


def full_message(session_id: str, **extra: object) -> MessageRecord:
    data: dict[str, object] = {
        "session_id": session_id,
        "turn_id": "t_1",
        "role": "assistant",
        "content": "Here is the file.\n```py\nprint('hi')\n```",
        "thinking": "The user wants a file; 读取文件 first.",
        "images": ["aGVsbG8="],
        "tool_calls": [
            ToolCall(id="call_1", name="read_file", arguments={"path": "/tmp/a.txt"}),
            ToolCall(name="bad", arguments_error="Expecting value"),
        ],
        "model": "qwen3:8b",
        "stats": {"prompt_tokens": 12, "eval_ms": 3.25, "nested": {"a": [1, None]}},
        "stopped": True,
        "error": "stream broke",
    }
    data.update(extra)
    return MessageRecord.model_validate(data)


def call_record(session_id: str, message_id: str, call_id: str, **extra: object) -> ToolCallRecord:
    data: dict[str, object] = {
        "call_id": call_id,
        "session_id": session_id,
        "message_id": message_id,
        "provider_id": f"p_{call_id}",
        "name": "write_file",
        "arguments": {"path": "/tmp/x", "content": "hello"},
    }
    data.update(extra)
    return ToolCallRecord.model_validate(data)


def test_created_session_reads_back(chats: ChatRepository) -> None:
    made = chats.create_session(model="llama3", workspace="/w", title="Hello")
    assert chats.get_session(made.id) == made
    assert chats.get_session("s_missing") is None


def test_sessions_are_listed_newest_updated_first(chats: ChatRepository) -> None:
    first = chats.create_session(model="m", workspace=None, title="Alpha notes")
    tick()
    second = chats.create_session(model="m", workspace=None, title="beta")
    tick()
    third = chats.create_session(model="m", workspace=None, title="ALPHA plan")
    assert [s.id for s in chats.list_sessions()] == [third.id, second.id, first.id]
    tick()
    chats.update_session(first.id, title="Alpha notes v2")
    assert [s.id for s in chats.list_sessions()] == [first.id, third.id, second.id]
    assert [s.id for s in chats.list_sessions("alpha")] == [first.id, third.id]
    assert [s.id for s in chats.list_sessions(limit=1)] == [first.id]


def test_update_session_changes_fields_and_time(chats: ChatRepository) -> None:
    made = chats.create_session(model="m", workspace=None)
    tick()
    updated = chats.update_session(made.id, title="Renamed", workspace="/w2", model="m2")
    assert (updated.title, updated.workspace, updated.model) == ("Renamed", "/w2", "m2")
    assert updated.updated_at > made.updated_at
    assert updated.created_at == made.created_at
    assert chats.get_session(made.id) == updated
    with pytest.raises(KeyError):
        chats.update_session("s_missing", title="x")


def test_messages_keep_every_field_in_insertion_order(chats: ChatRepository) -> None:
    session = chats.create_session(model="m", workspace=None)
    other = chats.create_session(model="m", workspace=None)
    user = MessageRecord(session_id=session.id, role="user", content="hi")
    answer = full_message(session.id)
    tool = MessageRecord(
        session_id=session.id,
        role="tool",
        content='{"success": true}',
        tool_name="read_file",
        tool_call_id="call_1",
    )
    for message in (user, answer, tool):
        chats.add_message(message)
    chats.add_message(MessageRecord(session_id=other.id, role="user", content="elsewhere"))
    assert chats.messages(session.id) == [user, answer, tool]
    assert chats.messages(session.id)[1].tool_calls[0] == answer.tool_calls[0]
    assert [m.content for m in chats.messages(other.id)] == ["elsewhere"]
    assert chats.messages("s_missing") == []


def test_update_message_changes_only_the_given_fields(chats: ChatRepository) -> None:
    session = chats.create_session(model="m", workspace=None)
    message = full_message(session.id, stopped=False, error=None)
    chats.add_message(message)
    calls = [ToolCall(id="c9", name="list_directory", arguments={"path": "/"})]
    chats.update_message(message.id, content="new text", tool_calls=calls, stats={"x": 1})
    stored = chats.messages(session.id)[0]
    assert stored == message.model_copy(
        update={"content": "new text", "tool_calls": calls, "stats": {"x": 1}}
    )
    chats.update_message(message.id, stopped=True, error="boom")
    stored = chats.messages(session.id)[0]
    assert (stored.stopped, stored.error, stored.content) == (True, "boom", "new text")
    chats.update_message("m_missing", content="ignored")  # no error, no change
    assert chats.messages(session.id) == [stored]


def test_delete_messages_from_cuts_the_tail_and_its_tool_calls(chats: ChatRepository) -> None:
    session = chats.create_session(model="m", workspace=None)
    msgs = [MessageRecord(session_id=session.id, role="user", content=f"m{i}") for i in range(4)]
    for message in msgs:
        chats.add_message(message)
    chats.upsert_tool_call(call_record(session.id, msgs[1].id, "c_keep"))
    chats.upsert_tool_call(call_record(session.id, msgs[2].id, "c_drop"))
    chats.upsert_tool_call(call_record(session.id, msgs[3].id, "c_drop2"))
    chats.delete_messages_from(session.id, "m_missing")
    assert len(chats.messages(session.id)) == 4
    chats.delete_messages_from(session.id, msgs[2].id)
    assert [m.content for m in chats.messages(session.id)] == ["m0", "m1"]
    assert [c.call_id for c in chats.tool_calls(session.id)] == ["c_keep"]


def test_tool_calls_upsert_by_call_id_and_keep_their_place(chats: ChatRepository) -> None:
    session = chats.create_session(model="m", workspace=None)
    other = chats.create_session(model="m", workspace=None)
    first = call_record(session.id, "m_1", "c_1")
    second = call_record(session.id, "m_1", "c_2", name="read_file")
    chats.upsert_tool_call(first)
    chats.upsert_tool_call(second)
    chats.upsert_tool_call(call_record(other.id, "m_9", "c_1"))  # same id, other session
    done = first.model_copy(
        update={
            "status": "success",
            "decision": "approved",
            "decided_by": "popup",
            "risk": "write",
            "preview": {"kind": "diff", "text": "+hello"},
            "result": {"success": True, "bytesWritten": 5},
            "duration_ms": 12.5,
            "undoable": True,
        }
    )
    chats.upsert_tool_call(done)
    assert chats.tool_calls(session.id) == [done, second]
    assert [c.message_id for c in chats.tool_calls(other.id)] == ["m_9"]


def test_delete_session_removes_everything(chats: ChatRepository) -> None:
    session = chats.create_session(model="m", workspace=None)
    kept = chats.create_session(model="m", workspace=None)
    message = MessageRecord(session_id=session.id, role="user", content="bye")
    chats.add_message(message)
    chats.upsert_tool_call(call_record(session.id, message.id, "c_1"))
    chats.delete_session(session.id)
    chats.delete_session("s_missing")
    assert chats.get_session(session.id) is None
    assert chats.messages(session.id) == []
    assert chats.tool_calls(session.id) == []
    assert [s.id for s in chats.list_sessions()] == [kept.id]


def test_search_finds_titles_and_message_words(chats: ChatRepository) -> None:
    notes = chats.create_session(model="m", workspace=None, title="Quarterly report")
    tick()
    code = chats.create_session(model="m", workspace=None, title="Refactor")
    chats.add_message(MessageRecord(session_id=code.id, role="user", content="Rename the parser"))
    chats.add_message(
        MessageRecord(session_id=code.id, role="tool", content="quarterly secrets in a file")
    )
    assert [h["session_id"] for h in search_chats(chats, "quarterly")] == [notes.id]
    hits = search_chats(chats, "PARSER rename")
    assert [(h["session_id"], h["match"], h["role"]) for h in hits] == [
        (code.id, "content", "user")
    ]
    assert "parser" in hits[0]["snippet"]
    assert search_chats(chats, "parser quarterly") == []
    assert search_chats(chats, "   ") == []


def test_recovery_marks_the_interrupted_turn(chats: ChatRepository) -> None:
    session = chats.create_session(model="m", workspace=None)
    streaming = MessageRecord(
        session_id=session.id, role="assistant", content="partial", stats={"streaming": True}
    )
    chats.add_message(streaming)
    assert recover_session(chats, session.id) == 1
    stored = chats.messages(session.id)[0]
    assert stored.stopped and stored.content == "partial"
    assert stored.stats == {"interrupted": True}
    assert recover_session(chats, session.id) == 0


def test_recovery_cancels_running_calls_and_answers_them(chats: ChatRepository) -> None:
    session = chats.create_session(model="m", workspace=None)
    asked = MessageRecord(
        session_id=session.id,
        role="assistant",
        tool_calls=[ToolCall(name="write_file"), ToolCall(id="p2", name="delete_file")],
        stats={"eval_ms": 5.0},
    )
    chats.add_message(asked)
    chats.upsert_tool_call(call_record(session.id, asked.id, "c_1", status="running"))
    changed = recover_session(chats, session.id)
    assert changed == 4  # 1 call cancelled, 2 answers added, 1 message marked
    calls = chats.tool_calls(session.id)
    assert [(c.name, c.status, c.result) for c in calls] == [
        ("write_file", "cancelled", INTERRUPTED_RESULT),
        ("delete_file", "cancelled", INTERRUPTED_RESULT),
    ]
    messages = chats.messages(session.id)
    assert [(m.role, m.tool_name, m.tool_call_id) for m in messages] == [
        ("assistant", None, None),
        ("tool", "write_file", "p_c_1"),
        ("tool", "delete_file", "p2"),
    ]
    assert messages[0].stopped and messages[0].stats == {"eval_ms": 5.0, "interrupted": True}
    assert recover_session(chats, session.id) == 0


def test_exports_are_the_same_for_both_stores(app_paths: AppPaths) -> None:
    memory = MemoryChats()
    sqlite = SQLiteChats(open_database(app_paths.database_file))
    try:
        for repo in (memory, sqlite):
            session = repo.create_session(model="m", workspace="/w", title="Same")
            message = full_message(session.id, id="m_fixed", created_at=1.0)
            repo.add_message(message)
            repo.upsert_tool_call(call_record(session.id, message.id, "c_1", created_at=2.0))
        mem_id = memory.list_sessions()[0].id
        sql_id = sqlite.list_sessions()[0].id
        mem_json, sql_json = export_json(memory, mem_id), export_json(sqlite, sql_id)
        for doc in (mem_json, sql_json):
            doc["session"] = {k: v for k, v in doc["session"].items() if k != "id"}
            for item in doc["messages"] + doc["tool_calls"]:
                item.pop("session_id")
        assert mem_json["messages"] == sql_json["messages"]
        assert mem_json["tool_calls"] == sql_json["tool_calls"]
        body = export_markdown(memory, mem_id).split("\n## ", 1)[1]  # after the dated header
        assert body == export_markdown(sqlite, sql_id).split("\n## ", 1)[1]
    finally:
        sqlite.close()
