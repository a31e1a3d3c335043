"""A test notification server: ``org.freedesktop.Notifications`` on the session bus.

Run as its own process by the e2e tests (``python tests/e2e/notify_server.py``), so every
notification the app sends is recorded and its buttons can be "clicked" deterministically,
which a real daemon (notification-daemon, dunst) does not allow without pixel hunting.

- The standard interface: ``GetCapabilities`` (with ``actions``), ``GetServerInformation``,
  ``Notify`` (recorded: app, summary, body, actions, hints, timeout), ``CloseNotification``
  (recorded as closed by the app), and the ``ActionInvoked`` / ``NotificationClosed`` signals.
- A control interface for the test, ``org.metona.TestNotifications``: ``Recorded() -> s``
  (JSON list of every notification) and ``Invoke(id, action_key)``, which emits
  ``ActionInvoked`` then ``NotificationClosed(id, 2)`` the way a user's click does.

Prints ``ready`` on stdout once it owns the name. Uses dbus-fast (a desktop-notifier dependency).
"""

# dbus-fast reads D-Bus signatures from string annotations: F722/F821 are expected here.
# ruff: noqa: F722, F821

import asyncio
import json
import signal
import sys
from typing import Any

from dbus_fast import Variant
from dbus_fast.aio import MessageBus
from dbus_fast.service import ServiceInterface, method
from dbus_fast.service import signal as dbus_signal

NAME = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"
CAPABILITIES = ["actions", "body", "persistence"]


def _plain(value: Any) -> Any:
    return value.value if isinstance(value, Variant) else value


class Notifications(ServiceInterface):
    def __init__(self) -> None:
        super().__init__(NAME)
        self.records: list[dict[str, Any]] = []
        self._next = 1

    @method()
    def GetCapabilities(self) -> "as":
        return CAPABILITIES

    @method()
    def GetServerInformation(self) -> "ssss":
        return ["metona-test-notifications", "metona", "1.0", "1.2"]

    @method()
    def Notify(
        self,
        app_name: "s",
        replaces_id: "u",
        app_icon: "s",
        summary: "s",
        body: "s",
        actions: "as",
        hints: "a{sv}",
        expire_timeout: "i",
    ) -> "u":
        nid = replaces_id or self._next
        if not replaces_id:
            self._next += 1
        self.records.append(
            {
                "id": nid,
                "app_name": app_name,
                "icon": app_icon,
                "summary": summary,
                "body": body,
                "actions": dict(zip(actions[::2], actions[1::2], strict=False)),
                "hints": {k: _plain(v) for k, v in hints.items()},
                "timeout": expire_timeout,
                "closed_by": None,
            }
        )
        return nid

    @method()
    def CloseNotification(self, nid: "u") -> None:
        self._close(nid, "app", 3)

    @dbus_signal()
    def NotificationClosed(self, nid: "u", reason: "u") -> "uu":
        return [nid, reason]

    @dbus_signal()
    def ActionInvoked(self, nid: "u", action_key: "s") -> "us":
        return [nid, action_key]

    def _close(self, nid: int, by: str, reason: int) -> None:
        for record in self.records:
            if record["id"] == nid and record["closed_by"] is None:
                record["closed_by"] = by
                self.NotificationClosed(nid, reason)


class Control(ServiceInterface):
    def __init__(self, server: Notifications) -> None:
        super().__init__("org.metona.TestNotifications")
        self.server = server

    @method()
    def Recorded(self) -> "s":
        return json.dumps(self.server.records, default=str)

    @method()
    def Invoke(self, nid: "u", action_key: "s") -> None:
        self.server.ActionInvoked(nid, action_key)
        self.server._close(nid, "user", 2)


async def main() -> None:
    bus = await MessageBus().connect()
    server = Notifications()
    bus.export(PATH, server)
    bus.export(PATH, Control(server))
    await bus.request_name(NAME)
    print("ready", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    disconnected = asyncio.ensure_future(bus.wait_for_disconnect())
    await asyncio.wait(
        [disconnected, asyncio.ensure_future(stop.wait())], return_when="FIRST_COMPLETED"
    )
    bus.disconnect()


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)
