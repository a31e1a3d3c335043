"""``metona-tray doctor``'s desktop section: what the tray app can use on this machine.

Each check is short, bounded by timeouts, and never needs the app to be running: GUI backend
(WebKitGTK on Linux), display kind, tray support (StatusNotifierWatcher or an XEmbed tray,
with the GNOME AppIndicator hint), notification server and whether it has action buttons,
global hotkey support (X11 / Wayland / macOS) and whether the configured combination is free
or taken by another app, start at login and a running instance. Values are short sentences;
the doctor prints them as they are.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

from tray_app.desktop import autostart
from tray_app.desktop.hotkey.hotkey import session_kind, support
from tray_app.desktop.hotkey.keys import HotkeyError, HotkeyTaken, parse_hotkey
from tray_app.os_reasons import os_error_text

SNI_WATCHER = "org.kde.StatusNotifierWatcher"
GNOME_HINT = (
    "GNOME shows tray icons only with the 'AppIndicator and KStatusNotifierItem Support' "
    "extension (Debian/Ubuntu: gnome-shell-extension-appindicator); enable it and log in again."
)


def _session_bus() -> Any:
    if sys.platform in ("win32", "darwin") or not os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
        return None
    try:
        import gi

        gi.require_version("Gio", "2.0")
        from gi.repository import Gio

        return Gio.bus_get_sync(Gio.BusType.SESSION, None)
    except Exception:
        return None


def _dbus_call(
    bus: Any, name: str, path: str, iface: str, method: str, args: Any = None, sig: str = ""
) -> Any:
    from gi.repository import Gio, GLib

    reply = bus.call_sync(
        name, path, iface, method, args, GLib.VariantType(sig) if sig else None,
        Gio.DBusCallFlags.NONE, 1500, None,
    )  # fmt: skip
    return reply.unpack() if reply is not None else None


def has_status_notifier_watcher() -> bool:
    """True when a StatusNotifierItem host runs (KDE, GNOME + extension, waybar...)."""
    bus = _session_bus()
    if bus is None:
        return False
    try:
        from gi.repository import GLib

        (owned,) = _dbus_call(
            bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
            "NameHasOwner", GLib.Variant("(s)", (SNI_WATCHER,)), "(b)",
        )  # fmt: skip
        return bool(owned)
    except Exception:
        return False


def _xembed_tray() -> bool | None:
    """Is there an XEmbed system tray (``_NET_SYSTEM_TRAY_S0`` owner)? None: cannot tell."""
    if not os.environ.get("DISPLAY"):
        return None
    try:
        from Xlib import display as xdisplay  # type: ignore[import-untyped, unused-ignore]

        disp = xdisplay.Display()
        try:
            atom = disp.intern_atom("_NET_SYSTEM_TRAY_S0")
            return bool(disp.get_selection_owner(atom))
        finally:
            disp.close()
    except Exception:
        return None


def gui_backend() -> str:
    if sys.platform == "win32":
        return "EdgeChromium (WebView2) through WinForms (pywebview); untested on this build"
    if sys.platform == "darwin":
        ok = importlib.util.find_spec("webview") and importlib.util.find_spec("AppKit")
        return "Cocoa WebKit (pywebview)" if ok else "missing: pip install pywebview"
    if not importlib.util.find_spec("gi"):
        return "missing: PyGObject (make run installs it)"
    try:
        import gi

        gi.require_version("Gtk", "3.0")
        gi.require_version("WebKit2", "4.1")
    except (ValueError, ImportError) as exc:
        return (
            f"missing: WebKitGTK 4.1 / GTK 3 introspection ({exc}); apt install gir1.2-webkit2-4.1"
        )
    if not importlib.util.find_spec("webview"):
        return "missing: pywebview (make run installs it)"
    return "GTK 3 + WebKitGTK 4.1 (pywebview)"


def tray_support() -> tuple[str, str | None]:
    if sys.platform in ("win32", "darwin"):
        return "system tray / menu bar (pystray)", None
    desktop = os.environ.get("XDG_CURRENT_DESKTOP", "")
    if has_status_notifier_watcher():
        return "StatusNotifierItem host found (AppIndicator backend; a click opens the menu)", None
    xembed = _xembed_tray()
    if xembed:
        return "XEmbed system tray found (GTK StatusIcon; a click toggles the popup)", None
    hint = (
        GNOME_HINT
        if "gnome" in desktop.lower()
        else (
            "No tray host found: the app still runs; open it with the hotkey or `metona-tray "
            "--toggle`, or start a tray (e.g. trayer, stalonetray, a panel applet)."
        )
    )
    return "no tray host found" if xembed is False else "unknown (no X11 display)", hint


def notification_support() -> tuple[str, bool | None]:
    """(description, has action buttons)."""
    if sys.platform == "darwin":
        return "macOS Notification Center (needs a signed app bundle)", True
    if sys.platform == "win32":
        return "Windows toast notifications", True
    bus = _session_bus()
    if bus is None:
        return "no D-Bus session bus: no notifications", None
    try:
        name, vendor, version, _spec = _dbus_call(
            bus, "org.freedesktop.Notifications", "/org/freedesktop/Notifications",
            "org.freedesktop.Notifications", "GetServerInformation", None, "(ssss)",
        )  # fmt: skip
        (caps,) = _dbus_call(
            bus, "org.freedesktop.Notifications", "/org/freedesktop/Notifications",
            "org.freedesktop.Notifications", "GetCapabilities", None, "(as)",
        )  # fmt: skip
    except Exception as exc:
        return f"no notification server ({str(exc).splitlines()[0][:120]})", None
    buttons = "actions" in caps
    what = "Approve/Deny/Open buttons" if buttons else "no buttons: a click opens the popup"
    return f"{name} {version} by {vendor}: {what}", buttons


def _running_app_hotkey(runtime_dir: Path | None) -> dict[str, Any] | None:
    """The running app's own hotkey status (instance socket), or None when none answers."""
    if runtime_dir is None:
        return None
    from tray_app.desktop.instance.instance import InstanceError, SingleInstance

    instance = SingleInstance(runtime_dir)
    if not instance.key_path.exists():
        return None
    try:
        reply = instance.send({"command": "hotkey_status"}, timeout=2.0)
    except InstanceError:
        return None
    status = reply.get("status")
    return status if reply.get("ok") and isinstance(status, dict) else None


def hotkey_state(text: str, runtime_dir: Path | None = None) -> str:
    """Is the configured combination working? The running app says; else try the grab (X11)."""
    try:
        hotkey = parse_hotkey(text)
    except HotkeyError as exc:
        return f"unusable setting: {exc}"
    running = _running_app_hotkey(runtime_dir)
    if running is not None:
        if running.get("registered"):
            return f"{running['registered']} registered by the running app"
        return f"not registered by the running app: {running.get('error') or 'unknown reason'}"
    if session_kind() != "x11":
        return f"{hotkey.label()} (the app registers it at start)"
    from tray_app.desktop.hotkey.hotkey_x11 import X11Hotkey

    probe = X11Hotkey(hotkey, lambda: None)
    try:
        probe.start()
    except HotkeyTaken as exc:
        return str(exc)
    except Exception as exc:
        return f"{hotkey.label()} could not be tried ({os_error_text(exc)})"
    probe.stop()
    return f"{hotkey.label()} is free (the app grabs it at start)"


def desktop_report(
    hotkey_text: str | None = None, runtime_dir: Path | None = None
) -> dict[str, Any]:
    """The doctor's desktop section; never raises."""
    report: dict[str, Any] = {"available": True}
    kind = session_kind()
    report["display"] = {
        "x11": f"X11 ({os.environ.get('DISPLAY')})",
        "wayland": f"Wayland ({os.environ.get('WAYLAND_DISPLAY', '?')})",
        "none": "none: the tray app cannot start; use `metona-tray chat`",
    }.get(kind, kind)
    report["gui_backend"] = gui_backend()
    tray, tray_hint = tray_support()
    report["tray"] = tray
    if tray_hint:
        report["tray_hint"] = tray_hint
    notes, buttons = notification_support()
    report["notifications"] = notes
    report["notification_buttons"] = {True: "yes", False: "no", None: "unknown"}[buttons]
    hotkey = support()
    report["hotkey"] = hotkey["backend"] or "not available"
    if hotkey["hint"]:
        report["hotkey_hint"] = hotkey["hint"]
    if hotkey_text is not None and hotkey["supported"]:
        try:
            report["hotkey_state"] = hotkey_state(hotkey_text, runtime_dir)
        except Exception as exc:
            report["hotkey_state"] = f"unknown ({os_error_text(exc)})"
    try:
        report["start_at_login"] = "on" if autostart.is_enabled() else "off"
    except Exception as exc:
        report["start_at_login"] = f"unknown ({os_error_text(exc)})"
    return report
