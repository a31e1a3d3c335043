"""The tray side of the popup tells the notifier when the popup's visibility or focus changes
(its state reports, and the popup process ending), so a call that waits is announced at that
moment without any polling (tray_app/desktop/popup/popup.py with tray_app/desktop/notify/notify.py).

The popup process is stood in for by the other end of a real multiprocessing pipe speaking the
link protocol; the notification server by the fake backend of test_notify."""

from __future__ import annotations

import json
import multiprocessing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.desktop.test_notify import FakeBackend, FakeCore, approval
from tests.support.waiting import eventually
from tray_app.desktop.notify.notify import Notifier
from tray_app.desktop.popup.link import Link
from tray_app.desktop.popup.popup import Popup

pytest.importorskip("desktop_notifier")


class FakeChild:
    """The popup process's end of the link: reports state like popup/window.py does. It only
    writes (no reader thread), so closing it is what the process dying looks like: EOF."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    def report(self, *, visible: bool, active: bool) -> None:
        state = {"op": "state", "visible": visible, "active": active, "size": [400, 600]}
        self.conn.send_bytes(json.dumps(state).encode())

    def crash(self) -> None:
        if not self.conn.closed:
            self.conn.close()


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[tuple[Popup, FakeChild, Notifier, FakeBackend]]:
    popup = Popup(
        "index.html", commands=[], call=lambda c, p: {"ok": True},
        unload_after=lambda: 0, hide_on_focus_loss=lambda: False,
        state_file=tmp_path / "popup.json",
    )  # fmt: skip
    backend = FakeBackend()
    notifier = Notifier(FakeCore(), popup, open_popup=lambda s, c: None, backend=backend)
    popup.on_change = notifier.popup_changed
    ours, theirs = multiprocessing.Pipe(duplex=True)
    # what Popup._start does after spawning the process
    popup._link = Link(ours, popup._on_message, on_closed=popup._on_closed, name="test-popup")
    popup._link.start()
    child = FakeChild(theirs)
    notifier.start()
    yield popup, child, notifier, backend
    notifier.stop()
    child.crash()
    popup._link.close()


def test_focus_moving_to_another_app_announces_the_waiting_call(rig: Any) -> None:
    popup, child, notifier, backend = rig
    child.report(visible=True, active=True)
    eventually(lambda: popup.active)
    notifier.on_events([approval("c1", path="/w/笔记 📝.md")])
    eventually(lambda: "c1" in notifier._waiting)
    assert backend.sent == []  # the user is looking at the card
    changes = len(backend.sent)
    child.report(visible=True, active=False)  # another app took the focus
    eventually(lambda: len(backend.sent) > changes)
    assert "笔记 📝.md" in backend.sent[0]["message"]
    child.report(visible=False, active=False)  # then hidden: still one notification
    eventually(lambda: not popup.visible)
    notifier.popup_changed()  # a round trip through the notify loop
    eventually(lambda: not notifier._asking)
    assert len(backend.sent) == 1


def test_the_popup_process_ending_announces_the_waiting_call(rig: Any) -> None:
    popup, child, notifier, backend = rig
    child.report(visible=True, active=True)
    eventually(lambda: popup.active)
    notifier.on_events([approval("c2")])
    eventually(lambda: "c2" in notifier._waiting)
    assert backend.sent == []
    child.crash()  # the popup process died while the user looked at it
    eventually(lambda: backend.sent)
    assert not popup.running


class StubProcess:
    """Stands in for the popup process object (the pipe above plays its link)."""

    pid = 4242
    exitcode = 0

    def join(self, timeout: float | None = None) -> None:
        return None

    def is_alive(self) -> bool:
        return False

    def kill(self) -> None:
        return None


def test_a_show_that_races_the_unload_timer_keeps_the_popup(tmp_path: Path) -> None:
    popup = Popup(
        "index.html", commands=[], call=lambda c, p: {"ok": True},
        unload_after=lambda: 3600, hide_on_focus_loss=lambda: False,
        state_file=tmp_path / "popup.json",
    )  # fmt: skip
    ours, theirs = multiprocessing.Pipe(duplex=True)
    popup._process = StubProcess()
    popup._link = Link(ours, popup._on_message, on_closed=popup._on_closed, name="test-popup")
    popup._link.start()
    child = FakeChild(theirs)
    try:
        child.report(visible=True, active=True)
        eventually(lambda: popup.visible)
        child.report(visible=False, active=False)  # hidden: the unload timer starts
        eventually(lambda: popup._unload_timer is not None)
        fired = popup._unload_timer
        assert fired is not None
        popup.show()  # the user opens it again just as the timer fires...
        popup._unload_if_hidden(fired)  # ...and the timer's callback runs late
        assert popup.running, "the popup process was ended under a show"
        # a timer that is still the current one does unload a hidden popup
        child.report(visible=True, active=True)
        eventually(lambda: popup.visible)
        child.report(visible=False, active=False)
        eventually(lambda: popup._unload_timer is not None)
        current = popup._unload_timer
        assert current is not None
        current.cancel()
        popup._unload_if_hidden(current)
        assert not popup.running
    finally:
        child.crash()
        popup._link.close()
