"""Waiting in tests: ``eventually`` for something to happen, ``stays`` for it not to.

Every test that waits on another thread, process or window polls the same way: a condition
checked every ``interval`` seconds against a monotonic deadline, failing with a message that
says what was awaited and the last value seen (or the last error, chained). ``stays`` is the
honest way to show that nothing happens: one sleep proves nothing about the moments it skips,
so the condition is checked throughout the window and the first moment it breaks fails.

Hand-written rather than taken from busypie or polling2: those run a synchronous wait on an
asyncio loop in another thread or read the wall clock, and a Playwright page or an X display
must be polled from the thread that owns it. The ``_async`` twins serve tests already inside
an event loop, where a blocking sleep would stall the very thing awaited.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

#: Polling often enough that a waiting test ends soon after its condition holds, and rarely
#: enough that the two shared cores are not spent on the polling itself.
INTERVAL = 0.02


class _Poll:
    """One wait's bookkeeping: the deadline, the last value and the last error seen."""

    def __init__(self, seconds: float, ignoring: tuple[type[BaseException], ...]) -> None:
        self.deadline = time.monotonic() + seconds
        self.ignoring = ignoring
        self.last: object = None
        self.error: BaseException | None = None

    def check(self, condition: Callable[[], T]) -> T | None:
        """The condition's value, or None when it raised one of the ignored errors."""
        try:
            value = condition()
        except self.ignoring as exc:
            self.error = exc
            return None
        self.last = value
        return value

    def over(self) -> bool:
        return time.monotonic() >= self.deadline


def _failure(message: str | Callable[[], str], what: str, last: object) -> AssertionError:
    said = message() if callable(message) else message
    return AssertionError(f"{said or 'condition'}: {what} (last value: {last!r:.500})")


def eventually(
    condition: Callable[[], T],
    timeout: float = 20.0,
    message: str | Callable[[], str] = "",
    *,
    interval: float = INTERVAL,
    ignoring: tuple[type[BaseException], ...] = (),
) -> T:
    """Poll ``condition`` until it returns something truthy, and return that.

    Errors of the ``ignoring`` types count as "not yet" (a server still starting); any other
    error fails at once. ``message`` may be a callable, to describe the state at the failure.
    """
    poll = _Poll(timeout, ignoring)
    while True:
        value = poll.check(condition)
        if value:
            return value
        if poll.over():
            raise _failure(message, f"not met within {timeout:g} s", poll.last) from poll.error
        time.sleep(interval)


def stays(
    condition: Callable[[], object],
    for_: float = 0.5,
    message: str | Callable[[], str] = "",
    *,
    interval: float = INTERVAL,
) -> None:
    """Check ``condition`` repeatedly for ``for_`` seconds: it must hold every time.

    The window is short on purpose (what would happen soon after the trigger happens within
    it); it proves the absence only as far as any test can, but at every poll, not once.
    """
    poll = _Poll(for_, ())
    while True:
        if not poll.check(condition):
            raise _failure(message, "stopped holding", poll.last)
        if poll.over():
            return
        time.sleep(interval)


async def eventually_async(
    condition: Callable[[], T],
    timeout: float = 20.0,
    message: str | Callable[[], str] = "",
    *,
    interval: float = INTERVAL,
    ignoring: tuple[type[BaseException], ...] = (),
) -> T:
    """``eventually`` inside an event loop: sleeps with ``asyncio.sleep`` between checks."""
    poll = _Poll(timeout, ignoring)
    while True:
        value = poll.check(condition)
        if value:
            return value
        if poll.over():
            raise _failure(message, f"not met within {timeout:g} s", poll.last) from poll.error
        await asyncio.sleep(interval)


async def stays_async(
    condition: Callable[[], object],
    for_: float = 0.5,
    message: str | Callable[[], str] = "",
    *,
    interval: float = INTERVAL,
) -> None:
    """``stays`` inside an event loop."""
    poll = _Poll(for_, ())
    while True:
        if not poll.check(condition):
            raise _failure(message, "stopped holding", poll.last)
        if poll.over():
            return
        await asyncio.sleep(interval)
