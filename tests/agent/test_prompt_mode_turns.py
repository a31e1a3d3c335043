"""Turns in prompt mode: a model without the ``tools`` capability is told about the tools in
its system prompt, writes ``<tool_call>`` text, and its calls run through the same approvals
and cards as native ones; the next request carries the history as text it can read. Through
a real Core and the fake Ollama and OpenAI servers on 127.0.0.1."""

from __future__ import annotations

import json
from typing import Any

from tests.fakes.core_rig import Rig
from tests.fakes.turns import text_turn, tool_turn


def _text_of(rig: Rig, kind: str) -> str:
    return "".join(e.text for e in rig.log.of_type(kind))


def test_a_call_written_as_text_runs_and_the_history_goes_back_as_text(make_rig: Any) -> None:
    rig: Rig = make_rig(default_model="gemma3:4b")
    rig.fake.script(
        tool_turn([("echo", {"text": "你好 🙂 ‮"})], content="Let me echo."),
        text_turn("Echoed."),
    )
    sid, turn = rig.send("echo hi")
    assert rig.finish(turn).stop_reason == "done"
    call = rig.log.wait_type("tool_call")
    assert (call.call.name, call.call.arguments) == ("echo", {"text": "你好 🙂 ‮"})
    first, second = rig.fake.chat_requests
    assert "tools" not in first and "tools" not in second
    assert "### echo" in first["messages"][0]["content"]
    roles = [m["role"] for m in second["messages"]]
    assert roles == ["system", "user", "assistant", "user"]  # no tool role for this model
    asked, results = second["messages"][2], second["messages"][3]
    assert "tool_calls" not in asked
    assert asked["content"].startswith("Let me echo.\n<tool_call>")
    payload = asked["content"].split("<tool_call>", 1)[1].split("</tool_call>", 1)[0]
    assert json.loads(payload) == {"name": "echo", "arguments": {"text": "你好 🙂 ‮"}}
    assert results["content"].startswith('<tool_response name="echo">\n')
    assert "你好 🙂" in results["content"]
    # the markup was never shown and is not the stored answer; the call is stored as a call
    assert "<tool_call>" not in _text_of(rig, "content_delta")
    messages = rig.core.get_session(sid)["messages"]
    first_answer = next(m for m in messages if m["role"] == "assistant")
    assert "<tool_call>" not in first_answer["content"]
    assert [c["name"] for c in first_answer["tool_calls"]] == ["echo"]
    assert messages[-1]["content"] == "Echoed."


def test_a_risky_call_written_as_text_still_asks_first(make_rig: Any) -> None:
    rig: Rig = make_rig(default_model="gemma3:4b")
    rig.fake.script(tool_turn([("note", {"text": "remember me"})]), text_turn("Noted."))
    _, turn = rig.send("note it")
    asked = rig.log.wait_type("approval_needed")
    assert rig.notes == []  # nothing ran before the answer
    rig.core.decide(asked.call_id, True)
    assert rig.finish(turn).stop_reason == "done"
    assert rig.notes == ["remember me"]


def test_a_denied_call_is_said_to_the_model_as_text(make_rig: Any) -> None:
    rig: Rig = make_rig(default_model="gemma3:4b")
    rig.fake.script(tool_turn([("zap", {"text": "all"})]), text_turn("Understood."))
    _, turn = rig.send("zap all")
    asked = rig.log.wait_type("approval_needed")
    rig.core.decide(asked.call_id, False)
    assert rig.finish(turn).stop_reason == "done"
    assert rig.notes == []
    results = rig.fake.chat_requests[1]["messages"][-1]
    assert results["role"] == "user" and results["content"].startswith('<tool_response name="zap">')
    assert "denied" in results["content"].lower()


def test_an_openai_server_without_tools_for_the_model_works_through_the_prompt(
    make_rig: Any,
) -> None:
    rig: Rig = make_rig(openai=True, default_model="gemma3:4b")
    rig.core.set_model_tool_mode("gemma3:4b", "prompt")
    rig.fake.script(tool_turn([("echo", {"text": "x"})]), text_turn("Done."))
    _, turn = rig.send("echo x")
    assert rig.finish(turn).stop_reason == "done"
    first, second = rig.fake.chat_requests
    assert "tools" not in first
    assert [m["role"] for m in second["messages"]] == ["system", "user", "assistant", "user"]
    assert "tool_call_id" not in json.dumps(second["messages"])


def test_a_native_model_can_be_put_in_prompt_mode(make_rig: Any) -> None:
    rig: Rig = make_rig()
    rig.core.set_model_tool_mode("qwen3:8b", "prompt")
    rig.fake.script(text_turn("Hello."))
    _, turn = rig.send("hi")
    assert rig.finish(turn).stop_reason == "done"
    (request,) = rig.fake.chat_requests
    assert "tools" not in request
    assert "<tool_call>" in request["messages"][0]["content"]


def test_an_openai_server_that_refuses_tools_gets_them_in_the_prompt_at_once(
    make_rig: Any,
) -> None:
    """Such a server cannot be asked beforehand; its HTTP 400 "does not support tools" is
    answered by the same request in prompt mode, in the same message, and later turns start
    in prompt mode."""
    rig: Rig = make_rig(openai=True, default_model="gemma3:4b")
    rig.fake.script(tool_turn([("echo", {"text": "x"})]), text_turn("Done."))
    sid, turn = rig.send("echo x")
    assert rig.finish(turn).stop_reason == "done"
    refused, again, last = rig.fake.chat_requests
    assert "tools" in refused
    assert "tools" not in again and "### echo" in again["messages"][0]["content"]
    assert [m["role"] for m in last["messages"]] == ["system", "user", "assistant", "user"]
    assert rig.log.wait_type("tool_call").call.name == "echo"
    assert not rig.log.of_type("turn_failed")
    answers = [m for m in rig.core.get_session(sid)["messages"] if m["role"] == "assistant"]
    assert len(answers) == 2  # the refusal left no message behind
    rig.fake.script(text_turn("Hi again."))
    _, second = rig.send("hi", sid)
    assert rig.finish(second).stop_reason == "done"
    assert "tools" not in rig.fake.chat_requests[-1]  # known now: no refused request first


def test_a_model_whose_mode_was_chosen_native_is_not_switched_behind_the_users_back(
    make_rig: Any,
) -> None:
    rig: Rig = make_rig(openai=True)
    rig.core.set_model_tool_mode("gpt-4o-mini", "native")
    rig.fake.models["gpt-4o-mini"] = ["completion"]  # the server now refuses its tools
    rig.fake.script(text_turn("unused"))
    _, turn = rig.send("hi")
    failed = rig.finish(turn)
    assert failed.type == "turn_failed" and failed.code == "capability"
    assert len(rig.fake.chat_requests) == 1
