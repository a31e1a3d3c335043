"""The tray's GUI loop on the main thread, and the signals that end it.

Linux: a GLib loop, which the GTK tray icon (``run_detached``) and the notifications share.
macOS (untested): NSApp's loop, which pystray's status item needs, as an accessory app (no Dock
icon). Windows (untested): pystray runs in its own thread, so the main thread only waits.
Imports only the standard library at module level: it is loaded before the tray icon shows.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable
from typing import Any

LINUX = sys.platform.startswith("linux")


class MainLoop:
    """``run`` blocks the main thread until ``end`` (any thread) or, on Windows, quit."""

    def __init__(self, quitting: threading.Event, deadline: float) -> None:
        self._quitting = quitting
        self._deadline = deadline  # Windows: how long quit may take before run returns anyway
        self._stopped = threading.Event()
        self._loop: Any = None

    def run(self) -> None:
        if LINUX:
            from gi.repository import GLib

            self._loop = GLib.MainLoop()
            self._loop.run()
        elif sys.platform == "darwin":  # pragma: no cover - not run here
            from AppKit import NSApplication  # type: ignore[import-not-found]
            from PyObjCTools import AppHelper  # type: ignore[import-not-found]

            NSApplication.sharedApplication().setActivationPolicy_(1)
            AppHelper.runEventLoop(installInterrupt=False)
        else:
            self._quitting.wait()
            self._stopped.wait(self._deadline)

    def end(self) -> None:
        if LINUX:
            from gi.repository import GLib

            GLib.idle_add(self._loop.quit)
        elif sys.platform == "darwin":  # pragma: no cover - not run here
            from PyObjCTools import AppHelper

            AppHelper.callAfter(AppHelper.stopEventLoop)
        self._stopped.set()

    @staticmethod
    def on_signals(handler: Callable[[], None]) -> None:
        """SIGTERM and SIGINT call ``handler``; on Linux through the GLib loop, so the handler
        runs at once even while the loop sleeps. Install after pystray (it resets SIGINT)."""
        if LINUX:
            from gi.repository import GLib

            def on_signal() -> bool:
                handler()
                return True  # keep the source

            for sig in (signal.SIGTERM, signal.SIGINT):
                GLib.unix_signal_add(GLib.PRIORITY_HIGH, sig, on_signal)
            return
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: handler())
