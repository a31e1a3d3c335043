"""What looking for calls left in the text costs a plain answer of 50,000 4-character pieces:
the same pieces through the streaming gate plus the one extraction at the end (what a turn
with tools adds), against the core thread's CPU for the whole answer (the fake Ollama over
HTTP on loopback, the provider, the loop, the bus; the budget: under 5 %), and against the
bare in-process loop (no HTTP, no events: the smallest possible base). The gate looks at each
piece once; re-scanning the whole answer at every piece would be quadratic and show at once.

    python -m bench.text_calls
"""

from __future__ import annotations

import asyncio
import tempfile
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path

from pydantic import BaseModel

from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import text_turn
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
    StreamDone,
    StreamItem,
)
from tray_app.providers.text_calls import extract_calls
from tray_app.providers.text_calls.gate import TextCallGate
from tray_app.store.records import MemoryChats, MessageRecord
from tray_app.store.settings import Settings

PIECES = 50_000
#: Prose with the characters that make the gate look closer: links, a < b, code.
TEXT = "Plain answer text with a [link](https://x.y) and a < b, `code` and 中文 🙂. "
PROSE = "A plain answer in prose, the kind most turns end with, 中文 and 🙂 included. "
OFFERED = frozenset({"read_file", "write_file", "edit_file", "list_directory"})


def _pieces(text: str = TEXT) -> list[str]:
    text = text * (PIECES * 4 // len(text) + 1)
    return [text[i : i + 4] for i in range(0, PIECES * 4, 4)]


def _thread_cpu(thread: threading.Thread) -> float:
    """CPU seconds one thread has used (Linux and macOS); the process's elsewhere."""
    try:
        return time.clock_gettime(time.pthread_getcpuclockid(thread.ident or 0))
    except (AttributeError, OSError):
        return time.process_time()


def _core_cpu(root: Path, text: str) -> float:
    """The core thread's CPU for one answer of ``PIECES`` pieces, tools offered."""
    with FakeOllama() as fake:
        paths = AppPaths.under(root)
        paths.ensure()
        settings = Settings(endpoint=fake.url, default_model="qwen3:8b", allowed_dirs=[str(root)])
        core = Core(settings=settings, paths=paths, persist_settings=False).start()
        try:
            (thread,) = [t for t in threading.enumerate() if t.name == "metona-core"]
            sub = core.bus.subscribe()
            fake.script(text_turn(text[: PIECES * 4], chunk_chars=4))
            sid = core.new_session()["id"]
            cpu = _thread_cpu(thread)
            core.send_message(sid, "go")
            end: object = None
            while not isinstance(end, (TurnFinished, TurnFailed)):
                end = sub.get(timeout=120)
                if end is None:
                    raise RuntimeError("no end of the turn within 120 s")
            return _thread_cpu(thread) - cpu
        finally:
            core.stop()


class _PlainProvider:
    kind = "bench"
    endpoint = "in-process"

    def __init__(self, pieces: list[str]) -> None:
        self.pieces = pieces

    async def chat(self, request: ChatRequest) -> AsyncIterator[StreamItem]:
        for number, piece in enumerate(self.pieces):
            yield StreamDelta(kind="content", text=piece)
            if number % 1000 == 0:
                await asyncio.sleep(0)
        yield StreamDone(done_reason="stop")

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


def _loop_cpu(pieces: list[str]) -> float:
    chats = MemoryChats()
    session = chats.create_session(model="m", workspace=None)
    chats.add_message(
        MessageRecord(session_id=session.id, turn_id="t_1", role="user", content="go")
    )

    def publish(event: BaseModel) -> None:
        return None

    turn = AgentTurn(
        session_id=session.id,
        turn_id="t_1",
        provider=_PlainProvider(pieces),
        toolbox=None,
        broker=ApprovalBroker(publish, timeout=60),
        chats=chats,
        publish=publish,
        config=TurnConfig(model="m", settings=Settings(tools_enabled=False)),
    )
    cpu = time.process_time()
    reason = asyncio.run(turn.run())
    assert reason == "done", reason
    return time.process_time() - cpu


def _gate_cpu(pieces: list[str]) -> float:
    cpu = time.process_time()
    gate = TextCallGate(OFFERED)
    shown = [gate.feed(piece) for piece in pieces]
    found = extract_calls("".join(shown) + gate.held(), OFFERED)
    cpu = time.process_time() - cpu
    assert not found.changed and "".join(shown) == "".join(pieces)
    return cpu


def bench_text_calls() -> None:
    for label, text in (("prose", PROSE), ("links, a < b, code", TEXT)):
        pieces = _pieces(text)
        gate = min(_gate_cpu(pieces) for _ in range(3))
        loop = min(_loop_cpu(pieces) for _ in range(3))
        with tempfile.TemporaryDirectory(prefix="metona-bench-calls-") as tmp:
            core = _core_cpu(Path(tmp), "".join(pieces))
        share = gate / core * 100
        verdict = "ok" if share < 5 else "OVER the 5 % budget"
        print(
            f"calls   text-call gate, {PIECES:,} pieces of {label}: {gate * 1000:6.1f} ms CPU, "
            f"{share:.1f} % of the core thread's {core * 1000:.0f} ms ({verdict}), "
            f"{gate / loop * 100:.0f} % of the bare loop's {loop * 1000:.0f} ms"
        )


if __name__ == "__main__":
    bench_text_calls()
