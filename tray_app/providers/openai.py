"""OpenAI-compatible servers: ``POST {base}/v1/chat/completions`` with Server-Sent Events.

Works with api.openai.com, Ollama's ``/v1``, llama.cpp, vLLM, LM Studio and the like. Tool calls
arrive as deltas keyed by ``index`` (OpenAI spreads the arguments over many deltas, Ollama's
``/v1`` sends each call whole); thinking arrives as ``reasoning_content`` or ``reasoning``, or
as ``<think>`` tags in the content. How tool-call ids are kept paired: ``openai_wire``.

Capabilities cannot be asked for: ``model_info`` reports ``completion`` and ``tools`` for every
model, except that a model which refused tools once (HTTP 400 "does not support tools") is
reported without ``tools`` from then on, so the caller can degrade to plain chat. Vision is
claimed only for the models the user named (the ``vision_models`` setting): sending images to
a model that cannot see them fails the request on most servers. Thinking is never claimed;
reasoning the server streams is shown anyway.

The stream ends at ``data: [DONE]``. After a ``finish_reason`` only the usage event is still
worth waiting for, and only ``AFTER_FINISH_WAIT`` seconds: a server that finished the answer but
keeps the connection open (or drops it) has still given a complete answer.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Iterable
from contextlib import aclosing
from typing import Any

import httpx

from tray_app.base.errors import CapabilityError, LineTooLong, ProviderError, StreamError
from tray_app.providers._http import (
    MAX_JSON_BYTES,
    Server,
    TooDeep,
    loads,
    make_client,
    open_stream,
    read_capped,
    request_json,
)
from tray_app.providers._lines import size_text
from tray_app.providers._retry import with_retries
from tray_app.providers.base import (
    INCOMPLETE,
    ChatRequest,
    ModelInfo,
    ProviderNotice,
    PullProgress,
    StreamDelta,
    StreamDone,
    StreamItem,
    StreamStats,
)
from tray_app.providers.openai_wire import encode_request, iter_sse_data
from tray_app.providers.think_tags import Segment, ThinkTagSplitter
from tray_app.providers.tool_calls import IndexedToolCalls

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 300.0
SHORT_TIMEOUT = httpx.Timeout(30.0, connect=5.0)
AFTER_FINISH_WAIT = 3.0  # seconds to wait for usage/[DONE] once finish_reason arrived


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _stats(usage: Any) -> StreamStats:
    if not isinstance(usage, dict):
        return StreamStats()
    return StreamStats(
        prompt_tokens=_int(usage.get("prompt_tokens")),
        completion_tokens=_int(usage.get("completion_tokens")),
    )


def _error_text(error: Any) -> str:
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])
    return str(error)


class _Answer:
    """What one stream (or one non-streamed completion) has said so far."""

    def __init__(self) -> None:
        self.splitter = ThinkTagSplitter()
        self.calls = IndexedToolCalls()
        self.finish_reason: str | None = None
        self.usage: Any = None

    def take(self, message: dict[str, Any], finish_reason: Any) -> list[StreamDelta]:
        """Absorb one ``delta`` (or a whole ``message``); return the text to show now."""
        deltas: list[StreamDelta] = []
        reasoning = message.get("reasoning_content") or message.get("reasoning")
        if isinstance(reasoning, str) and reasoning:
            deltas.append(StreamDelta(kind="thinking", text=reasoning))
        content = message.get("content")
        if isinstance(content, str) and content:
            deltas.extend(_deltas(self.splitter.feed(content)))
        self.calls.add(message.get("tool_calls"))
        if isinstance(finish_reason, str) and finish_reason:
            self.finish_reason = finish_reason
        return deltas

    def done(self) -> StreamDone:
        return StreamDone(
            tool_calls=self.calls.build(),
            done_reason=self.finish_reason,
            stats=_stats(self.usage),
        )


def _deltas(segments: list[Segment]) -> list[StreamDelta]:
    return [StreamDelta(kind=kind, text=text) for kind, text in segments]


async def _next_event(events: AsyncGenerator[str, None], answer: _Answer) -> str | None:
    """The next event's data; ``None`` at the end, or when a finished answer goes quiet.

    Once ``finish_reason`` arrived, silence, a dropped connection or garbage no longer make the
    answer incomplete: at most ``AFTER_FINISH_WAIT`` seconds more are spent on the usage event.
    """
    try:
        if answer.finish_reason is None:
            return await events.__anext__()
        return await asyncio.wait_for(events.__anext__(), AFTER_FINISH_WAIT)
    except StopAsyncIteration:
        return None
    except (asyncio.TimeoutError, httpx.HTTPError, LineTooLong):
        if answer.finish_reason is None:
            raise
        log.debug("the server went quiet after finish_reason; the answer is complete")
        return None


def _first_choice(event: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    choices = event.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return {}, None
    choice = choices[0]
    message = choice.get("delta", choice.get("message"))
    return (message if isinstance(message, dict) else {}), choice.get("finish_reason")


class OpenAIProvider:
    """A client of one OpenAI-compatible server. The API key is sent, never logged or shown."""

    kind = "openai"

    def __init__(
        self,
        endpoint: str,
        *,
        api_key: str | None = None,
        client: httpx.AsyncClient | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        vision_models: Iterable[str] = (),
    ) -> None:
        self.endpoint = endpoint.strip().rstrip("/")
        self._vision = frozenset(name.strip() for name in vision_models if name.strip())
        base = self.endpoint.removesuffix("/v1")
        self._api = f"{base}/v1"
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = client if client is not None else make_client(self.endpoint, timeout)
        self._owns_client = client is None
        self._server = Server(
            "the OpenAI-compatible server",
            self.endpoint,
            "Is it running, and is the endpoint right?",
        )
        self._without_tools: set[str] = set()

    def __repr__(self) -> str:
        return f"OpenAIProvider({self.endpoint!r})"

    def chat(self, request: ChatRequest) -> AsyncIterator[StreamItem]:
        """Stream deltas as they arrive, then one ``StreamDone`` (arguments parsed at the end).

        A busy server (429/503 with a short ``Retry-After``) is retried after a
        ``ProviderNotice``; see ``_retry``.
        """
        return with_retries(self._server, lambda: self._chat_once(request))

    async def _chat_once(
        self, request: ChatRequest
    ) -> AsyncGenerator[StreamDelta | StreamDone | ProviderNotice, None]:
        body = encode_request(request)
        answer = _Answer()
        finished = False
        log.debug("POST %s/chat/completions model=%s", self._api, request.model)
        try:
            async with open_stream(
                self._client,
                self._server,
                "POST",
                f"{self._api}/chat/completions",
                json_body=body,
                headers=self._headers,
                model=request.model,
            ) as response:
                if not response.headers.get("content-type", "").startswith("text/event-stream"):
                    # The server ignored "stream": one whole completion object.
                    event = self._parse(await self._whole_body(response))
                    for delta in answer.take(*_first_choice(event)):
                        yield delta
                    answer.usage = event.get("usage")
                    finished = True
                else:
                    source = f"The server at {self.endpoint}"
                    async with aclosing(iter_sse_data(response, source=source)) as events:
                        while (data := await _next_event(events, answer)) is not None:
                            if data.strip() == "[DONE]":
                                finished = True
                                break
                            event = self._parse(data)
                            if event.get("error"):
                                raise StreamError(_error_text(event["error"]))
                            if event.get("usage"):
                                answer.usage = event["usage"]
                            for delta in answer.take(*_first_choice(event)):
                                yield delta
        except CapabilityError as exc:
            if exc.capability == "tools":
                self._without_tools.add(request.model)
            raise
        except ProviderError:
            for delta in _deltas(answer.splitter.flush()):  # a held-back "<thi" was streamed text
                yield delta
            raise
        for delta in _deltas(answer.splitter.flush()):
            yield delta
        if not finished and answer.finish_reason is None:
            log.info("the answer from %s ended without [DONE] or a finish_reason", self.endpoint)
            yield StreamDone(done_reason=INCOMPLETE)
            return
        yield answer.done()

    async def _whole_body(self, response: httpx.Response) -> bytes:
        body, truncated = await read_capped(response, MAX_JSON_BYTES)
        if truncated:
            raise StreamError(
                f"The server at {self.endpoint} sent a completion of more than "
                f"{size_text(MAX_JSON_BYTES)}; it was not read."
            )
        return body

    def _parse(self, data: str | bytes) -> dict[str, Any]:
        try:
            event = loads(data)
        except TooDeep:
            raise StreamError(
                f"The server at {self.endpoint} sent an event nested too deeply to read."
            ) from None
        except ValueError:
            event = None
        if not isinstance(event, dict):
            text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
            snippet = text if len(text) <= 200 else text[:200] + "…"
            raise StreamError(
                f"The server at {self.endpoint} sent an event that is not a JSON object: "
                f"{snippet!r}"
            )
        return event

    async def list_models(self) -> list[ModelInfo]:
        """``GET /v1/models``; capabilities are unknown there (see ``model_info``)."""
        data = await request_json(
            self._client,
            self._server,
            "GET",
            f"{self._api}/models",
            headers=self._headers,
            timeout=SHORT_TIMEOUT,
        )
        entries = data.get("data") if isinstance(data, dict) else None
        return [
            ModelInfo(name=entry["id"])
            for entry in (entries if isinstance(entries, list) else [])
            if isinstance(entry, dict) and isinstance(entry.get("id"), str)
        ]

    async def model_info(self, model: str) -> ModelInfo:
        """Assumed, not asked: ``completion`` and ``tools`` unless the model refused tools;
        ``vision`` when the user named the model in ``vision_models``."""
        capabilities = ["completion"] if model in self._without_tools else ["completion", "tools"]
        if model in self._vision:
            capabilities.append("vision")
        return ModelInfo(name=model, capabilities=capabilities)

    def invalidate(self, model: str | None = None) -> None:
        """Forget which models refused tools."""
        if model is None:
            self._without_tools.clear()
        else:
            self._without_tools.discard(model)

    async def version(self) -> str:
        """``"openai-compatible"`` once ``/v1/models`` answered: these servers have no version."""
        await self.list_models()
        return "openai-compatible"

    async def pull(self, model: str) -> AsyncGenerator[PullProgress, None]:
        raise ProviderError("Pulling models is only possible with Ollama.")
        yield PullProgress(status="")  # pragma: no cover - makes this an async generator

    async def aclose(self) -> None:
        if self._owns_client:
            await self._client.aclose()
