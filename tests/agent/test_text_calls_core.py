"""Calls models leave in their answer's text, through the real fake servers over HTTP (both
wire formats, token-sized pieces), the provider, the loop and Core: each corpus shape
(``tests/fakes/model_shapes.py``) runs ``write_file`` through the normal approval, the stored
history holds it as a tool call, and the markup is never shown, not even for a moment."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.fakes.core_rig import Rig
from tests.fakes.model_shapes import CONTENT, MARKUP, Shape, call_shapes, ending_shapes
from tests.fakes.turns import text_turn

WIRES = ("ollama", "openai")


def _rig(make_rig: Callable[..., Rig], wire: str) -> Rig:
    return make_rig(default_registry=True, sqlite=True, openai=wire == "openai")


def _shown(rig: Rig, message_id: str) -> str:
    """The answer text the page was sent for one message, delta by delta."""
    return "".join(e.text for e in rig.log.of_type("content_delta") if e.message_id == message_id)


def _no_markup(text: str) -> None:
    for mark in MARKUP:
        assert mark not in text, f"{mark!r} shown: {text!r}"


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("shape", call_shapes(), ids=lambda shape: shape.name)
def test_a_call_left_in_the_text_runs_through_the_approval(
    make_rig: Callable[..., Rig], wire: str, shape: Shape
) -> None:
    rig = _rig(make_rig, wire)
    rig.fake.script(shape.turn(), text_turn("Done. 完成"))
    sid = rig.session(workspace=str(rig.workspace))
    _, turn = rig.send("write the file", sid)
    asked = rig.log.wait_type("approval_needed")
    assert asked.name == "write_file"
    assert asked.arguments == {"path": shape.path(), "content": CONTENT}
    rig.core.decide(asked.call_id, True)
    finished = rig.finish(turn)
    assert finished.type == "turn_finished" and finished.stop_reason == "done", finished
    assert (rig.workspace / shape.path()).read_text(encoding="utf-8") == CONTENT

    first = rig.log.of_type("message_started")[0].message_id
    shown = _shown(rig, first)
    _no_markup(shown)
    assert shown.rstrip() == shape.answer
    done = next(e for e in rig.log.of_type("message_finished") if e.message_id == first)
    assert done.content is None and done.stats.get("calls_from_text") == 1

    stored = rig.core.get_session(sid)
    (call,) = stored["tool_calls"]
    assert call["name"] == "write_file" and call["status"] == "success"
    assistant = next(m for m in stored["messages"] if m["id"] == first)
    assert assistant["content"] == shape.answer
    if shape.thinking_after is not None:
        assert assistant["thinking"] == shape.thinking_after

    # The next request is well-formed: the call as a tool call, then its result.
    second = rig.fake.chat_requests[1]["messages"]
    sent = next(m for m in second if m["role"] == "assistant" and m.get("tool_calls"))
    _no_markup(sent.get("content") or "")
    function = sent["tool_calls"][0]["function"]
    arguments: Any = function["arguments"]
    arguments = arguments if isinstance(arguments, dict) else __import__("json").loads(arguments)
    assert function["name"] == "write_file" and arguments["content"] == CONTENT
    assert second[-1]["role"] == "tool" and '"success": true' in second[-1]["content"]


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("shape", ending_shapes(), ids=lambda shape: shape.name)
def test_an_answer_without_a_usable_call_ends_with_a_clear_note(
    make_rig: Callable[..., Rig], wire: str, shape: Shape
) -> None:
    rig = _rig(make_rig, wire)
    rig.fake.script(shape.turn())
    sid = rig.session(workspace=str(rig.workspace))
    _, turn = rig.send("hello", sid)
    finished = rig.finish(turn)
    assert finished.type == "turn_finished" and finished.stop_reason == "done", finished
    assert not rig.log.of_type("tool_call") and not list(rig.workspace.iterdir())
    first = rig.log.of_type("message_started")[0].message_id
    done = next(e for e in rig.log.of_type("message_finished") if e.message_id == first)
    final = done.content if done.content is not None else _shown(rig, first)
    _no_markup(final)
    assert final == shape.answer
    stored = next(m for m in rig.core.get_session(sid)["messages"] if m["id"] == first)
    assert stored["content"] == shape.answer
    if shape.thinking_after is not None:
        assert stored["thinking"] == shape.thinking_after
        assert (done.thinking or "") == shape.thinking_after or not done.thinking
    codes = [n.code for n in rig.log.of_type("notice")]
    if shape.notice is not None:
        assert shape.notice in codes, codes


def test_the_cut_notice_speaks_chinese(make_rig: Callable[..., Rig]) -> None:
    rig = make_rig(default_registry=True, language="zh-CN")
    rig.fake.script(text_turn("一半的回答", done_reason="length"))
    _, turn = rig.send("写一篇长文")
    rig.finish(turn)
    notice = rig.log.wait_type("notice", code="answer_cut")
    assert "回答被截断" in notice.message and "上下文长度" in notice.message


def test_a_plain_answer_that_starts_like_json_streams_once_decided(
    make_rig: Callable[..., Rig],
) -> None:
    """``[link](…)`` and a JSON answer that is not a call are shown whole, nothing lost."""
    rig = make_rig(default_registry=True)
    answer = '{"城市": "北京", "温度": 28}\nThat is the data. [more](https://example.com)'
    rig.fake.script(text_turn(answer, chunk_chars=2))
    _, turn = rig.send("json please")
    rig.finish(turn)
    first = rig.log.of_type("message_started")[0].message_id
    assert _shown(rig, first) == answer
    assert not rig.log.of_type("notice")
