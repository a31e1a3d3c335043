"""Ollama's native API: ``/api/chat`` NDJSON streaming, ``/api/show``, ``/api/tags``, ``/api/pull``.

Wire facts relied on (see ``tests/fakes/wire/README.md``): one JSON object per line;
``message.tool_calls`` may come in any chunk, the ``done`` chunk included; an ``{"error": …}``
line can arrive after a 200 status, and then no ``done`` chunk follows; the native API never
says ``done_reason: "tool_calls"``, so the caller looks at ``StreamDone.tool_calls``.
Reading stops at the ``done`` chunk: a server (or proxy) that keeps the connection open after it
cannot turn a complete answer into a timeout.

Consumers must close an abandoned stream (``contextlib.aclosing``, or cancel the task that
iterates it): that closes the HTTP response, which is how Ollama learns to stop generating.
"""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing
from typing import Any

import httpx

from tray_app.base.errors import ProviderError, StreamError
from tray_app.base.messages import ChatMessage
from tray_app.providers._http import (
    Server,
    TooDeep,
    loads,
    make_client,
    open_stream,
    request_json,
)
from tray_app.providers._lines import iter_lines
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
from tray_app.providers.think_tags import ThinkTagSplitter
from tray_app.providers.tool_calls import NamedToolCalls
from tray_app.providers.tool_images import wire_messages
from tray_app.providers.wire_ids import WireIds

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 300.0  # seconds without a byte; a big model can take minutes to load
SHORT_TIMEOUT = httpx.Timeout(30.0, connect=5.0)  # tags, show, version: Ollama answers at once
_NUMBER = re.compile(r"-?\d+")


def encode_message(message: ChatMessage, ids: WireIds | None = None) -> dict[str, Any]:
    """A ``ChatMessage`` in ``/api/chat`` shape; empty optional fields are left out. Ids go out
    in their wire form (``wire_ids``: a Mistral template refuses any other), paired by ``ids``
    across the messages of one request."""
    ids = ids if ids is not None else WireIds()
    out: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.role == "assistant" and message.thinking:
        out["thinking"] = message.thinking
    if message.images:
        out["images"] = list(message.images)
    if message.role == "assistant" and message.tool_calls:
        calls: list[dict[str, Any]] = []
        for call in message.tool_calls:
            entry: dict[str, Any] = {} if call.id is None else {"id": ids.call(call.id)}
            entry["function"] = {"name": call.name, "arguments": call.arguments}
            calls.append(entry)
        out["tool_calls"] = calls
    if message.role == "tool":
        if message.tool_name:
            out["tool_name"] = message.tool_name
        if message.tool_call_id:
            out["tool_call_id"] = ids.result(message.tool_call_id)
    return out


def encode_messages(messages: list[ChatMessage]) -> list[dict[str, Any]]:
    ids = WireIds()
    return [encode_message(m, ids) for m in messages]


def encode_request(request: ChatRequest) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": request.model,
        "messages": encode_messages(wire_messages(request.messages)),
        "stream": True,
    }
    if request.think is not None:
        body["think"] = request.think
    if request.tools:
        body["tools"] = request.tools
    options: dict[str, Any] = {}
    if request.num_ctx is not None:
        options["num_ctx"] = request.num_ctx
    if request.temperature is not None:
        options["temperature"] = request.temperature
    if request.max_tokens is not None:
        options["num_predict"] = request.max_tokens
    if options:
        body["options"] = options
    if request.keep_alive is not None:
        # Ollama reads a string as a Go duration ("5m"); bare seconds must be a number.
        keep = request.keep_alive.strip()
        body["keep_alive"] = int(keep) if _NUMBER.fullmatch(keep) else keep
    return body


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _ms(nanoseconds: Any) -> float | None:
    value = _int(nanoseconds)
    return None if value is None else value / 1_000_000


def stats_from_done(chunk: dict[str, Any]) -> StreamStats:
    return StreamStats(
        prompt_tokens=_int(chunk.get("prompt_eval_count")),
        completion_tokens=_int(chunk.get("eval_count")),
        total_ms=_ms(chunk.get("total_duration")),
        load_ms=_ms(chunk.get("load_duration")),
        eval_ms=_ms(chunk.get("eval_duration")),
    )


def context_length(model_info: Any) -> int | None:
    """``model_info["<architecture>.context_length"]`` from ``/api/show``."""
    if not isinstance(model_info, dict):
        return None
    arch = model_info.get("general.architecture")
    if isinstance(arch, str):
        value = _int(model_info.get(f"{arch}.context_length"))
        if value is not None:
            return value
    for key, value in model_info.items():
        if key.endswith(".context_length") and _int(value) is not None:
            return int(value)
    return None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _details(data: dict[str, Any]) -> dict[str, Any]:
    details = data.get("details")
    details = details if isinstance(details, dict) else {}
    return {
        "family": _str(details.get("family")),
        "parameter_size": _str(details.get("parameter_size")),
        "quantization": _str(details.get("quantization_level")),
    }


def _capabilities(data: dict[str, Any]) -> list[str]:
    caps = data.get("capabilities")
    return [c for c in caps if isinstance(c, str)] if isinstance(caps, list) else []


class OllamaProvider:
    """A client of one Ollama server. Model facts from ``/api/show`` are cached per model."""

    kind = "ollama"

    def __init__(
        self,
        endpoint: str,
        *,
        client: httpx.AsyncClient | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        self.endpoint = endpoint.strip().rstrip("/")
        self._client = client if client is not None else make_client(self.endpoint, timeout)
        self._owns_client = client is None
        self._server = Server(
            "Ollama",
            self.endpoint,
            "Is it running? Start it with `ollama serve` (or open the Ollama app), "
            "or check the endpoint in the settings.",
        )
        self._info: dict[str, ModelInfo] = {}

    def _url(self, path: str) -> str:
        return f"{self.endpoint}{path}"

    def chat(self, request: ChatRequest) -> AsyncIterator[StreamItem]:
        """Stream deltas as they arrive, then one ``StreamDone`` with the complete tool calls.

        A busy server (429/503 with a short ``Retry-After``) is retried after a
        ``ProviderNotice``; see ``_retry``.
        """
        return with_retries(self._server, lambda: self._chat_once(request))

    async def _chat_once(
        self, request: ChatRequest
    ) -> AsyncGenerator[StreamDelta | StreamDone | ProviderNotice, None]:
        body = encode_request(request)
        splitter = ThinkTagSplitter()
        calls = NamedToolCalls()
        done: dict[str, Any] | None = None
        log.debug("POST /api/chat model=%s messages=%d", request.model, len(body["messages"]))
        try:
            async with (
                open_stream(
                    self._client,
                    self._server,
                    "POST",
                    self._url("/api/chat"),
                    json_body=body,
                    model=request.model,
                ) as response,
                aclosing(self._json_lines(response)) as chunks,
            ):
                async for chunk in chunks:
                    error = chunk.get("error")
                    if error:
                        raise StreamError(str(error))
                    message = chunk.get("message")
                    message = message if isinstance(message, dict) else {}
                    thinking = message.get("thinking")
                    if isinstance(thinking, str) and thinking:
                        yield StreamDelta(kind="thinking", text=thinking)
                    content = message.get("content")
                    if isinstance(content, str) and content:
                        for kind, text in splitter.feed(content):
                            yield StreamDelta(kind=kind, text=text)
                    calls.add(message.get("tool_calls"))
                    if chunk.get("done") is True:
                        done = chunk
                        break  # leaving the block closes the response: nothing more is read
        except ProviderError:
            for kind, text in splitter.flush():  # a held-back "<thi" is text the user saw come
                yield StreamDelta(kind=kind, text=text)
            raise
        for kind, text in splitter.flush():
            yield StreamDelta(kind=kind, text=text)
        if done is None:
            log.info("the answer from Ollama at %s ended without done", self.endpoint)
            yield StreamDone(done_reason=INCOMPLETE)
            return
        reason = done.get("done_reason")
        yield StreamDone(
            tool_calls=calls.build(),
            done_reason=reason if isinstance(reason, str) else None,
            stats=stats_from_done(done),
        )

    async def _json_lines(self, response: httpx.Response) -> AsyncGenerator[dict[str, Any], None]:
        source = f"Ollama at {self.endpoint}"
        async for line in iter_lines(response, source=source):
            if not line.strip():
                continue
            try:
                chunk = loads(line)
            except TooDeep:
                raise StreamError(
                    f"{source} sent a line nested too deeply to read, so reading stopped there."
                ) from None
            except ValueError:
                chunk = None
            if not isinstance(chunk, dict):
                snippet = line if len(line) <= 200 else line[:200] + "…"
                raise StreamError(
                    f"Ollama at {self.endpoint} sent a line that is not a JSON object: {snippet!r}"
                )
            yield chunk

    async def list_models(self) -> list[ModelInfo]:
        """Installed models (``/api/tags``). Capabilities only if this Ollama lists them."""
        data = await request_json(
            self._client, self._server, "GET", self._url("/api/tags"), timeout=SHORT_TIMEOUT
        )
        entries = data.get("models") if isinstance(data, dict) else None
        models: list[ModelInfo] = []
        for entry in entries if isinstance(entries, list) else []:
            name = _str(entry.get("name")) or _str(entry.get("model"))
            if not name:
                continue
            models.append(
                ModelInfo(
                    name=name,
                    capabilities=_capabilities(entry),
                    size=_int(entry.get("size")),
                    **_details(entry),
                )
            )
        return models

    async def model_info(self, model: str) -> ModelInfo:
        """Capabilities and context length from ``/api/show``, cached until ``invalidate``."""
        cached = self._info.get(model)
        if cached is not None:
            return cached
        data = await request_json(
            self._client,
            self._server,
            "POST",
            self._url("/api/show"),
            json_body={"model": model},
            model=model,
            timeout=SHORT_TIMEOUT,
        )
        if not isinstance(data, dict):
            raise ProviderError(f"Ollama at {self.endpoint} sent an unexpected /api/show answer.")
        info = ModelInfo(
            name=model,
            capabilities=_capabilities(data),
            context_length=context_length(data.get("model_info")),
            **_details(data),
        )
        self._info[model] = info
        return info

    def invalidate(self, model: str | None = None) -> None:
        """Forget cached model facts (after a pull, or when the user asks to refresh)."""
        if model is None:
            self._info.clear()
        else:
            self._info.pop(model, None)

    async def version(self) -> str:
        data = await request_json(
            self._client, self._server, "GET", self._url("/api/version"), timeout=SHORT_TIMEOUT
        )
        version = data.get("version") if isinstance(data, dict) else None
        if not isinstance(version, str):
            raise ProviderError(f"The server at {self.endpoint} does not look like Ollama.")
        return version

    async def pull(self, model: str) -> AsyncGenerator[PullProgress, None]:
        """Download a model, yielding progress; an error line raises ``StreamError``."""
        finished = False
        async with open_stream(
            self._client,
            self._server,
            "POST",
            self._url("/api/pull"),
            json_body={"model": model, "stream": True},
            model=model,
            activity="download",
        ) as response:
            async for chunk in self._json_lines(response):
                if chunk.get("error"):
                    raise StreamError(str(chunk["error"]))
                status = chunk.get("status")
                if not isinstance(status, str):
                    continue
                finished = status == "success"
                yield PullProgress(
                    status=status,
                    digest=_str(chunk.get("digest")),
                    total=_int(chunk.get("total")),
                    completed=_int(chunk.get("completed")),
                )
        self.invalidate(model)
        if not finished:
            raise StreamError(f"Pulling {model} from Ollama at {self.endpoint} stopped early.")

    async def aclose(self) -> None:
        if self._owns_client:
            await self._client.aclose()
