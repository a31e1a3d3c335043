"""A long turn (100 rounds, the ``max_rounds`` maximum) after a long chat.

What each round does is counted, not timed: the chat is read from the store once per turn,
every stored message is converted once, the token estimates per round stay constant, and every
request fits ``num_ctx`` although the turn's tool results add up to many times the window.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from tray_app.agent import context, history
from tray_app.agent.approval import ApprovalBroker
from tray_app.agent.context import message_tokens
from tray_app.agent.loop import AgentTurn, TurnConfig
from tray_app.agent.summary import INSTRUCTIONS
from tray_app.base.messages import ToolCall
from tray_app.providers.base import (
    ChatRequest,
    ModelInfo,
    PullProgress,
    StreamDelta,
    StreamDone,
    StreamItem,
)
from tray_app.store.records import MemoryChats, MessageRecord
from tray_app.store.settings import Settings
from tray_app.tools.base import Risk, Tool, ToolContext
from tray_app.tools.registry import ToolRegistry
from tray_app.tools.sandbox.policy import SandboxPolicy
from tray_app.tools.toolbox import Toolbox

ROUNDS = 100
NUM_CTX = 24_576
RESULT = "长文🙂 result text \u202eabc " * 400  # ~8,800 characters, ~3,400 tokens each


class FetchArgs(BaseModel):
    page: int


def _fetch(ctx: ToolContext, args: FetchArgs) -> dict[str, Any]:
    return {"success": True, "page": args.page, "text": RESULT}


class ToolCallingProvider:
    """Asks for one more page in every round; keeps each request it was sent."""

    kind = "test"
    endpoint = "in-process"

    def __init__(self) -> None:
        self.requests: list[ChatRequest] = []
        self.summaries: list[ChatRequest] = []  # asked for a summary of older messages

    async def chat(self, request: ChatRequest) -> AsyncIterator[StreamItem]:
        if request.messages[0].content == INSTRUCTIONS:
            self.summaries.append(request)
            yield StreamDelta(kind="content", text="The user had pages read before. 🙂")
            yield StreamDone()
            return
        self.requests.append(request)
        page = len(self.requests)
        yield StreamDelta(kind="thinking", text=f"第 {page} 页 " * 20)
        yield StreamDelta(kind="content", text=f"Reading page {page}.")
        yield StreamDone(
            tool_calls=[ToolCall(id=f"c{page}", name="fetch", arguments={"page": page})]
        )

    async def list_models(self) -> list[ModelInfo]:
        return [await self.model_info("m")]

    async def model_info(self, model: str) -> ModelInfo:
        return ModelInfo(name=model, capabilities=["completion", "tools", "thinking"])

    async def version(self) -> str:
        return "test"

    async def pull(self, model: str) -> AsyncIterator[PullProgress]:
        yield PullProgress(status="success")

    async def aclose(self) -> None:
        return None


def _long_chat(chats: MemoryChats, session_id: str, count: int) -> None:
    for index in range(count):
        chats.add_message(
            MessageRecord(
                session_id=session_id,
                turn_id=f"t_old{index // 2}",
                role="user" if index % 2 == 0 else "assistant",
                content=f"earlier {index} 数据 " * 30,
                thinking="old thoughts " * 10,
            )
        )


def _run_turn(
    chats: MemoryChats, session_id: str, tmp_path: Path
) -> tuple[str, ToolCallingProvider]:
    chats.add_message(
        MessageRecord(session_id=session_id, turn_id="t_now", role="user", content="read all 🙂")
    )
    provider = ToolCallingProvider()
    registry = ToolRegistry([Tool("fetch", "Fetch a page.", FetchArgs, Risk.READ, _fetch)])
    toolbox = Toolbox(
        SandboxPolicy(allowed_dirs=[tmp_path], workspace=tmp_path, home=tmp_path), registry=registry
    )
    events: list[BaseModel] = []
    turn = AgentTurn(
        session_id=session_id,
        turn_id="t_now",
        provider=provider,
        toolbox=toolbox,
        broker=ApprovalBroker(events.append, timeout=60),
        chats=chats,
        publish=events.append,
        config=TurnConfig(model="m", settings=Settings(max_rounds=ROUNDS, num_ctx=NUM_CTX)),
    )
    return asyncio.run(turn.run()), provider


class CountingChats(MemoryChats):
    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    def messages(self, session_id: str) -> list[MessageRecord]:
        self.reads += 1
        return super().messages(session_id)


def test_a_100_round_turn_fits_num_ctx_and_keeps_the_newest_result(tmp_path: Path) -> None:
    chats = CountingChats()
    session = chats.create_session(model="m", workspace=None)
    _long_chat(chats, session.id, 400)
    reason, provider = _run_turn(chats, session.id, tmp_path)
    # The 400 earlier messages do not fit: the model is asked once for a summary of the oldest
    # (agent.summary), in a request that fits the context too.
    (summary,) = provider.summaries
    assert sum(message_tokens(m) for m in summary.messages) <= NUM_CTX
    rounds = provider.requests
    assert reason == "max_rounds" and len(rounds) == ROUNDS
    assert chats.reads == 1  # the chat is read once per turn, not once per round
    for number, request in enumerate(rounds, start=1):
        sent = request.messages
        assert sum(message_tokens(m) for m in sent) <= NUM_CTX
        user = [m for m in sent if m.role == "user" and m.content == "read all 🙂"]
        assert len(user) == 1  # the turn's own question is always there
        tools = [m for m in sent if m.role == "tool"]
        if number > 1:  # the result just asked for is whole
            assert RESULT in tools[-1].content and f'"page": {number - 1}' in tools[-1].content
        # Every tool result still follows the assistant message that asked for it.
        for index, message in enumerate(sent):
            if message.role == "tool":
                assert sent[index - 1].role == "tool" or sent[index - 1].tool_calls
    last = rounds[-1].messages
    results = [m for m in last if m.role == "tool"]
    assert len(results) == ROUNDS - 1  # the old ones stubbed, never dropped
    assert "left out to fit the context" in results[0].content


def test_the_fast_estimate_counts_like_the_character_rule() -> None:
    def by_character(text: str) -> int:
        cjk = sum(
            1
            for c in text
            if 0x3040 <= ord(c) <= 0x30FF
            or 0x3400 <= ord(c) <= 0x4DBF
            or 0x4E00 <= ord(c) <= 0x9FFF
            or 0xAC00 <= ord(c) <= 0xD7AF
            or 0xF900 <= ord(c) <= 0xFAFF
            or 0xFF00 <= ord(c) <= 0xFFEF
            or 0x20000 <= ord(c) <= 0x2FA1F
        )
        return cjk + -(-(len(text) - cjk) // 4)

    for text in ("", "ascii only", RESULT, "한국어 カタカナ ｆｕｌｌ 𠀀𪛟 🙂\u202e", "x" * 10_001):
        assert context.estimate_tokens(text) == by_character(text), text


def test_per_round_work_does_not_grow_with_the_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chats = CountingChats()
    session = chats.create_session(model="m", workspace=None)
    _long_chat(chats, session.id, 2000)
    counts = {"convert": 0, "tokens": 0}
    real_convert = MessageRecord.to_chat_message
    real_tokens = context.message_tokens

    def counting_convert(self: MessageRecord) -> Any:
        counts["convert"] += 1
        return real_convert(self)

    def counting_tokens(message: Any) -> int:
        counts["tokens"] += 1
        return real_tokens(message)

    marks: list[int] = []  # estimates made so far, at each request
    real_chat = ToolCallingProvider.chat

    def marking_chat(self: ToolCallingProvider, request: ChatRequest) -> AsyncIterator[StreamItem]:
        if request.messages[0].content != INSTRUCTIONS:  # the rounds, not the summary
            marks.append(counts["tokens"])
        return real_chat(self, request)

    monkeypatch.setattr(MessageRecord, "to_chat_message", counting_convert)
    monkeypatch.setattr(history, "message_tokens", counting_tokens)
    monkeypatch.setattr(ToolCallingProvider, "chat", marking_chat)
    reason, _ = _run_turn(chats, session.id, tmp_path)
    assert reason == "max_rounds"
    stored = len(chats.messages(session.id))
    # 2,000 earlier + the question + the summary of the oldest + 100 answers + 100 results
    # (the last one "not run"); each converted once, except the summary (sent in the system
    # message) and the last answer and result, stored after the last request.
    assert stored == 2000 + 1 + 1 + ROUNDS + ROUNDS
    assert counts["convert"] == stored - 3
    per_round = [b - a for a, b in itertools.pairwise(marks)]
    # Between two requests: the answer, its result, the system prompt and at most a few stubs.
    assert len(per_round) == ROUNDS - 1 and max(per_round) <= 6, per_round


def test_the_room_for_a_result_is_not_recounted_every_round(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tokens_left`` (the room a result may take) once re-estimated every old result of the
    turn in every round: 100 rounds meant ~5,000 estimates. Now each message is estimated as
    it arrives, and the sums are kept."""
    chats = CountingChats()
    session = chats.create_session(model="m", workspace=None)
    _long_chat(chats, session.id, 50)
    counts = {"estimates": 0}
    real_estimate = history.estimate_tokens

    def counting_estimate(text: str) -> int:
        counts["estimates"] += 1
        return real_estimate(text)

    marks: list[int] = []
    real_chat = ToolCallingProvider.chat

    def marking_chat(self: ToolCallingProvider, request: ChatRequest) -> AsyncIterator[StreamItem]:
        marks.append(counts["estimates"])
        return real_chat(self, request)

    monkeypatch.setattr(history, "estimate_tokens", counting_estimate)
    monkeypatch.setattr(ToolCallingProvider, "chat", marking_chat)
    reason, provider = _run_turn(chats, session.id, tmp_path)
    assert reason == "max_rounds"
    per_round = [b - a for a, b in itertools.pairwise(marks)]
    assert len(per_round) == ROUNDS - 1 and max(per_round) <= 4, per_round
    # and the room is still right: the newest result is whole, every request fits
    last = provider.requests[-1].messages
    assert RESULT in [m for m in last if m.role == "tool"][-1].content
    assert sum(message_tokens(m) for m in last) <= NUM_CTX
