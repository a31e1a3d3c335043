"""A thread-safe event bus: the core publishes, each consumer drains its own queue.

Consumers (the ui pump, the terminal, notifications, tests) live on other threads; a queue per
subscriber means a slow consumer never blocks the core loop, and nobody shares mutable state.
Only members of the event union travel on it; a consumer that must be woken without an event
(the ui pump, for a tray request or to stop) calls ``wake``.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable

from tray_app.base.events import Event


class _Wake:
    """Queued by ``wake``: ends a blocking ``get`` early; never handed to a consumer."""


_WAKE = _Wake()


class Subscription:
    def __init__(self, bus: EventBus, predicate: Callable[[Event], bool] | None) -> None:
        self._bus = bus
        self._queue: queue.SimpleQueue[Event | _Wake] = queue.SimpleQueue()
        self._predicate = predicate

    def offer(self, event: Event) -> None:
        if self._predicate is None or self._predicate(event):
            self._queue.put(event)

    def wake(self) -> None:
        """Make a waiting (or the next) ``get`` return None now."""
        self._queue.put(_WAKE)

    def get(self, timeout: float | None = None) -> Event | None:
        """The next event, or None when ``timeout`` passes first or ``wake`` was called."""
        try:
            item = self._queue.get(timeout=timeout)
        except queue.Empty:
            return None
        return None if isinstance(item, _Wake) else item

    def drain(self) -> list[Event]:
        """Everything queued now, without waiting (the ui pump's batch)."""
        items: list[Event] = []
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return items
            if not isinstance(item, _Wake):
                items.append(item)

    def close(self) -> None:
        self._bus.unsubscribe(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class EventBus:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscribers: list[Subscription] = []

    def subscribe(self, predicate: Callable[[Event], bool] | None = None) -> Subscription:
        sub = Subscription(self, predicate)
        with self._lock:
            self._subscribers.append(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            if sub in self._subscribers:
                self._subscribers.remove(sub)

    def publish(self, event: Event) -> None:
        with self._lock:
            subscribers = list(self._subscribers)
        for sub in subscribers:
            sub.offer(event)
