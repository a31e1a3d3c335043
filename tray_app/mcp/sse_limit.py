"""The SSE transport's 1 MB cap on one event, made a clear error.

The SDK's ``sse_client`` reads each server-sent event through httpx's decoder with its 1 MB
default and offers no knob for it (Streamable HTTP does: ``http_limits.MAX_EVENT``). An answer
over it ends the whole connection with an ``SSEError`` and the call hears only "connection
closed"; the connection's end names the cap, so the call can say what happened.
"""

from __future__ import annotations

SSE_EVENT_LIMIT_MB = 1  # the SDK's sse_client caps each event at 1 MB and has no knob for it


class SseAnswerTooLarge(RuntimeError):
    """A call's answer overflowed the SSE transport's event cap: the SDK drops the whole
    connection with an ``SSEError``, and the call would only hear "connection closed"."""


def overflowed_sse(error: str | None) -> bool:
    """Whether a connection's end (its status error) was the SSE event cap."""
    return bool(error) and "SSEError" in str(error) and "byte limit" in str(error)
