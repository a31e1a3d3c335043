"""Wayland global hotkey through the xdg-desktop-portal ``GlobalShortcuts`` interface (D-Bus).

Wayland gives no client a global key grab; where the desktop's portal offers GlobalShortcuts
(KDE Plasma 5.27+/6, GNOME 48+, Hyprland) the app asks it for one shortcut: ``CreateSession``,
then ``BindShortcuts`` with our combination as ``preferred_trigger`` (the desktop may show a
dialog to confirm or change it), then the portal emits ``Activated`` when it is pressed. Each
portal call answers through a ``Request`` object's ``Response`` signal, whose path we know in
advance from our ``handle_token``, so we subscribe before calling.

Where no portal offers it, ``hotkey.support`` gives the ``metona-tray --toggle`` hint instead.
The portal is exercised here only against a stand-in service (tests); no real compositor with
the portal was run. Uses dbus-fast (a desktop-notifier dependency on Linux) on its own asyncio
thread (``metona-hotkey``); signals arrive on it, no polling.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import threading
from collections.abc import Callable
from typing import Any

from tray_app.desktop.hotkey.keys import Hotkey

log = logging.getLogger(__name__)

PORTAL = "org.freedesktop.portal.Desktop"
PORTAL_PATH = "/org/freedesktop/portal/desktop"
SHORTCUTS = "org.freedesktop.portal.GlobalShortcuts"
REQUEST = "org.freedesktop.portal.Request"
SESSION = "org.freedesktop.portal.Session"
SHORTCUT_ID = "toggle-popup"
PROBE_TIMEOUT = 2.0
BIND_TIMEOUT = 60.0  # the desktop may show a dialog the user has to answer

# Our names -> the XDG shortcuts specification's trigger syntax ("CTRL+ALT+space").
TRIGGER_MODIFIERS = {"ctrl": "CTRL", "alt": "ALT", "shift": "SHIFT", "cmd": "LOGO"}


def preferred_trigger(hotkey: Hotkey) -> str:
    from tray_app.desktop.hotkey.hotkey_x11 import keysym_name
    from tray_app.desktop.hotkey.keys import MODIFIER_ORDER

    parts = [TRIGGER_MODIFIERS[m] for m in MODIFIER_ORDER if m in hotkey.modifiers]
    return "+".join([*parts, keysym_name(hotkey.key)])


def _in_thread(coro_fn: Callable[[], Any], timeout: float) -> Any:
    """Run an async function on a private loop in a new thread (callers may have a loop)."""
    result: list[Any] = []

    def run() -> None:
        with contextlib.suppress(Exception):
            result.append(asyncio.run(asyncio.wait_for(coro_fn(), timeout)))

    thread = threading.Thread(target=run, name="metona-portal-probe", daemon=True)
    thread.start()
    thread.join(timeout + 1.0)
    return result[0] if result else None


def offers_global_shortcuts() -> bool:
    """Is a GlobalShortcuts portal on the session bus? (reads its ``version`` property)"""
    if not os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
        return False

    async def probe() -> bool:
        from dbus_fast import Message, MessageType
        from dbus_fast.aio import MessageBus

        bus = await MessageBus().connect()
        try:
            reply = await bus.call(
                Message(
                    destination=PORTAL,
                    path=PORTAL_PATH,
                    interface="org.freedesktop.DBus.Properties",
                    member="Get",
                    signature="ss",
                    body=[SHORTCUTS, "version"],
                )
            )
            return reply is not None and reply.message_type == MessageType.METHOD_RETURN
        finally:
            bus.disconnect()

    return bool(_in_thread(probe, PROBE_TIMEOUT))


class PortalError(RuntimeError):
    """The portal refused or did not answer; the message says which call."""


class PortalHotkey:
    """One shortcut bound through the portal; ``start`` waits for the bind's answer."""

    def __init__(self, hotkey: Hotkey, callback: Callable[[], None]) -> None:
        self.hotkey = hotkey
        self._callback = callback
        self._loop: asyncio.AbstractEventLoop | None = None
        self._bus: Any = None
        self._session: str | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._main, name="metona-hotkey", daemon=True)
        self._responses: dict[str, asyncio.Future[tuple[int, dict[str, Any]]]] = {}
        self.trigger: str | None = None  # what the desktop says it bound, for the log

    def start(self) -> None:
        self._thread.start()
        if not self._ready.wait(BIND_TIMEOUT + PROBE_TIMEOUT):
            self.stop()
            raise PortalError("the desktop did not confirm the shortcut in time")
        if self._error is not None:
            self._thread.join(3.0)  # it has disconnected and is ending
            raise self._error

    def stop(self) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            close = self._close()
            try:
                asyncio.run_coroutine_threadsafe(close, loop)
            except RuntimeError:  # the loop closed meanwhile: nothing left to close
                close.close()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(3.0)

    # ---- the portal thread -----------------------------------------------------------------

    def _main(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._serve())
        except BaseException as exc:
            if not self._ready.is_set():
                self._error = exc
            else:
                log.warning("the portal shortcut stopped: %s", exc)
        finally:
            if self._bus is not None:
                with contextlib.suppress(Exception):
                    self._bus.disconnect()
            self._ready.set()
            loop.close()

    async def _serve(self) -> None:
        from dbus_fast.aio import MessageBus

        self._bus = await MessageBus().connect()
        self._bus.add_message_handler(self._on_message)
        await self._match(f"type='signal',interface='{SHORTCUTS}',member='Activated'")
        token = "metona" + secrets.token_hex(4)
        _code, results = await self._request(
            "CreateSession", "a{sv}", [self._options(token, session_handle_token=token)],
        )  # fmt: skip
        self._session = str(self._value(results.get("session_handle")) or "")
        if not self._session:
            raise PortalError("the portal created no session")
        from dbus_fast import Variant

        shortcut = (
            SHORTCUT_ID,
            {
                "description": Variant("s", "Open or hide Metona Tray"),
                "preferred_trigger": Variant("s", preferred_trigger(self.hotkey)),
            },
        )
        _code, results = await self._request(
            "BindShortcuts", "oa(sa{sv})sa{sv}",
            [self._session, [shortcut], "", self._options("metona" + secrets.token_hex(4))],
            timeout=BIND_TIMEOUT,
        )  # fmt: skip
        for ident, info in self._value(results.get("shortcuts")) or []:
            if ident == SHORTCUT_ID:
                self.trigger = str(self._value(info.get("trigger_description")) or "")
        log.info("portal shortcut bound (%s)", self.trigger or preferred_trigger(self.hotkey))
        self._ready.set()
        await self._bus.wait_for_disconnect()

    @staticmethod
    def _value(value: Any) -> Any:
        return getattr(value, "value", value)

    @staticmethod
    def _options(token: str, **extra: str) -> dict[str, Any]:
        from dbus_fast import Variant

        return {"handle_token": Variant("s", token)} | {
            k: Variant("s", v) for k, v in extra.items()
        }

    async def _match(self, rule: str) -> None:
        from dbus_fast import Message

        await self._bus.call(
            Message(
                destination="org.freedesktop.DBus",
                path="/org/freedesktop/DBus",
                interface="org.freedesktop.DBus",
                member="AddMatch",
                signature="s",
                body=[rule],
            )
        )

    async def _request(
        self, member: str, signature: str, body: list[Any], timeout: float = PROBE_TIMEOUT * 5
    ) -> tuple[int, dict[str, Any]]:
        """Call a portal method and wait for its Request's ``Response`` (code 0 = success)."""
        from dbus_fast import Message, MessageType

        token = self._value(body[-1]["handle_token"])
        sender = self._bus.unique_name.lstrip(":").replace(".", "_")
        path = f"{PORTAL_PATH}/request/{sender}/{token}"
        answer: asyncio.Future[tuple[int, dict[str, Any]]] = (
            asyncio.get_running_loop().create_future()
        )
        self._responses[path] = answer
        await self._match(f"type='signal',interface='{REQUEST}',member='Response',path='{path}'")
        reply = await self._bus.call(
            Message(
                destination=PORTAL,
                path=PORTAL_PATH,
                interface=SHORTCUTS,
                member=member,
                signature=signature,
                body=body,
            )
        )
        if reply.message_type == MessageType.ERROR:
            raise PortalError(f"{member}: {reply.error_name} {reply.body}")
        code, results = await asyncio.wait_for(answer, timeout)
        if code != 0:
            what = "cancelled by the user" if code == 1 else "refused"
            raise PortalError(f"the portal's {member} was {what}")
        return code, results

    def _on_message(self, message: Any) -> None:
        if message.member == "Response" and message.interface == REQUEST:
            future = self._responses.pop(str(message.path), None)
            if future is not None and not future.done():
                code, results = message.body
                future.set_result((int(code), dict(results)))
        elif message.member == "Activated" and message.interface == SHORTCUTS:
            session, shortcut_id = message.body[0], message.body[1]
            if session == self._session and shortcut_id == SHORTCUT_ID:
                try:
                    self._callback()
                except Exception:
                    log.exception("hotkey callback failed")

    async def _close(self) -> None:
        from dbus_fast import Message

        if self._bus is None:
            return
        if self._session:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(
                    self._bus.call(
                        Message(
                            destination=PORTAL,
                            path=self._session,
                            interface=SESSION,
                            member="Close",
                        )
                    ),
                    PROBE_TIMEOUT,
                )
        self._bus.disconnect()
