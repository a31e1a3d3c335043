"""The tray side of the popup: starts, stops and talks to the popup process.

The popup (pywebview window + guarded bridge, ``tray_app.desktop.popup``) runs in a
``multiprocessing`` spawn child. ``Popup`` is its stand-in here, safe from any thread:
``visible``/``active`` (from the child's state reports), ``show``/``hide``/``toggle``,
``evaluate_js`` and ``pick_folder`` (requests to the child), and ``deliver`` (the pump's
batches). Life of the child:

* started when the popup is first shown (never at app start: the tray idles light);
* after it has been hidden for ``popup_unload_after_s`` seconds it is asked to quit (0 keeps
  it); the next show starts a fresh one, whose page boots from Core's snapshots;
* if it dies (crash, kill), the next show starts a new one; the chat and any pending approval
  live in Core, so nothing is lost;
* ``destroy`` (Quit) asks it to quit, then kills it if it does not; the child also ends by
  itself when its link to this process closes, so no popup outlives the tray.
"""

from __future__ import annotations

import contextlib
import json
import logging
import multiprocessing
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tray_app.desktop.popup.link import Link, LinkClosed, Message
from tray_app.desktop.popup.placement import Rect

log = logging.getLogger(__name__)

START_TIMEOUT = 60.0
QUIT_TIMEOUT = 2.0


class Popup:
    def __init__(
        self,
        url: str,
        *,
        commands: list[str],
        call: Callable[[str, Any], dict[str, Any]],
        unload_after: Callable[[], float],
        hide_on_focus_loss: Callable[[], bool],
        hold_open: Callable[[], bool] = lambda: False,
        state_file: Path | None = None,
        log_file: Path | None = None,
    ) -> None:
        self.url = url
        self.commands = commands
        self._call = call
        self._unload_after = unload_after
        self._hide_on_focus_loss = hide_on_focus_loss
        self._hold_open = hold_open
        self._state_file = state_file
        self._log_file = log_file
        self._lock = threading.RLock()
        self._process: Any = None
        self._link: Link | None = None
        self._state: dict[str, Any] = {}
        self._state_changed = threading.Condition()
        self._unload_timer: threading.Timer | None = None
        self._closing = False
        self._pending_actions: list[dict[str, Any]] = []
        self.starts = 0  # popup processes started (tests, bench)
        self.tray_anchor: Callable[[], Rect | None] = lambda: None
        # Told when visible/active may have changed (state reports, the process ending), from
        # the link's thread: the notifier announces waiting calls then, without polling.
        self.on_change: Callable[[], None] = lambda: None
        self.size = self._load_size()

    # ---- state -----------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._link is not None and not self._link.closed.is_set()

    @property
    def pid(self) -> int | None:
        process = self._process
        return int(process.pid) if process is not None and self.running else None

    @property
    def visible(self) -> bool:
        return self.running and bool(self._state.get("visible"))

    @property
    def active(self) -> bool:
        """Visible and focused."""
        return self.running and bool(self._state.get("active")) and self.visible

    def page_loaded(self) -> bool:
        return self.running and bool(self._state.get("page_ready"))

    def stats(self) -> dict[str, Any]:
        """The popup's counters, fresh from the popup process (test hooks, bench)."""
        state = self._state
        if self.running:
            with contextlib.suppress(RuntimeError, TimeoutError, LinkClosed):
                state = self._request({"op": "stats"}, 5.0) or state
        keys = ("delivered", "lost", "refused_navigations", "refused_calls", "focus_losses")
        return {k: state.get(k, [] if k == "refused_navigations" else 0) for k in keys}

    def wait_state(self, check: Callable[[dict[str, Any]], bool], timeout: float) -> bool:
        with self._state_changed:
            return self._state_changed.wait_for(lambda: check(self._state), timeout)

    # ---- commands, any thread --------------------------------------------------------------

    def show(self, anchor: Rect | None = None) -> None:
        with self._lock:
            self._cancel_unload()
            if self._closing:
                return
            if not self.running:
                self._start(anchor)
                return
            link = self._link
        self._send(link, {"op": "show", "anchor": _box(anchor)})

    def hide(self) -> None:
        with self._lock:
            link = self._link if self.running else None
        if link is not None:
            self._send(link, {"op": "hide"})

    def toggle(self, anchor: Rect | None = None) -> None:
        if self.visible:
            self.hide()
        else:
            self.show(anchor)

    def toggle_from_tray(self) -> None:
        """The tray's click: runs on the GUI thread where the icon's rectangle is known."""
        anchor = None
        try:
            anchor = self.tray_anchor()
        except Exception:
            log.debug("tray icon geometry unavailable", exc_info=True)
        self.toggle(anchor)

    def deliver(self, items: list[dict[str, Any]]) -> None:
        """A batch for the page. With no popup running, Core's events are dropped (a new page
        reads snapshots) but requests from the tray menu and notifications (``ui_action``)
        wait for the next popup."""
        with self._lock:
            link = self._link if self.running else None
            if link is None:
                actions = [i for i in items if i.get("type") == "ui_action"]
                self._pending_actions = (self._pending_actions + actions)[-20:]
                return
        self._send(link, {"op": "events", "items": items})

    def evaluate_js(self, expression: str, timeout: float = 20.0) -> Any:
        return self._request({"op": "eval", "script": expression}, timeout)

    def pick_folder(self, start: str | None = None, language: str = "en") -> str | None:
        """The native folder dialog in the popup, titled in ``language``; the path or None."""
        message = {"op": "pick_folder", "start": start, "language": language}
        value = self._request(message, 3600.0)
        return str(value) if value else None

    def save_file(self, name: str, language: str = "en") -> str | None:
        """The native save dialog in the popup, suggesting ``name``; the chosen path or None."""
        value = self._request({"op": "save_file", "name": name, "language": language}, 3600.0)
        return str(value) if value else None

    def unload(self) -> None:
        """End the popup process now (it is started again on the next show)."""
        with self._lock:
            self._cancel_unload()
            self._stop_child()

    def destroy(self) -> None:
        """Quit: end the popup process, for good."""
        with self._lock:
            self._closing = True
            self._cancel_unload()
            self._stop_child()

    # ---- the child -------------------------------------------------------------------------

    def _start(self, anchor: Rect | None) -> None:
        from tray_app.desktop.popup import child

        ctx = multiprocessing.get_context("spawn")
        ours, theirs = ctx.Pipe(duplex=True)
        config = {
            "url": self.url,
            "commands": self.commands,
            "size": list(self.size),
            "show": _box(anchor) if anchor is not None else None,
            "log_file": str(self._log_file) if self._log_file else None,
        }
        process = ctx.Process(target=child.main, args=(theirs, config), name="metona-popup")
        process.daemon = True  # multiprocessing ends it if this process exits normally
        process.start()
        theirs.close()
        self._state = {}
        self._process = process
        self._link = Link(ours, self._on_message, on_closed=self._on_closed, name="metona-popup")
        self._link.start()
        self.starts += 1
        if self._pending_actions:
            actions, self._pending_actions = self._pending_actions, []
            self._send(self._link, {"op": "events", "items": actions})
        log.info("popup process %s started", process.pid)

    def _stop_child(self) -> None:
        link, process = self._link, self._process
        if link is None or process is None:
            return
        with contextlib.suppress(LinkClosed):
            link.send({"op": "quit"})
        process.join(QUIT_TIMEOUT)
        if process.is_alive():
            log.warning("popup process %s did not quit; killing it", process.pid)
            process.kill()
            process.join(QUIT_TIMEOUT)
        link.close()
        log.info("popup process %s ended (%s)", process.pid, process.exitcode)

    def _on_closed(self) -> None:
        with self._state_changed:
            self._state = {}
            self._state_changed.notify_all()
        self._changed()
        process = self._process
        if process is not None and not self._closing:
            process.join(1.0)  # reap it: no zombie
            log.info("popup process %s is gone (exit %s)", process.pid, process.exitcode)

    def _on_message(self, message: Message) -> None:
        op = message.get("op")
        if op == "state":
            was = (bool(self._state.get("visible")), bool(self._state.get("active")))
            with self._state_changed:
                self._state = {k: v for k, v in message.items() if k != "op"}
                self._state_changed.notify_all()
            was_visible = was[0]
            if was != (bool(message.get("visible")), bool(message.get("active"))):
                self._changed()
            size = message.get("size")
            if isinstance(size, list) and len(size) == 2 and message.get("visible"):
                self._remember_size((int(size[0]), int(size[1])))
            if was_visible and not message.get("visible"):
                self._schedule_unload()
            elif message.get("visible"):
                self._cancel_unload()
        elif op == "call":
            threading.Thread(
                target=self._answer_call, args=(message,), name="metona-bridge-call", daemon=True
            ).start()  # each call on its own thread, like pywebview's own bridge
        elif op == "focus_lost" and self._hide_on_focus_loss() and not self._hold_open():
            self.hide()

    def _changed(self) -> None:
        try:
            self.on_change()
        except Exception:
            log.exception("popup: on_change failed")

    def _answer_call(self, message: Message) -> None:
        link = self._link
        envelope = self._call(str(message.get("command")), message.get("payload"))
        if link is not None:
            link.answer(message, envelope)

    def _request(self, message: Message, timeout: float) -> Any:
        link = self._link
        if link is None or link.closed.is_set():
            raise RuntimeError("the popup is not running")
        reply = link.request(message, timeout)
        if not isinstance(reply, dict) or not reply.get("ok"):
            raise RuntimeError(str(reply.get("error") if isinstance(reply, dict) else reply))
        return reply.get("value")

    @staticmethod
    def _send(link: Link | None, message: Message) -> None:
        if link is None:
            return
        try:
            link.send(message)
        except LinkClosed:
            log.debug("popup gone; %s dropped", message.get("op"))

    # ---- unload after a while hidden ---------------------------------------------------------

    def _schedule_unload(self) -> None:
        after = float(self._unload_after())
        with self._lock:
            self._cancel_unload()
            if after <= 0 or self._closing:
                return
            timer = threading.Timer(after, lambda: self._unload_if_hidden(timer))
            timer.daemon = True
            timer.name = "metona-popup-unload"
            self._unload_timer = timer
            timer.start()

    def _cancel_unload(self) -> None:
        if self._unload_timer is not None:
            self._unload_timer.cancel()
            self._unload_timer = None

    def _unload_if_hidden(self, timer: threading.Timer) -> None:
        with self._lock:
            # A show that came while this timer fired cancelled it (its state report, visible,
            # may not be here yet): the timer is no longer the current one, so keep the popup.
            if self._unload_timer is not timer or self.visible or not self.running:
                return
            log.info("popup hidden for %.0f s: unloading it", float(self._unload_after()))
            self._unload_timer = None
            self._stop_child()

    # ---- size, kept across unloads and launches ----------------------------------------------

    def _load_size(self) -> tuple[int, int]:
        try:
            data = json.loads(self._state_file.read_text()) if self._state_file else {}
            width, height = (int(v) for v in data["size"])
            return max(360, min(width, 4000)), max(420, min(height, 4000))
        except (OSError, ValueError, KeyError, TypeError):
            return (460, 660)

    def _remember_size(self, size: tuple[int, int]) -> None:
        if size == self.size or self._state_file is None:
            return
        self.size = size
        try:
            self._state_file.write_text(json.dumps({"size": list(size)}))
        except OSError:
            log.debug("could not remember the popup size", exc_info=True)


def _box(anchor: Rect | None) -> list[int] | None:
    return [anchor.x, anchor.y, anchor.width, anchor.height] if anchor is not None else None
