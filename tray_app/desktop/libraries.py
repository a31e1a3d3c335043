"""The GUI libraries the desktop app loads by name at run time, and whether they load here.

Kept in ``desktop/`` (the only package that may touch GUI toolkits) so that ``--self-test`` can
check a bundle is whole without the core importing a toolkit itself.
"""

from __future__ import annotations

import importlib

#: Modules per system; on Linux also the GObject typelibs (namespace, version).
DESKTOP_LIBRARIES = {
    "linux": ["webview", "webview.platforms.gtk", "desktop_notifier", "dbus_fast", "Xlib", "PIL"],
    "darwin": ["webview", "webview.platforms.cocoa", "desktop_notifier", "PIL"],
    "win32": ["webview", "webview.platforms.winforms", "desktop_notifier", "PIL"],
}
GI_LIBRARIES = [("Gtk", "3.0"), ("WebKit2", "4.1"), ("AyatanaAppIndicator3", "0.1")]


def load_failures(platform: str) -> tuple[int, list[str]]:
    """How many libraries were tried on ``platform``, and a line for each that did not load."""
    failed = []
    libraries = DESKTOP_LIBRARIES.get(platform, [])
    for name in libraries:
        try:
            importlib.import_module(name)
        except Exception as exc:
            failed.append(f"{name} ({type(exc).__name__}: {exc})")
    if platform != "linux":
        return len(libraries), failed
    try:
        import gi
    except ImportError as exc:
        return len(libraries) + len(GI_LIBRARIES), [*failed, f"gi ({exc})"]
    for namespace, version in GI_LIBRARIES:
        try:
            gi.require_version(namespace, version)
            importlib.import_module(f"gi.repository.{namespace}")
        except Exception as exc:
            failed.append(f"{namespace} {version} ({type(exc).__name__}: {exc})")
    return len(libraries) + len(GI_LIBRARIES), failed
