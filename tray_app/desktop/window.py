"""The popup window (pywebview) and the ui pump that streams core events into its page.

The window is created hidden at start, so opening it later is instant and it keeps its state
while hidden. On GTK (verified) show/hide/placement are done on the GTK main thread with the
native ``Gtk.Window`` (scheduled with ``GLib.idle_add``): pywebview's own ``show()`` never
shows a window created ``hidden=True`` unless ``window.hidden`` is reset first, and it cannot
place the window at the pointer. Elsewhere (Windows, macOS: untested here) pywebview's
``move/show/hide`` are used, which those backends make safe from any thread.

Never call a pywebview method from the GUI thread or from the ``closing`` handler (it runs on
the GUI thread and pywebview would wait on it: deadlock, pywebview #1699).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from tray_app.core.bus import Subscription
from tray_app.desktop.placement import Rect, centred, pick_screen, place_popup
from tray_app.desktop.popup import navlock
from tray_app.desktop.popup.delivery import Deliverer
from tray_app.desktop.popup.guard import KeyCourier, same_page
from tray_app.desktop.popup.wire import item, js_ascii
from tray_app.desktop.webview_compat import eval_free, evaluate_json

log = logging.getLogger(__name__)

POPUP_SIZE = (460, 660)
MIN_SIZE = (360, 420)
BACKGROUND = "#f7f7fb"


class Popup:
    """Show/hide/toggle from any thread; ``visible``/``active`` for the notifier."""

    def __init__(
        self, url: str, js_api: object, *, gtk: bool, secret: str, title: str = "Metona Tray"
    ) -> None:
        import webview

        self.gtk = gtk
        self.refused_navigations: list[tuple[str, str]] = []
        navlock.install(self._allowed, self._refused)
        window = webview.create_window(
            title,
            url,
            js_api=js_api,
            width=POPUP_SIZE[0],
            height=POPUP_SIZE[1],
            min_size=MIN_SIZE,
            hidden=True,
            background_color=BACKGROUND,
            text_select=True,
        )
        if window is None:
            raise RuntimeError("pywebview did not create the popup window")
        self.window: Any = window
        eval_free(self.window)
        self.window.events.closing += self._on_closing
        self.window.events.shown += self._on_shown
        self.window.events.loaded += self._on_loaded
        self._courier = KeyCourier(secret, lambda: self.window.real_url)
        self._page_ready = False  # loaded, and bridge.js took the secret
        self.deliverer = Deliverer(self.run_js, lambda: self._page_ready)
        self._visible = False
        self._active = False
        self._allow_close = False
        self._show_when_ready: Rect | bool | None = False
        self._native_ready = threading.Event()
        self.tray_anchor: Callable[[], Rect | None] = lambda: None

    # ---- state -----------------------------------------------------------------------------

    @property
    def visible(self) -> bool:
        return self._visible

    @property
    def active(self) -> bool:
        """Visible and focused (GTK tracks focus; elsewhere visible counts as focused)."""
        return self._visible and (self._active or not self.gtk)

    def page_loaded(self) -> bool:
        return bool(self.window.events.loaded.is_set())

    def wait_loaded(self, timeout: float) -> bool:
        return bool(self.window.events.loaded.wait(timeout))

    # ---- the page ---------------------------------------------------------------------------

    def _allowed(self, url: str) -> bool:
        app_url = self.window.real_url
        return bool(app_url) and same_page(url, app_url)

    def _refused(self, url: str, kind: str) -> None:
        log.warning("navigation lock: refused %s to %r", kind, url[:300])
        self.refused_navigations.append((kind, url[:300]))

    def _current_url(self) -> str | None:
        """Asked of the engine on its own thread (pywebview's GTK ``get_current_url`` calls
        WebKit from the calling thread, which broke later navigation handling here)."""
        url = self.run_js("location.href")
        return url if isinstance(url, str) else None

    def _on_loaded(self) -> None:
        """A pywebview thread, after each page load: hand over the secret, then the events."""
        try:
            self._page_ready = False
            given = self._courier.deliver(self._current_url, self.run_js)
            log.info("page loaded; bridge secret %s", "handed over" if given else "withheld")
            self._page_ready = given
        except Exception:
            log.exception("could not hand the bridge secret to the page")
        self.deliverer.page_reloaded()

    # ---- set-up, on the GUI thread -----------------------------------------------------------

    def _on_shown(self) -> None:
        """pywebview fires ``shown`` once the native window exists (even when hidden)."""
        if self.gtk:
            from gi.repository import GLib

            GLib.idle_add(self._gtk_setup)
        else:
            self._native_ready.set()
            self._flush_pending_show()

    def _gtk_setup(self) -> bool:
        native = self.window.native
        native.set_skip_taskbar_hint(True)
        native.set_skip_pager_hint(True)
        native.connect("notify::is-active", lambda w, _p: setattr(self, "_active", w.is_active()))
        native.connect("hide", lambda _w: setattr(self, "_visible", False))
        native.connect("show", lambda _w: setattr(self, "_visible", True))
        self._native_ready.set()
        self._flush_pending_show()
        return False

    def _flush_pending_show(self) -> None:
        pending = self._show_when_ready
        self._show_when_ready = False
        if pending is not False:
            self.show(pending if isinstance(pending, Rect) else None)

    def _on_closing(self) -> bool:
        """The window's close button hides it; only Quit really closes it (GUI thread)."""
        if self._allow_close:
            return True
        if self.gtk:
            self.window.native.hide()  # a GTK call on the GTK thread, not a pywebview call
        else:
            threading.Thread(target=self.hide, name="metona-hide", daemon=True).start()
        self._visible = False
        return False

    # ---- commands, any thread --------------------------------------------------------------

    def show(self, anchor: Rect | None = None) -> None:
        if not self._native_ready.is_set():
            self._show_when_ready = anchor if anchor is not None else True
            return
        if self.gtk:
            from gi.repository import GLib

            GLib.idle_add(self._gtk_show, anchor)
            self._visible = True
            return
        self._generic_show(anchor)

    def hide(self) -> None:
        if not self._native_ready.is_set():
            self._show_when_ready = False
            return
        self._visible = False
        if self.gtk:
            from gi.repository import GLib

            GLib.idle_add(self._gtk_hide)
        else:
            self.window.hide()

    def toggle(self, anchor: Rect | None = None) -> None:
        if self._visible:
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

    def pick_folder(self, start: str | None = None) -> str | None:
        """The native folder dialog (blocks the calling thread, never the GUI thread);
        None when cancelled. Opens in ``start`` or the home folder."""
        import webview

        folder = start or str(Path.home())
        result = self.window.create_file_dialog(webview.FileDialog.FOLDER, directory=folder)
        if not result:
            return None
        return str(result[0] if isinstance(result, (list, tuple)) else result)

    def run_js(self, script: str) -> Any:
        """Only ASCII reaches the engine (pywebview's GTK backend cuts anything else)."""
        return self.window.run_js(js_ascii(script))

    def evaluate_js(self, expression: str) -> Any:
        """The JSON value of a JS expression (diagnostics and the e2e test hooks)."""
        return evaluate_json(self.window, js_ascii(expression))

    def destroy(self) -> None:
        self._allow_close = True
        self.window.destroy()

    # ---- placement -------------------------------------------------------------------------

    def _gtk_show(self, anchor: Rect | None) -> bool:
        from gi.repository import Gdk

        native = self.window.native
        position = None
        try:
            display = Gdk.Display.get_default()
            if anchor is None:
                _screen, px, py = display.get_default_seat().get_pointer().get_position()
                anchor = Rect(px, py, 1, 1)
            monitor = display.get_monitor_at_point(
                anchor.x + anchor.width // 2, anchor.y + anchor.height // 2
            )
            area = monitor.get_workarea()
            size = native.get_size()
            position = place_popup(size, anchor, Rect(area.x, area.y, area.width, area.height))
            native.move(*position)
        except Exception:
            log.warning("could not place the popup; GTK decides", exc_info=True)
        native.show_all()
        if position is not None:
            native.move(*position)  # again once mapped: the first re-map kept the old spot
        native.present()
        return False

    def _gtk_hide(self) -> bool:
        self.window.native.hide()
        return False

    def _generic_show(self, anchor: Rect | None) -> None:
        import webview

        try:
            screens = [Rect(s.x, s.y, s.width, s.height) for s in webview.screens]
            point = (anchor.x, anchor.y) if anchor else None
            area = pick_screen(screens, *point) if point else (screens[0] if screens else None)
            if area is not None:
                size = (self.window.width, self.window.height)
                if point is None:
                    x, y = centred(size, area)
                else:
                    x, y = place_popup(size, anchor or Rect(point[0], point[1], 1, 1), area)
                self.window.move(x, y)
        except Exception:
            log.debug("could not place the popup", exc_info=True)
        self.window.hidden = False  # pywebview keeps a window created hidden hidden otherwise
        self._visible = True
        self.window.show()


class _Wake(BaseModel):
    """Put on the pump's own queue to wake it (a post, or stop); never delivered."""


class UiPump:
    """Blocks on the core's events; each batch goes to the listeners (tray, notifier) and, as
    clean ASCII-safe JSON objects, to ``sink`` (the page's deliverer). Desktop-side UI
    requests (``post``) travel in the same batches, in order, as ``{"type": "ui_action"}``.
    No timer: with nothing happening the thread sleeps in ``Subscription.get``."""

    def __init__(
        self,
        subscription: Subscription,
        sink: Callable[[list[dict[str, Any]]], None],
        listeners: Sequence[Callable[[list[BaseModel]], None]] = (),
        *,
        gather: float = 0.02,
    ) -> None:
        self._sub = subscription
        self._sink = sink
        self._listeners = list(listeners)
        self._gather = gather
        self._posted: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="metona-ui-pump", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def post(self, action: str, **fields: Any) -> None:
        with self._lock:
            self._posted.append({"type": "ui_action", "action": action, **fields})
        self._sub.offer(_Wake())

    def stop(self, timeout: float = 1.0) -> None:
        self._stop.set()
        self._sub.offer(_Wake())
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout)
        self._sub.close()

    def _run(self) -> None:
        while not self._stop.is_set():
            first = self._sub.get()  # blocks; no wakeups while nothing happens
            if self._stop.is_set():
                return
            if first is not None and not isinstance(first, _Wake):
                self._stop.wait(self._gather)  # a streaming answer arrives in bursts
            try:
                self.pump_once([first] if first is not None else [])
            except Exception:
                log.exception("ui pump: a batch failed")

    def pump_once(self, first: list[BaseModel] | None = None) -> None:
        events = [e for e in (first or []) + self._sub.drain() if not isinstance(e, _Wake)]
        with self._lock:
            posted, self._posted = self._posted, []
        if events:
            for listener in self._listeners:
                try:
                    listener(events)
                except Exception:
                    log.exception("ui pump: listener failed")
        items = [item(e) for e in events] + [item(p) for p in posted]
        if items and not self._stop.is_set():
            self._sink(items)
