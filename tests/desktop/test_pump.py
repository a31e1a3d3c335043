"""The ui pump: one run_js per batch, nothing lost before the page loads, same batch to the
tray and the notifier."""

from __future__ import annotations

import json
import re
import threading
import time
from typing import Any

from pydantic import BaseModel

from tray_app.core.bus import EventBus
from tray_app.core.events import ContentDelta, StateChanged
from tray_app.desktop.window import UiPump


class FakePopup:
    def __init__(self) -> None:
        self.loaded = False
        self.scripts: list[str] = []
        self.called = threading.Event()

    def page_loaded(self) -> bool:
        return self.loaded

    def run_js(self, script: str) -> None:
        self.scripts.append(script)
        self.called.set()


def batches(popup: FakePopup) -> list[list[dict[str, Any]]]:
    out = []
    for script in popup.scripts:
        match = re.fullmatch(r"window\.metona && window\.metona\.dispatch\((.*)\)", script, re.S)
        assert match, script
        out.append(json.loads(match.group(1)))
    return out


def delta(text: str) -> ContentDelta:
    return ContentDelta(session_id="s", message_id="m", text=text)


def test_one_run_js_per_batch_in_order() -> None:
    bus, popup = EventBus(), FakePopup()
    seen: list[list[BaseModel]] = []
    pump = UiPump(bus.subscribe(), popup, [seen.append])  # type: ignore[arg-type]
    popup.loaded = True
    for word in ("a", "b", "c"):
        bus.publish(delta(word))
    pump.post("open_settings")
    pump.pump_once()
    assert [[e.get("text") or e.get("action") for e in b] for b in batches(popup)] == [
        ["a", "b", "c", "open_settings"]
    ]
    assert batches(popup)[0][-1] == {"type": "ui_action", "action": "open_settings"}
    assert [len(b) for b in seen] == [3]
    pump.pump_once()  # nothing new: no call
    assert len(popup.scripts) == 1


def test_events_wait_for_the_page_then_arrive_together() -> None:
    bus, popup = EventBus(), FakePopup()
    seen: list[list[BaseModel]] = []
    pump = UiPump(bus.subscribe(), popup, [seen.append])  # type: ignore[arg-type]
    bus.publish(StateChanged(state="working"))
    pump.pump_once()
    bus.publish(delta("x"))
    pump.pump_once()
    assert popup.scripts == []
    assert len(seen) == 2  # the tray and notifier do not wait for the page
    popup.loaded = True
    pump.pump_once()
    assert [e["type"] for e in batches(popup)[0]] == ["state_changed", "content_delta"]


def test_line_separators_cannot_break_the_script() -> None:
    bus, popup = EventBus(), FakePopup()
    pump = UiPump(bus.subscribe(), popup)  # type: ignore[arg-type]
    popup.loaded = True
    bus.publish(delta("a\u2028b\u2029c</script>"))
    pump.pump_once()
    assert "\u2028" not in popup.scripts[0] and "\u2029" not in popup.scripts[0]
    assert batches(popup)[0][0]["text"] == "a\u2028b\u2029c</script>"


def test_the_thread_batches_a_burst_and_stops() -> None:
    bus, popup = EventBus(), FakePopup()
    popup.loaded = True
    pump = UiPump(bus.subscribe(), popup, interval=0.05)  # type: ignore[arg-type]
    for i in range(300):
        bus.publish(delta(str(i)))
    pump.start()
    assert popup.called.wait(5)
    deadline = time.monotonic() + 5
    while sum(len(b) for b in batches(popup)) < 300 and time.monotonic() < deadline:
        time.sleep(0.01)
    pump.stop()
    assert sum(len(b) for b in batches(popup)) == 300
    assert len(popup.scripts) <= 3  # a burst is one or a few calls, never one per token
    bus.publish(delta("late"))
    time.sleep(0.15)
    assert all(e["text"] != "late" for b in batches(popup) for e in b)


def test_a_failing_listener_does_not_stop_the_page() -> None:
    bus, popup = EventBus(), FakePopup()
    popup.loaded = True

    def broken(_events: list[BaseModel]) -> None:
        raise RuntimeError("listener bug")

    pump = UiPump(bus.subscribe(), popup, [broken])  # type: ignore[arg-type]
    bus.publish(delta("x"))
    pump.pump_once()
    assert len(popup.scripts) == 1
