"""Noticing that an idle server died: a ping now and then while nothing else is said.

A stdio server's exit ends its pipe, and a call to a dead remote server fails, but an *idle*
Streamable HTTP or SSE server that goes away is silent: its status would stay "ready" until the
next call. So every ``ping_s`` seconds without any traffic, and never while a call is in flight,
the connection sends one probe (``ping`` on handshake-era servers; ``server/discover`` on
2026-era ones, where ping no longer exists) with a timeout. Probes run one at a time in their own
task, so they never pile up and a server slow to answer one never holds a call back.
"""

from __future__ import annotations

import asyncio
import time
import warnings
from collections.abc import Callable
from typing import Any

PING_TIMEOUT = 20.0  # generous: a loaded machine or a far server answers slowly, not never


class Activity:
    """What the probes need to know of a connection's calls: how many are running, and when
    the server was last heard from (a finished call is as good as an answered ping)."""

    def __init__(self) -> None:
        self.in_flight = 0
        self.last_heard = time.monotonic()

    def heard(self) -> None:
        self.last_heard = time.monotonic()

    def idle_for(self) -> float:
        return 0.0 if self.in_flight else time.monotonic() - self.last_heard


async def probe(client: Any) -> None:
    """One round trip that every server answers without side effects."""
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    version = client.protocol_version
    if version in MODERN_PROTOCOL_VERSIONS:
        await client.session.send_discover(version)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # deprecated in 2026-07-28 only, where it is unused
            await client.session.send_ping()


async def watch(
    client: Any,
    activity: Activity,
    *,
    interval: Callable[[], float],
    timeout: float = PING_TIMEOUT,
    describe: Callable[[BaseException], str] = repr,
) -> str:
    """Probe while idle until the server stops answering; return why (for the status line).
    ``interval`` is read afresh each round (0 or less: never probe)."""
    while True:
        every = interval()
        if every <= 0:
            await asyncio.Event().wait()  # probes are off: wait to be cancelled
        idle = activity.idle_for()
        if idle < every:
            await asyncio.sleep(every - idle if not activity.in_flight else every)
            continue
        started = activity.last_heard
        try:
            await asyncio.wait_for(probe(client), timeout)
        except asyncio.TimeoutError:
            if activity.in_flight or activity.last_heard != started:
                continue  # a call got through meanwhile: alive, only busy
            return f"the server did not answer a ping within {timeout:g} s"
        except Exception as exc:
            return f"the server stopped answering: {describe(exc)}"
        activity.heard()
