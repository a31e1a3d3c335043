"""OpenAIProvider against the fake OpenAI-compatible server."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.fakes.openai_server import (
    FakeOpenAI,
    drop_turn,
    eof_turn,
    midstream_error_turn,
    raw_turn,
    slow_turn,
    text_turn,
    tool_turn,
)
from tests.providers._helpers import collect, request
from tests.providers.test_ollama_errors import free_port
from tray_app.base.errors import (
    CapabilityError,
    ConfigError,
    ModelNotFound,
    ProviderError,
    ProviderHTTPError,
    ProviderUnavailable,
    StreamError,
)
from tray_app.base.messages import ChatMessage, ToolCall
from tray_app.providers.base import INCOMPLETE, ChatRequest
from tray_app.providers.factory import make_provider
from tray_app.providers.openai import OpenAIProvider
from tray_app.providers.wire_ids import wire_id

TOOL = {"type": "function", "function": {"name": "read_file", "parameters": {}}}


async def test_text_with_reasoning_content_and_usage(
    fake_openai: FakeOpenAI, openai: OpenAIProvider
) -> None:
    fake_openai.script(text_turn("Blue, because of scattering.", thinking="Short answer."))
    result = await collect(openai.chat(request(model="gpt-4o-mini")))
    assert result.thinking == "Short answer."
    assert result.content == "Blue, because of scattering."
    assert [d.kind for d in result.deltas].count("content") > 3
    assert result.done is not None
    assert result.done.done_reason == "stop"
    assert result.done.stats.completion_tokens == len(result.deltas)
    assert result.done.stats.prompt_tokens is not None


async def test_reasoning_field_and_think_tags_both_become_thinking() -> None:
    with FakeOpenAI(reasoning_field="reasoning") as fake:
        fake.script(
            text_turn("Hi.", thinking="Greet."),
            text_turn("<think>Plan it.</think>\n\nDone.", chunk_chars=3),
        )
        provider = OpenAIProvider(fake.url)
        first = await collect(provider.chat(request()))
        second = await collect(provider.chat(request()))
        await provider.aclose()
    assert (first.thinking, first.content) == ("Greet.", "Hi.")
    assert (second.thinking, second.content) == ("Plan it.", "Done.")


@pytest.mark.parametrize("style", ["fragmented", "whole"])
async def test_tool_calls_are_assembled_by_index(style: str) -> None:
    calls = [("read_file", {"path": "a <b> & c.txt"}), ("list_directory", {"path": "."})]
    with FakeOpenAI(tool_call_style=style) as fake:  # type: ignore[arg-type]
        fake.script(tool_turn(calls, content="Checking."))
        provider = OpenAIProvider(fake.url)
        result = await collect(provider.chat(request(tools=[TOOL])))
        await provider.aclose()
    assert result.content == "Checking."
    assert result.done is not None
    assert result.done.done_reason == "tool_calls"
    got = result.done.tool_calls
    assert [(c.name, c.arguments, c.arguments_error) for c in got] == [
        ("read_file", {"path": "a <b> & c.txt"}, None),
        ("list_directory", {"path": "."}, None),
    ]
    assert all(c.id and c.id.startswith("call_") for c in got)
    assert got[0].id != got[1].id


async def test_tool_calls_in_the_finish_chunk(
    fake_openai: FakeOpenAI, openai: OpenAIProvider
) -> None:
    fake_openai.script(tool_turn([("read_file", {"path": "x"})], on_done_chunk=True))
    result = await collect(openai.chat(request(tools=[TOOL])))
    assert result.done is not None
    assert [(c.name, c.arguments) for c in result.done.tool_calls] == [("read_file", {"path": "x"})]


async def test_bad_arguments_and_missing_ids(
    fake_openai: FakeOpenAI, openai: OpenAIProvider
) -> None:
    fake_openai.script(tool_turn([{"name": "read_file", "arguments": '{"path": '}], with_ids=False))
    result = await collect(openai.chat(request(tools=[TOOL])))
    assert result.done is not None
    (call,) = result.done.tool_calls
    assert (call.name, call.id, call.arguments) == ("read_file", None, {})
    assert call.arguments_error is not None and "not valid JSON" in call.arguments_error


@pytest.mark.parametrize("suffix", ["", "/", "/v1", "/v1/"])
async def test_request_shape_and_endpoint_forms(suffix: str) -> None:
    with FakeOpenAI(api_key="sk-test-123") as fake:
        fake.script(text_turn("ok"))
        provider = OpenAIProvider(fake.url + suffix, api_key="sk-test-123")
        req = request(tools=[TOOL], think=True, temperature=0.3, num_ctx=4096, keep_alive="5m")
        await collect(provider.chat(req))
        await provider.aclose()
        (recorded,) = fake.requests_to("/v1/chat/completions")
    assert recorded.header("authorization") == "Bearer sk-test-123"
    assert recorded.body == {
        "model": "qwen3:8b",
        "messages": [{"role": "user", "content": "hi"}],
        "stream": True,
        "stream_options": {"include_usage": True},
        "tools": [TOOL],
        "temperature": 0.3,
    }
    assert "sk-test-123" not in repr(provider)


async def test_no_authorization_header_without_a_key(
    fake_openai: FakeOpenAI, openai: OpenAIProvider
) -> None:
    await openai.list_models()
    assert fake_openai.all_requests[0].header("authorization") is None


async def test_history_with_tool_calls_pairs_ids(
    fake_openai: FakeOpenAI, openai: OpenAIProvider
) -> None:
    messages = [
        ChatMessage(role="user", content="Look at these", images=["iVBORw0KGgo=", "/9j/4AAQ"]),
        ChatMessage(
            role="assistant",
            content="",
            tool_calls=[
                ToolCall(name="read_file", arguments={"path": "a"}),
                ToolCall(name="list_directory", arguments={"path": "."}),
                ToolCall(id="call_xyz", name="read_file", arguments={"path": "b"}),
            ],
        ),
        ChatMessage(role="tool", content="A", tool_name="read_file"),
        ChatMessage(role="tool", content="LS", tool_name="list_directory"),
        ChatMessage(role="tool", content="B", tool_name="read_file", tool_call_id="call_xyz"),
        ChatMessage(role="assistant", content="Both read.", thinking="not sent back"),
    ]
    fake_openai.script(text_turn("ok"))
    await collect(openai.chat(ChatRequest(model="gpt-4o-mini", messages=messages)))
    (body,) = fake_openai.chat_requests
    sent = body["messages"]
    assert sent[0]["content"] == [
        {"type": "text", "text": "Look at these"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
        {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,/9j/4AAQ"}},
    ]

    def call(call_id: str, name: str, arguments: str) -> dict[str, object]:
        return {
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": arguments},
        }

    assert sent[1] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            call(wire_id("call_1"), "read_file", '{"path": "a"}'),
            call(wire_id("call_2"), "list_directory", '{"path": "."}'),
            call(wire_id("call_xyz"), "read_file", '{"path": "b"}'),
        ],
    }
    assert [(m["tool_call_id"], m["content"]) for m in sent[2:5]] == [
        (wire_id("call_1"), "A"),
        (wire_id("call_2"), "LS"),
        (wire_id("call_xyz"), "B"),
    ]
    assert sent[5] == {"role": "assistant", "content": "Both read."}


async def test_unknown_model(fake_openai: FakeOpenAI, openai: OpenAIProvider) -> None:
    with pytest.raises(ModelNotFound) as caught:
        await collect(openai.chat(request(model="gpt-9")))
    assert str(caught.value) == "model 'gpt-9' not found"
    assert caught.value.model == "gpt-9"


async def test_wrong_api_key_asks_to_check_it() -> None:
    with FakeOpenAI(api_key="right") as fake:
        provider = OpenAIProvider(fake.url, api_key="wrong")
        with pytest.raises(ProviderHTTPError) as caught:
            await provider.list_models()
        await provider.aclose()
    assert caught.value.status == 401
    assert str(caught.value).startswith("Incorrect API key provided.")
    assert str(caught.value).endswith(f"Check the API key for {fake.url}.")


async def test_refused_tools_are_remembered_by_model_info(
    fake_openai: FakeOpenAI, openai: OpenAIProvider
) -> None:
    assert (await openai.model_info("gemma3:4b")).capabilities == ["completion", "tools"]
    with pytest.raises(CapabilityError) as caught:
        await collect(openai.chat(request(model="gemma3:4b", tools=[TOOL])))
    assert caught.value.capability == "tools"
    assert "does not support tools" in str(caught.value)
    assert (await openai.model_info("gemma3:4b")).capabilities == ["completion"]
    openai.invalidate("gemma3:4b")
    assert (await openai.model_info("gemma3:4b")).supports("tools")


async def test_error_event_mid_stream_keeps_the_text(
    fake_openai: FakeOpenAI, openai: OpenAIProvider
) -> None:
    fake_openai.script(midstream_error_turn("Partial answer", "The server had an error"))
    result = await collect(openai.chat(request()), expect_error=True)
    assert isinstance(result.error, StreamError)
    assert str(result.error) == "The server had an error"
    assert result.content == "Partial answer"


async def test_dropped_connection_and_missing_done(
    fake_openai: FakeOpenAI, openai: OpenAIProvider
) -> None:
    fake_openai.script(drop_turn("Half"), eof_turn("Cut"))
    dropped = await collect(openai.chat(request()), expect_error=True)
    assert isinstance(dropped.error, StreamError)
    assert "was lost mid-answer" in str(dropped.error)
    assert dropped.content == "Half"
    cut = await collect(openai.chat(request()))
    assert cut.done is not None and cut.done.done_reason == INCOMPLETE
    assert cut.done.tool_calls == []
    assert cut.content == "Cut"


async def test_an_event_that_is_not_json(fake_openai: FakeOpenAI, openai: OpenAIProvider) -> None:
    fake_openai.script(
        raw_turn(['data: {"choices":[{"delta":{"content":"ok"}}]}', "", "data: {oops", ""])
    )
    result = await collect(openai.chat(request()), expect_error=True)
    assert isinstance(result.error, StreamError)
    assert "not a JSON object" in str(result.error)
    assert result.content == "ok"


async def test_server_down() -> None:
    endpoint = f"http://127.0.0.1:{free_port()}/v1"
    provider = OpenAIProvider(endpoint)
    with pytest.raises(ProviderUnavailable) as caught:
        await collect(provider.chat(request()))
    await provider.aclose()
    assert str(caught.value).startswith(f"Cannot reach the OpenAI-compatible server at {endpoint}")


async def test_aclose_hangs_up_on_the_server(
    fake_openai: FakeOpenAI, openai: OpenAIProvider
) -> None:
    fake_openai.script(slow_turn("tick " * 40, delay=30.0))
    stream = openai.chat(request())
    await asyncio.wait_for(stream.__anext__(), timeout=10)
    await stream.aclose()
    assert await asyncio.to_thread(fake_openai.wait_for_client_disconnect, 5)


async def test_models_version_and_pull(fake_openai: FakeOpenAI, openai: OpenAIProvider) -> None:
    names = [m.name for m in await openai.list_models()]
    assert names == ["gpt-4o-mini", "qwen3:8b", "gemma3:4b", "llama3.2"]
    assert await openai.version() == "openai-compatible"
    with pytest.raises(ProviderError, match="only possible with Ollama"):
        async for _ in openai.pull("llama3.2"):
            pass


async def test_factory_builds_both_kinds(fake_openai: FakeOpenAI) -> None:
    provider = make_provider("openai", fake_openai.url, api_key="k")
    assert isinstance(provider, OpenAIProvider) and provider.kind == "openai"
    await provider.aclose()
    ollama = make_provider("ollama", "http://127.0.0.1:11434")
    assert ollama.kind == "ollama" and ollama.endpoint == "http://127.0.0.1:11434"
    await ollama.aclose()
    with pytest.raises(ConfigError, match="Unknown provider 'anthropic'"):
        make_provider("anthropic", "http://x")


async def test_a_server_that_ignores_stream_true() -> None:
    body = {
        "choices": [
            {
                "message": {"role": "assistant", "content": "Whole.", "reasoning_content": "R."},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2},
    }
    with FakeOpenAI() as fake:
        fake.script(raw_turn([json.dumps(body)], content_type="application/json"))
        provider = OpenAIProvider(fake.url)
        result = await collect(provider.chat(request()))
        await provider.aclose()
    assert (result.thinking, result.content) == ("R.", "Whole.")
    assert result.done is not None and result.done.stats.prompt_tokens == 3
