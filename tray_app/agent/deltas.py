"""Streamed text handed to the bus at most once per frame, not once per chunk.

A model sends a few characters per chunk; one event per chunk cost every consumer (the bus,
the popup's pump, the page, ``chat --json``) a message per chunk: Core + loop + bus took ~1.5x
the bare provider's time on a 20,000-chunk answer. Pieces that arrive within ``FRAME`` of the
last event are joined and sent together; the first piece goes at once (no delay before the
first token), a pending piece goes when the frame ends even if the stream falls quiet, and a
change between thinking and answer text, a notice or the end of the stream flushes first, so
the order of everything a consumer sees is unchanged.
"""

from __future__ import annotations

import asyncio
import time
from typing import Literal

from tray_app.base.events import ContentDelta, Publish, ThinkingDelta

FRAME = 0.016  # seconds: a display frame; nothing waits longer than this to be shown

Kind = Literal["thinking", "content"]


class DeltaBatcher:
    """The deltas of one streaming message."""

    def __init__(self, publish: Publish, session_id: str, message_id: str) -> None:
        self._publish = publish
        self._session_id = session_id
        self._message_id = message_id
        self._kind: Kind = "content"
        self._parts: list[str] = []
        self._last = float("-inf")  # when the last event went out
        self._timer: asyncio.TimerHandle | None = None

    def add(self, kind: Kind, text: str, now: float) -> None:
        if self._parts and kind != self._kind:
            self.flush()
        self._kind = kind
        self._parts.append(text)
        waited = now - self._last
        if waited >= FRAME:
            self.flush(now)
        elif self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(FRAME - waited, self.flush)

    def flush(self, now: float | None = None) -> None:
        """Send what is pending now (also called by the frame's timer)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not self._parts:
            return
        text = "".join(self._parts)
        self._parts = []
        self._last = time.monotonic() if now is None else now
        if self._kind == "thinking":
            self._publish(
                ThinkingDelta(session_id=self._session_id, message_id=self._message_id, text=text)
            )
        else:
            self._publish(
                ContentDelta(session_id=self._session_id, message_id=self._message_id, text=text)
            )
