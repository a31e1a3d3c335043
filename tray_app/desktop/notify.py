"""Native notifications (desktop-notifier): Approve / Deny for waiting tool calls, and a note
when a long answer finishes while the popup is hidden.

desktop-notifier needs an asyncio loop to receive button presses (D-Bus signals on Linux), so
the notifier owns one on its own thread (``metona-notify``); the ui pump hands it event
batches with ``call_soon_threadsafe``. Button presses call ``Core.decide(..., by=
"notification")`` on a worker thread. When the call is answered anywhere else, the
notification is withdrawn. Where the server has no buttons, a click on the notification
opens the popup at the pending card.

Linux is verified (notification-daemon and the test server in tests/e2e). macOS needs a signed
bundle and its run loop; Windows uses WinRT toasts: both untested here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import threading
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel

from tray_app.core.events import (
    ApprovalNeeded,
    ApprovalResolved,
    SessionUpdated,
    TurnFailed,
    TurnFinished,
    TurnStarted,
)

log = logging.getLogger(__name__)

APP_NAME = "Metona Tray"
TARGET_MAX = 120


class DecideCore(Protocol):
    def decide(
        self, call_id: str, approve: bool, *, remember: bool = ..., by: Any = ...
    ) -> Any: ...


class PopupState(Protocol):
    @property
    def visible(self) -> bool: ...
    @property
    def active(self) -> bool: ...


def _plain(text: str) -> str:
    """Notification bodies may be read as markup (``body-markup``): model-chosen text must
    not become tags, so ``<``, ``>``, ``&`` are swapped for look-alikes."""
    return text.replace("&", "＆").replace("<", "‹").replace(">", "›")


def _shorten(text: str, limit: int = TARGET_MAX) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    keep = (limit - 1) // 2
    return text[:keep] + "…" + text[-keep:]


def describe_approval(event: ApprovalNeeded) -> tuple[str, str]:
    """(title, body) naming the tool and its target, from the model-independent preview."""
    preview, args = event.preview or {}, event.args or {}
    target = str(preview.get("path") or args.get("path") or args.get("command") or "")
    details: list[str] = []
    if event.name == "write_file":
        size = preview.get("size_after")
        verb = "overwrite" if preview.get("exists") else "create"
        details.append(f"{verb}{f', {size} bytes' if isinstance(size, int) else ''}")
    elif event.name == "delete_file" and args.get("recursive"):
        details.append("with everything inside")
    elif event.name == "run_command" and args.get("cwd"):
        details.append(f"in {args['cwd']}")
    body = _shorten(target) + (f" ({'; '.join(details)})" if details else "")
    return f"Approve {event.name}?", _plain(body or "(no target)")


class Notifier:
    def __init__(
        self,
        core: DecideCore,
        popup: PopupState,
        *,
        open_popup: Callable[[str | None, str | None], None],
        long_turn_seconds: float = 20.0,
        app_name: str = APP_NAME,
        icon: Path | None = None,
        backend: Any = None,
    ) -> None:
        """``backend``: a ``DesktopNotifier``-like object (tests); default: the real one."""
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
        self._approvals: dict[str, str] = {}  # call id -> notification id
        self._turn_started: dict[str, float] = {}
        self._titles: dict[str, str] = {}
        self._tasks: set[asyncio.Future[None]] = set()
        self.capabilities: frozenset[str] = frozenset()
        self.error: str | None = None

    # ---- life cycle ------------------------------------------------------------------------

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
            log.info("notifications: %s", ", ".join(sorted(self.capabilities)) or "none")
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

    def on_events(self, events: list[BaseModel]) -> None:
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
        asyncio.run_coroutine_threadsafe(self._send(title, _plain(message)), loop)

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)  # the loop keeps only weak references to tasks
        task.add_done_callback(self._tasks.discard)

    def _handle(self, events: list[BaseModel]) -> None:
        for event in events:
            if isinstance(event, ApprovalNeeded):
                if not self._popup.active:
                    self._spawn(self._ask(event))
            elif isinstance(event, ApprovalResolved):
                self._spawn(self._withdraw(event.call_id))
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

        title, body = describe_approval(event)
        call_id, session_id = event.call_id, event.session_id
        buttons: tuple[Any, ...] = ()
        if "buttons" in self.capabilities or sys.platform in ("darwin", "win32"):
            buttons = (
                Button(
                    "Approve", on_pressed=lambda: self._decide(call_id, True), identifier="approve"
                ),
                Button("Deny", on_pressed=lambda: self._decide(call_id, False), identifier="deny"),
            )
        else:
            body += "\nClick to review it in Metona Tray."
        identifier = await self._send(
            title,
            body,
            buttons=buttons,
            urgency=Urgency.Critical,
            on_clicked=lambda: self._open_popup(session_id, call_id),
            timeout=0,  # stays until answered (servers that honour it)
        )
        if identifier is not None:
            self._approvals[call_id] = identifier

    async def _withdraw(self, call_id: str) -> None:
        identifier = self._approvals.pop(call_id, None)
        if identifier is None or self._notifier is None:
            return
        with contextlib.suppress(Exception):  # already closed by the server or the user
            await asyncio.wait_for(self._notifier.clear(identifier), 2.0)

    def _decide(self, call_id: str, approve: bool) -> None:
        """A button press (on the notify loop): the decision goes to the core off-loop."""

        def run() -> None:
            try:
                self._core.decide(call_id, approve, by="notification")
            except Exception:
                log.exception("deciding %s from a notification failed", call_id)

        threading.Thread(target=run, name="metona-notify-decide", daemon=True).start()

    async def _turn_done(self, event: TurnFinished | TurnFailed) -> None:
        chat = self._titles.get(event.session_id, "your chat")
        if isinstance(event, TurnFailed):
            title, body = "The answer failed", f"{chat}: {event.message}"
        else:
            title, body = "Answer ready", chat
        session_id = event.session_id
        await self._send(
            title,
            _plain(_shorten(body, 200)),
            on_clicked=lambda: self._open_popup(session_id, None),
        )
