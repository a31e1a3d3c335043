"""One MCP server's life: connect, list its tools, watch it, restart it after a crash.

Everything here runs on the manager's loop. ``run`` is one task per server: it opens the SDK's
``Client`` (stdio: the server as a child process in its own process group, with the SDK's
scrubbed environment plus the configured ``env`` and stderr to the server's log file; HTTP: the
configured URL only), lists the tools page by page, follows list changes (the
``notifications/tools/list_changed`` of handshake-era servers, ``subscriptions/listen`` on
2026-era ones), pings it while idle (``liveness.py``: a remote server that dies unseen is
noticed), and waits until the connection ends. Then it says why, waits (1 s, doubling to
60 s) and starts the server again. Calls run in their callers' tasks on the same loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import warnings
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TextIO

from tray_app.mcp.causes import failure_cause
from tray_app.mcp.config import SecretLookup, ServerConfig, resolve_secrets
from tray_app.mcp.liveness import Activity, watch
from tray_app.mcp.sandbox import contained_command, private_env, private_folder
from tray_app.mcp.sse_limit import SSE_EVENT_LIMIT_MB, SseAnswerTooLarge, overflowed_sse
from tray_app.mcp.watched import Watched, enter_within

if TYPE_CHECKING:
    from mcp.client.session import ClientRequestContext
    from mcp_types import ErrorData, ListRootsResult

log = logging.getLogger(__name__)
# The SDK logs a broken server's every answer at ERROR; with no logging set up (the `mcp`
# commands) Python would print each to the terminal. The app's own log still receives them.
logging.getLogger("mcp").addHandler(logging.NullHandler())

Status = Literal["starting", "ready", "failed", "stopped", "disabled"]
RootsFn = Callable[[], list[str]]
MAX_TOOLS = 512
MAX_PAGES = 50
BACKOFF_START = 1.0
BACKOFF_MAX = 60.0
CONNECT_TIMEOUT = 30.0
LIST_TIMEOUT = 30.0


@dataclass(frozen=True)
class RemoteTool:
    """One tool as the server listed it (plain data: the wire JSON's fields)."""

    server: str
    name: str
    description: str
    input_schema: dict[str, Any]
    annotations: dict[str, Any]
    title: str | None = None


@dataclass
class ServerState:
    """What the manager reports about a server (copied out for other threads)."""

    name: str
    status: Status = "starting"
    error: str | None = None
    error_code: str | None = None  # a failure the page words itself (mcp/config.py's codes)
    error_params: dict[str, Any] = field(default_factory=dict)  # mcp/causes.py's, for its code
    tools: list[RemoteTool] = field(default_factory=list)
    restarts: int = 0
    protocol: str | None = None
    transport: str = "stdio"

    def public(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "error": self.error,
            "error_code": self.error_code,
            "error_params": dict(self.error_params),
            "restarts": self.restarts,
            "protocol": self.protocol,
            "transport": self.transport,
            "tools": [t.name for t in self.tools],
        }


def _innermost(exc: BaseException) -> BaseException:
    """The SDK wraps task-group failures in exception groups: the first one inside."""
    inner = getattr(exc, "exceptions", None)  # an ExceptionGroup (no builtin name on 3.10)
    while isinstance(inner, tuple) and inner and isinstance(inner[0], BaseException):
        exc = inner[0]
        inner = getattr(exc, "exceptions", None)
    return exc


def describe_error(exc: BaseException) -> str:
    """One line for the user; the SDK wraps task-group failures in exception groups."""
    exc = _innermost(exc)
    text = " ".join(str(exc).split())[:300]
    if not text and type(exc).__module__.startswith("httpx"):
        text = "the connection to the server broke"  # httpx's read errors often say nothing
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class ServerConnection:
    def __init__(
        self,
        config: ServerConfig,
        *,
        log_dir: Path,
        secrets: SecretLookup | None,
        roots: RootsFn,
        sandbox: bool = False,
        private_root: Path | None = None,
        on_change: Callable[[], None] = lambda: None,
    ) -> None:
        self.config = config
        self._private_root = private_root
        self.state = ServerState(name=config.name, transport=config.transport)
        self._log_dir = log_dir
        self._secrets = secrets
        self._roots = roots
        self._sandbox = sandbox
        self._on_change = on_change
        self._client: Any = None
        self._settled = asyncio.Event()  # this attempt ended: ready, failed or stopped
        self._closed = asyncio.Event()
        self._relist = asyncio.Event()
        self._activity = Activity()
        self._silent: str | None = None  # why the last ping failed
        self._ended = asyncio.Event()  # the last connection ended (set until the next starts)
        self.started_at = time.monotonic()
        self.stopping = False

    # ---- life ---------------------------------------------------------------------------------

    async def run(self) -> None:
        """Keep the server connected until cancelled."""
        delay = BACKOFF_START
        while not self.stopping:
            began = time.monotonic()
            self._silent = None
            try:
                await self._session()
                self._set("failed", self._silent or "the server closed the connection")
            except asyncio.CancelledError:
                self._set("stopped", None)
                raise
            except Exception as exc:
                log.info("MCP server %s: %s", self.config.name, describe_error(exc))
                cause = (
                    (None, {})
                    if self._silent
                    else failure_cause(_innermost(exc), self.config.transport)
                )
                self.state.error_code, self.state.error_params = cause
                self._set("failed", self._silent or describe_error(exc))
            self._client = None
            self._ended.set()
            if self.stopping:  # the SDK's task groups can absorb the cancellation of a stop
                self._set("stopped", None)
                return
            if time.monotonic() - began > 2 * BACKOFF_MAX:
                delay = BACKOFF_START  # it ran well for a while: this is a fresh crash
            await asyncio.sleep(delay)
            delay = min(delay * 2, BACKOFF_MAX)
            self.state.restarts += 1
            self._set("starting", self.state.error)

    async def wait_ready(self, timeout: float) -> bool:
        """Whether the server is ready, waiting at most ``timeout`` while it is starting. A
        server that failed answers False at once: its retry comes later (seconds to a minute),
        and nobody (``mcp test``, the terminal's first turn) should wait the bound out for it."""
        try:
            await asyncio.wait_for(self._settled.wait(), timeout)
        except asyncio.TimeoutError:
            return False
        return self.state.status == "ready"

    def _set(self, status: Status, error: str | None) -> None:
        self.state.status = status
        self.state.error = error
        if error is None:
            self.state.error_code = None
            self.state.error_params = {}
        if status == "starting":
            self._settled.clear()
        else:
            self._settled.set()
        if status != "ready":
            self.state.tools = [] if status == "stopped" else self.state.tools
        self._on_change()

    async def _session(self) -> None:
        from mcp import Client

        self._closed.clear()
        self._ended.clear()
        async with AsyncExitStack() as stack:
            transport = await self._transport(stack)
            client = Client(
                transport,
                mode="auto",
                list_roots_callback=self._list_roots,
                message_handler=self._on_message,
                cache=None,
            )
            await enter_within(stack, client, CONNECT_TIMEOUT)
            self._client = client
            self.state.protocol = client.protocol_version
            await self._list_tools(client)
            self._set("ready", None)
            self._activity.heard()
            pings = asyncio.ensure_future(
                watch(client, self._activity, interval=self._ping_every, describe=describe_error)
            )
            watchers: list[asyncio.Future[Any]] = [
                asyncio.ensure_future(self._closed.wait()),
                asyncio.ensure_future(self._follow_changes(client)),
                pings,
            ]
            try:
                await asyncio.wait(watchers, return_when=asyncio.FIRST_COMPLETED)
                if pings.done() and not pings.cancelled():
                    self._silent = pings.result()  # the SDK's teardown may raise over it
            finally:
                for task in watchers:
                    task.cancel()
                await asyncio.gather(*watchers, return_exceptions=True)
                self._client = None

    def _ping_every(self) -> float:
        return self.config.ping_s  # read each round: a settings change needs no restart

    async def _transport(self, stack: AsyncExitStack) -> Any:
        config = self.config
        if config.transport == "stdio":
            from mcp.client.stdio import StdioServerParameters, stdio_client

            env = resolve_secrets(config.env, self._secrets)
            private = None
            if self._sandbox and self._private_root is not None:
                private = private_folder(self._private_root, config.name)
                env = {**private_env(private), **env}  # the server's own env wins
            command, args = contained_command(config, enabled=self._sandbox, private=private)
            params = StdioServerParameters(command=command, args=args, env=env, cwd=config.cwd)
            errlog = stack.enter_context(self._stderr_file())
            return Watched(stdio_client(params, errlog=errlog), self._closed)
        headers = resolve_secrets(config.headers, self._secrets)
        if config.transport == "sse":
            from mcp.client.sse import sse_client

            return Watched(sse_client(config.url or "", headers=headers), self._closed)
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        from tray_app.mcp.http_limits import MAX_EVENT, capped_client

        http = await stack.enter_async_context(
            capped_client(headers, timeout=httpx2.Timeout(30.0, read=300.0))
        )
        client = streamable_http_client(
            config.url or "", http_client=http, max_sse_event_size=MAX_EVENT
        )
        return Watched(client, self._closed)

    def _stderr_file(self) -> TextIO:
        """The server's stderr, appended to ``mcp-NAME.log`` in the app's log folder."""
        self._log_dir.mkdir(parents=True, exist_ok=True)
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in self.config.name)
        path = self._log_dir / f"mcp-{safe}.log"
        if path.exists() and path.stat().st_size > 4 * 1024 * 1024:
            path.replace(path.with_suffix(".log.1"))  # one old file kept, bounded
        handle = path.open("a", encoding="utf-8", errors="replace")
        handle.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} starting {self.config.name}\n")
        handle.flush()
        return handle

    # ---- tools --------------------------------------------------------------------------------

    async def _list_tools(self, client: Any) -> None:
        tools: list[RemoteTool] = []
        cursor: str | None = None
        for _ in range(MAX_PAGES):
            page = await asyncio.wait_for(
                client.list_tools(cursor=cursor, cache_mode="refresh"), LIST_TIMEOUT
            )
            for tool in page.tools:
                data = tool.model_dump(by_alias=True, mode="json", exclude_none=True)
                tools.append(
                    RemoteTool(
                        server=self.config.name,
                        name=str(data.get("name", "")),
                        description=str(data.get("description") or ""),
                        input_schema=dict(data.get("inputSchema") or {}),
                        annotations=dict(data.get("annotations") or {}),
                        title=data.get("title"),
                    )
                )
            cursor = page.next_cursor
            if not cursor or len(tools) >= MAX_TOOLS:
                break
        self.state.tools = tools[:MAX_TOOLS]
        self._on_change()

    async def _follow_changes(self, client: Any) -> None:
        """Relist when the server says its tools changed (both protocol eras)."""
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
            caps = client.server_capabilities
            tools_cap = getattr(caps, "tools", None)
            if tools_cap is not None and getattr(tools_cap, "list_changed", False):
                with contextlib.suppress(Exception):
                    async with client.listen(tools_list_changed=True) as sub:
                        async for _event in sub:
                            await self._list_tools(client)
        while True:
            await self._relist.wait()
            self._relist.clear()
            await self._list_tools(client)

    async def _on_message(self, message: Any) -> None:
        method = getattr(message, "method", None)
        if method == "notifications/tools/list_changed":
            self._relist.set()

    async def _list_roots(self, context: ClientRequestContext) -> ListRootsResult | ErrorData:
        import mcp_types as types

        del context
        roots = []
        for folder in self._roots():
            path = Path(folder)
            roots.append(types.Root(uri=path.as_uri(), name=path.name or str(path)))  # type: ignore[arg-type]
        return types.ListRootsResult(roots=roots)

    async def roots_changed(self) -> None:
        """Tell a handshake-era server that our roots changed (2026-era servers have none)."""
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        client = self._client
        if client is None or client.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # roots are deprecated in 2026-07-28, not before
            try:
                await client.send_roots_list_changed()
            except Exception as exc:
                log.info("MCP server %s: roots not sent (%s)", self.config.name, exc)

    # ---- calls --------------------------------------------------------------------------------

    async def call(
        self,
        tool: str,
        arguments: dict[str, Any],
        *,
        timeout: float,
        progress: Callable[[float, float | None, str | None], Awaitable[None]] | None = None,
    ) -> dict[str, Any]:
        """The CallToolResult's JSON. Raises TimeoutError, or RuntimeError when not running."""
        client = self._client
        if client is None:
            why = f" ({self.state.error})" if self.state.error else ""
            raise RuntimeError(f"the MCP server {self.config.name!r} is not running{why}")
        self._activity.in_flight += 1  # no ping while a call runs: its answer says enough
        try:
            result = await asyncio.wait_for(
                client.call_tool(tool, arguments, progress_callback=progress), timeout
            )
            self._activity.heard()
        except Exception as exc:
            if self.config.transport == "sse":
                await self._name_sse_overflow(exc)
            raise
        finally:
            self._activity.in_flight -= 1
        data: dict[str, Any] = result.model_dump(by_alias=True, mode="json", exclude_none=True)
        return data

    async def _name_sse_overflow(self, exc: Exception) -> None:
        """Raise ``SseAnswerTooLarge`` if the connection that failed this call ended on the
        SDK's 1 MB event cap (its end is reported just after the call's "connection closed")."""
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._ended.wait(), 10.0)
        if overflowed_sse(self.state.error):
            raise SseAnswerTooLarge(
                f"the answer was larger than the {SSE_EVENT_LIMIT_MB} MB an SSE connection carries"
            ) from exc
