"""The core thread: one asyncio loop that owns turns, provider HTTP, tools and the store.

Other threads never touch core state; they submit coroutines here and wait for the result.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

from tray_app.base.errors import NotAnswering

T = TypeVar("T")


class CoreRunner:
    def __init__(self, name: str = "metona-core") -> None:
        self._name = name
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            raise NotAnswering("the core is not running")
        return self._loop

    def start(self) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._main, name=self._name, daemon=True)
        self._thread.start()
        self._ready.wait()

    def _main(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
            for task in pending:
                task.cancel()
            if pending:
                loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    def in_core_thread(self) -> bool:
        return self._thread is not None and threading.current_thread() is self._thread

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = 30.0) -> T:
        """Run a coroutine on the core loop and wait for its result (from any other thread)."""
        if self.in_core_thread():
            coro.close()
            raise RuntimeError("a Core command was called from the core thread (would deadlock)")
        future = self.submit(coro)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise NotAnswering("the app did not answer in time") from None

    def call(self, fn: Callable[..., T], *args: Any, timeout: float | None = 30.0) -> T:
        """Run a plain function on the core loop (state lives there) and wait for it."""

        async def wrapper() -> T:
            result = fn(*args)
            if isinstance(result, Awaitable):
                return await result  # type: ignore[no-any-return]
            return result

        return self.run(wrapper(), timeout)

    def stop(self, timeout: float = 3.0) -> None:
        if self._thread is None or self._loop is None:
            return
        loop = self._loop

        async def shutdown() -> None:
            tasks = [
                t for t in asyncio.all_tasks() if t is not asyncio.current_task() and not t.done()
            ]
            for task in tasks:
                task.cancel()
            if tasks:
                await asyncio.wait(tasks, timeout=max(0.1, timeout - 0.5))
            loop.stop()

        if not loop.is_closed():
            asyncio.run_coroutine_threadsafe(shutdown(), loop)
        self._thread.join(timeout)
        self._thread = None
