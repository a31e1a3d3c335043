"""Core's side of MCP: the servers from the settings, their tools for each turn, and status.

The manager (``tray_app.mcp``) is made only when a server is configured, so a user without
MCP servers never loads the SDK. ``start`` says when servers start: ``"start"`` (the desktop
app: in the background when Core starts; a turn takes the tools of the servers ready at that
moment), ``"first_turn"`` (the terminal chat: at its first turn, which waits for them, once,
at most ``FIRST_TURN_WAIT``), ``"off"`` (commands that run no turn: sessions, export, undo).

Every change of a server's status, last error or tools is published as one ``mcp_status`` event
(a burst on the manager's loop -- tools listed, then ready -- becomes one event; an unchanged
status none), so the page never polls.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from tray_app.base.errors import InvalidRequest, Unsupported
from tray_app.base.events import McpStatus, Publish
from tray_app.store.settings import Settings
from tray_app.tools.base import Tool

if TYPE_CHECKING:
    from tray_app.base.paths import AppPaths
    from tray_app.core.results import McpSecretSaved
    from tray_app.mcp.manager import McpManager
    from tray_app.mcp.tools import McpTools
    from tray_app.store.secrets import SecretStore

log = logging.getLogger(__name__)

McpStart = Literal["start", "first_turn", "off"]


def _uses_keyring(entry: object) -> bool:
    """Whether an enabled server's entry takes an env or header value from the keyring."""
    from tray_app.mcp.config import KEYRING_PREFIX

    if not isinstance(entry, dict) or entry.get("enabled") is False:
        return False
    for field in ("env", "headers"):
        values = entry.get(field)
        if isinstance(values, dict) and any(
            isinstance(v, str) and v.startswith(KEYRING_PREFIX) for v in values.values()
        ):
            return True
    return False


def _shortened(text: str, limit: int) -> str:
    """At most ``limit`` characters, an ellipsis saying when some were cut."""
    return text if len(text) <= limit else f"{text[: limit - 1]}…"


FIRST_TURN_WAIT = 20.0


class McpHost:
    def __init__(
        self,
        paths: AppPaths,
        settings: Callable[[], Settings],
        secret: Callable[[str], str | None],
        *,
        start: McpStart = "start",
        publish: Publish | None = None,
        store: Callable[[], SecretStore | None] = lambda: None,
    ) -> None:
        self._paths = paths
        self._settings = settings
        self._secret = secret
        self._manager: McpManager | None = None
        self._tools: McpTools | None = None
        self._errors: dict[str, str] = {}
        self._error_codes: dict[str, dict[str, Any]] = {}  # the coded ones (mcp/config.py)
        self._applied: object = None
        self._start = start
        self._waited = False
        self._roots = list(settings().allowed_dirs)
        self._lock = threading.Lock()
        self._publish = publish
        self._store = store
        self._push_lock = threading.Lock()
        self._push_queued = False
        self._pushed = "[]"  # the last status published, as JSON: an unchanged one is not sent

    @property
    def manager(self) -> McpManager | None:
        return self._manager

    def started(self, settings: Settings) -> None:
        """Core started: the desktop app starts its servers now."""
        if self._start == "start":
            self.apply(settings)

    def settings_changed(self, settings: Settings) -> None:
        if self._start == "start" or (self._start == "first_turn" and self._waited):
            self.apply(settings)
        if settings.allowed_dirs != self._roots and self._manager is not None:
            self._manager.roots_changed()  # the servers' roots are the allowed folders
        self._roots = list(settings.allowed_dirs)

    def apply(self, settings: Settings, *, wait: bool = False) -> None:
        """Start, restart or stop servers to match the settings (returns at once unless
        ``wait``: until they are starting)."""
        with self._lock:
            if settings.mcp_servers == self._applied:
                return
            self._applied = settings.mcp_servers
            if settings.mcp_servers:
                from tray_app.mcp.config import parse_servers  # not for a chat without servers

                self._error_codes = {}
                servers, self._errors = parse_servers(settings.mcp_servers, self._error_codes)
            else:
                servers, self._errors, self._error_codes = [], {}, {}
            for name, why in self._errors.items():
                log.warning("MCP server %s ignored: %s", name, why)
            if not servers and self._manager is None:
                self._push()  # no server runs, but the invalid ones are shown
                return
            if self._manager is None:
                from tray_app.mcp.manager import McpManager
                from tray_app.mcp.tools import McpTools

                self._manager = McpManager(
                    log_dir=self._paths.log_dir,
                    secrets=self._lookup,
                    roots=lambda: list(self._settings().allowed_dirs),
                    sandbox=lambda: self._settings().sandbox_enabled,
                    on_change=self._changed,
                    private_root=self._paths.cache_dir / "mcp",
                )
                self._tools = McpTools(self._manager)
            self._manager.configure(servers, wait=wait)
        self._push()  # servers that are invalid now (or no longer) change no connection

    def _changed(self) -> None:
        """A server changed (on the manager's loop): one event once this burst is over."""
        if self._publish is None:
            return
        with self._push_lock:
            if self._push_queued:
                return
            self._push_queued = True
        try:
            asyncio.get_running_loop().call_soon(self._push)
        except RuntimeError:  # not on a loop after all: at once
            self._push()

    def _push(self) -> None:
        if self._publish is None:
            return
        with self._push_lock:
            self._push_queued = False
            servers = self.status()
            shown = json.dumps(servers, sort_keys=True, default=str)
            if shown == self._pushed:
                return
            self._pushed = shown
            try:  # under the lock: two threads' events reach the bus in the order they were made
                self._publish(McpStatus(servers=servers))
            except Exception:
                log.exception("publishing the MCP status failed")

    def tools(self, taken: set[str]) -> list[Tool]:
        """The ready servers' tools, named so that none clashes with ``taken``."""
        if self._tools is None:
            return []
        return self._tools.tools(taken)

    def before_turn(self) -> None:
        """Blocking (run it in a worker thread). In the terminal chat the first turn starts
        the servers and waits, bounded, until they are ready; every other call returns."""
        if self._start != "first_turn" or self._waited:
            return
        self._waited = True
        self.apply(self._settings(), wait=True)
        manager = self._manager
        if manager is None:
            return
        deadline = time.monotonic() + FIRST_TURN_WAIT
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
                off = set(config.disabled_tools) if config is not None else set()
                data["trust"] = trust
                data["tools"] = [
                    {
                        "name": tool.name,
                        "description": _shortened(tool.description, 300),
                        "risk": risk_of(tool.annotations, trust)[0].value,
                        "read_only_hint": tool.annotations.get("readOnlyHint") is True,
                        "enabled": tool.name not in off,
                    }
                    for tool in state.tools
                ]
                out.append(data)
        for name, why in self._errors.items():
            row: dict[str, Any] = {"name": name, "status": "invalid", "error": why, "tools": []}
            coded = self._error_codes.get(name)
            if coded is not None:  # a refused name: the page says why in its language
                row["error_code"], row["error_params"] = coded["code"], coded["params"]
            out.append(row)
        return out

    def _lookup(self, user: str) -> str | None:
        """A ``keyring:NAME`` secret for a starting server; SecretUnavailable when it is not
        found because the keyring cannot be read (not because it was never stored)."""
        from tray_app.mcp.config import SecretUnavailable
        from tray_app.store.secrets import SecretUnreadable

        try:  # read without a prompt: a locked keyring is asked when the user stores one
            value = self._secret(user)
        except SecretUnreadable as exc:
            raise SecretUnavailable(str(exc)) from None
        store = self._store() if value is None else None
        if store is not None and not store.usable:
            raise SecretUnavailable(store.reason or "no usable keyring")
        return value

    def ask_for_secrets(self, servers: object, current: dict[str, Any]) -> None:
        """The user is saving tool servers (any thread but the core loop's): when one they
        changed takes a secret from the keyring and the keyring is locked, its password is
        asked for now, before the server restarts, so that it can start. A start never asks."""
        if not isinstance(servers, dict):
            return
        changed = [entry for name, entry in servers.items() if current.get(name) != entry]
        if not any(_uses_keyring(entry) for entry in changed):
            return
        store = self._store()
        if store is not None and store.keyring_state() == "locked":
            store.unlock()

    def set_secret(self, name: str, secret: str | None) -> McpSecretSaved:
        """Keep ``secret`` for ``keyring:NAME`` (empty: remove it) and restart the servers
        that use it. The secret is never returned, logged or written to the settings file."""
        from tray_app.mcp.config import (
            KEYRING_PREFIX,
            check_secret,
            check_secret_name,
            keyring_user,
        )

        try:
            check_secret_name(name)
            if secret:
                check_secret(secret)
        except ValueError as exc:
            raise InvalidRequest(str(exc)) from None
        store = self._store()
        if store is None:
            raise Unsupported("no secret store is available here")
        if secret:
            store.set(keyring_user(name), secret)
        else:
            store.delete(keyring_user(name))
        if self._manager is not None:
            self._manager.restart_using(name)
        return {
            "reference": f"{KEYRING_PREFIX}{name}",
            "stored_in_keyring": store.usable,
            "warning": None if store.usable else store.reason,
            "problem": None if store.usable else store.problem,
        }

    def stop(self) -> None:
        if self._manager is not None:
            self._manager.stop()
