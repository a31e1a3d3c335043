"""The running app for ``mcp serve`` tests: a headless Core behind the real instance socket
answering with the app's own dispatch (``desktop/instance/instance_dispatch.py``), the
``mcp serve`` subprocess driven by the SDK's own client, and the fixtures the tests share
(each test module brings its own ``work`` folder and settings)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.mcp.conftest import ROOT
from tests.support.waiting import eventually
from tray_app.base.paths import AppPaths
from tray_app.core.bootstrap import RunningApp, start_app
from tray_app.desktop.instance.instance import SingleInstance
from tray_app.desktop.instance.instance_dispatch import InstanceCommands


@dataclass
class HeadlessApp:
    running: RunningApp
    instance: SingleInstance
    quitting: threading.Event

    def pending(self) -> list[dict[str, Any]]:
        return list(self.running.core.pending_approvals())

    def quit(self) -> None:
        """Like the app's Quit: the socket stops, then Core (which ends what still runs)."""
        if not self.quitting.is_set():
            self.quitting.set()
            self.instance.release()
            self.running.close(1.5)

    @classmethod
    def start(cls, metona_home: Path, *, mcp: str, offer_tools: bool) -> HeadlessApp:
        """Core behind the real instance socket, answering with the app's own dispatch
        (``instance_dispatch.py``); without ``offer_tools`` like an app from before
        ``mcp_tools`` and ``mcp_watch`` (it answers them as unknown commands)."""
        paths = AppPaths.under(metona_home)
        running = start_app(paths, mcp=mcp)
        instance = SingleInstance(paths.runtime_dir)
        assert instance.acquire()
        quitting, started = threading.Event(), threading.Event()
        started.set()
        headless = cls(running, instance, quitting)
        commands = InstanceCommands(
            core=lambda: running.core, quit=headless.quit, quitting=quitting, started=started
        )
        conversations = commands.conversations()
        handle = commands.handle
        if not offer_tools:
            del conversations["mcp_watch"]

            def handle(request: dict[str, Any]) -> dict[str, Any]:
                if request["command"] == "mcp_tools":
                    return {"ok": False, "error": "unknown command 'mcp_tools'"}
                return commands.handle(request)

        instance.serve(handle, conversations=conversations)
        return headless


def write_settings(metona_home: Path, settings: dict[str, Any]) -> None:
    """The settings file the app reads at start."""
    config = metona_home / "config" / "settings.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps(settings), encoding="utf-8")


@contextlib.asynccontextmanager
async def serve(home: Path, work: Path, errlog: IO[str], *flags: str) -> AsyncIterator[Client]:
    env = {
        "METONA_HOME": str(home),
        "PYTHONPATH": str(ROOT),
        "HOME": os.environ.get("HOME", str(home)),
    }
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "tray_app", "mcp", "serve", "--workspace", str(work), *flags],
        env=env,
    )
    async with Client(stdio_client(params, errlog=errlog)) as client:
        yield client


async def until(check: Any, what: str, timeout: float = 60.0) -> Any:
    """Wait on a condition without blocking the loop the MCP client runs on."""
    return await asyncio.to_thread(eventually, check, timeout, what)
