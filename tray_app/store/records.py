"""What a chat is made of, and the repository interface the agent keeps it through.

``MemoryChats`` keeps everything in memory (tests, ``--no-history``); the SQLite store in
``store/chats.py`` implements the same ``ChatRepository`` so a chat survives restarts.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Collection
from typing import Any, Protocol

from pydantic import BaseModel, Field

from tray_app.base.messages import ChatMessage, Role, ToolCall, ToolCallRecord

#: What a call is from its start on; everything else is its state (``update_tool_call``).
CALL_FIXED = frozenset(
    {"call_id", "session_id", "message_id", "provider_id", "name", "arguments", "created_at"}
)

#: How much of a turn's question the change history shows (it names the turn; the chat has
#: the rest).
PROMPT_SHOWN = 200


def new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:16]}"


class SessionRecord(BaseModel):
    id: str = Field(default_factory=lambda: new_id("s"))
    title: str = ""
    model: str = ""
    workspace: str | None = None
    created_at: float = Field(default_factory=time.time)
    updated_at: float = Field(default_factory=time.time)


class MessageRecord(BaseModel):
    id: str = Field(default_factory=lambda: new_id("m"))
    session_id: str
    turn_id: str | None = None
    role: Role
    content: str = ""
    thinking: str = ""
    images: list[str] = Field(default_factory=list)
    tool_calls: list[ToolCall] = Field(default_factory=list)  # assistant: what the model asked
    tool_name: str | None = None  # tool: which tool answered
    tool_call_id: str | None = None  # tool: the provider id of the call answered
    model: str | None = None
    created_at: float = Field(default_factory=time.time)
    stats: dict[str, Any] = Field(default_factory=dict)
    stopped: bool = False
    error: str | None = None

    def to_chat_message(self) -> ChatMessage:
        return ChatMessage(
            role=self.role,
            content=self.content,
            thinking=self.thinking,
            images=self.images,
            tool_calls=self.tool_calls,
            tool_name=self.tool_name,
            tool_call_id=self.tool_call_id,
        )


SessionCursor = tuple[float, str]
"""Where a page of the session list continues: (updated_at, id) of the last session shown."""


def session_order(session: SessionRecord) -> tuple[float, str]:
    """The session list's order: newest-updated first, the id breaks ties (keyset paging)."""
    return (-session.updated_at, session.id)


def after_cursor(session: SessionRecord, before: SessionCursor | None) -> bool:
    """Whether ``session`` comes after the cursor in the list's order."""
    return before is None or session_order(session) > (-before[0], before[1])


class ChatRepository(Protocol):
    """Where sessions, messages and tool calls live. Called from the core thread only."""

    def create_session(
        self, *, model: str, workspace: str | None, title: str = ""
    ) -> SessionRecord: ...

    def get_session(self, session_id: str) -> SessionRecord | None: ...

    def list_sessions(
        self, query: str | None = None, limit: int = 200, before: SessionCursor | None = None
    ) -> list[SessionRecord]:
        """Newest-updated first (the id breaks ties); ``query`` filters titles (case-insensitive
        substring); ``before`` continues after that cursor (keyset paging)."""

    def update_session(self, session_id: str, **fields: Any) -> SessionRecord: ...

    def delete_session(self, session_id: str) -> None: ...

    def add_message(self, message: MessageRecord) -> None: ...

    def update_message(self, message_id: str, **fields: Any) -> None: ...

    def delete_messages_from(self, session_id: str, message_id: str) -> None:
        """Remove a message and everything after it (edit-and-resend, retry)."""

    def messages(self, session_id: str) -> list[MessageRecord]: ...

    def messages_page(
        self, session_id: str, *, before: str | None = None, limit: int = 50
    ) -> tuple[list[MessageRecord], bool]:
        """The last ``limit`` messages before message ``before`` (or the end), oldest first,
        and whether older ones remain. KeyError when ``before`` is not in the session."""

    def upsert_tool_call(self, record: ToolCallRecord) -> None:
        """Insert, or update by call id; the arguments are stored once and never rewritten."""

    def update_tool_call(self, session_id: str, call_id: str, /, **fields: Any) -> None:
        """Write only the given fields of a stored call (its state as it runs: status, result,
        preview...), so a status change does not serialise the arguments, preview and result
        again. ``CALL_FIXED`` fields cannot change; an unknown call is ignored."""

    def tool_calls(
        self, session_id: str, message_ids: Collection[str] | None = None
    ) -> list[ToolCallRecord]:
        """The session's calls in order; only those of ``message_ids`` when given."""

    def close(self) -> None: ...


class MemoryChats:
    """An in-memory ChatRepository."""

    def __init__(self) -> None:
        self._sessions: dict[str, SessionRecord] = {}
        self._messages: dict[str, list[MessageRecord]] = {}
        self._calls: dict[str, dict[str, ToolCallRecord]] = {}

    def create_session(
        self, *, model: str, workspace: str | None, title: str = ""
    ) -> SessionRecord:
        record = SessionRecord(model=model, workspace=workspace, title=title)
        self._sessions[record.id] = record
        self._messages[record.id] = []
        self._calls[record.id] = {}
        return record

    def get_session(self, session_id: str) -> SessionRecord | None:
        return self._sessions.get(session_id)

    def list_sessions(
        self, query: str | None = None, limit: int = 200, before: SessionCursor | None = None
    ) -> list[SessionRecord]:
        items = sorted(self._sessions.values(), key=session_order)
        needle = query.casefold() if query else ""
        return [s for s in items if after_cursor(s, before) and needle in s.title.casefold()][
            : max(limit, 0)
        ]

    def update_session(self, session_id: str, **fields: Any) -> SessionRecord:
        current = self._sessions[session_id]
        updated = current.model_copy(update={**fields, "updated_at": time.time()})
        self._sessions[session_id] = updated
        return updated

    def delete_session(self, session_id: str) -> None:
        self._sessions.pop(session_id, None)
        self._messages.pop(session_id, None)
        self._calls.pop(session_id, None)

    def add_message(self, message: MessageRecord) -> None:
        self._messages.setdefault(message.session_id, []).append(message)

    def update_message(self, message_id: str, **fields: Any) -> None:
        for items in self._messages.values():
            for index, item in enumerate(items):
                if item.id == message_id:
                    items[index] = item.model_copy(update=fields)
                    return

    def delete_messages_from(self, session_id: str, message_id: str) -> None:
        items = self._messages.get(session_id, [])
        for index, item in enumerate(items):
            if item.id == message_id:
                removed = {m.id for m in items[index:]}
                del items[index:]
                calls = self._calls.get(session_id, {})
                for call_id in [c for c, r in calls.items() if r.message_id in removed]:
                    del calls[call_id]
                return

    def messages(self, session_id: str) -> list[MessageRecord]:
        return list(self._messages.get(session_id, []))

    def messages_page(
        self, session_id: str, *, before: str | None = None, limit: int = 50
    ) -> tuple[list[MessageRecord], bool]:
        items = self._messages.get(session_id, [])
        end = len(items)
        if before is not None:
            end = next((i for i, m in enumerate(items) if m.id == before), -1)
            if end < 0:
                raise KeyError(f"no message {before!r} in session {session_id!r}")
        start = max(0, end - max(limit, 0))
        return list(items[start:end]), start > 0

    def upsert_tool_call(self, record: ToolCallRecord) -> None:
        calls = self._calls.setdefault(record.session_id, {})
        first = calls.get(record.call_id)
        if first is not None and first.arguments is not record.arguments:
            record = record.model_copy(update={"arguments": first.arguments})
        calls[record.call_id] = record

    def update_tool_call(self, session_id: str, call_id: str, /, **fields: Any) -> None:
        fixed = sorted(set(fields) & CALL_FIXED)
        if fixed:
            raise ValueError(f"cannot update tool call field(s): {', '.join(fixed)}")
        calls = self._calls.get(session_id, {})
        found = calls.get(call_id)
        if found is not None:
            calls[call_id] = found.model_copy(update=fields)

    def tool_calls(
        self, session_id: str, message_ids: Collection[str] | None = None
    ) -> list[ToolCallRecord]:
        calls = self._calls.get(session_id, {}).values()
        if message_ids is None:
            return list(calls)
        wanted = set(message_ids)
        return [c for c in calls if c.message_id in wanted]

    def call_origins(self, call_ids: Collection[str]) -> dict[str, dict[str, str | None]]:
        """Chat, title, turn and the turn's question of each tool call (the change history
        groups by turn)."""
        wanted = set(call_ids)
        found: dict[str, dict[str, str | None]] = {}
        for session_id, calls in self._calls.items():
            turns = {m.id: m.turn_id for m in self._messages.get(session_id, [])}
            prompts: dict[str | None, str] = {}
            for message in self._messages.get(session_id, []):
                if message.role == "user" and message.turn_id not in prompts:
                    prompts[message.turn_id] = message.content[:PROMPT_SHOWN]
            session = self._sessions.get(session_id)
            for call in calls.values():
                if call.call_id in wanted:
                    turn_id = turns.get(call.message_id)
                    found[call.call_id] = {
                        "session_id": session_id,
                        "turn_id": turn_id,
                        "session_title": session.title if session else None,
                        "turn_prompt": prompts.get(turn_id) if turn_id is not None else None,
                    }
        return found

    def close(self) -> None:
        return None
