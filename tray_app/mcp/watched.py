"""The SDK's transports and client, entered so that their end is seen and reported truly."""

from __future__ import annotations

import asyncio
import sys
from contextlib import AsyncExitStack
from typing import Any


async def enter_within(stack: AsyncExitStack, client: Any, seconds: float) -> None:
    """Enter the client in this task: the SDK's cancel scopes must be left by the task that
    entered them, and ``wait_for`` on Python 3.11 runs its coroutine in a task of its own, so
    the end of every connection was reported as "exit cancel scope in a different task"
    instead of what happened. ``asyncio.timeout`` stays in this task."""
    if sys.version_info >= (3, 11):
        async with asyncio.timeout(seconds):
            await stack.enter_async_context(client)
    else:  # 3.10 has no asyncio.timeout; its wait_for has the same limit
        await asyncio.wait_for(stack.enter_async_context(client), seconds)


class Watched:
    """A transport whose end (EOF from the server, a crash) sets an event: the manager's only
    way to see an idle server die, since the SDK's session does not say so."""

    def __init__(self, inner: Any, closed: asyncio.Event) -> None:
        self._inner = inner
        self._closed = closed
        self._stack: AsyncExitStack | None = None

    async def __aenter__(self) -> Any:
        import anyio

        stack = AsyncExitStack()
        read, write = await stack.enter_async_context(self._inner)
        send, receive = anyio.create_memory_object_stream[Any](0)
        group = await stack.enter_async_context(anyio.create_task_group())
        closed = self._closed

        async def pump() -> None:
            try:
                async with send:
                    async for item in read:
                        await send.send(item)
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
                pass
            finally:
                closed.set()

        group.start_soon(pump)
        stack.push_async_callback(_cancel_group, group)
        self._stack = stack
        return receive, write

    async def __aexit__(self, *exc: Any) -> None:
        if self._stack is not None:
            await self._stack.__aexit__(*exc)


async def _cancel_group(group: Any) -> None:
    group.cancel_scope.cancel()
