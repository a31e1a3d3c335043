"""The in-repo MCP server as a configured server, and a manager that is always stopped."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tray_app.mcp.config import ServerConfig, parse_servers
from tray_app.mcp.manager import McpManager

ROOT = Path(__file__).resolve().parents[2]


def fake_entry(marks: Path, **extra: Any) -> dict[str, Any]:
    """A Claude Desktop style entry that starts tests/mcp/fake_server.py over stdio."""
    return {
        "command": sys.executable,
        "args": ["-m", "tests.mcp.fake_server"],
        "cwd": str(ROOT),
        "env": {"FAKE_MCP_MARKS": str(marks)},
        **extra,
    }


def wait_for(check: Callable[[], Any], timeout: float = 20.0, what: str = "condition") -> Any:
    """Wait on a condition (an Event wait between looks), never a fixed sleep."""
    deadline = time.monotonic() + timeout
    pause = threading.Event()
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        pause.wait(0.02)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture
def marks(tmp_path: Path) -> Path:
    folder = tmp_path / "marks"
    folder.mkdir()
    return folder


@pytest.fixture
def fake_config(marks: Path) -> ServerConfig:
    servers, errors = parse_servers({"fake": fake_entry(marks)})
    assert errors == {}
    return servers[0]


@pytest.fixture
def manager(tmp_path: Path) -> Iterator[McpManager]:
    made = McpManager(log_dir=tmp_path / "logs", roots=lambda: [str(tmp_path)])
    yield made
    made.stop()
