"""Core's side of MCP: the servers from the settings, their tools for each turn, and status.

The manager (``tray_app.mcp``) is made only when a server is configured, so a user without
MCP servers never loads the SDK. Servers start in the background when Core starts; a turn
takes the tools of the servers that are ready at that moment. Only the terminal's one-shot
chat may wait (``first_turn_wait``) for servers still starting, once, bounded.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tray_app.store.settings import Settings
from tray_app.tools.base import Tool

if TYPE_CHECKING:
    from tray_app.mcp.manager import McpManager
    from tray_app.mcp.tools import McpTools
    from tray_app.paths import AppPaths

log = logging.getLogger(__name__)


class McpHost:
    def __init__(
        self,
        paths: AppPaths,
        settings: Callable[[], Settings],
        secret: Callable[[str], str | None],
        *,
        first_turn_wait: float = 0.0,
    ) -> None:
        self._paths = paths
        self._settings = settings
        self._secret = secret
        self._manager: McpManager | None = None
        self._tools: McpTools | None = None
        self._errors: dict[str, str] = {}
        self._applied: object = None
        self._first_turn_wait = first_turn_wait
        self._lock = threading.Lock()

    @property
    def manager(self) -> McpManager | None:
        return self._manager

    def apply(self, settings: Settings) -> None:
        """Start, restart or stop servers to match the settings (returns at once)."""
        with self._lock:
            if settings.mcp_servers == self._applied:
                return
            self._applied = settings.mcp_servers
            from tray_app.mcp.config import parse_servers

            servers, self._errors = parse_servers(settings.mcp_servers)
            for name, why in self._errors.items():
                log.warning("MCP server %s ignored: %s", name, why)
            if not servers and self._manager is None:
                return
            if self._manager is None:
                from tray_app.mcp.manager import McpManager
                from tray_app.mcp.tools import McpTools

                self._manager = McpManager(
                    log_dir=self._paths.log_dir,
                    secrets=self._secret,
                    roots=lambda: list(self._settings().allowed_dirs),
                    sandbox=lambda: self._settings().sandbox_enabled,
                )
                self._tools = McpTools(self._manager)
            self._manager.configure(servers)

    def tools(self, taken: set[str]) -> list[Tool]:
        """The ready servers' tools, named so that none clashes with ``taken``."""
        if self._tools is None:
            return []
        return self._tools.tools(taken)

    def wait_first_turn(self) -> None:
        """Blocking (run it in a worker thread): the first turn of a one-shot terminal chat
        waits, bounded, for servers still starting; every later call returns at once."""
        wait, self._first_turn_wait = self._first_turn_wait, 0.0
        manager = self._manager
        if wait <= 0 or manager is None:
            return
        deadline = time.monotonic() + wait
        for state in manager.snapshot():
            left = deadline - time.monotonic()
            if state.status == "starting" and left > 0:
                manager.wait_ready(state.name, left)

    def status(self) -> list[dict[str, Any]]:
        """Each configured server: status, last error, tools with their model names and risk."""
        out: list[dict[str, Any]] = []
        manager = self._manager
        if manager is not None:
            from tray_app.mcp.naming import risk_of

            for state in manager.snapshot():
                data = state.public()
                config = manager.config(state.name)
                trust = config.trust if config is not None else "ask"
                data["tools"] = [
                    {
                        "name": tool.name,
                        "description": tool.description[:300],
                        "risk": risk_of(tool.annotations, trust)[0].value,
                        "read_only_hint": tool.annotations.get("readOnlyHint") is True,
                    }
                    for tool in state.tools
                ]
                out.append(data)
        for name, why in self._errors.items():
            out.append({"name": name, "status": "invalid", "error": why, "tools": []})
        return out

    def stop(self) -> None:
        if self._manager is not None:
            self._manager.stop()
