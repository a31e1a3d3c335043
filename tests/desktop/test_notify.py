"""Notifications: Approve/Deny/Open act through the core, answered-elsewhere withdraws, a call
that waits is announced whenever the popup stops being looked at, long turns finishing while
hidden say so, in the UI language. A fake backend stands in for the notification server (the
real D-Bus path is in tests/e2e/test_notifications.py)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from tests.support.waiting import eventually, stays
from tray_app.base.events import (
    ApprovalNeeded,
    ApprovalResolved,
    SessionUpdated,
    SettingsUpdated,
    TurnFinished,
    TurnStarted,
)
from tray_app.desktop.notify.notify import Notifier

pytest.importorskip("desktop_notifier")


@dataclass(frozen=True)
class Cap:
    name: str


class FakeBackend:
    def __init__(self, capabilities: tuple[str, ...] = ("BUTTONS", "ON_CLICKED")) -> None:
        self.capabilities = capabilities
        self.sent: list[dict[str, Any]] = []
        self.cleared: list[str] = []
        self.changed = threading.Event()

    async def get_capabilities(self) -> set[Cap]:
        return {Cap(c) for c in self.capabilities}

    async def send(self, **kwargs: Any) -> str:
        identifier = f"n{len(self.sent) + 1}"
        self.sent.append({"id": identifier, **kwargs})
        self.changed.set()
        return identifier

    async def clear(self, identifier: str) -> None:
        self.cleared.append(identifier)
        self.changed.set()

    def dismiss(self, index: int) -> None:
        """The user closes a notification (the server calls on_dismissed)."""
        self.sent[index]["on_dismissed"]()


class FakeCore:
    def __init__(self) -> None:
        self.decisions: list[tuple[str, bool, str]] = []
        self.decided = threading.Event()

    def decide(
        self, call_id: str, approve: bool, *, remember: bool = False, by: Any = "popup"
    ) -> Any:
        self.decisions.append((call_id, approve, by))
        self.decided.set()
        return {"ok": True}


class FakePopup:
    visible = False
    active = False


def approval(call_id: str = "c1", path: str = "/w/hello.txt", **preview: Any) -> ApprovalNeeded:
    return ApprovalNeeded(
        session_id="s1", call_id=call_id, name="write_file",
        arguments={"path": "hello.txt", "content": "hi"}, risk="write",
        preview={"kind": "new_file", "path": path, "exists": False, "size_after": 2, **preview},
        can_remember=True, expires_at=time.time() + 300,
    )  # fmt: skip


@pytest.fixture
def rig() -> Iterator[tuple[Notifier, FakeBackend, FakeCore, FakePopup, list[Any]]]:
    backend, core, popup, opened = FakeBackend(), FakeCore(), FakePopup(), []
    notifier = Notifier(
        core, popup, open_popup=lambda s, c: opened.append((s, c)), backend=backend,
        long_turn_seconds=5.0, language="en",
    )  # fmt: skip
    notifier.start()
    yield notifier, backend, core, popup, opened
    notifier.stop()


#: How long a test watches for a notification that must not come: several turns of the
#: notifier's loop, which answers an event within milliseconds.
QUIET = 0.3


def test_hidden_popup_gets_a_notification_whose_buttons_decide(rig: Any) -> None:
    notifier, backend, core, _popup, opened = rig
    assert "buttons" in notifier.capabilities
    notifier.on_events([approval()])
    eventually(lambda: backend.sent, message="a notification")
    sent = backend.sent[0]
    assert sent["title"] == "Allow “Write file”?"
    assert sent["message"] == "/w/hello.txt\nnew file, 2 B"
    assert [b.title for b in sent["buttons"]] == ["Approve", "Deny", "Open"]
    sent["buttons"][0].on_pressed()
    assert core.decided.wait(5)
    assert core.decisions == [("c1", True, "notification")]
    sent["on_clicked"]()
    sent["buttons"][2].on_pressed()
    assert opened == [("s1", "c1"), ("s1", "c1")]


def test_deny_button(rig: Any) -> None:
    notifier, backend, core, _popup, _opened = rig
    notifier.on_events([approval("c9")])
    eventually(lambda: backend.sent, message="a notification")
    backend.sent[0]["buttons"][1].on_pressed()
    assert core.decided.wait(5)
    assert core.decisions == [("c9", False, "notification")]


def test_no_notification_while_the_popup_has_focus(rig: Any) -> None:
    notifier, backend, _core, popup, _opened = rig
    popup.visible = popup.active = True
    notifier.on_events([approval()])
    stays(lambda: backend.sent == [], QUIET, "nothing sent while the popup has focus")


def test_answered_elsewhere_withdraws_it(rig: Any) -> None:
    notifier, backend, _core, _popup, _opened = rig
    notifier.on_events([approval("c1")])
    eventually(lambda: backend.sent, message="a notification")
    notifier.on_events(
        [ApprovalResolved(session_id="s1", call_id="c1", decision="approved", by="popup")]
    )
    eventually(lambda: backend.cleared, message="the notification withdrawn")
    assert backend.cleared == ["n1"]


def test_a_server_without_buttons_asks_for_a_click(rig: Any) -> None:
    notifier, backend, _core, _popup, _opened = rig
    notifier.capabilities = frozenset({"on_clicked"})
    notifier.on_events([approval()])
    eventually(lambda: backend.sent, message="a notification")
    assert backend.sent[0]["buttons"] == ()
    assert "Click to review" in backend.sent[0]["message"]


def test_long_turns_finishing_while_hidden_are_announced(rig: Any) -> None:
    notifier, backend, _core, popup, opened = rig
    now = time.time()
    notifier.on_events(
        [
            SessionUpdated(session={"id": "s1", "title": "Tidy my notes"}),
            TurnStarted(session_id="s1", turn_id="t1", model="m", tools_enabled=True, at=now - 30),
            TurnFinished(session_id="s1", turn_id="t1", stop_reason="done", rounds=1, at=now),
            TurnStarted(session_id="s1", turn_id="t2", model="m", tools_enabled=True, at=now),
            TurnFinished(session_id="s1", turn_id="t2", stop_reason="done", rounds=1, at=now + 1),
        ]
    )
    eventually(lambda: backend.sent, message="a notification")
    stays(lambda: len(backend.sent) == 1, QUIET, "one notification for the long turn only")
    assert [(s["title"], s["message"]) for s in backend.sent] == [("Answer ready", "Tidy my notes")]
    backend.sent[0]["on_clicked"]()
    assert opened == [("s1", None)]
    popup.visible = True
    notifier.on_events(
        [
            TurnStarted(session_id="s1", turn_id="t3", model="m", tools_enabled=True, at=now - 60),
            TurnFinished(session_id="s1", turn_id="t3", stop_reason="done", rounds=1, at=now),
        ]
    )
    # The user is looking at it already.
    stays(lambda: len(backend.sent) == 1, QUIET, "no notification while the popup is shown")


def test_stop_ends_the_thread_without_a_server() -> None:
    class Broken(FakeBackend):
        async def get_capabilities(self) -> set[Cap]:
            await asyncio.sleep(0)
            raise ConnectionError("no notification server")

    notifier = Notifier(FakeCore(), FakePopup(), open_popup=lambda s, c: None, backend=Broken())
    notifier.start()
    assert notifier.error and "no notification server" in notifier.error
    notifier.stop()
    assert not notifier._thread.is_alive()  # ended, not left behind once stop's wait ran out


def test_hiding_the_popup_while_a_call_waits_announces_it(rig: Any) -> None:
    notifier, backend, _core, popup, _opened = rig
    popup.visible = popup.active = True
    notifier.on_events([approval("c2")])
    stays(lambda: backend.sent == [], QUIET, "nothing sent while the user looks at the card")
    popup.active = False  # another app took the focus; the popup is still on screen
    notifier.popup_changed()
    eventually(lambda: backend.sent, message="a notification")
    assert len(backend.sent) == 1 and "Write file" in backend.sent[0]["title"]
    popup.visible = False
    notifier.popup_changed()
    # One notification per waiting call, not one per change.
    stays(lambda: len(backend.sent) == 1, QUIET, "no second notification for the same call")


def test_a_dismissed_notification_returns_only_after_the_popup_had_focus(rig: Any) -> None:
    notifier, backend, _core, popup, _opened = rig
    notifier.on_events([approval("c4")])
    eventually(lambda: backend.sent, message="a notification")
    backend.dismiss(0)
    # Longer than a watch interval: it must not pop straight back.
    stays(lambda: len(backend.sent) == 1, 0.8, "a dismissed notification stays away")
    popup.visible = popup.active = True
    notifier.popup_changed()
    # The popup had focus: it may come back now.
    eventually(lambda: not notifier._dismissed, message="the dismissal forgotten")
    popup.visible = popup.active = False
    notifier.popup_changed()
    eventually(lambda: len(backend.sent) == 2, message="the notification back")


def test_answered_before_it_was_shown_is_withdrawn_at_once(rig: Any) -> None:
    notifier, backend, _core, _popup, _opened = rig
    notifier.on_events(
        [approval("c5"),
         ApprovalResolved(session_id="s1", call_id="c5", decision="denied", by="popup")]
    )  # fmt: skip
    stays(
        lambda: [s["id"] for s in backend.sent] == backend.cleared,
        QUIET,
        "every notification sent is withdrawn at once",
    )


def test_notifications_follow_the_language_setting(rig: Any) -> None:
    notifier, backend, _core, _popup, _opened = rig
    notifier.on_events([SettingsUpdated(settings={"language": "zh-CN"}), approval("c6")])
    eventually(lambda: backend.sent, message="a notification")
    sent = backend.sent[0]
    assert sent["title"] == "是否允许“写入文件”？"
    assert sent["message"] == "/w/hello.txt\n新文件，2 B"
    assert [b.title for b in sent["buttons"]] == ["允许", "拒绝", "打开"]
