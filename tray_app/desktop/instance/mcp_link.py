"""``metona-tray mcp serve`` through the running app: the protocol on the instance socket.

Why: the app is where the user can be asked (the popup's card, the notification's Approve /
Deny) and it is the one writer of the chat, the undo journal and the audit log. So while the
app runs, ``mcp serve`` runs no Core of its own; it forwards each tool call here and the app's
Core runs it with its approval broker (``Core.start_tool``), exactly like a call its own model
makes.

Protocol (JSON messages on the authenticated, user-only instance socket, one connection each):

- ``{"command": "mcp_open", "workspace"}`` → ``{"ok", "session_id"}``: the app makes the chat
  ("MCP client") the calls are recorded in, and owns it; only chats opened so are served.
- ``{"command": "mcp_call", "session_id", "name", "arguments", "yes", "yes_all"}`` keeps its
  connection until the call ends and answers ``{"ok": true, "result"}``. Meanwhile the client
  may send ``{"cancel": true}`` or just close: either stops the call like a stopped turn.
  Failures: ``{"ok": false, "code": "unknown_session" | "invalid" | "cancelled" | "stopped"}``.
  ``yes``/``yes_all`` approve what the flags allow for this call only, before any card or
  notification is shown (``Core.start_tool``'s ``client_flag``, recorded as ``mcp_flag``);
  anything else is asked. No flag widens what the app's own turns may do, even in that chat.
- The client sees the connection close without an answer when the app quits mid-call.
- ``{"command": "mcp_tools"}`` → ``{"ok", "tools": [{"name", "description", "input_schema",
  "risk"}]}``: the tools of the MCP servers the app is connected to, as its own model is
  offered them (``server__tool``), so ``mcp serve`` offers them too; a call to one is an
  ``mcp_call`` like any other and the app's approvals ask for it. At most ``MAX_TOOLS_REPLY``
  bytes of them (the servers' texts are already bounded by the app).

Messages are bounded (``MAX_REQUEST`` in, ``MAX_REPLY`` out); the app reads nothing else.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tray_app.base.errors import NotFound
from tray_app.base.events import ClientFlag
from tray_app.desktop.instance.instance import (
    MAX_MESSAGE,
    InstanceError,
    InstanceTimeout,
    SingleInstance,
)
from tray_app.desktop.instance.mcp_watch import AppWatch
from tray_app.tools.base import Risk

if TYPE_CHECKING:
    from tray_app.core.service import Core

log = logging.getLogger(__name__)

SESSION_TITLE = "MCP client"
MAX_REQUEST = MAX_MESSAGE  # a call's arguments: the instance socket's own bound
MAX_REPLY = 16_000_000  # a call's result; tools shorten what they return long before this
MAX_SESSIONS = 256  # chats opened by `mcp serve` processes that the app still serves
MAX_TOOLS_REPLY = 8_000_000  # the app's MCP tools as one answer; the rest are left off
MAX_CANCEL = 1024  # the only message a client sends during a call
POLL = 0.25  # seconds between looks at the client while a call runs (cancel, gone)
CONNECT_WAIT = 10.0  # seconds to reach the app
OPEN_WAIT = 60.0  # ... and for it to open the chat (it may still be starting)


def client_flag(*, yes: bool, yes_all: bool) -> ClientFlag | None:
    """``mcp serve``'s flags as the one value Core's approvals take."""
    return "yes_all" if yes_all else "yes" if yes else None


# ---- the app's side ----------------------------------------------------------------------------


class McpCallHost:
    """Answers ``mcp_open`` and ``mcp_call`` in the app (instance-socket threads)."""

    def __init__(self, core: Callable[[], Core], quitting: Callable[[], bool]) -> None:
        self._core = core
        self._quitting = quitting  # while the app quits, a call's failure is the quitting
        self._lock = threading.Lock()
        self._sessions: OrderedDict[str, None] = OrderedDict()

    def open_session(self, request: dict[str, Any]) -> dict[str, Any]:
        workspace = request.get("workspace")
        if workspace is not None and not isinstance(workspace, str):
            return {"ok": False, "code": "invalid", "error": "workspace must be a path"}
        core = self._core()
        session = core.new_session(workspace=workspace)
        session_id = str(session["id"])
        core.update_session(session_id, title=SESSION_TITLE)
        with self._lock:
            self._sessions[session_id] = None
            while len(self._sessions) > MAX_SESSIONS:
                self._sessions.popitem(last=False)
        return {"ok": True, "session_id": session_id}

    def tools(self) -> dict[str, Any]:
        """The app's MCP tools for ``mcp serve`` to offer, bounded in bytes (a server may list
        hundreds, each with a 64 KB schema): the first that fit, in the app's order."""
        offered = self._core().mcp_tools()
        out: list[dict[str, Any]] = []
        size = 0
        for tool in offered:
            size += len(json.dumps(tool)) + 2  # as sent: JSON, ASCII only
            if size > MAX_TOOLS_REPLY:
                log.warning("mcp serve: %d MCP tools left off its list", len(offered) - len(out))
                break
            out.append(dict(tool))
        return {"ok": True, "tools": out}

    def call(self, request: dict[str, Any], conn: Connection) -> dict[str, Any]:
        session_id, name = request.get("session_id"), request.get("name")
        arguments = request.get("arguments")
        if not (isinstance(name, str) and isinstance(arguments, dict)):
            return {"ok": False, "code": "invalid", "error": "a call has a name and arguments"}
        with self._lock:
            known = isinstance(session_id, str) and session_id in self._sessions
        if not known:
            return {"ok": False, "code": "unknown_session", "error": "open a session first"}
        assert isinstance(session_id, str)
        flag = client_flag(yes=request.get("yes") is True, yes_all=request.get("yes_all") is True)
        future = self._core().start_tool(session_id, name, arguments, client_flag=flag)
        ended = threading.Event()
        future.add_done_callback(lambda _done: ended.set())
        while not ended.wait(POLL):
            if _client_gone(conn):
                future.cancel()  # the MCP client cancelled, or its process ended
                return {"ok": False, "code": "cancelled", "error": f"{name} was cancelled"}
        try:
            return {"ok": True, "result": future.result()}
        except NotFound:  # the person deleted the chat: the client opens a new one
            with self._lock:
                self._sessions.pop(session_id, None)
            return {"ok": False, "code": "unknown_session", "error": "the chat was deleted"}
        except (concurrent.futures.CancelledError, Exception) as exc:
            if self._quitting() or isinstance(exc, concurrent.futures.CancelledError):
                error = f"{name} was stopped: Metona Tray quit before it finished"
            else:  # a bug, logged by the core
                error = f"{name} failed in Metona Tray: {type(exc).__name__}"
            return {"ok": False, "code": "stopped", "error": error}


def _client_gone(conn: Connection) -> bool:
    """True when the client sent a cancel (or anything) or closed its end."""
    try:
        if not conn.poll(0):
            return False
        conn.recv_bytes(MAX_CANCEL)
    except (EOFError, OSError):
        return True
    return True  # the only message a client sends during a call is a cancel


# ---- the `mcp serve` side ----------------------------------------------------------------------

_TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")  # the names the app gives (mcp/naming.py)
_RISKS = {risk.value for risk in Risk}


def _served_tool(tool: object) -> bool:
    return (
        isinstance(tool, dict)
        and isinstance(tool.get("name"), str)
        and _TOOL_NAME.fullmatch(tool["name"]) is not None
        and isinstance(tool.get("description"), str)
        and isinstance(tool.get("input_schema"), dict)
        and tool.get("risk") in _RISKS
    )


class AppGone(Exception):
    """The app closed the connection before the call ended (it quit, or crashed)."""


class AppRefused(Exception):
    """The app answered but would not open the chat (a workspace outside its folders)."""


@dataclass
class AppLink:
    """``mcp serve``'s line to the running app; ``InstanceError`` when no app answers."""

    runtime_dir: Path
    yes: bool = False
    yes_all: bool = False
    workspace: str | None = None
    session_id: str | None = None

    def __post_init__(self) -> None:
        self._instance = SingleInstance(self.runtime_dir)

    def running(self) -> bool:
        try:
            return bool(self._instance.send({"command": "ping"}, timeout=CONNECT_WAIT).get("ok"))
        except InstanceTimeout:
            return True  # there, but busy
        except InstanceError:
            return False

    def tools(self) -> list[dict[str, Any]]:
        """The app's MCP tools to offer (``InstanceError`` when no app answers); an entry that
        is not what the app sends is dropped."""
        reply = self._instance.send({"command": "mcp_tools"}, timeout=CONNECT_WAIT)
        tools = reply.get("tools") if reply.get("ok") else None
        return [t for t in tools if _served_tool(t)] if isinstance(tools, list) else []

    def watch(self) -> AppWatch:
        """The app's ``mcp_watch`` (``desktop/instance/mcp_watch.py``): ``InstanceError`` when
        no app answers, ``Unsupported`` when it is older than that command."""
        return AppWatch.open(self._instance)

    def _open(self) -> str:
        request = {"command": "mcp_open", "workspace": self.workspace}
        reply = self._instance.send(request, timeout=OPEN_WAIT)
        if not reply.get("ok"):
            raise AppRefused(str(reply.get("error") or "the app refused the session"))
        self.session_id = str(reply["session_id"])
        return self.session_id

    def call(self, name: str, arguments: dict[str, Any], cancelled: threading.Event) -> Any:
        """The tool's result from the app. ``InstanceError`` before anything was sent (no app
        runs: the caller may run it elsewhere); ``AppGone`` when the app quit mid-call."""
        if len(json.dumps(arguments)) > MAX_REQUEST - 4096:  # as sent: JSON, ASCII only
            limit = MAX_REQUEST // 1_000_000
            return {
                "success": False,
                "error": f"{name} was not run: its arguments exceed {limit} MB",
            }
        reply = self._call_once(self.session_id or self._open(), name, arguments, cancelled)
        if reply.get("code") == "unknown_session":  # the app restarted, or the chat was deleted
            reply = self._call_once(self._open(), name, arguments, cancelled)
        if reply.get("ok"):
            return reply.get("result")
        error = str(reply.get("error") or reply.get("code") or "failed")
        return {"success": False, "error": error}

    def _call_once(
        self, session_id: str, name: str, arguments: dict[str, Any], cancelled: threading.Event
    ) -> dict[str, Any]:
        request = {
            "command": "mcp_call", "session_id": session_id, "name": name,
            "arguments": arguments, "yes": self.yes, "yes_all": self.yes_all,
        }  # fmt: skip
        conn = self._instance.connect(request, timeout=CONNECT_WAIT)
        with conn:
            try:
                while not conn.poll(POLL):
                    if cancelled.is_set():
                        with contextlib.suppress(OSError):
                            conn.send_bytes(b'{"cancel": true}')
                        return {"ok": False, "code": "cancelled", "error": f"{name} was cancelled"}
                reply = json.loads(conn.recv_bytes(MAX_REPLY))
            except (EOFError, OSError) as exc:
                raise AppGone(str(exc)) from exc
        return reply if isinstance(reply, dict) else {"ok": False, "error": "a malformed answer"}
