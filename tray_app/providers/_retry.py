"""Retrying a chat request the server refused as busy (HTTP 429/503 with ``Retry-After``).

The server's wait is honoured when it is short (``MAX_RETRY_WAIT``): the stream yields a
``ProviderNotice`` first, so the user sees why nothing arrives, then sleeps. The sleep is an
ordinary ``asyncio.sleep``, so cancelling the consumer (the Stop button) ends it at once. A
longer wait, no ``Retry-After`` at all, or a third refusal fails with the status in the error.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import aclosing
from typing import TypeVar

from tray_app.base.errors import ServerBusy
from tray_app.providers._http import Server
from tray_app.providers.base import ProviderNotice

MAX_RETRIES = 2
MAX_RETRY_WAIT = 30.0  # seconds; a server asking for longer is reported, not waited for

T = TypeVar("T")


def _seconds(value: float) -> str:
    return f"{math.ceil(value)} s" if value != int(value) else f"{int(value)} s"


def retry_wait(error: ServerBusy, retried: int) -> float | None:
    """How long to wait before the next attempt, or ``None`` to give up."""
    if error.retry_after is None or error.retry_after > MAX_RETRY_WAIT:
        return None
    return error.retry_after if retried < MAX_RETRIES else None


def gave_up(error: ServerBusy, retried: int) -> ServerBusy:
    """The error to raise, saying why there was no (further) retry."""
    message = str(error)
    if retried >= MAX_RETRIES and error.retry_after is not None:
        message = f"{message.rstrip('.')}. It was still busy after {retried} retries."
    elif error.retry_after is not None and error.retry_after > MAX_RETRY_WAIT:
        message = (
            f"{message.rstrip('.')}. It asked to wait {_seconds(error.retry_after)}, longer than "
            f"the {_seconds(MAX_RETRY_WAIT)} this app waits; try again later."
        )
    return ServerBusy(message, status=error.status, body=error.body, retry_after=error.retry_after)


def retry_notice(server: Server, error: ServerBusy, wait: float, attempt: int) -> ProviderNotice:
    return ProviderNotice(
        status=error.status,
        retry_in_s=wait,
        attempt=attempt,
        attempts=MAX_RETRIES,
        message=(
            f"{server.name} is busy (HTTP {error.status}); trying again in {_seconds(wait)} "
            f"(retry {attempt} of {MAX_RETRIES})."
        ),
    )


async def with_retries(
    server: Server, attempt: Callable[[], AsyncGenerator[T, None]]
) -> AsyncIterator[T | ProviderNotice]:
    """Run ``attempt()`` and pass its items on; on ``ServerBusy`` before any item, maybe retry.

    A busy answer can only come before the first item (it is an HTTP status), so nothing the
    consumer has seen is ever repeated.
    """
    retried = 0
    while True:
        stream = attempt()
        started = False
        try:
            async with aclosing(stream):
                async for item in stream:
                    started = True
                    yield item
            return
        except ServerBusy as error:
            wait = None if started else retry_wait(error, retried)
            if wait is None:
                raise gave_up(error, retried) from None
            busy = error
        retried += 1
        yield retry_notice(server, busy, wait, retried)
        await asyncio.sleep(wait)
