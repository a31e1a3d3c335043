"""The agent loop under its bounds: an answer that never ends, and a flood of tool calls.

The endless answer comes from an in-process provider (no HTTP), so the number is the loop's own
cost per character up to ``max_answer_chars``; before the answer grew in a part list, a million
characters in 4-character deltas took ~50 s of CPU in string copies alone. The 500-call round
runs through the real Core and the fake Ollama over HTTP on loopback.

    python -m bench.loop_bounds
"""

from __future__ import annotations

import asyncio
import tempfile
import threading
import time
import tracemalloc
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from tests.fakes.core_rig import make_registry
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import text_turn, tool_turn
from tray_app.agent.approval import ApprovalBroker
from tray_app.agent.loop import AgentTurn, TurnConfig
from tray_app.base.events import TurnFailed, TurnFinished
from tray_app.base.paths import AppPaths
from tray_app.core.service import Core
from tray_app.providers.base import (
    ChatRequest,
    ModelInfo,
    PullProgress,
    StreamDelta,
    StreamItem,
)
from tray_app.store.records import MemoryChats, MessageRecord
from tray_app.store.settings import Settings

ANSWER_LIMIT = 1_000_000


class _EndlessProvider:
    """Streams 4-character deltas until the consumer stops reading."""

    kind = "bench"
    endpoint = "in-process"

    def __init__(self) -> None:
        self.sent = 0

    async def chat(self, request: ChatRequest) -> AsyncIterator[StreamItem]:
        while True:
            self.sent += 1
            yield StreamDelta(kind="content", text="答案🙂a")
            if self.sent % 1000 == 0:
                await asyncio.sleep(0)

    async def list_models(self) -> list[ModelInfo]:
        return [ModelInfo(name="m", capabilities=["completion"])]

    async def model_info(self, model: str) -> ModelInfo:
        return ModelInfo(name=model, capabilities=["completion"])

    async def version(self) -> str:
        return "bench"

    async def pull(self, model: str) -> AsyncIterator[PullProgress]:
        yield PullProgress(status="success")

    async def aclose(self) -> None:
        return None


def bench_answer_limit() -> None:
    chats = MemoryChats()
    session = chats.create_session(model="m", workspace=None)
    chats.add_message(
        MessageRecord(session_id=session.id, turn_id="t_1", role="user", content="go")
    )
    events = [0]

    def publish(event: BaseModel) -> None:
        events[0] += 1

    provider = _EndlessProvider()
    turn = AgentTurn(
        session_id=session.id,
        turn_id="t_1",
        provider=provider,
        toolbox=None,
        broker=ApprovalBroker(publish, timeout=60),
        chats=chats,
        publish=publish,
        config=TurnConfig(
            model="m",
            settings=Settings(tools_enabled=False, max_answer_chars=ANSWER_LIMIT),
        ),
    )
    tracing = tracemalloc.is_tracing()
    if tracing:
        tracemalloc.reset_peak()
    before = tracemalloc.get_traced_memory()[0] if tracing else 0
    cpu, wall = time.process_time(), time.perf_counter()
    reason = asyncio.run(turn.run())
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    peak = (
        f", peak +{(tracemalloc.get_traced_memory()[1] - before) / 1e6:.0f} MB" if tracing else ""
    )
    (answer,) = [m for m in chats.messages(session.id) if m.role == "assistant"]
    assert reason == "answer_limit" and len(answer.content) == ANSWER_LIMIT, reason
    print(
        f"loop    1M-char answer in 4-char deltas, cut {wall:8.2f} s wall {cpu:6.2f} s CPU "
        f"({provider.sent} deltas, {events[0]} events{peak})"
    )


def bench_many_calls(root: Path) -> None:
    calls = 500
    with FakeOllama() as fake:
        paths = AppPaths.under(root / "calls")
        paths.ensure()
        settings = Settings(endpoint=fake.url, default_model="qwen3:8b", allowed_dirs=[str(root)])
        registry = make_registry([], threading.Event())
        core = Core(
            settings=settings, paths=paths, persist_settings=False, tool_registry=registry
        ).start()
        try:
            sub = core.bus.subscribe()
            fake.script(
                tool_turn([("echo", {"text": f"call {i}"}) for i in range(calls)]),
                text_turn("done"),
            )
            sid = core.new_session()["id"]
            start = time.perf_counter()
            core.send_message(sid, "go")
            end: Any = None
            while not isinstance(end, (TurnFinished, TurnFailed)):
                end = sub.get(timeout=120)
                if end is None:
                    raise RuntimeError("no end of the turn within 120 s")
            elapsed = time.perf_counter() - start
            sent = len(fake.chat_requests[-1]["messages"])
        finally:
            core.stop()
    print(
        f"loop    {calls} calls in one round (16 run)    {elapsed:8.2f} s "
        f"({sent} messages in the next request)"
    )


def bench_loop_bounds() -> None:
    bench_answer_limit()
    with tempfile.TemporaryDirectory(prefix="metona-bench-") as tmp:
        bench_many_calls(Path(tmp))


if __name__ == "__main__":
    bench_loop_bounds()
