"""``mcp serve`` tells its client when the running app's MCP tools change.

What ``mcp serve`` offers beyond the built-in tools is the app's MCP servers' tools, and they
come and go: a server starts, stops or lists new tools, the app opens or quits. Nothing tells
``mcp serve`` (the instance socket only answers), so once the client has listed the tools it asks
the app every ``POLL_S`` seconds, and when the list it would give differs from the one it last
gave or announced, it says ``tools/list_changed``: on a 2026-era connection through the
``subscriptions/listen`` stream the client opened, on a handshake-era one as a notification.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from typing import Any

POLL_S = 5.0  # one small question to the app; a client learns of a change within this


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

    async def follow(self, fetch: Callable[[], Awaitable[list[dict[str, Any]]]]) -> None:
        """Until cancelled: ask the app now and then, and announce a change once."""
        while True:
            await asyncio.sleep(POLL_S)
            if self._shown is None:
                continue
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
