"""The ui pump: Core's events, in batches, to the tray, the notifier and the popup's page.

One thread (``metona-ui-pump``) that sleeps on the bus; the tray menu's and the notifications'
requests for the page ride in the same batches, so they keep their order with Core's events.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any

from tray_app.base.events import Event, UiAction
from tray_app.core.bus import Subscription
from tray_app.desktop.popup.wire import item

log = logging.getLogger(__name__)


class UiPump:
    """Blocks on the core's events; each batch goes to the listeners (tray, notifier) and, as
    clean ASCII-safe JSON objects, to ``sink`` (the page's deliverer). Desktop-side UI
    requests (``post``) travel in the same batches, in order, as ``UiAction`` events.
    No timer: with nothing happening the thread sleeps in ``Subscription.get``."""

    def __init__(
        self,
        subscription: Subscription,
        sink: Callable[[list[dict[str, Any]]], None],
        listeners: Sequence[Callable[[list[Event]], None]] = (),
        *,
        gather: float = 0.02,
    ) -> None:
        self._sub = subscription
        self._sink = sink
        self._listeners = list(listeners)
        self._gather = gather
        self._posted: list[UiAction] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="metona-ui-pump", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def post(self, action: UiAction) -> None:
        """Send a tray request to the page with the next batch (the listeners never see it)."""
        with self._lock:
            self._posted.append(action)
        self._sub.wake()

    def stop(self, timeout: float = 1.0) -> None:
        self._stop.set()
        self._sub.wake()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout)
        self._sub.close()

    def _run(self) -> None:
        while not self._stop.is_set():
            first = self._sub.get()  # blocks; no wakeups while nothing happens
            if self._stop.is_set():
                return
            if first is not None:  # an event, not a wake-up
                self._stop.wait(self._gather)  # a streaming answer arrives in bursts
            try:
                self.pump_once([first] if first is not None else [])
            except Exception:
                log.exception("ui pump: a batch failed")

    def pump_once(self, first: list[Event] | None = None) -> None:
        events = (first or []) + self._sub.drain()
        with self._lock:
            posted, self._posted = self._posted, []
        if events:
            for listener in self._listeners:
                try:
                    listener(events)
                except Exception:
                    log.exception("ui pump: listener failed")
        items = [item(e) for e in events] + [item(p) for p in posted]
        if items and not self._stop.is_set():
            self._sink(items)
