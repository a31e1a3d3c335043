"""The turn and store measures, each next to its peer.

* Core + loop + bus: one answer of 20,000 chunks (and 200,000, to show it stays linear) from
  the fake Ollama server, sent through Core until ``turn_finished`` reaches a subscriber, vs
  the bare provider reading the same stream;
* a long turn: 100 tool rounds (the ``max_rounds`` maximum) after a 2,000-message chat, real
  Core, real SQLite file: the median round of rounds 80–100 vs of rounds 5–25, in CPU time of
  this process less the fake server's (its request grows by design; decoding it is not ours);
* the streaming save of a 1 MB answer (and a 10 KB one) vs a plain ``UPDATE`` of the same text
  in a table without indexes or triggers (same WAL and ``synchronous=FULL``);
* ``list_sessions`` (200 of 1,000 sessions) vs the raw ``LIMIT`` query.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import sqlite3
import statistics
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from bench.speed_peers import _pairs, _row
from tests.fakes._server import _Handler
from tests.fakes.core_rig import make_registry
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.turns import text_turn, tool_turn
from tray_app.base.events import MessageStarted, TurnFailed, TurnFinished
from tray_app.base.messages import ChatMessage
from tray_app.base.paths import AppPaths
from tray_app.core.service import Core
from tray_app.providers.base import ChatRequest, StreamDelta
from tray_app.providers.ollama import OllamaProvider
from tray_app.store.chats import SQLiteChats
from tray_app.store.db import open_database
from tray_app.store.opening import open_chat_store
from tray_app.store.records import MessageRecord
from tray_app.store.settings import Settings


def _cpu_pairs(ours: Any, peer: Any, repeat: int) -> tuple[float, float, float]:
    """Like ``_pairs`` but in CPU seconds of this process (the fake server's included on both
    sides): on a shared, overloaded machine wall time mostly measures the neighbours."""
    mine, theirs, ratios = [], [], []
    for _ in range(repeat):
        start = time.process_time()
        ours()
        middle = time.process_time()
        peer()
        end = time.process_time()
        mine.append(middle - start)
        theirs.append(end - middle)
        ratios.append((middle - start) / (end - middle))
    return statistics.median(mine), statistics.median(theirs), statistics.median(ratios)


TurnEnd = (TurnFinished, TurnFailed)


def _wait_end(sub: Any, timeout: float = 600, server: _ServerCpu | None = None) -> list[Any]:
    """Events until the turn ends, each with this process's CPU time when it was taken off
    the bus and the fake server's CPU so far (``server``, else 0)."""
    seen: list[tuple[float, float, Any]] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        event = sub.get(timeout=deadline - time.monotonic())
        if event is None:
            continue
        seen.append((time.process_time(), server.seconds if server else 0.0, event))
        if isinstance(event, TurnEnd):
            return seen
    raise RuntimeError("the turn did not end in time")


class _ServerCpu:
    """CPU seconds the fake server's request threads spend, counted as they answer: a long
    turn's request grows by design, and decoding it is the stand-in model's work, not ours, so
    the long-turn row takes it out of each round (we measure our CPU per round)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def counting(self) -> Iterator[None]:
        original = _Handler.handle_one_request
        counter = self

        def handle_one_request(handler: BaseHTTPRequestHandler) -> None:
            start = time.thread_time()
            try:
                original(handler)
            finally:
                spent = time.thread_time() - start
                with counter._lock:
                    counter.seconds += spent

        _Handler.handle_one_request = handle_one_request  # type: ignore[method-assign,assignment]
        try:
            yield
        finally:
            _Handler.handle_one_request = original  # type: ignore[method-assign]


def _bare(url: str) -> int:
    async def read() -> int:
        provider = OllamaProvider(url)
        request = ChatRequest(model="llama3.2", messages=[ChatMessage(role="user", content="go")])
        count = 0
        async for item in provider.chat(request):
            count += isinstance(item, StreamDelta)
        await provider.aclose()
        return count

    return asyncio.run(read())


def bench_core_overhead(root: Path) -> list[dict[str, Any]]:
    rows = []
    for chunks, repeat in ((20_000, 5), (200_000, 1)):
        with FakeOllama(default_turn=text_turn("abcd" * chunks, chunk_chars=4)) as fake:
            paths = AppPaths.under(root / f"overhead-{chunks}")
            paths.ensure()
            settings = Settings(endpoint=fake.url, default_model="llama3.2")
            core = Core(settings=settings, paths=paths, persist_settings=False).start()
            try:
                # The consumer takes the end only (the page's pump drains deltas in batches):
                # what is measured is Core, the loop and the bus delivering every event.
                sub = core.bus.subscribe(lambda e: isinstance(e, (TurnFinished, TurnFailed)))
                sid = core.new_session()["id"]

                def through_core(sid: str = sid, sub: Any = sub, core: Core = core) -> None:
                    core.send_message(sid, "go")
                    _wait_end(sub)

                def bare(url: str = fake.url, chunks: int = chunks) -> None:
                    assert _bare(url) == chunks

                if repeat > 1:
                    through_core()  # warm: the first turn builds the event schemas
                ours, peer, ratio = _cpu_pairs(through_core, bare, repeat=repeat)
            finally:
                core.stop()
        label = f"Core + loop + bus, {chunks:,} chunks (CPU)"
        rows.append(_row(label, ours, peer, "bare provider", 1.2, ratio))
    return rows


def _long_chat(paths: AppPaths, messages: int) -> str:
    chats, _ = open_chat_store(paths)
    session = chats.create_session(model="llama3.2", workspace=None, title="long 长 🙂")
    for index in range(messages):
        chats.add_message(
            MessageRecord(
                session_id=session.id,
                turn_id=f"t_{index // 2}",
                role="user" if index % 2 == 0 else "assistant",
                content=f"message {index} 数据 " * 40,
            )
        )
    chats.close()
    return session.id


def _long_turn_rounds(root: Path) -> list[float]:
    """One 100-round turn after a 2,000-message chat: each round's CPU time of this process
    less the fake server's (Core, loop, store, provider)."""
    rounds = 100
    paths = AppPaths.under(root)
    paths.ensure()
    sid = _long_chat(paths, 2000)
    server = _ServerCpu()
    with server.counting(), FakeOllama() as fake:
        fake.script(*[tool_turn([("echo", {"text": f"page {i} 页"})]) for i in range(rounds)])
        settings = Settings(
            endpoint=fake.url,
            default_model="llama3.2",
            max_rounds=rounds,
            allowed_dirs=[str(root)],
        )
        registry = make_registry([], threading.Event())
        chats, _ = open_chat_store(paths)
        core = Core(
            settings=settings,
            paths=paths,
            chats=chats,
            persist_settings=False,
            tool_registry=registry,
        ).start()
        try:
            sub = core.bus.subscribe()
            core.send_message(sid, "read every page")
            seen = _wait_end(sub, server=server)
        finally:
            core.stop()
    starts = [(at, spent) for at, spent, event in seen if isinstance(event, MessageStarted)]
    ends = [(at, spent) for at, spent, event in seen if isinstance(event, TurnEnd)]
    if len(starts) != rounds:
        raise RuntimeError(f"the long turn ran {len(starts)} rounds, not {rounds}")
    return [(b - a) - (d - c) for (a, c), (b, d) in itertools.pairwise([*starts, *ends])]


def bench_long_turn(root: Path, turns: int = 3) -> list[dict[str, Any]]:
    """Rounds 80–100 vs rounds 5–25 (medians), over ``turns`` turns (the median turn): the two
    windows are a second apart, and a burst from a neighbour in one of them moves one turn's
    ratio by ±30% on a loaded machine."""
    late, early, ratios = [], [], []
    for turn in range(turns):
        per_round = _long_turn_rounds(root / f"long-turn-{turn}")
        early.append(statistics.median(per_round[4:25]))  # rounds 5–25
        late.append(statistics.median(per_round[79:100]))  # rounds 80–100
        ratios.append(late[-1] / early[-1])
    measure = "long turn: a round of 80–100 vs of 5–25 (our CPU)"
    ours, peer = statistics.median(late), statistics.median(early)
    return [_row(measure, ours, peer, "rounds 5–25", 1.5, statistics.median(ratios))]


def bench_streaming_save(root: Path) -> list[dict[str, Any]]:
    rows = []
    chats = SQLiteChats(open_database(root / "save" / "chats.db"))
    session = chats.create_session(model="m", workspace=None)
    answer = MessageRecord(session_id=session.id, role="assistant", stats={"streaming": True})
    chats.add_message(answer)
    plain = sqlite3.connect(root / "save" / "plain.db", isolation_level=None)
    plain.execute("PRAGMA journal_mode = WAL")
    plain.execute("PRAGMA synchronous = FULL")
    plain.execute("CREATE TABLE m (id TEXT PRIMARY KEY, content TEXT, thinking TEXT)")
    plain.execute("INSERT INTO m VALUES ('x', '', '')")
    try:
        for size, label in ((1_000_000, "1 MB"), (10_000, "10 KB")):
            text = ("答案 word " * (size // 8))[:size]

            def save(text: str = text) -> None:
                chats.update_message(answer.id, content=text, thinking="")

            def update(text: str = text) -> None:
                plain.execute("BEGIN IMMEDIATE")
                plain.execute("UPDATE m SET content = ?, thinking = '' WHERE id = 'x'", (text,))
                plain.execute("COMMIT")

            ours, peer, ratio = _pairs(save, update, repeat=21)
            measure = f"streaming save of a {label} answer"
            # The target is a cost that follows the text's size like a plain UPDATE does: at 1 MB
            # within 2x of it; at 10 KB the row shows the fixed cost of a save (no target).
            target = 2.0 if size >= 1_000_000 else None
            rows.append(_row(measure, ours, peer, "plain UPDATE", target, ratio))
    finally:
        plain.close()
        chats.close()
    return rows


def bench_list_sessions(root: Path) -> list[dict[str, Any]]:
    path = root / "sessions" / "chats.db"
    chats = SQLiteChats(open_database(path))
    with chats.db.transaction() as conn:
        conn.executemany(
            "INSERT INTO sessions (id, title, model, workspace, created_at, updated_at) "
            "VALUES (?, ?, 'qwen3:8b', NULL, ?, ?)",
            [(f"s_{i:05}", f"chat {i} 对话 🙂", float(i), float(i)) for i in range(1000)],
        )
    raw = sqlite3.connect(path)
    sql = (
        "SELECT id, title, model, workspace, created_at, updated_at FROM sessions "
        "ORDER BY updated_at DESC, id LIMIT 200"
    )
    try:
        ours, peer, ratio = _pairs(
            lambda: chats.list_sessions(limit=200),
            lambda: raw.execute(sql).fetchall(),
            repeat=51,
        )
    finally:
        raw.close()
        chats.close()
    return [_row("list_sessions, 200 of 1,000 sessions", ours, peer, "raw LIMIT", 2.0, ratio)]


def bench_turns_and_store(root: Path) -> list[dict[str, Any]]:
    return [
        *bench_core_overhead(root),
        *bench_long_turn(root),
        *bench_streaming_save(root),
        *bench_list_sessions(root),
    ]


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory(prefix="metona-bench-turns-") as tmp:
        bench_turns_and_store(Path(tmp))
