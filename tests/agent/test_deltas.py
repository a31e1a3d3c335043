"""Deltas go to the bus at most once per frame, in order, and nothing pending is held back."""

from __future__ import annotations

import asyncio
import time

from tray_app.agent.deltas import FRAME, DeltaBatcher
from tray_app.base.events import Event

HOSTILE = "长文🙂\u202eabc"


def test_pieces_within_a_frame_are_one_event_in_order() -> None:
    async def run() -> list[Event]:
        sent: list[Event] = []
        batcher = DeltaBatcher(sent.append, "s", "m")
        start = time.monotonic()
        batcher.add("thinking", "think ", start)  # the first piece goes at once
        assert [e.text for e in sent] == ["think "]  # type: ignore[union-attr]
        for index in range(1000):  # all inside the same frame
            batcher.add("thinking", f"{index} ", start + FRAME / 10_000)
        batcher.add("content", HOSTILE, start + FRAME / 5000)  # a switch flushes the thinking
        batcher.add("content", "!", start + FRAME / 4000)
        batcher.flush()
        return sent

    sent = asyncio.run(run())
    assert [e.type for e in sent] == ["thinking_delta", "thinking_delta", "content_delta"]
    texts = [e.text for e in sent]  # type: ignore[union-attr]
    assert texts[1] == "".join(f"{i} " for i in range(1000))
    assert texts[2] == HOSTILE + "!"


def test_a_pending_piece_goes_out_when_the_frame_ends_without_more_input() -> None:
    async def run() -> list[Event]:
        sent: list[Event] = []
        second = asyncio.Event()

        def publish(event: Event) -> None:
            sent.append(event)
            if len(sent) == 2:
                second.set()

        batcher = DeltaBatcher(publish, "s", "m")
        now = time.monotonic()
        batcher.add("content", "a", now)
        batcher.add("content", "b", now)  # waits for the frame's end
        assert len(sent) == 1
        await asyncio.wait_for(second.wait(), timeout=10)
        return sent

    sent = asyncio.run(run())
    assert [e.text for e in sent] == ["a", "b"]  # type: ignore[union-attr]


def test_a_flush_with_nothing_pending_sends_nothing() -> None:
    async def run() -> list[Event]:
        sent: list[Event] = []
        batcher = DeltaBatcher(sent.append, "s", "m")
        batcher.flush()
        batcher.add("content", "x", time.monotonic())
        batcher.flush()
        return sent

    assert len(asyncio.run(run())) == 1
