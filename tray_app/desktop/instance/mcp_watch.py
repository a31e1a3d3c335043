"""``mcp_watch``: the app tells ``mcp serve`` when its MCP tools change, as it happens.

Why: ``mcp serve`` offers the app's MCP servers' tools and must tell its client
``tools/list_changed`` when they change. Asking the app every few seconds makes the client wait
and costs both processes a question each time; the app knows the moment it happens (Core
publishes ``mcp_status``), so it says so on a connection ``mcp serve`` keeps open.

Protocol (JSON messages on the instance socket, a conversation like ``mcp_call``):

- ``{"command": "mcp_watch"}``: the app answers ``{"ok": true, "watching": true}`` at once, then
  ``{"changed": true}`` after each change of its MCP servers' status or tools. Changes that
  come while a notice is still unsent are one notice (a flag, never a queue that grows). The
  client then asks ``mcp_tools`` and compares.
- It ends with ``{"ok": true, "ended": true}`` (or the connection closing) when the app quits;
  the client ends it by closing (or sending anything). An app from before this command
  answers ``{"ok": false, ...}`` first: the client asks now and then instead.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, Any, Literal

from tray_app.desktop.instance.instance import InstanceError, SingleInstance

if TYPE_CHECKING:
    from tray_app.base.events import Event
    from tray_app.core.service import Core

MAX_NOTICE = 1024  # the longest message either side sends on this conversation
LOOK = 0.25  # seconds between looks at the client and at quitting, while nothing changes
CONNECT_WAIT = 10.0

Heard = Literal["changed", "quiet", "ended"]


class _Pending:
    """The bus's filter for one watcher: notes an ``mcp_status`` event and keeps none, so a
    watcher that is slow to write costs one flag, not a growing queue."""

    def __init__(self) -> None:
        self.flag = threading.Event()

    def __call__(self, event: Event) -> bool:
        if getattr(event, "type", None) == "mcp_status":
            self.flag.set()
        return False


class ToolWatchHost:
    """Answers ``mcp_watch`` in the app (an instance-socket thread per watcher)."""

    def __init__(self, core: Callable[[], Core], quitting: Callable[[], bool]) -> None:
        self._core = core
        self._quitting = quitting

    def watch(self, _request: dict[str, Any], conn: Connection) -> dict[str, Any]:
        pending = _Pending()
        with self._core().bus.subscribe(pending), contextlib.suppress(OSError):  # client gone
            conn.send_bytes(b'{"ok": true, "watching": true}')
            while not self._quitting():
                if pending.flag.wait(LOOK):
                    pending.flag.clear()
                    conn.send_bytes(b'{"changed": true}')
                elif _client_spoke_or_left(conn):
                    break
        return {"ok": True, "ended": True}


def _client_spoke_or_left(conn: Connection) -> bool:
    try:
        return conn.poll(0)  # anything, or the end of the stream, ends the watch
    except (EOFError, OSError):
        return True


# ---- the `mcp serve` side ----------------------------------------------------------------------


class Unsupported(Exception):
    """The app answers but has no ``mcp_watch`` (an older version): ask it now and then."""


class AppWatch:
    """``mcp serve``'s open ``mcp_watch`` conversation; ``open`` raises ``InstanceError`` when
    no app answers and ``Unsupported`` for an app without it."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    @classmethod
    def open(cls, instance: SingleInstance) -> AppWatch:
        conn = instance.connect({"command": "mcp_watch"}, timeout=CONNECT_WAIT)
        try:
            if not conn.poll(CONNECT_WAIT):
                raise InstanceError("the app did not start the watch")
            first = _message(conn.recv_bytes(MAX_NOTICE))
        except (EOFError, OSError) as exc:
            conn.close()
            raise InstanceError(f"the app closed the watch ({exc})") from exc
        except InstanceError:
            conn.close()
            raise
        if first.get("watching") is not True:
            conn.close()
            raise Unsupported(str(first.get("error") or "no mcp_watch"))
        return cls(conn)

    def next(self, timeout: float) -> Heard:
        """What the app said within ``timeout``: a change, nothing, or the end (it quit, or
        sent something this side does not know)."""
        try:
            if not self._conn.poll(timeout):
                return "quiet"
            said = _message(self._conn.recv_bytes(MAX_NOTICE))
        except (EOFError, OSError):
            return "ended"
        return "changed" if said.get("changed") is True else "ended"

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._conn.close()


def _message(data: bytes) -> dict[str, Any]:
    try:
        said = json.loads(data)
    except ValueError:
        return {}
    return said if isinstance(said, dict) else {}
