"""An idle remote server that dies is noticed by the idle ping (``mcp/liveness.py``), says so in
an ``mcp_status`` event, and is ready again once it is back; pings stay one at a time and a
server slow to answer one does not hold a call back."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

from tests.fakes.core_rig import Rig
from tests.mcp.conftest import fake_entry
from tests.mcp.http_serve import Served, serve
from tests.support.waiting import eventually, eventually_async, stays_async
from tray_app.mcp.config import parse_servers
from tray_app.mcp.connection import ServerConnection
from tray_app.mcp.liveness import Activity, watch
from tray_app.mcp.manager import McpManager

__all__ = ["serve"]  # the fixture, imported


def fast_pings(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """Probe every ``seconds`` (below the 5 s a setting may ask for, so the tests are quick)."""
    monkeypatch.setattr(ServerConnection, "_ping_every", lambda _self: seconds)


def rows_after(rig: Rig, start: int, name: str) -> list[dict[str, Any]]:
    """The server's rows in the mcp_status events published after the first ``start``."""
    events = rig.log.of_type("mcp_status")[start:]
    return [row for e in events for row in e.servers if row["name"] == name]


@pytest.mark.parametrize("mode", ["http", "sse"])
def test_an_idle_remote_server_that_dies_is_noticed_and_is_ready_again_when_back(
    make_rig: Any, serve: Callable[..., Served], mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast_pings(monkeypatch, 0.5)
    first = serve(mode)
    entry: dict[str, Any] = {"url": first.url, "timeout_s": 30}
    if mode == "sse":
        entry["type"] = "sse"
    rig: Rig = make_rig(default_registry=True, mcp_servers={"远程 服务": entry})

    def status() -> dict[str, Any]:  # empty until the manager has the server
        return next((s for s in rig.core.mcp_status() if s["name"] == "远程 服务"), {})

    eventually(lambda: status().get("status") == "ready", 60, "the server ready")
    manager = rig.core._mcp.manager
    assert manager is not None
    answer = manager.call("远程 服务", "echo", {"text": "日本語 🌍"}, cancel=threading.Event())
    assert "日本語 🌍" in str(answer)

    seen = len(rig.log.of_type("mcp_status"))
    first.process.kill()  # no goodbye: the connection is idle, nothing is being called
    first.process.wait(30)
    failed = eventually(
        lambda: next(
            (r for r in rows_after(rig, seen, "远程 服务") if r["status"] == "failed"), None
        ),
        60,
        "an mcp_status event saying the idle server stopped",
    )
    # The ping's own failure, the SDK's for the connection it broke, or (SSE) the event
    # stream's end: each names what happened.
    reasons = ("stopped answering", "ConnectError", "closed the connection")
    assert any(w in failed["error"] for w in reasons), failed
    assert manager.ready_tools() == []  # the next turn is not offered its tools

    back = serve(mode, "--port", str(urlparse(first.url).port))
    eventually(lambda: status().get("status") == "ready", 90, "the server ready again")
    assert status()["restarts"] >= 1 and status()["error"] is None
    assert back.requests()  # it reconnected to the server that came back
    answer = manager.call("远程 服务", "echo", {"text": "再见 👋"}, cancel=threading.Event())
    assert "再见 👋" in str(answer)


def test_a_ping_the_server_is_slow_to_answer_holds_no_call_back_and_none_piles_up(
    make_rig: Any, serve: Callable[..., Served], monkeypatch: pytest.MonkeyPatch
) -> None:
    fast_pings(monkeypatch, 0.3)
    served = serve("http", "--slow-probes")
    entry = {"url": served.url, "timeout_s": 60}
    rig: Rig = make_rig(default_registry=True, mcp_servers={"慢 服务": entry})
    eventually(
        lambda: any(s["status"] == "ready" for s in rig.core.mcp_status()), 60, "the server ready"
    )
    manager = rig.core._mcp.manager
    assert manager is not None
    probes = served.marks / "probes"
    held = served.marks / "hold-probes"
    held.write_text("", encoding="utf-8")
    count = lambda: len(probes.read_text().splitlines()) if probes.exists() else 0  # noqa: E731
    before = count()
    eventually(lambda: count() > before, 30, "a ping held by the server")
    for text in ("日本語 🌍", "\u202eevil", "再来 👋"):  # answered while the ping waits
        answer = manager.call("慢 服务", "echo", {"text": text}, cancel=threading.Event())
        assert answer["content"][0]["text"] == f"echo: {text}"
    assert count() == before + 1  # no second ping while one is out
    assert [s["status"] for s in rig.core.mcp_status()] == ["ready"]
    held.unlink()
    eventually(lambda: count() > before + 1, 30, "the pings to go on once answered")
    assert [s["status"] for s in rig.core.mcp_status()] == ["ready"]


def test_an_idle_stdio_server_that_is_killed_is_noticed_without_pings(
    manager: McpManager, marks: Path
) -> None:
    """A local server's exit ends its pipe: noticed at once, with pings switched off."""
    (config,), _ = parse_servers({"本地 服务": fake_entry(marks, ping_s=0)})
    manager.configure([config], wait=True)
    assert manager.wait_ready("本地 服务", 60)
    (started,) = marks.glob("started-*")
    os.kill(int(started.name.split("-")[1]), signal.SIGKILL)
    eventually(
        lambda: (
            manager.snapshot()[0].status == "failed"
            and manager.snapshot()[0].error == "the server closed the connection"
        ),
        60,
        "the killed server to be reported",
    )
    eventually(lambda: manager.snapshot()[0].status == "ready", 60, "the server started again")
    assert manager.snapshot()[0].restarts == 1


class SlowPings:
    """A client whose pings take ``hold`` to answer, counting how many are open at once."""

    protocol_version = "2025-11-25"

    def __init__(self, hold: asyncio.Event) -> None:
        self.session = self
        self.hold = hold
        self.open = 0
        self.most_open = 0
        self.sent = 0

    async def send_ping(self) -> None:
        self.sent += 1
        self.open += 1
        self.most_open = max(self.most_open, self.open)
        try:
            await self.hold.wait()
        finally:
            self.open -= 1


def test_pings_never_pile_up_and_a_slow_answer_during_a_call_is_not_a_death() -> None:
    async def scenario() -> tuple[SlowPings, str]:
        hold = asyncio.Event()
        client = SlowPings(hold)
        activity = Activity()
        activity.last_heard -= 10  # idle for a while: the first probe goes out at once
        pings = asyncio.ensure_future(watch(client, activity, interval=lambda: 0.01, timeout=0.3))
        await eventually_async(lambda: client.sent, 10, "the first ping", interval=0.01)
        activity.in_flight += 1  # a call starts while the ping waits, then answers
        # Past the ping's timeout: the call proves the server alive.
        await stays_async(lambda: not pings.done(), 0.5, "the server not declared dead")
        activity.heard()
        activity.in_flight -= 1
        assert not pings.done()  # not declared dead
        hold.set()  # the server answers pings again
        await eventually_async(lambda: client.sent >= 5, 10, "five pings", interval=0.01)
        hold.clear()  # and then never again, with nothing else going on
        return client, await asyncio.wait_for(pings, 30)

    client, why = asyncio.run(scenario())
    assert client.most_open == 1  # one probe at a time, never a pile
    assert why == "the server did not answer a ping within 0.3 s"
