"""Our messages in OpenAI chat-completions shape, and the parsing of its SSE stream.

Tool-call ids: OpenAI requires every assistant tool call to have an ``id`` and every tool
result to name it in ``tool_call_id``. The agent copies ``ToolCall.id`` into the result's
``ChatMessage.tool_call_id``. When the server gave no id (Ollama's native API before 0.12.10,
some local servers), both stay ``None``: calls then get ``call_<n>`` here, numbered in history
order, so the same history always gets the same ids, and each id-less result is paired with the
first unanswered call of the preceding assistant message (by ``tool_name`` when that matches) —
which is why results must follow their calls in call order. What is sent is each id's wire form
(``wire_ids``: nine letters or digits, which Mistral-family servers insist on).
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import Any

import httpx

from tray_app.base.messages import ChatMessage, image_mime
from tray_app.providers._lines import MAX_LINE_BYTES, iter_lines, line_too_long
from tray_app.providers.base import ChatRequest
from tray_app.providers.tool_images import wire_messages
from tray_app.providers.wire_ids import WireIds, wire_id


def image_url(image: str) -> str:
    """A data URL for a base64 image (the mime type sniffed from its first bytes)."""
    if image.startswith(("data:", "http://", "https://")):
        return image
    return f"data:{image_mime(image)};base64,{image}"


def encode_messages(messages: list[ChatMessage]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    generated = 0
    ids = WireIds()
    unanswered: list[tuple[str, str]] = []  # (id, name) of the last assistant's calls
    for message in messages:
        entry: dict[str, Any] = {"role": message.role, "content": message.content}
        if message.role == "assistant" and message.tool_calls:
            calls: list[dict[str, Any]] = []
            unanswered = []
            for call in message.tool_calls:
                if call.id is None:
                    generated += 1
                call_id = ids.call(call.id or f"call_{generated}")
                arguments = json.dumps(call.arguments, ensure_ascii=False)
                calls.append(
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": arguments},
                    }
                )
                unanswered.append((call_id, call.name))
            entry["content"] = message.content or None
            entry["tool_calls"] = calls
        elif message.role == "tool":
            if message.tool_call_id:
                call_id = ids.result(message.tool_call_id)
            else:
                call_id = _pair(unanswered, message.tool_name)
            unanswered = [pending for pending in unanswered if pending[0] != call_id]
            entry["tool_call_id"] = call_id
        elif message.role == "user" and message.images:
            parts: list[dict[str, Any]] = [{"type": "text", "text": message.content}]
            for image in message.images:
                parts.append({"type": "image_url", "image_url": {"url": image_url(image)}})
            entry["content"] = parts
        out.append(entry)
    return out


def _pair(unanswered: list[tuple[str, str]], name: str | None) -> str:
    for call_id, call_name in unanswered:
        if call_name == name:
            return call_id
    return unanswered[0][0] if unanswered else wire_id("call_unknown")


def encode_request(request: ChatRequest) -> dict[str, Any]:
    """``think``, ``num_ctx`` and ``keep_alive`` have no OpenAI equivalent and are left out."""
    body: dict[str, Any] = {
        "model": request.model,
        "messages": encode_messages(wire_messages(request.messages)),
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if request.tools:
        body["tools"] = request.tools
    if request.temperature is not None:
        body["temperature"] = request.temperature
    if request.max_tokens is not None:
        body["max_tokens"] = request.max_tokens
    return body


async def iter_sse_data(
    response: httpx.Response, *, source: str = "The server", max_event: int = MAX_LINE_BYTES
) -> AsyncGenerator[str, None]:
    """The ``data`` of each Server-Sent Event; comments and other fields are skipped.

    An event is capped like a line (``max_event``): ``data:`` lines without the blank line that
    ends the event would otherwise pile up without bound.
    """
    data: list[str] = []
    size = 0
    async with aclosing(iter_lines(response, source=source, max_line=max_event)) as lines:
        async for line in lines:
            if not line:
                if data:
                    yield "\n".join(data)
                    data, size = [], 0
                continue
            if line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            if name == "data":
                value = value[1:] if value.startswith(" ") else value
                size += len(value) + 1
                if size > max_event:
                    raise line_too_long(source, max_event, "an event")
                data.append(value)
    if data:
        yield "\n".join(data)
