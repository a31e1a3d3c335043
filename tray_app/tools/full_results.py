"""The whole results of calls whose result was shortened for the model, kept for the user.

The model gets what fits its context (``fit.fit_result``); the card offers the rest ("Show all"),
which the page fetches with the ``full_result`` command. Bounded: the newest results only, at
most ``MAX_CHARS`` characters of JSON together, one result at most ``MAX_ONE``; memory only (a
restart forgets them, the card then says so).
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from tray_app.tools.fit import json_chars
from tray_app.tools.result import ToolResult

MAX_CHARS = 8 * 1024 * 1024
MAX_ONE = 2 * 1024 * 1024
MAX_COUNT = 64


class FullResults:
    def __init__(self, *, max_chars: int = MAX_CHARS, max_one: int = MAX_ONE) -> None:
        self.max_chars, self.max_one = max_chars, max_one
        self._kept: OrderedDict[str, tuple[ToolResult, int]] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()  # kept from tool threads, read from the core loop

    def keep(self, call_id: str, result: ToolResult) -> bool:
        """Keep ``result`` for ``call_id``; False when it alone is past the bound."""
        size = json_chars(result)
        if size > self.max_one:
            return False
        with self._lock:
            old = self._kept.pop(call_id, None)
            if old is not None:
                self._chars -= old[1]
            self._kept[call_id] = (result, size)
            self._chars += size
            while self._chars > self.max_chars or len(self._kept) > MAX_COUNT:
                _, (_, dropped) = self._kept.popitem(last=False)
                self._chars -= dropped
        return True

    def get(self, call_id: str) -> ToolResult | None:
        with self._lock:
            found = self._kept.get(call_id)
        return None if found is None else found[0]
