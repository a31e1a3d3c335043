"""Batches reach the page in order; a lost one is noticed and the page is told by a gap."""

from __future__ import annotations

import json
import re
import threading
import time
from typing import Any

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


def wait(check: Any, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


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
        time.sleep(0.1)
        assert page.seen == []
        page.ready = True
        deliverer.wake()
        wait(lambda: page.seen)
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
        wait(lambda: page.seen)
        assert page.cut == [1]
        assert page.seen == [(2, [])]
        assert deliverer.lost == 1 and deliverer.delivered == 1
        deliverer.put([{"type": "next"}])
        wait(lambda: len(page.seen) == 2)
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
        time.sleep(0.3)
        assert calls["ready"] <= 2  # looked once, then slept on the condition
        assert page.seen == []
    finally:
        deliverer.stop()
