"""The instance socket's test-only commands (``METONA_TEST_HOOKS=1``), for tests/e2e.

``state`` reports what a test observes (visibility, page, tray, hotkey, delivery counters),
``core`` runs one whitelisted Core command, ``eval_js`` evaluates a script in the popup's page
(in the popup process) and ``unload_popup`` ends the popup process now. Without the variable
the app never calls this module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from tray_app.core.protocol import CoreApi
    from tray_app.desktop.hotkey.hotkey import HotkeyManager
    from tray_app.desktop.notify.notify import Notifier
    from tray_app.desktop.popup.popup import Popup
    from tray_app.desktop.tray.tray import Tray


class HookedApp(Protocol):
    """What the hooks read of the running app (``app.DesktopApp``), without importing it."""

    @property
    def tray(self) -> Tray: ...
    @property
    def popup(self) -> Popup: ...
    @property
    def hotkeys(self) -> HotkeyManager: ...
    @property
    def notifier(self) -> Notifier: ...
    @property
    def core(self) -> CoreApi: ...


HOOK_CORE_COMMANDS = frozenset(
    {"new_session", "send_message", "get_session", "list_sessions", "status", "list_models",
     "pending_approvals", "decide", "update_settings", "get_settings", "keyring_status", "undo",
     "mcp_status"}
)  # fmt: skip


def menu_texts(app: HookedApp) -> list[str]:
    """The tray menu's labels as pystray would show them now (its items' texts)."""
    return [str(item.text) for item in app.tray.icon.menu.items]


def early_state(app: HookedApp) -> dict[str, Any]:
    """``state`` while Core starts: the icon is real, nothing else exists yet."""
    return {
        "ok": True, "started": False, "visible": False, "active": False,
        "page_loaded": False, "tray_backend": app.tray.backend,
        "tray_ready": app.tray.ready, "tray_state": app.tray.state.state,
        "tray_menu": menu_texts(app),
        "pending": 0, "hotkey": None, "hotkey_error": None, "notifications": [], "notified": [],
        "popup_pid": None, "popup_starts": 0, "delivered": 0, "lost": 0,
        "refused_navigations": [], "refused_calls": 0, "focus_losses": 0,
    }  # fmt: skip


def answer(app: HookedApp, command: str, request: dict[str, Any]) -> dict[str, Any]:
    """``state``, ``core``, ``eval_js``, ``unload_popup``; anything else is unknown."""
    if command == "state":
        return {
            "ok": True,
            "started": True,
            "visible": app.popup.visible,
            "active": app.popup.active,
            "page_loaded": app.popup.page_loaded(),
            "tray_backend": app.tray.backend,
            "tray_ready": app.tray.ready,
            "tray_state": app.tray.state.state,
            "tray_menu": menu_texts(app),
            "pending": app.tray.state.pending,
            "hotkey": app.hotkeys.current,
            "hotkey_error": app.hotkeys.error,
            "notifications": sorted(app.notifier.capabilities),
            "notified": app.notifier.shown_approvals,
            "popup_pid": app.popup.pid,
            "popup_starts": app.popup.starts,
            **app.popup.stats(),
        }
    if command == "core":
        method = str(request.get("method"))
        if method not in HOOK_CORE_COMMANDS:
            return {"ok": False, "error": f"{method} is not a test hook"}
        result = getattr(app.core, method)(*request.get("args", []), **request.get("kwargs", {}))
        return {"ok": True, "result": result}
    if command == "eval_js":
        return {"ok": True, "result": app.popup.evaluate_js(str(request.get("script")))}
    if command == "unload_popup":
        app.popup.unload()
        return {"ok": True}
    return {"ok": False, "error": f"unknown command {command!r}"}
