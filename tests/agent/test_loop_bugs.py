"""A bug inside the loop or a call (or before the turn starts) ends the turn with the error
stored in the chat, and the next turn works.

Real Core, fake Ollama/OpenAI over HTTP on loopback; each ends in a sentence for the user or
the model, keeps what streamed, and leaves no message marked streaming.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

import pytest

from tests.agent.bounds_helpers import (
    HOSTILE,
    assert_nothing_left_streaming,
    stored,
    tool_calls_of,
    tool_messages,
)
from tests.fakes.core_rig import Rig
from tests.fakes.ollama_server import text_turn, tool_turn
from tray_app.base.messages import ToolCallRecord
from tray_app.store.records import MemoryChats, MessageRecord


class FlakyChats(MemoryChats):
    """A MemoryChats that raises once, where ``breaks`` says so."""

    def __init__(self, breaks: Callable[[str, dict[str, Any]], bool]) -> None:
        super().__init__()
        self.breaks = breaks
        self.broke = False

    def _maybe_break(self, operation: str, **info: Any) -> None:
        if not self.broke and self.breaks(operation, info):
            self.broke = True
            raise RuntimeError(f"injected failure in {operation}")

    def update_message(self, message_id: str, **fields: Any) -> None:
        self._maybe_break("update_message", **fields)
        super().update_message(message_id, **fields)

    def messages(self, session_id: str) -> list[MessageRecord]:
        items = super().messages(session_id)
        self._maybe_break("messages", items=items)
        return items

    def add_message(self, message: MessageRecord) -> None:
        items = super().messages(message.session_id)
        self._maybe_break("add_message", items=items, role=message.role)
        super().add_message(message)

    def upsert_tool_call(self, record: ToolCallRecord) -> None:
        self._maybe_break("upsert_tool_call", status=record.status)
        super().upsert_tool_call(record)

    def update_tool_call(self, session_id: str, call_id: str, /, **fields: Any) -> None:
        self._maybe_break("update_tool_call", **fields)
        super().update_tool_call(session_id, call_id, **fields)


def test_a_bug_at_the_end_of_a_stream_finishes_the_message_and_stores_the_error(
    make_rig: Callable[..., Rig], caplog: pytest.LogCaptureFixture
) -> None:
    chats = FlakyChats(
        lambda op, info: op == "update_message" and "prompt_tokens" in info.get("stats", {})
    )
    rig = make_rig(chats=chats)
    rig.fake.script(text_turn(f"An answer {HOSTILE}"), text_turn("working again"))
    caplog.set_level(logging.ERROR)
    sid, turn = rig.send("hi")
    failed = rig.finish(turn)
    assert failed.type == "turn_failed" and failed.code == "internal"
    assert "injected failure" in failed.message and "log file" in failed.message
    assert "Traceback" not in failed.message
    (answer,) = [m for m in stored(rig, sid) if m["role"] == "assistant"]
    assert answer["content"] == f"An answer {HOSTILE}"
    assert answer["stopped"] is True and answer["error"] == failed.message
    assert_nothing_left_streaming(rig, sid)
    assert rig.log.wait_type("message_finished", stopped=True).message_id == answer["id"]
    crashed = [r for r in caplog.records if r.exc_info and "crashed" in r.getMessage()]
    assert crashed and "injected failure" in str(crashed[0].exc_info[1])
    assert rig.core.status()["state"] == "error"
    turn2 = rig.core.retry(sid)["turn_id"]
    assert rig.finish(turn2).stop_reason == "done"


def test_a_bug_between_rounds_still_stores_the_error_in_the_chat(
    make_rig: Callable[..., Rig],
) -> None:
    # The next round's answer is stored before it streams: the first write between rounds.
    chats = FlakyChats(
        lambda op, info: (
            op == "add_message"
            and info["role"] == "assistant"
            and any(m.role == "tool" for m in info["items"])
        )
    )
    rig = make_rig(chats=chats)
    rig.fake.script(tool_turn([("echo", {"text": HOSTILE})]))
    sid, turn = rig.send("echo")
    failed = rig.finish(turn)
    assert failed.type == "turn_failed" and failed.code == "internal"
    messages = stored(rig, sid)
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant"]
    assert messages[-1]["error"] == failed.message and messages[-1]["stopped"] is True
    assert_nothing_left_streaming(rig, sid)


def test_a_bug_while_handling_a_call_answers_that_call_and_the_turn_goes_on(
    make_rig: Callable[..., Rig], caplog: pytest.LogCaptureFixture
) -> None:
    chats = FlakyChats(lambda op, info: op == "update_tool_call" and info["status"] == "running")
    rig = make_rig(chats=chats)
    rig.fake.script(
        tool_turn([("echo", {"text": "first"}), ("echo", {"text": HOSTILE})]),
        text_turn("one of two"),
    )
    caplog.set_level(logging.ERROR)
    sid, turn = rig.send("two echoes")
    assert rig.finish(turn).stop_reason == "done"
    bodies = [json.loads(m["content"]) for m in tool_messages(rig.fake.chat_requests[1])]
    assert bodies[0]["success"] is False and "failed inside the app" in bodies[0]["error"]
    assert "Traceback" not in bodies[0]["error"]
    assert bodies[1] == {"success": True, "echo": HOSTILE}
    assert [c["status"] for c in tool_calls_of(rig, sid)] == ["error", "success"]
    assert any(r.exc_info for r in caplog.records if "handling tool call" in r.getMessage())


def test_a_bug_before_the_turn_starts_still_ends_it_and_stores_the_error(
    make_rig: Callable[..., Rig], monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = make_rig()

    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("injected: no toolbox " + "x" * 5_000)

    monkeypatch.setattr(rig.core._factory, "toolbox", broken)
    sid, turn = rig.send("hi")
    failed = rig.finish(turn)
    assert failed.type == "turn_failed" and failed.code == "internal"
    assert "injected: no toolbox" in failed.message and len(failed.message) < 400
    kinds = [e.type for e in rig.log.events if getattr(e, "turn_id", None) == turn]
    assert kinds == ["turn_started", "turn_failed"]
    (answer,) = [m for m in stored(rig, sid) if m["role"] == "assistant"]
    assert answer["error"] == failed.message and answer["stopped"] is True
    monkeypatch.undo()
    rig.fake.script(text_turn("fine again"))
    assert rig.finish(rig.core.retry(sid)["turn_id"]).stop_reason == "done"
