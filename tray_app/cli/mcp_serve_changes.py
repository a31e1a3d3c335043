"""``mcp serve`` tells its client when the running app's MCP tools change.

What ``mcp serve`` offers beyond the built-in tools is the app's MCP servers' tools, and they
come and go: a server starts, stops or lists new tools, the app opens or quits. While the app runs,
``mcp serve`` keeps an ``mcp_watch`` conversation open with it
(``desktop/instance/mcp_watch.py``) and the app says when its MCP servers' status or tools
change; then ``mcp serve`` asks for the list, and when the list it would give differs from the
one it last gave or announced, it says
``tools/list_changed`` at once: on a 2026-era connection through the ``subscriptions/listen``
stream the client opened, on a handshake-era one as a notification. When no app runs it looks
every ``POLL_S`` seconds whether one started (and compares then); an app from before
``mcp_watch`` is asked every ``POLL_S`` seconds instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from typing import Any, Literal, Protocol

POLL_S = 5.0  # without a watch: one small question to the app; a client learns within this
WATCH_LOOK_S = 1.0  # how long one wait on the watch blocks a worker thread


class Watch(Protocol):
    """An open ``mcp_watch`` (``desktop/instance/mcp_watch.py``'s ``AppWatch``)."""

    def next(self, timeout: float) -> Literal["changed", "quiet", "ended"]: ...

    def close(self) -> None: ...


#: Opens a watch: None when no app runs or it is older than ``mcp_watch`` (then: poll).
OpenWatch = Callable[[], Awaitable[Watch | None]]


def signature(tools: list[dict[str, Any]]) -> str:
    return json.dumps(tools, sort_keys=True)


class ToolChanges:
    """The list last shown to the client, and the one way to tell it that list is stale."""

    def __init__(self) -> None:
        from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler

        self.bus = InMemorySubscriptionBus()
        self.listen_handler = ListenHandler(self.bus, max_subscriptions=16)
        self._shown: str | None = None  # nothing listed yet: nothing to announce
        self._session: Any = None
        self._modern = False

    def listed(self, ctx: Any, app_tools: list[dict[str, Any]]) -> None:
        """The client was just given the list with these app tools."""
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        self._shown = signature(app_tools)
        self._session = getattr(ctx, "session", None)
        self._modern = getattr(ctx, "protocol_version", None) in MODERN_PROTOCOL_VERSIONS

    async def follow(
        self,
        fetch: Callable[[], Awaitable[list[dict[str, Any]]]],
        open_watch: OpenWatch,
        wait: Callable[[Watch], Awaitable[str]],
    ) -> None:
        """Until cancelled: hear the app's changes while a watch is open (else ask now and
        then), and announce each change of the list once."""
        while True:
            watch = await open_watch()
            if watch is not None:
                try:
                    await self._compare(fetch)  # what changed before the watch opened
                    while (heard := await wait(watch)) != "ended":
                        if heard == "changed":
                            await self._compare(fetch)
                finally:
                    watch.close()
            # Without a watch: now and then. After one: the app quit (its tools are gone), or
            # said what this side does not know; a pause before the next, never a busy loop.
            await self._compare(fetch)
            await asyncio.sleep(POLL_S)

    async def _compare(self, fetch: Callable[[], Awaitable[list[dict[str, Any]]]]) -> None:
        if self._shown is None:
            return  # nothing listed yet: nothing to announce
        now = signature(await fetch())
        if now != self._shown:
            self._shown = now  # announced: the client lists again when it wants
            await self._announce()

    async def _announce(self) -> None:
        from mcp.server.subscriptions import ToolsListChanged

        with contextlib.suppress(Exception):  # a client gone meanwhile: nothing to tell
            if self._modern:
                await self.bus.publish(ToolsListChanged())
            elif self._session is not None:
                await self._session.send_tool_list_changed()
