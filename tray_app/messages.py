"""The chat messages every layer shares: roles, messages and the tool calls a model asks for.

They sit at the bottom of the package tree (beside ``events.py`` and ``errors.py``) because the
store keeps them, the agent builds them, the providers put them on the wire and Core hands them
to the page; none of those should import another for a type.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

Role = Literal["system", "user", "assistant", "tool"]


class ToolCall(BaseModel):
    """One call the model asked for. ``arguments_error`` is set when its JSON did not parse."""

    id: str | None = None
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    arguments_error: str | None = None


class ChatMessage(BaseModel):
    role: Role
    content: str = ""
    thinking: str = ""
    images: list[str] = Field(default_factory=list)  # base64, only sent to vision models
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tool_name: str | None = None
    tool_call_id: str | None = None
