"""The event union: the wire contract between the core and every consumer.

The popup (``web/js``), the notifications, the terminal mode (``chat --json``) and the tests all
read these. Each event is a pydantic model with a ``type`` literal; ``model_dump_json`` gives
one line and ``parse_event`` reads one back.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter

ToolStatus = Literal["pending", "running", "success", "error", "cancelled"]
Decision = Literal["approved", "denied", "timeout", "cancelled"]
DecidedBy = Literal["popup", "notification", "tray", "terminal", "rule", "timeout", "abort"]
StopReason = Literal["done", "max_rounds", "aborted", "answer_limit"]


class _Event(BaseModel):
    at: float = Field(default_factory=time.time)


class TurnStarted(_Event):
    type: Literal["turn_started"] = "turn_started"
    session_id: str
    turn_id: str
    model: str
    tools_enabled: bool


class Notice(_Event):
    """Something the user should see that is not an error (tools dropped, round limit...)."""

    type: Literal["notice"] = "notice"
    session_id: str
    turn_id: str | None = None
    level: Literal["info", "warning"] = "info"
    code: str
    message: str
    args: dict[str, Any] = Field(default_factory=dict)  # values for the localised text


class MessageStarted(_Event):
    """A new assistant message (one per round) is about to stream."""

    type: Literal["message_started"] = "message_started"
    session_id: str
    turn_id: str
    message_id: str
    round: int
    model: str


class ThinkingDelta(_Event):
    type: Literal["thinking_delta"] = "thinking_delta"
    session_id: str
    message_id: str
    text: str


class ContentDelta(_Event):
    type: Literal["content_delta"] = "content_delta"
    session_id: str
    message_id: str
    text: str


class MessageFinished(_Event):
    type: Literal["message_finished"] = "message_finished"
    session_id: str
    message_id: str
    stopped: bool = False
    stats: dict[str, Any] = Field(default_factory=dict)


class ToolCallEvent(_Event):
    type: Literal["tool_call"] = "tool_call"
    session_id: str
    message_id: str
    call_id: str
    name: str
    args: dict[str, Any]
    risk: str | None
    status: ToolStatus
    preview: dict[str, Any] | None = None


class ToolCallUpdate(_Event):
    type: Literal["tool_call_update"] = "tool_call_update"
    session_id: str
    call_id: str
    status: ToolStatus
    result: dict[str, Any] | None = None
    duration_ms: float | None = None
    undoable: bool = False


class ApprovalNeeded(_Event):
    type: Literal["approval_needed"] = "approval_needed"
    session_id: str
    call_id: str
    name: str
    args: dict[str, Any]
    risk: str
    preview: dict[str, Any]
    can_remember: bool
    expires_at: float


class ApprovalResolved(_Event):
    type: Literal["approval_resolved"] = "approval_resolved"
    session_id: str
    call_id: str
    decision: Decision
    by: DecidedBy


class TurnFinished(_Event):
    type: Literal["turn_finished"] = "turn_finished"
    session_id: str
    turn_id: str
    stop_reason: StopReason
    rounds: int
    stats: dict[str, Any] = Field(default_factory=dict)


class TurnFailed(_Event):
    type: Literal["turn_failed"] = "turn_failed"
    session_id: str
    turn_id: str
    code: str
    message: str


class SessionUpdated(_Event):
    type: Literal["session_updated"] = "session_updated"
    session: dict[str, Any]
    deleted: bool = False


class ModelsUpdated(_Event):
    type: Literal["models_updated"] = "models_updated"
    models: list[dict[str, Any]]
    error: str | None = None


class SettingsUpdated(_Event):
    type: Literal["settings_updated"] = "settings_updated"
    settings: dict[str, Any]


class PullProgressEvent(_Event):
    type: Literal["pull_progress"] = "pull_progress"
    model: str
    status: str
    completed: int | None = None
    total: int | None = None
    done: bool = False
    error: str | None = None


class UndoApplied(_Event):
    type: Literal["undo_applied"] = "undo_applied"
    call_id: str | None
    path: str | None
    action: str


class StateChanged(_Event):
    """The app-wide state the tray badge shows."""

    type: Literal["state_changed"] = "state_changed"
    state: Literal["idle", "working", "waiting", "error"]
    pending: int = 0


Event = Annotated[
    TurnStarted
    | Notice
    | MessageStarted
    | ThinkingDelta
    | ContentDelta
    | MessageFinished
    | ToolCallEvent
    | ToolCallUpdate
    | ApprovalNeeded
    | ApprovalResolved
    | TurnFinished
    | TurnFailed
    | SessionUpdated
    | ModelsUpdated
    | SettingsUpdated
    | PullProgressEvent
    | UndoApplied
    | StateChanged,
    Field(discriminator="type"),
]

EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)


def parse_event(text: str | bytes) -> Event:
    return EVENT_ADAPTER.validate_json(text)
