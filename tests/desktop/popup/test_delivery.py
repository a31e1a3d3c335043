"""Batches reach the page in order; a lost one is noticed and the page is told by a gap."""

from __future__ import annotations

import json
import re
import threading
from typing import Any

from tests.support.waiting import eventually, stays
from tray_app.desktop.popup.delivery import Deliverer


class Page:
    """Answers dispatch scripts like bridge.js: the sequence number, or -1 when told to fail."""

    def __init__(self) -> None:
        self.ready = True
        self.fail_next = 0
        self.seen: list[tuple[int, list[dict[str, Any]]]] = []
        self.cut: list[int] = []
        self.calls = threading.Event()

    def run_js(self, script: str) -> Any:
        assert script.isascii()
        match = re.fullmatch(
            r"\(window\.metona \? window\.metona\.dispatch\((.*), (\d+)\) : -1\)", script
        )
        assert match
        seq = int(match.group(2))
        self.calls.set()
        if self.fail_next:
            self.fail_next -= 1
            self.cut.append(seq)
            return None  # what pywebview's GTK backend returns when the script failed
        self.seen.append((seq, json.loads(match.group(1))))
        return float(seq)  # numbers come back as floats from WebKit


def test_in_order_and_acknowledged() -> None:
    page = Page()
    deliverer = Deliverer(page.run_js, lambda: page.ready)
    assert deliverer.send([{"type": "a"}]) and deliverer.send([{"type": "b"}])
    assert [s for s, _ in page.seen] == [1, 2]
    assert deliverer.delivered == 2 and deliverer.lost == 0


def test_held_until_the_page_is_ready() -> None:
    page = Page()
    page.ready = False
    deliverer = Deliverer(page.run_js, lambda: page.ready, min_interval=0)
    deliverer.start()
    try:
        deliverer.put([{"type": "a"}])
        deliverer.put([{"type": "b"}])
        stays(lambda: page.seen == [], 0.1, "nothing delivered before the page is ready")
        page.ready = True
        deliverer.wake()
        eventually(lambda: page.seen, message="the held batch delivered")
        assert page.seen == [(1, [{"type": "a"}, {"type": "b"}])]
    finally:
        deliverer.stop()


def test_a_lost_batch_leaves_a_gap_the_page_sees() -> None:
    page = Page()
    page.fail_next = 1
    deliverer = Deliverer(page.run_js, lambda: page.ready, min_interval=0)
    deliverer.start()
    try:
        deliverer.put([{"type": "lost"}])
        # Nothing else happens: the deliverer itself sends an empty batch after a short wait,
        # numbered after the lost one, so the page notices and resynchronises.
        eventually(lambda: page.seen, message="an empty batch after the lost one")
        assert page.cut == [1]
        assert page.seen == [(2, [])]
        assert deliverer.lost == 1 and deliverer.delivered == 1
        deliverer.put([{"type": "next"}])
        eventually(lambda: len(page.seen) == 2, message="the next batch delivered")
        assert page.seen[1] == (3, [{"type": "next"}])
    finally:
        deliverer.stop()


def test_no_wakeups_when_idle() -> None:
    page = Page()
    calls = {"ready": 0}

    def ready() -> bool:
        calls["ready"] += 1
        return True

    deliverer = Deliverer(page.run_js, ready)
    deliverer.start()
    try:
        # Looked once, then slept on the condition.
        stays(lambda: calls["ready"] <= 2 and page.seen == [], 0.3, "no wake-ups when idle")
    finally:
        deliverer.stop()
