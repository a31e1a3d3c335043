"""A stand-in xdg-desktop-portal offering ``org.freedesktop.portal.GlobalShortcuts`` (dbus-fast).

Run as its own process on a private session bus (``python tests/desktop/fake_portal.py``).
It answers ``CreateSession`` and ``BindShortcuts`` the way the real portal does: the method
returns the Request path built from the caller's ``handle_token`` and the answer follows as
that Request's ``Response`` signal. A control interface lets the test press the shortcut:
``org.metona.TestPortal.Press(shortcut_id)`` emits ``Activated`` for the last session, and
``Recorded() -> s`` returns JSON of what was bound and closed. ``--refuse`` answers
BindShortcuts with response 1 (the user cancelled the dialog). Prints ``ready``.
"""

# dbus-fast reads D-Bus signatures from string annotations: F722/F821 are expected here.
# ruff: noqa: F722, F821

import asyncio
import json
import signal
import sys
from typing import Any

from dbus_fast import Message, MessageType, Variant
from dbus_fast.aio import MessageBus
from dbus_fast.service import PropertyAccess, ServiceInterface, dbus_property, method
from dbus_fast.service import signal as dbus_signal

NAME = "org.freedesktop.portal.Desktop"
PATH = "/org/freedesktop/portal/desktop"


class Shortcuts(ServiceInterface):
    def __init__(self, bus: MessageBus, refuse: bool) -> None:
        super().__init__("org.freedesktop.portal.GlobalShortcuts")
        self.bus = bus
        self.refuse = refuse
        self.records: dict[str, Any] = {"sessions": [], "bound": [], "closed": []}
        self.session = ""
        self.tasks: set[asyncio.Future[None]] = set()

    @dbus_property(access=PropertyAccess.READ)
    def version(self) -> "u":
        return 2

    def _request_path(self, sender: str, options: dict[str, Variant]) -> str:
        token = options["handle_token"].value
        return f"{PATH}/request/{sender.lstrip(':').replace('.', '_')}/{token}"

    async def _answer(
        self, reply: Message, path: str, code: int, results: dict[str, Variant]
    ) -> None:
        """The method's return first, then the Request's Response, as the real portal does."""
        await self.bus.send(reply)
        await self.bus.send(
            Message.new_signal(
                path, "org.freedesktop.portal.Request", "Response", "ua{sv}", [code, results]
            )
        )

    def handle_call(self, message: Message) -> bool:
        """Methods that need the caller's unique name are answered here (low level)."""
        if message.interface != self.name or message.member not in (
            "CreateSession",
            "BindShortcuts",
        ):
            return False
        options: dict[str, Variant] = message.body[-1]
        request = self._request_path(message.sender, options)
        if message.member == "CreateSession":
            token = options["session_handle_token"].value
            sender = message.sender.lstrip(":").replace(".", "_")
            self.session = f"{PATH}/session/{sender}/{token}"
            self.records["sessions"].append(self.session)
            self.bus.export(self.session, Session(self))
            results = {"session_handle": Variant("s", self.session)}
            code = 0
        else:
            _session, shortcuts, _parent, _options = message.body
            for ident, info in shortcuts:
                self.records["bound"].append({"id": ident, **{k: v.value for k, v in info.items()}})
            code = 1 if self.refuse else 0
            bound = [
                [ident, {"trigger_description": Variant("s", info["preferred_trigger"].value)}]
                for ident, info in shortcuts
            ]
            results = {"shortcuts": Variant("a(sa{sv})", bound)}
        reply = Message.new_method_return(message, "o", [request])
        task = asyncio.ensure_future(self._answer(reply, request, code, results))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return True

    @dbus_signal()
    def Activated(
        self, session: "o", shortcut_id: "s", timestamp: "t", options: "a{sv}"
    ) -> "osta{sv}":
        return [session, shortcut_id, timestamp, options]


class Session(ServiceInterface):
    def __init__(self, shortcuts: Shortcuts) -> None:
        super().__init__("org.freedesktop.portal.Session")
        self.shortcuts = shortcuts

    @method()
    def Close(self) -> None:
        self.shortcuts.records["closed"].append(self.shortcuts.session)


class Control(ServiceInterface):
    def __init__(self, shortcuts: Shortcuts) -> None:
        super().__init__("org.metona.TestPortal")
        self.shortcuts = shortcuts

    @method()
    def Press(self, shortcut_id: "s") -> None:
        self.shortcuts.Activated(self.shortcuts.session, shortcut_id, 1, {})

    @method()
    def Recorded(self) -> "s":
        return json.dumps(self.shortcuts.records)


async def main() -> None:
    bus = await MessageBus().connect()
    shortcuts = Shortcuts(bus, refuse="--refuse" in sys.argv)
    bus.add_message_handler(
        lambda m: (
            True if m.message_type == MessageType.METHOD_CALL and shortcuts.handle_call(m) else None
        )
    )
    bus.export(PATH, shortcuts)
    bus.export(PATH, Control(shortcuts))
    await bus.request_name(NAME)
    print("ready", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    bus.disconnect()


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)
