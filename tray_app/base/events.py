"""The event union: the wire contract between the core and every consumer.

The popup (``web/js``), the notifications, the terminal mode (``chat --json``) and the tests all
read these. Each event is a pydantic model with a ``type`` literal; ``model_dump_json`` gives
one line and ``parse_event`` reads one back. Everything the page receives is a member of the
union, the tray's ``ui_action`` requests included, and every code the page translates is a
``Literal`` here: ``tests/core/test_events_contract.py`` fails when ``web/js/chat/events.js`` or
``web/locales`` fall out of step with this file.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from tray_app.base.messages import ToolCallRecord, ToolStatus

Decision = Literal["approved", "denied", "timeout", "cancelled"]
#: Who answered a call; ``mcp_flag``: the MCP client's ``mcp serve --yes`` / ``--yes-all``.
DecidedBy = Literal[
    "popup", "notification", "tray", "terminal", "rule", "mcp_flag", "timeout", "abort"
]
#: What ``metona-tray mcp serve`` was started with: it approves that client's calls only.
ClientFlag = Literal["yes", "yes_all"]
StopReason = Literal["done", "max_rounds", "aborted", "answer_limit"]
#: What a ``Notice`` is about; the page shows ``notice.<code>`` from ``web/locales``.
NoticeCode = Literal[
    "tools_unsupported",
    "tools_off",
    "images_unsupported",
    "max_rounds",
    "answer_limit",
    "answer_cut",
    "answer_incomplete",
    "thinking_only",
    "empty_answer",
    "text_call_unusable",
    "too_many_calls",
    "server_busy_retry",
    "waiting_for_model",
    "history_not_saved",
    "history_saved",
    "nothing_changed",
    "history_summarized",
    "summary_failed",
]
#: Why a turn failed; the page shows ``error.<code>`` from ``web/locales``.
FailureCode = Literal[
    "provider_unavailable",
    "model_not_found",
    "no_models",
    "capability",
    "stream_error",
    "provider_error",
    "store_error",
    "internal",
]
#: What the tray menu or a notification click asks the page to show.
UiActionName = Literal["open_settings", "open_session", "show_pending", "confirm_auto"]


class _Event(BaseModel):
    # Each event's schema is built when one is first made, not at import: a one-shot
    # `chat` uses a few of the nineteen (start-up).
    model_config = ConfigDict(defer_build=True)

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
    code: NoticeCode
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
    """A message is complete. ``content``/``thinking`` are set when its final texts are not
    what streamed (a call taken from the text, reasoning recognised at the end): show these."""

    type: Literal["message_finished"] = "message_finished"
    session_id: str
    message_id: str
    stopped: bool = False
    stats: dict[str, Any] = Field(default_factory=dict)
    content: str | None = None
    thinking: str | None = None


class ToolCallEvent(_Event):
    """A call appeared, or its preview changed (asked again): the whole record, as stored."""

    type: Literal["tool_call"] = "tool_call"
    session_id: str
    call: ToolCallRecord


class ToolCallUpdate(_Event):
    """What changed on a call since its ``tool_call`` event, under the record's field names;
    besides them only ``progress``, which lives on the page while the call runs (not stored)."""

    type: Literal["tool_call_update"] = "tool_call_update"
    session_id: str
    call_id: str
    status: ToolStatus
    result: dict[str, Any] | None = None
    duration_ms: float | None = None
    undoable: bool = False
    decision: str | None = None
    decided_by: str | None = None
    # A running call's progress (an MCP server's notifications): {done, total, message}.
    progress: dict[str, Any] | None = None


class ApprovalNeeded(_Event):
    """A call waits for the user; ``name``/``arguments``/``risk``/``preview`` as in its record."""

    type: Literal["approval_needed"] = "approval_needed"
    session_id: str
    call_id: str
    name: str
    arguments: dict[str, Any]
    risk: str
    preview: dict[str, Any]
    can_remember: bool
    expires_at: float
    #: The folder a lasting rule made from this card covers ("Always allow <tool> in
    #: <folder>" / "Never"): None for a tool that names no path (it covers the tool anywhere).
    rule_folder: str | None = None
    #: False when no lasting rule is offered (the call's paths share no folder but the root:
    #: a rule there would cover everything).
    can_rule: bool = True


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
    code: FailureCode
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
    #: Why it failed, for the page's words: ``model_not_found`` (the server has no model of
    #: that name), else None (``error`` is the server's own text).
    error_code: Literal["model_not_found"] | None = None


class UndoApplied(_Event):
    type: Literal["undo_applied"] = "undo_applied"
    call_id: str | None
    path: str | None
    action: str
    #: Set when it was one of a whole turn's undo: its report says it, not one toast per file.
    turn_id: str | None = None


class StateChanged(_Event):
    """The app-wide state the tray badge shows."""

    type: Literal["state_changed"] = "state_changed"
    state: Literal["idle", "working", "waiting", "error"]
    pending: int = 0


class McpStatus(_Event):
    """The MCP servers' status, last errors or tool lists changed: Settings › Tool servers
    redraws from it instead of asking. ``servers`` is what ``Core.mcp_status`` answers."""

    type: Literal["mcp_status"] = "mcp_status"
    servers: list[dict[str, Any]]


class UiAction(_Event):
    """A request from the tray menu or a notification click to the page; never from Core.

    It travels in the same batches as Core's events, so it lands after what came before it."""

    type: Literal["ui_action"] = "ui_action"
    action: UiActionName
    session_id: str | None = None
    call_id: str | None = None


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
    | StateChanged
    | McpStatus
    | UiAction,
    Field(discriminator="type"),
]

#: What the agent and Core are handed to send events (the bus's ``publish``).
Publish = Callable[[Event], None]


@functools.cache
def _event_adapter() -> TypeAdapter[Event]:
    """Built on first use (it builds every event's schema): only readers of event lines."""
    return TypeAdapter(Event)


def parse_event(text: str | bytes) -> Event:
    return _event_adapter().validate_json(text)
