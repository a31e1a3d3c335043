"""The loop's bounds on what a model streams: an endless answer, a model that goes quiet,
lone surrogates in its text.

Real Core, fake Ollama/OpenAI over HTTP on loopback; each ends in a sentence for the user or
the model, keeps what streamed, and leaves no message marked streaming.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from tests.agent.bounds_helpers import (
    HOSTILE,
    assert_nothing_left_streaming,
    stored,
    tool_messages,
)
from tests.fakes.core_rig import Rig
from tests.fakes.ollama_server import raw_turn, slow_turn, text_turn
from tests.fakes.turns import Turn


@pytest.mark.parametrize("openai", [False, True], ids=["ollama", "openai"])
def test_an_endless_answer_stops_at_max_answer_chars_and_keeps_what_arrived(
    make_rig: Callable[..., Rig], openai: bool
) -> None:
    rig = make_rig(openai=openai, sqlite=True, max_answer_chars=2_000)
    thinking = "想" * 500
    endless = HOSTILE * 400_000  # 2.8 M characters: far more than streams before the cut
    rig.fake.script(text_turn(endless, thinking=thinking, chunk_chars=7))
    sid, turn = rig.send("talk forever")
    finished = rig.finish(turn, timeout=30)
    assert finished.type == "turn_finished" and finished.stop_reason == "answer_limit"
    assert rig.fake.wait_for_client_disconnect(timeout=10)  # the stream was closed, not drained
    notice = rig.log.wait_type("notice", code="answer_limit")
    assert "2,000 characters" in notice.message
    streamed = "".join(e.text for e in rig.log.of_type("content_delta"))
    assert "".join(e.text for e in rig.log.of_type("thinking_delta")) == thinking
    assert streamed == endless[: 2_000 - len(thinking)]
    (answer,) = [m for m in stored(rig, sid) if m["role"] == "assistant"]
    assert answer["content"] == streamed and answer["thinking"] == thinking
    assert answer["stopped"] is True and answer["error"] is None
    assert rig.log.wait_type("message_finished", stopped=True).message_id == answer["id"]
    assert_nothing_left_streaming(rig, sid)
    assert rig.core.status()["state"] == "idle"
    # The chat goes on: the cut answer is history like any other.
    rig.fake.script(text_turn("shorter"))
    _, turn2 = rig.send("again", sid)
    assert rig.finish(turn2).stop_reason == "done"


def test_the_answer_limit_notice_speaks_the_users_language(make_rig: Callable[..., Rig]) -> None:
    rig = make_rig(max_answer_chars=1_000, language="zh-CN")
    rig.fake.script(text_turn("字" * 5_000, chunk_chars=50))
    _, turn = rig.send("说很多")
    assert rig.finish(turn).stop_reason == "answer_limit"
    assert "1,000 个字符" in rig.log.wait_type("notice", code="answer_limit").message


@pytest.mark.parametrize("openai", [False, True], ids=["ollama", "openai"])
def test_a_silent_stream_says_waiting_and_can_be_stopped_during_it(
    make_rig: Callable[..., Rig], openai: bool
) -> None:
    rig = make_rig(openai=openai, sqlite=True, waiting_notice_s=0.3)
    rig.fake.script(slow_turn("one two three", delay=120, chunk_chars=4))
    sid, turn = rig.send("take your time")
    first = rig.log.wait_type("content_delta")
    waiting = rig.log.wait_type("notice", code="waiting_for_model", timeout=15)
    assert waiting.level == "info" and "Waiting for the model" in waiting.message
    rig.core.abort(sid)
    finished = rig.finish(turn)
    assert finished.stop_reason == "aborted"
    assert rig.fake.wait_for_client_disconnect(timeout=10)
    (answer,) = [m for m in stored(rig, sid) if m["role"] == "assistant"]
    assert answer["content"] == first.text and answer["stopped"] is True
    assert_nothing_left_streaming(rig, sid)
    # One notice per silence, however long it lasts.
    assert len(rig.log.of_type("notice")) == 1


def test_the_waiting_notice_speaks_the_users_language(make_rig: Callable[..., Rig]) -> None:
    rig = make_rig(language="zh-CN", waiting_notice_s=0.2)
    rig.fake.script(slow_turn("慢慢来", delay=120, chunk_chars=1))
    sid, turn = rig.send("慢一点")
    waiting = rig.log.wait_type("notice", code="waiting_for_model", timeout=15)
    assert "正在等待模型" in waiting.message
    rig.core.abort(sid)
    assert rig.finish(turn).stop_reason == "aborted"


def test_a_model_silent_from_the_start_gets_the_notice_and_can_be_stopped(
    make_rig: Callable[..., Rig],
) -> None:
    rig = make_rig(sqlite=True, waiting_notice_s=0.3)
    done = json.dumps({"model": "qwen3:8b", "message": {"role": "assistant", "content": ""}})
    # Headers at once, then nothing: b"" writes no chunk, and the next piece waits 120 s.
    rig.fake.script(raw_turn([b"", done], delay=120))
    sid, turn = rig.send("are you there?")
    rig.log.wait_type("notice", code="waiting_for_model", timeout=15)
    assert rig.log.of_type("content_delta") == []
    rig.core.abort(sid)
    assert rig.finish(turn).stop_reason == "aborted"
    assert rig.fake.wait_for_client_disconnect(timeout=10)
    (answer,) = [m for m in stored(rig, sid) if m["role"] == "assistant"]
    assert answer["stopped"] is True and answer["content"] == ""
    assert_nothing_left_streaming(rig, sid)


def _ascii_turn(openai: bool, content: str, call: dict[str, Any] | None = None) -> Turn:
    """A raw answer with every non-ASCII character escaped, lone surrogates included (the fakes
    write UTF-8, which cannot carry them)."""
    if openai:
        base = {"id": "chatcmpl-s", "object": "chat.completion.chunk", "model": "gpt-4o-mini"}

        def event(delta: dict[str, Any], finish: str | None = None) -> bytes:
            choice = {"index": 0, "delta": delta, "finish_reason": finish}
            return f"data: {json.dumps({**base, 'choices': [choice]})}\n\n".encode()

        lines = [event({"role": "assistant", "content": content})]
        if call is not None:
            function = {"name": call["name"], "arguments": json.dumps(call["arguments"])}
            entry = {"index": 0, "id": "call_s", "type": "function", "function": function}
            lines.append(event({"tool_calls": [entry]}))
        lines += [event({}, "tool_calls" if call else "stop"), b"data: [DONE]\n\n"]
        return raw_turn(lines)
    message: dict[str, Any] = {"role": "assistant", "content": content}
    chunks = [{"model": "qwen3:8b", "message": message, "done": False}]
    if call is not None:
        entry = {"id": "call_s", "function": call}
        chunks.append(
            {"model": "qwen3:8b", "message": {"role": "assistant", "tool_calls": [entry]}}
        )
    chunks.append({"model": "qwen3:8b", "message": {"role": "assistant"}, "done": True})
    return raw_turn([json.dumps(chunk) for chunk in chunks])


@pytest.mark.parametrize("openai", [False, True], ids=["ollama", "openai"])
def test_lone_surrogates_from_the_model_are_stored_as_replacement_characters(
    make_rig: Callable[..., Rig], openai: bool
) -> None:
    rig = make_rig(openai=openai, sqlite=True)
    call = {"name": "echo", "arguments": {"text": "a\ud800b" + HOSTILE}}
    rig.fake.script(
        _ascii_turn(openai, "Let me\udc00 see", call), _ascii_turn(openai, "done\ud83d")
    )
    sid, turn = rig.send("hostile text")
    finished = rig.finish(turn)
    assert finished.type == "turn_finished" and finished.stop_reason == "done"
    messages = stored(rig, sid)
    assert [m["content"] for m in messages if m["role"] == "assistant"] == [
        "Let me\ufffd see",
        "done\ufffd",
    ]
    body = json.loads(tool_messages(rig.fake.chat_requests[1])[0]["content"])
    assert body == {"success": True, "echo": "a\ufffdb" + HOSTILE}
    assert_nothing_left_streaming(rig, sid)
