"""Rows of the chat database as records, and back: column lists and value conversions.

Kept apart from ``chats`` (the repository) so each module stays small; the column names equal
the record field names (a test checks none is missing).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import TypeAdapter

from tray_app.base.messages import ToolCall, ToolCallRecord
from tray_app.store.records import CALL_FIXED, MessageRecord, SessionRecord, new_id

_TOOL_CALLS = TypeAdapter(list[ToolCall])
_SESSION_COLUMNS = ("id", "title", "model", "workspace", "created_at", "updated_at")
_MESSAGE_COLUMNS = (
    "id", "session_id", "turn_id", "role", "content", "thinking", "images", "tool_calls",
    "tool_name", "tool_call_id", "model", "created_at", "stats", "stopped", "error",
)  # fmt: skip
_CALL_COLUMNS = (
    "call_id", "session_id", "message_id", "provider_id", "name", "arguments", "risk",
    "preview", "status", "decision", "decided_by", "result", "duration_ms", "created_at",
    "undoable",
)  # fmt: skip
_JSON_MESSAGE_FIELDS = {"images", "stats"}
_JSON_CALL_FIELDS = {"arguments", "preview", "result"}


def _reject_unknown(
    fields: dict[str, Any], known: dict[str, Any], what: str, *, frozen: set[str]
) -> None:
    bad = sorted(name for name in fields if name not in known or name in frozen)
    if bad:
        raise ValueError(f"cannot update {what} field(s): {', '.join(bad)}")


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _message_value(name: str, value: Any) -> Any:
    if name == "tool_calls":
        return _TOOL_CALLS.dump_json(value).decode("utf-8")
    if name in _JSON_MESSAGE_FIELDS:
        return _json(value)
    if name == "stopped":
        return int(bool(value))
    return value


def _call_value(name: str, value: Any) -> Any:
    if name in _JSON_CALL_FIELDS:
        return None if value is None else _json(value)
    if name == "undoable":
        return int(bool(value))
    return value


def _call_update(
    session_id: str, call_id: str, fields: dict[str, Any]
) -> tuple[str, list[Any], dict[str, Any]]:
    """The UPDATE of the given fields of one call, its values, and the fields as validated."""
    _reject_unknown(fields, ToolCallRecord.model_fields, "tool call", frozen=set(CALL_FIXED))
    # Validate only the given fields, with placeholders for the required ones.
    checked = ToolCallRecord.model_validate(
        {"call_id": call_id, "session_id": session_id, "message_id": "", "name": "", **fields}
    )
    columns = list(fields)  # checked against the record's field names above
    values = [_call_value(name, getattr(checked, name)) for name in columns]
    assignments = ", ".join(f"{name} = ?" for name in columns)
    sql = f"UPDATE tool_calls SET {assignments} WHERE session_id = ? AND call_id = ?"  # noqa: S608
    return sql, [*values, session_id, call_id], {name: getattr(checked, name) for name in columns}


def _session(row: tuple[Any, ...]) -> SessionRecord:
    return SessionRecord.model_validate(dict(zip(_SESSION_COLUMNS, row, strict=True)))


def _message(row: tuple[Any, ...]) -> MessageRecord:
    data = dict(zip(_MESSAGE_COLUMNS, row, strict=True))
    data["tool_calls"] = json.loads(data["tool_calls"])
    for name in _JSON_MESSAGE_FIELDS:
        data[name] = json.loads(data[name])
    data["stopped"] = bool(data["stopped"])
    return MessageRecord.model_validate(data)


def _call(row: tuple[Any, ...]) -> ToolCallRecord:
    data = dict(zip(_CALL_COLUMNS, row, strict=True))
    for name in _JSON_CALL_FIELDS:
        if data[name] is not None:
            data[name] = json.loads(data[name])
    data["undoable"] = bool(data["undoable"])
    return ToolCallRecord.model_validate(data)


def _with_new_ids(
    session: SessionRecord, messages: list[MessageRecord], calls: list[ToolCallRecord]
) -> tuple[SessionRecord, list[MessageRecord], list[ToolCallRecord]]:
    new_session = session.model_copy(update={"id": new_id("s")})
    renamed = {m.id: new_id("m") for m in messages}
    new_messages = [
        m.model_copy(update={"id": renamed[m.id], "session_id": new_session.id}) for m in messages
    ]
    new_calls = [
        c.model_copy(
            update={
                "session_id": new_session.id,
                "message_id": renamed.get(c.message_id, c.message_id),
            }
        )
        for c in calls
    ]
    return new_session, new_messages, new_calls
