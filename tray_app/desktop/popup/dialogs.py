"""The native file dialogs of the popup window: choose a folder, save a file.

They block the calling thread (a bridge call's), never the GUI thread. On GTK the save dialog
is built here rather than taken from pywebview: pywebview's replaces an existing file without
asking, GTK's own asks (in the desktop's language) first.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


def pick_folder(window: Any, start: str) -> str | None:
    """The folder the user chose, starting in ``start``; None when cancelled."""
    import webview

    result = window.create_file_dialog(webview.FileDialog.FOLDER, directory=start)
    return _first(result)


def save_file(window: Any, name: str, *, gtk: bool) -> str | None:
    """The path the user chose to save ``name`` to, starting in the home folder; None when
    cancelled."""
    if gtk:
        return _gtk_save(window, name)
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


def _gtk_save(window: Any, name: str) -> str | None:
    """GTK's save dialog with its "replace it?" confirmation, run on the GTK thread."""
    from gi.repository import GLib, Gtk

    done = threading.Event()
    chosen: list[str | None] = [None]

    def run() -> bool:
        try:
            dialog = Gtk.FileChooserDialog(
                title="Save file",
                transient_for=window.native,
                action=Gtk.FileChooserAction.SAVE,
            )
            dialog.add_buttons(
                Gtk.STOCK_CANCEL, Gtk.ResponseType.CANCEL, Gtk.STOCK_SAVE, Gtk.ResponseType.OK
            )
            dialog.set_default_response(Gtk.ResponseType.OK)
            dialog.set_do_overwrite_confirmation(True)
            dialog.set_current_folder(str(Path.home()))
            dialog.set_current_name(name)
            if dialog.run() == Gtk.ResponseType.OK:
                chosen[0] = dialog.get_filename()
            dialog.destroy()
        except Exception:
            log.exception("the save dialog failed")
        finally:
            done.set()
        return False

    GLib.idle_add(run)
    done.wait()
    return chosen[0]
