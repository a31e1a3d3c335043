"""A tool call's arguments are stored once: status changes do not write them again."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tray_app.messages import ToolCallRecord
from tray_app.paths import AppPaths
from tray_app.store import chats as chats_module
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
    written: list[int] = []
    original = chats_module._call_value

    def counting(name: str, value: Any) -> Any:
        out = original(name, value)
        if name == "arguments":
            written.append(len(out))
        return out

    monkeypatch.setattr(chats_module, "_call_value", counting)
    session = sqlite_chats.create_session(model="m", workspace=None)
    message = MessageRecord(session_id=session.id, role="assistant")
    sqlite_chats.add_message(message)
    record = _call(session.id, message.id)
    for status in ("pending", "running", "success"):
        record.status = status  # type: ignore[assignment]
        sqlite_chats.upsert_tool_call(record)
    assert len(written) == 1 and written[0] > 100_000  # characters
    (stored,) = sqlite_chats.tool_calls(session.id)
    assert stored.status == "success" and stored.arguments == BIG
