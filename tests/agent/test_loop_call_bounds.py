"""The loop's bounds on tool calls: a flood of calls in one round, a 10 MB argument,
arguments nested hundreds of levels deep.

Real Core, fake Ollama/OpenAI over HTTP on loopback; each ends in a sentence for the user or
the model, keeps what streamed, and leaves no message marked streaming.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import Any

import pytest

from tests.agent.bounds_helpers import (
    HOSTILE,
    assert_nothing_left_streaming,
    last_assistant,
    stored,
    tool_calls_of,
    tool_messages,
)
from tests.fakes.core_rig import Rig
from tests.fakes.ollama_server import raw_turn, text_turn, tool_turn
from tests.fakes.openai_server import sse
from tests.fakes.turns import Turn
from tray_app.base.paths import AppPaths
from tray_app.providers.tool_calls import MAX_ARGUMENT_BYTES


def nested(levels: int) -> Any:
    value: Any = HOSTILE
    for _ in range(levels):
        value = {"k": value}
    return value


def openai_call_stream(name: str, arguments: str, *, piece: int = 65_536) -> Turn:
    """An OpenAI SSE answer calling ``name`` with ``arguments`` in fragments of ``piece`` chars
    (the fake's own fragments are 6 characters: far too many events for megabytes)."""
    base = {"id": "chatcmpl-big", "object": "chat.completion.chunk", "created": 1}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return sse({**base, "model": "gpt-4o-mini", "choices": [choice]})

    head = {"index": 0, "id": "call_big", "type": "function"}
    lines = [
        chunk(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{**head, "function": {"name": name, "arguments": ""}}],
            }
        )
    ]
    for start in range(0, len(arguments), piece):
        fragment = {"index": 0, "function": {"arguments": arguments[start : start + piece]}}
        lines.append(chunk({"tool_calls": [fragment]}))
    lines += [chunk({}, "tool_calls"), b"data: [DONE]\n\n"]
    return raw_turn(lines)


@pytest.mark.parametrize("openai", [False, True], ids=["ollama", "openai"])
def test_500_calls_in_one_round_run_16_and_every_other_one_is_answered(
    make_rig: Callable[..., Rig], openai: bool
) -> None:
    rig = make_rig(openai=openai)
    calls = [("echo", {"text": f"{HOSTILE}{i}"}) for i in range(500)]
    rig.fake.script(tool_turn(calls), text_turn("all answered"))
    sid, turn = rig.send("call a lot")
    finished = rig.finish(turn, timeout=60)
    assert finished.type == "turn_finished" and finished.stop_reason == "done"
    notice = rig.log.wait_type("notice", code="too_many_calls")
    assert "500" in notice.message and "16" in notice.message
    second = rig.fake.chat_requests[1]
    asked = last_assistant(second)["tool_calls"]
    answers = tool_messages(second)
    # One answer per call, in order, each naming its call: valid history for both providers.
    assert len(asked) == len(answers) == 500
    assert [a.get("tool_call_id") for a in answers] == [c.get("id") for c in asked]
    assert all(c.get("id") for c in asked)
    bodies = [json.loads(a["content"]) for a in answers]
    assert [b["echo"] for b in bodies[:16]] == [f"{HOSTILE}{i}" for i in range(16)]
    refused = {"success": False, "error": "not run: too many calls in one round (the limit is 16)"}
    assert bodies[16:] == [refused] * 484
    statuses = [c["status"] for c in tool_calls_of(rig, sid)]
    assert statuses == ["success"] * 16 + ["cancelled"] * 484


def test_the_per_round_limit_is_a_setting(make_rig: Callable[..., Rig]) -> None:
    rig = make_rig(max_tool_calls_per_round=2)
    rig.fake.script(tool_turn([("echo", {"text": str(i)}) for i in range(3)]), text_turn("ok"))
    _, turn = rig.send("three")
    assert rig.finish(turn).stop_reason == "done"
    bodies = [json.loads(m["content"]) for m in tool_messages(rig.fake.chat_requests[1])]
    assert [b["success"] for b in bodies] == [True, True, False]
    assert "the limit is 2" in bodies[2]["error"]


def _ten_megabytes() -> dict[str, Any]:
    """~10.4 MB of UTF-8 in ten keys of ~1 MB (so no single NDJSON line is near 8 MB)."""
    return {"text": "x", **{f"part{i}": HOSTILE * 65_000 for i in range(10)}}


@pytest.mark.parametrize("openai", [False, True], ids=["ollama", "openai"])
def test_a_10_mb_argument_is_refused_stored_as_a_placeholder_and_never_sent_again(
    make_rig: Callable[..., Rig], app_paths: AppPaths, openai: bool
) -> None:
    rig = make_rig(openai=openai, sqlite=True)
    arguments = _ten_megabytes()
    size = len(json.dumps(arguments, ensure_ascii=False, separators=(",", ":")).encode())
    assert size > 10_000_000
    if openai:
        big = openai_call_stream("echo", json.dumps(arguments, ensure_ascii=False))
    else:
        big = tool_turn([("echo", arguments)], split_arguments=True)
    rig.fake.script(big, text_turn("too big, sorry"), text_turn("small talk"))
    sid, turn = rig.send("write a lot")
    assert rig.finish(turn, timeout=60).stop_reason == "done"
    (result,) = tool_messages(rig.fake.chat_requests[1])
    body = json.loads(result["content"])
    assert body["success"] is False and "too large" in body["error"]
    assert f"{MAX_ARGUMENT_BYTES:,}" in body["error"]
    # What the model is shown of its own call from now on: a placeholder with the size.
    (call,) = last_assistant(rig.fake.chat_requests[1])["tool_calls"]
    placeholder = call["function"]["arguments"]
    if isinstance(placeholder, str):  # OpenAI sends arguments as JSON text
        placeholder = json.loads(placeholder)
    assert placeholder["_refused"] == "too large" and abs(placeholder["_bytes"] - size) < 100
    # The card shows the placeholder too, never the 10 MB.
    event = rig.log.wait_type("tool_call")
    assert event.call.arguments == placeholder and event.call.status == "pending"
    _, turn2 = rig.send("and now?", sid)
    assert rig.finish(turn2).stop_reason == "done"
    for request in rig.fake.chat_requests[1:]:
        assert len(json.dumps(request, ensure_ascii=False)) < 100_000
    # Stored once, as the placeholder: the database never held the megabytes.
    with sqlite3.connect(app_paths.database_file) as db:
        (args_len,) = db.execute("SELECT max(length(arguments)) FROM tool_calls").fetchone()
        (calls_len,) = db.execute("SELECT max(length(tool_calls)) FROM messages").fetchone()
    assert args_len < 200 and calls_len < 1_000
    on_disk = sum(p.stat().st_size for p in app_paths.database_file.parent.glob("*") if p.is_file())
    assert on_disk < 2_000_000
    assert_nothing_left_streaming(rig, sid)


def test_arguments_just_under_the_limit_run_and_are_stored_once(
    make_rig: Callable[..., Rig], app_paths: AppPaths
) -> None:
    rig = make_rig(sqlite=True)
    text = HOSTILE * 15_000  # ~195 KB of UTF-8
    rig.fake.script(tool_turn([("echo", {"text": text})]), text_turn("ok"))
    sid, turn = rig.send("echo this")
    assert rig.finish(turn, timeout=30).stop_reason == "done"
    (result,) = tool_messages(rig.fake.chat_requests[1])
    assert result["content"].startswith('{"success": true, "echo": "长文🙂')  # cut at 16,000
    (call,) = tool_calls_of(rig, sid)
    assert call["status"] == "success" and call["arguments"] == {"text": text}


@pytest.mark.parametrize("openai", [False, True], ids=["ollama", "openai"])
@pytest.mark.parametrize("levels", [65, 260])
def test_deeply_nested_arguments_get_a_sentence_and_the_turn_goes_on(
    make_rig: Callable[..., Rig], openai: bool, levels: int
) -> None:
    rig = make_rig(openai=openai, sqlite=True)
    rig.fake.script(
        tool_turn([("echo", {"text": HOSTILE, "extra": nested(levels)})]),
        text_turn("flatter next time"),
    )
    sid, turn = rig.send("go deep")
    finished = rig.finish(turn)
    assert finished.type == "turn_finished" and finished.stop_reason == "done"
    (result,) = tool_messages(rig.fake.chat_requests[1])
    body = json.loads(result["content"])
    assert body["success"] is False
    assert body["error"].startswith(
        "invalid arguments for echo: arguments nested too deeply (more than 64 levels)"
    )
    messages = stored(rig, sid)
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant"]
    assert not any(m["stopped"] or m["error"] for m in messages)
    assert messages[-1]["content"] == "flatter next time"
    (call,) = tool_calls_of(rig, sid)
    assert call["arguments"] == {"_refused": "nested too deeply"} and call["status"] == "error"
    assert_nothing_left_streaming(rig, sid)


def test_sixty_four_levels_are_still_accepted(make_rig: Callable[..., Rig]) -> None:
    rig = make_rig()
    # {"text": ..., "extra": <63 dicts>} is 64 levels of objects in all.
    rig.fake.script(
        tool_turn([("echo", {"text": HOSTILE, "extra": nested(63)})]), text_turn("fine")
    )
    _, turn = rig.send("go")
    assert rig.finish(turn).stop_reason == "done"
    (result,) = tool_messages(rig.fake.chat_requests[1])
    assert json.loads(result["content"]) == {"success": True, "echo": HOSTILE}


def test_argument_text_nested_5000_deep_is_refused_without_parsing(
    make_rig: Callable[..., Rig],
) -> None:
    rig = make_rig(openai=True)
    deep = '{"text": "x", "extra": ' + "[" * 5_000 + "]" * 5_000 + "}"
    rig.fake.script(openai_call_stream("echo", deep, piece=997), text_turn("ok"))
    _, turn = rig.send("go")
    assert rig.finish(turn).stop_reason == "done"
    (result,) = tool_messages(rig.fake.chat_requests[1])
    assert "more than 64 levels" in json.loads(result["content"])["error"]


def test_a_stream_line_too_deep_to_decode_still_finishes_the_message(
    make_rig: Callable[..., Rig],
) -> None:
    rig = make_rig(sqlite=True)
    start = json.dumps({"model": "qwen3:8b", "message": {"role": "assistant", "content": "Hi "}})
    junk = '{"model": "qwen3:8b", "junk": ' + "[" * 100_000 + "]" * 100_000 + "}"
    rig.fake.script(raw_turn([start, junk]))
    sid, turn = rig.send("go")
    failed = rig.finish(turn)
    assert failed.type == "turn_failed"
    assert "Traceback" not in failed.message
    (answer,) = [m for m in stored(rig, sid) if m["role"] == "assistant"]
    assert answer["content"] == "Hi " and answer["stopped"] is True and answer["error"]
    assert_nothing_left_streaming(rig, sid)
