"""``mcp_serve_changes.ToolChanges.follow``: pushed while a watch is open, asked otherwise.

The end-to-end path (the real socket, ``mcp serve`` as a subprocess) is in
test_serve_app_tools.py; here the one branch a real app cannot show quickly: an app from
before ``mcp_watch`` (the watch cannot open) is still asked now and then.
"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

from tray_app.cli import mcp_serve_changes
from tray_app.cli.mcp_serve_changes import ToolChanges, Watch

pytestmark = pytest.mark.timeout(60)

LATE = {"name": "u62a5_e5918a__late", "description": "[报告] 🌍 \u202elate", "risk": "read"}


class Session:
    """The handshake-era session: ``tools/list_changed`` is a notification on it."""

    def __init__(self) -> None:
        self.told = asyncio.Event()

    async def send_tool_list_changed(self) -> None:
        self.told.set()


def listed_once(changes: ToolChanges) -> Session:
    session = Session()
    changes.listed(SimpleNamespace(session=session, protocol_version="2025-06-18"), [])
    return session


async def test_an_app_without_mcp_watch_is_asked_now_and_then(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(mcp_serve_changes, "POLL_S", 0.0)
    changes = ToolChanges()
    session = listed_once(changes)
    asked: list[str] = []
    offered: list[dict[str, Any]] = []

    async def fetch() -> list[dict[str, Any]]:
        asked.append("mcp_tools")
        if asked.count("mcp_tools") == 2:
            offered.append(LATE)  # the app's server lists a tool between two questions
        return list(offered)

    async def no_watch() -> Watch | None:
        asked.append("mcp_watch")
        return None  # an older app: unknown command

    async def never(_watch: Watch) -> str:
        raise AssertionError("no watch was open")

    following = asyncio.ensure_future(changes.follow(fetch, no_watch, never))
    try:
        await asyncio.wait_for(session.told.wait(), 30)
    finally:
        following.cancel()
    # Each round tries the watch again (the app may have been updated), then asks.
    assert asked[:4] == ["mcp_watch", "mcp_tools", "mcp_watch", "mcp_tools"]


async def test_a_burst_of_notices_is_one_announcement_and_the_end_is_one_more() -> None:
    changes = ToolChanges()
    session = listed_once(changes)
    offered: list[dict[str, Any]] = []
    said = iter(["quiet", "changed", "changed", "changed", "ended"])
    events: list[str] = []
    closed = asyncio.Event()

    class FakeWatch:
        def next(self, timeout: float) -> str:
            return next(said)

        def close(self) -> None:
            events.append("closed")
            closed.set()

    async def fetch() -> list[dict[str, Any]]:
        return list(offered)

    opened: list[FakeWatch] = []

    async def open_watch() -> Any:
        if opened:  # after the end: the app is gone, stop here
            await asyncio.Event().wait()
        opened.append(FakeWatch())
        return opened[0]

    async def wait(watch: Any) -> str:
        heard: str = watch.next(1.0)
        if heard == "changed" and not offered:
            offered.append(LATE)
        if heard == "ended":
            offered.clear()  # the app quit: its tools are gone
        if session.told.is_set():
            events.append("announced")
            session.told.clear()
        return heard

    following = asyncio.ensure_future(changes.follow(fetch, open_watch, wait))
    try:
        await asyncio.wait_for(closed.wait(), 30)
        await asyncio.wait_for(session.told.wait(), 30)  # the end's announcement
    finally:
        following.cancel()
    assert events == ["announced", "closed"]  # three notices, one change: one announcement
