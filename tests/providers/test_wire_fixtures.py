"""Every recorded transcript in the wire fixtures, replayed byte for byte through
``httpx.MockTransport`` in pieces of 1 byte, 7 bytes and whole, through the provider that
speaks it."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from tests.fakes.turns import WIRE_DIR
from tests.providers._helpers import collect, request
from tray_app.base.errors import CapabilityError, ModelNotFound, StreamError
from tray_app.base.messages import ToolCall
from tray_app.providers.base import PullProgress
from tray_app.providers.ollama import OllamaProvider
from tray_app.providers.openai import OpenAIProvider

SIZES = [1, 7, 1 << 20]
NDJSON = "application/x-ndjson"
SSE = "text/event-stream"


class Pieces(httpx.AsyncByteStream):
    def __init__(self, data: bytes, size: int) -> None:
        self._data, self._size = data, size

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for i in range(0, len(self._data), self._size):
            yield self._data[i : i + self._size]


class Replay:
    """A transport that answers every request with one recorded body, and remembers requests."""

    def __init__(self, body: bytes, *, status: int = 200, content_type: str, size: int) -> None:
        self.requests: list[httpx.Request] = []
        self._answer: Callable[[], httpx.Response] = lambda: httpx.Response(
            status, headers={"content-type": content_type}, stream=Pieces(body, size)
        )

    def handler(self, req: httpx.Request) -> httpx.Response:
        self.requests.append(req)
        return self._answer()

    def client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=httpx.MockTransport(self.handler))


def fixture(name: str) -> bytes:
    return (WIRE_DIR / name).read_bytes()


def error_fixture(name: str) -> dict[str, Any]:
    return dict(json.loads(fixture(name)))


async def ollama_chat(name: str, size: int, **options: Any) -> tuple[Any, Replay]:
    replay = Replay(fixture(name), content_type=NDJSON, size=size)
    async with replay.client() as client:
        provider = OllamaProvider("http://ollama.test:11434", client=client)
        result = await collect(provider.chat(request()), **options)
    assert [r.url.path for r in replay.requests] == ["/api/chat"]
    return result, replay


@pytest.mark.parametrize("size", SIZES)
async def test_stream_text(size: int) -> None:
    result, _ = await ollama_chat("ollama_stream_text.ndjson", size)
    assert result.thinking == "Okay, the user wants one sentence. Rayleigh scattering.\n"
    assert result.content == (
        "The sky looks blue because air molecules scatter short blue wavelengths of sunlight "
        "much more than longer red ones (Rayleigh scattering)."
    )
    done = result.done
    assert done.done_reason == "stop" and done.tool_calls == []
    assert (done.stats.prompt_tokens, done.stats.completion_tokens) == (18, 38)
    assert done.stats.total_ms == pytest.approx(1062.388208)
    assert done.stats.load_ms == pytest.approx(61.284291)
    assert done.stats.eval_ms == pytest.approx(812.664)


@pytest.mark.parametrize("size", SIZES)
async def test_stream_tool_call(size: int) -> None:
    result, _ = await ollama_chat("ollama_stream_tool_call.ndjson", size)
    assert result.thinking == "The user asks about the weather in Paris. I should call get_weather."
    assert result.content == ""
    assert result.done.tool_calls == [
        ToolCall(
            id="call_k3x9q2ab", name="get_weather", arguments={"city": "Paris", "unit": "celsius"}
        )
    ]
    assert result.done.done_reason == "stop"


@pytest.mark.parametrize("size", SIZES)
async def test_stream_parallel_tools(size: int) -> None:
    result, _ = await ollama_chat("ollama_stream_parallel_tools.ndjson", size)
    assert result.content == "I'll check both cities. "
    assert result.done.tool_calls == [
        ToolCall(id="call_7hd2mq0z", name="get_weather", arguments={"city": "Paris"}),
        ToolCall(id="call_v1p8s4kc", name="get_weather", arguments={"city": "Tokyo"}),
    ]
    assert result.done.stats.completion_tokens == 54


@pytest.mark.parametrize("size", SIZES)
async def test_stream_midstream_error(size: int) -> None:
    result, _ = await ollama_chat("ollama_stream_midstream_error.ndjson", size, expect_error=True)
    assert isinstance(result.error, StreamError)
    assert str(result.error) == "an error was encountered while running the model: unexpected EOF"
    assert result.content == "Here is a long answer:"


@pytest.mark.parametrize(
    ("name", "kind", "detail"),
    [
        ("ollama_error_model_not_found.json", ModelNotFound, "qwen3:14b"),
        ("ollama_error_no_tools.json", CapabilityError, "tools"),
        ("ollama_error_no_thinking.json", CapabilityError, "thinking"),
    ],
)
async def test_error_bodies(name: str, kind: type[Exception], detail: str) -> None:
    recorded = error_fixture(name)
    response = recorded["response"]
    replay = Replay(
        response["body_raw"].encode(),
        status=response["http_status"],
        content_type=response["content_type"],
        size=1 << 20,
    )
    model = recorded["request"]["body"]["model"]
    async with replay.client() as client:
        provider = OllamaProvider("http://ollama.test:11434", client=client)
        with pytest.raises(kind) as caught:
            await collect(provider.chat(request(model=model)))
    assert str(caught.value) == response["body"]["error"]
    attribute = "model" if kind is ModelNotFound else "capability"
    assert getattr(caught.value, attribute) == detail


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("ollama_error_model_not_found.json", ModelNotFound),
        ("ollama_error_no_tools.json", CapabilityError),
    ],
)
async def test_error_bodies_of_the_v1_api(name: str, kind: type[Exception]) -> None:
    recorded = error_fixture(name)
    v1 = recorded["openai_compat_v1"]
    raw = json.dumps(v1["body"]).encode() + b"\n"
    replay = Replay(raw, status=v1["http_status"], content_type="application/json", size=5)
    async with replay.client() as client:
        provider = OpenAIProvider("http://ollama.test:11434/v1", client=client)
        with pytest.raises(kind) as caught:
            await collect(provider.chat(request(model=recorded["request"]["body"]["model"])))
    assert str(caught.value) == v1["body"]["error"]["message"]
    assert replay.requests[0].url.path == v1["path"]


@pytest.mark.parametrize("size", SIZES)
async def test_pull_progress(size: int) -> None:
    replay = Replay(fixture("ollama_pull_progress.ndjson"), content_type=NDJSON, size=size)
    async with replay.client() as client:
        provider = OllamaProvider("http://ollama.test:11434", client=client)
        progress = [p async for p in provider.pull("llama3.2")]
    assert len(progress) == 15
    assert progress[0] == PullProgress(status="pulling manifest")
    assert progress[1].completed is None and progress[1].total == 2019377376
    assert progress[6].completed == progress[6].total == 2019377376
    assert progress[1].digest == (
        "sha256:dde5aa3fc5ffc17176b5e8bdc82f587b24b2678c6c66101bf7da77af9f7ccdff"
    )
    assert progress[-1].status == "success"


async def test_show_tags_and_version() -> None:
    bodies = {
        "/api/show": fixture("ollama_show_qwen3.json"),
        "/api/tags": fixture("ollama_tags.json"),
        "/api/version": fixture("ollama_version.json"),
    }

    def handler(req: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=bodies[req.url.path])

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        provider = OllamaProvider("http://ollama.test:11434", client=client)
        info = await provider.model_info("qwen3:8b")
        models = await provider.list_models()
        version = await provider.version()
    assert info.capabilities == ["completion", "tools", "thinking"]
    assert info.context_length == 40960
    assert (info.family, info.parameter_size, info.quantization) == ("qwen3", "8.2B", "Q4_K_M")
    assert [(m.name, m.size, m.parameter_size) for m in models] == [
        ("qwen3:8b", 5225388164, "8.2B"),
        ("llama3.2:latest", 2019393189, "3.2B"),
    ]
    assert version == "0.33.0"


async def openai_chat(body: bytes, size: int) -> Any:
    replay = Replay(body, content_type=SSE, size=size)
    async with replay.client() as client:
        provider = OpenAIProvider("http://server.test", client=client)
        result = await collect(provider.chat(request()))
    assert replay.requests[0].url.path == "/v1/chat/completions"
    return result


@pytest.mark.parametrize("size", SIZES)
async def test_ollama_v1_sse_tool_call(size: int) -> None:
    result = await openai_chat(fixture("ollama_v1_sse_tool_call.txt"), size)
    assert result.thinking == "The user wants Paris weather."
    assert result.content == ""
    assert result.done.tool_calls == [
        ToolCall(
            id="call_k3x9q2ab", name="get_weather", arguments={"city": "Paris", "unit": "celsius"}
        )
    ]
    assert result.done.done_reason == "tool_calls"
    assert (result.done.stats.prompt_tokens, result.done.stats.completion_tokens) == (186, 36)


def with_sse_noise(body: bytes) -> bytes:
    """The same events with CRLF line ends, comments, ids and event names, as proxies send."""
    out = b": connected\r\n\r\n"
    for number, event in enumerate(body.split(b"\n\n")):
        if event.strip():
            out += b"id: %d\r\nevent: message\r\n: keep-alive\r\n%s\r\n\r\n" % (number, event)
    return out


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("noise", [False, True], ids=["verbatim", "crlf-comments"])
async def test_openai_sse_tool_call(size: int, noise: bool) -> None:
    body = fixture("openai_sse_tool_call.txt")
    result = await openai_chat(with_sse_noise(body) if noise else body, size)
    assert result.deltas == []
    assert result.done.tool_calls == [
        ToolCall(
            id="call_2Uzw0AEZQeOex2CP2TKjcLKc",
            name="get_weather",
            arguments={"city": "Paris", "unit": "celsius"},
        )
    ]
    assert result.done.done_reason == "tool_calls"
    assert (result.done.stats.prompt_tokens, result.done.stats.completion_tokens) == (81, 18)


async def test_sse_data_spanning_several_lines() -> None:
    event = {"choices": [{"delta": {"content": "multi\nline"}, "finish_reason": "stop"}]}
    text = json.dumps(event, indent=1)
    body = "".join(f"data: {line}\n" for line in text.splitlines()) + "\ndata: [DONE]\n\n"
    result = await openai_chat(body.encode(), 3)
    assert result.content == "multi\nline"
