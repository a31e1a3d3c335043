"""Real MCP servers from the package registries: mcp-server-time (PyPI, a 2026-era server) and
@modelcontextprotocol/server-filesystem (npm, a 2025-era server that takes its folders from our
roots): listing, a call through an approval in the agent loop, a crash and the restart."""

from __future__ import annotations

import json
import os
import signal
import threading
from pathlib import Path
from typing import Any

from tests.fakes.core_rig import Rig
from tests.fakes.turns import text_turn, tool_turn
from tests.mcp.conftest import filesystem_server, processes_running, time_server_entry
from tests.support.waiting import eventually
from tray_app.mcp.config import parse_servers
from tray_app.mcp.manager import McpManager


def test_time_server_lists_and_answers(manager: McpManager) -> None:
    servers, _ = parse_servers({"time": time_server_entry()})
    manager.configure(servers, wait=True)
    assert manager.wait_ready("time", 30), manager.snapshot()[0].error
    state = manager.snapshot()[0]
    tools = {t.name: t for t in state.tools}
    assert set(tools) == {"get_current_time", "convert_time"}
    assert tools["get_current_time"].annotations["readOnlyHint"] is True
    raw = manager.call(
        "time", "get_current_time", {"timezone": "Europe/London"}, cancel=threading.Event()
    )
    assert raw["structuredContent"]["timezone"] == "Europe/London"
    bad = manager.call(
        "time", "get_current_time", {"timezone": "Mars/Base"}, cancel=threading.Event()
    )
    assert bad["isError"] is True


def test_filesystem_server_gets_our_roots_and_a_write_asks_first(
    make_rig: Any, tmp_path: Path
) -> None:
    server = filesystem_server()
    rig: Rig = make_rig(
        default_registry=True,
        mcp_servers={"fs": {"command": str(server), "trust": "trust_read_only"}},
    )
    eventually(
        lambda: any(s["status"] == "ready" for s in rig.core.mcp_status()), 60, "fs to be ready"
    )
    target = rig.workspace / "写.txt"
    rig.fake.script(
        tool_turn([("fs__list_allowed_directories", {})]),
        tool_turn([("fs__write_file", {"path": str(target), "content": "héllo 🌍"})]),
        text_turn("done"),
    )
    _, turn = rig.send("write it")
    asked = rig.log.wait_type("approval_needed")
    assert asked.name == "fs__write_file" and asked.risk == "destructive"  # destructiveHint
    assert json.loads(asked.preview["arguments_text"])["path"] == str(target)
    assert not target.exists()
    rig.core.decide(asked.call_id, True)
    rig.finish(turn, 30)
    assert target.read_text(encoding="utf-8") == "héllo 🌍"
    # The read-only listing ran without asking (trusted) and shows the roots we gave.
    listed = json.loads(rig.fake.chat_requests[1]["messages"][-1]["content"])
    assert str(rig.workspace) in listed["content"]
    assert len(rig.log.of_type("approval_needed")) == 1


def test_a_killed_server_is_restarted(manager: McpManager, tmp_path: Path) -> None:
    server = filesystem_server()
    servers, _ = parse_servers({"fs": {"command": str(server), "args": [str(tmp_path)]}})
    manager.configure(servers, wait=True)
    assert manager.wait_ready("fs", 60)
    pids = eventually(
        lambda: processes_running("mcp-server-filesystem"), message="the server process"
    )
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    eventually(lambda: manager.snapshot()[0].restarts >= 1, 30, "the restart")
    assert manager.wait_ready("fs", 60)
    raw = manager.call("fs", "list_allowed_directories", {}, cancel=threading.Event())
    assert str(tmp_path) in raw["content"][0]["text"]
    assert not set(pids) & set(processes_running("mcp-server-filesystem"))


def test_new_roots_reach_the_filesystem_server(tmp_path: Path) -> None:
    server = filesystem_server()
    first, second = tmp_path / "first", tmp_path / "second 第二"
    first.mkdir()
    second.mkdir()
    roots = [str(first)]
    manager = McpManager(log_dir=tmp_path / "logs", roots=lambda: list(roots))
    try:
        servers, _ = parse_servers({"fs": {"command": str(server)}})
        manager.configure(servers, wait=True)
        assert manager.wait_ready("fs", 60)

        def allowed() -> str:
            raw = manager.call("fs", "list_allowed_directories", {}, cancel=threading.Event())
            return str(raw["content"][0]["text"])

        eventually(lambda: str(first) in allowed(), 30, "the first root")
        roots[:] = [str(second)]
        manager.roots_changed()
        eventually(
            lambda: str(second) in allowed() and str(first) not in allowed(), 30, "new roots"
        )
    finally:
        manager.stop()
