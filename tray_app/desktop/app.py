"""The desktop app: start order, threads, and shutdown (docs/architecture.md §1).

Two processes (docs/architecture.md §1): this one (the tray) owns the tray icon, the hotkey,
notifications, the instance socket and Core; the popup window runs in a child process that
``window.Popup`` starts when it is first shown and ends after it has been hidden a while.

Start order: the tray icon first (only pystray, Pillow and the icon drawing are imported), then
the GUI loop; ``metona-start`` then starts Core (the agent, tools, store: most of the start-up
time) and everything that talks to it, hands Core to the tray and sets ``started``. Requests
that need Core (the instance socket, the tray menu) wait for ``started``.

Threads here: main = the GLib loop (the GTK tray icon shares it through ``run_detached``),
core = Core's asyncio loop, ``metona-ui-pump`` = events to the popup, tray and notifier
(blocks on the bus), ``metona-popup`` = the link to the popup process, ``metona-hotkey`` = the
OS key grab, ``metona-notify`` = desktop-notifier's loop, ``metona-instance`` = second
launches. Quit (tray menu, SIGTERM/SIGINT, the instance socket) runs ``_shutdown`` on its own
thread: it ends the popup process, stops everything and ends the main loop last; a watchdog
ends the process if anything still hangs after ``QUIT_DEADLINE`` seconds.

Test hooks: with ``METONA_TEST_HOOKS=1`` the instance socket (key-authenticated, user-only)
also answers ``state``, ``core`` (a whitelisted Core command), ``eval_js`` (evaluated in the
popup's page, in the popup process) and ``unload_popup`` (``test_hooks.py``); tests/e2e uses
them to drive and observe the app. Without that variable they do not exist.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import webbrowser
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tray_app.base.paths import AppPaths
from tray_app.desktop import autostart
from tray_app.desktop.instance import test_hooks
from tray_app.desktop.instance.instance import SingleInstance, forward
from tray_app.desktop.main_loop import MainLoop
from tray_app.web_files import web_root

if TYPE_CHECKING:
    from tray_app.base.events import UiActionName
    from tray_app.core.bootstrap import RunningApp
    from tray_app.core.service import Core
    from tray_app.desktop.instance.instance_dispatch import InstanceCommands

log = logging.getLogger(__name__)

QUIT_DEADLINE = 4.0
START_WAIT = 60.0  # seconds a request that needs Core waits for the start-up (the tray's)
TEST_HOOKS_ENV = "METONA_TEST_HOOKS"


class DesktopApp:
    def __init__(self, paths: AppPaths, instance: SingleInstance, *, show_at_start: bool) -> None:
        self.paths = paths
        self.instance = instance
        self.show_at_start = show_at_start
        self.quitting = threading.Event()
        self.main_loop = MainLoop(self.quitting, QUIT_DEADLINE)
        self.test_hooks = os.environ.get(TEST_HOOKS_ENV) == "1"
        self.started = threading.Event()  # Core and everything that talks to it exist
        self._building = threading.Lock()  # held while they are built; quit waits for it
        self.exit_code = 0
        self.running: RunningApp | None = None
        self.core: Core

    # ---- start -----------------------------------------------------------------------------

    def run(self) -> int:
        try:
            return self._run()
        except BaseException:
            if not self.quitting.is_set() and self.running is not None:
                self.running.close(1.0)  # failed before the GUI loop: stop the core anyway
            raise

    def _run(self) -> int:
        from tray_app.desktop.tray.tray import Tray
        from tray_app.i18n import settings_language

        # The icon first; Core comes after it is up. The menu speaks the settings' language now.
        self.tray = Tray(self, language=settings_language(self.paths.settings_file))
        commands = self._instance_commands()
        self.instance.serve(commands.handle, conversations=commands.conversations())
        self.tray.start()
        self.main_loop.on_signals(self.quit)  # after pystray, which resets SIGINT
        log.info("desktop app starting (tray backend %s)", self.tray.backend)
        threading.Thread(target=self._start, name="metona-start", daemon=True).start()
        self.main_loop.run()
        # The main loop has ended: Quit ran.
        if not self.quitting.is_set():
            self._shutdown(end_loop=False)
        log.info("desktop app stopped")
        return self.exit_code

    def _start(self) -> None:
        """On ``metona-start``, right after the icon: Core, then what needs it."""
        try:
            with self._building:
                if self.quitting.is_set():
                    return
                self._build()
        except Exception:
            log.exception("the app could not start")
            self.exit_code = 1
            self.quit()
            return
        self._after_tray_started()

    def _build(self) -> None:
        from tray_app.core.bootstrap import start_app
        from tray_app.desktop.hotkey.hotkey import HotkeyManager
        from tray_app.desktop.notify.notify import Notifier
        from tray_app.desktop.popup.bridge import Bridge, bridge_commands
        from tray_app.desktop.popup.popup import Popup
        from tray_app.desktop.ui_pump import UiPump

        self.running = start_app(self.paths)  # the core thread, chat store, audit log
        self.core = self.running.core
        self._start_at_login = self.core.settings.start_at_login
        self._hotkey_text = self.core.settings.hotkey
        bridge = Bridge(
            self.core,
            hide_window=lambda: self.popup.hide(),
            pick_folder=lambda: self.popup.pick_folder(language=self._dialog_language()),
            save_file=lambda name: self.popup.save_file(name, self._dialog_language()),
            open_url=webbrowser.open,
            hotkey_support=lambda: self.hotkeys.status(),
        )
        index = web_root() / "index.html"
        # A local path: the popup's pywebview serves web/ on 127.0.0.1 (a random port), so the
        # page has an http origin for its CSP and fetch(); file:// would refuse its locales.
        self.popup = Popup(
            str(index),
            commands=bridge_commands(),
            call=lambda command, payload: getattr(bridge, command)(payload),
            unload_after=lambda: self.core.settings.popup_unload_after_s,
            hide_on_focus_loss=lambda: self.core.settings.hide_on_focus_loss,
            hold_open=lambda: self.tray.state.pending > 0,
            state_file=self.paths.config_dir / "popup.json",
            log_file=self.paths.log_dir / "popup.log",
        )
        self.popup.tray_anchor = self.tray.anchor
        self.notifier = Notifier(
            self.core, self.popup, open_popup=self._open_at, icon=self._icon_file(),
            language=self.core.settings.language,
        )  # fmt: skip
        self.popup.on_change = self.notifier.popup_changed
        self.pump = UiPump(
            self.core.bus.subscribe(), self.popup.deliver,
            [self.tray.on_events, self.notifier.on_events, self._on_events],
        )  # fmt: skip
        self.hotkeys = HotkeyManager(self.popup.toggle)
        self.tray.attach(self.core)
        self.started.set()
        log.info("core started (page %s)", index)

    def _dialog_language(self) -> str:
        """The app's language for the file dialogs' titles ("system" resolved)."""
        from tray_app.i18n import resolve_language

        return resolve_language(self.core.settings.language)

    def _icon_file(self) -> Path | None:
        """The app icon as a file, for notifications (drawn, like the tray icon)."""
        from tray_app.desktop.tray.icons import tray_image

        path = self.paths.cache_dir / "metona-tray.png"
        try:
            tray_image("idle", size=128).save(path)
        except OSError:
            return None
        return path

    def _after_tray_started(self) -> None:
        """Everything that need not delay the tray icon."""
        if self.quitting.is_set():
            return
        self.pump.start()
        self.notifier.start()
        self.hotkeys.apply(self._hotkey_text)
        self._apply_autostart(self._start_at_login, at_start=True)
        if self.show_at_start:
            self.popup.show()

    # ---- what the tray and the notifier ask (tray.TrayActions) -----------------------------

    def _when_started(self, fn: Callable[[], Any], what: str) -> None:
        """Run now if Core is up, else once it is (on a thread: callers may be the GUI)."""
        if self.started.is_set():
            fn()
            return

        def later() -> None:
            if self.started.wait(START_WAIT) and not self.quitting.is_set():
                fn()
            else:
                log.warning("%s dropped: the app did not start", what)

        threading.Thread(target=later, name="metona-wait-start", daemon=True).start()

    def toggle_from_tray(self) -> None:
        if self.started.is_set():
            self.popup.toggle_from_tray()
        else:  # clicked while starting: the popup opens once Core is up
            self._when_started(lambda: self.popup.show(), "tray click")

    def show_popup(self) -> None:
        self._when_started(lambda: self.popup.show(), "show")

    def ui_action(
        self, action: UiActionName, *, session_id: str | None = None, call_id: str | None = None
    ) -> None:
        from tray_app.base.events import UiAction  # pydantic is not imported before the icon shows

        request = UiAction(action=action, session_id=session_id, call_id=call_id)
        self._when_started(lambda: self.pump.post(request), action)

    def report(self, title: str, message: str) -> None:
        self._when_started(lambda: self.notifier.info(title, message), "report")

    def _open_at(self, session_id: str | None, call_id: str | None) -> None:
        if call_id:
            self.ui_action("show_pending", call_id=call_id, session_id=session_id)
        elif session_id:
            self.ui_action("open_session", session_id=session_id)
        self.popup.show()

    # ---- settings that the desktop applies -------------------------------------------------

    def _on_events(self, events: list[Any]) -> None:
        from tray_app.base.events import SettingsUpdated

        for event in events:
            if not isinstance(event, SettingsUpdated):
                continue
            hotkey = str(event.settings.get("hotkey", ""))
            if hotkey != self._hotkey_text:
                self._hotkey_text = hotkey
                threading.Thread(
                    target=self.hotkeys.apply, args=(hotkey,), name="metona-hotkey-apply",
                    daemon=True,
                ).start()  # fmt: skip
            login = bool(event.settings.get("start_at_login", False))
            if login != self._start_at_login:
                self._start_at_login = login
                self._apply_autostart(login, at_start=False)

    def _apply_autostart(self, enabled: bool, *, at_start: bool) -> None:
        """Write/remove the login entry on change; at start only refresh an enabled one
        (never delete an entry another install of the app wrote)."""
        if at_start and not enabled:
            return
        try:
            where = autostart.set_enabled(enabled)
            log.info("start at login %s: %s", "on" if enabled else "off", where)
        except OSError as exc:
            log.warning("could not change start at login: %s", exc)
            self.report("Start at login", f"could not be changed: {exc}")

    # ---- the instance socket ---------------------------------------------------------------

    def _instance_commands(self) -> InstanceCommands:
        """The socket's answers (``instance_dispatch.py``; the headless tests use the same)."""
        from tray_app.desktop.instance.instance_dispatch import InstanceCommands

        hooks = self.test_hooks
        return InstanceCommands(
            core=lambda: self.core,
            quit=self.quit,
            quitting=self.quitting,
            started=self.started,
            window=lambda command: getattr(self.popup, command)(),
            hotkey_status=lambda: self.hotkeys.status(),
            early=(
                (lambda r: test_hooks.early_state(self) if r["command"] == "state" else None)
                if hooks
                else None
            ),
            more=(lambda command, r: test_hooks.answer(self, command, r)) if hooks else None,
        )

    # ---- quit ------------------------------------------------------------------------------

    def quit(self) -> None:
        """From any thread, idempotent; the work happens on ``metona-quit``."""
        if self.quitting.is_set():
            return
        self.quitting.set()
        threading.Thread(target=self._shutdown, name="metona-quit", daemon=True).start()

    def _shutdown(self, end_loop: bool = True) -> None:
        self.quitting.set()
        watchdog = threading.Timer(QUIT_DEADLINE, self._force_exit)
        watchdog.daemon = True
        watchdog.start()
        started = time.monotonic()
        # Core may be being built: let that finish (the watchdog covers a hang), then stop
        # only what exists.
        built = self._building.acquire(timeout=QUIT_DEADLINE - 1.0)
        if not self.started.is_set():
            steps: list[tuple[str, Callable[[], Any]]] = [
                ("instance socket", self.instance.stop),
                ("tray", self.tray.stop),
            ]
            if self.running is not None:
                running = self.running
                steps.append(("core", lambda: running.close(1.5)))
        else:
            steps = [
                ("hotkey", self.hotkeys.stop),
                ("instance socket", self.instance.stop),
                ("ui pump", self.pump.stop),
                ("popup", self.popup.destroy),
                ("notifications", self.notifier.stop),
                ("tray", self.tray.stop),
                ("core", lambda: self.running.close(1.5) if self.running else None),
            ]
        if end_loop:
            steps.append(("main loop", self.main_loop.end))
        for name, step in steps:
            began = time.monotonic()
            try:
                step()
            except Exception:
                log.exception("quit: stopping the %s failed", name)
            log.debug("quit: %s stopped in %.3f s", name, time.monotonic() - began)
        if built:
            self._building.release()
        log.info("quit: stopped in %.2f s", time.monotonic() - started)
        if not end_loop:
            watchdog.cancel()

    @staticmethod
    def _force_exit() -> None:
        log.error("quit took longer than %.0f s; ending the process", QUIT_DEADLINE)
        logging.shutdown()
        os._exit(0)


def main(toggle: bool = False) -> int:
    from tray_app.base.logs import setup_logging

    paths = AppPaths.from_env()
    paths.ensure()
    setup_logging(paths)
    instance = SingleInstance(paths.runtime_dir)
    if not instance.acquire():
        return forward(instance, "toggle" if toggle else "show")
    try:
        return DesktopApp(paths, instance, show_at_start=toggle).run()
    finally:
        instance.release()
