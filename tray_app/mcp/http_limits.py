"""A bound on what a remote MCP server can make us hold: the SDK reads a Streamable HTTP JSON
answer whole (``response.aread()``), so a hostile or broken server could send gigabytes.

Every non-streaming response body ``capped_client`` receives (a response hook) stops at
``MAX_BODY`` bytes with ``ResponseTooLarge``; event streams (``text/event-stream``) are left
alone, as the SDK bounds each of their events itself (``MAX_EVENT``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx2

MAX_BODY = 64 * 1024 * 1024
MAX_EVENT = 32 * 1024 * 1024  # one server-sent event (a tool's images can be several MB)


class ResponseTooLarge(httpx2.StreamError):
    """A response body longer than the bound."""


class _Capped(httpx2.AsyncByteStream):
    def __init__(self, inner: httpx2.AsyncByteStream, limit: int) -> None:
        self._inner = inner
        self._limit = limit

    async def __aiter__(self) -> AsyncIterator[bytes]:
        seen = 0
        async for chunk in self._inner:
            seen += len(chunk)
            if seen > self._limit:
                raise ResponseTooLarge(
                    f"the server's answer is larger than {self._limit // (1024 * 1024)} MB"
                )
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


async def _cap(response: httpx2.Response) -> None:
    """A response hook: runs before the body is read, whichever transport or proxy is used."""
    kind = response.headers.get("content-type", "").lower()
    if not kind.startswith("text/event-stream") and isinstance(
        response.stream, httpx2.AsyncByteStream
    ):
        response.stream = _Capped(response.stream, MAX_BODY)


def capped_client(headers: dict[str, str], **options: Any) -> httpx2.AsyncClient:
    """An AsyncClient like the SDK's, whose non-streaming answers stop at ``MAX_BODY``."""
    return httpx2.AsyncClient(headers=headers, event_hooks={"response": [_cap]}, **options)
