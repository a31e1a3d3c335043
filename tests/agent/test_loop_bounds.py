"""The loop's bounds end to end: real Core, fake Ollama/OpenAI over HTTP on loopback.

An endless answer, a flood of tool calls, a 10 MB argument, arguments nested hundreds of levels
deep, a bug inside the loop or a call, a model that goes quiet: each ends in a sentence for the
user or the model, keeps what streamed, and leaves no message marked streaming.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable
from typing import Any

import pytest

from tests.fakes.core_rig import Rig
from tests.fakes.ollama_server import raw_turn, slow_turn, text_turn, tool_turn
from tests.fakes.openai_server import sse
from tests.fakes.turns import Turn
from tray_app.messages import ToolCallRecord
from tray_app.paths import AppPaths
from tray_app.providers.tool_calls import MAX_ARGUMENT_BYTES
from tray_app.store.records import MemoryChats, MessageRecord

HOSTILE = "长文🙂\u202eabc"  # CJK, an emoji (outside the BMP) and a bidi override


def tool_messages(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in request["messages"] if m["role"] == "tool"]


def last_assistant(request: dict[str, Any]) -> dict[str, Any]:
    return [m for m in request["messages"] if m["role"] == "assistant"][-1]


def stored(rig: Rig, sid: str) -> list[dict[str, Any]]:
    return list(rig.core.get_session(sid)["messages"])


def assert_nothing_left_streaming(rig: Rig, sid: str) -> None:
    for message in stored(rig, sid):
        assert "streaming" not in message["stats"], message
    assert all(c["status"] not in ("pending", "running") for c in tool_calls_of(rig, sid))


def tool_calls_of(rig: Rig, sid: str) -> list[dict[str, Any]]:
    return list(rig.core.get_session(sid)["tool_calls"])


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


# ---- the answer's length ------------------------------------------------------------------------


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


# ---- how many calls a round may run -------------------------------------------------------------


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


# ---- the size of arguments ----------------------------------------------------------------------


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


# ---- depth --------------------------------------------------------------------------------------


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


# ---- bugs inside the loop or a call -------------------------------------------------------------


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


# ---- a quiet model ------------------------------------------------------------------------------


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
