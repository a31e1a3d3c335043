"""The ui pump: blocks on the bus (no timer), one batch to the listeners and the page sink, in
order, with desktop-side ui actions in the same batches."""

from __future__ import annotations

import threading
from typing import Any

from pydantic import BaseModel

from tests.support.waiting import eventually, stays
from tray_app.base.events import ContentDelta, StateChanged, UiAction
from tray_app.core.bus import EventBus
from tray_app.desktop.ui_pump import UiPump


class Sink:
    def __init__(self) -> None:
        self.batches: list[list[dict[str, Any]]] = []
        self.called = threading.Event()

    def __call__(self, items: list[dict[str, Any]]) -> None:
        self.batches.append(items)
        self.called.set()


def delta(text: str) -> ContentDelta:
    return ContentDelta(session_id="s", message_id="m", text=text)


def test_one_batch_in_order_with_ui_actions() -> None:
    bus, sink = EventBus(), Sink()
    seen: list[list[BaseModel]] = []
    pump = UiPump(bus.subscribe(), sink, [seen.append])
    for word in ("a", "b", "c"):
        bus.publish(delta(word))
    pump.post(UiAction(action="open_settings"))
    pump.pump_once()
    assert [[e.get("text") or e.get("action") for e in b] for b in sink.batches] == [
        ["a", "b", "c", "open_settings"]
    ]
    last = sink.batches[0][-1]
    assert (last["type"], last["action"], last["session_id"]) == (
        "ui_action",
        "open_settings",
        None,
    )
    assert [len(b) for b in seen] == [3]  # the listeners get the events, not the wake-ups
    pump.pump_once()  # nothing new: no call
    assert len(sink.batches) == 1


def test_hard_text_is_cleaned_on_its_way() -> None:
    bus, sink = EventBus(), Sink()
    pump = UiPump(bus.subscribe(), sink)
    bus.publish(delta("a\u2028b \ud83d c\x00d 中文 👩🏽‍💻"))
    pump.pump_once()
    assert sink.batches[0][0]["text"] == "a\u2028b \ufffd c\ufffdd 中文 👩🏽‍💻"


def test_the_thread_blocks_then_batches_a_burst_and_stops() -> None:
    bus, sink = EventBus(), Sink()
    seen: list[list[BaseModel]] = []
    pump = UiPump(bus.subscribe(), sink, [seen.append], gather=0.05)
    pump.start()
    for i in range(300):
        bus.publish(delta(str(i)))
    assert sink.called.wait(5)
    eventually(lambda: sum(len(b) for b in sink.batches) >= 300, message="300 deltas delivered")
    assert sum(len(b) for b in sink.batches) == 300
    assert len(sink.batches) <= 3  # a burst is one or a few batches, never one per token
    bus.publish(StateChanged(state="working"))
    pump.post(UiAction(action="open_settings"))
    eventually(lambda: sum(len(b) for b in sink.batches) >= 302, message="both events delivered")
    assert [e["type"] for b in sink.batches for e in b][-2:] == ["state_changed", "ui_action"]
    pump.stop()
    bus.publish(delta("late"))
    stays(
        lambda: all(e.get("text") != "late" for b in sink.batches for e in b),
        0.1,
        "nothing delivered after stop",
    )


def test_a_failing_listener_does_not_stop_the_page() -> None:
    bus, sink = EventBus(), Sink()

    def broken(_events: list[BaseModel]) -> None:
        raise RuntimeError("listener bug")

    pump = UiPump(bus.subscribe(), sink, [broken])
    bus.publish(delta("x"))
    pump.pump_once()
    assert len(sink.batches) == 1
