"""Tool-call ids a request sends back, and parallel calls streamed at one index.

Shapes from public threads: Mistral-family servers refuse ids that are not nine letters or
digits (vllm-project/vllm#9019, #12332; jackmpcollins/magentic#276); Ollama's ``/v1`` streams
every parallel call with ``index: 0`` (ollama/ollama#15457, ai-dynamo/dynamo#4723); vLLM
repeats the id (and some servers the name) in every fragment of one call
(spring-projects/spring-ai#5973).
"""

from __future__ import annotations

import re

import httpx
import pytest

from tests.fakes.openai_server import FakeOpenAI, text_turn, tool_turn
from tests.providers._helpers import collect, request
from tray_app.base.messages import ChatMessage, ToolCall
from tray_app.providers.base import ChatRequest
from tray_app.providers.ollama import encode_request as ollama_request
from tray_app.providers.openai import OpenAIProvider
from tray_app.providers.openai_wire import encode_request as openai_request
from tray_app.providers.tool_calls import IndexedToolCalls
from tray_app.providers.wire_ids import wire_id

NINE = re.compile(r"[A-Za-z0-9]{9}")
TOOL = {"type": "function", "function": {"name": "write_file", "parameters": {}}}


@pytest.mark.parametrize(
    "stored",
    ["call_00000000000000000001", "chatcmpl-tool-e5add885dbb342de", "0", "", "调用-🙂", "x" * 5000],
)
def test_a_wire_id_is_nine_letters_or_digits_and_stable(stored: str) -> None:
    assert NINE.fullmatch(wire_id(stored))
    assert wire_id(stored) == wire_id(stored)


def test_an_id_that_already_fits_is_sent_as_it_is() -> None:
    assert wire_id("aB3dE6gH9") == "aB3dE6gH9"
    assert wire_id("call_1") != wire_id("call_2")


def history(first: str | None, second: str | None) -> list[ChatMessage]:
    """Two turns whose calls were stored with ``first`` and ``second`` (maybe the same id)."""
    out: list[ChatMessage] = [ChatMessage(role="user", content="write")]
    for call_id, path in ((first, "a.json"), (second, "b.json")):
        call = ToolCall(id=call_id, name="write_file", arguments={"path": path})
        out.append(ChatMessage(role="assistant", content="", tool_calls=[call]))
        out.append(
            ChatMessage(role="tool", content=path, tool_name="write_file", tool_call_id=call_id)
        )
    return out


@pytest.mark.parametrize("encode", [openai_request, ollama_request], ids=["openai", "ollama"])
def test_each_result_carries_its_calls_wire_id_even_when_a_server_reused_one(encode) -> None:  # type: ignore[no-untyped-def]
    body = encode(ChatRequest(model="m", messages=history("call_0", "call_0")))
    calls = [m["tool_calls"][0]["id"] for m in body["messages"] if m.get("tool_calls")]
    results = [m["tool_call_id"] for m in body["messages"] if m["role"] == "tool"]
    assert all(NINE.fullmatch(i) for i in calls)
    assert calls == results
    assert calls[0] != calls[1]  # two calls, two ids, although the server said "call_0" twice


def test_openai_ids_for_id_less_calls_are_nine_characters_too() -> None:
    body = openai_request(ChatRequest(model="m", messages=history(None, None)))
    calls = [m["tool_calls"][0]["id"] for m in body["messages"] if m.get("tool_calls")]
    results = [m["tool_call_id"] for m in body["messages"] if m["role"] == "tool"]
    assert calls == results and len(set(calls)) == 2
    assert all(NINE.fullmatch(i) for i in calls)


async def test_a_mistral_server_accepts_the_history_sent_back() -> None:
    with FakeOpenAI(mistral_ids=True) as fake:
        fake.script(text_turn("ok"))
        provider = OpenAIProvider(fake.url)
        messages = history("call_00000000000000000001", "chatcmpl-tool-e5add885dbb342de")
        result = await collect(provider.chat(ChatRequest(model="gpt-4o-mini", messages=messages)))
        await provider.aclose()
    assert result.content == "ok"


async def test_the_mistral_fake_refuses_other_ids_like_the_real_server() -> None:
    with FakeOpenAI(mistral_ids=True) as fake:
        body = {
            "model": "gpt-4o-mini",
            "messages": [{"role": "tool", "tool_call_id": "call_1", "content": "x"}],
        }
        async with httpx.AsyncClient() as client:
            response = await client.post(f"{fake.url}/v1/chat/completions", json=body)
    assert response.status_code == 400
    assert "Tool call id was call_1 but must be a-z, A-Z, 0-9, with a length of 9" in response.text


@pytest.mark.parametrize("style", ["fragmented", "whole"])
async def test_parallel_calls_at_one_index_stay_two_calls(style: str) -> None:
    calls = [
        ("write_file", {"path": "a.json", "content": '{"a": 1}'}),
        ("write_file", {"path": "b.json", "content": "写入 🙂"}),
    ]
    with FakeOpenAI(tool_call_style=style, same_index=True) as fake:  # type: ignore[arg-type]
        fake.script(tool_turn(calls, chunk_chars=2))
        provider = OpenAIProvider(fake.url)
        result = await collect(provider.chat(request(tools=[TOOL])))
        await provider.aclose()
    assert result.done is not None
    got = result.done.tool_calls
    assert [(c.name, c.arguments, c.arguments_error) for c in got] == [
        ("write_file", {"path": "a.json", "content": '{"a": 1}'}, None),
        ("write_file", {"path": "b.json", "content": "写入 🙂"}, None),
    ]
    assert got[0].id != got[1].id


def test_an_id_and_name_repeated_in_every_fragment_continue_one_call() -> None:
    calls = IndexedToolCalls()
    for piece in ('{"pa', 'th": ', '"a"}'):
        function = {"name": "read_file", "arguments": piece}
        calls.add([{"index": 0, "id": "chatcmpl-tool-1", "function": function}])
    assert calls.build() == [
        ToolCall(id="chatcmpl-tool-1", name="read_file", arguments={"path": "a"})
    ]


def test_a_new_id_at_an_occupied_index_starts_a_new_call_and_later_fragments_follow_it() -> None:
    calls = IndexedToolCalls()
    calls.add([{"index": 0, "id": "a", "function": {"name": "f", "arguments": '{"x":'}}])
    calls.add([{"index": 0, "function": {"arguments": " 1}"}}])
    calls.add([{"index": 0, "id": "b", "function": {"name": "f", "arguments": '{"x":'}}])
    calls.add([{"index": 0, "function": {"arguments": " 2}"}}])
    calls.add([{"index": 1, "id": "c", "function": {"name": "g", "arguments": "{}"}}])
    assert calls.build() == [
        ToolCall(id="a", name="f", arguments={"x": 1}),
        ToolCall(id="b", name="f", arguments={"x": 2}),
        ToolCall(id="c", name="g", arguments={}),
    ]
