"""The MCP servers of this process, on their own asyncio loop and thread.

Servers start in the background: ``configure`` returns at once and a slow or broken server only
changes its own status. Nothing on the core loop ever waits for a server: turns read the
tools of the servers that are ready *now* (``snapshot``), and a call blocks only the worker
thread the agent already runs tools in (``call``), polling the turn's cancel flag so that a
stopped turn cancels the request (the SDK sends ``notifications/cancelled``). ``stop`` ends every
server with its whole process tree.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

from tray_app.mcp.config import SecretLookup, ServerConfig
from tray_app.mcp.connection import RemoteTool, RootsFn, ServerConnection, ServerState

log = logging.getLogger(__name__)

T = TypeVar("T")
ProgressFn = Callable[[float, "float | None", "str | None"], None]
CANCEL_POLL = 0.05  # seconds between looks at the turn's cancel flag (an Event wait, not a sleep)
STOP_TIMEOUT = 8.0


class McpManager:
    def __init__(
        self,
        *,
        log_dir: Path,
        secrets: SecretLookup | None = None,
        roots: RootsFn = list,
        sandbox: Callable[[], bool] = lambda: False,
        on_change: Callable[[], None] | None = None,
        private_root: Path | None = None,
    ) -> None:
        """``private_root``: where each sandboxed server gets its own writable folder."""
        self._log_dir = log_dir
        self._private_root = private_root
        self._secrets = secrets
        self._roots = roots
        self._sandbox = sandbox
        self._on_change = on_change
        self._lock = threading.Lock()
        self._connections: dict[str, ServerConnection] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._disabled: dict[str, ServerConfig] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._version = 0  # bumped on every change: the tool list of a turn is cached by it
        self._configuring: concurrent.futures.Future[None] | None = None

    # ---- the loop -----------------------------------------------------------------------------

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is not None:
                return self._loop
            ready = threading.Event()

            def main() -> None:
                loop = asyncio.new_event_loop()
                self._loop = loop
                asyncio.set_event_loop(loop)
                ready.set()
                try:
                    loop.run_forever()
                finally:
                    loop.close()

            self._thread = threading.Thread(target=main, name="metona-mcp", daemon=True)
            self._thread.start()
            ready.wait()
            assert self._loop is not None
            return self._loop

    def _submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        return asyncio.run_coroutine_threadsafe(coro, self._ensure_loop())

    def _changed(self) -> None:
        self._version += 1
        if self._on_change is not None:
            try:
                self._on_change()
            except Exception:
                log.exception("MCP change listener failed")

    @property
    def version(self) -> int:
        return self._version

    # ---- servers ------------------------------------------------------------------------------

    def configure(
        self, servers: list[ServerConfig], *, wait: bool = False, timeout: float = 60.0
    ) -> None:
        """Start, restart or stop servers to match ``servers``; returns at once unless
        ``wait`` (until the old servers are stopped and the new ones are starting, which on a
        first call includes loading the SDK: seconds on a busy machine, hence the long bound).
        Raises ``TimeoutError`` if that takes longer than ``timeout``."""
        if not servers and self._loop is None:
            return  # no server configured: no thread, no SDK import
        future = self._submit(self._configure(list(servers)))
        self._configuring = future
        if wait:
            future.result(max(timeout, STOP_TIMEOUT + 2))

    async def _configure(self, servers: list[ServerConfig]) -> None:
        wanted = {s.name: s for s in servers if s.enabled}
        self._disabled = {s.name: s for s in servers if not s.enabled}
        stopping = []
        for name, conn in list(self._connections.items()):
            config = wanted.get(name)
            if config is not None and _same_process(config, conn.config):
                conn.config = config  # tool switches or trust: no restart needed
            elif config != conn.config:
                stopping.append(self._stop_one(name))
        if stopping:
            await asyncio.gather(*stopping)
        for name, config in wanted.items():
            if name in self._connections:
                continue
            conn = ServerConnection(
                config,
                log_dir=self._log_dir,
                secrets=self._secrets,
                roots=self._roots,
                sandbox=self._sandbox(),
                private_root=self._private_root,
                on_change=self._changed,
            )
            self._connections[name] = conn
            self._tasks[name] = asyncio.get_running_loop().create_task(conn.run())
        self._changed()

    async def _stop_one(self, name: str) -> None:
        task = self._tasks.pop(name, None)
        conn = self._connections.pop(name, None)
        if conn is not None:
            conn.stopping = True
        if task is not None:
            task.cancel()
            await asyncio.wait({task}, timeout=STOP_TIMEOUT)

    def restart_using(self, secret: str) -> None:
        """Restart the servers whose ``env`` or ``headers`` refer to ``keyring:secret`` (its
        value changed); a failed one that waits to retry starts again at once."""
        if self._loop is None:
            return

        async def again() -> None:
            names = [n for n, c in self._connections.items() if secret in c.config.secret_names()]
            if not names:
                return
            configs = [c.config for c in self._connections.values()]
            await asyncio.gather(*(self._stop_one(n) for n in names))
            await self._configure([*configs, *self._disabled.values()])

        self._submit(again())

    def wait_ready(self, name: str, timeout: float) -> bool:
        """Block until the server is connected with its tools listed (CLI, tests)."""
        if self._configuring is not None:
            concurrent.futures.wait([self._configuring], timeout)
        conn = self._connections.get(name)
        if conn is None:
            return False
        return bool(self._submit(conn.wait_ready(timeout)).result(timeout + 5))

    def snapshot(self) -> list[ServerState]:
        """Every configured server's state, copied (safe to read from any thread)."""
        states = [
            ServerState(
                name=c.state.name,
                status=c.state.status,
                error=c.state.error,
                error_code=c.state.error_code,
                error_params=dict(c.state.error_params),
                tools=list(c.state.tools),
                restarts=c.state.restarts,
                protocol=c.state.protocol,
                transport=c.state.transport,
            )
            for c in list(self._connections.values())
        ]
        for config in self._disabled.values():
            states.append(
                ServerState(name=config.name, status="disabled", transport=config.transport)
            )
        return states

    def config(self, name: str) -> ServerConfig | None:
        conn = self._connections.get(name)
        return conn.config if conn is not None else None

    def ready_tools(self) -> list[RemoteTool]:
        return [t for s in self.snapshot() if s.status == "ready" for t in s.tools]

    def roots_changed(self) -> None:
        """The allowed folders changed: servers that follow roots are told (returns at once)."""
        if self._loop is None:
            return

        async def tell() -> None:
            await asyncio.gather(*(c.roots_changed() for c in list(self._connections.values())))

        self._submit(tell())

    # ---- calls --------------------------------------------------------------------------------

    def call(
        self,
        server: str,
        tool: str,
        arguments: dict[str, Any],
        *,
        cancel: threading.Event,
        progress: ProgressFn | None = None,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        """Call a tool and wait (from a worker thread). Raises TimeoutError, RuntimeError
        (not running, stopped by the user) or the SDK's MCPError."""
        conn = self._connections.get(server)
        if conn is None:
            raise RuntimeError(f"the MCP server {server!r} is not configured")
        limit = timeout if timeout is not None else conn.config.timeout_s

        async def report(done: float, total: float | None, message: str | None) -> None:
            if progress is not None:
                try:
                    progress(done, total, message)
                except Exception:
                    log.exception("progress listener failed")

        future = self._submit(conn.call(tool, arguments, timeout=limit, progress=report))
        while True:
            done, _ = concurrent.futures.wait([future], timeout=CANCEL_POLL)
            if done:
                return future.result()
            if cancel.is_set():
                future.cancel()  # cancels the request's task: the SDK tells the server
                raise RuntimeError("cancelled: the user stopped the turn")

    # ---- quit ---------------------------------------------------------------------------------

    def stop(self) -> None:
        """End every server (stdio ones with their process tree) and the loop."""
        loop = self._loop
        if loop is None or self._thread is None:
            return

        async def stop_all() -> None:
            await asyncio.gather(*(self._stop_one(n) for n in list(self._connections)))

        try:
            asyncio.run_coroutine_threadsafe(stop_all(), loop).result(STOP_TIMEOUT + 2)
        except Exception:
            log.exception("stopping the MCP servers failed")
        loop.call_soon_threadsafe(loop.stop)
        self._thread.join(STOP_TIMEOUT)
        self._loop = None
        self._thread = None


def _same_process(new: ServerConfig, old: ServerConfig) -> bool:
    """Whether ``new`` differs from ``old`` only in what the tool list reads on each turn."""
    keep = {"disabled_tools", "trust", "ping_s"}
    return new.model_dump(exclude=keep) == old.model_dump(exclude=keep)
