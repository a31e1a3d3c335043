"""The native file dialogs of the popup window: choose a folder, save a file.

They block the calling thread (a bridge call's), never the GUI thread. On GTK both are built
here rather than taken from pywebview: pywebview's save dialog replaces an existing file without
asking (GTK's own asks, in the desktop's language, first), and GTK restores the size a file
chooser last had (1096x775 by default), which runs off the bottom of a 1280x800 screen; here a
dialog is sized to fit the work area of the popup's monitor and named in the user's language.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tray_app.i18n import t

log = logging.getLogger(__name__)

#: The size a dialog asks for, and the share of the work area it may take at most.
PREFERRED = (900, 640)
WORK_AREA_SHARE = (0.9, 0.85)


def title(language: str, which: str) -> str:
    """A dialog's title in the app's language (``dialog.<which>``); the buttons are GTK's, in
    the desktop's."""
    return t(f"dialog.{which}", language)


def fitted_size(area_width: int, area_height: int) -> tuple[int, int]:
    """The dialog's size in a work area of this size: the preferred one, or less."""
    return (
        max(1, min(PREFERRED[0], int(area_width * WORK_AREA_SHARE[0]))),
        max(1, min(PREFERRED[1], int(area_height * WORK_AREA_SHARE[1]))),
    )


def pick_folder(window: Any, start: str, *, gtk: bool = False, language: str = "en") -> str | None:
    """The folder the user chose, starting in ``start``; None when cancelled."""
    if gtk:
        return _gtk_run(window, "folder", language, lambda d: d.set_current_folder(start))
    import webview

    result = window.create_file_dialog(webview.FileDialog.FOLDER, directory=start)
    return _first(result)


def save_file(window: Any, name: str, *, gtk: bool, language: str = "en") -> str | None:
    """The path the user chose to save ``name`` to, starting in the home folder; None when
    cancelled."""
    if gtk:

        def setup(dialog: Any) -> None:
            dialog.set_do_overwrite_confirmation(True)
            dialog.set_current_folder(str(Path.home()))
            dialog.set_current_name(name)

        return _gtk_run(window, "export", language, setup)
    import webview

    result = window.create_file_dialog(
        webview.FileDialog.SAVE, directory=str(Path.home()), save_filename=name
    )
    return _first(result)


def _first(result: Any) -> str | None:
    """pywebview answers with a path, a sequence of paths, or nothing."""
    if not result:
        return None
    return str(result[0] if isinstance(result, (list, tuple)) else result)


def build_gtk_dialog(parent: Any, which: str, language: str) -> Any:
    """A GTK file chooser (``export``: save, ``folder``: choose a folder) over ``parent``, that
    fits the work area of the parent's monitor once it is realised."""
    from gi.repository import GLib, Gtk

    save = which == "export"
    dialog = Gtk.FileChooserDialog(
        title=title(language, which),
        transient_for=parent,
        action=Gtk.FileChooserAction.SAVE if save else Gtk.FileChooserAction.SELECT_FOLDER,
    )
    dialog.add_buttons(
        Gtk.STOCK_CANCEL,
        Gtk.ResponseType.CANCEL,
        Gtk.STOCK_SAVE if save else Gtk.STOCK_OPEN,
        Gtk.ResponseType.OK,
    )
    dialog.set_default_response(Gtk.ResponseType.OK)
    # GTK sizes a file chooser itself (its remembered or font-based size) as it is shown:
    # fit it once that is done.
    dialog.connect_after("map", lambda d: GLib.idle_add(_fit, d, parent))
    return dialog


def _fit(dialog: Any, parent: Any) -> bool:
    """Resize and centre the dialog in its monitor's work area (an idle callback: False)."""
    from gi.repository import Gdk

    display = Gdk.Display.get_default()
    where = parent.get_window() if parent is not None else None
    monitor = (
        (display.get_monitor_at_window(where) if where is not None else None)
        or display.get_primary_monitor()
        or display.get_monitor(0)
    )
    if monitor is None:
        return False
    area = monitor.get_workarea()
    width, height = fitted_size(area.width, area.height)
    dialog.set_default_size(width, height)
    dialog.resize(width, height)
    dialog.move(area.x + (area.width - width) // 2, area.y + (area.height - height) // 2)
    return False


def _gtk_run(window: Any, which: str, language: str, setup: Callable[[Any], object]) -> str | None:
    """Run a file chooser on the GTK thread; the chosen path, or None."""
    from gi.repository import GLib, Gtk

    done = threading.Event()
    chosen: list[str | None] = [None]

    def run() -> bool:
        try:
            dialog = build_gtk_dialog(window.native, which, language)
            setup(dialog)
            if dialog.run() == Gtk.ResponseType.OK:
                chosen[0] = dialog.get_filename()
            dialog.destroy()
        except Exception:
            log.exception("the %s dialog failed", which)
        finally:
            done.set()
        return False

    GLib.idle_add(run)
    done.wait()
    return chosen[0]
