"""A tool call's arguments are stored once: status changes write only what changed."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.fakes.store_spy import count_serialised
from tray_app.base.messages import ToolCallRecord
from tray_app.base.paths import AppPaths
from tray_app.store.chats import SQLiteChats
from tray_app.store.db import open_database
from tray_app.store.records import ChatRepository, MemoryChats, MessageRecord

BIG = {"path": "笔记/日记🙂.md", "content": "长文🙂\u202eabc" * 15_000}  # ~240 KB of UTF-8


@pytest.fixture(params=["memory", "sqlite"])
def chats(request: pytest.FixtureRequest, app_paths: AppPaths) -> Iterator[ChatRepository]:
    repo: ChatRepository
    if request.param == "memory":
        repo = MemoryChats()
    else:
        repo = SQLiteChats(open_database(app_paths.database_file))
    yield repo
    repo.close()


def _call(session_id: str, message_id: str, **extra: Any) -> ToolCallRecord:
    return ToolCallRecord(
        call_id="c_1",
        session_id=session_id,
        message_id=message_id,
        name="write_file",
        arguments=dict(BIG),
        **extra,
    )


def test_status_changes_keep_the_first_arguments(chats: ChatRepository) -> None:
    session = chats.create_session(model="m", workspace=None)
    message = MessageRecord(session_id=session.id, role="assistant")
    chats.add_message(message)
    record = _call(session.id, message.id)
    chats.upsert_tool_call(record)
    for status in ("running", "success"):
        chats.upsert_tool_call(
            record.model_copy(update={"status": status, "arguments": {"changed": True}})
        )
    (stored,) = chats.tool_calls(session.id)
    assert stored.status == "success" and stored.arguments == BIG


def test_sqlite_serialises_the_arguments_once_for_pending_running_success(
    sqlite_chats: SQLiteChats, monkeypatch: pytest.MonkeyPatch
) -> None:
    serialised = count_serialised(monkeypatch)
    session = sqlite_chats.create_session(model="m", workspace=None)
    message = MessageRecord(session_id=session.id, role="assistant")
    sqlite_chats.add_message(message)
    record = _call(session.id, message.id)
    for status in ("pending", "running", "success"):
        record.status = status  # type: ignore[assignment]
        sqlite_chats.upsert_tool_call(record)
    written = [chars for name, chars in serialised if name == "arguments"]
    assert len(written) == 1 and written[0] > 100_000  # characters
    (stored,) = sqlite_chats.tool_calls(session.id)
    assert stored.status == "success" and stored.arguments == BIG


def test_update_writes_only_the_given_fields(chats: ChatRepository) -> None:
    session = chats.create_session(model="m", workspace=None)
    message = MessageRecord(session_id=session.id, role="assistant")
    chats.add_message(message)
    record = _call(session.id, message.id, risk="write", preview={"kind": "diff", "text": "+长"})
    chats.upsert_tool_call(record)
    chats.update_tool_call(session.id, "c_1", status="running", decision="approved")
    result = {"success": True, "path": "笔记/日记🙂.md", "note": "\u202eevil"}
    chats.update_tool_call(session.id, "c_1", status="success", result=result, undoable=True)
    chats.update_tool_call(session.id, "c_missing", status="error")  # ignored
    chats.update_tool_call("s_other", "c_1", status="error")  # another session's: ignored
    (stored,) = chats.tool_calls(session.id)
    assert stored.arguments == BIG and stored.preview == {"kind": "diff", "text": "+长"}
    assert (stored.status, stored.decision, stored.result) == ("success", "approved", result)
    assert stored.undoable is True and stored.risk == "write"
    assert stored.created_at == record.created_at


@pytest.mark.parametrize("field", ["arguments", "call_id", "session_id", "name", "created_at"])
def test_update_refuses_what_a_call_is(chats: ChatRepository, field: str) -> None:
    session = chats.create_session(model="m", workspace=None)
    chats.upsert_tool_call(_call(session.id, "m_1"))
    with pytest.raises(ValueError, match=field):
        chats.update_tool_call(session.id, "c_1", **{field: "x"})
    assert chats.tool_calls(session.id)[0].arguments == BIG


def test_sqlite_updates_serialise_only_what_changed(
    sqlite_chats: SQLiteChats, monkeypatch: pytest.MonkeyPatch
) -> None:
    written = count_serialised(monkeypatch)
    session = sqlite_chats.create_session(model="m", workspace=None)
    record = _call(session.id, "m_1", preview={"kind": "diff", "text": "长" * 50_000})
    sqlite_chats.upsert_tool_call(record)
    sqlite_chats.update_tool_call(session.id, "c_1", status="running")
    sqlite_chats.update_tool_call(session.id, "c_1", status="success", result={"success": True})
    assert sorted(name for name, _ in written) == ["arguments", "preview", "result"]
