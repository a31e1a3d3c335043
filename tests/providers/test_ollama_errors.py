"""Every way a request to Ollama can fail becomes a typed error with a message for the user,
and whatever streamed before the failure stays with the consumer."""

from __future__ import annotations

import json
import socket

import httpx
import pytest

from tests.fakes.ollama_server import (
    FakeOllama,
    drop_turn,
    eof_turn,
    error_turn,
    midstream_error_turn,
    raw_turn,
)
from tests.providers._helpers import collect, request
from tray_app.base.errors import (
    CapabilityError,
    ModelNotFound,
    ProviderError,
    ProviderHTTPError,
    ProviderUnavailable,
    StreamError,
)
from tray_app.providers.base import INCOMPLETE
from tray_app.providers.ollama import OllamaProvider


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_unknown_model_is_model_not_found_with_the_server_text(
    fake_ollama: FakeOllama, ollama: OllamaProvider
) -> None:
    with pytest.raises(ModelNotFound) as caught:
        await collect(ollama.chat(request(model="qwen3:14b")))
    assert str(caught.value) == "model 'qwen3:14b' not found"
    assert caught.value.model == "qwen3:14b"


async def test_tools_for_a_model_without_tools_is_a_capability_error(
    fake_ollama: FakeOllama, ollama: OllamaProvider
) -> None:
    fake_ollama.script(error_turn(500, "must not be used"))
    tool = {"type": "function", "function": {"name": "read_file", "parameters": {}}}
    with pytest.raises(CapabilityError) as caught:
        await collect(ollama.chat(request(model="gemma3:4b", tools=[tool])))
    assert caught.value.capability == "tools"
    assert str(caught.value) == "registry.ollama.ai/library/gemma3:4b does not support tools"
    assert fake_ollama.pending_turns == 1, "a refused request consumes no scripted turn"


async def test_think_for_a_model_without_thinking_is_a_capability_error(
    fake_ollama: FakeOllama, ollama: OllamaProvider
) -> None:
    with pytest.raises(CapabilityError) as caught:
        await collect(ollama.chat(request(model="llama3.2", think=True)))
    assert caught.value.capability == "thinking"
    assert str(caught.value) == '"llama3.2" does not support thinking'


async def test_other_http_errors_carry_status_body_and_the_server_text(
    fake_ollama: FakeOllama, ollama: OllamaProvider
) -> None:
    fake_ollama.script(error_turn(500, "llama runner process has terminated: exit status 2"))
    with pytest.raises(ProviderHTTPError) as caught:
        await collect(ollama.chat(request()))
    error = caught.value
    assert str(error) == "llama runner process has terminated: exit status 2"
    assert error.status == 500
    assert json.loads(error.body) == {"error": "llama runner process has terminated: exit status 2"}


async def test_a_non_json_error_body_is_described(
    fake_ollama: FakeOllama, ollama: OllamaProvider
) -> None:
    fake_ollama.script(raw_turn(["<html>Bad Gateway</html>"], status=502, content_type="text/html"))
    with pytest.raises(ProviderHTTPError) as caught:
        await collect(ollama.chat(request()))
    assert caught.value.status == 502
    assert str(caught.value) == (
        f"Ollama at {fake_ollama.url} answered HTTP 502 Bad Gateway: <html>Bad Gateway</html>"
    )


async def test_an_empty_script_fails_loudly(
    fake_ollama: FakeOllama, ollama: OllamaProvider
) -> None:
    with pytest.raises(ProviderHTTPError, match="no scripted turn left") as caught:
        await collect(ollama.chat(request()))
    assert caught.value.status == 500


async def test_error_line_mid_stream_keeps_what_streamed(
    fake_ollama: FakeOllama, ollama: OllamaProvider
) -> None:
    message = "an error was encountered while running the model: unexpected EOF"
    fake_ollama.script(midstream_error_turn("Here is a long answer:", message))
    result = await collect(ollama.chat(request()), expect_error=True)
    assert isinstance(result.error, StreamError)
    assert str(result.error) == message
    assert result.content == "Here is a long answer:"


async def test_connection_dropped_mid_stream(
    fake_ollama: FakeOllama, ollama: OllamaProvider
) -> None:
    fake_ollama.script(drop_turn("The first half of"))
    result = await collect(ollama.chat(request()), expect_error=True)
    assert isinstance(result.error, StreamError)
    assert f"The connection to Ollama at {fake_ollama.url} was lost mid-answer" in str(result.error)
    assert result.content == "The first half of"


async def test_stream_ending_without_done(fake_ollama: FakeOllama, ollama: OllamaProvider) -> None:
    """The text is kept and the ending is marked incomplete, with no calls: nothing of an
    answer the server did not finish runs."""
    fake_ollama.script(eof_turn("Cut short"))
    result = await collect(ollama.chat(request()))
    assert result.done is not None and result.done.done_reason == INCOMPLETE
    assert result.done.tool_calls == []
    assert result.content == "Cut short"


async def test_a_line_that_is_not_json(fake_ollama: FakeOllama, ollama: OllamaProvider) -> None:
    good = {"model": "qwen3:8b", "message": {"role": "assistant", "content": "Fine"}, "done": False}
    fake_ollama.script(raw_turn([json.dumps(good), "<!-- proxy garbage -->"]))
    result = await collect(ollama.chat(request()), expect_error=True)
    assert isinstance(result.error, StreamError)
    assert "not a JSON object" in str(result.error) and "proxy garbage" in str(result.error)
    assert result.content == "Fine"


async def test_a_half_think_tag_is_not_lost_when_the_stream_breaks(
    fake_ollama: FakeOllama, ollama: OllamaProvider
) -> None:
    fake_ollama.script(midstream_error_turn("a < b and <thi", "boom", chunk_chars=20))
    result = await collect(ollama.chat(request()), expect_error=True)
    assert str(result.error) == "boom"
    assert result.content == "a < b and <thi"


async def test_server_down_is_unavailable_with_a_hint() -> None:
    endpoint = f"http://127.0.0.1:{free_port()}"
    provider = OllamaProvider(endpoint)
    try:
        with pytest.raises(ProviderUnavailable) as caught:
            await collect(provider.chat(request()))
        message = str(caught.value)
        assert message.startswith(f"Cannot reach Ollama at {endpoint}: ")
        assert "Is it running?" in message and "`ollama serve`" in message
        with pytest.raises(ProviderUnavailable):
            await provider.version()
        with pytest.raises(ProviderUnavailable):
            await provider.list_models()
    finally:
        await provider.aclose()


@pytest.mark.parametrize(
    "exc",
    [
        httpx.ConnectError("[Errno -2] Name or service not known"),
        httpx.ConnectTimeout("timed out"),
    ],
    ids=["dns", "connect-timeout"],
)
async def test_dns_failure_and_connect_timeout_are_unavailable(exc: Exception) -> None:
    def fail(request: httpx.Request) -> httpx.Response:
        raise exc

    async with httpx.AsyncClient(transport=httpx.MockTransport(fail)) as client:
        provider = OllamaProvider("http://ollama.lan:11434", client=client)
        with pytest.raises(ProviderUnavailable) as caught:
            await collect(provider.chat(request()))
    assert str(caught.value).startswith("Cannot reach Ollama at http://ollama.lan:11434: ")
    assert str(exc).split("] ")[-1].lower() in str(caught.value)


async def test_an_endpoint_without_scheme_says_so() -> None:
    provider = OllamaProvider("localhost:11434")
    try:
        with pytest.raises(ProviderError, match="must start with http:// or https://"):
            await provider.version()
    finally:
        await provider.aclose()


async def test_401_asks_to_check_the_api_key(
    fake_ollama: FakeOllama, ollama: OllamaProvider
) -> None:
    fake_ollama.script(error_turn(401, "unauthorized"))
    with pytest.raises(ProviderHTTPError) as caught:
        await collect(ollama.chat(request()))
    assert caught.value.status == 401
    assert str(caught.value) == f"unauthorized. Check the API key for {fake_ollama.url}."


async def test_a_closed_provider_leaves_a_borrowed_client_open() -> None:
    async with httpx.AsyncClient() as client:
        provider = OllamaProvider("http://127.0.0.1:1", client=client)
        await provider.aclose()
        assert not client.is_closed
