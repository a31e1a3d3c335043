"""Servers that misbehave on purpose, over real HTTP on loopback, for both providers.

Each case would cost memory without bound or turn a good answer into a failure if the client
read naively: an error page of 300 MB, a line of 50 MB without a newline, an answer that never
ends, a ``done`` after which the connection stays open. The fake servers generate these while
writing them and notice when the client hangs up, which is what the tests check: the client
stopped reading early, said why, and kept what arrived before.
"""

from __future__ import annotations

import asyncio
from contextlib import aclosing

import pytest

from tests.fakes._server import FakeServer
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.turns import (
    endless_turn,
    error_turn,
    hold_open_turn,
    huge_error_turn,
    long_event_turn,
    long_line_turn,
    raw_turn,
)
from tests.providers._helpers import collect, request
from tray_app.base.errors import LineTooLong, ProviderError, ProviderHTTPError, StreamError
from tray_app.providers import openai as openai_module
from tray_app.providers._http import BODY_KEEP
from tray_app.providers.base import Provider, StreamDelta
from tray_app.providers.ollama import OllamaProvider
from tray_app.providers.openai import OpenAIProvider

MB = 1024 * 1024


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
async def test_a_300_mb_error_page_is_read_only_to_64_kb_and_summarised(
    served: tuple[FakeServer, Provider], chunked: bool
) -> None:
    fake, provider = served
    fake.script(huge_error_turn(300 * MB, status=502, chunked=chunked))
    with pytest.raises(ProviderHTTPError) as caught:
        await collect(provider.chat(request()))
    error = caught.value
    assert error.status == 502
    message = str(error)
    assert message.startswith(f"{_name(fake)} at {fake.url} answered HTTP 502 Bad Gateway: ")
    assert "<h1>Upstream error</h1>" in message
    assert message.endswith("(an error page of more than 64 KB)")
    assert len(message) < 600 and len(error.body) <= BODY_KEEP
    # The rest of the 300 MB was never received: the server saw the client hang up.
    assert fake.wait_for_client_disconnect()


async def test_a_50_mb_line_without_newline_fails_and_keeps_what_streamed(
    served: tuple[FakeServer, Provider],
) -> None:
    fake, provider = served
    fake.script(long_line_turn("The start 你好 🌍 of it", 50 * MB))
    result = await collect(provider.chat(request()), expect_error=True)
    assert isinstance(result.error, LineTooLong)
    assert str(result.error) == (
        f"{_source(fake)} sent a line longer than 8 MB without a break, so reading stopped "
        "there. What arrived before it is kept."
    )
    assert result.content == "The start 你好 🌍 of it"
    assert fake.wait_for_client_disconnect(), "the other 42 MB were not read"


async def test_an_sse_event_that_never_ends_is_cut_like_a_long_line(
    fake_openai: FakeOpenAI, openai: OpenAIProvider
) -> None:
    fake_openai.script(long_event_turn("Kept", 50 * MB))
    result = await collect(openai.chat(request()), expect_error=True)
    assert isinstance(result.error, LineTooLong)
    assert "sent an event longer than 8 MB without a break" in str(result.error)
    assert result.content == "Kept"
    assert fake_openai.wait_for_client_disconnect()


async def test_an_endless_answer_streams_until_the_consumer_stops_it(
    served: tuple[FakeServer, Provider],
) -> None:
    fake, provider = served
    fake.script(endless_turn("la "))
    seen = 0
    async with aclosing(provider.chat(request())) as stream:  # type: ignore[type-var]
        async for item in stream:
            assert isinstance(item, StreamDelta) and item.text == "la "
            seen += 1
            if seen == 5000:
                break
    assert fake.wait_for_client_disconnect(), "closing the stream hung up on the server"


async def test_an_endless_answer_is_abortable_by_cancelling_its_task(
    served: tuple[FakeServer, Provider],
) -> None:
    fake, provider = served
    fake.script(endless_turn("da ", delay=0.01))
    started = asyncio.Event()

    async def consume() -> None:
        async for _ in provider.chat(request()):
            started.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(started.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 10)
    assert fake.wait_for_client_disconnect()


async def test_done_then_a_connection_kept_open_is_a_complete_answer(
    served: tuple[FakeServer, Provider],
) -> None:
    fake, provider = served
    fake.script(hold_open_turn("Complete. 完成。", hold=600))
    # Without stopping at "done" this would wait for the read timeout (300 s) and then fail.
    result = await asyncio.wait_for(collect(provider.chat(request())), 60)
    assert result.content == "Complete. 完成。"
    assert result.done is not None and result.done.done_reason == "stop"
    assert fake.wait_for_client_disconnect()


async def test_finish_reason_without_done_marker_then_silence_is_complete(
    fake_openai: FakeOpenAI, openai: OpenAIProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(openai_module, "AFTER_FINISH_WAIT", 0.2)
    fake_openai.script(hold_open_turn("All there.", hold=600, done_marker=False))
    result = await asyncio.wait_for(collect(openai.chat(request())), 60)
    assert result.content == "All there."
    assert result.done is not None and result.done.done_reason == "stop"
    assert fake_openai.wait_for_client_disconnect()


async def test_the_usage_event_after_finish_reason_is_still_read(
    fake_openai: FakeOpenAI, openai: OpenAIProvider
) -> None:
    fake_openai.script(hold_open_turn("Counted.", hold=600))
    result = await asyncio.wait_for(collect(openai.chat(request())), 60)
    assert result.done is not None and result.done.stats.prompt_tokens
    assert result.done.stats.completion_tokens


async def test_a_line_nested_too_deeply_is_a_stream_error_not_a_crash(
    fake_ollama: FakeOllama, ollama: OllamaProvider
) -> None:
    good = '{"model":"qwen3:8b","message":{"role":"assistant","content":"Before"},"done":false}'
    fake_ollama.script(raw_turn([good, "[" * 100_000 + "]" * 100_000]))
    result = await collect(ollama.chat(request()), expect_error=True)
    assert type(result.error) is StreamError
    assert "nested too deeply to read" in str(result.error)
    assert result.content == "Before"


async def test_an_event_nested_too_deeply_is_a_stream_error_not_a_crash(
    fake_openai: FakeOpenAI, openai: OpenAIProvider
) -> None:
    fake_openai.script(raw_turn(["data: " + "[" * 100_000 + "]" * 100_000, ""]))
    result = await collect(openai.chat(request()), expect_error=True)
    assert type(result.error) is StreamError
    assert "nested too deeply to read" in str(result.error)


async def test_an_error_page_nested_too_deeply_is_summarised(
    served: tuple[FakeServer, Provider],
) -> None:
    fake, provider = served
    fake.script(raw_turn(["[" * 30_000], status=500, content_type="application/json"))
    with pytest.raises(ProviderHTTPError) as caught:
        await collect(provider.chat(request()))
    assert caught.value.status == 500
    assert str(caught.value).startswith(f"{_name(fake)} at {fake.url} answered HTTP 500")


async def test_a_huge_model_list_is_refused_without_reading_it_all() -> None:
    with FakeOllama() as fake:
        fake.tags_size = 300 * MB
        provider = OllamaProvider(fake.url)
        try:
            with pytest.raises(ProviderError) as caught:
                await provider.list_models()
        finally:
            await provider.aclose()
        assert str(caught.value) == (
            f"Ollama at {fake.url} answered {fake.url}/api/tags with more than 16 MB; that is "
            "not an answer this app can use."
        )
        assert fake.wait_for_client_disconnect()


def _name(fake: FakeServer) -> str:
    return "Ollama" if isinstance(fake, FakeOllama) else "the OpenAI-compatible server"


def _source(fake: FakeServer) -> str:
    return f"Ollama at {fake.url}" if isinstance(fake, FakeOllama) else f"The server at {fake.url}"


async def test_a_huge_answer_that_is_not_a_stream_is_refused_unread(
    fake_openai: FakeOpenAI, openai: OpenAIProvider
) -> None:
    # A 200 that is not text/event-stream is read as one completion object: capped at 16 MB.
    fake_openai.script(huge_error_turn(300 * MB, status=200))
    result = await collect(openai.chat(request()), expect_error=True)
    assert type(result.error) is StreamError
    assert str(result.error) == (
        f"The server at {fake_openai.url} sent a completion of more than 16 MB; it was not read."
    )
    assert fake_openai.wait_for_client_disconnect()


async def test_an_enormous_server_message_is_shortened_for_the_user(
    served: tuple[FakeServer, Provider],
) -> None:
    fake, provider = served
    fake.script(error_turn(500, "错误 " * 3000))
    with pytest.raises(ProviderHTTPError) as caught:
        await collect(provider.chat(request()))
    assert caught.value.status == 500
    assert str(caught.value).startswith("错误 错误 ") and str(caught.value).endswith("…")
    assert len(str(caught.value)) <= 1001
