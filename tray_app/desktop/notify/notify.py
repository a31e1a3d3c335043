"""Native notifications (desktop-notifier): Approve / Deny / Open for waiting tool calls, and a
note when a long answer finishes while the popup is hidden.

A waiting call is announced whenever the popup is not visible-and-focused at any moment while
the call waits: when it is requested, and also later, e.g. when the user hides the popup or
moves to another app while an approval waits (``popup_changed``, which ``window.Popup`` calls
on every visible/focus change and when the popup process ends: no polling). A notification
the user dismissed comes back only after the popup had focus again. The text (``notify_message``)
is in the UI language, names the tool as the page does, shows the absolute target with
invisible characters made visible, and summarises a write's change.

desktop-notifier needs an asyncio loop to receive button presses (D-Bus signals on Linux), so
the notifier owns one on its own thread (``metona-notify``); the ui pump hands it event
batches with ``call_soon_threadsafe``. Button presses call ``Core.decide(..., by=
"notification")`` on a worker thread. When the call is answered anywhere, the notification is
withdrawn. Where the server has no buttons, a click on the notification opens the popup at the
pending card.

Linux is verified (the recording test server in tests/e2e). macOS needs a signed bundle and its
run loop; Windows uses WinRT toasts: both untested here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import threading
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from tray_app.base.errors import NotFound
from tray_app.base.events import (
    ApprovalNeeded,
    ApprovalResolved,
    Event,
    SessionUpdated,
    SettingsUpdated,
    TurnFailed,
    TurnFinished,
    TurnStarted,
)
from tray_app.desktop.notify import notify_linux, notify_message

if TYPE_CHECKING:
    from tray_app.core.protocol import CoreApi

log = logging.getLogger(__name__)

APP_NAME = "Metona Tray"


class PopupState(Protocol):
    @property
    def visible(self) -> bool: ...
    @property
    def active(self) -> bool: ...


def describe_approval(event: ApprovalNeeded, lang: str = "en") -> tuple[str, str]:
    """(title, body) for a waiting call, in ``lang`` (see ``notify_message``)."""
    return notify_message.describe_approval(
        event.name, event.arguments or {}, event.preview or {}, lang
    )


class Notifier:
    def __init__(
        self,
        core: CoreApi,
        popup: PopupState,
        *,
        open_popup: Callable[[str | None, str | None], None],
        long_turn_seconds: float = 20.0,
        app_name: str = APP_NAME,
        icon: Path | None = None,
        backend: Any = None,
        language: str = "system",
    ) -> None:
        """``backend``: a ``DesktopNotifier``-like object (tests); default: the real one.
        ``language``: the ``language`` setting (kept current from ``SettingsUpdated``)."""
        self._core = core
        self._popup = popup
        self._open_popup = open_popup
        self.long_turn_seconds = long_turn_seconds
        self._app_name = app_name
        self._loop: asyncio.AbstractEventLoop | None = None
        self._notifier: Any = backend
        self._icon = icon
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._main, name="metona-notify", daemon=True)
        self.lang = notify_message.language(language)
        self._waiting: dict[str, ApprovalNeeded] = {}  # calls that wait for an answer
        self._approvals: dict[str, str] = {}  # call id -> the notification shown for it
        self._asking: set[str] = set()  # being sent right now
        self._dismissed: set[str] = set()  # closed by the user; back after the popup had focus
        self._turn_started: dict[str, float] = {}
        self._titles: dict[str, str] = {}
        self._tasks: set[asyncio.Future[None]] = set()
        self.capabilities: frozenset[str] = frozenset()
        self.server: str | None = None  # the notification server's name (Linux)
        self.error: str | None = None

    # ---- life cycle ------------------------------------------------------------------------

    @property
    def shown_approvals(self) -> list[str]:
        """Calls whose approval notification is up and answerable (its buttons are wired)."""
        return sorted(list(self._approvals))  # a C-level copy: the notify thread adds to it

    def start(self, timeout: float = 5.0) -> None:
        self._thread.start()
        self._ready.wait(timeout)

    def _main(self) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        self._loop = loop
        try:
            loop.run_until_complete(self._connect())
            self._ready.set()
            loop.run_forever()
        finally:
            self._ready.set()
            with contextlib.suppress(Exception):
                loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    async def _connect(self) -> None:
        try:
            if self._notifier is None:
                from desktop_notifier import DesktopNotifier, Icon

                icon = Icon(path=self._icon) if self._icon else None
                self._notifier = DesktopNotifier(app_name=self._app_name, app_icon=icon)
            caps = await asyncio.wait_for(self._notifier.get_capabilities(), 3.0)
            self.capabilities = frozenset(c.name.lower() for c in caps)
            if sys.platform.startswith("linux"):
                self.server = await notify_linux.server_name(self._notifier)
            log.info(
                "notifications (%s): %s", self.server or "?",
                ", ".join(sorted(self.capabilities)) or "none",
            )  # fmt: skip
        except Exception as exc:  # no notification server: the app works without
            self.error = f"{type(exc).__name__}: {exc}"
            log.warning("notifications unavailable: %s", self.error)

    def stop(self, timeout: float = 1.0) -> None:
        """Withdraw what we showed (pending calls are cancelled on quit), then end the loop."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        if self._notifier is not None and self._approvals:
            future = asyncio.run_coroutine_threadsafe(self._withdraw_all(), loop)
            with contextlib.suppress(Exception):
                future.result(timeout)
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not threading.current_thread():
            self._thread.join(timeout)

    async def _withdraw_all(self) -> None:
        for call_id in list(self._approvals):
            await self._withdraw(call_id)

    # ---- events from the ui pump -----------------------------------------------------------

    def on_events(self, events: list[Event]) -> None:
        loop = self._loop
        if loop is None or loop.is_closed() or self._notifier is None:
            return
        with contextlib.suppress(RuntimeError):  # the loop just closed: quitting
            loop.call_soon_threadsafe(self._handle, events)

    def info(self, title: str, message: str) -> None:
        """A plain notification (tray feedback such as "Nothing undone")."""
        loop = self._loop
        if loop is None or self._notifier is None:
            log.info("%s: %s", title, message)
            return
        title, message = notify_message.visible(title), notify_message.visible(message)
        asyncio.run_coroutine_threadsafe(self._send(title, message), loop)

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)  # the loop keeps only weak references to tasks
        task.add_done_callback(self._tasks.discard)

    def popup_changed(self) -> None:
        """The popup was shown, hidden, focused or left (any thread): announce what waits."""
        loop = self._loop
        if loop is None or loop.is_closed() or self._notifier is None:
            return
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(self._sync)

    def _handle(self, events: list[Event]) -> None:
        for event in events:
            if isinstance(event, ApprovalNeeded):
                self._waiting[event.call_id] = event
            elif isinstance(event, ApprovalResolved):
                self._waiting.pop(event.call_id, None)
                self._dismissed.discard(event.call_id)
                self._spawn(self._withdraw(event.call_id))
            elif isinstance(event, SettingsUpdated):
                setting = event.settings.get("language")
                if isinstance(setting, str):
                    self.lang = notify_message.language(setting)
            elif isinstance(event, SessionUpdated):
                title = event.session.get("title")
                if isinstance(title, str) and title:
                    self._titles[str(event.session.get("id"))] = title
            elif isinstance(event, TurnStarted):
                self._turn_started[event.turn_id] = event.at
            elif isinstance(event, (TurnFinished, TurnFailed)):
                started = self._turn_started.pop(event.turn_id, None)
                long = started is not None and event.at - started >= self.long_turn_seconds
                aborted = isinstance(event, TurnFinished) and event.stop_reason == "aborted"
                if long and not aborted and not self._popup.visible:
                    self._spawn(self._turn_done(event))
        self._sync()

    def _sync(self) -> None:
        """On the notify loop: ask for every waiting call the user cannot see right now."""
        if not self._waiting:
            return
        try:
            looking = bool(self._popup.active)
        except Exception:  # the popup process is gone: nobody is looking
            looking = False
        if looking:
            self._dismissed.clear()
        else:
            for call_id, event in list(self._waiting.items()):
                if call_id in self._approvals or call_id in self._asking:
                    continue
                if call_id in self._dismissed:
                    continue
                self._asking.add(call_id)
                self._spawn(self._ask(event))

    # ---- sending ---------------------------------------------------------------------------

    async def _send(self, title: str, body: str, **options: Any) -> str | None:
        try:
            identifier: str = await asyncio.wait_for(
                self._notifier.send(title=title, message=body, **options), 5.0
            )
            return identifier
        except Exception:
            log.warning("notification %r not shown", title, exc_info=True)
            return None

    async def _ask(self, event: ApprovalNeeded) -> None:
        from desktop_notifier import Button, Urgency

        lang = self.lang
        title, body = describe_approval(event, lang)
        call_id, session_id = event.call_id, event.session_id

        def open_it() -> None:
            self._open_popup(session_id, call_id)

        def decide(approve: bool) -> Callable[[], None]:
            return lambda: self._decide(call_id, approve)

        buttons: tuple[Any, ...] = ()
        if "buttons" in self.capabilities or sys.platform in ("darwin", "win32"):
            buttons = (
                Button(notify_message.text(lang, "approve"), on_pressed=decide(True),
                       identifier="approve"),
                Button(notify_message.text(lang, "deny"), on_pressed=decide(False),
                       identifier="deny"),
                Button(notify_message.text(lang, "open"), on_pressed=open_it, identifier="open"),
            )  # fmt: skip
        else:
            body += "\n" + notify_message.text(lang, "click_to_review")
        try:
            identifier = await self._send(
                title,
                body,
                buttons=buttons,
                urgency=Urgency.Critical,
                on_clicked=open_it,
                on_dismissed=lambda: self._on_dismissed(call_id),
                timeout=0,  # stays until answered (servers that honour it)
            )
        finally:
            self._asking.discard(call_id)
        if identifier is None:
            return
        self._approvals[call_id] = identifier
        if call_id not in self._waiting:  # answered while it was being sent
            await self._withdraw(call_id)

    def _on_dismissed(self, call_id: str) -> None:
        """The user closed it (or pressed a button, on some servers): not again until the
        popup had focus, so a dismissed notification does not pop straight back."""
        self._approvals.pop(call_id, None)
        if call_id in self._waiting:
            self._dismissed.add(call_id)

    async def _withdraw(self, call_id: str) -> None:
        identifier = self._approvals.pop(call_id, None)
        if identifier is None or self._notifier is None:
            return
        if notify_linux.ignores_close(self.server):  # it would stay on screen
            await notify_linux.expire_now(self._notifier, identifier, self._app_name)
        with contextlib.suppress(Exception):  # already closed by the server or the user
            await asyncio.wait_for(self._notifier.clear(identifier), 2.0)

    def _decide(self, call_id: str, approve: bool) -> None:
        """A button press (on the notify loop): the decision goes to the core off-loop."""

        def run() -> None:
            try:
                self._core.decide(call_id, approve, by="notification")
            except NotFound:  # answered in the popup or timed out meanwhile
                log.info("call %s no longer waited when its notification was answered", call_id)
            except Exception:
                log.exception("deciding %s from a notification failed", call_id)

        threading.Thread(target=run, name="metona-notify-decide", daemon=True).start()

    async def _turn_done(self, event: TurnFinished | TurnFailed) -> None:
        failed = isinstance(event, TurnFailed)
        message = event.message if isinstance(event, TurnFailed) else ""
        title, body = notify_message.turn_done(
            failed, self._titles.get(event.session_id), message, self.lang
        )
        session_id = event.session_id
        await self._send(title, body, on_clicked=lambda: self._open_popup(session_id, None))
