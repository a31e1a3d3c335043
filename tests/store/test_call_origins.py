"""The change history groups changes by chat and turn: both stores say where a tool call came
from, SQLite after a restart and the in-memory store the same way."""

from __future__ import annotations

from tray_app.base.messages import ToolCallRecord
from tray_app.base.paths import AppPaths
from tray_app.store.chats import SQLiteChats
from tray_app.store.db import open_database
from tray_app.store.records import MemoryChats, MessageRecord

#: t1's question is longer than the history shows; t2 has none stored (an older chat).
QUESTIONS = {"t1": "把报告 📊 \u202e整理好" + "。" * 500}
SHOWN = QUESTIONS["t1"][:200]


def fill(chats: SQLiteChats | MemoryChats) -> str:
    session = chats.create_session(model="qwen3", workspace="/w", title="整理 🗂")
    for turn, ids in (("t1", ["c_1", "c_2"]), ("t2", ["c_3"])):
        asked = QUESTIONS.get(turn)
        if asked is not None:  # the question that led to the turn's changes names it
            chats.add_message(
                MessageRecord(session_id=session.id, turn_id=turn, role="user", content=asked)
            )
        answer = MessageRecord(session_id=session.id, turn_id=turn, role="assistant", content="")
        chats.add_message(answer)
        for call_id in ids:
            chats.upsert_tool_call(
                ToolCallRecord(
                    call_id=call_id,
                    session_id=session.id,
                    message_id=answer.id,
                    name="write_file",
                    status="success",
                )
            )
    return session.id


def test_both_stores_name_the_chat_and_turn_of_each_call(app_paths: AppPaths) -> None:
    memory = MemoryChats()
    session_id = fill(memory)
    one = {"session_id": session_id, "turn_id": "t1", "session_title": "整理 🗂"}
    expected = {
        "c_1": {**one, "turn_prompt": SHOWN},
        "c_2": {**one, "turn_prompt": SHOWN},
        "c_3": {**one, "turn_id": "t2", "turn_prompt": None},
    }
    assert memory.call_origins(["c_1", "c_2", "c_3", "c_unknown"]) == expected

    chats = SQLiteChats(open_database(app_paths.database_file))
    session_id = fill(chats)
    chats.close()
    again = SQLiteChats(open_database(app_paths.database_file))
    try:
        found = again.call_origins(["c_3", "c_1", "c_unknown", "c_2"])
        assert {k: v["turn_id"] for k, v in found.items()} == {
            "c_1": "t1",
            "c_2": "t1",
            "c_3": "t2",
        }
        assert all(v["session_id"] == session_id for v in found.values())
        assert [found[c]["turn_prompt"] for c in ("c_1", "c_2", "c_3")] == [SHOWN, SHOWN, None]
        assert again.call_origins([]) == {}
    finally:
        again.close()
