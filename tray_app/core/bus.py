"""A thread-safe event bus: the core publishes, each consumer drains its own queue.

Consumers (the ui pump, the terminal, notifications, tests) live on other threads; a queue per
subscriber means a slow consumer never blocks the core loop, and nobody shares mutable state.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable

from pydantic import BaseModel


class Subscription:
    def __init__(self, bus: EventBus, predicate: Callable[[BaseModel], bool] | None) -> None:
        self._bus = bus
        self._queue: queue.SimpleQueue[BaseModel] = queue.SimpleQueue()
        self._predicate = predicate

    def offer(self, event: BaseModel) -> None:
        if self._predicate is None or self._predicate(event):
            self._queue.put(event)

    def get(self, timeout: float | None = None) -> BaseModel | None:
        """The next event, or None when ``timeout`` passes first."""
        try:
            return self._queue.get(timeout=timeout)
        except queue.Empty:
            return None

    def drain(self) -> list[BaseModel]:
        """Everything queued now, without waiting (the ui pump's batch)."""
        items: list[BaseModel] = []
        while True:
            try:
                items.append(self._queue.get_nowait())
            except queue.Empty:
                return items

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

    def subscribe(self, predicate: Callable[[BaseModel], bool] | None = None) -> Subscription:
        sub = Subscription(self, predicate)
        with self._lock:
            self._subscribers.append(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            if sub in self._subscribers:
                self._subscribers.remove(sub)

    def publish(self, event: BaseModel) -> None:
        with self._lock:
            subscribers = list(self._subscribers)
        for sub in subscribers:
            sub.offer(event)
