"""OllamaProvider.chat against the fake Ollama: what streams, what the final item carries,
and what goes out on the wire."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.fakes.ollama_server import FakeOllama, raw_turn, slow_turn, text_turn, tool_turn
from tests.providers._helpers import collect, request
from tray_app.base.messages import ChatMessage, ToolCall
from tray_app.providers.base import ChatRequest, StreamDelta
from tray_app.providers.ollama import OllamaProvider
from tray_app.providers.wire_ids import wire_id


async def test_text_with_thinking_streams_in_pieces_and_reports_stats(
    fake_ollama: FakeOllama, ollama: OllamaProvider
) -> None:
    fake_ollama.script(
        text_turn("The sky is blue because of Rayleigh scattering.", thinking="One sentence.")
    )

    result = await collect(ollama.chat(request()))

    assert result.thinking == "One sentence."
    assert result.content == "The sky is blue because of Rayleigh scattering."
    kinds = [d.kind for d in result.deltas]
    assert kinds == sorted(kinds, key=lambda k: k != "thinking"), "thinking comes first"
    assert kinds.count("content") > 5, "content is passed on piece by piece, not buffered"
    assert result.done is not None
    assert result.done.done_reason == "stop"
    assert result.done.tool_calls == []
    stats = result.done.stats
    assert stats.prompt_tokens is not None and stats.prompt_tokens > 0
    assert stats.completion_tokens == len(result.deltas) + 1
    assert stats.total_ms is not None and stats.load_ms == pytest.approx(58.113708)


async def test_go_escaped_html_characters_arrive_decoded(
    fake_ollama: FakeOllama, ollama: OllamaProvider
) -> None:
    fake_ollama.script(text_turn("Use <b> & </b> tags", chunk_chars=2))
    result = await collect(ollama.chat(request()))
    assert result.content == "Use <b> & </b> tags"


async def test_think_tags_split_across_chunks_become_thinking(
    fake_ollama: FakeOllama, ollama: OllamaProvider
) -> None:
    fake_ollama.script(
        text_turn("<think>\nCheck the file first.\n</think>\n\nIt is done.", chunk_chars=3)
    )
    result = await collect(ollama.chat(request(model="llama3.2")))
    assert result.thinking == "Check the file first.\n"
    assert result.content == "It is done."


async def test_multibyte_characters_cut_between_tcp_writes(
    fake_ollama: FakeOllama, ollama: OllamaProvider
) -> None:
    # U+0085 and U+2028 are line breaks to str.splitlines (and to httpx's aiter_lines); Go leaves
    # U+0085 unescaped, so it must not cut the NDJSON line.
    text = "Grüße, 你好 🌍 — next\u0085line\u2028sep"
    chunk = {"model": "qwen3:8b", "message": {"role": "assistant", "content": text}, "done": False}
    done = {"model": "qwen3:8b", "message": {"role": "assistant", "content": ""}, "done": True}
    body = [json.dumps(c, ensure_ascii=False) for c in (chunk, done)]
    fake_ollama.script(raw_turn(body, write_size=1))

    result = await collect(ollama.chat(request()))

    assert result.content == text


async def test_tool_call_in_a_middle_chunk(fake_ollama: FakeOllama, ollama: OllamaProvider) -> None:
    fake_ollama.script(
        tool_turn([("read_file", {"path": "notes.txt"})], content="Let me look.", thinking="Hm.")
    )
    result = await collect(ollama.chat(request()))
    assert result.content == "Let me look."
    assert result.thinking == "Hm."
    assert result.done is not None
    assert result.done.tool_calls == [
        ToolCall(id="call_00000001", name="read_file", arguments={"path": "notes.txt"})
    ]


async def test_tool_calls_on_the_done_chunk(
    fake_ollama: FakeOllama, ollama: OllamaProvider
) -> None:
    fake_ollama.script(
        tool_turn(
            [("list_directory", {"path": "."}), ("read_file", {"path": "a"})], on_done_chunk=True
        )
    )
    result = await collect(ollama.chat(request()))
    assert result.done is not None
    assert [(c.name, c.arguments) for c in result.done.tool_calls] == [
        ("list_directory", {"path": "."}),
        ("read_file", {"path": "a"}),
    ]


async def test_parallel_calls_keep_order_and_ids(
    fake_ollama: FakeOllama, ollama: OllamaProvider
) -> None:
    fake_ollama.script(
        tool_turn(
            [
                {"name": "get_weather", "arguments": {"city": "Paris"}, "id": "call_aaaa1111"},
                {"name": "get_weather", "arguments": {"city": "Tokyo"}, "id": "call_bbbb2222"},
            ]
        )
    )
    result = await collect(ollama.chat(request()))
    assert result.done is not None
    assert result.done.tool_calls == [
        ToolCall(id="call_aaaa1111", name="get_weather", arguments={"city": "Paris"}),
        ToolCall(id="call_bbbb2222", name="get_weather", arguments={"city": "Tokyo"}),
    ]


@pytest.mark.parametrize("as_string", [False, True], ids=["object-parts", "json-fragments"])
async def test_split_arguments_merge_into_the_named_call(
    fake_ollama: FakeOllama, ollama: OllamaProvider, as_string: bool
) -> None:
    args = {"path": "src/main.py", "start_line": 10, "end_line": 20}
    fake_ollama.script(
        tool_turn(
            [("read_file", args), ("list_directory", {"path": "src"})],
            split_arguments=True,
            arguments_as_string=as_string,
        )
    )
    result = await collect(ollama.chat(request()))
    assert result.done is not None
    calls = result.done.tool_calls
    assert [(c.name, c.arguments, c.arguments_error) for c in calls] == [
        ("read_file", args, None),
        ("list_directory", {"path": "src"}, None),
    ]


async def test_arguments_as_a_json_string_are_parsed(
    fake_ollama: FakeOllama, ollama: OllamaProvider
) -> None:
    fake_ollama.script(
        tool_turn(
            [("write_file", {"path": "a.md", "content": "<h1>&</h1>"})], arguments_as_string=True
        )
    )
    result = await collect(ollama.chat(request()))
    assert result.done is not None
    assert result.done.tool_calls[0].arguments == {"path": "a.md", "content": "<h1>&</h1>"}


async def test_unparsable_arguments_keep_the_name_and_explain(
    fake_ollama: FakeOllama, ollama: OllamaProvider
) -> None:
    call = {"function": {"index": 0, "name": "read_file", "arguments": '{"path": "a.txt",'}}
    lines = [
        {
            "model": "qwen3:8b",
            "message": {"role": "assistant", "content": "", "tool_calls": [call]},
        },
        {"model": "qwen3:8b", "message": {"role": "assistant", "content": ""}, "done": True},
    ]
    fake_ollama.script(raw_turn([json.dumps(line) for line in lines]))
    result = await collect(ollama.chat(request()))
    assert result.done is not None
    (bad,) = result.done.tool_calls
    assert bad.name == "read_file"
    assert bad.id is None
    assert bad.arguments == {}
    assert bad.arguments_error is not None
    assert "read_file" in bad.arguments_error and "not valid JSON" in bad.arguments_error


async def test_calls_without_ids_have_none(fake_ollama: FakeOllama, ollama: OllamaProvider) -> None:
    fake_ollama.script(tool_turn([("read_file", {"path": "a"})], with_ids=False))
    result = await collect(ollama.chat(request()))
    assert result.done is not None
    assert result.done.tool_calls[0].id is None


async def test_request_body_has_only_what_was_asked_for(
    fake_ollama: FakeOllama, ollama: OllamaProvider
) -> None:
    fake_ollama.script(text_turn("ok"))
    await collect(ollama.chat(request(model="llama3.2")))
    (body,) = fake_ollama.chat_requests
    assert body == {
        "model": "llama3.2",
        "messages": [{"role": "user", "content": "hi"}],
        "stream": True,
    }


async def test_request_body_carries_history_tools_and_options(
    fake_ollama: FakeOllama, ollama: OllamaProvider
) -> None:
    tool = {"type": "function", "function": {"name": "read_file", "parameters": {}}}
    messages = [
        ChatMessage(role="system", content="Be brief."),
        ChatMessage(role="user", content="What is in this?", images=["aGVsbG8="]),
        ChatMessage(
            role="assistant",
            thinking="Read it.",
            tool_calls=[
                ToolCall(id="call_1", name="read_file", arguments={"path": "a"}),
                ToolCall(name="read_file", arguments={"path": "b"}),
            ],
        ),
        ChatMessage(
            role="tool", content='{"success": true}', tool_name="read_file", tool_call_id="call_1"
        ),
        ChatMessage(role="tool", content='{"success": false}', tool_name="read_file"),
    ]
    fake_ollama.script(text_turn("ok"))
    req = ChatRequest(
        model="qwen3:8b",
        messages=messages,
        tools=[tool],
        think=True,
        temperature=0.2,
        num_ctx=8192,
        keep_alive="10m",
    )
    await collect(ollama.chat(req))
    (body,) = fake_ollama.chat_requests
    assert body["think"] is True
    assert body["tools"] == [tool]
    assert body["options"] == {"num_ctx": 8192, "temperature": 0.2}
    assert body["keep_alive"] == "10m"
    assert body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "What is in this?", "images": ["aGVsbG8="]},
        {
            "role": "assistant",
            "content": "",
            "thinking": "Read it.",
            "tool_calls": [
                {
                    "id": wire_id("call_1"),
                    "function": {"name": "read_file", "arguments": {"path": "a"}},
                },
                {"function": {"name": "read_file", "arguments": {"path": "b"}}},
            ],
        },
        {
            "role": "tool",
            "content": '{"success": true}',
            "tool_name": "read_file",
            "tool_call_id": wire_id("call_1"),  # nine letters or digits: wire_ids
        },
        {"role": "tool", "content": '{"success": false}', "tool_name": "read_file"},
    ]


async def test_think_false_is_sent_and_accepted_by_models_without_thinking(
    fake_ollama: FakeOllama, ollama: OllamaProvider
) -> None:
    fake_ollama.script(text_turn("ok"))
    result = await collect(ollama.chat(request(model="llama3.2", think=False, keep_alive="-1")))
    assert result.content == "ok"
    assert fake_ollama.chat_requests[0]["think"] is False
    assert fake_ollama.chat_requests[0]["keep_alive"] == -1, "bare seconds go out as a number"


async def test_first_delta_arrives_before_the_stream_ends(
    fake_ollama: FakeOllama, ollama: OllamaProvider
) -> None:
    fake_ollama.script(slow_turn("a" * 40, delay=30.0, chunk_chars=1))
    stream = ollama.chat(request())
    first = await asyncio.wait_for(stream.__anext__(), timeout=10)
    assert first == StreamDelta(kind="content", text="a")
    await stream.aclose()


async def test_aclose_hangs_up_on_the_server(
    fake_ollama: FakeOllama, ollama: OllamaProvider
) -> None:
    fake_ollama.script(slow_turn("word " * 50, delay=30.0))
    stream = ollama.chat(request())
    await asyncio.wait_for(stream.__anext__(), timeout=10)

    await stream.aclose()

    await asyncio.to_thread(fake_ollama.wait_for_client_disconnect, 5)
    assert fake_ollama.connections_closed_early == 1


async def test_cancelling_the_consumer_hangs_up_on_the_server(
    fake_ollama: FakeOllama, ollama: OllamaProvider
) -> None:
    fake_ollama.script(slow_turn("word " * 50, delay=30.0))
    got_first = asyncio.Event()
    seen: list[str] = []

    async def consume() -> None:
        async for item in ollama.chat(request()):
            assert isinstance(item, StreamDelta)
            seen.append(item.text)
            got_first.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(got_first.wait(), timeout=10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    await asyncio.to_thread(fake_ollama.wait_for_client_disconnect, 5)
    assert seen == ["word"]


async def test_consecutive_requests_get_the_scripted_turns_in_order(
    fake_ollama: FakeOllama, ollama: OllamaProvider
) -> None:
    fake_ollama.script(text_turn("one"), text_turn("two"))
    first = await collect(ollama.chat(request()))
    second = await collect(ollama.chat(request()))
    assert (first.content, second.content) == ("one", "two")
    assert fake_ollama.connections_closed_early == 0
