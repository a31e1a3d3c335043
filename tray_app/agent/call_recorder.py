"""What a tool call leaves behind: its record, each status, and the tool message.

Kept apart from the decisions (``calls.CallHandler``): every path through a call, whether it
ran, was refused or was stopped, stores and announces itself the same way, so a card never
loses its state and a crash never loses a call's record.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from tray_app.agent.call_results import for_model
from tray_app.agent.stored_images import stored_form
from tray_app.base.events import Publish, ToolCallEvent, ToolCallUpdate
from tray_app.base.messages import ToolCall, ToolCallRecord, ToolStatus, tool_result_images
from tray_app.store.records import ChatRepository, MessageRecord, new_id


class CallRecorder:
    """Stores and publishes one turn's tool calls; remembers which were stored and answered."""

    def __init__(
        self,
        *,
        session_id: str,
        turn_id: str,
        chats: ChatRepository,
        publish: Publish,
        on_tool_record: Callable[[ToolCallRecord], None] | None = None,
        on_message: Callable[[MessageRecord], None] | None = None,
    ) -> None:
        self.session_id = session_id
        self.turn_id = turn_id
        self.chats = chats
        self.publish = publish
        self.on_tool_record = on_tool_record
        self.on_message = on_message  # each tool message stored (the turn's history keeps it)
        self._announced: set[str] = set()
        self._answered: set[str] = set()

    def new_record(self, call: ToolCall, message_id: str) -> ToolCallRecord:
        return ToolCallRecord(
            call_id=new_id("c"),
            session_id=self.session_id,
            message_id=message_id,
            provider_id=call.id,
            name=call.name,
            arguments=call.arguments,
        )

    def announced(self, record: ToolCallRecord) -> bool:
        return record.call_id in self._announced

    def answered(self, record: ToolCallRecord) -> bool:
        return record.call_id in self._answered

    def update(self, record: ToolCallRecord, status: ToolStatus, **fields: Any) -> None:
        """A new status (with its result...): only what changed is written, never the
        arguments or the preview again (the decision may have been set on the record)."""
        record.status = status
        for key, value in fields.items():
            setattr(record, key, value)
        changed = ("status", "decision", "decided_by", *fields)
        self.chats.update_tool_call(
            record.session_id, record.call_id, **{name: getattr(record, name) for name in changed}
        )
        self.publish(
            ToolCallUpdate(
                session_id=self.session_id,
                call_id=record.call_id,
                status=status,
                result=record.result,
                duration_ms=record.duration_ms,
                undoable=record.undoable,
                decision=record.decision,
                decided_by=record.decided_by,
            )
        )

    def answer(self, record: ToolCallRecord, result: dict[str, Any]) -> None:
        """The tool message the model receives, in the order of the calls."""
        self._answered.add(record.call_id)
        message = MessageRecord(
            session_id=self.session_id,
            turn_id=self.turn_id,
            role="tool",
            # ``card_*`` keys and a failure's ``code``/``params`` (the page's translation of the
            # sentence) are for the card, not the text; a result's images go on ``images``.
            content=json.dumps(for_model(result), ensure_ascii=False),
            tool_name=record.name,
            tool_call_id=record.provider_id,
            images=tool_result_images(result),
        )
        # The images are stored once, with the call's result: the store's copy refers to them.
        self.chats.add_message(stored_form(message, record.call_id))
        if self.on_message is not None:
            self.on_message(message)
        if self.on_tool_record is not None:
            self.on_tool_record(record)

    def close(
        self, record: ToolCallRecord, status: ToolStatus, result: dict[str, Any], **fields: Any
    ) -> None:
        """The call's last status and its answer to the model, together."""
        self.update(record, status, result=result, **fields)
        self.answer(record, result)

    def announce(self, record: ToolCallRecord, status: ToolStatus) -> None:
        """The call's record, stored whole the first time; asked again, its new preview."""
        record.status = status
        if record.call_id in self._announced:
            self.chats.update_tool_call(
                record.session_id,
                record.call_id,
                status=status,
                risk=record.risk,
                preview=record.preview,
                decision=record.decision,
                decided_by=record.decided_by,
            )
        else:
            self._announced.add(record.call_id)
            self.chats.upsert_tool_call(record)
        self.publish(ToolCallEvent(session_id=self.session_id, call=record.model_copy()))
