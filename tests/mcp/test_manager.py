"""The manager against the in-repo MCP server over real stdio: listing, calls, progress,
cancellation, list changes, a crash and its restart, stop with the process tree, a hang."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

import pytest

from tests.mcp.conftest import fake_entry
from tests.support.waiting import eventually
from tray_app.mcp.config import ServerConfig, parse_servers
from tray_app.mcp.manager import McpManager


def start(manager: McpManager, config: ServerConfig) -> None:
    manager.configure([config], wait=True)
    assert manager.wait_ready(config.name, 30), manager.snapshot()[0].error


def pid_of(marks: Path, index: int = 0) -> int:
    started = sorted(marks.glob("started-*"), key=lambda p: p.stat().st_mtime_ns)
    return int(started[index].name.split("-")[1])


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    state = Path(f"/proc/{pid}/stat").read_text().split()[2] if sys.platform == "linux" else "R"
    return state != "Z"


def test_lists_tools_and_calls_one(
    manager: McpManager, fake_config: ServerConfig, tmp_path: Path
) -> None:
    start(manager, fake_config)
    state = manager.snapshot()[0]
    assert state.status == "ready" and state.protocol
    names = {t.name: t for t in state.tools}
    assert {"echo", "wipe", "fail", "picture", "slow", "grow"} <= set(names)
    assert names["echo"].annotations.get("readOnlyHint") is True
    assert names["wipe"].annotations == {}
    raw = manager.call("fake", "echo", {"text": "你好 🌍 \u202e"}, cancel=threading.Event())
    assert raw["content"][0]["text"] == "echo: 你好 🌍 \u202e"
    log = (tmp_path / "logs" / "mcp-fake.log").read_text(encoding="utf-8")
    assert "fake MCP server" in log  # the server's stderr went to its own log file


def test_progress_is_reported(manager: McpManager, fake_config: ServerConfig, marks: Path) -> None:
    start(manager, fake_config)
    (marks / "go").write_text("")
    seen: list[tuple[float, float | None, str | None]] = []
    raw = manager.call(
        "fake", "slow", {"steps": 3}, cancel=threading.Event(), progress=lambda *a: seen.append(a)
    )
    assert raw["content"][0]["text"] == "done after 3 steps"
    assert [s[0] for s in seen] == [1, 2, 3] and seen[0][2] == "step 1"


def test_stopping_the_turn_cancels_the_request_on_the_server(
    manager: McpManager, fake_config: ServerConfig, marks: Path
) -> None:
    start(manager, fake_config)
    cancel = threading.Event()
    outcome: list[BaseException] = []

    def run() -> None:
        try:
            manager.call("fake", "slow", {"steps": 2}, cancel=cancel)
        except BaseException as exc:
            outcome.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    eventually(lambda: (marks / "step-1").exists(), message="the slow tool to start")
    cancel.set()
    worker.join(10)
    assert "cancelled" in str(outcome[0])
    eventually(lambda: (marks / "cancelled").exists(), message="the server to see the cancellation")
    # The connection survives: the next call works.
    assert manager.call("fake", "echo", {"text": "x"}, cancel=threading.Event())["content"]


def test_a_changed_tool_list_is_picked_up(manager: McpManager, fake_config: ServerConfig) -> None:
    start(manager, fake_config)
    version = manager.version
    manager.call("fake", "grow", {}, cancel=threading.Event())
    eventually(
        lambda: "late" in [t.name for t in manager.ready_tools()],
        message="the new tool to be listed",
    )
    assert manager.version > version


def test_a_timeout_ends_the_call(
    manager: McpManager, fake_config: ServerConfig, marks: Path
) -> None:
    start(manager, fake_config)
    with pytest.raises(TimeoutError):
        manager.call("fake", "slow", {"steps": 2}, cancel=threading.Event(), timeout=0.5)
    eventually(lambda: (marks / "cancelled").exists(), message="the server to see the cancellation")


def test_a_crash_is_reported_and_the_server_restarts(
    manager: McpManager, fake_config: ServerConfig, marks: Path
) -> None:
    start(manager, fake_config)
    first = pid_of(marks)
    with pytest.raises(Exception):  # noqa: B017 - the SDK's "connection closed" error
        manager.call("fake", "crash", {}, cancel=threading.Event())
    eventually(lambda: len(list(marks.glob("started-*"))) == 2, message="the restart")
    assert manager.wait_ready("fake", 30)
    state = manager.snapshot()[0]
    assert state.status == "ready" and state.restarts == 1
    assert not alive(first)
    assert manager.call("fake", "echo", {"text": "back"}, cancel=threading.Event())["content"]


def test_stop_ends_the_server_process(
    manager: McpManager, fake_config: ServerConfig, marks: Path
) -> None:
    start(manager, fake_config)
    pid = pid_of(marks)
    assert alive(pid)
    manager.stop()
    eventually(lambda: not alive(pid), message="the server process to end")


def test_a_failing_server_does_not_hold_up_the_others(
    manager: McpManager, fake_config: ServerConfig, tmp_path: Path
) -> None:
    hang = tmp_path / "hang.py"
    hang.write_text("import time\nwhile True: time.sleep(1)\n")
    servers, _ = parse_servers(
        {
            "missing": {"command": str(tmp_path / "no-such-program")},
            "hangs": {"command": sys.executable, "args": [str(hang)]},
            "fake": fake_entry(Path(fake_config.env["FAKE_MCP_MARKS"])),
        }
    )
    manager.configure(servers)  # returns at once, whatever the servers do
    assert manager.wait_ready("fake", 30)
    states = {s.name: s for s in manager.snapshot()}
    assert states["hangs"].status == "starting"
    eventually(
        lambda: {s.name: s for s in manager.snapshot()}["missing"].error, message="the error"
    )
    with pytest.raises(RuntimeError, match="not running"):
        manager.call("hangs", "x", {}, cancel=threading.Event())


def test_a_disabled_server_is_listed_but_not_started(manager: McpManager, marks: Path) -> None:
    servers, _ = parse_servers({"off": fake_entry(marks, enabled=False)})
    manager.configure(servers, wait=True)
    assert [(s.name, s.status) for s in manager.snapshot()] == [("off", "disabled")]
    assert not list(marks.glob("started-*"))
