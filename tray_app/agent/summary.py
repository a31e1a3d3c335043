"""Summarise the older messages of a chat that no longer fits the model's context.

Without this, the oldest messages were simply left out of each request and the model forgot
what the chat was about. Here the model itself writes one short summary of them (with the
previous summary, when there is one); the loop stores it and sends it instead
(``agent.history``). The request is bounded on every side: its transcript fits the context
(the oldest part is cut, each message at most ``MESSAGE_CHARS``), the answer at most
``SUMMARY_MAX_TOKENS`` tokens and ``SUMMARY_MAX_CHARS`` characters (reading stops there), the
whole at most ``SUMMARY_TIMEOUT_S`` seconds; the turn's Stop cancels it like any request.
Any failure is a ``SummaryFailed``: the loop then trims as before and says so.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

from tray_app.agent.context import BUDGET_SHARE, estimate_tokens
from tray_app.agent.history import SummaryPlan
from tray_app.base.errors import ProviderError
from tray_app.base.messages import ChatMessage
from tray_app.providers.base import (
    INCOMPLETE,
    ChatRequest,
    Provider,
    StreamDelta,
    StreamDone,
    StreamItem,
)

SUMMARY_MAX_TOKENS = 1_024
SUMMARY_MAX_CHARS = 6_000
SUMMARY_TIMEOUT_S = 180.0
MESSAGE_CHARS = 4_000  # of one message in the transcript
ARGUMENT_CHARS = 300  # of one tool call's arguments
MAX_TRANSCRIPT_CHARS = 400_000  # whatever the context length claims

INSTRUCTIONS = (
    "You summarise the earlier part of a conversation between a user and an assistant that "
    "works on the user's files, so that the assistant can go on without the full messages. "
    "Write a concise summary (at most about 300 words) of: what the user wants, the decisions "
    "and facts established, the files and folders involved and what was done to them, and "
    "what is still open. Keep names, paths and numbers exact. Write it in the language the "
    "user writes in. Answer with the summary only."
)


class SummaryFailed(Exception):
    """The summary could not be made; the message says why (English, for the log and the
    terminal)."""


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… [{len(text) - limit} more characters]"


def message_line(message: ChatMessage) -> str:
    """One message of the transcript, cut to ``MESSAGE_CHARS``."""
    if message.role == "tool":
        name = message.tool_name or "tool"
        return f"Tool result ({name}): {_cut(message.content, MESSAGE_CHARS)}"
    who = "User" if message.role == "user" else "Assistant"
    parts = [_cut(message.content, MESSAGE_CHARS)] if message.content else []
    if message.images:
        parts.append(f"[{len(message.images)} image(s)]")
    for call in message.tool_calls:
        arguments = json.dumps(call.arguments, ensure_ascii=False, default=str)
        parts.append(f"[called {call.name} {_cut(arguments, ARGUMENT_CHARS)}]")
    return f"{who}: {' '.join(parts)}"


def transcript(plan: SummaryPlan, token_room: int) -> str:
    """The previous summary and as many of the newest messages as fit ``token_room``."""
    lines: list[str] = []
    used = estimate_tokens(plan.previous)
    chars = len(plan.previous)
    for message in reversed(plan.messages):
        line = message_line(message)
        cost = estimate_tokens(line) + 2
        if used + cost > token_room or chars + len(line) > MAX_TRANSCRIPT_CHARS:
            lines.append(f"[{len(plan.messages) - len(lines)} older messages left out]")
            break
        used += cost
        chars += len(line)
        lines.append(line)
    text = "\n\n".join(reversed(lines))
    if plan.previous:
        return f"Summary so far:\n{plan.previous}\n\nThe conversation after it:\n{text}"
    return f"The conversation:\n{text}"


def summary_request(
    plan: SummaryPlan, *, model: str, num_ctx: int, think: bool | None, keep_alive: str | None
) -> ChatRequest:
    """The request that asks for the summary, its transcript fitted to the context."""
    room = int(num_ctx * BUDGET_SHARE) - estimate_tokens(INSTRUCTIONS) - SUMMARY_MAX_TOKENS - 64
    return ChatRequest(
        model=model,
        messages=[
            ChatMessage(role="system", content=INSTRUCTIONS),
            ChatMessage(role="user", content=transcript(plan, max(room, 256))),
        ],
        think=think,
        temperature=0.2,
        num_ctx=num_ctx,
        keep_alive=keep_alive,
        max_tokens=SUMMARY_MAX_TOKENS,
    )


async def _collect(stream: AsyncIterator[StreamItem]) -> str:
    """The answer's text (thinking left out), at most ``SUMMARY_MAX_CHARS``."""
    text: list[str] = []
    size = 0
    try:
        async for item in stream:
            if isinstance(item, StreamDone) and item.done_reason == INCOMPLETE:
                raise SummaryFailed("the summary ended before the server finished it")
            if isinstance(item, StreamDelta) and item.kind == "content":
                text.append(item.text)
                size += len(item.text)
                if size >= SUMMARY_MAX_CHARS:
                    break
    finally:
        close = getattr(stream, "aclose", None)
        if close is not None:  # closing the HTTP response tells the server to stop
            await close()
    return "".join(text)[:SUMMARY_MAX_CHARS].strip()


async def summarise(provider: Provider, request: ChatRequest) -> str:
    """The model's summary; ``SummaryFailed`` when it errs, is empty or takes too long."""
    try:
        text = await asyncio.wait_for(_collect(provider.chat(request)), SUMMARY_TIMEOUT_S)
    except (TimeoutError, asyncio.TimeoutError):
        raise SummaryFailed(f"no summary within {SUMMARY_TIMEOUT_S:g} s") from None
    except ProviderError as exc:
        raise SummaryFailed(str(exc)) from exc
    if not text:
        raise SummaryFailed("the model answered with an empty summary")
    return text
