"""Batches of events into the page, in order, with every lost batch noticed.

One ``run_js`` per batch (never one per token). Each batch carries a sequence number and the
page's ``window.metona.dispatch`` answers with it; any other answer (the engine cut or refused
the script, the page failed to apply it, no page) counts as lost. A lost batch is not re-sent
(it may be half applied); instead the next batch, or an empty one sent after a short wait,
carries a later number, the page sees the gap and resynchronises from Core's snapshots
(``web/js/lib/bridge.js``).

The thread blocks on a condition: with nothing to deliver and nothing owed it never wakes.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from tray_app.desktop.popup.wire import dispatch_script

log = logging.getLogger(__name__)

RETRY_DELAYS = (0.1, 0.3, 1.0, 2.0, 5.0)  # seconds before telling the page about a gap


class Deliverer:
    def __init__(
        self,
        run_js: Callable[[str], Any],
        page_ready: Callable[[], bool],
        *,
        backlog: int = 20_000,
        min_interval: float = 0.03,
    ) -> None:
        self._run_js = run_js
        self._page_ready = page_ready
        self._backlog = backlog
        self._min_interval = min_interval
        self._held: list[dict[str, Any]] = []
        self._seq = 0
        self._owed = False  # a batch was lost and the page has not been told yet
        self._failures = 0
        self._cond = threading.Condition()
        self._stopping = False
        self.delivered = 0  # batches the page acknowledged (tests, bench)
        self.lost = 0
        self._thread = threading.Thread(target=self._loop, name="metona-deliver", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def put(self, items: list[dict[str, Any]]) -> None:
        """Queue events for the page (any thread)."""
        if not items:
            return
        with self._cond:
            self._held.extend(items)
            overflow = len(self._held) - self._backlog
            if overflow > 0:  # a page that never loads must not grow memory without end
                del self._held[:overflow]
                self._owed = True
            self._cond.notify()

    def wake(self) -> None:
        """The page (re)loaded: deliver what waits."""
        with self._cond:
            self._cond.notify()

    def page_reloaded(self) -> None:
        """A fresh page boots from snapshots: nothing owed to it."""
        with self._cond:
            self._owed = False
            self._failures = 0
            self._cond.notify()

    def stop(self, timeout: float = 1.0) -> None:
        with self._cond:
            self._stopping = True
            self._cond.notify()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    # ---- the thread ------------------------------------------------------------------------

    def _next(self) -> list[dict[str, Any]] | None:
        """Block until there is something to send (a batch, maybe empty) or we stop (None)."""
        with self._cond:
            while True:
                if self._stopping:
                    return None
                ready = self._page_ready()
                if ready and self._held:
                    batch, self._held = self._held, []
                    return batch
                if ready and self._owed:
                    delay = RETRY_DELAYS[min(self._failures, len(RETRY_DELAYS) - 1)]
                    if not self._cond.wait(delay) or not self._held:
                        if self._stopping:
                            return None
                        return []
                    continue
                self._cond.wait()

    def _loop(self) -> None:
        while True:
            batch = self._next()
            if batch is None:
                return
            self.send(batch)
            with self._cond:
                if self._stopping:
                    return
                self._cond.wait(self._min_interval)  # let a fast stream gather into batches

    def send(self, batch: list[dict[str, Any]]) -> bool:
        """Deliver one batch now (the thread, or a test); True when the page took it."""
        self._seq += 1
        seq = self._seq
        try:
            answer = self._run_js(dispatch_script(batch, seq))
        except Exception:
            log.warning("event delivery: run_js failed", exc_info=True)
            answer = None
        ok = isinstance(answer, (int, float)) and int(answer) == seq
        with self._cond:
            if ok:
                self.delivered += 1
                self._owed = False
                self._failures = 0
            else:
                self.lost += 1
                self._owed = True
                self._failures += 1
        if not ok:
            log.warning("event batch %d (%d events) was not delivered: %r", seq, len(batch), answer)
        return ok
