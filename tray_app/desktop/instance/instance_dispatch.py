"""What the app answers on its instance socket: one dispatch, no GUI imports.

Why a module of its own: the desktop app (``app.py``) and the tests that put a headless Core
behind the real socket (tests/mcp/test_serve_app*.py) answer with this same code, so those
tests cannot drift from the app. What needs the GUI (the popup, the hotkey, the test hooks)
comes in as callables; a headless host leaves them out and those commands are unknown.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, Any

from tray_app.desktop.instance.mcp_link import McpCallHost
from tray_app.desktop.instance.mcp_watch import ToolWatchHost

if TYPE_CHECKING:
    from tray_app.core.service import Core

START_WAIT = 60.0  # seconds a request that needs Core waits for the start-up
WINDOW_COMMANDS = ("show", "toggle", "hide")

Reply = dict[str, Any]


@dataclass
class InstanceCommands:
    """``handle`` and ``conversations`` for ``SingleInstance.serve``.

    ``core`` is read only after ``started`` is set. ``window`` runs ``show``/``toggle``/
    ``hide``; ``hotkey_status`` answers doctor; ``early``/``more`` are the test hooks (before
    and after the start)."""

    core: Callable[[], Core]
    quit: Callable[[], None]
    quitting: threading.Event
    started: threading.Event
    window: Callable[[str], None] | None = None
    hotkey_status: Callable[[], Any] | None = None
    early: Callable[[Reply], Reply | None] | None = None
    more: Callable[[str, Reply], Reply] | None = None

    def __post_init__(self) -> None:
        self.mcp_calls = McpCallHost(self.core, self.quitting.is_set)
        self.mcp_watch = ToolWatchHost(self.core, self.quitting.is_set)

    def conversations(self) -> dict[str, Callable[[Reply, Connection], Reply]]:
        return {"mcp_call": self._mcp_call, "mcp_watch": self._mcp_watch}

    def handle(self, request: Reply) -> Reply:
        command = request["command"]
        if command == "ping":
            return {"ok": True, "pid": os.getpid()}
        if command == "quit":
            self.quit()
            return {"ok": True}
        if self.early is not None and not self.started.is_set():
            answer = self.early(request)
            if answer is not None:
                return answer
        if not self.started.wait(START_WAIT):
            return {"ok": False, "error": "the app is still starting"}
        if command in WINDOW_COMMANDS and self.window is not None:
            self.window(command)
            return {"ok": True}
        if command == "hotkey_status" and self.hotkey_status is not None:
            return {"ok": True, "status": self.hotkey_status()}  # registered, or taken
        if command == "mcp_open":  # `metona-tray mcp serve` asks through this app
            return self.mcp_calls.open_session(request)
        if command == "mcp_tools":  # ... and offers this app's MCP servers' tools too
            return self.mcp_calls.tools()
        if command == "tool_rules":  # `metona-tray rules` reads and changes them here
            return self._tool_rules(request)
        if command == "model_tool_check":  # `metona-tray models check` keeps its finding here
            return self._model_tool_check(request)
        if self.more is not None:
            return self.more(command, request)
        return {"ok": False, "error": f"unknown command {command!r}"}

    def _tool_rules(self, request: Reply) -> Reply:
        """The lasting rules in force (with ``rules``: set them first, saved by the app)."""
        core = self.core()
        if "rules" in request:
            try:
                core.update_settings({"tool_rules": request["rules"]})
            except Exception as exc:  # refused (a bad rule) or not saved: said to the CLI
                return {"ok": False, "error": str(exc)}
        settings = core.get_settings()
        servers = settings.get("mcp_servers") or {}
        return {"ok": True, "rules": settings.get("tool_rules", []), "servers": dict(servers)}

    def _model_tool_check(self, request: Reply) -> Reply:
        """A finding of ``models check`` kept by the app (saved by it, the page's model menu
        told), so its next save does not write over what the terminal stored."""
        from tray_app.core.model_check import CheckFinding, stored_finding

        model, result = request.get("model"), request.get("result")
        if not isinstance(model, str) or result not in ("native", "text", "none"):
            return {"ok": False, "error": "a model name and a finding are needed"}
        core = self.core()
        finding = CheckFinding(result, bool(request.get("native_offered")))
        patch = stored_finding(core.settings, model, finding)
        try:
            core.update_settings(patch)
        except Exception as exc:  # not saved: said to the CLI
            return {"ok": False, "error": str(exc)}
        core.list_models()  # the page's model menu shows the new mode
        return {"ok": True, "patch": patch}

    def _ready(self) -> bool:
        return self.started.wait(START_WAIT) and not self.quitting.is_set()

    def _mcp_call(self, request: Reply, conn: Connection) -> Reply:
        """One tool call forwarded by ``mcp serve``; holds ``conn`` until it ends."""
        if not self._ready():
            return {"ok": False, "code": "stopped", "error": "Metona Tray is not running"}
        return self.mcp_calls.call(request, conn)

    def _mcp_watch(self, request: Reply, conn: Connection) -> Reply:
        """``mcp serve`` hears of MCP tool changes on ``conn`` until either side ends."""
        if not self._ready():
            return {"ok": False, "error": "Metona Tray is not running"}
        return self.mcp_watch.watch(request, conn)
