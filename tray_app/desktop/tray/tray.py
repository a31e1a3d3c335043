"""The tray icon (pystray) and its menu.

Backends: on Linux ``gtk`` (Gtk.StatusIcon, XEmbed trays such as trayer, XFCE, MATE: a click
is delivered, so a click toggles the popup) or ``appindicator`` when a StatusNotifierWatcher
runs (KDE, GNOME with the AppIndicator extension: a click opens the menu, whose first entry
opens the chat). Never ``xorg`` (no menus, lost clicks, ``stop()`` hangs: verified). Both
GTK backends share the GTK main loop that pywebview runs, through ``run_detached()``.
Windows (own thread) and macOS (``darwin_nsapplication``) follow docs/architecture.md §1, untested.

Menu callbacks run on the GUI thread, so anything that talks to the core goes to a one-thread
worker; the menu reads only ``self.state``, an immutable snapshot replaced by the ui pump.

The icon is built and shown before Core exists (start to icon ready is what a user waits for):
``attach`` hands Core over once it runs, and a menu action chosen before that waits for it on
the worker. Only pystray, Pillow and the icon drawing are imported first; Core's event classes
are imported when the first batch arrives.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from tray_app.desktop.popup.placement import Rect
from tray_app.desktop.tray.icons import tray_image, tray_title
from tray_app.desktop.tray.modes import MODES, Mode, mode_of, mode_patch
from tray_app.i18n import resolve_language, t

if TYPE_CHECKING:
    from tray_app.base.events import Event, UiActionName
    from tray_app.core.protocol import CoreApi

log = logging.getLogger(__name__)

CORE_WAIT = 60.0  # seconds a menu action chosen during start-up waits for Core


class TrayActions(Protocol):
    """What the menu asks of the rest of the app (``app.DesktopApp``)."""

    def toggle_from_tray(self) -> None: ...
    def show_popup(self) -> None: ...
    def ui_action(
        self, action: UiActionName, *, session_id: str | None = ..., call_id: str | None = ...
    ) -> None: ...
    def report(self, title: str, message: str) -> None: ...
    def quit(self) -> None: ...


@dataclass(frozen=True)
class TrayState:
    state: str = "idle"
    pending: int = 0
    models: tuple[str, ...] = ()
    model: str = ""
    tools_enabled: bool = True
    confirmation_mode: str = "all_writes"
    language: str = "en"  # the UI language the menu and tooltip speak


def _language(settings: dict[str, Any]) -> str:
    return resolve_language(str(settings.get("language") or "system"))


def linux_backend() -> str:
    """``appindicator`` under a StatusNotifierWatcher, else ``gtk``; never ``xorg``."""
    wanted = os.environ.get("PYSTRAY_BACKEND", "")
    if wanted and wanted != "xorg":
        return wanted
    if wanted == "xorg":
        log.warning("PYSTRAY_BACKEND=xorg is not supported (no menus, lost clicks); using gtk")
    from tray_app.desktop.checks import has_status_notifier_watcher

    return "appindicator" if has_status_notifier_watcher() else "gtk"


def reduce_state(state: TrayState, events: list[Event]) -> TrayState:
    """Fold a batch of core events into the tray's snapshot."""
    from tray_app.base.events import ModelsUpdated, SettingsUpdated, StateChanged

    for event in events:
        if isinstance(event, StateChanged):
            state = replace(state, state=event.state, pending=event.pending)
        elif isinstance(event, SettingsUpdated):
            settings = event.settings
            state = replace(
                state,
                model=str(settings.get("default_model", "")),
                tools_enabled=bool(settings.get("tools_enabled", True)),
                confirmation_mode=str(settings.get("confirmation_mode", "all_writes")),
                language=_language(settings),
            )
        elif isinstance(event, ModelsUpdated):
            state = replace(state, models=tuple(str(m.get("name", "")) for m in event.models))
    return state


class Tray:
    def __init__(
        self, actions: TrayActions, core: CoreApi | None = None, *, language: str = "en"
    ) -> None:
        self.backend = linux_backend() if sys.platform.startswith("linux") else sys.platform
        if sys.platform.startswith("linux"):
            os.environ["PYSTRAY_BACKEND"] = self.backend  # read by pystray at import
        import pystray

        self._pystray: Any = pystray
        self._core_ref: CoreApi | None = None
        self._core_ready = threading.Event()
        self._actions = actions
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="metona-tray-action")
        # Until Core runs, the language read cheaply from the settings file (``settings_language``).
        self.state = TrayState(language=language)
        if core is not None:
            self._take(core)
        self.icon: Any = pystray.Icon(
            "metona-tray",
            tray_image(),
            tray_title("idle", 0, self.state.language),
            menu=self._menu(),
        )
        self.ready = False

    # ---- Core, once it runs ------------------------------------------------------------------

    def _take(self, core: CoreApi) -> None:
        settings = core.get_settings()
        self.state = replace(
            self.state,
            model=str(settings.get("default_model", "")),
            tools_enabled=bool(settings.get("tools_enabled", True)),
            confirmation_mode=str(settings.get("confirmation_mode", "all_writes")),
            language=_language(settings),
        )
        self._core_ref = core
        self._core_ready.set()

    def attach(self, core: CoreApi) -> None:
        """Core is up (any thread): the menu's model and tool items become real."""
        self._take(core)
        self.icon.update_menu()
        self._worker.submit(self._refresh_models)

    @property
    def _core(self) -> CoreApi:
        """Core, waiting for it on the worker if an action was chosen while the app starts."""
        if not self._core_ready.wait(CORE_WAIT):
            raise RuntimeError("the app is still starting")
        assert self._core_ref is not None
        return self._core_ref

    # ---- life cycle ------------------------------------------------------------------------

    def start(self) -> None:
        """Before the GUI loop starts, on the main thread (``run_detached``). On
        macOS pystray's default NSApplication is ``sharedApplication()``, the one pywebview
        runs, so the icon shares its loop (untested here)."""

        def setup(icon: Any) -> None:
            icon.visible = True
            self._tooltip(icon.title)
            self.ready = True

        self.icon.run_detached(setup)
        if self._core_ready.is_set():
            self._worker.submit(self._refresh_models)

    def stop(self) -> None:
        try:
            self.icon.visible = False
            self.icon.stop()
        except Exception:
            log.exception("stopping the tray icon failed")
        self._worker.shutdown(wait=False, cancel_futures=True)

    def _tooltip(self, text: str) -> None:
        """pystray's GTK StatusIcon sets only a title; the hover text is the tooltip."""
        status_icon = getattr(self.icon, "_status_icon", None)
        if status_icon is not None:
            from gi.repository import GLib

            GLib.idle_add(lambda: status_icon.set_tooltip_text(text) and False)

    def anchor(self) -> Rect | None:
        """The icon's rectangle on screen where the backend knows it (GTK StatusIcon)."""
        status_icon = getattr(self.icon, "_status_icon", None)
        if status_icon is None:
            return None
        ok, _screen, area, _orientation = status_icon.get_geometry()
        if not ok or area.width <= 0:
            return None
        return Rect(area.x, area.y, area.width, area.height)

    # ---- state from the ui pump ------------------------------------------------------------

    def on_events(self, events: list[Event]) -> None:
        new = reduce_state(self.state, events)
        if new == self.state:
            return
        old, self.state = self.state, new
        if (old.state, old.pending, old.language) != (new.state, new.pending, new.language):
            self.icon.icon = tray_image(new.state, new.pending)
            self.icon.title = tray_title(new.state, new.pending, new.language)
            self._tooltip(self.icon.title)
        self.icon.update_menu()
        from tray_app.base.events import SettingsUpdated

        if any(isinstance(e, SettingsUpdated) for e in events) and not new.models:
            self._worker.submit(self._refresh_models)

    def _refresh_models(self) -> None:
        result = self._core.list_models()
        names = tuple(str(m.get("name", "")) for m in result.get("models", []))
        self.state = replace(self.state, models=names)
        self.icon.update_menu()

    # ---- the menu --------------------------------------------------------------------------

    def _t(self, key: str, **fields: Any) -> str:
        return t(f"tray.{key}", self.state.language, **fields)

    def _label(self, key: str) -> Callable[[Any], str]:
        """A menu label read when the menu is shown, so it follows a language change."""
        return lambda _item: self._t(key)

    def _later(self, fn: Callable[[], Any], what: str) -> None:
        """Run a menu action on the worker; ``what`` is the action's label key."""

        def run() -> None:
            try:
                fn()
            except Exception as exc:
                log.exception("tray: %s failed", what)
                from tray_app.desktop.tray.tray_failure import failure_detail

                why = failure_detail(exc, self.state.language)
                self._actions.report(self._t("failed", what=self._t(what)), why)

        self._worker.submit(run)

    def _new_chat(self) -> None:
        def run() -> None:
            session = self._core.new_session()
            self._actions.ui_action("open_session", session_id=session["id"])
            self._actions.show_popup()

        self._later(run, "new_chat")

    def _show_pending(self) -> None:
        def run() -> None:
            pending = self._core.pending_approvals()
            first = pending[0] if pending else {}
            self._actions.ui_action(
                "show_pending", call_id=first.get("call_id"), session_id=first.get("session_id")
            )
            self._actions.show_popup()

        self._later(run, "open_chat")

    def _choose_model(self, name: str) -> None:
        self._later(lambda: self._core.update_settings({"default_model": name}), "model")

    def _mode(self) -> Mode:
        state = {"tools_enabled": self.state.tools_enabled}
        return mode_of({**state, "confirmation_mode": self.state.confirmation_mode})

    def _choose_mode(self, mode: Mode) -> None:
        """A step to Auto is confirmed in the popup (it names the risk, as Settings does)."""
        if mode == self._mode():
            return
        if mode == "auto":
            self._actions.ui_action("confirm_auto")
            self._actions.show_popup()
            return
        current = {
            "tools_enabled": self.state.tools_enabled,
            "confirmation_mode": self.state.confirmation_mode,
        }
        patch = mode_patch(mode, current)
        self._later(lambda: self._core.update_settings(patch), "mode")

    def _mode_action(self, mode: Mode) -> Callable[[Any, Any], None]:
        def choose(_icon: Any, _item: Any) -> None:  # pystray wants exactly (icon, item)
            self._choose_mode(mode)

        return choose

    def _mode_items(self) -> Any:
        item = self._pystray.MenuItem
        for mode in MODES:
            yield item(
                self._label(f"mode_{mode}"),
                self._mode_action(mode),
                checked=lambda _it, m=mode: m == self._mode(),
                radio=True,
            )

    def _undo(self) -> None:
        def run() -> None:
            from tray_app.base.errors import NotFound, UndoFailed
            from tray_app.terminal_errors import coded_text

            try:
                result = self._core.undo_last()
            except (UndoFailed, NotFound) as exc:  # why, in the menu's language
                why = coded_text(exc, self.state.language)
                self._actions.report(self._t("nothing_undone"), why)
                return
            self._actions.report(self._t("change_undone"), str(result.get("path") or ""))

        self._later(run, "undo_last")

    def _settings(self) -> None:
        self._actions.ui_action("open_settings")
        self._actions.show_popup()

    def _model_action(self, name: str) -> Callable[[Any, Any], None]:
        def choose(_icon: Any, _item: Any) -> None:  # pystray wants exactly (icon, item)
            self._choose_model(name)

        return choose

    def _model_items(self) -> Any:
        item = self._pystray.MenuItem
        names = self.state.models or ((self.state.model,) if self.state.model else ())
        for name in names:
            yield item(
                name,
                self._model_action(name),
                checked=lambda _it, n=name: n == self.state.model,
                radio=True,
            )
        if not names:
            yield item(self._label("no_models"), None, enabled=False)
        yield self._pystray.Menu.SEPARATOR
        yield item(self._label("refresh_models"), lambda: self._worker.submit(self._refresh_models))

    def _menu(self) -> Any:
        item, menu = self._pystray.MenuItem, self._pystray.Menu
        return menu(
            item(
                self._label("toggle_chat"),
                lambda: self._actions.toggle_from_tray(),
                default=True,
                visible=False,
            ),
            item(self._label("open_chat"), lambda: self._actions.show_popup()),
            item(self._label("new_chat"), self._new_chat),
            item(
                lambda _it: self._t("pending", n=self.state.pending),
                self._show_pending,
                enabled=lambda _it: self.state.pending > 0,
            ),
            menu.SEPARATOR,
            item(self._label("model"), menu(self._model_items)),
            item(self._label("mode"), menu(self._mode_items)),
            item(self._label("undo_last"), self._undo),
            menu.SEPARATOR,
            item(self._label("settings"), self._settings),
            item(self._label("quit"), lambda: self._actions.quit()),
        )
