"""The pywebview window, inside the popup process.

Frameless (the page draws its own header; its empty area has the class
``pywebview-drag-region``, pywebview's drag handle, with ``easy_drag`` off so the rest of the
page selects text as usual), always on top, not in the taskbar or pager. Placed next to the
tray icon when the tray knows its rectangle, else centred on the monitor under the pointer,
always inside that monitor's work area; the same place every time for the same anchor.

On GTK (verified) show/hide/placement run on the GTK thread with the native ``Gtk.Window``
(``GLib.idle_add``): pywebview's ``show()`` never shows a window created hidden unless
``window.hidden`` is reset, and it cannot place the window. Never call a pywebview method from
the GUI thread or from ``closing`` (deadlock, pywebview #1699). Windows and macOS use
pywebview's own ``move/show/hide`` (untested here).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tray_app.desktop.popup import dialogs, navlock
from tray_app.desktop.popup.delivery import Deliverer
from tray_app.desktop.popup.guard import KeyCourier, same_page
from tray_app.desktop.popup.placement import Rect, centred, pick_screen, place_popup
from tray_app.desktop.popup.webview_compat import eval_free, evaluate_json
from tray_app.desktop.popup.wire import js_ascii

log = logging.getLogger(__name__)

POPUP_SIZE = (460, 660)
MIN_SIZE = (360, 420)
BACKGROUND = "#f7f7fb"
DRAG_REGION = "pywebview-drag-region"
FOCUS_SETTLE_MS = 300
BOOTED = (
    "(function () { var a = document.getElementById('app');"
    " return !!(a && a.dataset.ready === 'true'); })()"
)  # the class the page's header uses to move the window


def present_now(native: Any) -> None:
    """Raise and focus the window with the X server's time as the user's action: a plain
    ``present()`` has no timestamp, which a window manager may take for focus stealing."""
    try:
        import gi

        gi.require_version("GdkX11", "3.0")
        from gi.repository import GdkX11

        gdk_window = native.get_window()
        if isinstance(gdk_window, GdkX11.X11Window):
            native.present_with_time(GdkX11.x11_get_server_time(gdk_window))
            return
    except (ImportError, ValueError):
        pass
    native.present()


class PopupWindow:
    """Show/hide from any thread; reports state changes through ``on_state``."""

    def __init__(
        self,
        url: str,
        js_api: object,
        *,
        gtk: bool,
        secret: str,
        size: tuple[int, int] = POPUP_SIZE,
        on_state: Callable[[], None] = lambda: None,
        on_focus_lost: Callable[[], None] = lambda: None,
        title: str = "Metona",
    ) -> None:
        import webview

        self.gtk = gtk
        self.refused_navigations: list[tuple[str, str]] = []
        navlock.install(self._allowed, self._refused)
        width = max(MIN_SIZE[0], int(size[0]))
        height = max(MIN_SIZE[1], int(size[1]))
        window = webview.create_window(
            title,
            url,
            js_api=js_api,
            width=width,
            height=height,
            min_size=MIN_SIZE,
            hidden=True,
            frameless=True,
            easy_drag=False,
            on_top=True,
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
        self._on_state = on_state
        self._on_focus_lost = on_focus_lost
        self._visible = False
        self._active = False
        self._allow_close = False
        self._show_when_ready: Rect | bool | None = False
        self._native_ready = threading.Event()
        self._ready_lock = threading.Lock()
        self._page_ready = False  # loaded, and bridge.js took the secret
        self.dialog_open = False
        self.focus_losses = 0  # reported to the tray (tests)
        self._shows = 0  # GTK "show" signals so far
        self.size = (width, height)
        self._courier = KeyCourier(secret, lambda: self.window.real_url)
        self.deliverer = Deliverer(self.run_js, lambda: self._page_ready)

    # ---- state -----------------------------------------------------------------------------

    @property
    def visible(self) -> bool:
        return self._visible

    @property
    def active(self) -> bool:
        """Visible and focused (GTK tracks focus; elsewhere visible counts as focused)."""
        return self._visible and (self._active or not self.gtk)

    @property
    def page_ready(self) -> bool:
        return self._page_ready

    def _set(self, *, visible: bool | None = None, active: bool | None = None) -> None:
        changed = False
        if visible is not None and visible != self._visible:
            self._visible, changed = visible, True
        if active is not None and active != self._active:
            self._active, changed = active, True
        if changed:
            self._on_state()

    # ---- the page ---------------------------------------------------------------------------

    def _allowed(self, url: str) -> bool:
        app_url = self.window.real_url
        return bool(app_url) and same_page(url, app_url)

    def _refused(self, url: str, kind: str) -> None:
        log.warning("navigation lock: refused %s to %r", kind, url[:300])
        self.refused_navigations.append((kind, url[:300]))
        self._on_state()

    def _current_url(self) -> str | None:
        """Asked of the page on the engine's thread (pywebview's GTK ``get_current_url`` calls
        WebKit from the calling thread, which broke later navigation handling here)."""
        url = self.run_js("location.href")
        return url if isinstance(url, str) else None

    def _on_loaded(self) -> None:
        """A pywebview thread, after each page load: hand over the secret, then the events."""
        self._page_ready = False
        try:
            given = self._courier.deliver(self._current_url, self.run_js)
            log.info("page loaded; bridge secret %s", "handed over" if given else "withheld")
            if given:
                self._wait_booted()
            self._page_ready = given
        except Exception:
            log.exception("could not hand the bridge secret to the page")
        self.deliverer.page_reloaded()
        self._on_state()

    def _wait_booted(self, timeout: float = 20.0) -> None:
        """Events wait until the page has read its snapshots (``#app[data-ready]``): a tray
        request such as "open this chat" must not be overtaken by the page's own start."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.run_js(BOOTED) is True:
                return
            time.sleep(0.05)
        log.warning("the page did not finish booting in %.0f s", timeout)

    def run_js(self, script: str) -> Any:
        """Only ASCII reaches the engine (pywebview's GTK backend cuts anything else)."""
        return self.window.run_js(js_ascii(script))

    def evaluate_js(self, expression: str) -> Any:
        """The JSON value of a JS expression (diagnostics and the e2e test hooks)."""
        return evaluate_json(self.window, js_ascii(expression))

    # ---- set-up, on the GUI thread -----------------------------------------------------------

    def _on_shown(self) -> None:
        """pywebview fires ``shown`` once the native window exists (even when hidden)."""
        if self.gtk:
            from gi.repository import GLib

            GLib.idle_add(self._gtk_setup)
        else:
            self._mark_ready()

    def _gtk_setup(self) -> bool:
        log.info("native window ready")
        native = self.window.native
        native.set_skip_taskbar_hint(True)
        native.set_skip_pager_hint(True)
        native.set_keep_above(True)
        native.connect("notify::is-active", self._gtk_active_changed)
        native.connect("hide", lambda _w: self._set(visible=False, active=False))
        native.connect("show", self._gtk_shown)
        native.connect("configure-event", self._gtk_configured)
        self._mark_ready()
        return False

    def _gtk_shown(self, _native: Any) -> None:
        self._shows += 1  # a focus loss from before this show no longer counts
        self._set(visible=True)

    def _gtk_active_changed(self, native: Any, _param: Any) -> None:
        active = bool(native.is_active())
        was = self._active
        self._set(active=active)
        if was and not active:
            from gi.repository import GLib

            # Focus flickers while a window maps (and without a window manager): only a loss
            # that lasts counts.
            GLib.timeout_add(FOCUS_SETTLE_MS, self._gtk_focus_settled, self._shows)

    def _gtk_focus_settled(self, shows: int) -> bool:
        """The loss lasted: hide, unless the window was hidden and shown again meanwhile (the
        hotkey hides it, which is a loss too; a press right after must not be undone)."""
        if shows == self._shows and self._visible and not self._active and not self.dialog_open:
            self.focus_losses += 1
            self._on_focus_lost()
        return False

    def _gtk_configured(self, native: Any, _event: Any) -> bool:
        if self._visible:
            width, height = native.get_size()
            self.size = (int(width), int(height))
        return False

    def _mark_ready(self) -> None:
        with self._ready_lock:
            self._native_ready.set()
            pending, self._show_when_ready = self._show_when_ready, False
        if pending is not False:
            self.show(pending if isinstance(pending, Rect) else None)

    def _on_closing(self) -> bool:
        """A close request hides the window; only Quit really closes it (GUI thread)."""
        if self._allow_close:
            return True
        if self.gtk:
            self.window.native.hide()  # a GTK call on the GTK thread, not a pywebview call
        else:
            threading.Thread(target=self.hide, name="metona-hide", daemon=True).start()
        self._set(visible=False)
        return False

    # ---- commands, any thread --------------------------------------------------------------

    def show(self, anchor: Rect | None = None) -> None:
        with self._ready_lock:
            if not self._native_ready.is_set():
                self._show_when_ready = anchor if anchor is not None else True
                return
        if self.gtk:
            from gi.repository import GLib

            # pywebview hides a window created hidden once more at the end of its own set-up,
            # which can come after this when the popup is shown as its process starts.
            self.window.hidden = False
            GLib.idle_add(self._gtk_show, anchor)
            return
        self._generic_show(anchor)

    def hide(self) -> None:
        with self._ready_lock:
            if not self._native_ready.is_set():
                self._show_when_ready = False
                return
        if self.gtk:
            from gi.repository import GLib

            GLib.idle_add(self._gtk_hide)
        else:
            self.window.hide()
            self._set(visible=False, active=False)

    def pick_folder(self, start: str | None = None, language: str = "en") -> str | None:
        """The native folder dialog (blocks the calling thread, never the GUI thread); None
        when cancelled. The popup does not hide on focus loss while it is open."""
        self.dialog_open = True
        try:
            return dialogs.pick_folder(
                self.window, start or str(Path.home()), gtk=self.gtk, language=language
            )
        finally:
            self.dialog_open = False
            self._take_focus_back()

    def save_file(self, name: str, language: str = "en") -> str | None:
        """The native save dialog in the user's home folder suggesting ``name`` (blocks the
        calling thread); None when cancelled. Like ``pick_folder``, the popup stays open."""
        self.dialog_open = True
        try:
            return dialogs.save_file(self.window, name, gtk=self.gtk, language=language)
        finally:
            self.dialog_open = False
            self._take_focus_back()

    def _take_focus_back(self) -> None:
        """A native dialog closed (chosen or cancelled): the window manager may leave the
        keyboard nowhere (openbox did: the popup visible, Esc and typing lost until a click)."""
        if self.gtk:
            from gi.repository import GLib

            GLib.idle_add(self._gtk_take_focus)

    def destroy(self) -> None:
        self._allow_close = True
        self.deliverer.stop()
        self.window.destroy()

    # ---- placement -------------------------------------------------------------------------

    def _gtk_show(self, anchor: Rect | None) -> bool:
        from gi.repository import Gdk

        native = self.window.native
        position = None
        try:
            display = Gdk.Display.get_default()
            if anchor is None:  # no icon rectangle: centre on the monitor under the pointer
                _screen, px, py = display.get_default_seat().get_pointer().get_position()
                monitor = display.get_monitor_at_point(px, py)
            else:
                monitor = display.get_monitor_at_point(
                    anchor.x + anchor.width // 2, anchor.y + anchor.height // 2
                )
            work = monitor.get_workarea()
            area = Rect(work.x, work.y, work.width, work.height)
            width, height = native.get_size()
            fitted = (min(width, area.width - 16), min(height, area.height - 16))
            if fitted != (width, height):
                native.resize(*fitted)  # an 800 px screen: the bottom stays on it
            if anchor is None:
                position = centred(fitted, area)
            else:
                position = place_popup(fitted, anchor, area)
            native.move(*position)
        except Exception:
            log.warning("could not place the popup; GTK decides", exc_info=True)
        native.show_all()
        if position is not None:
            native.move(*position)  # again once mapped: the first re-map kept the old spot
        present_now(native)
        self._set(visible=True)
        return False

    def _gtk_take_focus(self) -> bool:
        native = self.window.native
        if native.get_visible():
            present_now(native)
        return False

    def _gtk_hide(self) -> bool:
        self.window.native.hide()
        self._set(visible=False, active=False)
        return False

    def _generic_show(self, anchor: Rect | None) -> None:
        import webview

        try:
            screens = [Rect(s.x, s.y, s.width, s.height) for s in webview.screens]
            point = (anchor.x, anchor.y) if anchor else None
            area = pick_screen(screens, *point) if point else (screens[0] if screens else None)
            if area is not None:
                size = (self.window.width, self.window.height)
                if anchor is None:
                    x, y = centred(size, area)
                else:
                    x, y = place_popup(size, anchor, area)
                self.window.move(x, y)
        except Exception:
            log.debug("could not place the popup", exc_info=True)
        self.window.hidden = False  # pywebview keeps a window created hidden hidden otherwise
        self.window.show()
        self._set(visible=True)
