"""Repairing what a killed run left in the store, so the chat shows it and can continue.

The rule (the agent loop writes records so that it holds):

1. A tool call still ``pending`` or ``running`` never finished: it becomes ``cancelled`` with
   the result ``INTERRUPTED_RESULT``.
2. An assistant message is interrupted when it is not ``stopped`` and either its ``stats``
   still say ``{"streaming": true}`` (the loop adds the message that way and replaces
   ``stats`` when the round ends, is stopped or fails), or it owns a call repaired by rule 1,
   or it needed an answer from rule 3. It becomes ``stopped=True`` and its stats lose
   ``streaming`` and gain ``"interrupted": true`` (so the UI can tell it from a user's Stop).
3. The model must get one tool message per call it asked for, or the next request is
   refused by OpenAI-compatible servers. If a session's last assistant message asked for
   calls and fewer tool messages follow it, the missing answers are appended in call order:
   the call's recorded result if it finished, else ``INTERRUPTED_RESULT``; a call that never
   got a record gets a ``cancelled`` one, so its card shows too.

Works on any ChatRepository and is idempotent (safe to run again after a kill mid-repair).
``live`` names assistant messages whose process still runs (``store.owners``): they, their
calls and the answers they wait for are left alone.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

from tray_app.base.messages import ToolCallRecord
from tray_app.store.records import ChatRepository, MessageRecord, new_id

INTERRUPTED_RESULT: dict[str, Any] = {
    "success": False,
    "error": "interrupted: the app stopped before this call finished",
}
_UNFINISHED = ("pending", "running")

# SQL for SQLiteChats.mark_interrupted: sessions that may hold something to repair;
# recover_session decides precisely. The first two go through small partial indexes (schema 3),
# the last looks up each session's last message by index: no scan of the messages or the calls.
INTERRUPTED_CANDIDATES = """
SELECT session_id FROM messages
    WHERE role = 'assistant' AND stopped = 0 AND stats LIKE '%"streaming"%'
UNION
SELECT session_id FROM tool_calls WHERE status IN ('pending', 'running')
UNION
SELECT s.id FROM sessions s
    JOIN messages m ON m.seq = (SELECT MAX(seq) FROM messages WHERE session_id = s.id)
    WHERE m.role = 'tool' OR (m.role = 'assistant' AND m.tool_calls != '[]')
"""


def recover_session(chats: ChatRepository, session_id: str, *, live: Collection[str] = ()) -> int:
    """Apply the rule to one session; return how many records changed or were added."""
    changed = 0
    repaired_owners: set[str] = set()
    for call in chats.tool_calls(session_id):
        if call.status in _UNFINISHED and call.message_id not in live:
            chats.upsert_tool_call(
                call.model_copy(update={"status": "cancelled", "result": INTERRUPTED_RESULT})
            )
            repaired_owners.add(call.message_id)
            changed += 1
    changed += _answer_missing(chats, session_id, repaired_owners, live)
    for message in chats.messages(session_id):
        if message.role != "assistant" or message.stopped or message.id in live:
            continue
        if message.stats.get("streaming") or message.id in repaired_owners:
            stats = {k: v for k, v in message.stats.items() if k != "streaming"}
            stats["interrupted"] = True
            chats.update_message(message.id, stopped=True, stats=stats)
            changed += 1
    return changed


def _answer_missing(
    chats: ChatRepository, session_id: str, owners: set[str], live: Collection[str]
) -> int:
    messages = chats.messages(session_id)
    last = next(
        (i for i in range(len(messages) - 1, -1, -1) if messages[i].role == "assistant"), None
    )
    if last is None or not messages[last].tool_calls or messages[last].id in live:
        return 0
    asked = messages[last]
    after = messages[last + 1 :]
    if any(m.role != "tool" for m in after):
        return 0
    own = [c for c in chats.tool_calls(session_id) if c.message_id == asked.id]
    added = 0
    for index in range(len(after), len(asked.tool_calls)):
        requested = asked.tool_calls[index]
        record = own[index] if index < len(own) and own[index].name == requested.name else None
        if record is None:
            record = ToolCallRecord(
                call_id=new_id("c"),
                session_id=session_id,
                message_id=asked.id,
                provider_id=requested.id,
                name=requested.name,
                arguments=requested.arguments,
                status="cancelled",
                result=INTERRUPTED_RESULT,
            )
            chats.upsert_tool_call(record)
        result = record.result if record.result is not None else INTERRUPTED_RESULT
        chats.add_message(
            MessageRecord(
                session_id=session_id,
                turn_id=asked.turn_id,
                role="tool",
                content=json.dumps(result, ensure_ascii=False),
                tool_name=record.name,
                tool_call_id=record.provider_id,
            )
        )
        owners.add(asked.id)
        added += 1
    return added
