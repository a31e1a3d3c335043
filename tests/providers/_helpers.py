"""Small helpers for provider tests: drain a stream into what a user would see."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from tray_app.base.messages import ChatMessage
from tray_app.providers.base import ChatRequest, StreamDelta, StreamDone, StreamItem


@dataclass
class Collected:
    deltas: list[StreamDelta] = field(default_factory=list)
    done: StreamDone | None = None
    error: Exception | None = None

    @property
    def thinking(self) -> str:
        return "".join(d.text for d in self.deltas if d.kind == "thinking")

    @property
    def content(self) -> str:
        return "".join(d.text for d in self.deltas if d.kind == "content")


async def collect(stream: AsyncIterator[StreamItem], *, expect_error: bool = False) -> Collected:
    """Drain ``stream``; with ``expect_error`` the error is kept instead of raised."""
    result = Collected()
    try:
        async for item in stream:
            assert result.done is None, "nothing may follow StreamDone"
            if isinstance(item, StreamDone):
                result.done = item
            else:
                result.deltas.append(item)
    except Exception as exc:
        if not expect_error:
            raise
        result.error = exc
    if expect_error:
        assert result.error is not None, "the stream ended without the expected error"
    else:
        assert result.done is not None, "the stream ended without StreamDone"
    return result


def request(model: str = "qwen3:8b", text: str = "hi", **options: Any) -> ChatRequest:
    return ChatRequest(model=model, messages=[ChatMessage(role="user", content=text)], **options)
