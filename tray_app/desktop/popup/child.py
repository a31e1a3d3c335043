"""The popup process: ``main`` is the ``multiprocessing`` (spawn) target.

It owns only the pywebview window and the guarded js_api; every bridge call goes over the link
to the tray process, where ``tray_app.desktop.popup.bridge.Bridge`` validates it and calls Core. It
runs no agent and opens no store. The GUI loop (``webview.start``) holds the main thread; the
link's reader thread takes the tray's orders:

========================  =======================================================
from the tray             ``show`` (anchor), ``hide``, ``events`` (items),
                          ``eval`` / ``pick_folder`` / ``save_file`` (requests), ``quit``
to the tray               ``state`` (visible, active, page_ready, counters),
                          ``call`` (a bridge command; request), ``focus_lost``
========================  =======================================================

When the link closes (the tray quit or died) the window is destroyed and the process ends, so
a popup never outlives its tray.
"""

from __future__ import annotations

import contextlib
import logging
import logging.handlers
import os
import signal
import sys
import threading
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from tray_app.desktop.popup.guard import new_secret, page_api, refused_calls
from tray_app.desktop.popup.link import Link, LinkClosed, Message
from tray_app.desktop.popup.placement import Rect

log = logging.getLogger(__name__)

CALL_TIMEOUT = 600.0  # a bridge call waits at most this long for the tray (pull_model is slow)


class PopupProcess:
    def __init__(self, conn: Connection, config: dict[str, Any]) -> None:
        self.config = config
        self.link = Link(
            conn, self._on_message, on_closed=self._on_link_closed, name="metona-popup-link"
        )
        self.window: Any = None
        self.api: object = None

    def run(self) -> int:
        linux = sys.platform.startswith("linux")
        if linux:
            os.environ.setdefault("WEBKIT_DISABLE_DMABUF_RENDERER", "1")
        import webview

        from tray_app.desktop.popup.webview_compat import allow_strict_csp
        from tray_app.desktop.popup.window import PopupWindow

        allow_strict_csp()
        secret = new_secret()
        self.api = page_api(self.config["commands"], self._forward, secret)
        size = self.config.get("size") or (460, 660)
        self.window = PopupWindow(
            self.config["url"],
            self.api,
            gtk=linux,
            secret=secret,
            size=(int(size[0]), int(size[1])),
            on_state=self._report_state,
            on_focus_lost=lambda: self._send({"op": "focus_lost"}),
        )
        self.link.start()
        webview.start(self._started, gui="gtk" if linux else None, private_mode=True)
        log.info("popup process: GUI loop ended")
        return 0

    def _started(self) -> None:
        if sys.platform == "darwin":  # untested: no Dock icon for the popup either
            try:
                from AppKit import NSApplication  # type: ignore[import-not-found]
                from PyObjCTools import AppHelper  # type: ignore[import-not-found]

                app = NSApplication.sharedApplication()
                AppHelper.callAfter(app.setActivationPolicy_, 1)
            except Exception:
                log.warning("could not hide the Dock icon", exc_info=True)
        self.window.deliverer.start()
        anchor = self.config.get("show")
        if anchor is not False:
            self.window.show(_rect(anchor))
        self._report_state()

    # ---- to the tray -----------------------------------------------------------------------

    def _send(self, message: Message) -> None:
        with contextlib.suppress(LinkClosed):
            self.link.send(message)

    def _report_state(self) -> None:
        state = self._state()
        if state is not None:
            self._send({"op": "state", **state})

    def _state(self) -> dict[str, Any] | None:
        window = self.window
        if window is None:
            return None
        return {
            "visible": window.visible,
            "active": window.active,
            "page_ready": window.page_ready,
            "size": list(window.size),
            "delivered": window.deliverer.delivered,
            "lost": window.deliverer.lost,
            "refused_navigations": [list(r) for r in window.refused_navigations],
            "refused_calls": refused_calls(self.api),
            "focus_losses": window.focus_losses,
        }

    def _forward(self, command: str, payload: Any) -> dict[str, Any]:
        """A bridge call from the page (its own pywebview thread): answered by the tray."""
        try:
            value = self.link.request(
                {"op": "call", "command": command, "payload": payload}, timeout=CALL_TIMEOUT
            )
        except (LinkClosed, TimeoutError) as exc:
            return {"ok": False, "code": "unavailable", "error": f"the app did not answer ({exc})"}
        return (
            value
            if isinstance(value, dict)
            else {"ok": False, "code": "internal", "error": "no answer"}
        )

    # ---- from the tray ---------------------------------------------------------------------

    def _on_message(self, message: Message) -> None:
        op = message.get("op")
        window = self.window
        if op == "events" and window is not None:
            window.deliverer.put(list(message.get("items") or []))
        elif op == "show" and window is not None:
            window.show(_rect(message.get("anchor")))
        elif op == "hide" and window is not None:
            window.hide()
        elif op in ("eval", "pick_folder", "save_file"):
            threading.Thread(
                target=self._answer, args=(message,), name=f"metona-popup-{op}", daemon=True
            ).start()  # both wait on the GUI thread: never on the reader
        elif op == "stats":
            self.link.answer(message, {"ok": True, "value": self._state()})
        elif op == "quit":
            self._quit()

    def _answer(self, message: Message) -> None:
        window = self.window
        value: Any = None
        try:
            if window is None:
                raise RuntimeError("the window is not there yet")
            if message["op"] == "eval":
                value = {"ok": True, "value": window.evaluate_js(str(message.get("script")))}
            elif message["op"] == "save_file":
                name = str(message.get("name") or "")
                language = str(message.get("language") or "en")
                value = {"ok": True, "value": window.save_file(name, language)}
            else:
                language = str(message.get("language") or "en")
                value = {"ok": True, "value": window.pick_folder(message.get("start"), language)}
        except Exception as exc:
            value = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
        self.link.answer(message, value)

    def _on_link_closed(self) -> None:
        log.info("popup process: the tray is gone; closing the window")
        self._quit()

    def _quit(self) -> None:
        window = self.window
        if window is None:
            os._exit(0)
        try:
            window.destroy()
        except Exception:
            log.exception("popup process: destroying the window failed")
            os._exit(1)


def _rect(value: Any) -> Rect | None:
    if isinstance(value, (list, tuple)) and len(value) == 4:
        return Rect(*(int(v) for v in value))
    return None


def _setup_logging(log_file: str | None) -> None:
    if not log_file:
        return
    path = Path(log_file)
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.handlers.RotatingFileHandler(
        path, maxBytes=2_000_000, backupCount=2, encoding="utf-8"
    )
    handler.setFormatter(
        logging.Formatter("%(asctime)s %(levelname)s %(name)s [popup %(threadName)s] %(message)s")
    )
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)


def main(conn: Connection, config: dict[str, Any]) -> None:
    """The child's entry point (picklable by name for the spawn start method)."""
    _setup_logging(config.get("log_file"))
    # Ctrl+C in a terminal reaches the whole process group: the tray decides when we end.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        code = PopupProcess(conn, config).run()
    except Exception:
        log.exception("popup process failed")
        code = 1
    logging.shutdown()
    os._exit(code)  # no atexit work of pywebview's threads: the tray already moved on
